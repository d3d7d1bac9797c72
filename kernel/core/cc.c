// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ECN-driven AIMD per path and per connection, and the receiver's
 * fair-share rate hint. Rules cited as [CC-n] are in
 * Documentation/protocol/congestion.rst.
 */
#include "cc.h"

#define BYTES_PER_MBIT	125000ull	/* 10^6 bits / 8 */
#define NSEC_PER_SEC_	1000000000ull
/* A round is at least this long, so a tiny RTT does not thrash alpha. */
#define MIN_ROUND_NS	10000ull

void mrc_cc_cfg_default(struct mrc_cc_cfg *cfg, u32 mss)
{
	cfg->mss = mss;
	cfg->init_cwnd = 16 * mss;
	cfg->min_cwnd = 2 * mss;
	cfg->max_cwnd = 256 * mss;
	cfg->conn_init_cwnd = 16 * mss;
	cfg->conn_max_cwnd = 1024 * mss;
	cfg->ecn_g_shift = 4;
	cfg->loss_tol_pm = 250;
	cfg->delay_target_ns = 200000;
	cfg->base_epoch_rounds = 32;
	cfg->keep_home = 2;
	cfg->keep_home_resp = 3;
	cfg->conn_ai_paths = 0;
}

void mrc_cc_path_init(struct mrc_cc_path *p, const struct mrc_cc_cfg *cfg,
		      u64 now)
{
	memset(p, 0, sizeof(*p));
	p->cwnd = cfg->init_cwnd;
	p->ssthresh = cfg->max_cwnd;
	p->alpha = MRC_CC_ONE;	/* DCTCP: the first mark halves */
	p->round_start = now;
}

void mrc_cc_conn_init(struct mrc_cc_conn *c, const struct mrc_cc_cfg *cfg,
		      u64 now)
{
	memset(c, 0, sizeof(*c));
	c->cwnd = cfg->conn_init_cwnd;
	c->ssthresh = cfg->conn_max_cwnd;
	c->alpha = MRC_CC_ONE;
	c->round_start = now;
}

static u32 frac(u32 part, u32 whole)
{
	if (!whole)
		return 0;
	return (u32)((u64)mrc_min_u32(part, whole) * MRC_CC_ONE / whole);
}

/* alpha <- (1 - g) alpha + g F, DCTCP's estimator. */
static u32 ewma_alpha(u32 alpha, u32 f, u32 shift)
{
	return alpha - (alpha >> shift) + (f >> shift);
}

/* cwnd <- cwnd (1 - alpha / 2), DCTCP's decrease ([CC-4]). */
static u32 ecn_cut(u32 cwnd, u32 alpha, u32 floor)
{
	u32 cut = (u32)((u64)cwnd * alpha / (2 * MRC_CC_ONE));

	return mrc_max_u32(cwnd - cut, floor);
}

static u64 min_nonzero(u64 a, u64 b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

/*
 * [CC-6] base epochs: the base RTT is the least sample of the last two,
 * not of all time, so a delay that no cut drains (an endpoint whose
 * scheduling slows down with the host's load) stops reading as a queue
 * within two epochs instead of starving the connection for the rest of
 * its life. A queue of our own does not lift it: DCTCP's gentle cuts
 * rarely empty it, but the connection's drain rounds (conn_drain()) do
 * once an epoch, and their samples find the base where it was.
 */
static void base_round_end(struct mrc_cc_path *p, const struct mrc_cc_cfg *cfg)
{
	/* 0 rounds: the base is the least sample ever, as on a fixed fabric */
	if (!cfg->base_epoch_rounds || ++p->base_rounds < cfg->base_epoch_rounds)
		return;
	p->base_rounds = 0;
	/* an epoch without samples keeps the older one rather than nothing */
	if (p->base_cur_ns)
		p->base_prev_ns = p->base_cur_ns;
	p->base_cur_ns = 0;
}

/*
 * The base, risen above the least sample ever by at most one target: a
 * queue of our own that never quite drains could otherwise lift the base,
 * and the queue with it, epoch after epoch.
 */
static u64 base_rtt(const struct mrc_cc_path *p, const struct mrc_cc_cfg *cfg)
{
	u64 base = min_nonzero(p->base_prev_ns, p->base_cur_ns);

	if (!cfg->base_epoch_rounds || !base)
		return p->min_rtt_ns;
	return mrc_min_u64(base, p->min_rtt_ns + cfg->delay_target_ns);
}

/*
 * avg <- avg + (x - avg) / 8, per mille. A round without any rounds its
 * fall up, so the average of a route that stopped losing or marking
 * reaches 0: rounded down, it stayed at up to 7 for good, and [PATH-10]
 * read the route as pressing its path.
 */
static u32 ewma_pm(u32 avg, u32 x)
{
	if (x >= avg)
		return avg + (x - avg) / 8;
	return avg - (avg - x + (x ? 0 : 7)) / 8;
}

static void path_round_end(struct mrc_cc_path *p, const struct mrc_cc_cfg *cfg,
			   u64 now)
{
	u32 total = p->r_acked + p->r_lost;

	base_round_end(p, cfg);
	if (p->r_acked) {
		u32 mp = (u32)((u64)mrc_min_u32(p->r_marked, p->r_acked) *
			       1000 / p->r_acked);

		p->alpha = ewma_alpha(p->alpha, frac(p->r_marked, p->r_acked),
				      cfg->ecn_g_shift);
		p->mark_pm = ewma_pm(p->mark_pm, mp);
	}
	if (p->r_marked) {
		p->undo_cwnd = 0;	/* a mark is no loss to take back */
		p->cwnd = ecn_cut(p->cwnd, p->alpha, cfg->min_cwnd);
		p->ssthresh = p->cwnd;
		p->congested = true;
		p->decreases_ecn++;
	} else {
		p->congested = false;
	}

	/*
	 * [CC-7] loss: an average over rounds, so one unlucky round at 10%
	 * random loss does not count; only a lasting rate above loss_tol_pm
	 * (a queue overflowing without ECN) trims the window, by a quarter.
	 */
	if (total) {
		u32 lp = (u32)((u64)p->r_lost * 1000 / total);

		p->loss_pm = ewma_pm(p->loss_pm, lp);
		if (p->r_lost && p->loss_pm > cfg->loss_tol_pm) {
			if (!p->undo_cwnd) {
				p->undo_cwnd = p->cwnd;
				p->undo_ssthresh = p->ssthresh;
			}
			p->cwnd = mrc_max_u32(p->cwnd - p->cwnd / 4,
					      cfg->min_cwnd);
			p->ssthresh = p->cwnd;
			p->decreases_loss++;
		} else if (p->loss_pm <= cfg->loss_tol_pm) {
			/* the average fell back by itself: the cut served */
			p->undo_cwnd = 0;
		}
		p->last_total = total;
	}
	/*
	 * [PATH-10] what the path delivered, averaged over rounds (gain 1/4):
	 * the scheduler compares its paths by it.
	 */
	if (now > p->round_start) {
		u64 r = (u64)p->r_acked * NSEC_PER_SEC_ / (now - p->round_start);

		p->rate = p->rounds ? p->rate - p->rate / 4 + r / 4 : r;
	}
	p->rounds++;
	p->r_acked = 0;
	p->r_marked = 0;
	p->r_lost = 0;
	p->r_min_rtt_ns = 0;
	p->round_start = now;
}

/*
 * [CC-6] a queue that stands for a whole round raises every RTT sample of
 * it; a late ACK or an endpoint waiting for its CPU raises a few. So the
 * round's least sample decides, which lets a software endpoint, whose RTT
 * swings by milliseconds with scheduling, keep a delay target below that.
 */
static bool standing_queue(const struct mrc_cc_path *p,
			   const struct mrc_cc_cfg *cfg)
{
	return p->r_min_rtt_ns && p->r_min_rtt_ns > base_rtt(p, cfg) +
	       mrc_max_u64(p->min_rtt_ns, cfg->delay_target_ns);
}

/* No __builtin_popcount: in the kernel it becomes a libgcc call. */
static u32 count_bits(u32 x)
{
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0fu;
	return (x * 0x01010101u) >> 24;
}

/*
 * [CC-6a] once every base epoch the connection holds its window for two
 * rounds at what it delivered in the last round scaled to its paths' base
 * RTT, one bandwidth-delay product: the link stays busy while the queue we
 * built drains, and the second round's samples show the base. Only when
 * more than that is in flight: a connection without a queue has nothing
 * to drain.
 */
static void conn_drain(struct mrc_cc_conn *c, const struct mrc_cc_cfg *cfg,
		       u32 inflight, u64 now)
{
	u64 len = now - c->round_start, bdp;

	if (c->drain_left && !--c->drain_left)
		c->drain_cap = 0;
	if (!cfg->base_epoch_rounds || ++c->rounds % cfg->base_epoch_rounds ||
	    !c->r_base_ns || !len)
		return;
	/* a base above 2 s is no fabric's; the clamp keeps the product in u64 */
	bdp = (u64)c->r_acked *
	      mrc_min_u64(mrc_min_u64(c->r_base_ns, len), 1ull << 31) / len;
	bdp = mrc_max_u64(bdp, (u64)cfg->min_cwnd * mrc_max_u32(c->npaths, 1));
	if (bdp >= inflight)
		return;
	c->drain_cap = (u32)bdp;
	c->drain_left = 2;
	c->drains++;
}

static void conn_round_end(struct mrc_cc_conn *c, const struct mrc_cc_cfg *cfg,
			   u32 inflight, u64 now)
{
	u32 marked = count_bits(c->marked_paths);
	u32 active = count_bits(c->active_paths);

	if (c->r_acked)
		c->alpha = ewma_alpha(c->alpha, frac(c->r_marked, c->r_acked),
				      cfg->ecn_g_shift);
	/*
	 * [CC-5] the connection window reacts only to congestion its paths
	 * share (marks on at least half of them, e.g. the receiver's link);
	 * a mark on one path is that path's business and the scheduler
	 * steers around it. A round that heard from one path only of several
	 * cannot tell the two apart.
	 */
	if (c->r_marked && 2 * marked >= active &&
	    active >= mrc_min_u32(c->npaths, 2)) {
		u32 base = mrc_min_u32(c->cwnd, mrc_max_u32(inflight, cfg->mss));

		c->cwnd = ecn_cut(base, c->alpha, cfg->min_cwnd);
		c->ssthresh = c->cwnd;
		c->decreases++;
	}
	conn_drain(c, cfg, inflight, now);
	c->grew_paths = active;
	if (now > c->round_start) {
		c->rate_prev = c->rate;
		c->rate = (u64)c->r_acked * NSEC_PER_SEC_ /
			    (now - c->round_start);
	}
	c->r_base_ns = 0;
	c->r_acked = 0;
	c->r_marked = 0;
	c->marked_paths = 0;
	c->active_paths = 0;
	c->round_start = now;
}

static void grow(u32 *cwnd, u32 *ai_acc, u32 ssthresh, u32 acked, u32 mss,
		 u32 max)
{
	if (*cwnd < ssthresh) {
		/* [CC-3] slow start: one segment per segment acked */
		*cwnd += acked;
	} else {
		/* [CC-3] congestion avoidance: one segment per window */
		*ai_acc += acked;
		while (*ai_acc >= *cwnd) {
			*ai_acc -= *cwnd;
			*cwnd += mss;
		}
	}
	if (*cwnd > max)
		*cwnd = max;
}

void mrc_cc_on_ack(struct mrc_cc_path *p, struct mrc_cc_conn *c,
		   const struct mrc_cc_cfg *cfg, u32 path_bit, u64 now,
		   u32 acked, u32 marked, u64 rtt_ns, u64 srtt_ns,
		   u32 conn_inflight)
{
	u64 round = mrc_max_u64(srtt_ns, MIN_ROUND_NS);

	if (rtt_ns) {
		p->min_rtt_ns = min_nonzero(p->min_rtt_ns, rtt_ns);
		p->base_cur_ns = min_nonzero(p->base_cur_ns, rtt_ns);
		c->min_rtt_ns = min_nonzero(c->min_rtt_ns, rtt_ns);
		p->r_min_rtt_ns = min_nonzero(p->r_min_rtt_ns, rtt_ns);
	}
	marked = mrc_min_u32(marked, acked);

	p->r_acked += acked;
	p->r_marked += marked;
	if (acked > marked)
		grow(&p->cwnd, &p->ai_acc, p->ssthresh, acked - marked,
		     cfg->mss, cfg->max_cwnd);

	c->r_acked += acked;
	c->r_marked += marked;
	c->r_base_ns = min_nonzero(c->r_base_ns, base_rtt(p, cfg));
	c->active_paths |= path_bit;
	if (marked)
		c->marked_paths |= path_bit;
	/*
	 * Grow the connection window only while it is what limits us; with
	 * conn_ai_paths ([CC-5]) as fast as its paths' windows grow together.
	 * At one segment a round, a connection of 32 paths whose window a
	 * fabric's marks had cut from some 250 segments regrew it in some
	 * 100 rounds, long after its paths had regrown theirs.
	 */
	if (acked > marked && conn_inflight + 2 * cfg->mss >= c->cwnd / 2)
		grow(&c->cwnd, &c->ai_acc, c->ssthresh, acked - marked,
		     cfg->conn_ai_paths ?
		     cfg->mss * mrc_max_u32(c->grew_paths, 1) : cfg->mss,
		     cfg->conn_max_cwnd);

	if (now - p->round_start >= round) {
		/* a round on a standing queue: all it acknowledged is marked */
		if (standing_queue(p, cfg)) {
			c->r_marked += p->r_acked - p->r_marked;
			c->marked_paths |= path_bit;
			p->r_marked = p->r_acked;
		}
		path_round_end(p, cfg, now);
	}
	if (now - c->round_start >= round)
		conn_round_end(c, cfg, conn_inflight, now);
}

void mrc_cc_on_loss(struct mrc_cc_path *p, u32 lost)
{
	p->r_lost += lost;
}

/*
 * [CC-14] A loss that arrived late was none: out of this round's count, or,
 * counted in a round already ended, out of the average by the weight it
 * had in the last one (a round or two ago, as late ACKs come; older, it
 * weighed less, and the average only errs low, not below 0). A loss cut
 * the average made only with such losses is undone: steering ([PATH-6],
 * [PATH-10]) and the window read real losses only.
 */
void mrc_cc_on_late(struct mrc_cc_path *p, const struct mrc_cc_cfg *cfg,
		    u32 bytes)
{
	u32 in_round = mrc_min_u32(bytes, p->r_lost);

	p->r_lost -= in_round;
	bytes -= in_round;
	if (bytes && p->last_total) {
		u32 w = (u32)((u64)mrc_min_u32(bytes, p->last_total) * 1000 /
			      p->last_total / 8);

		p->loss_pm -= mrc_min_u32(w, p->loss_pm);
	}
	if (p->undo_cwnd && p->loss_pm <= cfg->loss_tol_pm) {
		p->cwnd = mrc_max_u32(p->cwnd, p->undo_cwnd);
		p->ssthresh = mrc_max_u32(p->ssthresh, p->undo_ssthresh);
		p->undo_cwnd = 0;
		p->undos_loss++;
	}
}

void mrc_cc_on_rto(struct mrc_cc_path *p, const struct mrc_cc_cfg *cfg)
{
	/*
	 * [CC-8] a timeout means the route may be gone: restart from the
	 * initial window and regrow in slow start, keeping ssthresh.
	 */
	p->cwnd = mrc_min_u32(p->cwnd, cfg->init_cwnd);
	p->ai_acc = 0;
	p->undo_cwnd = 0;
}

void mrc_cc_on_hint(struct mrc_cc_conn *c, u32 mbps)
{
	c->hint_bps = (u64)mbps * BYTES_PER_MBIT;
}

u32 mrc_cc_conn_window(const struct mrc_cc_conn *c, const struct mrc_cc_cfg *cfg)
{
	u32 cwnd = c->drain_cap ? mrc_min_u32(c->cwnd, c->drain_cap) : c->cwnd;
	u64 cap;

	if (!c->hint_bps || !c->min_rtt_ns)
		return cwnd;
	/*
	 * [CC-12] two hinted-rate BDPs at the base RTT, plus two segments:
	 * enough to keep the hinted rate through ACK coalescing and jitter,
	 * while N capped senders queue at most about one BDP at the receiver.
	 */
	cap = mrc_min_u64(c->hint_bps, 1ull << 44) / 1024 *
	      mrc_min_u64(c->min_rtt_ns, 1ull << 28) / (NSEC_PER_SEC_ / 1024);
	cap = 2 * cap + 2 * cfg->mss;
	return (u32)mrc_min_u64(cwnd, cap);
}

/*
 * [CC-13] A hole's resend joins the back of whatever queue the connection
 * built in the network, while verbs order holds every later message until
 * it arrives: if the network held the whole backlog (a deep posted window
 * and a loose delay target), the link runs dry before the resend arrives,
 * every time. With one BDP and 1/keep_home of the backlog above it in
 * flight (keep_home 2: (backlog + BDP) / 2), the queue in the network is
 * no longer than the one kept at home, which the resend jumps ([REL-8]),
 * so the link stays busy while the hole is repaired. The cap never falls
 * below one BDP at the delivered rate, nor below the initial window (a
 * larger keep_home still cost the bed's link bandwidth: its BDP estimate
 * is short of what the link needs in flight). The BDP's round trip
 * includes the time the receiver may hold an ACK ([REL-13]): that long,
 * too, the window waits for what the ACKs give back (with min_rtt alone a
 * software endpoint's 4 ms hold halved perftest's batches of 8 x 64 KiB).
 */
u32 mrc_cc_conn_home_cap(const struct mrc_cc_conn *c,
			 const struct mrc_cc_cfg *cfg, u64 backlog,
			 u64 ack_hold_ns, u32 keep)
{
	u64 bw = mrc_max_u64(c->rate, c->rate_prev), bdp, cap, k;
	u64 rtt = mrc_min_u64(c->min_rtt_ns + ack_hold_ns, 1ull << 24);

	if (keep < 2)
		return 0xffffffffu;
	/* at most 2^39 B/s times 2^24 ns: fits in u64, times 2^8 too */
	bdp = mrc_min_u64(bw, 1ull << 39) * rtt / NSEC_PER_SEC_;
	k = mrc_min_u64(keep, 256);
	cap = (mrc_min_u64(backlog, 1ull << 40) + (k - 1) * bdp) / k;
	cap = mrc_max_u64(cap, cfg->conn_init_cwnd);
	return (u32)mrc_min_u64(cap, 0xffffffffu);
}

void mrc_cc_share_init(struct mrc_cc_share *s, u64 capacity_bps, u64 epoch_ns,
		       u64 now)
{
	memset(s, 0, sizeof(*s));
	s->capacity_bps = capacity_bps;
	s->epoch_ns = epoch_ns ? epoch_ns : 1;
	s->epoch_start = now;
	s->epoch_id = 1;
}

static void share_roll(struct mrc_cc_share *s, u64 now)
{
	if (now - s->epoch_start < s->epoch_ns)
		return;
	/* an idle gap of a whole epoch forgets the previous count */
	s->prev = now - s->epoch_start < 2 * s->epoch_ns ? s->cur : 0;
	s->cur = 0;
	s->epoch_id++;
	s->epoch_start = now;
}

void mrc_cc_share_note(struct mrc_cc_share *s, u32 *seen, u64 now)
{
	share_roll(s, now);
	if (*seen != s->epoch_id) {
		*seen = s->epoch_id;
		s->cur++;
	}
}

u32 mrc_cc_share_hint(struct mrc_cc_share *s, u64 now)
{
	u32 n;
	u64 mbps;

	if (!s->capacity_bps)
		return 0;
	share_roll(s, now);
	/* [CC-10] capacity divided evenly among the senders active lately */
	n = mrc_max_u32(mrc_max_u32(s->cur, s->prev), 1);
	mbps = s->capacity_bps / n / BYTES_PER_MBIT;
	return (u32)mrc_min_u64(mrc_max_u64(mbps, 1), 0xffffffffu);
}
