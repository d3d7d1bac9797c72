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
	cfg->fail_rtos = 3;
	cfg->fail_hold_ns = 10000000;	/* 10 ms */
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

/* Rate estimate, bytes per ~microsecond, scaled by 1024. */
static u64 path_rate(const struct mrc_path *p)
{
	u64 rtt = p->tx.srtt_ns ? p->tx.srtt_ns : UNSAMPLED_RTT_NS;
	u64 rate = (u64)p->cc.cwnd * 1024 / (rtt / 1024 + 1);

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
	       mrc_cc_path_room(&p->cc, p->tx.inflight_bytes) >=
	       mrc_max_u32(len, 1);
}

static void charge(struct mrc_sched *s, struct mrc_path *p, u64 start,
		   u32 len)
{
	/* charge headers too, so empty packets also spread */
	p->vtime = start + ((u64)len + 64) * 65536 / path_rate(p);
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

int mrc_sched_pick(struct mrc_sched *s, struct mrc_path *paths, u32 npaths,
		   u32 len, u64 now)
{
	u64 best_start = 0;
	int best = -1;
	u32 k;

	/*
	 * [PATH-9] first, as it is what a lone message takes: the same
	 * answer as below (no probing path may send, else it goes first)
	 * without asking every path.
	 */
	if (sparse_stays(s, paths, npaths, len, now)) {
		for (k = 0; k < npaths; k++)
			if (paths[k].state == MRC_PATH_PROBING &&
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
	for (k = 0; k < npaths; k++) {
		u32 i = (s->rr + k) % npaths;
		struct mrc_path *p = &paths[i];
		u64 start;

		/* failed, no room, or [PATH-4] a probe still in flight */
		if (!path_may_send(p, len))
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
	}
}

void mrc_sched_on_ack(struct mrc_path *p, u64 now)
{
	if (p->state == MRC_PATH_FAILED)
		return;
	/* [PATH-5] marks or inflated RTT are congestion, not failure */
	set_state(p, p->cc.congested ? MRC_PATH_CONGESTED : MRC_PATH_ACTIVE,
		  now);
}

void mrc_sched_on_rto(struct mrc_path *p, const struct mrc_sched_cfg *cfg,
		      u64 now)
{
	/*
	 * [PATH-5] failure is silence: fail_rtos timeouts in a row with no
	 * ACK at all, or any timeout while the route is still unproven.
	 */
	if (p->state == MRC_PATH_PROBING || p->tx.retries >= cfg->fail_rtos)
		set_state(p, MRC_PATH_FAILED, now);
}

u32 mrc_sched_maintain(struct mrc_sched *s, const struct mrc_sched_cfg *cfg,
		       struct mrc_path *paths, u32 npaths,
		       const struct mrc_path_cfg *pcfg,
		       const struct mrc_cc_cfg *ccfg, u64 now)
{
	u32 i, moved = 0;

	for (i = 0; i < npaths; i++) {
		struct mrc_path *p = &paths[i];

		if (p->state != MRC_PATH_FAILED ||
		    now - p->state_since < cfg->fail_hold_ns)
			continue;
		/*
		 * [PATH-7] re-entropy: a new source port is a new ECMP route;
		 * nothing learnt about the old one applies. The PSN space goes
		 * on: the receiver knows the path by path_id, not by port.
		 */
		p->sport = mrc_sched_new_sport(s, cfg, paths, npaths);
		p->vtime = s->vnow;
		mrc_path_tx_reset_rtt(&p->tx, pcfg);
		mrc_cc_path_init(&p->cc, ccfg, now);
		set_state(p, MRC_PATH_PROBING, now);
		p->reentropies++;
		moved++;
	}
	return moved;
}
