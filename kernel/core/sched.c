// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Path selection and path lifecycle. Rules cited as [PATH-n] are in
 * Documentation/protocol/paths.rst.
 */
#include "sched.h"
#include "wire.h"

/* RTT assumed for a path without a sample yet, for its weight only. */
#define UNSAMPLED_RTT_NS	100000ull

void mrc_sched_cfg_default(struct mrc_sched_cfg *cfg)
{
	cfg->sport_min = MRC_WIRE_SPORT_MIN;
	cfg->sport_max = MRC_WIRE_SPORT_MAX;
	cfg->fail_rtos = 1;
	cfg->fail_lost = 8;
	cfg->fail_hold_ns = 0;		/* two RTTs alone */
	cfg->fail_hold_shift = 6;	/* up to 64 times */
	cfg->repath_rounds = 4;
	cfg->burst = 1;
}

static u64 xorshift(struct mrc_sched *s)
{
	u64 x = s->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->rng = x;
	return x;
}

void mrc_sched_init(struct mrc_sched *s, u64 seed,
		    const struct mrc_sched_cfg *cfg)
{
	s->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
	s->rr = 0;
	s->burst = cfg->burst ? cfg->burst : 1;
	s->burst_left = 0;
	s->burst_bytes = cfg->burst_bytes;
	s->burst_bytes_left = 0;
	s->last = -1;
	s->last_at = 0;
}

u16 mrc_sched_new_sport(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
			const struct mrc_path *paths, u32 npaths)
{
	u32 span = (u32)cfg->sport_max - cfg->sport_min + 1;
	u32 tries, i;
	u16 port = cfg->sport_min;

	/* [PATH-3] distinct ports; give up on distinctness if the range is tiny */
	for (tries = 0; tries < 16; tries++) {
		bool used = false;

		port = (u16)(cfg->sport_min + xorshift(s) % span);
		for (i = 0; i < npaths; i++)
			used |= paths[i].sport == port;
		if (!used)
			break;
	}
	return port;
}

/*
 * [PATH-6] A path losing a fraction L of its packets keeps 1 - 3L of its
 * window, at least 1/16: each loss costs a resend and holds the messages
 * behind it, so a lossy route should carry less while a clean one takes
 * more; the floor keeps the loss estimate fresh, so a route that heals
 * regains its share as its average decays.
 */
static u64 loss_keep(const struct mrc_path *p, u64 w)
{
	u32 keep = 1024 - mrc_min_u32(3 * p->cc.loss_pm * 1024 / 1000, 960);

	return w * keep / 1024;
}

u32 mrc_sched_path_window(const struct mrc_path *p)
{
	return (u32)loss_keep(p, p->cc.cwnd);
}

/* Rate estimate, bytes per ~microsecond, scaled by 1024. */
static u64 path_rate(const struct mrc_sched *s, const struct mrc_path *p)
{
	u64 rtt = p->tx.srtt_ns ? p->tx.srtt_ns : UNSAMPLED_RTT_NS;
	u64 w = p->cc.cwnd;
	u64 rate;

	/*
	 * [PATH-6] windows grow unchecked on routes without marks, so when
	 * the connection's window is what limits, old paths' windows say
	 * little and would starve a new one: count no path's above its
	 * share of the connection's. What a route marks or loses still
	 * weighs: (1 - marked fraction)^2, and loss_keep().
	 */
	if (s->weight_cap)
		w = mrc_min_u64(w, s->weight_cap);
	w = w * (1000 - p->cc.mark_pm) / 1000 * (1000 - p->cc.mark_pm) / 1000;
	rate = loss_keep(p, w) * 1024 / (rtt / 1024 + 1);

	/* [PATH-5] a congested path keeps a share, halved */
	if (p->state == MRC_PATH_CONGESTED)
		rate /= 2;
	return rate ? rate : 1;
}

/* Window room for one more packet of @len ([PATH-4], [PATH-6]). */
static inline bool path_may_send(const struct mrc_path *p, u32 len)
{
	if (p->state == MRC_PATH_FAILED || !mrc_path_tx_room(&p->tx))
		return false;
	if (p->state == MRC_PATH_PROBING)
		return !p->tx.inflight_pkts;
	return !p->tx.inflight_pkts ||
	       mrc_sched_path_room(p) >= mrc_max_u32(len, 1);
}

static void charge(struct mrc_sched *s, struct mrc_path *p, u64 start,
		   u32 len)
{
	/* charge headers too, so empty packets also spread */
	p->vtime = start + ((u64)len + 64) * 65536 / path_rate(s, p);
	s->vnow = start;
}

/*
 * [PATH-9] The last pick was half its path's RTT ago or more: the sender
 * is not streaming, and spraying would only spread a trickle's ACK state
 * over every path (each path is acknowledged on its own, so a ping-pong
 * on four paths draws four paths' ACKs). Stay on a path that is
 * uncongested, proven and loss-free.
 */
static bool sparse_stays(const struct mrc_sched *s, const struct mrc_path *paths,
			 u32 npaths, u32 len, u64 now)
{
	const struct mrc_path *p;
	u64 rtt;

	if (s->last < 0 || (u32)s->last >= npaths || !s->last_at)
		return false;
	p = &paths[s->last];
	rtt = p->tx.srtt_ns ? p->tx.srtt_ns : UNSAMPLED_RTT_NS;
	return now - s->last_at >= rtt / 2 && p->state == MRC_PATH_ACTIVE &&
	       !p->tx.retries && path_may_send(p, len);
}

/* A packet of @len payload bytes on the wire, as a burst counts it. */
static u32 wire_len(u32 len)
{
	return len + MRC_WIRE_DATA_OVERHEAD;
}

/* The last pick's burst has room for one more packet of @len. */
static bool burst_fits(const struct mrc_sched *s, u32 len)
{
	return s->burst_left &&
	       (!s->burst_bytes || s->burst_bytes_left >= wire_len(len));
}

/* A burst starts with a packet of @len. */
static void burst_start(struct mrc_sched *s, u32 len)
{
	s->burst_left = s->burst - 1;
	s->burst_bytes_left = s->burst_bytes > wire_len(len) ?
			      s->burst_bytes - wire_len(len) : 0;
}

bool mrc_sched_path_in_use(const struct mrc_path *paths, u32 npaths)
{
	u32 i;

	for (i = 0; i < npaths; i++)
		if (paths[i].state == MRC_PATH_ACTIVE ||
		    paths[i].state == MRC_PATH_CONGESTED)
			return true;
	return false;
}

/*
 * [PATH-4] Probing path @p may carry this packet: it is new data, or a
 * resend that no probe lost, and the route is not one to prove by a PROBE
 * REQ; or no path is in use, and any packet probes.
 */
static bool probe_carries(const struct mrc_sched *s, const struct mrc_path *p,
			  bool may_probe, bool in_use)
{
	return !in_use || (may_probe && !mrc_sched_probe_by_req(s, p));
}

int mrc_sched_pick(struct mrc_sched *s, struct mrc_path *paths, u32 npaths,
		   u32 len, bool may_probe, u64 now)
{
	bool in_use = mrc_sched_path_in_use(paths, npaths);
	u64 best_start = 0;
	int best = -1;
	u32 k, i;

	/*
	 * [PATH-9] first, as it is what a lone message takes: the same
	 * answer as below (no probing path may send, else it goes first)
	 * without asking every path.
	 */
	if (sparse_stays(s, paths, npaths, len, now)) {
		for (k = 0; k < npaths; k++)
			if (paths[k].state == MRC_PATH_PROBING &&
			    probe_carries(s, &paths[k], may_probe, in_use) &&
			    path_may_send(&paths[k], len))
				break;
		if (k == npaths) {
			struct mrc_path *p = &paths[s->last];

			charge(s, p, mrc_max_u64(p->vtime, s->vnow), len);
			burst_start(s, len);
			s->last_at = now;
			return s->last;
		}
	}
	/* one division, not one per path: this runs for every packet */
	for (k = 0, i = s->rr % npaths; k < npaths;
	     k++, i = i + 1 < npaths ? i + 1 : 0) {
		struct mrc_path *p = &paths[i];
		u64 start;

		/*
		 * failed, no room, [PATH-4] a probe still in flight, or a
		 * packet that may not probe and a path in use to carry it
		 */
		if (!path_may_send(p, len) ||
		    (p->state == MRC_PATH_PROBING &&
		     !probe_carries(s, p, may_probe, in_use)))
			continue;
		if (p->state == MRC_PATH_PROBING) {
			best = (int)i;
			best_start = mrc_max_u64(p->vtime, s->vnow);
			break;
		}
		start = mrc_max_u64(p->vtime, s->vnow);
		if (best < 0 || start < best_start) {
			best_start = start;
			best = (int)i;
		}
	}
	/*
	 * [PATH-6] stay on the last path for a burst: consecutive packets of
	 * one path leave as one segmentation-offload batch, or small ones as
	 * one datagram ([ENC-13]; burst_bytes is its room). A burst is
	 * charged packet by packet, so the shares over time are unchanged,
	 * and it yields to a probing path, as sparse traffic does ([PATH-9]).
	 */
	if (best >= 0 && paths[best].state != MRC_PATH_PROBING &&
	    burst_fits(s, len) && s->last >= 0 && (u32)s->last < npaths &&
	    paths[s->last].state != MRC_PATH_PROBING &&
	    path_may_send(&paths[s->last], len)) {
		struct mrc_path *p = &paths[s->last];

		s->burst_left--;
		s->burst_bytes_left -= s->burst_bytes ? wire_len(len) : 0;
		charge(s, p, mrc_max_u64(p->vtime, s->vnow), len);
		s->last_at = now;
		return s->last;
	}
	s->last = best;
	s->burst_left = 0;
	if (best >= 0) {
		charge(s, &paths[best], best_start, len);
		s->rr = (u32)best + 1;
		burst_start(s, len);
		s->last_at = now;
	}
	return best;
}

static void set_state(struct mrc_path *p, u8 state, u64 now)
{
	if (p->state != state) {
		p->state = state;
		p->state_since = now;
		/* a PROBE REQ proves a probing path, or nothing */
		p->probe_out = false;
		p->probe_due = 0;
	}
}

/* The smallest RTO (@srtt: smoothed RTT) of the proven paths; 0: none. */
static u64 known_rtt(const struct mrc_path *paths, u32 npaths, bool srtt)
{
	u64 t = 0;
	u32 i;

	for (i = 0; i < npaths; i++) {
		const struct mrc_path *p = &paths[i];
		u64 v = srtt ? p->tx.srtt_ns : p->tx.rto_ns;

		if ((p->state == MRC_PATH_ACTIVE ||
		     p->state == MRC_PATH_CONGESTED) && p->tx.srtt_ns &&
		    (!t || v < t))
			t = v;
	}
	return t;
}

/*
 * [PATH-7], [PATH-10] a new source port is a new ECMP route: nothing
 * learnt about the old one applies, but the endpoints are the same, so
 * the connection's RTO stands in for the first one (rto_init assumes
 * nothing is known). The PSN space goes on: the receiver knows the path
 * by path_id, not by port.
 */
static void move_path(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
		      struct mrc_path *paths, u32 npaths, struct mrc_path *p,
		      const struct mrc_path_cfg *pcfg,
		      const struct mrc_cc_cfg *ccfg, u64 now)
{
	u64 rto = known_rtt(paths, npaths, false);

	p->sport = mrc_sched_new_sport(s, cfg, paths, npaths);
	p->vtime = s->vnow;
	mrc_path_tx_reset_rtt(&p->tx, pcfg);
	if (rto)
		p->tx.rto_ns = mrc_max_u64(mrc_min_u64(rto, pcfg->rto_init_ns),
					   pcfg->rto_min_ns);
	mrc_cc_path_init(&p->cc, ccfg, now);
	p->lost_streak = 0;
	p->slow_rounds = 0;
	p->rounds_seen = 0;
	set_state(p, MRC_PATH_PROBING, now);
}

/*
 * [PATH-10] Once per round of path @i, while the connection streams (data
 * waited for a window in the last round):
 *  - balance: a path that delivered less than 2/3 of the best one for
 *    repath_rounds rounds in a row, its route pressed (pressed()), shares
 *    that route with more traffic than the others do (two of our paths
 *    hashed onto one link, a link hot with others' traffic) or loses
 *    more, so it moves;
 *  - explore: paths that all deliver alike may still share too few links
 *    (four paths on two of four links). Only the receiver knows it could
 *    take more: while the connection delivers less than 3/4 of its rate
 *    hint ([CC-10]) for repath_rounds rounds and some route is pressed,
 *    its slowest path moves, and
 *    each exploration that did not raise the total by 1/8 doubles the wait
 *    before the next one (up to 64 times), so a fabric that is simply full
 *    costs a move now and then, not a path's worth of churn.
 * One path per connection moves at a time; the others wait until it had
 * as many rounds to show its new rate, twice as long after a move of
 * either kind that gained nothing: with more paths than live routes (a
 * link dead) some pair always shares one, and each move may land on the
 * dead one.
 */
/*
 * [PATH-10] The path's route holds its traffic back: marks or losses in
 * its averages, or a queue ([CC-6]). Paths that show none are held back
 * by something no route choice changes (the application, or the hosts'
 * CPUs), and moving them only costs probes and reordering.
 */
static bool pressed(const struct mrc_path *p)
{
	return p->cc.mark_pm || p->cc.loss_pm || p->cc.congested;
}

static void judge_round(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
			struct mrc_path *paths, u32 npaths, u32 i,
			const struct mrc_path_cfg *pcfg,
			const struct mrc_cc_cfg *ccfg, u64 hint, u64 now)
{
	struct mrc_path *p = &paths[i];
	u64 best = 0, round = 0, total = 0, least = ~0ull;
	u32 j, proven = 0;
	bool explore, any_pressed = false;

	/* a new route shows its rate after its first rounds, not during */
	if (!cfg->repath_rounds || p->cc.rounds == p->rounds_seen ||
	    p->cc.rounds < cfg->repath_rounds)
		return;
	p->rounds_seen = p->cc.rounds;
	for (j = 0; j < npaths; j++) {
		const struct mrc_path *q = &paths[j];

		if (q->state != MRC_PATH_ACTIVE &&
		    q->state != MRC_PATH_CONGESTED)
			continue;
		proven++;
		any_pressed |= pressed(q);
		round = mrc_max_u64(round, q->tx.srtt_ns);
		total += q->cc.rate;
		least = mrc_min_u64(least, q->cc.rate);
		best = mrc_max_u64(best, q->cc.rate);
	}
	/*
	 * Only a connection whose data kept waiting for a window, over the
	 * rounds its rates average and the last one, shows what its routes
	 * carry: one the application holds back, or feeds in batches,
	 * shows what it was given.
	 */
	if (!best || !s->limited_at || now - s->limited_at > round ||
	    now - s->idle_at < cfg->repath_rounds * round) {
		p->slow_rounds = 0;
		return;
	}
	if (3 * p->cc.rate < 2 * best && pressed(p))
		p->slow_rounds++;
	else if (p->cc.rate == least && hint && 4 * total < 3 * hint &&
		 any_pressed)
		p->slow_rounds++;
	else
		p->slow_rounds = 0;
	/*
	 * A move risks a dead route: half the paths stay on proven ones,
	 * and exploring waits until no path is failed or probing.
	 */
	if (p->slow_rounds < cfg->repath_rounds || now < s->repath_at ||
	    2 * (proven - 1) < npaths)
		return;
	explore = 3 * p->cc.rate >= 2 * best;
	if (explore && (now < s->explore_at || proven < npaths))
		return;
	move_path(s, cfg, paths, npaths, p, pcfg, ccfg, now);
	p->repaths++;
	if (total > s->moved_total + s->moved_total / 8)
		s->move_shift = 0;
	else if (s->move_shift < 6)
		s->move_shift++;
	s->moved_total = total;
	s->repath_at = now + (2ull * cfg->repath_rounds * round <<
			      mrc_min_u32(s->move_shift, 1));
	if (explore)
		s->explore_at = now + (2ull * cfg->repath_rounds * round <<
				       s->move_shift);
}

void mrc_sched_on_ack(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
		      struct mrc_path *paths, u32 npaths, u32 i,
		      const struct mrc_path_cfg *pcfg,
		      const struct mrc_cc_cfg *ccfg, u64 hint, u64 now)
{
	struct mrc_path *p = &paths[i];

	if (p->state == MRC_PATH_FAILED)
		return;
	p->lost_streak = 0;
	p->fails = 0;
	/* [PATH-5] marks or inflated RTT are congestion, not failure */
	set_state(p, p->cc.congested ? MRC_PATH_CONGESTED : MRC_PATH_ACTIVE,
		  now);
	judge_round(s, cfg, paths, npaths, i, pcfg, ccfg, hint, now);
}

static void fail(struct mrc_path *p, u8 why, u64 now)
{
	set_state(p, MRC_PATH_FAILED, now);
	p->fail_why = why;
	p->fails++;
}

u64 mrc_sched_late_rtt(const struct mrc_path *paths, u32 npaths)
{
	u64 late = 0;
	u32 i;

	for (i = 0; i < npaths; i++)
		late = mrc_max_u64(late, paths[i].tx.late_rtt_ns);
	return late;
}

bool mrc_sched_on_lost(struct mrc_path *paths, u32 npaths, u32 i,
		       const struct mrc_sched_cfg *cfg, u32 n, u64 now)
{
	struct mrc_path *p = &paths[i];
	u64 quiet = p->tx.srtt_ns ? 2 * p->tx.srtt_ns : p->tx.rto_ns;

	if (p->state == MRC_PATH_FAILED || !n)
		return false;
	p->lost_streak += n;
	/*
	 * [PATH-5] a route that went dark loses everything while the other
	 * paths deliver what was sent after it: its packets fall to
	 * [REL-22] a few at a time and no ACK of its own comes. A congested
	 * route's late packets fall too, but its ACKs keep coming, and the
	 * two RTTs of silence are its own, queue included; losses that
	 * were acknowledged after all showed how long a route of these
	 * endpoints may be silent and still deliver. A probe lost that way
	 * fails the new route at once.
	 */
	quiet = mrc_max_u64(quiet, mrc_sched_late_rtt(paths, npaths));
	if (p->state == MRC_PATH_PROBING)
		fail(p, MRC_FAIL_PROBE, now);
	else if (cfg->fail_lost && p->lost_streak >= cfg->fail_lost &&
		 now - p->tx.last_ack_ns >= quiet)
		fail(p, MRC_FAIL_SILENT, now);
	else
		return false;
	p->fails_silent++;
	return true;
}

void mrc_sched_on_rto(struct mrc_path *paths, u32 npaths, u32 i,
		      const struct mrc_sched_cfg *cfg, u64 rto_min_ns, u64 now)
{
	struct mrc_path *p = &paths[i];
	u64 late = mrc_sched_late_rtt(paths, npaths);

	/*
	 * [PATH-5] failure is silence: fail_rtos timeouts in a row with no
	 * ACK at all, for longer than a late ACK ever took, or any timeout
	 * while the route is still unproven. Until then the timeout only
	 * resends.
	 */
	if (p->state == MRC_PATH_FAILED)
		return;
	if (p->state == MRC_PATH_PROBING) {
		fail(p, MRC_FAIL_PROBE, now);
	} else if (p->tx.retries >= cfg->fail_rtos) {
		if (now - p->tx.last_ack_ns >= late) {
			fail(p, MRC_FAIL_RTO, now);
			return;
		}
		/*
		 * Silent, but not yet as long as a late ACK took: the next
		 * timeout decides again once it is (or at the floor), not a
		 * whole backoff later (a dead link's paths waited up to
		 * 80 ms more for it)
		 */
		p->tx.rto_ns = mrc_min_u64(p->tx.rto_ns,
					   mrc_max_u64(p->tx.last_ack_ns + late -
						       now, rto_min_ns));
	}
}

void mrc_sched_on_probe(struct mrc_path *p, bool answered, u64 now)
{
	if (p->state != MRC_PATH_PROBING)
		return;
	if (!answered) {
		fail(p, MRC_FAIL_PROBE, now);
		return;
	}
	p->probes_answered++;
	p->lost_streak = 0;
	p->fails = 0;
	set_state(p, MRC_PATH_ACTIVE, now);
}

bool mrc_sched_some_link(const struct mrc_path *paths, u32 npaths)
{
	u32 i;

	for (i = 0; i < npaths; i++)
		if (!paths[i].link_down)
			return true;
	return false;
}

void mrc_sched_link_mark(struct mrc_path *p, bool up)
{
	p->link_down = !up;
}

bool mrc_sched_link_fail(struct mrc_path *p, u64 now)
{
	if (p->state == MRC_PATH_FAILED) {
		/* whatever failed it, the link is why it stays failed */
		p->fail_why = MRC_FAIL_LINK;
		return false;
	}
	fail(p, MRC_FAIL_LINK, now);
	return true;
}

/*
 * [PATH-8] When failed path @p moves: never while its link is down and
 * another path has one (a probe could not leave); as soon as the link
 * that failed it is back; else after its rest ([PATH-7]). With every
 * link down the paths rest and probe as ever, and the segments' retry
 * limit ends the connection as it would on any dead route.
 */
static u64 move_at(const struct mrc_sched_cfg *cfg,
		   const struct mrc_path *paths, u32 npaths,
		   const struct mrc_path *p, bool linked)
{
	if (p->link_down && linked)
		return ~0ull;
	if (p->fail_why == MRC_FAIL_LINK && !p->link_down)
		return p->state_since;
	return p->state_since + mrc_sched_fail_hold(cfg, paths, npaths, p);
}

u64 mrc_sched_fail_hold(const struct mrc_sched_cfg *cfg,
			const struct mrc_path *paths, u32 npaths,
			const struct mrc_path *p)
{
	u64 rtt = known_rtt(paths, npaths, true);
	u32 n = p->fails ? p->fails - 1 : 0;

	return mrc_max_u64(rtt ? 2 * rtt : p->tx.rto_ns, cfg->fail_hold_ns) <<
	       mrc_min_u32(n, cfg->fail_hold_shift);
}

u64 mrc_sched_deadline(const struct mrc_sched_cfg *cfg,
		       const struct mrc_path *paths, u32 npaths)
{
	bool linked = mrc_sched_some_link(paths, npaths);
	u64 t = ~0ull;
	u32 i;

	for (i = 0; i < npaths; i++)
		if (paths[i].state == MRC_PATH_FAILED)
			t = mrc_min_u64(t, move_at(cfg, paths, npaths,
						   &paths[i], linked));
	return t;
}

u32 mrc_sched_maintain(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
		       struct mrc_path *paths, u32 npaths,
		       const struct mrc_path_cfg *pcfg,
		       const struct mrc_cc_cfg *ccfg, u64 now)
{
	bool linked = mrc_sched_some_link(paths, npaths);
	u32 i, moved = 0;

	for (i = 0; i < npaths; i++) {
		struct mrc_path *p = &paths[i];

		if (p->state != MRC_PATH_FAILED ||
		    now < move_at(cfg, paths, npaths, p, linked))
			continue;
		move_path(s, cfg, paths, npaths, p, pcfg, ccfg, now);
		p->reentropies++;
		moved++;
	}
	return moved;
}
