/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Congestion control: windows per path and per connection, driven by ECN
 * marks (and RTT inflation read as marks), plus the receiver's fair-share
 * rate hint. Rules [CC-n]: Documentation/protocol/congestion.rst.
 *
 * Loss alone is not read as congestion ([CC-7]): on a lossy fabric without
 * PFC most loss is corruption or failure, and halving on every loss, as TCP
 * does, would give away most of the link at 1% loss. Only a smoothed loss
 * rate far above random-loss levels trims the window.
 */
#ifndef MRC_CORE_CC_H
#define MRC_CORE_CC_H

#include "compat.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Default epoch of the receiver's active-sender count ([CC-10]): it must be
 * longer than the gap between two packets of one sender at its fair share
 * (fan-in x segment / capacity: 105 us for 32 senders of 4 KiB at 10 Gbit/s),
 * and it bounds how long a departed sender still counts (two epochs).
 */
#define MRC_CC_SHARE_EPOCH_NS	500000ull

/* Fixed point for fractions: MRC_CC_ONE is 1.0. */
#define MRC_CC_ONE		1024u

struct mrc_cc_cfg {
	u32 mss;		/* payload bytes of a full segment */
	u32 init_cwnd;		/* per path, bytes */
	u32 min_cwnd;		/* per path, bytes; >= mss */
	u32 max_cwnd;		/* per path, bytes */
	u32 conn_init_cwnd;	/* per connection, bytes */
	u32 conn_max_cwnd;
	u32 ecn_g_shift;	/* gain of the marked-fraction average: 2^-shift */
	u32 loss_tol_pm;	/* smoothed loss, per mille, still read as random */
	/* [CC-6] a round's least RTT above base + max(base, this): marked */
	u64 delay_target_ns;
	/* [CC-6] rounds of a base epoch (the base spans two); 0: all time */
	u32 base_epoch_rounds;
	/*
	 * [CC-13] of the backlog above one BDP, 1/keep_home goes in flight
	 * and the rest waits at home; 0 or 1: no cap. keep_home_resp for a
	 * backlog of mostly responses (READ, ATOMIC).
	 */
	u32 keep_home;
	u32 keep_home_resp;
	/*
	 * [CC-5] 0: the connection window grows one segment a round, as one
	 * flow would; 1: one a round per path acked in the last round, as its
	 * paths' windows grow together (a fabric of many paths per connection)
	 */
	u32 conn_ai_paths;
};

void mrc_cc_cfg_default(struct mrc_cc_cfg *cfg, u32 mss);

struct mrc_cc_path {
	u32 cwnd;		/* bytes */
	u32 ssthresh;
	u32 alpha;		/* marked fraction, average over rounds */
	u32 loss_pm;		/* lost fraction, per mille, average over rounds */
	u32 mark_pm;		/* marked fraction, ditto ([PATH-6]; from 0) */
	u32 ai_acc;		/* bytes acked toward the next additive step */
	u32 r_acked;		/* this round */
	u32 r_marked;
	u32 r_lost;
	u32 last_total;		/* acked + lost bytes of the last round ended */
	/* [CC-14] the window before a loss cut that losses arriving late undo */
	u32 undo_cwnd;		/* 0: none */
	u32 undo_ssthresh;
	u64 r_min_rtt_ns;	/* smallest RTT sample this round, 0: none */
	u64 round_start;
	u64 min_rtt_ns;		/* least sample ever */
	u64 base_cur_ns;	/* [CC-6] least sample of this base epoch */
	u64 base_prev_ns;	/* ... and of the previous one; 0: none */
	u32 base_rounds;	/* rounds ended in this base epoch */
	bool congested;		/* the last round ended with marks */
	u32 rounds;		/* rounds ended: a round's news for the scheduler */
	u64 rate;		/* delivered, bytes/s, average over rounds */
	/* counters */
	u64 decreases_ecn;
	u64 decreases_loss;
	u64 undos_loss;		/* loss cuts undone: their losses came late */
};

struct mrc_cc_conn {
	u32 cwnd;
	u32 ssthresh;
	u32 alpha;
	u32 ai_acc;
	u32 r_acked;
	u32 r_marked;
	u32 marked_paths;	/* bitmask: paths that saw a mark this round */
	u32 active_paths;	/* bitmask: paths acked this round */
	u32 npaths;		/* paths of the connection; 0: unknown */
	u32 grew_paths;		/* paths acked in the last round ended */
	u64 round_start;
	u64 min_rtt_ns;
	u64 hint_bps;		/* receiver's fair share, bytes/s; 0: none */
	u64 r_base_ns;		/* least path base RTT this round, 0: none */
	u32 rounds;		/* rounds ended, for [CC-6] drains */
	u32 drain_cap;		/* [CC-6] window while draining, 0: none */
	u32 drain_left;		/* rounds of the drain still to run */
	u64 rate;		/* [CC-13] delivered in the last round, bytes/s */
	u64 rate_prev;		/* ... and in the round before it */
	u64 decreases;
	u64 drains;
};

void mrc_cc_path_init(struct mrc_cc_path *p, const struct mrc_cc_cfg *cfg,
		      u64 now);
void mrc_cc_conn_init(struct mrc_cc_conn *c, const struct mrc_cc_cfg *cfg,
		      u64 now);

/*
 * An ACK on the path with bit @path_bit acknowledged @acked bytes, @marked
 * of them CE-marked. @rtt_ns is its RTT sample (0: none), @srtt_ns the
 * path's smoothed RTT (the round length), @conn_inflight the connection's
 * bytes in flight after the ACK.
 */
void mrc_cc_on_ack(struct mrc_cc_path *p, struct mrc_cc_conn *c,
		   const struct mrc_cc_cfg *cfg, u32 path_bit, u64 now,
		   u32 acked, u32 marked, u64 rtt_ns, u64 srtt_ns,
		   u32 conn_inflight);

/* The path declared @lost bytes lost (gap or timeout). */
void mrc_cc_on_loss(struct mrc_cc_path *p, u32 lost);

/*
 * [CC-14] @bytes the path declared lost (gap, [REL-22], probe timeout) on
 * its current route were acknowledged after all: not losses.
 */
void mrc_cc_on_late(struct mrc_cc_path *p, const struct mrc_cc_cfg *cfg,
		    u32 bytes);

/* The path's retransmission timer fired. */
void mrc_cc_on_rto(struct mrc_cc_path *p, const struct mrc_cc_cfg *cfg);

/* The latest rate hint from the peer, Mbit/s as on the wire (0: none). */
void mrc_cc_on_hint(struct mrc_cc_conn *c, u32 mbps);

/* The connection's window: its own, capped by a drain ([CC-6]) and the hint ([CC-12]). */
u32 mrc_cc_conn_window(const struct mrc_cc_conn *c, const struct mrc_cc_cfg *cfg);

/*
 * [CC-13] The most the connection may have in flight while @backlog bytes
 * (in flight and not yet sent) are its to deliver, 1/@keep of it above one
 * BDP (@keep < 2: no cap); the receiver may hold an ACK @ack_hold_ns.
 */
u32 mrc_cc_conn_home_cap(const struct mrc_cc_conn *c,
			 const struct mrc_cc_cfg *cfg, u64 backlog,
			 u64 ack_hold_ns, u32 keep);

/* Bytes the path may still put in flight. */
static inline u32 mrc_cc_path_room(const struct mrc_cc_path *p, u32 inflight)
{
	return p->cwnd > inflight ? p->cwnd - inflight : 0;
}

/*
 * Receiver side ([CC-10]): the inbound capacity of one receiver (a device),
 * shared by every connection that delivers to it. The caller serialises
 * access (one per device, under its lock, or one per CPU).
 */
struct mrc_cc_share {
	u64 capacity_bps;	/* bytes/s the receiver can take in */
	u64 epoch_ns;		/* window over which senders count as active */
	u64 epoch_start;
	u32 epoch_id;
	u32 cur;		/* senders seen this epoch */
	u32 prev;		/* senders seen in the previous epoch */
};

void mrc_cc_share_init(struct mrc_cc_share *s, u64 capacity_bps, u64 epoch_ns,
		       u64 now);

/* A data packet of the connection whose marker is @seen arrived at @now. */
void mrc_cc_share_note(struct mrc_cc_share *s, u32 *seen, u64 now);

/* The fair share to put into an ACK sent at @now, Mbit/s (0: no hint). */
u32 mrc_cc_share_hint(struct mrc_cc_share *s, u64 now);

#ifdef __cplusplus
}
#endif

#endif /* MRC_CORE_CC_H */
