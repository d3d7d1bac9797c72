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
	u64 reentropies;	/* counter */
};

struct mrc_sched_cfg {
	u16 sport_min;		/* source ports are drawn from [min, max] */
	u16 sport_max;
	u32 fail_rtos;		/* consecutive timeouts that fail a path */
	u64 fail_hold_ns;	/* a failed path rests this long, then re-probes */
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
};

void mrc_sched_init(struct mrc_sched *s, u64 seed,
		    const struct mrc_sched_cfg *cfg);

/* A source port in range that no other path of the connection uses. */
u16 mrc_sched_new_sport(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
			const struct mrc_path *paths, u32 npaths);

/*
 * The path for a packet of @len payload bytes, or -1 if none may send now
 * ([PATH-6]). Among paths whose window has room, packets are sprayed in
 * proportion to each path's rate estimate, window / RTT (stride
 * scheduling), in bursts of up to cfg.burst packets and cfg.burst_bytes
 * bytes (payload plus MRC_WIRE_DATA_OVERHEAD each); a probing path with
 * nothing in flight goes first. Sparse traffic stays on one path
 * ([PATH-9]). The chosen path is charged for the packet: call only when
 * it will be sent.
 */
int mrc_sched_pick(struct mrc_sched *s, struct mrc_path *paths, u32 npaths,
		   u32 len, u64 now);

/* The path's ACK made progress: probing -> active, congestion state. */
void mrc_sched_on_ack(struct mrc_path *p, u64 now);

/* The path's retransmission timer fired. */
void mrc_sched_on_rto(struct mrc_path *p, const struct mrc_sched_cfg *cfg,
		      u64 now);

/*
 * Give failed paths that have rested a new source port and put them back
 * to probing with fresh RTT and window state. Returns how many moved.
 */
u32 mrc_sched_maintain(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
		       struct mrc_path *paths, u32 npaths,
		       const struct mrc_path_cfg *pcfg,
		       const struct mrc_cc_cfg *ccfg, u64 now);

/* When mrc_sched_maintain() next has work; U64 max if never. */
static inline u64 mrc_sched_deadline(const struct mrc_sched_cfg *cfg,
				     const struct mrc_path *paths, u32 npaths)
{
	u64 t = ~0ull;
	u32 i;

	for (i = 0; i < npaths; i++)
		if (paths[i].state == MRC_PATH_FAILED)
			t = mrc_min_u64(t, paths[i].state_since +
					   cfg->fail_hold_ns);
	return t;
}

#ifdef __cplusplus
}
#endif

#endif /* MRC_CORE_SCHED_H */
