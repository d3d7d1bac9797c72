/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which path the next packet takes, and each path's life: probing, active,
 * congested, failed, and a new UDP source port (a new ECMP route) for a
 * failed one. Rules [PATH-n]: Documentation/protocol/paths.rst.
 */
#ifndef MRC_CORE_SCHED_H
#define MRC_CORE_SCHED_H

#include "compat.h"
#include "path.h"
#include "cc.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mrc_path_state {
	MRC_PATH_PROBING = 0,	/* unproven route: one packet in flight */
	MRC_PATH_ACTIVE,
	MRC_PATH_CONGESTED,	/* marks or RTT inflation last round */
	MRC_PATH_FAILED,	/* timeouts without any ACK: not used */
};

/* Everything the connection keeps per path. */
struct mrc_path {
	struct mrc_path_tx tx;
	struct mrc_path_rx rx;
	struct mrc_cc_path cc;
	u64 vtime;		/* stride scheduling: virtual finish time */
	u32 ce_seen;		/* the peer's CE count in its last ACK */
	u16 sport;		/* UDP source port: the path's entropy */
	u8 id;			/* path_id on the wire */
	u8 state;		/* enum mrc_path_state */
	u64 state_since;
	u32 lost_streak;	/* lost without an ACK since ([PATH-5]) */
	u32 fails;		/* failures since it last delivered ([PATH-7]) */
	u32 rounds_seen;	/* cc.rounds when last judged ([PATH-10]) */
	u32 slow_rounds;	/* rounds in a row judged slow ([PATH-10]) */
	u8 fail_why;		/* enum mrc_path_fail of the last failure */
	bool link_down;		/* [PATH-8] its plane's link is down here */
	bool probe_out;		/* [PATH-4] a PROBE REQ awaits its RESP */
	u32 probe_seq;		/* ... its sequence */
	u64 probe_due;		/* ... when it counts as lost */
	/* counters */
	u64 reentropies;	/* new ports after failures ([PATH-7]) */
	u64 repaths;		/* new ports for a slow route ([PATH-10]) */
	u64 fails_silent;	/* failures by [PATH-5]'s silence rule */
	u64 probes_sent;	/* [PATH-4] PROBE REQs */
	u64 probes_answered;	/* ... that made the path active */
};

/* Why a path failed ([PATH-5]), for telemetry. */
enum mrc_path_fail {
	MRC_FAIL_NONE = 0,
	MRC_FAIL_RTO,		/* fail_rtos timeouts in a row */
	MRC_FAIL_PROBE,		/* its probe was lost */
	MRC_FAIL_SILENT,	/* packets lost, no ACK, others delivering */
	MRC_FAIL_LINK,		/* [PATH-8] its plane's link went down here */
};

struct mrc_sched_cfg {
	u16 sport_min;		/* source ports are drawn from [min, max] */
	u16 sport_max;
	u32 fail_rtos;		/* consecutive timeouts that fail a path */
	u32 fail_lost;		/* [PATH-5] lost without an ACK that fail it; 0: off */
	u64 fail_hold_ns;	/* a failed path rests at least this long */
	u32 fail_hold_shift;	/* its rest doubles per failure in a row, this often */
	u32 repath_rounds;	/* [PATH-10] slow rounds that move a path; 0: off */
	u32 burst;		/* [PATH-6] packets in a row on one path, >= 1 */
	u32 burst_bytes;	/* ... and their bytes on the wire (0: any) */
};

void mrc_sched_cfg_default(struct mrc_sched_cfg *cfg);

struct mrc_sched {
	u64 rng;		/* xorshift64 state, seeded per connection */
	u64 vnow;		/* virtual time of the last pick */
	u32 rr;			/* where the next tie-break starts */
	u32 burst;		/* from mrc_sched_cfg */
	u32 burst_left;		/* more packets the last pick may take */
	u32 burst_bytes;	/* from mrc_sched_cfg */
	u32 burst_bytes_left;	/* ... and bytes */
	int last;		/* the last pick, or -1 */
	u64 last_at;		/* when it was made */
	u64 repath_at;		/* [PATH-10] no path moves before this */
	u64 explore_at;		/* ... and none to explore before this */
	u64 moved_total;	/* the paths' total rate at the last move */
	u32 move_shift;		/* moves in a row that gained nothing */
	u32 weight_cap;		/* [PATH-6] window counted in a weight; 0: any */
	u64 limited_at;		/* [PATH-10] data last waited for a window */
	u64 idle_at;		/* ... and the sender last ran out of data */
	bool probe_reqs;	/* [PATH-4] failed routes are proven by REQs */
};

/*
 * [PATH-4] Probing path @p waits for a PROBE REQ to prove it rather than
 * carry data: its route failed (a move to explore or balance leaves a
 * working plane, and data proves that one at no risk worth a round trip).
 */
static inline bool mrc_sched_probe_by_req(const struct mrc_sched *s,
					  const struct mrc_path *p)
{
	return s->probe_reqs && p->state == MRC_PATH_PROBING && p->fails;
}

void mrc_sched_init(struct mrc_sched *s, u64 seed,
		    const struct mrc_sched_cfg *cfg);

/* Some path is in use: neither failed nor probing. */
bool mrc_sched_path_in_use(const struct mrc_path *paths, u32 npaths);

/* A source port in range that no other path of the connection uses. */
u16 mrc_sched_new_sport(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
			const struct mrc_path *paths, u32 npaths);

/*
 * The path for a packet of @len payload bytes, or -1 if none may send now
 * ([PATH-6]). Among paths whose window has room, packets are sprayed in
 * proportion to each path's rate estimate, window / RTT (stride
 * scheduling), in bursts of up to cfg.burst packets and cfg.burst_bytes
 * bytes (payload plus MRC_WIRE_DATA_OVERHEAD each); a probing path with
 * nothing in flight goes first, unless the packet may not probe
 * (!@may_probe) and some path is in use ([PATH-4]). Sparse traffic stays
 * on one path ([PATH-9]). The chosen path is charged for the packet: call
 * only when it will be sent.
 */
int mrc_sched_pick(struct mrc_sched *s, struct mrc_path *paths, u32 npaths,
		   u32 len, bool may_probe, u64 now);

/*
 * [PATH-6] The window the path may fill: its congestion window, less a
 * share for the loss it has been seeing.
 */
u32 mrc_sched_path_window(const struct mrc_path *p);

/* Bytes the path may still put in flight. */
static inline u32 mrc_sched_path_room(const struct mrc_path *p)
{
	u32 w = mrc_sched_path_window(p);

	return w > p->tx.inflight_bytes ? w - p->tx.inflight_bytes : 0;
}

/*
 * Path @i's ACK made progress: probing -> active, congestion state, and,
 * once per round, whether the path should move ([PATH-10]); @hint is the
 * receiver's rate hint, bytes/s (0: none).
 */
void mrc_sched_on_ack(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
		      struct mrc_path *paths, u32 npaths, u32 i,
		      const struct mrc_path_cfg *pcfg,
		      const struct mrc_cc_cfg *ccfg, u64 hint, u64 now);

/*
 * @n packets of path @i were declared lost without an ACK of it: by
 * [REL-22] or its probe timeout. True if the path failed ([PATH-5]): the
 * caller then declares its packets in flight lost (mrc_path_tx_abandon()).
 */
bool mrc_sched_on_lost(struct mrc_path *paths, u32 npaths, u32 i,
		       const struct mrc_sched_cfg *cfg, u32 n, u64 now);

/* Path @i's retransmission timer fired. */
void mrc_sched_on_rto(struct mrc_path *paths, u32 npaths, u32 i,
		      const struct mrc_sched_cfg *cfg, u64 rto_min_ns, u64 now);

/*
 * [PATH-5] How long a path of the connection may be silent and still
 * deliver: the longest round trip of its packets declared lost and
 * acknowledged after all, on any path.
 */
u64 mrc_sched_late_rtt(const struct mrc_path *paths, u32 npaths);

/*
 * [PATH-4] The PROBE REQ of probing path @p was answered (the path is
 * active) or not in time (it fails again).
 */
void mrc_sched_on_probe(struct mrc_path *p, bool answered, u64 now);

/*
 * [PATH-8] Path @p's plane has its link at this end (@up), or lost it (the
 * netdev went down or lost its carrier): a path marked down rests, once
 * failed, until it is back, while some path of the connection has a link
 * (mrc_sched_some_link()).
 */
void mrc_sched_link_mark(struct mrc_path *p, bool up);
bool mrc_sched_some_link(const struct mrc_path *paths, u32 npaths);

/*
 * [PATH-8] Fail path @p for its link: true if it was not failed yet (the
 * caller then declares its packets in flight lost, mrc_path_tx_abandon()).
 */
bool mrc_sched_link_fail(struct mrc_path *p, u64 now);

/*
 * Give failed paths that have rested a new source port and put them back
 * to probing with fresh RTT and window state. Returns how many moved.
 */
u32 mrc_sched_maintain(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
		       struct mrc_path *paths, u32 npaths,
		       const struct mrc_path_cfg *pcfg,
		       const struct mrc_cc_cfg *ccfg, u64 now);

/*
 * [PATH-7] How long failed path @p rests: two of the connection's RTTs
 * (the least smoothed RTT of its proven paths; @p's RTO if none), at
 * least fail_hold, doubled for every failure in a row up to
 * fail_hold_shift times.
 */
u64 mrc_sched_fail_hold(const struct mrc_sched_cfg *cfg,
			const struct mrc_path *paths, u32 npaths,
			const struct mrc_path *p);

/* When mrc_sched_maintain() next has work; U64 max if never. */
u64 mrc_sched_deadline(const struct mrc_sched_cfg *cfg,
		       const struct mrc_path *paths, u32 npaths);

#ifdef __cplusplus
}
#endif

#endif /* MRC_CORE_SCHED_H */
