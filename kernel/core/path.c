// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-path sequence state: the sender's in-flight slots, SACK processing,
 * gap loss detection and RFC 6298 timer; the receiver's 256-bit window.
 * Rules cited as [REL-n] are in Documentation/protocol/reliability.rst.
 */
#include "path.h"

#define NSEC_PER_USEC_	1000ull
#define NSEC_PER_MSEC_	1000000ull

void mrc_path_cfg_default(struct mrc_path_cfg *cfg)
{
	cfg->rto_init_ns = 5 * NSEC_PER_MSEC_;
	cfg->rto_min_ns = 2 * NSEC_PER_MSEC_;
	cfg->rto_max_ns = 500 * NSEC_PER_MSEC_;
	cfg->reorder_pkts = 1;
	cfg->ack_every = 8;
	cfg->req_spacing = 0;
	cfg->ack_delay_ns = 20 * NSEC_PER_USEC_;
}

/* ---- 256-bit bitmap helpers: bit i of the window is bits[i / 64] bit i % 64 ---- */

static bool bm_test(const u64 *bits, u32 i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

static void bm_set(u64 *bits, u32 i)
{
	bits[i / 64] |= 1ull << (i % 64);
}

/* Shift the window down by @n bits: bit i takes the value of bit i + n. */
static void bm_shift(u64 *bits, u32 n)
{
	u32 words = n / 64, sh = n % 64, i;

	if (n >= MRC_SACK_BITS) {
		memset(bits, 0, MRC_SACK_WORDS * sizeof(*bits));
		return;
	}
	for (i = 0; i < MRC_SACK_WORDS; i++) {
		u64 lo = i + words < MRC_SACK_WORDS ? bits[i + words] : 0;
		u64 hi = i + words + 1 < MRC_SACK_WORDS ? bits[i + words + 1] : 0;

		bits[i] = sh ? lo >> sh | hi << (64 - sh) : lo;
	}
}

/* Number of consecutive set bits starting at bit 0. */
static u32 bm_trailing_ones(const u64 *bits)
{
	u32 i, n = 0;

	for (i = 0; i < MRC_SACK_WORDS; i++) {
		if (bits[i] == ~0ull) {
			n += 64;
			continue;
		}
		return n + (u32)__builtin_ctzll(~bits[i]);
	}
	return n;
}

/* ---- sender half ---- */

void mrc_path_tx_reset_rtt(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg)
{
	tx->srtt_ns = 0;
	tx->rttvar_ns = 0;
	tx->lent_srtt_ns = 0;
	tx->lent_rttvar_ns = 0;
	tx->min_rtt_ns = 0;
	tx->late_rtt_ns = 0;
	tx->route_psn = tx->snd_nxt;
	tx->ans_srtt_ns = 0;
	tx->ans_rttvar_ns = 0;
	tx->rto_ns = cfg->rto_init_ns;
}

void mrc_path_tx_init(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
		      u32 isn, struct mrc_path_ring *ring)
{
	memset(tx, 0, sizeof(*tx));
	memset(ring, 0, sizeof(*ring));
	tx->ring = ring;
	tx->snd_una = isn;
	tx->snd_nxt = isn;
	tx->high_acked = isn;
	tx->cum_seen = isn;
	tx->reorder = mrc_max_u32(cfg->reorder_pkts, 1);
	mrc_path_tx_reset_rtt(tx, cfg);
}

MRC_STATIC_ASSERT(MRC_PATH_WND % 64 == 0 && MRC_SACK_BITS <= MRC_PATH_WND,
		  "the acked map covers whole words and every SACK bit");

static struct mrc_path_slot *slot_of(struct mrc_path_tx *tx, u32 psn)
{
	return &tx->ring->slot[psn % MRC_PATH_WND];
}

static void acked_map_set(struct mrc_path_tx *tx, u32 psn, bool acked)
{
	u32 i = psn % MRC_PATH_WND;
	u64 bit = 1ull << (i % 64);

	if (acked)
		tx->ring->acked_map[i / 64] |= bit;
	else
		tx->ring->acked_map[i / 64] &= ~bit;
}

/* The map's 64 bits for PSNs first .. first + 63, wrapping around. */
static u64 acked_map_word(const struct mrc_path_tx *tx, u32 first)
{
	u32 i = first % MRC_PATH_WND, w = i / 64, sh = i % 64;
	u64 lo = tx->ring->acked_map[w];
	u64 hi = tx->ring->acked_map[(w + 1) % (MRC_PATH_WND / 64)];

	return sh ? lo >> sh | hi << (64 - sh) : lo;
}

/*
 * [REL-10] probe timeout: about two RTTs of silence. With packets of one
 * path in order, silence that long means the newest packets or their ACKs
 * were lost, which no later gap will reveal if nothing follows them.
 */
static u64 pto_of(const struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg)
{
	u64 srtt = tx->srtt_ns, var = tx->rttvar_ns, pto;

	if (!srtt) {
		/* [REL-10] not timed yet: the lent estimate, if any */
		srtt = tx->lent_srtt_ns;
		var = tx->lent_rttvar_ns;
	}
	if (!srtt)
		return 0;
	pto = 2 * srtt + 4 * var + cfg->ack_delay_ns;
	return pto < tx->rto_ns ? pto : 0;
}

/* Answer-timer probes in a row beyond which the timeout stops doubling. */
#define ANSWER_BACKOFF_MAX	6

/*
 * [REL-10] answer timeout: a request is answered at once, or with the
 * peer's reply ([REL-13], [REL-24]), never coalesced, so its answer
 * comes within what earlier answers took: their mean and four mean
 * deviations, as the RTO, but at least a quarter of the mean more, for
 * the grain of timers and schedulers where answers came like clockwork.
 */
u64 mrc_path_tx_answer_timeout(const struct mrc_path_tx *tx)
{
	if (!tx->ans_srtt_ns)
		return 0;
	return tx->ans_srtt_ns + mrc_max_u64(4 * tx->ans_rttvar_ns,
					     tx->ans_srtt_ns / 4);
}

/*
 * When the answer of the newest request still in flight is overdue, if
 * its sender then went idle; 0: none such, or no answer timed yet. A
 * request that a full window made ([REL-14]) sits behind a window of
 * data and waits for its answer as long as the queue makes it: the gap
 * rule and [REL-22] repair what a stream loses. Each probe without an ACK
 * in between doubles the wait: a peer that stopped answering for a while
 * (descheduled) gets a probe now and then, not one per answer time.
 */
static u64 answer_due(const struct mrc_path_tx *tx)
{
	u64 ato = mrc_path_tx_answer_timeout(tx);

	if (!ato || !tx->req_idle ||
	    !mrc_path_tx_req_pending(tx, MRC_PATH_WND))
		return 0;
	return tx->req_at + (ato << tx->probes);
}

/* The probe timer falls due at the latest when the answer is overdue. */
static void arm_answer(struct mrc_path_tx *tx)
{
	u64 due = answer_due(tx);

	if (due && (!tx->pto_deadline || due < tx->pto_deadline) &&
	    (!tx->rto_deadline || due < tx->rto_deadline))
		tx->pto_deadline = due;
}

static void arm_pto(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
		    u64 now)
{
	u64 pto = pto_of(tx, cfg);

	tx->pto_deadline = pto && tx->inflight_pkts ? now + pto : 0;
	arm_answer(tx);
}

/*
 * [REL-10] Routes of one connection join the same two endpoints, so one
 * path's round trip is a better guess for another than rto_init, which
 * assumes nothing: a connection spread over many paths sends a few
 * packets on each, and a tail lost on a path not yet timed waited rto_init
 * (5 ms by default; a 256 KiB message on 32 paths of a microsecond fabric
 * took 5 ms instead of 0.2 at 1% loss). The timers restart from now: what
 * is in flight left earlier, so they fall due no earlier than they would
 * have with the borrowed estimate from the start.
 */
void mrc_path_tx_borrow_rtt(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
			    const struct mrc_path_tx *from, u64 now)
{
	if (tx->srtt_ns || tx->lent_srtt_ns || !from->srtt_ns)
		return;
	tx->lent_srtt_ns = from->srtt_ns;
	tx->lent_rttvar_ns = from->rttvar_ns;
	tx->rto_ns = mrc_min_u64(tx->rto_ns,
				 mrc_max_u64(from->rto_ns, cfg->rto_min_ns));
	if (!tx->inflight_pkts)
		return;
	if (tx->rto_deadline)
		tx->rto_deadline = mrc_min_u64(tx->rto_deadline,
					       now + tx->rto_ns);
	if (!tx->pto_deadline)
		arm_pto(tx, cfg, now);
}

void mrc_path_tx_asked(struct mrc_path_tx *tx, u64 now, u32 psn, bool idle)
{
	tx->req_psn = psn;
	tx->req_set = true;
	tx->req_idle = idle;
	tx->req_at = now;
	arm_answer(tx);
}

u32 mrc_path_tx_send(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
		     u64 now, u32 cookie, u32 len)
{
	u32 psn = tx->snd_nxt++;
	struct mrc_path_slot *s = slot_of(tx, psn);

	s->cookie = cookie;
	s->sent = mrc_path_stamp(now);
	s->len = (u16)len;
	s->state = MRC_SLOT_INFLIGHT;
	acked_map_set(tx, psn, false);
	tx->inflight_pkts++;
	tx->inflight_bytes += len;
	tx->sent_pkts++;
	tx->sent_bytes += len;
	/* RFC 6298 (5.1): start the timer when it is not running. */
	if (!tx->rto_deadline)
		tx->rto_deadline = now + tx->rto_ns;
	if (!tx->pto_deadline)
		arm_pto(tx, cfg, now);
	return psn;
}

/* [REL-10] an answer came @a ns after its request left: RFC 6298's gains */
static void answer_sample(struct mrc_path_tx *tx, u64 a)
{
	if (!a)
		a = 1;
	if (!tx->ans_srtt_ns) {
		tx->ans_srtt_ns = a;
		tx->ans_rttvar_ns = a / 2;
		return;
	}
	tx->ans_rttvar_ns = tx->ans_rttvar_ns - tx->ans_rttvar_ns / 4 +
			    (tx->ans_srtt_ns > a ? tx->ans_srtt_ns - a :
			     a - tx->ans_srtt_ns) / 4;
	tx->ans_srtt_ns = tx->ans_srtt_ns - tx->ans_srtt_ns / 8 + a / 8;
}

void mrc_path_tx_answered(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
			  u64 now, u32 psn)
{
	if (!tx->req_set || !tx->req_idle || psn != tx->req_psn)
		return;
	answer_sample(tx, now > tx->req_at ? now - tx->req_at : 0);
	/* its ACK may still take the peer's ACK delay: the silence rule */
	tx->req_idle = false;
	tx->probes = 0;
	arm_pto(tx, cfg, now);
}

void mrc_path_tx_probe_now(struct mrc_path_tx *tx, u64 now)
{
	u64 rtt = tx->srtt_ns ? tx->srtt_ns : tx->rto_ns;

	if (!tx->inflight_pkts ||
	    mrc_path_stamp(now) - slot_of(tx, tx->snd_nxt - 1)->sent <
	    mrc_path_stamp(rtt))
		return;
	if (!tx->pto_deadline || tx->pto_deadline > now)
		tx->pto_deadline = now;
}

/* RFC 6298 (2.2, 2.3) with G = 0: the timer granularity is the caller's. */
static void rtt_sample(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
		       u64 r)
{
	u64 rto;

	if (!r)
		r = 1;
	tx->last_rtt_ns = r;
	tx->rtt_samples++;
	if (!tx->srtt_ns) {
		tx->srtt_ns = r;
		tx->rttvar_ns = r / 2;
	} else {
		u64 d = tx->srtt_ns > r ? tx->srtt_ns - r : r - tx->srtt_ns;

		tx->rttvar_ns = tx->rttvar_ns - tx->rttvar_ns / 4 + d / 4;
		tx->srtt_ns = tx->srtt_ns - tx->srtt_ns / 8 + r / 8;
	}
	if (!tx->min_rtt_ns || r < tx->min_rtt_ns)
		tx->min_rtt_ns = r;
	rto = tx->srtt_ns + 4 * tx->rttvar_ns;
	rto = mrc_max_u64(rto, cfg->rto_min_ns);
	tx->rto_ns = mrc_min_u64(rto, cfg->rto_max_ns);
}

void mrc_path_tx_rtt(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
		     u64 rtt_ns)
{
	rtt_sample(tx, cfg, rtt_ns);
}

static void mark_acked(struct mrc_path_tx *tx, u32 psn,
		       struct mrc_path_events *ev, bool *progress)
{
	struct mrc_path_slot *s = slot_of(tx, psn);

	if (s->state == MRC_SLOT_INFLIGHT) {
		tx->inflight_pkts--;
		tx->inflight_bytes -= s->len;
		ev->acked_bytes += s->len;
		tx->acked_pkts++;
		tx->acked_bytes += s->len;
		*progress = true;
	} else if (s->state == MRC_SLOT_LOST) {
		/*
		 * [REL-9] it arrived after all: the resend was spurious, so
		 * this path reorders. [REL-8] tolerate that displacement.
		 */
		u32 shift = tx->high_acked - psn;

		ev->n_late++;
		tx->late_acks++;
		tx->clean_acks = 0;
		/* a timer's false alarm is a lost ACK, not reordering */
		if (s->lost_by == MRC_LOST_GAP && shift < MRC_PATH_WND &&
		    shift + 1 > tx->reorder)
			tx->reorder = mrc_min_u32(shift + 1, MRC_PATH_REORDER_MAX);
		if (s->lost_by == MRC_LOST_RACK) {
			ev->n_late_rack++;
			tx->late_rack++;
		}
		/*
		 * [CC-14] RTOs and failures feed no loss average, and one
		 * sent on an earlier route fed the old route's, gone
		 */
		if (s->lost_by != MRC_LOST_TIMER && s->lost_by != MRC_LOST_FAIL &&
		    !mrc_seq_before(psn, tx->route_psn))
			ev->late_bytes += s->len;
	} else {
		return;
	}
	if (!ev->n_acked || mrc_seq_after(s->sent, ev->newest_sent))
		ev->newest_sent = s->sent;
	if (tx->req_set && psn == tx->req_psn) {
		ev->req_acked = true;
		ev->req_sent = s->sent;
	}
	s->state = MRC_SLOT_ACKED;
	acked_map_set(tx, psn, true);
	ev->acked[ev->n_acked++] = s->cookie;
	if (mrc_seq_before(tx->high_acked, psn + 1))
		tx->high_acked = psn + 1;
}

static void mark_lost(struct mrc_path_tx *tx, struct mrc_path_slot *s,
		      struct mrc_path_events *ev)
{
	tx->inflight_pkts--;
	tx->inflight_bytes -= s->len;
	ev->lost_bytes += s->len;
	s->state = MRC_SLOT_LOST;
	s->lost_by = MRC_LOST_TIMER;
	ev->lost[ev->n_lost++] = s->cookie;
}

static void clear_events(struct mrc_path_events *ev)
{
	ev->n_acked = 0;
	ev->n_lost = 0;
	ev->n_late = 0;
	ev->n_late_rack = 0;
	ev->late_bytes = 0;
	ev->req_acked = false;
	ev->acked_bytes = 0;
	ev->lost_bytes = 0;
}

static void advance_una(struct mrc_path_tx *tx)
{
	while (tx->snd_una != tx->snd_nxt &&
	       slot_of(tx, tx->snd_una)->state != MRC_SLOT_INFLIGHT)
		tx->snd_una++;
}

enum mrc_path_ack_result mrc_path_tx_on_ack(struct mrc_path_tx *tx,
					    const struct mrc_path_cfg *cfg,
					    u64 now, const struct mrc_sack *sack,
					    u64 rtt_ns,
					    struct mrc_path_events *ev)
{
	u32 oldest = tx->snd_nxt - MRC_PATH_WND;	/* oldest PSN with a slot */
	u32 psn, w, limit;
	bool progress = false, asked;

	clear_events(ev);

	/* [REL-7] nothing at or beyond snd_nxt can have been received. */
	if (mrc_seq_after(sack->cum, tx->snd_nxt))
		return MRC_ACK_INVALID;
	for (w = 0; w < MRC_SACK_WORDS; w++) {
		u32 first = sack->cum + 1 + 64 * w;
		u32 room = tx->snd_nxt - first;	/* PSNs of this word sent */

		if (!sack->bits[w])
			continue;
		if (mrc_seq_before(first, tx->snd_nxt) ? room < 64 &&
		    sack->bits[w] >> room : true)
			return MRC_ACK_INVALID;
	}

	asked = tx->req_idle && mrc_path_tx_req_pending(tx, MRC_PATH_WND);

	/*
	 * [REL-5] PSNs newly before cum. One still in flight was received:
	 * the receiver never abandons a PSN the sender still has in flight.
	 * One declared lost was received too ([REL-9]) unless the receiver
	 * may have slid past it, which needs a PSN 257 or more after it.
	 */
	psn = mrc_seq_before(tx->cum_seen, oldest) ? oldest : tx->cum_seen;
	for (; mrc_seq_before(psn, sack->cum); psn++) {
		u8 st = slot_of(tx, psn)->state;

		if (st == MRC_SLOT_INFLIGHT ||
		    (st == MRC_SLOT_LOST &&
		     tx->snd_nxt - psn <= MRC_SACK_BITS + 1))
			mark_acked(tx, psn, ev, &progress);
	}
	if (mrc_seq_after(sack->cum, tx->cum_seen))
		tx->cum_seen = sack->cum;

	/*
	 * [REL-4] the bitmap, set bits only, and of those only PSNs not yet
	 * acked: a slot, once acked, stays so until the PSN is reused.
	 */
	for (w = 0; w < MRC_SACK_WORDS; w++) {
		u64 b = sack->bits[w] &
			~acked_map_word(tx, sack->cum + 1 + 64 * w);

		while (b) {
			u32 i = (u32)__builtin_ctzll(b);

			b &= b - 1;
			tx->sack_walked++;
			psn = sack->cum + 1 + 64 * w + i;
			if (!mrc_seq_before(psn, oldest))
				mark_acked(tx, psn, ev, &progress);
		}
	}

	/*
	 * [REL-8] a gap is loss: every PSN still in flight that trails the
	 * newest received one by reorder_pkts or more was lost.
	 */
	limit = tx->high_acked - tx->reorder;
	for (psn = tx->snd_una; mrc_seq_before(psn, limit); psn++) {
		struct mrc_path_slot *s = slot_of(tx, psn);

		if (s->state == MRC_SLOT_INFLIGHT) {
			mark_lost(tx, s, ev);
			s->lost_by = MRC_LOST_GAP;
			tx->lost_gap++;
		}
	}
	advance_una(tx);

	if (rtt_ns && progress)
		rtt_sample(tx, cfg, rtt_ns);
	/*
	 * [PATH-5] losses that arrived after all: the route delivers, if
	 * slowly, and may be silent that long again. The round trip is the
	 * ACK's own (its echoed timestamp), not the late packet's send time:
	 * a late packet's first ACK may have been lost.
	 */
	if (rtt_ns && ev->n_late)
		tx->late_rtt_ns = mrc_max_u64(tx->late_rtt_ns, rtt_ns);
	/* [REL-10] its answer, held or not: PSNs are never reused */
	if (asked && slot_of(tx, tx->req_psn)->state == MRC_SLOT_ACKED)
		answer_sample(tx, now > tx->req_at ? now - tx->req_at : 0);
	tx->clean_acks += ev->n_acked - ev->n_late;
	if (tx->clean_acks >= MRC_PATH_REORDER_DECAY) {
		tx->clean_acks = 0;
		tx->late_rtt_ns /= 2;
		tx->reorder = mrc_max_u32(tx->reorder / 2,
					  mrc_max_u32(cfg->reorder_pkts, 1));
	}
	if (progress) {
		/* [REL-11] an ACK of new data ends the backoff. */
		tx->retries = 0;
		tx->probes = 0;
		tx->last_ack_ns = now;
		if (tx->srtt_ns) {
			u64 rto = tx->srtt_ns + 4 * tx->rttvar_ns;

			rto = mrc_max_u64(rto, cfg->rto_min_ns);
			tx->rto_ns = mrc_min_u64(rto, cfg->rto_max_ns);
		}
		/* RFC 6298 (5.3): restart the timer. */
		tx->rto_deadline = tx->inflight_pkts ? now + tx->rto_ns : 0;
		arm_pto(tx, cfg, now);
	} else if (!tx->inflight_pkts) {
		/* RFC 6298 (5.2): all outstanding data settled. */
		tx->rto_deadline = 0;
		tx->pto_deadline = 0;
	}
	return MRC_ACK_OK;
}

enum mrc_path_timer mrc_path_tx_on_timer(struct mrc_path_tx *tx,
					 const struct mrc_path_cfg *cfg,
					 u64 now, struct mrc_path_events *ev)
{
	enum mrc_path_timer what;
	u64 due = answer_due(tx);
	u32 psn;

	clear_events(ev);
	if (tx->rto_deadline && now >= tx->rto_deadline)
		what = MRC_TIMER_RTO;
	else if (tx->pto_deadline && now >= tx->pto_deadline)
		what = MRC_TIMER_PTO;
	else
		return MRC_TIMER_NONE;

	/*
	 * [REL-10] an RTO presumes everything in flight lost; a PTO only the
	 * newest packet, whose resend is a probe: its ACK shows by the gap
	 * rule what else is missing, and a late ACK costs one packet, not a
	 * window.
	 */
	for (psn = tx->snd_nxt; what == MRC_TIMER_PTO && psn != tx->snd_una;
	     psn--) {
		struct mrc_path_slot *s = slot_of(tx, psn - 1);

		if (s->state == MRC_SLOT_INFLIGHT) {
			mark_lost(tx, s, ev);
			s->lost_by = MRC_LOST_PTO;
			tx->lost_pto++;
			break;
		}
	}
	for (psn = tx->snd_una; what == MRC_TIMER_RTO && psn != tx->snd_nxt;
	     psn++) {
		struct mrc_path_slot *s = slot_of(tx, psn);

		if (s->state == MRC_SLOT_INFLIGHT) {
			mark_lost(tx, s, ev);
			tx->lost_rto++;
		}
	}
	advance_una(tx);
	tx->pto_deadline = 0;
	if (what == MRC_TIMER_PTO) {
		/*
		 * The RTO keeps running: if the path stays silent it still
		 * times out and counts toward failing the path ([PATH-5]).
		 */
		tx->pto_fired++;
		if (due && now >= due)
			tx->pto_answer++;
		if (tx->probes < ANSWER_BACKOFF_MAX)
			tx->probes++;
		/*
		 * On a path not timed yet, what is still in flight was sent
		 * before the packet just probed, and [REL-22] leaves it to
		 * the timers: if that probe's ACK does not settle it, the
		 * next PTO, twice as late, probes the next newest, so a tail
		 * of several is resent one by one rather than at the RTO. A
		 * timed path's older packets are [REL-22]'s (armed again for
		 * those too, at 10% loss PTOs of ACKs merely lost failed
		 * paths: twice as many, a ring 0.45 of the link against 0.51).
		 */
		if (tx->inflight_pkts && !tx->srtt_ns) {
			u64 pto = pto_of(tx, cfg);

			if (pto)
				tx->pto_deadline = now + (pto << tx->probes);
			arm_answer(tx);
		}
		return what;
	}
	tx->rto_deadline = 0;
	/* RFC 6298 (5.5): back off; the next send re-arms the timer. */
	tx->rto_ns = mrc_min_u64(tx->rto_ns * 2, cfg->rto_max_ns);
	tx->retries++;
	tx->rto_fired++;
	return what;
}

void mrc_path_tx_abandon(struct mrc_path_tx *tx, struct mrc_path_events *ev)
{
	u32 psn;

	clear_events(ev);
	for (psn = tx->snd_una; psn != tx->snd_nxt; psn++) {
		struct mrc_path_slot *s = slot_of(tx, psn);

		if (s->state != MRC_SLOT_INFLIGHT)
			continue;
		mark_lost(tx, s, ev);
		s->lost_by = MRC_LOST_FAIL;
		tx->lost_fail++;
	}
	advance_una(tx);
	tx->rto_deadline = 0;
	tx->pto_deadline = 0;
}

u64 mrc_path_tx_rack(struct mrc_path_tx *tx, u64 now, u32 newest, u64 due,
		     struct mrc_path_events *ev)
{
	u32 psn;

	clear_events(ev);
	for (psn = tx->snd_una; psn != tx->snd_nxt; psn++) {
		struct mrc_path_slot *s = slot_of(tx, psn);

		if (s->state != MRC_SLOT_INFLIGHT)
			continue;
		/* sent in PSN order: the rest went after @newest too */
		if (!mrc_seq_before(s->sent, newest))
			break;
		if (now < due)
			return due;
		mark_lost(tx, s, ev);
		s->lost_by = MRC_LOST_RACK;
		tx->lost_rack++;
	}
	advance_una(tx);
	return ~0ull;
}

/* ---- receiver half ---- */

void mrc_path_rx_init(struct mrc_path_rx *rx, u32 isn)
{
	memset(rx, 0, sizeof(*rx));
	rx->cum = isn;
	rx->next = isn;
}

enum mrc_rx_psn mrc_path_rx_check(const struct mrc_path_rx *rx, u32 psn)
{
	u32 d = psn - rx->cum;

	if (mrc_seq_before(psn, rx->cum))
		return MRC_RX_PSN_DUP;
	if (d == 0)
		return MRC_RX_PSN_NEW;
	if (d <= MRC_SACK_BITS)
		return bm_test(rx->bits, d - 1) ? MRC_RX_PSN_DUP : MRC_RX_PSN_NEW;
	return d < MRC_PATH_MAX_JUMP ? MRC_RX_PSN_NEW : MRC_RX_PSN_OOW;
}

/* Move cum past every PSN that is received, from cum on. */
static void settle(struct mrc_path_rx *rx)
{
	u32 n = bm_trailing_ones(rx->bits);

	rx->cum += 1 + n;
	bm_shift(rx->bits, 1 + n);
}

void mrc_path_rx_accept(struct mrc_path_rx *rx, u64 now, u32 psn, bool ce,
			u32 tsval, bool ack_req)
{
	u32 d = psn - rx->cum;

	if (d > MRC_SACK_BITS) {
		/*
		 * [REL-5] the sender has moved on past a hole it declared lost
		 * (it never sends more than MRC_PATH_WND ahead of its oldest
		 * packet in flight): slide so @psn is the last bit, abandoning
		 * what falls off the bottom.
		 */
		u32 n = d - MRC_SACK_BITS;
		bool got = n <= MRC_SACK_BITS && bm_test(rx->bits, n - 1);

		bm_shift(rx->bits, n);
		rx->cum += n;
		d = MRC_SACK_BITS;
		rx->slides++;
		if (got) {
			/* the new base itself was received */
			settle(rx);
			d = psn - rx->cum;
		}
	}
	if (d == 0)
		settle(rx);
	else
		bm_set(rx->bits, d - 1);

	/* [REL-13] ACK at once on anything but the next PSN in order. */
	if (psn != rx->next)
		mrc_path_rx_ack_now(rx, MRC_ACK_WHY_ORDER);
	if (mrc_seq_before(psn, rx->next)) {
		rx->rx_late++;
	} else {
		rx->rx_skipped += psn - rx->next;
		rx->next = psn + 1;
	}
	if (ce) {
		rx->ce_count++;
		mrc_path_rx_ack_now(rx, MRC_ACK_WHY_CE);
	}
	if (ack_req)
		mrc_path_rx_ack_now(rx, MRC_ACK_WHY_REQ);
	if (!rx->pending)
		rx->pending_since = now;
	rx->pending++;
	rx->tsecr = tsval;
	rx->tsecr_at = now;
	rx->rx_new++;
}

void mrc_path_rx_note_dup(struct mrc_path_rx *rx, u64 now, bool ce, u32 tsval)
{
	/* [REL-13] a duplicate means our ACK was lost or late: repeat it. */
	rx->rx_dup++;
	if (ce)
		rx->ce_count++;
	if (!rx->pending)
		rx->pending_since = now;
	rx->pending++;
	rx->tsecr = tsval;
	rx->tsecr_at = now;
	mrc_path_rx_ack_now(rx, MRC_ACK_WHY_DUP);
}

void mrc_path_rx_build_ack(struct mrc_path_rx *rx, u64 now,
			   struct mrc_sack *sack, u32 *ce_count, u32 *tsecr,
			   u32 *ack_delay)
{
	u64 held = now > rx->tsecr_at ? now - rx->tsecr_at : 0;

	sack->cum = rx->cum;
	memcpy(sack->bits, rx->bits, sizeof(sack->bits));
	*ce_count = rx->ce_count;
	*tsecr = rx->tsecr;
	*ack_delay = held > 0xffffffffull ? 0xffffffffu : (u32)held;
	rx->pending = 0;
	rx->ack_now = false;
	rx->acks++;
}
