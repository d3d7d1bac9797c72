/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One path of a connection: the per-path sequence space seen from both
 * ends.
 *
 * A path is one UDP source port (one ECMP route). Every sequenced packet
 * sent on it takes the next PSN of that path, including a resend, so
 * packets of one path travel in order and a hole in the receiver's 256-bit
 * SACK bitmap means loss, not reordering ([REL-*] in
 * Documentation/protocol/reliability.rst).
 *
 * The sender half tracks what is in flight, turns ACKs into "acked" and
 * "lost" lists of caller cookies, and keeps the RFC 6298 timer. The
 * receiver half keeps the SACK window, tells new from duplicate and decides
 * when an ACK is due. Neither knows about messages, bytes on the wire or
 * clocks: the connection feeds them plain values and the current time.
 */
#ifndef MRC_CORE_PATH_H
#define MRC_CORE_PATH_H

#include "compat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PSNs the ACK bitmap covers beyond the cumulative point ([REL-4]). */
#define MRC_SACK_BITS		256
#define MRC_SACK_WORDS		(MRC_SACK_BITS / 64)
/* Sender slots: at most this many PSNs between snd_una and snd_nxt. */
#define MRC_PATH_WND		256
/* Largest gap tolerance a path adapts to after seeing reordering ([REL-8]). */
#define MRC_PATH_REORDER_MAX	64
/* Acked packets without a late ack after which the tolerance halves. */
#define MRC_PATH_REORDER_DECAY	4096
/* A PSN further than this ahead of the receiver's window is refused. */
#define MRC_PATH_MAX_JUMP	0x100000u

/* An ACK's view of one path ([REL-4]). */
struct mrc_sack {
	u32 cum;			/* every PSN before it is settled */
	u64 bits[MRC_SACK_WORDS];	/* bit i: PSN cum + 1 + i received */
};

struct mrc_path_cfg {
	u64 rto_init_ns;	/* before the first RTT sample */
	u64 rto_min_ns;
	u64 rto_max_ns;		/* cap of the backed-off timer */
	u32 reorder_pkts;	/* PSNs a hole may trail the newest ack; 1 = none */
	u32 ack_every;		/* coalesce at most this many packets per ACK */
	u32 req_spacing;	/* [REL-14] window-full requests per path: at
				 * most one per this many packets while an
				 * earlier one is unanswered; 0: every time
				 */
	u64 ack_delay_ns;	/* hold a coalesced ACK at most this long */
};

void mrc_path_cfg_default(struct mrc_path_cfg *cfg);

enum mrc_slot_state {
	MRC_SLOT_FREE = 0,
	MRC_SLOT_INFLIGHT,
	MRC_SLOT_ACKED,
	MRC_SLOT_LOST,
};

/* What declared a packet lost. */
enum mrc_lost_by {
	MRC_LOST_TIMER = 0,	/* RTO ([REL-10]) */
	MRC_LOST_GAP,		/* a gap in its path ([REL-8]) */
	MRC_LOST_RACK,		/* a later packet of any path arrived ([REL-22]) */
	MRC_LOST_FAIL,		/* its path failed ([PATH-5]) */
	MRC_LOST_PTO,		/* the probe timeout's packet ([REL-10]) */
};

struct mrc_path_slot {
	u32 cookie;		/* caller's handle of what this PSN carried */
	u32 sent;		/* mrc_path_stamp() of its transmission */
	u16 len;		/* payload bytes, for the windows */
	u8 state;		/* enum mrc_slot_state */
	u8 lost_by;		/* LOST: enum mrc_lost_by */
};

/*
 * Send times in units of 1024 ns, 32 bits: they wrap after 73 minutes, so
 * two of them compare like PSNs (mrc_seq_before()) within 36 minutes.
 */
static inline u32 mrc_path_stamp(u64 now)
{
	return (u32)(now >> 10);
}

/*
 * A path's send ring: what each PSN in the window carried. 3 KiB a path,
 * the bulk of a connection's memory, so the caller gives one per path the
 * connection may ever send on, not one per path id (MRC_MAX_PATHS).
 */
struct mrc_path_ring {
	/*
	 * Bit psn % MRC_PATH_WND: that PSN's slot is MRC_SLOT_ACKED. While a
	 * hole stays open, every ACK repeats the bits above it; this map lets
	 * an ACK look only at the bits it newly sets.
	 */
	u64 acked_map[MRC_PATH_WND / 64];
	struct mrc_path_slot slot[MRC_PATH_WND];
};

struct mrc_path_tx {
	struct mrc_path_ring *ring;	/* the caller's, never NULL once init */
	u32 snd_una;		/* oldest PSN in flight (== snd_nxt if none) */
	u32 snd_nxt;		/* next PSN to assign */
	u32 high_acked;		/* 1 + newest PSN known received */
	u32 cum_seen;		/* newest cum_psn heard from the receiver */
	u32 inflight_pkts;
	u32 inflight_bytes;
	u32 retries;		/* consecutive RTOs without an ACK */
	u32 reorder;		/* gap tolerance now in force, >= cfg's */
	u32 clean_acks;		/* packets acked since the last late ack */
	u64 srtt_ns;		/* 0: no sample yet */
	u64 rttvar_ns;
	/* [REL-10] another path's srtt and rttvar until the first sample */
	u64 lent_srtt_ns;
	u64 lent_rttvar_ns;
	u64 min_rtt_ns;
	/*
	 * [PATH-5] the longest round trip of a packet declared lost that was
	 * acknowledged after all: how long this route and the endpoints may
	 * hold a packet and still deliver it
	 */
	u64 late_rtt_ns;
	/*
	 * [CC-14] the first PSN sent on the current route: a late ACK of an
	 * older one takes nothing back from the new route's loss average
	 */
	u32 route_psn;
	u64 rto_ns;		/* current timeout, backoff included */
	u64 rto_deadline;	/* 0: timer not armed */
	u64 pto_deadline;	/* probe timeout ([REL-10]); 0: not armed */
	u64 last_ack_ns;
	u32 req_psn;		/* newest packet sent with ACK_REQ */
	bool req_set;		/* req_psn is valid */
	bool req_idle;		/* ... and its sender had nothing more to send */
	u8 probes;		/* answer-timer probes since an ACK's progress */
	u64 req_at;		/* when req_psn was sent */
	/*
	 * [REL-10] how long requests wait for their answers, hold included,
	 * smoothed as RFC 6298 smooths the RTT; 0: no sample yet.
	 */
	u64 ans_srtt_ns;
	u64 ans_rttvar_ns;
	/* counters, for stats and tests */
	u64 sent_pkts;
	u64 acked_pkts;
	u64 lost_gap;
	u64 lost_rack;
	u64 lost_rto;
	u64 late_acks;		/* packets declared lost that arrived after all */
	u64 late_rack;		/* ... of those, declared by [REL-22] */
	u64 rto_fired;
	u64 lost_pto;
	u64 lost_fail;		/* in flight when the path failed ([PATH-5]) */
	u64 pto_fired;
	u64 pto_answer;		/* ... of those, a request's answer overdue */
	u64 sack_walked;	/* SACK bits looked at one by one */
	/* for telemetry: utilisation in bytes, and delay beyond the srtt */
	u64 sent_bytes;		/* payload of sent_pkts */
	u64 acked_bytes;	/* payload of acked_pkts */
	u64 last_rtt_ns;	/* the newest RTT sample; 0: none yet */
	u32 rtt_samples;	/* samples taken, mod 2^32: tells a new one */
};

/* Why an ACK was sent ([REL-13]), for counters; not on the wire. */
enum mrc_ack_why {
	MRC_ACK_WHY_DELAY = 0,	/* the oldest packet waited ack_delay */
	MRC_ACK_WHY_COUNT,	/* ack_every packets were waiting */
	MRC_ACK_WHY_ORDER,	/* a packet out of PSN order: hole */
	MRC_ACK_WHY_DUP,	/* a duplicate */
	MRC_ACK_WHY_CE,		/* a CE mark */
	MRC_ACK_WHY_REQ,	/* the sender's ACK_REQ */
	MRC_ACK_WHY_MSG,	/* a message became whole */
	MRC_ACK_WHY_WINDOW,	/* a window update ([REL-18]) */
	MRC_ACK_WHY_NUM,
};

struct mrc_path_rx {
	u32 cum;		/* window base: first PSN not settled */
	u32 next;		/* 1 + newest PSN received (in-order arrival point) */
	u64 bits[MRC_SACK_WORDS];	/* bit i: PSN cum + 1 + i received */
	u32 pending;		/* packets not yet acknowledged */
	u32 ce_count;		/* CE-marked packets, mod 2^32 ([REL-6]) */
	u32 tsecr;		/* tsval of the newest packet, echoed */
	u16 peer_sport;		/* [PATH-11] its UDP source port; 0: unknown */
	u64 tsecr_at;		/* when that packet arrived */
	u64 pending_since;	/* arrival of the oldest unacknowledged packet */
	bool ack_now;		/* something the sender should hear at once */
	u8 why;			/* enum mrc_ack_why of the first ack_now */
	/* counters */
	u64 rx_new;
	u64 rx_dup;
	u64 rx_oow;
	u64 slides;		/* window moved past a hole ([REL-5]) */
	u64 acks;
	/*
	 * for telemetry: the receiver's view of the path. A resend takes a
	 * new PSN, so skipped PSNs not filled late are what the path lost.
	 */
	u64 rx_late;		/* new PSNs below next: they filled a hole */
	u64 rx_skipped;		/* PSNs next jumped over: holes opened */
	u64 new_bytes;		/* payload of rx_new (the connection's count) */
	u64 dup_bytes;		/* payload of rx_dup */
	u64 placed_bytes;	/* of new_bytes, the data placed the first time */
};

/* What an ACK or a timeout did to the sender half. */
struct mrc_path_events {
	u32 *acked;		/* caller's array, MRC_PATH_WND entries */
	u32 *lost;		/* caller's array, MRC_PATH_WND entries */
	u32 n_acked;		/* cookies newly known received */
	u32 n_lost;		/* cookies newly declared lost: resend them */
	u32 n_late;		/* of n_acked, ones declared lost earlier */
	u32 n_late_rack;	/* ... of those, by [REL-22] */
	/*
	 * [CC-14] payload of the late ones whose loss this route's loss
	 * average counted (a gap, [REL-22] or a probe timeout)
	 */
	u32 late_bytes;
	u32 newest_sent;	/* send stamp of the newest packet acked */
	bool req_acked;		/* the newest ACK_REQ packet was acked... */
	u32 req_sent;		/* ... sent at this stamp */
	u32 acked_bytes;	/* of packets that were in flight */
	u32 lost_bytes;
};

enum mrc_path_ack_result {
	MRC_ACK_OK = 0,
	MRC_ACK_INVALID,	/* acknowledges a PSN never sent: ignored */
};

/* ---- sender half ---- */

/* Send from @isn on, with @ring (emptied here) as the window's slots. */
void mrc_path_tx_init(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
		      u32 isn, struct mrc_path_ring *ring);

/* Packets declared lost, by any rule: each was resent. */
static inline u64 mrc_path_tx_lost(const struct mrc_path_tx *tx)
{
	return tx->lost_gap + tx->lost_rack + tx->lost_rto + tx->lost_pto +
	       tx->lost_fail;
}

/* PSNs that may still be sent before the window of MRC_PATH_WND is full. */
static inline u32 mrc_path_tx_room(const struct mrc_path_tx *tx)
{
	return MRC_PATH_WND - (tx->snd_nxt - tx->snd_una);
}

/*
 * [REL-22] Some packet in flight was sent before stamp @before. Packets
 * leave in PSN order and snd_una is the oldest in flight, so one slot
 * tells: what every ACK asks of every path, in O(1).
 */
static inline bool mrc_path_tx_sent_before(const struct mrc_path_tx *tx,
					   u32 before)
{
	return tx->inflight_pkts &&
	       mrc_seq_before(tx->ring->slot[tx->snd_una % MRC_PATH_WND].sent,
			      before);
}

/*
 * A packet that asked for an ACK is in flight (neither acked nor lost)
 * and was sent fewer than @within packets ago.
 */
static inline bool mrc_path_tx_req_pending(const struct mrc_path_tx *tx,
					   u32 within)
{
	return tx->req_set && tx->snd_nxt - tx->req_psn <= within &&
	       tx->req_psn - tx->snd_una < tx->snd_nxt - tx->snd_una &&
	       tx->ring->slot[tx->req_psn % MRC_PATH_WND].state == MRC_SLOT_INFLIGHT;
}

/*
 * Assign the next PSN to a packet carrying @cookie and @len payload bytes,
 * sent at @now. The caller checked mrc_path_tx_room() > 0.
 */
u32 mrc_path_tx_send(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
		     u64 now, u32 cookie, u32 len);

/*
 * [REL-10] The packet just sent as @psn at @now carried ACK_REQ. If the
 * sender has nothing more to send (@idle), its answer is due within the
 * answer timeout.
 */
void mrc_path_tx_asked(struct mrc_path_tx *tx, u64 now, u32 psn, bool idle);

/*
 * [REL-10] [OPS-2] The request sent as @psn was answered otherwise than by
 * an ACK (its response arrived): timed like an ACK's answer, and no probe
 * falls due for it.
 */
void mrc_path_tx_answered(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
			  u64 now, u32 psn);

/*
 * [REL-10] The peer showed that what it should have received by now may
 * be lost (it asked again): the PTO falls due now, if anything is in
 * flight and the newest packet left a round trip ago or more. A newer
 * one crossed the question; and a peer that keeps asking gets one probe
 * per round trip, not one per question.
 */
void mrc_path_tx_probe_now(struct mrc_path_tx *tx, u64 now);

/* The cookie packet @psn carried, if the window still holds it. */
static inline u32 mrc_path_tx_cookie(const struct mrc_path_tx *tx, u32 psn)
{
	return tx->ring->slot[psn % MRC_PATH_WND].cookie;
}

/* [REL-10] The answer timeout; 0 before the first answer was timed. */
u64 mrc_path_tx_answer_timeout(const struct mrc_path_tx *tx);

/*
 * Apply an ACK. @rtt_ns is the sample the ACK yields (0: none). Fills
 * @ev; returns MRC_ACK_INVALID, with no state changed, for an ACK that
 * covers PSNs this sender never assigned.
 */
enum mrc_path_ack_result mrc_path_tx_on_ack(struct mrc_path_tx *tx,
					    const struct mrc_path_cfg *cfg,
					    u64 now, const struct mrc_sack *sack,
					    u64 rtt_ns,
					    struct mrc_path_events *ev);

enum mrc_path_timer {
	MRC_TIMER_NONE = 0,
	MRC_TIMER_PTO,		/* the path went silent for about two RTTs */
	MRC_TIMER_RTO,		/* the retransmission timeout */
};

/*
 * Fire the probe or retransmission timer if one is due: every PSN in
 * flight is declared lost into @ev. Only the RTO backs off and counts as a
 * retry ([REL-10], [REL-11]).
 */
enum mrc_path_timer mrc_path_tx_on_timer(struct mrc_path_tx *tx,
					 const struct mrc_path_cfg *cfg,
					 u64 now, struct mrc_path_events *ev);

/*
 * The earlier of the two timers; 0 if neither is armed. Inline, as the
 * two below: the connection asks every path for its deadlines several
 * times per packet.
 */
static inline u64 mrc_path_tx_deadline(const struct mrc_path_tx *tx)
{
	if (!tx->pto_deadline)
		return tx->rto_deadline;
	if (!tx->rto_deadline)
		return tx->pto_deadline;
	return mrc_min_u64(tx->pto_deadline, tx->rto_deadline);
}

/*
 * [REL-22] Once @now reaches @due, declare lost every packet in flight
 * sent before stamp @newest (a packet known delivered, of any path).
 * Returns @due if such packets are left waiting for it, ~0 if none.
 */
u64 mrc_path_tx_rack(struct mrc_path_tx *tx, u64 now, u32 newest, u64 due,
		     struct mrc_path_events *ev);

/*
 * [PATH-5] The path failed: declare every packet in flight lost into @ev
 * and stop its timers; its PSNs stay assigned.
 */
void mrc_path_tx_abandon(struct mrc_path_tx *tx, struct mrc_path_events *ev);

/* Forget the RTT estimate, e.g. when the path moves to a new route. */
void mrc_path_tx_reset_rtt(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg);

/* An RTT sample that no sequenced packet carried (a PROBE's, [PATH-4]). */
void mrc_path_tx_rtt(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
		     u64 rtt_ns);

/*
 * [REL-10] A path without an RTT sample of its own takes @from's (a path
 * of the same connection that has one) until its first own sample.
 */
void mrc_path_tx_borrow_rtt(struct mrc_path_tx *tx, const struct mrc_path_cfg *cfg,
			    const struct mrc_path_tx *from, u64 now);

/* ---- receiver half ---- */

enum mrc_rx_psn {
	MRC_RX_PSN_NEW = 0,	/* first arrival: go on */
	MRC_RX_PSN_DUP,		/* seen before or abandoned: drop */
	MRC_RX_PSN_OOW,		/* implausibly far ahead: drop */
};

void mrc_path_rx_init(struct mrc_path_rx *rx, u32 isn);

/*
 * Classify @psn without changing any state, so the connection can refuse a
 * packet before the path counts it as received.
 */
enum mrc_rx_psn mrc_path_rx_check(const struct mrc_path_rx *rx, u32 psn);

/*
 * Record an arrival the connection accepted: @ce is the IP ECN CE mark,
 * @tsval the sender's timestamp, @ack_req the sender's MRC_F_ACK_REQ.
 */
void mrc_path_rx_accept(struct mrc_path_rx *rx, u64 now, u32 psn, bool ce,
			u32 tsval, bool ack_req);

/* Note a duplicate (already checked): the sender should hear an ACK. */
void mrc_path_rx_note_dup(struct mrc_path_rx *rx, u64 now, bool ce, u32 tsval);

/* An ACK is due at once, for @why (the first reason is kept). */
static inline void mrc_path_rx_ack_now(struct mrc_path_rx *rx, u8 why)
{
	if (!rx->ack_now)
		rx->why = why;
	rx->ack_now = true;
}

/* Is an ACK due at @now? */
static inline bool mrc_path_rx_ack_due(const struct mrc_path_rx *rx,
				       const struct mrc_path_cfg *cfg, u64 now)
{
	if (!rx->pending)
		return false;
	return rx->ack_now || rx->pending >= cfg->ack_every ||
	       now >= rx->pending_since + cfg->ack_delay_ns;
}

/* When a coalesced ACK falls due; U64 max if nothing is pending. */
static inline u64 mrc_path_rx_ack_deadline(const struct mrc_path_rx *rx,
					   const struct mrc_path_cfg *cfg)
{
	if (!rx->pending)
		return ~0ull;
	if (rx->ack_now || rx->pending >= cfg->ack_every)
		return rx->pending_since;
	return rx->pending_since + cfg->ack_delay_ns;
}

/*
 * Fill the path part of an ACK sent at @now: the SACK, the CE count, the
 * echoed timestamp and how long the receiver held it. Clears "pending".
 */
void mrc_path_rx_build_ack(struct mrc_path_rx *rx, u64 now,
			   struct mrc_sack *sack, u32 *ce_count, u32 *tsecr,
			   u32 *ack_delay);

#ifdef __cplusplus
}
#endif

#endif /* MRC_CORE_PATH_H */
