// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: two connection cores (core/conn.c with path, sched and cc under
 * it) wired back to back in the kernel build, with a fake clock.
 *
 * The userspace property tests drive the same code for millions of
 * packets; here it runs with the kernel's compiler flags and KASAN, over
 * several streams and paths, with random loss and with one path's route
 * turned into a silent blackhole. Every message must be placed exactly
 * once and complete, in order per stream, on both sides.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "../core/conn.h"

#define MRC_T_MSGS	120
#define MRC_T_MSS	1024
#define MRC_T_MAXSEG	8	/* segments per message at most */
#define MRC_T_TICK	10000ull	/* 10 us */

struct mrc_t_pair {
	struct mrc_conn *a;	/* sender */
	struct mrc_conn *b;	/* receiver */
	struct mrc_cc_share share;
	struct rnd_state rnd;
	u32 loss_pct;		/* data packets lost at random */
	u16 dead_sport;		/* a route that swallows everything; 0: none */
	u32 msn0;
	u8 placed[MRC_T_MSGS][MRC_T_MAXSEG];
	u32 len[MRC_T_MSGS];
	u64 last_cookie[MRC_MAX_STREAMS];
	u32 last_ssn[MRC_MAX_STREAMS];
	bool rx_seen[MRC_MAX_STREAMS];
	u32 tx_done, rx_done;
	u64 now;
};

static void mrc_t_free_conn(void *p)
{
	kvfree(p);
}

/* a connection with a send ring for every path id it may open */
struct mrc_t_conn {
	struct mrc_conn c;
	struct mrc_path_ring rings[MRC_MAX_PATHS];
};

static struct mrc_conn *mrc_t_conn(struct kunit *test,
				   const struct mrc_conn_cfg *cfg)
{
	struct mrc_t_conn *t = kvzalloc(sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	KUNIT_ASSERT_TRUE(test, mrc_conn_init(&t->c, cfg, t->rings,
					      MRC_MAX_PATHS, 0));
	return &t->c;
}

static struct mrc_t_pair *mrc_t_pair_new(struct kunit *test, u32 npaths,
					 u32 nstreams, u32 seed)
{
	struct mrc_t_pair *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct mrc_conn_cfg cfg;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	mrc_conn_cfg_default(&cfg, npaths, MRC_T_MSS);
	cfg.nstreams = nstreams;
	cfg.tx_isn = 1000;
	cfg.rx_isn = 9000;
	cfg.tx_msn = 77;
	cfg.rx_msn = 5;
	cfg.seed = seed;
	t->a = mrc_t_conn(test, &cfg);
	cfg.tx_isn = 9000;
	cfg.rx_isn = 1000;
	cfg.tx_msn = 5;
	cfg.rx_msn = 77;
	cfg.seed = seed + 1;
	t->b = mrc_t_conn(test, &cfg);
	mrc_cc_share_init(&t->share, 1250000000ull, 1000000, 0);
	prandom_seed_state(&t->rnd, seed);
	t->msn0 = 77;
	return t;
}

static void mrc_t_pair_free(struct mrc_t_pair *t)
{
	mrc_t_free_conn(t->a);
	mrc_t_free_conn(t->b);
}

/* What B's receive path makes of a segment A sent. */
static void mrc_t_rx_of(const struct mrc_tx_seg *s, struct mrc_rx_seg *r)
{
	*r = (struct mrc_rx_seg) {
		.psn = s->psn, .msn = s->msn, .ssn = s->ssn,
		.tsval = s->tsval, .offset = s->offset, .len = s->len,
		.total_len = s->total_len, .stream = s->stream,
		.flags = s->flags, .path_id = s->path_id,
	};
}

/* Carry one data segment to B, or lose it. */
static void mrc_t_deliver(struct kunit *test, struct mrc_t_pair *t,
			  const struct mrc_tx_seg *s)
{
	struct mrc_rx_seg r;
	u32 m = s->msn - t->msn0, seg = s->offset / MRC_T_MSS;
	enum mrc_rx_verdict v;

	if (t->dead_sport && s->sport == t->dead_sport)
		return;
	if (prandom_u32_state(&t->rnd) % 100 < t->loss_pct)
		return;
	mrc_t_rx_of(s, &r);
	v = mrc_conn_rx_data(t->b, t->now, &r, &t->share);
	KUNIT_ASSERT_NE(test, v, MRC_RX_INVALID);
	if (v != MRC_RX_NEW)
		return;
	KUNIT_ASSERT_LT(test, m, (u32)MRC_T_MSGS);
	KUNIT_ASSERT_LT(test, seg, (u32)MRC_T_MAXSEG);
	/* exactly-once placement: a second NEW for a segment is a bug */
	KUNIT_ASSERT_EQ_MSG(test, t->placed[m][seg], 0, "msg %u seg %u", m, seg);
	t->placed[m][seg] = 1;
}

static void mrc_t_completions(struct kunit *test, struct mrc_t_pair *t)
{
	struct mrc_completion d;

	while (mrc_conn_tx_poll(t->a, &d)) {
		KUNIT_ASSERT_EQ(test, d.status, (u8)MRC_CONN_OK);
		/* per stream in posting order: cookies were posted rising */
		KUNIT_ASSERT_GT(test, d.cookie + 1, t->last_cookie[d.stream]);
		t->last_cookie[d.stream] = d.cookie + 1;
		t->tx_done++;
	}
	while (mrc_conn_rx_poll(t->b, &d)) {
		KUNIT_ASSERT_EQ(test, d.status, (u8)MRC_CONN_OK);
		if (t->rx_seen[d.stream])
			KUNIT_ASSERT_EQ(test, d.ssn, t->last_ssn[d.stream] + 1);
		t->rx_seen[d.stream] = true;
		t->last_ssn[d.stream] = d.ssn;
		KUNIT_ASSERT_EQ(test, d.len, t->len[d.msn - t->msn0]);
		t->rx_done++;
	}
}

/* Post every message, then run the clock until both sides completed all. */
static void mrc_t_run(struct kunit *test, struct mrc_t_pair *t, u32 nstreams)
{
	struct mrc_ack_info ack;
	struct mrc_tx_seg seg;
	u32 posted = 0, ticks, m, s;

	for (ticks = 0; t->tx_done < MRC_T_MSGS || t->rx_done < MRC_T_MSGS;
	     ticks++) {
		KUNIT_ASSERT_LT_MSG(test, ticks, 3000000u,
				    "stuck: %u sent, %u received", t->tx_done,
				    t->rx_done);
		t->now += MRC_T_TICK;
		while (posted < MRC_T_MSGS) {
			u32 len = (posted * 977) % (MRC_T_MAXSEG * MRC_T_MSS);
			u32 msn;

			if (!mrc_conn_tx_post(t->a, posted % nstreams, len,
					      posted, &msn))
				break;
			KUNIT_ASSERT_EQ(test, msn, t->msn0 + posted);
			t->len[posted++] = len;
		}
		while (mrc_conn_tx_next(t->a, t->now, &seg))
			mrc_t_deliver(test, t, &seg);
		while (mrc_conn_ack_next(t->b, t->now, &t->share, &ack))
			mrc_conn_on_ack(t->a, t->now, &ack);
		if (mrc_conn_deadline(t->a) <= t->now)
			mrc_conn_on_timer(t->a, t->now);
		if (mrc_conn_deadline(t->b) <= t->now)
			mrc_conn_on_timer(t->b, t->now);
		mrc_t_completions(test, t);
		KUNIT_ASSERT_EQ(test, t->a->error, (u8)MRC_CONN_OK);
	}
	/* every byte of every message was placed, once */
	for (m = 0; m < MRC_T_MSGS; m++)
		for (s = 0; s < DIV_ROUND_UP(t->len[m], MRC_T_MSS); s++)
			KUNIT_ASSERT_EQ_MSG(test, t->placed[m][s], 1,
					    "msg %u seg %u", m, s);
	KUNIT_EXPECT_EQ(test, mrc_conn_inflight(t->a), 0u);
}

static void mrc_conn_lossless_streams(struct kunit *test)
{
	struct mrc_t_pair *t = mrc_t_pair_new(test, 4, 3, 11);

	mrc_t_run(test, t, 3);
	KUNIT_EXPECT_EQ(test, t->a->stats.tx_resends, 0ull);
	mrc_t_pair_free(t);
}

static void mrc_conn_random_loss(struct kunit *test)
{
	struct mrc_t_pair *t = mrc_t_pair_new(test, 4, 2, 12);

	t->loss_pct = 10;
	mrc_t_run(test, t, 2);
	KUNIT_EXPECT_GT(test, t->a->stats.tx_resends, 0ull);
	mrc_t_pair_free(t);
}

/* One route of four swallows everything: the other paths carry it all. */
static void mrc_conn_dead_path_of_four(struct kunit *test)
{
	struct mrc_t_pair *t = mrc_t_pair_new(test, 4, 2, 13);

	t->dead_sport = t->a->path[0].sport;
	KUNIT_ASSERT_NE(test, t->dead_sport, (u16)0);
	mrc_t_run(test, t, 2);
	mrc_t_pair_free(t);
}

/*
 * The only path's route dies: after its timeouts the path fails, rests,
 * comes back on a new source port (a new ECMP route) and finishes the job
 * before any segment runs out of retries.
 */
static void mrc_conn_dead_route_gets_new_port(struct kunit *test)
{
	struct mrc_t_pair *t = mrc_t_pair_new(test, 1, 1, 14);
	u16 before = t->a->path[0].sport;

	KUNIT_ASSERT_NE(test, before, (u16)0);
	t->dead_sport = before;
	mrc_t_run(test, t, 1);
	KUNIT_EXPECT_GE(test, t->a->path[0].reentropies, 1ull);
	KUNIT_EXPECT_NE(test, t->a->path[0].sport, before);
	KUNIT_EXPECT_GE(test, t->a->path[0].sport, (u16)MRC_WIRE_SPORT_MIN);
	mrc_t_pair_free(t);
}

/* ---- receiver telemetry (the mrc_path_rx tracepoint's counters) ---- */

/*
 * A pair over one path where A posted one message of @len bytes: its
 * first @n segments, as B gets them, are in @r.
 */
static struct mrc_t_pair *mrc_t_one_msg(struct kunit *test, u32 seed,
					u32 len, struct mrc_rx_seg *r, u32 n)
{
	struct mrc_t_pair *t = mrc_t_pair_new(test, 1, 1, seed);
	struct mrc_tx_seg s;
	u32 i;

	KUNIT_ASSERT_TRUE(test, mrc_conn_tx_post(t->a, 0, len, 1, NULL));
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_TRUE(test, mrc_conn_tx_next(t->a, t->now, &s));
		KUNIT_ASSERT_EQ(test, s.offset, i * MRC_T_MSS);
		mrc_t_rx_of(&s, &r[i]);
	}
	return t;
}

static enum mrc_rx_verdict mrc_t_rx(struct mrc_t_pair *t,
				    const struct mrc_rx_seg *r)
{
	return mrc_conn_rx_data(t->b, t->now, r, &t->share);
}

/*
 * The path counts each new PSN's payload and each duplicate's, and of the
 * new bytes those placed the first time: a resend of placed data under a
 * new PSN is new, not placed. A message of 2500 bytes arrives 0, 0 again,
 * 2, 1 (late), then 1 resent.
 */
static void mrc_conn_rx_counts_bytes(struct kunit *test)
{
	struct mrc_rx_seg r[3], resend;
	struct mrc_t_pair *t = mrc_t_one_msg(test, 15, 2500, r, 3);
	const struct mrc_path_rx *rx = &t->b->path[0].rx;
	struct mrc_completion d;

	KUNIT_ASSERT_EQ(test, r[2].len, 452u);
	KUNIT_EXPECT_EQ(test, mrc_t_rx(t, &r[0]), MRC_RX_NEW);
	KUNIT_EXPECT_EQ(test, mrc_t_rx(t, &r[0]), MRC_RX_DUP);
	KUNIT_EXPECT_EQ(test, rx->rx_new, 1ull);
	KUNIT_EXPECT_EQ(test, rx->new_bytes, 1024ull);
	KUNIT_EXPECT_EQ(test, rx->placed_bytes, 1024ull);
	KUNIT_EXPECT_EQ(test, rx->rx_dup, 1ull);
	KUNIT_EXPECT_EQ(test, rx->dup_bytes, 1024ull);

	KUNIT_EXPECT_EQ(test, mrc_t_rx(t, &r[2]), MRC_RX_NEW);
	KUNIT_EXPECT_EQ(test, rx->rx_skipped, 1ull);
	KUNIT_EXPECT_EQ(test, mrc_t_rx(t, &r[1]), MRC_RX_NEW);
	KUNIT_EXPECT_EQ(test, rx->rx_late, 1ull);
	KUNIT_EXPECT_EQ(test, rx->rx_new, 3ull);
	KUNIT_EXPECT_EQ(test, rx->new_bytes, 2500ull);
	KUNIT_EXPECT_EQ(test, rx->placed_bytes, 2500ull);

	resend = r[1];
	resend.psn = r[2].psn + 1;
	KUNIT_EXPECT_EQ(test, mrc_t_rx(t, &resend), MRC_RX_DUP);
	KUNIT_EXPECT_EQ(test, rx->rx_new, 4ull);
	KUNIT_EXPECT_EQ(test, rx->new_bytes, 2500ull + 1024);
	KUNIT_EXPECT_EQ(test, rx->placed_bytes, 2500ull);
	KUNIT_EXPECT_EQ(test, rx->rx_dup, 1ull);
	KUNIT_EXPECT_EQ(test, rx->dup_bytes, 1024ull);
	KUNIT_EXPECT_EQ(test, rx->rx_skipped, 1ull);
	KUNIT_EXPECT_EQ(test, rx->rx_oow, 0ull);
	KUNIT_ASSERT_TRUE(test, mrc_conn_rx_poll(t->b, &d));
	KUNIT_EXPECT_EQ(test, d.len, 2500u);
	mrc_t_pair_free(t);
}

/*
 * A PSN too far ahead of the window is refused: it counts as rx_oow (and
 * a connection drop) and moves nothing else, so the segment it carried is
 * still new when it comes with its own PSN.
 */
static void mrc_conn_rx_oow_counts_alone(struct kunit *test)
{
	struct mrc_rx_seg r[2], far;
	struct mrc_t_pair *t = mrc_t_one_msg(test, 16, 2048, r, 2);
	const struct mrc_path_rx *rx = &t->b->path[0].rx;
	struct mrc_conn_stats stats;
	struct mrc_path_rx was;

	KUNIT_EXPECT_EQ(test, mrc_t_rx(t, &r[0]), MRC_RX_NEW);
	far = r[1];
	far.psn = rx->cum + MRC_PATH_MAX_JUMP;
	far.ce = true;
	memcpy(&was, rx, sizeof(was));
	memcpy(&stats, &t->b->stats, sizeof(stats));
	KUNIT_EXPECT_EQ(test, mrc_t_rx(t, &far), MRC_RX_DROP);
	KUNIT_EXPECT_EQ(test, rx->rx_oow, 1ull);
	was.rx_oow++;
	KUNIT_EXPECT_EQ(test, memcmp(rx, &was, sizeof(was)), 0);
	stats.rx_drop++;
	KUNIT_EXPECT_EQ(test, memcmp(&t->b->stats, &stats, sizeof(stats)), 0);

	KUNIT_EXPECT_EQ(test, mrc_t_rx(t, &r[1]), MRC_RX_NEW);
	KUNIT_EXPECT_EQ(test, rx->placed_bytes, 2048ull);
	KUNIT_EXPECT_EQ(test, rx->rx_skipped, 0ull);
	KUNIT_EXPECT_EQ(test, rx->ce_count, 0u);
	KUNIT_EXPECT_EQ(test, rx->rx_oow, 1ull);
	mrc_t_pair_free(t);
}

/*
 * [REL-21] Once the endpoint is gone, what the path still takes is counted
 * the same way: a repeated PSN as a duplicate, a resend of placed data
 * under a new PSN as new bytes, and nothing more as placed.
 */
static void mrc_conn_rx_linger_counts_bytes(struct kunit *test)
{
	struct mrc_rx_seg r[2], resend;
	struct mrc_t_pair *t = mrc_t_one_msg(test, 17, 1500, r, 2);
	const struct mrc_path_rx *rx = &t->b->path[0].rx;
	struct mrc_completion d;

	KUNIT_EXPECT_EQ(test, mrc_t_rx(t, &r[0]), MRC_RX_NEW);
	KUNIT_EXPECT_EQ(test, mrc_t_rx(t, &r[1]), MRC_RX_NEW);
	KUNIT_ASSERT_TRUE(test, mrc_conn_rx_poll(t->b, &d));
	KUNIT_EXPECT_EQ(test, rx->placed_bytes, 1500ull);

	KUNIT_EXPECT_EQ(test, mrc_conn_rx_linger(t->b, t->now, &r[1]),
			MRC_RX_DUP);
	KUNIT_EXPECT_EQ(test, rx->rx_dup, 1ull);
	KUNIT_EXPECT_EQ(test, rx->dup_bytes, 476ull);
	resend = r[0];
	resend.psn = r[1].psn + 1;
	KUNIT_EXPECT_EQ(test, mrc_conn_rx_linger(t->b, t->now, &resend),
			MRC_RX_DUP);
	KUNIT_EXPECT_EQ(test, rx->rx_new, 3ull);
	KUNIT_EXPECT_EQ(test, rx->new_bytes, 1500ull + 1024);
	KUNIT_EXPECT_EQ(test, rx->placed_bytes, 1500ull);
	KUNIT_EXPECT_EQ(test, rx->dup_bytes, 476ull);
	mrc_t_pair_free(t);
}

static struct kunit_case mrc_conn_cases[] = {
	KUNIT_CASE(mrc_conn_lossless_streams),
	KUNIT_CASE(mrc_conn_random_loss),
	KUNIT_CASE(mrc_conn_dead_path_of_four),
	KUNIT_CASE(mrc_conn_dead_route_gets_new_port),
	KUNIT_CASE(mrc_conn_rx_counts_bytes),
	KUNIT_CASE(mrc_conn_rx_oow_counts_alone),
	KUNIT_CASE(mrc_conn_rx_linger_counts_bytes),
	{}
};

static struct kunit_suite mrc_conn_suite = {
	.name = "metaroce_conn",
	.test_cases = mrc_conn_cases,
};

kunit_test_suite(mrc_conn_suite);
