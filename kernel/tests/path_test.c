// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: one path's sequence state (core/path.c) with a fake clock.
 *
 * Time is a plain u64 the test advances; nothing sleeps. The sender and
 * receiver halves are exercised alone (exact bitmaps, exact events) and
 * together through a lossy in-memory channel, where every cookie must be
 * delivered and acknowledged exactly once.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "../core/path.h"
#include "../trace.h"

#define MS	1000000ull
#define US	1000ull

struct mrc_t_path {
	struct mrc_path_cfg cfg;
	struct mrc_path_tx tx;
	struct mrc_path_ring ring;
	struct mrc_path_rx rx;
	struct mrc_path_events ev;
	u32 acked[MRC_PATH_WND];
	u32 lost[MRC_PATH_WND];
};

static struct mrc_t_path *mrc_t_path_new(struct kunit *test, u32 isn)
{
	struct mrc_t_path *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	mrc_path_cfg_default(&t->cfg);
	mrc_path_tx_init(&t->tx, &t->cfg, isn, &t->ring);
	mrc_path_rx_init(&t->rx, isn);
	t->ev.acked = t->acked;
	t->ev.lost = t->lost;
	return t;
}

/* A SACK that says: everything before @cum, plus the listed offsets. */
static void mrc_t_sack(struct mrc_sack *s, u32 cum, const u32 *above, int n)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->cum = cum;
	for (i = 0; i < n; i++)
		s->bits[above[i] / 64] |= 1ull << (above[i] % 64);
}

/* ---- receiver half ---- */

static void mrc_path_rx_in_order_advances(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 100);
	u32 psn;

	for (psn = 100; psn < 110; psn++) {
		KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, psn),
				MRC_RX_PSN_NEW);
		mrc_path_rx_accept(&t->rx, 0, psn, false, psn, false);
	}
	KUNIT_EXPECT_EQ(test, t->rx.cum, 110u);
	KUNIT_EXPECT_EQ(test, t->rx.next, 110u);
	KUNIT_EXPECT_EQ(test, t->rx.bits[0], 0ull);
	KUNIT_EXPECT_EQ(test, t->rx.rx_new, 10ull);
	KUNIT_EXPECT_FALSE(test, t->rx.ack_now);
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 109), MRC_RX_PSN_DUP);
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 110), MRC_RX_PSN_NEW);
}

static void mrc_path_rx_holes_fill_bitmap(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);

	mrc_path_rx_accept(&t->rx, 0, 2, false, 0, false);
	mrc_path_rx_accept(&t->rx, 0, 65, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.cum, 0u);
	/* bit i stands for PSN cum + 1 + i */
	KUNIT_EXPECT_EQ(test, t->rx.bits[0], 1ull << 1);
	KUNIT_EXPECT_EQ(test, t->rx.bits[1], 1ull << 0);
	KUNIT_EXPECT_TRUE(test, t->rx.ack_now);
	KUNIT_EXPECT_EQ(test, t->rx.next, 66u);

	mrc_path_rx_accept(&t->rx, 0, 0, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.cum, 1u);
	/* PSN 2 is now bit 0, PSN 65 moved down into the first word */
	KUNIT_EXPECT_EQ(test, t->rx.bits[0], 1ull << 0 | 1ull << 63);
	KUNIT_EXPECT_EQ(test, t->rx.bits[1], 0ull);
	mrc_path_rx_accept(&t->rx, 0, 1, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.cum, 3u);
	/* PSN 65 is now bit 65 - 3 - 1 */
	KUNIT_EXPECT_EQ(test, t->rx.bits[0], 1ull << 61);
	KUNIT_EXPECT_EQ(test, t->rx.bits[1], 0ull);
}

static void mrc_path_rx_detects_duplicates(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0xfffffffe);

	/* Across the 2^32 wrap. */
	mrc_path_rx_accept(&t->rx, 0, 0xfffffffe, false, 0, false);
	mrc_path_rx_accept(&t->rx, 0, 1, false, 0, false);
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 0xfffffffe),
			MRC_RX_PSN_DUP);
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 1), MRC_RX_PSN_DUP);
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 0xffffffff),
			MRC_RX_PSN_NEW);
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 0), MRC_RX_PSN_NEW);
	/* check() is pure: asking twice changes nothing */
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 0), MRC_RX_PSN_NEW);
	KUNIT_EXPECT_EQ(test, t->rx.rx_new, 2ull);

	t->rx.ack_now = false;
	mrc_path_rx_note_dup(&t->rx, 5, true, 77);
	KUNIT_EXPECT_EQ(test, t->rx.rx_dup, 1ull);
	KUNIT_EXPECT_TRUE(test, t->rx.ack_now);
	KUNIT_EXPECT_EQ(test, t->rx.ce_count, 1u);
	KUNIT_EXPECT_EQ(test, t->rx.tsecr, 77u);
}

static void mrc_path_rx_refuses_far_jumps(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 1000);

	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx,
						1000 + MRC_PATH_MAX_JUMP),
			MRC_RX_PSN_OOW);
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx,
						1000 + MRC_PATH_MAX_JUMP - 1),
			MRC_RX_PSN_NEW);
	/* "Before cum" by serial arithmetic is old, never far ahead. */
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 1000 - 0x40000000),
			MRC_RX_PSN_DUP);
}

static void mrc_path_rx_slides_past_abandoned_hole(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	u32 psn;

	/* PSN 0 is lost for good; 1..256 arrive, filling the bitmap. */
	for (psn = 1; psn <= MRC_SACK_BITS; psn++)
		mrc_path_rx_accept(&t->rx, 0, psn, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.cum, 0u);
	KUNIT_EXPECT_EQ(test, t->rx.bits[3], ~0ull);

	/* 257 does not fit: the window slides and settles all it can. */
	mrc_path_rx_accept(&t->rx, 0, MRC_SACK_BITS + 1, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.slides, 1ull);
	KUNIT_EXPECT_EQ(test, t->rx.cum, (u32)MRC_SACK_BITS + 2);
	KUNIT_EXPECT_EQ(test, t->rx.bits[0] | t->rx.bits[3], 0ull);
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 0), MRC_RX_PSN_DUP);

	/* A lone far PSN keeps only itself, as the window's last bit. */
	mrc_path_rx_accept(&t->rx, 0, 2000, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.cum, 2000u - MRC_SACK_BITS);
	KUNIT_EXPECT_EQ(test, t->rx.bits[3], 1ull << 63);
	KUNIT_EXPECT_EQ(test, t->rx.bits[0] | t->rx.bits[1] | t->rx.bits[2],
			0ull);
}

static void mrc_path_rx_ack_policy(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	u64 now = 10 * MS;
	u32 i;

	KUNIT_EXPECT_FALSE(test, mrc_path_rx_ack_due(&t->rx, &t->cfg, now));
	KUNIT_EXPECT_EQ(test, mrc_path_rx_ack_deadline(&t->rx, &t->cfg),
			~0ull);

	/* In order: coalesce up to ack_every packets... */
	for (i = 0; i + 1 < t->cfg.ack_every; i++) {
		mrc_path_rx_accept(&t->rx, now, i, false, i, false);
		KUNIT_EXPECT_FALSE(test, mrc_path_rx_ack_due(&t->rx, &t->cfg,
							     now));
	}
	KUNIT_EXPECT_EQ(test, mrc_path_rx_ack_deadline(&t->rx, &t->cfg),
			now + t->cfg.ack_delay_ns);
	/* ...or until the delay runs out. */
	KUNIT_EXPECT_TRUE(test, mrc_path_rx_ack_due(&t->rx, &t->cfg,
						    now + t->cfg.ack_delay_ns));
	mrc_path_rx_accept(&t->rx, now, i, false, i, false);
	KUNIT_EXPECT_TRUE(test, mrc_path_rx_ack_due(&t->rx, &t->cfg, now));
}

static void mrc_path_rx_acks_at_once_on_news(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	struct mrc_sack s;
	u32 ce, tsecr, delay;

	/* The sender asked. */
	mrc_path_rx_accept(&t->rx, 0, 0, false, 1, true);
	KUNIT_EXPECT_TRUE(test, mrc_path_rx_ack_due(&t->rx, &t->cfg, 0));
	mrc_path_rx_build_ack(&t->rx, 0, &s, &ce, &tsecr, &delay);
	KUNIT_EXPECT_FALSE(test, mrc_path_rx_ack_due(&t->rx, &t->cfg, 0));

	/* A CE mark. */
	mrc_path_rx_accept(&t->rx, 0, 1, true, 2, false);
	KUNIT_EXPECT_TRUE(test, mrc_path_rx_ack_due(&t->rx, &t->cfg, 0));
	mrc_path_rx_build_ack(&t->rx, 0, &s, &ce, &tsecr, &delay);
	KUNIT_EXPECT_EQ(test, ce, 1u);

	/* A hole. */
	mrc_path_rx_accept(&t->rx, 0, 3, false, 3, false);
	KUNIT_EXPECT_TRUE(test, mrc_path_rx_ack_due(&t->rx, &t->cfg, 0));
}

static void mrc_path_rx_build_ack_reports_state(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 50);
	struct mrc_sack s;
	u32 ce = 0, tsecr = 0, delay = 0;

	mrc_path_rx_accept(&t->rx, 1 * MS, 50, true, 0xaaaa, false);
	mrc_path_rx_accept(&t->rx, 2 * MS, 52, true, 0xbbbb, false);
	mrc_path_rx_build_ack(&t->rx, 2 * MS + 7 * US, &s, &ce, &tsecr,
			      &delay);
	KUNIT_EXPECT_EQ(test, s.cum, 51u);
	KUNIT_EXPECT_EQ(test, s.bits[0], 1ull);		/* PSN 52 */
	KUNIT_EXPECT_EQ(test, ce, 2u);
	KUNIT_EXPECT_EQ(test, tsecr, 0xbbbbu);		/* the newest */
	KUNIT_EXPECT_EQ(test, delay, (u32)(7 * US));	/* held for */
	KUNIT_EXPECT_EQ(test, t->rx.pending, 0u);
	KUNIT_EXPECT_FALSE(test, t->rx.ack_now);
	KUNIT_EXPECT_EQ(test, t->rx.acks, 1ull);
}

/* ---- receiver telemetry (the mrc_path_rx tracepoint's counters) ---- */

/*
 * A PSN that next jumps over opens a hole, a new PSN below next fills one:
 * skipped less late is what is still missing, as the tracepoint's span and
 * holes of the window say.
 */
static void mrc_path_rx_counts_holes_and_late_fills(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 100);
	u32 psn;

	for (psn = 100; psn < 103; psn++)
		mrc_path_rx_accept(&t->rx, 0, psn, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.rx_skipped, 0ull);
	KUNIT_EXPECT_EQ(test, t->rx.rx_late, 0ull);
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_span(&t->rx), (u16)0);
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_holes(&t->rx), (u16)0);

	mrc_path_rx_accept(&t->rx, 0, 105, false, 0, false);	/* 103, 104 */
	mrc_path_rx_accept(&t->rx, 0, 109, false, 0, false);	/* 106..108 */
	KUNIT_EXPECT_EQ(test, t->rx.rx_skipped, 5ull);
	KUNIT_EXPECT_EQ(test, t->rx.rx_late, 0ull);
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_span(&t->rx), (u16)7);
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_holes(&t->rx), (u16)5);

	/* two holes filled, the second the window's base */
	mrc_path_rx_accept(&t->rx, 0, 107, false, 0, false);
	mrc_path_rx_accept(&t->rx, 0, 103, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.rx_late, 2ull);
	KUNIT_EXPECT_EQ(test, t->rx.rx_skipped, 5ull);
	KUNIT_EXPECT_EQ(test, t->rx.cum, 104u);
	KUNIT_EXPECT_EQ(test, t->rx.next, 110u);
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_span(&t->rx), (u16)6);
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_holes(&t->rx), (u16)3);
	KUNIT_EXPECT_EQ(test, t->rx.rx_new, 7ull);
	KUNIT_EXPECT_EQ(test, t->rx.rx_dup, 0ull);
}

/* [REL-6] a CE mark counts on any arrival, new, late or duplicate. */
static void mrc_path_rx_counts_ce_marks(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	struct mrc_sack s;
	u32 ce = 0, tsecr, delay;

	mrc_path_rx_accept(&t->rx, 0, 0, true, 0, false);
	mrc_path_rx_accept(&t->rx, 0, 1, false, 0, false);
	mrc_path_rx_accept(&t->rx, 0, 3, true, 0, false);
	mrc_path_rx_accept(&t->rx, 0, 2, true, 0, false);
	mrc_path_rx_note_dup(&t->rx, 0, false, 0);
	mrc_path_rx_note_dup(&t->rx, 0, true, 0);
	KUNIT_EXPECT_EQ(test, t->rx.ce_count, 4u);
	KUNIT_EXPECT_EQ(test, t->rx.rx_new, 4ull);
	KUNIT_EXPECT_EQ(test, t->rx.rx_dup, 2ull);
	KUNIT_EXPECT_EQ(test, t->rx.rx_late, 1ull);
	mrc_path_rx_build_ack(&t->rx, 0, &s, &ce, &tsecr, &delay);
	KUNIT_EXPECT_EQ(test, ce, 4u);
}

/*
 * [REL-5] The holes a slide abandons stay skipped and never come late:
 * a PSN below the new base is a duplicate. Only a PSN inside the window
 * fills a hole.
 */
static void mrc_path_rx_slide_abandons_holes(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	u32 psn;

	/* 0 and 2 lost */
	mrc_path_rx_accept(&t->rx, 0, 1, false, 0, false);
	for (psn = 3; psn <= MRC_SACK_BITS; psn++)
		mrc_path_rx_accept(&t->rx, 0, psn, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.rx_skipped, 2ull);
	KUNIT_EXPECT_EQ(test, t->rx.slides, 0ull);
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_span(&t->rx),
			(u16)(MRC_SACK_BITS + 1));
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_holes(&t->rx), (u16)2);

	/* 0 falls off; 1 was received, so the base settles on 2 */
	mrc_path_rx_accept(&t->rx, 0, MRC_SACK_BITS + 1, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.slides, 1ull);
	KUNIT_EXPECT_EQ(test, t->rx.cum, 2u);
	KUNIT_EXPECT_EQ(test, t->rx.rx_skipped, 2ull);
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_holes(&t->rx), (u16)1);
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 0), MRC_RX_PSN_DUP);

	/* a lone far PSN: everything below its window is given up */
	mrc_path_rx_accept(&t->rx, 0, 2000, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.slides, 2ull);
	KUNIT_EXPECT_EQ(test, t->rx.rx_skipped, 2ull + 2000 - 258);
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_span(&t->rx),
			(u16)(MRC_SACK_BITS + 1));
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_holes(&t->rx), (u16)MRC_SACK_BITS);
	KUNIT_EXPECT_EQ(test, mrc_path_rx_check(&t->rx, 2), MRC_RX_PSN_DUP);
	mrc_path_rx_accept(&t->rx, 0, 1999, false, 0, false);
	KUNIT_EXPECT_EQ(test, t->rx.rx_late, 1ull);
	KUNIT_EXPECT_EQ(test, t->rx.slides, 2ull);
	KUNIT_EXPECT_EQ(test, mrc_trace_rx_holes(&t->rx),
			(u16)(MRC_SACK_BITS - 1));
	KUNIT_EXPECT_EQ(test, t->rx.rx_new, (u64)MRC_SACK_BITS + 2);
}

/* ---- sender half ---- */

static void mrc_path_tx_assigns_psns(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0xfffffffe);
	u32 i;

	KUNIT_EXPECT_EQ(test, mrc_path_tx_room(&t->tx), (u32)MRC_PATH_WND);
	KUNIT_EXPECT_EQ(test, mrc_path_tx_send(&t->tx, &t->cfg, 0, 10, 100),
			0xfffffffeu);
	KUNIT_EXPECT_EQ(test, mrc_path_tx_send(&t->tx, &t->cfg, 0, 11, 100),
			0xffffffffu);
	KUNIT_EXPECT_EQ(test, mrc_path_tx_send(&t->tx, &t->cfg, 0, 12, 50), 0u);
	KUNIT_EXPECT_EQ(test, t->tx.inflight_pkts, 3u);
	KUNIT_EXPECT_EQ(test, t->tx.inflight_bytes, 250u);
	KUNIT_EXPECT_EQ(test, t->tx.sent_bytes, 250ull);
	KUNIT_EXPECT_EQ(test, mrc_path_tx_room(&t->tx), MRC_PATH_WND - 3u);
	for (i = 3; i < MRC_PATH_WND; i++)
		mrc_path_tx_send(&t->tx, &t->cfg, 0, i, 1);
	KUNIT_EXPECT_EQ(test, mrc_path_tx_room(&t->tx), 0u);
}

static void mrc_path_tx_cumulative_ack(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 7);
	struct mrc_sack s;
	u32 i;

	for (i = 0; i < 5; i++)
		mrc_path_tx_send(&t->tx, &t->cfg, 0, 100 + i, 1000);
	KUNIT_EXPECT_EQ(test, t->tx.rto_deadline, t->cfg.rto_init_ns);
	mrc_t_sack(&s, 12, NULL, 0);
	KUNIT_ASSERT_EQ(test, mrc_path_tx_on_ack(&t->tx, &t->cfg, 1 * MS, &s,
						 1 * MS, &t->ev),
			MRC_ACK_OK);
	KUNIT_ASSERT_EQ(test, t->ev.n_acked, 5u);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, t->acked[i], 100 + i);
	KUNIT_EXPECT_EQ(test, t->ev.n_lost, 0u);
	KUNIT_EXPECT_EQ(test, t->ev.acked_bytes, 5000u);
	KUNIT_EXPECT_EQ(test, t->tx.inflight_pkts, 0u);
	KUNIT_EXPECT_EQ(test, t->tx.inflight_bytes, 0u);
	KUNIT_EXPECT_EQ(test, t->tx.snd_una, 12u);
	KUNIT_EXPECT_EQ(test, t->tx.rto_deadline, 0ull);	/* idle */

	/* The same ACK again reports nothing new. */
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 2 * MS, &s, 0, &t->ev);
	KUNIT_EXPECT_EQ(test, t->ev.n_acked, 0u);
	KUNIT_EXPECT_EQ(test, t->tx.acked_pkts, 5ull);
	KUNIT_EXPECT_EQ(test, t->tx.acked_bytes, 5000ull);
	KUNIT_EXPECT_EQ(test, t->tx.sent_bytes, 5000ull);
}

static void mrc_path_tx_gap_is_loss(struct kunit *test)
{
	static const u32 got[] = { 0, 1, 2, 3 };	/* PSNs 1..4 */
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	struct mrc_sack s;
	u32 i;

	for (i = 0; i < 5; i++)
		mrc_path_tx_send(&t->tx, &t->cfg, 0, 200 + i, 100);
	mrc_t_sack(&s, 0, got, ARRAY_SIZE(got));
	KUNIT_ASSERT_EQ(test, mrc_path_tx_on_ack(&t->tx, &t->cfg, 1 * MS, &s,
						 0, &t->ev),
			MRC_ACK_OK);
	KUNIT_EXPECT_EQ(test, t->ev.n_acked, 4u);
	KUNIT_ASSERT_EQ(test, t->ev.n_lost, 1u);
	KUNIT_EXPECT_EQ(test, t->lost[0], 200u);	/* exactly PSN 0 */
	KUNIT_EXPECT_EQ(test, t->ev.lost_bytes, 100u);
	KUNIT_EXPECT_EQ(test, t->tx.lost_gap, 1ull);
	KUNIT_EXPECT_EQ(test, t->tx.inflight_pkts, 0u);
	KUNIT_EXPECT_EQ(test, t->tx.snd_una, 5u);
	KUNIT_EXPECT_EQ(test, mrc_path_tx_room(&t->tx), (u32)MRC_PATH_WND);
}

static void mrc_path_tx_reorder_tolerance(struct kunit *test)
{
	static const u32 got[] = { 1 };		/* PSN 2 only */
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	struct mrc_sack s;
	u32 i;

	t->cfg.reorder_pkts = 3;
	/* the sender reads it at init */
	mrc_path_tx_init(&t->tx, &t->cfg, 0, &t->ring);
	for (i = 0; i < 4; i++)
		mrc_path_tx_send(&t->tx, &t->cfg, 0, i, 10);
	/* 0 and 1 trail the newest (2) by less than 3: not yet lost. */
	mrc_t_sack(&s, 0, got, ARRAY_SIZE(got));
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 0, &t->ev);
	KUNIT_EXPECT_EQ(test, t->ev.n_acked, 1u);
	KUNIT_EXPECT_EQ(test, t->ev.n_lost, 0u);

	/* PSN 3 arrives: 0 now trails by 3 and is lost; 1 still waits. */
	s.bits[0] |= 1ull << 2;
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 0, &t->ev);
	KUNIT_ASSERT_EQ(test, t->ev.n_lost, 1u);
	KUNIT_EXPECT_EQ(test, t->lost[0], 0u);
	KUNIT_EXPECT_EQ(test, t->tx.inflight_pkts, 1u);
}

static void mrc_path_tx_late_ack_is_reported(struct kunit *test)
{
	static const u32 first[] = { 1, 2 };		/* PSNs 2, 3 */
	static const u32 second[] = { 0, 1, 2 };	/* PSNs 1, 2, 3 */
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	struct mrc_sack s;
	u32 i;

	for (i = 0; i < 4; i++)
		mrc_path_tx_send(&t->tx, &t->cfg, 0, 300 + i, 10);
	mrc_t_sack(&s, 0, first, ARRAY_SIZE(first));
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 0, &t->ev);
	KUNIT_ASSERT_EQ(test, t->ev.n_lost, 2u);	/* PSNs 0 and 1 */

	/* PSN 1 was only late: it is acked and counted as spurious loss. */
	mrc_t_sack(&s, 0, second, ARRAY_SIZE(second));
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 0, &t->ev);
	KUNIT_ASSERT_EQ(test, t->ev.n_acked, 1u);
	KUNIT_EXPECT_EQ(test, t->acked[0], 301u);
	KUNIT_EXPECT_EQ(test, t->ev.n_late, 1u);
	KUNIT_EXPECT_EQ(test, t->ev.acked_bytes, 0u);	/* not in flight */
	KUNIT_EXPECT_EQ(test, t->tx.late_acks, 1ull);
}

static void mrc_path_tx_rejects_impossible_acks(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	struct mrc_path_tx *before = kunit_kmalloc(test, sizeof(*before),
						   GFP_KERNEL);
	struct mrc_sack s;
	u32 beyond[] = { 3 };	/* PSN 4: never sent */
	u32 i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, before);
	for (i = 0; i < 3; i++)
		mrc_path_tx_send(&t->tx, &t->cfg, 0, i, 10);
	memcpy(before, &t->tx, sizeof(*before));

	mrc_t_sack(&s, 4, NULL, 0);		/* cum past snd_nxt */
	KUNIT_EXPECT_EQ(test, mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 0,
						 &t->ev),
			MRC_ACK_INVALID);
	mrc_t_sack(&s, 0, beyond, ARRAY_SIZE(beyond));
	KUNIT_EXPECT_EQ(test, mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 0,
						 &t->ev),
			MRC_ACK_INVALID);
	mrc_t_sack(&s, 0, NULL, 0);
	s.bits[3] = 1;				/* far word */
	KUNIT_EXPECT_EQ(test, mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 0,
						 &t->ev),
			MRC_ACK_INVALID);
	KUNIT_EXPECT_EQ(test, memcmp(before, &t->tx, sizeof(*before)), 0);

	/* cum == snd_nxt is the legal "everything" */
	mrc_t_sack(&s, 3, NULL, 0);
	KUNIT_EXPECT_EQ(test, mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 0,
						 &t->ev),
			MRC_ACK_OK);
	KUNIT_EXPECT_EQ(test, t->ev.n_acked, 3u);
}

static void mrc_path_tx_rto_fires_and_backs_off(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	u64 now = 1 * MS, rto = t->cfg.rto_init_ns;
	int round;

	mrc_path_tx_send(&t->tx, &t->cfg, now, 1, 10);
	mrc_path_tx_send(&t->tx, &t->cfg, now, 2, 10);
	KUNIT_EXPECT_EQ(test, mrc_path_tx_on_timer(&t->tx, &t->cfg,
						   now + rto - 1, &t->ev),
			MRC_TIMER_NONE);
	KUNIT_EXPECT_EQ(test, t->ev.n_lost, 0u);

	for (round = 1; round <= 12; round++) {
		now += rto;
		KUNIT_ASSERT_EQ(test, mrc_path_tx_on_timer(&t->tx, &t->cfg,
							   now, &t->ev),
				MRC_TIMER_RTO);
		/* Everything in flight is declared lost, oldest first. */
		KUNIT_ASSERT_EQ(test, t->ev.n_lost, 2u);
		KUNIT_EXPECT_EQ(test, t->lost[0], 1u);
		KUNIT_EXPECT_EQ(test, t->lost[1], 2u);
		KUNIT_EXPECT_EQ(test, t->tx.retries, (u32)round);
		KUNIT_EXPECT_EQ(test, t->tx.inflight_pkts, 0u);
		/* Disarmed until the resend, which re-arms it doubled. */
		KUNIT_EXPECT_EQ(test, t->tx.rto_deadline, 0ull);
		KUNIT_EXPECT_EQ(test, mrc_path_tx_on_timer(&t->tx, &t->cfg,
							   now + 10 * rto,
							   &t->ev),
				MRC_TIMER_NONE);
		rto = min(rto * 2, t->cfg.rto_max_ns);
		KUNIT_EXPECT_EQ(test, t->tx.rto_ns, rto);
		mrc_path_tx_send(&t->tx, &t->cfg, now, 1, 10);
		mrc_path_tx_send(&t->tx, &t->cfg, now, 2, 10);
		KUNIT_EXPECT_EQ(test, t->tx.rto_deadline, now + rto);
	}
	KUNIT_EXPECT_EQ(test, t->tx.rto_ns, t->cfg.rto_max_ns);
	KUNIT_EXPECT_EQ(test, t->tx.lost_rto, 24ull);
}

/* Tail loss: after an RTT sample a probe timeout fires well before the RTO. */
static void mrc_path_tx_probe_timeout(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	struct mrc_sack s;
	u64 now = 1 * MS, pto, rto_deadline;

	mrc_path_tx_send(&t->tx, &t->cfg, 0, 1, 10);
	mrc_t_sack(&s, 1, NULL, 0);
	mrc_path_tx_on_ack(&t->tx, &t->cfg, now, &s, 100 * US, &t->ev);
	KUNIT_ASSERT_EQ(test, t->tx.rto_ns, t->cfg.rto_min_ns);
	/* idle: no timer of either kind */
	KUNIT_EXPECT_EQ(test, mrc_path_tx_deadline(&t->tx), 0ull);

	mrc_path_tx_send(&t->tx, &t->cfg, now, 2, 10);
	pto = mrc_path_tx_deadline(&t->tx) - now;
	KUNIT_EXPECT_GE(test, pto, 2 * t->tx.srtt_ns);
	KUNIT_EXPECT_LT(test, pto, t->tx.rto_ns);
	rto_deadline = t->tx.rto_deadline;
	KUNIT_EXPECT_EQ(test, rto_deadline, now + t->tx.rto_ns);

	KUNIT_EXPECT_EQ(test, mrc_path_tx_on_timer(&t->tx, &t->cfg,
						   now + pto - 1, &t->ev),
			MRC_TIMER_NONE);
	KUNIT_ASSERT_EQ(test, mrc_path_tx_on_timer(&t->tx, &t->cfg, now + pto,
						   &t->ev),
			MRC_TIMER_PTO);
	KUNIT_ASSERT_EQ(test, t->ev.n_lost, 1u);
	KUNIT_EXPECT_EQ(test, t->lost[0], 2u);
	KUNIT_EXPECT_EQ(test, t->tx.lost_pto, 1ull);
	/* no backoff, no retry counted, and the RTO keeps running */
	KUNIT_EXPECT_EQ(test, t->tx.retries, 0u);
	KUNIT_EXPECT_EQ(test, t->tx.rto_ns, t->cfg.rto_min_ns);
	KUNIT_EXPECT_EQ(test, t->tx.rto_deadline, rto_deadline);
}

/*
 * [REL-22] what a later packet of another path proved: the packets in
 * flight sent before it, once @due passes, oldest first, and nothing
 * sent after it.
 */
static void mrc_path_tx_rack_takes_what_went_before(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	u64 due = 5 * MS;
	struct mrc_sack s;
	u32 newest;

	mrc_path_tx_send(&t->tx, &t->cfg, 0, 1, 10);
	mrc_path_tx_send(&t->tx, &t->cfg, 10 * US, 2, 10);
	mrc_path_tx_send(&t->tx, &t->cfg, 20 * US, 3, 10);
	mrc_path_tx_send(&t->tx, &t->cfg, 40 * US, 4, 10);
	newest = mrc_path_stamp(30 * US);	/* after the third */
	/* the first one's ACK came: only the next two are in question */
	mrc_t_sack(&s, 1, NULL, 0);
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 1 * MS, &s, 0, &t->ev);

	KUNIT_EXPECT_EQ(test, mrc_path_tx_rack(&t->tx, due - 1, newest, due,
					       &t->ev), due);
	KUNIT_EXPECT_EQ(test, t->ev.n_lost, 0u);
	KUNIT_EXPECT_EQ(test, mrc_path_tx_rack(&t->tx, due, newest, due,
					       &t->ev), ~0ull);
	KUNIT_ASSERT_EQ(test, t->ev.n_lost, 2u);
	KUNIT_EXPECT_EQ(test, t->lost[0], 2u);
	KUNIT_EXPECT_EQ(test, t->lost[1], 3u);
	KUNIT_EXPECT_EQ(test, t->ev.lost_bytes, 20u);
	KUNIT_EXPECT_EQ(test, t->tx.lost_rack, 2ull);
	KUNIT_EXPECT_EQ(test, t->tx.inflight_pkts, 1u);
	KUNIT_EXPECT_EQ(test, t->tx.snd_una, 3u);

	/* the second turns up after all: a late ack, told apart from a gap's */
	mrc_t_sack(&s, 2, NULL, 0);
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 6 * MS, &s, 0, &t->ev);
	KUNIT_EXPECT_EQ(test, t->ev.n_late, 1u);
	KUNIT_EXPECT_EQ(test, t->ev.n_late_rack, 1u);
	KUNIT_EXPECT_EQ(test, t->tx.late_rack, 1ull);
	KUNIT_EXPECT_EQ(test, t->tx.reorder, 1u);
	KUNIT_EXPECT_EQ(test, t->ev.newest_sent, mrc_path_stamp(10 * US));
}

static void mrc_path_tx_ack_ends_backoff(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	struct mrc_sack s;
	u64 now = t->cfg.rto_init_ns;

	mrc_path_tx_send(&t->tx, &t->cfg, 0, 1, 10);
	KUNIT_ASSERT_EQ(test, mrc_path_tx_on_timer(&t->tx, &t->cfg, now,
						   &t->ev),
			MRC_TIMER_RTO);
	mrc_path_tx_send(&t->tx, &t->cfg, now, 1, 10);		/* PSN 1 */
	mrc_path_tx_send(&t->tx, &t->cfg, now, 3, 10);		/* PSN 2 */
	KUNIT_EXPECT_EQ(test, t->tx.retries, 1u);
	mrc_t_sack(&s, 2, NULL, 0);		/* PSN 1 arrived */
	mrc_path_tx_on_ack(&t->tx, &t->cfg, now + 1 * MS, &s, 1 * MS, &t->ev);
	KUNIT_EXPECT_EQ(test, t->tx.retries, 0u);
	/* One sample of 1 ms: rto = 1 + 4 * 0.5 = 3 ms (above the 2 ms floor). */
	KUNIT_EXPECT_EQ(test, t->tx.rto_ns, 3 * MS);
	/* PSN 2 still flies: the timer restarts from this ACK. */
	KUNIT_EXPECT_EQ(test, t->tx.rto_deadline, now + 1 * MS + 3 * MS);
}

static void mrc_path_tx_rtt_estimator(struct kunit *test)
{
	struct mrc_t_path *t = mrc_t_path_new(test, 0);
	struct mrc_sack s;

	mrc_path_tx_send(&t->tx, &t->cfg, 0, 1, 10);
	KUNIT_EXPECT_EQ(test, t->tx.rtt_samples, 0u);
	mrc_t_sack(&s, 1, NULL, 0);
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 8 * MS, &t->ev);
	KUNIT_EXPECT_EQ(test, t->tx.srtt_ns, 8 * MS);
	KUNIT_EXPECT_EQ(test, t->tx.rttvar_ns, 4 * MS);
	KUNIT_EXPECT_EQ(test, t->tx.rto_ns, 24 * MS);

	/* RFC 6298 2.3: rttvar = 3/4 rttvar + 1/4 |srtt - r|, srtt = 7/8 + 1/8 */
	mrc_path_tx_send(&t->tx, &t->cfg, 0, 2, 10);
	mrc_t_sack(&s, 2, NULL, 0);
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 16 * MS, &t->ev);
	KUNIT_EXPECT_EQ(test, t->tx.rttvar_ns, 5 * MS);
	KUNIT_EXPECT_EQ(test, t->tx.srtt_ns, 9 * MS);
	KUNIT_EXPECT_EQ(test, t->tx.min_rtt_ns, 8 * MS);
	KUNIT_EXPECT_EQ(test, t->tx.rto_ns, 29 * MS);
	/* telemetry's newest sample, and a count that tells it is new */
	KUNIT_EXPECT_EQ(test, t->tx.last_rtt_ns, 16 * MS);
	KUNIT_EXPECT_EQ(test, t->tx.rtt_samples, 2u);

	/* Floors and caps. */
	mrc_path_tx_reset_rtt(&t->tx, &t->cfg);
	KUNIT_EXPECT_EQ(test, t->tx.srtt_ns, 0ull);
	KUNIT_EXPECT_EQ(test, t->tx.rto_ns, t->cfg.rto_init_ns);
	mrc_path_tx_send(&t->tx, &t->cfg, 0, 3, 10);
	mrc_t_sack(&s, 3, NULL, 0);
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 10 * US, &t->ev);
	KUNIT_EXPECT_EQ(test, t->tx.rto_ns, t->cfg.rto_min_ns);
	mrc_path_tx_send(&t->tx, &t->cfg, 0, 4, 10);
	mrc_t_sack(&s, 4, NULL, 0);
	mrc_path_tx_reset_rtt(&t->tx, &t->cfg);
	mrc_path_tx_on_ack(&t->tx, &t->cfg, 0, &s, 10000 * MS, &t->ev);
	KUNIT_EXPECT_EQ(test, t->tx.rto_ns, t->cfg.rto_max_ns);
}

/*
 * Sender and receiver through a channel that drops data packets (never
 * ACKs, never reorders). Lost cookies are resent under new PSNs until all
 * are acknowledged. Every cookie must reach the receiver exactly once and
 * be acknowledged exactly once, whatever the loss pattern.
 */
static void mrc_t_lossy_transfer(struct kunit *test, u32 loss_pct, u32 seed)
{
	const u32 n = 3000;
	struct mrc_t_path *t = mrc_t_path_new(test, seed * 7919);
	u8 *delivered = kunit_kzalloc(test, n, GFP_KERNEL);
	u8 *acked = kunit_kzalloc(test, n, GFP_KERNEL);
	u32 *resend = kunit_kcalloc(test, n, sizeof(u32), GFP_KERNEL);
	u32 *wire = kunit_kcalloc(test, MRC_PATH_WND, sizeof(u32), GFP_KERNEL);
	u32 n_resend = 0, next_new = 0, done = 0, rounds = 0, i;
	struct rnd_state rnd;
	struct mrc_sack s;
	u32 ce, tsecr, delay;
	u64 now = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, delivered);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, acked);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, resend);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wire);
	prandom_seed_state(&rnd, seed);

	while (done < n) {
		u32 burst = 0;

		KUNIT_ASSERT_LT_MSG(test, ++rounds, 100000u, "no progress");
		now += 100 * US;
		/* Send: resends first, then new cookies, up to 32 a round. */
		while (burst < 32 && mrc_path_tx_room(&t->tx)) {
			u32 cookie, psn;

			if (n_resend)
				cookie = resend[--n_resend];
			else if (next_new < n)
				cookie = next_new++;
			else
				break;
			psn = mrc_path_tx_send(&t->tx, &t->cfg, now, cookie,
					       1000);
			wire[burst++] = psn;
			if (prandom_u32_state(&rnd) % 100 < loss_pct)
				continue;
			KUNIT_ASSERT_EQ(test, mrc_path_rx_check(&t->rx, psn),
					MRC_RX_PSN_NEW);
			mrc_path_rx_accept(&t->rx, now, psn, false, 0, false);
			delivered[cookie]++;
		}
		/* ACK, then the timer, as a connection would. */
		mrc_path_rx_build_ack(&t->rx, now, &s, &ce, &tsecr, &delay);
		KUNIT_ASSERT_EQ(test, mrc_path_tx_on_ack(&t->tx, &t->cfg, now,
							 &s, 50 * US, &t->ev),
				MRC_ACK_OK);
		for (;;) {
			for (i = 0; i < t->ev.n_acked; i++) {
				KUNIT_ASSERT_EQ(test, acked[t->acked[i]], 0);
				acked[t->acked[i]] = 1;
				done++;
			}
			KUNIT_ASSERT_EQ(test, t->ev.n_late, 0u);
			for (i = 0; i < t->ev.n_lost; i++)
				resend[n_resend++] = t->lost[i];
			if (mrc_path_tx_on_timer(&t->tx, &t->cfg,
						 now + 100 * US, &t->ev) ==
			    MRC_TIMER_NONE)
				break;
			now += 100 * US;
		}
	}
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ_MSG(test, delivered[i], 1, "cookie %u", i);
	KUNIT_EXPECT_EQ(test, t->tx.inflight_pkts, 0u);
	KUNIT_EXPECT_EQ(test, t->rx.rx_dup, 0ull);
	if (loss_pct)
		KUNIT_EXPECT_GT(test, mrc_path_tx_lost(&t->tx), 0ull);
	KUNIT_EXPECT_EQ(test, t->tx.sent_pkts - n, mrc_path_tx_lost(&t->tx));
}

static void mrc_path_lossless_transfer(struct kunit *test)
{
	mrc_t_lossy_transfer(test, 0, 1);
}

static void mrc_path_transfer_at_5pct_loss(struct kunit *test)
{
	mrc_t_lossy_transfer(test, 5, 2);
}

static void mrc_path_transfer_at_30pct_loss(struct kunit *test)
{
	mrc_t_lossy_transfer(test, 30, 3);
}

static struct kunit_case mrc_path_cases[] = {
	KUNIT_CASE(mrc_path_rx_in_order_advances),
	KUNIT_CASE(mrc_path_rx_holes_fill_bitmap),
	KUNIT_CASE(mrc_path_rx_detects_duplicates),
	KUNIT_CASE(mrc_path_rx_refuses_far_jumps),
	KUNIT_CASE(mrc_path_rx_slides_past_abandoned_hole),
	KUNIT_CASE(mrc_path_rx_ack_policy),
	KUNIT_CASE(mrc_path_rx_acks_at_once_on_news),
	KUNIT_CASE(mrc_path_rx_build_ack_reports_state),
	KUNIT_CASE(mrc_path_rx_counts_holes_and_late_fills),
	KUNIT_CASE(mrc_path_rx_counts_ce_marks),
	KUNIT_CASE(mrc_path_rx_slide_abandons_holes),
	KUNIT_CASE(mrc_path_tx_assigns_psns),
	KUNIT_CASE(mrc_path_tx_cumulative_ack),
	KUNIT_CASE(mrc_path_tx_gap_is_loss),
	KUNIT_CASE(mrc_path_tx_reorder_tolerance),
	KUNIT_CASE(mrc_path_tx_late_ack_is_reported),
	KUNIT_CASE(mrc_path_tx_rejects_impossible_acks),
	KUNIT_CASE(mrc_path_tx_rto_fires_and_backs_off),
	KUNIT_CASE(mrc_path_tx_probe_timeout),
	KUNIT_CASE(mrc_path_tx_rack_takes_what_went_before),
	KUNIT_CASE(mrc_path_tx_ack_ends_backoff),
	KUNIT_CASE(mrc_path_tx_rtt_estimator),
	KUNIT_CASE(mrc_path_lossless_transfer),
	KUNIT_CASE(mrc_path_transfer_at_5pct_loss),
	KUNIT_CASE(mrc_path_transfer_at_30pct_loss),
	{}
};

static struct kunit_suite mrc_path_suite = {
	.name = "metaroce_path",
	.test_cases = mrc_path_cases,
};

kunit_test_suite(mrc_path_suite);
