// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: congestion control (core/cc.c) with a fake clock.
 *
 * A "round" here is one smoothed RTT (SRTT below): acks inside it only
 * accumulate, the ack that reaches its end applies the round's verdict.
 * The tests drive whole rounds and check the windows the rules promise:
 * growth without marks, a DCTCP-style cut with marks, tolerance of random
 * loss, the connection reacting only to shared congestion, and the
 * receiver's fair-share hint.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "../core/cc.h"

#define MSS	1000u
#define SRTT	100000ull	/* 100 us */
#define NOROUND	1000000000000ull	/* an SRTT no test reaches */

struct mrc_t_cc {
	struct mrc_cc_cfg cfg;
	struct mrc_cc_path p;
	struct mrc_cc_conn c;
	u64 now;
};

static struct mrc_t_cc *mrc_t_cc_new(struct kunit *test)
{
	struct mrc_t_cc *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	mrc_cc_cfg_default(&t->cfg, MSS);
	mrc_cc_path_init(&t->p, &t->cfg, 0);
	mrc_cc_conn_init(&t->c, &t->cfg, 0);
	return t;
}

/*
 * One round on one path: @n acks of one MSS each, @marked of them marked
 * and @lost MSS declared lost, the last ack landing on the round's end.
 */
static void mrc_t_round(struct mrc_t_cc *t, struct mrc_cc_path *p, u32 bit,
			u32 n, u32 marked, u32 lost)
{
	u64 start = t->now;
	u32 i;

	if (lost)
		mrc_cc_on_loss(p, lost * MSS);
	for (i = 0; i < n; i++) {
		t->now = i + 1 == n ? start + SRTT : start + i + 1;
		mrc_cc_on_ack(p, &t->c, &t->cfg, bit, t->now, MSS,
			      i < marked ? MSS : 0, 0, SRTT, t->c.cwnd);
	}
}

static void mrc_cc_initial_windows(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);

	KUNIT_EXPECT_EQ(test, t->p.cwnd, t->cfg.init_cwnd);
	KUNIT_EXPECT_GE(test, t->cfg.min_cwnd, t->cfg.mss);
	KUNIT_EXPECT_LE(test, t->cfg.min_cwnd, t->cfg.init_cwnd);
	KUNIT_EXPECT_LE(test, t->cfg.init_cwnd, t->cfg.max_cwnd);
	KUNIT_EXPECT_EQ(test, t->c.cwnd, t->cfg.conn_init_cwnd);
	KUNIT_EXPECT_EQ(test, t->p.alpha, MRC_CC_ONE);
	KUNIT_EXPECT_EQ(test, mrc_cc_path_room(&t->p, 0), t->p.cwnd);
	KUNIT_EXPECT_EQ(test, mrc_cc_path_room(&t->p, t->p.cwnd - 1), 1u);
	KUNIT_EXPECT_EQ(test, mrc_cc_path_room(&t->p, t->p.cwnd + 5), 0u);
}

static void mrc_cc_slow_start_doubles(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	u32 before = t->p.cwnd;

	/* A window's worth of clean acks doubles the window. */
	mrc_t_round(t, &t->p, 1, before / MSS, 0, 0);
	KUNIT_EXPECT_EQ(test, t->p.cwnd, 2 * before);
	KUNIT_EXPECT_FALSE(test, t->p.congested);
	KUNIT_EXPECT_EQ(test, t->p.decreases_ecn, 0ull);
}

static void mrc_cc_avoidance_adds_one_mss(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	u32 i, w;

	t->p.ssthresh = t->p.cwnd;	/* out of slow start */
	w = t->p.cwnd;
	for (i = 0; i < w / MSS - 1; i++)
		mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, 1, MSS, 0, 0, NOROUND,
			      0);
	KUNIT_EXPECT_EQ(test, t->p.cwnd, w);
	mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, 1, MSS, 0, 0, NOROUND, 0);
	KUNIT_EXPECT_EQ(test, t->p.cwnd, w + MSS);
}

static void mrc_cc_window_capped(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	int r;

	for (r = 0; r < 40; r++)
		mrc_t_round(t, &t->p, 1, 64, 0, 0);
	KUNIT_EXPECT_EQ(test, t->p.cwnd, t->cfg.max_cwnd);
	KUNIT_EXPECT_LE(test, t->c.cwnd, t->cfg.conn_max_cwnd);
}

static void mrc_cc_ecn_round_halves(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	u32 before = t->p.cwnd;

	/* alpha starts at 1: a fully marked first round halves, no growth. */
	mrc_t_round(t, &t->p, 1, 4, 4, 0);
	KUNIT_EXPECT_EQ(test, t->p.cwnd, before / 2);
	KUNIT_EXPECT_EQ(test, t->p.ssthresh, before / 2);
	KUNIT_EXPECT_TRUE(test, t->p.congested);
	KUNIT_EXPECT_EQ(test, t->p.decreases_ecn, 1ull);

	/* Marks inside a round do nothing until the round ends. */
	before = t->p.cwnd;
	mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, t->now + 1, MSS, MSS, 0, SRTT,
		      0);
	KUNIT_EXPECT_EQ(test, t->p.cwnd, before);
}

static void mrc_cc_ecn_cut_follows_alpha(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	u32 alpha0, before;
	int r;

	mrc_t_round(t, &t->p, 1, 4, 4, 0);
	alpha0 = t->p.alpha;
	/* Clean rounds decay alpha... */
	for (r = 0; r < 10; r++)
		mrc_t_round(t, &t->p, 1, 4, 0, 0);
	KUNIT_EXPECT_LT(test, t->p.alpha, alpha0 / 2 + alpha0 / 8);
	KUNIT_EXPECT_GT(test, t->p.alpha, 0u);
	KUNIT_EXPECT_FALSE(test, t->p.congested);
	/* ...so a light mark (1 of 16) cuts far less than half. */
	before = t->p.cwnd;
	mrc_t_round(t, &t->p, 1, 16, 1, 0);
	KUNIT_EXPECT_LT(test, t->p.cwnd, before);
	KUNIT_EXPECT_GT(test, t->p.cwnd, before * 3 / 4);
	KUNIT_EXPECT_EQ(test, t->p.decreases_ecn, 2ull);
}

static void mrc_cc_never_below_min(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	int r;

	for (r = 0; r < 50; r++)
		mrc_t_round(t, &t->p, 1, 2, 2, 0);
	KUNIT_EXPECT_EQ(test, t->p.cwnd, t->cfg.min_cwnd);
	KUNIT_EXPECT_EQ(test, t->p.decreases_ecn, 50ull);
}

/* 10% random loss must not shrink the window; lasting 50% loss must. */
static void mrc_cc_random_loss_tolerated(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	struct mrc_cc_path clean;
	int r;

	mrc_cc_path_init(&clean, &t->cfg, 0);
	for (r = 0; r < 30; r++) {
		u64 start = t->now;

		mrc_t_round(t, &t->p, 1, 9, 0, 1);
		t->now = start;
		mrc_t_round(t, &clean, 2, 9, 0, 0);
	}
	KUNIT_EXPECT_EQ(test, t->p.decreases_loss, 0ull);
	KUNIT_EXPECT_EQ(test, t->p.cwnd, clean.cwnd);
	KUNIT_EXPECT_LE(test, t->p.loss_pm, t->cfg.loss_tol_pm);
	KUNIT_EXPECT_GT(test, t->p.loss_pm, 50u);
}

static void mrc_cc_heavy_loss_trims(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	struct mrc_cc_path clean;
	int r;

	mrc_cc_path_init(&clean, &t->cfg, 0);
	for (r = 0; r < 30; r++) {
		u64 start = t->now;

		mrc_t_round(t, &t->p, 1, 4, 0, 4);
		t->now = start;
		mrc_t_round(t, &clean, 2, 4, 0, 0);
	}
	KUNIT_EXPECT_GT(test, t->p.decreases_loss, 0ull);
	KUNIT_EXPECT_GT(test, t->p.loss_pm, t->cfg.loss_tol_pm);
	KUNIT_EXPECT_LT(test, t->p.cwnd, clean.cwnd);
	KUNIT_EXPECT_GE(test, t->p.cwnd, t->cfg.min_cwnd);
}

static void mrc_cc_rto_restarts_window(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	u32 ssthresh;

	mrc_t_round(t, &t->p, 1, 64, 0, 0);
	KUNIT_ASSERT_GT(test, t->p.cwnd, t->cfg.init_cwnd);
	ssthresh = t->p.ssthresh;
	mrc_cc_on_rto(&t->p, &t->cfg);
	KUNIT_EXPECT_EQ(test, t->p.cwnd, t->cfg.init_cwnd);
	KUNIT_EXPECT_EQ(test, t->p.ssthresh, ssthresh);
	KUNIT_EXPECT_EQ(test, t->p.ai_acc, 0u);

	/* Below the initial window already: a timeout does not raise it. */
	t->p.cwnd = t->cfg.min_cwnd;
	mrc_cc_on_rto(&t->p, &t->cfg);
	KUNIT_EXPECT_EQ(test, t->p.cwnd, t->cfg.min_cwnd);
}

/*
 * [CC-6] a round whose least RTT sample sits above the limit stood on a
 * queue: all it acknowledged counts as marked, on the path and for the
 * connection. One sample at the limit makes a round clean, however high
 * the others.
 */
static void mrc_cc_standing_delay_counts_as_marks(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	u64 base = 100000, limit, conn_cuts;
	u32 i;

	mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, 1, MSS, 0, base, NOROUND, 0);
	KUNIT_EXPECT_EQ(test, t->p.min_rtt_ns, base);
	KUNIT_EXPECT_EQ(test, t->c.min_rtt_ns, base);
	limit = base + max(base, t->cfg.delay_target_ns);

	/* marks are only the ECN ones until the round ends */
	mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, 2, MSS, 0, 50 * limit,
		      NOROUND, 0);
	KUNIT_EXPECT_EQ(test, t->p.r_marked, 0u);
	/* Marks beyond what was acked are clamped. */
	mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, 3, MSS, 5 * MSS, 0, NOROUND,
		      0);
	KUNIT_EXPECT_EQ(test, t->p.r_marked, MSS);

	/* a round with one sample at the limit: jitter, no cut */
	t->now = SRTT;
	t->p.round_start = t->now;
	t->p.r_min_rtt_ns = 0;
	t->p.r_marked = 0;
	t->c.r_marked = 0;
	t->p.ssthresh = t->p.cwnd;	/* congestion avoidance */
	for (i = 0; i < 8; i++)
		mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, ++t->now, MSS, 0,
			      i == 3 ? limit : 10 * limit, SRTT, 0);
	t->now += SRTT;
	mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, t->now, MSS, 0, 10 * limit,
		      SRTT, 0);
	KUNIT_EXPECT_EQ(test, t->p.decreases_ecn, 0ull);
	KUNIT_EXPECT_FALSE(test, t->p.congested);

	/* a round with every sample one above: a standing queue, a cut */
	conn_cuts = t->c.decreases;
	for (i = 0; i < 8; i++)
		mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, ++t->now, MSS, 0,
			      limit + 1 + i, SRTT, 0);
	KUNIT_EXPECT_EQ(test, t->p.r_marked, 0u);
	t->now += SRTT;
	mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, t->now, MSS, 0, limit + 1,
		      SRTT, 0);
	KUNIT_EXPECT_EQ(test, t->p.decreases_ecn, 1ull);
	KUNIT_EXPECT_TRUE(test, t->p.congested);
	/* the connection's round ended with it: its one path was marked */
	KUNIT_EXPECT_EQ(test, t->c.decreases, conn_cuts + 1);
}

/* Four paths, congestion on one: the connection window stays. */
static void mrc_cc_conn_ignores_one_hot_path(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	struct mrc_cc_path *p = kunit_kcalloc(test, 4, sizeof(*p), GFP_KERNEL);
	u32 before, i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	for (i = 0; i < 4; i++)
		mrc_cc_path_init(&p[i], &t->cfg, 0);
	before = t->c.cwnd;
	/* Paths 1..3 clean, then path 0 marked on the round's last ack. */
	for (i = 1; i < 4; i++)
		mrc_cc_on_ack(&p[i], &t->c, &t->cfg, 1u << i, i, MSS, 0, 0,
			      SRTT, before);
	mrc_cc_on_ack(&p[0], &t->c, &t->cfg, 1, SRTT, MSS, MSS, 0, SRTT,
		      before);
	KUNIT_EXPECT_EQ(test, t->c.decreases, 0ull);
	KUNIT_EXPECT_GE(test, t->c.cwnd, before);
	/* and the round's bookkeeping starts over */
	KUNIT_EXPECT_EQ(test, t->c.marked_paths, 0u);
	KUNIT_EXPECT_EQ(test, t->c.active_paths, 0u);
}

/* Marks on half the paths are shared congestion: the connection cuts. */
static void mrc_cc_conn_cuts_on_shared_marks(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	struct mrc_cc_path *p = kunit_kcalloc(test, 4, sizeof(*p), GFP_KERNEL);
	u32 before, i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	for (i = 0; i < 4; i++)
		mrc_cc_path_init(&p[i], &t->cfg, 0);
	before = t->c.cwnd;
	for (i = 0; i < 4; i++)
		mrc_cc_on_ack(&p[i], &t->c, &t->cfg, 1u << i,
			      i == 3 ? SRTT : i + 1, MSS, i < 2 ? MSS : 0, 0,
			      SRTT, before);
	KUNIT_EXPECT_EQ(test, t->c.decreases, 1ull);
	KUNIT_EXPECT_LT(test, t->c.cwnd, before);
	KUNIT_EXPECT_GE(test, t->c.cwnd, before / 2);
}

static void mrc_cc_rate_hint_caps_window(struct kunit *test)
{
	struct mrc_t_cc *t = mrc_t_cc_new(test);
	u32 w, bdp;

	/* No hint or no RTT yet: the window is the connection's own. */
	KUNIT_EXPECT_EQ(test, mrc_cc_conn_window(&t->c, &t->cfg), t->c.cwnd);
	mrc_cc_on_hint(&t->c, 1000);		/* 1 Gbit/s */
	KUNIT_EXPECT_EQ(test, t->c.hint_bps, 125000000ull);
	KUNIT_EXPECT_EQ(test, mrc_cc_conn_window(&t->c, &t->cfg), t->c.cwnd);

	mrc_cc_on_ack(&t->p, &t->c, &t->cfg, 1, 1, MSS, 0, 100000, NOROUND, 0);
	/* a connection window far above what the hint allows */
	t->c.cwnd = t->cfg.conn_max_cwnd;
	KUNIT_ASSERT_GT(test, t->c.cwnd, 100000u);
	/*
	 * 1 Gbit/s for 100 us is a BDP of 12500 bytes: the window is capped
	 * to a small multiple of it (two, plus slack, today), far below cwnd.
	 */
	bdp = 12500;
	w = mrc_cc_conn_window(&t->c, &t->cfg);
	KUNIT_EXPECT_GE(test, w, bdp);
	KUNIT_EXPECT_LE(test, w, 3 * bdp + 2 * MSS);
	KUNIT_EXPECT_LT(test, w, t->c.cwnd);

	/* A generous hint never raises the window above cwnd. */
	mrc_cc_on_hint(&t->c, 400000);
	KUNIT_EXPECT_EQ(test, mrc_cc_conn_window(&t->c, &t->cfg), t->c.cwnd);
	mrc_cc_on_hint(&t->c, 0);
	KUNIT_EXPECT_EQ(test, mrc_cc_conn_window(&t->c, &t->cfg), t->c.cwnd);
}

static void mrc_cc_share_divides_capacity(struct kunit *test)
{
	struct mrc_cc_share s;
	u32 seen[4] = { 0 };
	const u64 ms = 1000000;
	int i;

	mrc_cc_share_init(&s, 12500000000ull, ms, 0);	/* 100 Gbit/s */
	KUNIT_EXPECT_EQ(test, mrc_cc_share_hint(&s, 0), 100000u);
	for (i = 0; i < 4; i++) {
		mrc_cc_share_note(&s, &seen[i], 10);
		mrc_cc_share_note(&s, &seen[i], 20);	/* counted once */
	}
	KUNIT_EXPECT_EQ(test, mrc_cc_share_hint(&s, 30), 25000u);

	/* Next epoch: the previous count still holds while senders return. */
	mrc_cc_share_note(&s, &seen[0], ms + ms / 2);
	KUNIT_EXPECT_EQ(test, mrc_cc_share_hint(&s, ms + ms / 2), 25000u);

	/* Two idle epochs later only the senders seen lately count. */
	KUNIT_EXPECT_EQ(test, mrc_cc_share_hint(&s, 4 * ms), 100000u);

	mrc_cc_share_init(&s, 0, ms, 0);
	KUNIT_EXPECT_EQ(test, mrc_cc_share_hint(&s, 0), 0u);
	/* a tiny capacity still hints 1 Mbit/s rather than "no hint" */
	mrc_cc_share_init(&s, 1000, ms, 0);
	KUNIT_EXPECT_EQ(test, mrc_cc_share_hint(&s, 0), 1u);
}

static struct kunit_case mrc_cc_cases[] = {
	KUNIT_CASE(mrc_cc_initial_windows),
	KUNIT_CASE(mrc_cc_slow_start_doubles),
	KUNIT_CASE(mrc_cc_avoidance_adds_one_mss),
	KUNIT_CASE(mrc_cc_window_capped),
	KUNIT_CASE(mrc_cc_ecn_round_halves),
	KUNIT_CASE(mrc_cc_ecn_cut_follows_alpha),
	KUNIT_CASE(mrc_cc_never_below_min),
	KUNIT_CASE(mrc_cc_random_loss_tolerated),
	KUNIT_CASE(mrc_cc_heavy_loss_trims),
	KUNIT_CASE(mrc_cc_rto_restarts_window),
	KUNIT_CASE(mrc_cc_standing_delay_counts_as_marks),
	KUNIT_CASE(mrc_cc_conn_ignores_one_hot_path),
	KUNIT_CASE(mrc_cc_conn_cuts_on_shared_marks),
	KUNIT_CASE(mrc_cc_rate_hint_caps_window),
	KUNIT_CASE(mrc_cc_share_divides_capacity),
	{}
};

static struct kunit_suite mrc_cc_suite = {
	.name = "metaroce_cc",
	.test_cases = mrc_cc_cases,
};

kunit_test_suite(mrc_cc_suite);
