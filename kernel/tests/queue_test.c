// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the element rings under every queue (queue.c, queue.h).
 *
 * Indices run free over 2^32 and the shared header is what userspace will
 * read and, for user rings, write: these cases pin the sizing, the FIFO
 * behaviour across index wrap, resize, and that a producer or consumer
 * index published by userspace is refused when it cannot be right.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "../queue.h"

static void mrc_queue_sizing(struct kunit *test)
{
	struct mrc_queue q;

	KUNIT_EXPECT_EQ(test, mrc_queue_init(&q, 8, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_queue_init(&q, 8, 12), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_queue_init(&q, (1u << 20) + 1, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_queue_init(&q, ~0u, 8), -EINVAL);

	KUNIT_ASSERT_EQ(test, mrc_queue_init(&q, 0, 8), 0);
	KUNIT_EXPECT_EQ(test, q.num, 1u);	/* at least one slot */
	mrc_queue_free(&q);
	KUNIT_ASSERT_EQ(test, mrc_queue_init(&q, 100, 24), 0);
	KUNIT_EXPECT_EQ(test, q.num, 128u);
	KUNIT_EXPECT_EQ(test, q.mask, 127u);
	KUNIT_EXPECT_GE(test, q.size, sizeof(*q.hdr) + 128 * 24);
	KUNIT_EXPECT_TRUE(test, mrc_queue_empty(&q));
	KUNIT_EXPECT_EQ(test, q.hdr->producer, 0u);
	KUNIT_EXPECT_EQ(test, q.hdr->consumer, 0u);
	mrc_queue_free(&q);
	KUNIT_EXPECT_NULL(test, q.hdr);
}

static void mrc_queue_fifo_across_wrap(struct kunit *test)
{
	struct mrc_queue q;
	u32 i, n = 0, next = 0;
	u64 *slot;

	KUNIT_ASSERT_EQ(test, mrc_queue_init(&q, 8, 8), 0);
	/* start near the end of the index space */
	q.prod = 0xfffffffa;
	q.cons = 0xfffffffa;
	for (i = 0; i < 100; i++) {
		while ((slot = mrc_queue_producer_slot(&q))) {
			*slot = n++;
			mrc_queue_produce(&q);
		}
		KUNIT_ASSERT_TRUE(test, mrc_queue_full(&q));
		KUNIT_ASSERT_EQ(test, mrc_queue_count(&q), 8u);
		/* the header shows what was published */
		KUNIT_ASSERT_EQ(test, q.hdr->producer, q.prod);
		slot = mrc_queue_consumer_slot(&q);
		KUNIT_ASSERT_NOT_NULL(test, slot);
		KUNIT_ASSERT_EQ(test, *slot, (u64)next);
		next++;
		mrc_queue_consume(&q);
		KUNIT_ASSERT_EQ(test, q.hdr->consumer, q.cons);
	}
	while ((slot = mrc_queue_consumer_slot(&q))) {
		KUNIT_ASSERT_EQ(test, *slot, (u64)next++);
		mrc_queue_consume(&q);
	}
	KUNIT_EXPECT_EQ(test, next, n);
	KUNIT_EXPECT_LT(test, q.prod, 0x1000u);	/* it did wrap */
	mrc_queue_free(&q);
}

static void mrc_queue_move_keeps_order(struct kunit *test)
{
	struct mrc_queue a, b, c;
	u64 *slot;
	u32 i;

	KUNIT_ASSERT_EQ(test, mrc_queue_init(&a, 8, 8), 0);
	KUNIT_ASSERT_EQ(test, mrc_queue_init(&b, 32, 8), 0);
	KUNIT_ASSERT_EQ(test, mrc_queue_init(&c, 4, 8), 0);
	/* a's live elements straddle its end */
	a.prod = 5;
	a.cons = 5;
	for (i = 0; i < 6; i++) {
		slot = mrc_queue_producer_slot(&a);
		*slot = 100 + i;
		mrc_queue_produce(&a);
	}
	/* a smaller ring cannot take them */
	KUNIT_EXPECT_EQ(test, mrc_queue_move(&c, &a), -EINVAL);
	KUNIT_ASSERT_EQ(test, mrc_queue_move(&b, &a), 0);
	KUNIT_EXPECT_EQ(test, mrc_queue_count(&b), 6u);
	KUNIT_EXPECT_EQ(test, b.hdr->producer, b.prod);
	for (i = 0; i < 6; i++) {
		slot = mrc_queue_consumer_slot(&b);
		KUNIT_ASSERT_NOT_NULL(test, slot);
		KUNIT_EXPECT_EQ(test, *slot, 100ull + i);
		mrc_queue_consume(&b);
	}
	/* only into an empty ring */
	slot = mrc_queue_producer_slot(&b);
	mrc_queue_produce(&b);
	KUNIT_EXPECT_EQ(test, mrc_queue_move(&b, &a), -EINVAL);
	mrc_queue_free(&a);
	mrc_queue_free(&b);
	mrc_queue_free(&c);
}

static void mrc_queue_distrusts_user_indices(struct kunit *test)
{
	struct mrc_queue q;

	KUNIT_ASSERT_EQ(test, mrc_queue_init(&q, 16, 8), 0);
	q.prod = 1000;
	q.cons = 990;

	/* a user producer may advance by at most the free room */
	q.hdr->producer = 1006;
	KUNIT_EXPECT_EQ(test, mrc_queue_user_producer(&q, 1000, 6), 1006u);
	KUNIT_EXPECT_EQ(test, mrc_queue_user_producer(&q, 1000, 5), 1000u);
	q.hdr->producer = 999;		/* moved backwards */
	KUNIT_EXPECT_EQ(test, mrc_queue_user_producer(&q, 1000, 6), 1000u);

	/* a user consumer may not pass the producer or fall a ring behind */
	q.hdr->consumer = 995;
	KUNIT_EXPECT_TRUE(test, mrc_queue_sync_user_consumer(&q));
	KUNIT_EXPECT_EQ(test, q.cons, 995u);
	q.hdr->consumer = 1001;
	KUNIT_EXPECT_FALSE(test, mrc_queue_sync_user_consumer(&q));
	KUNIT_EXPECT_EQ(test, q.cons, 995u);
	q.hdr->consumer = 1000 - 17;
	KUNIT_EXPECT_FALSE(test, mrc_queue_sync_user_consumer(&q));
	KUNIT_EXPECT_EQ(test, q.cons, 995u);
	mrc_queue_free(&q);
}

static struct kunit_case mrc_queue_cases[] = {
	KUNIT_CASE(mrc_queue_sizing),
	KUNIT_CASE(mrc_queue_fifo_across_wrap),
	KUNIT_CASE(mrc_queue_move_keeps_order),
	KUNIT_CASE(mrc_queue_distrusts_user_indices),
	{}
};

static struct kunit_suite mrc_queue_suite = {
	.name = "metaroce_queue",
	.test_cases = mrc_queue_cases,
};

kunit_test_suite(mrc_queue_suite);
