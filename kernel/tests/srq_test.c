// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: shared receive queues (srq.c) on bare structs, no device.
 *
 * Receives are handed out oldest first, the limit event fires once when
 * the queue drains below the armed limit (and disarms, as the IBA says),
 * and modify_srq refuses sizes and limits a real HCA would refuse.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "../verbs.h"

struct mrc_t_srq {
	struct mrc_srq srq;
	int limit_events;
};

static void mrc_t_srq_event(struct ib_event *ev, void *ctx)
{
	struct mrc_t_srq *t = ctx;

	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		t->limit_events++;
}

static struct mrc_t_srq *mrc_t_srq_new(struct kunit *test, u32 max_wr)
{
	struct mrc_t_srq *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = max_wr, .max_sge = 2 },
	};

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	KUNIT_ASSERT_EQ(test, mrc_create_srq(&t->srq.ibsrq, &init, NULL), 0);
	KUNIT_EXPECT_GE(test, init.attr.max_wr, max_wr);
	t->srq.ibsrq.event_handler = mrc_t_srq_event;
	t->srq.ibsrq.srq_context = t;
	return t;
}

static int mrc_t_srq_post(struct mrc_t_srq *t, u64 wr_id)
{
	struct ib_sge sge = { .addr = 0x1000 * wr_id, .length = 64,
			      .lkey = 7 };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return mrc_post_srq_recv(&t->srq.ibsrq, &wr, &bad);
}

static void mrc_srq_attr_rules(struct kunit *test)
{
	struct ib_srq_attr a = { .max_wr = 64, .srq_limit = 16 };

	KUNIT_EXPECT_EQ(test, mrc_srq_attr_check(&a, IB_SRQ_MAX_WR |
						 IB_SRQ_LIMIT, 32, 10, 128), 0);
	/* the limit is judged against the new size */
	a.srq_limit = 48;
	KUNIT_EXPECT_EQ(test, mrc_srq_attr_check(&a, IB_SRQ_MAX_WR |
						 IB_SRQ_LIMIT, 32, 10, 128), 0);
	KUNIT_EXPECT_EQ(test, mrc_srq_attr_check(&a, IB_SRQ_LIMIT, 32, 10,
						 128), -EINVAL);
	a.max_wr = 0;
	KUNIT_EXPECT_EQ(test, mrc_srq_attr_check(&a, IB_SRQ_MAX_WR, 32, 0,
						 128), -EINVAL);
	a.max_wr = 129;
	KUNIT_EXPECT_EQ(test, mrc_srq_attr_check(&a, IB_SRQ_MAX_WR, 32, 0,
						 128), -EINVAL);
	/* never below what is already posted */
	a.max_wr = 9;
	KUNIT_EXPECT_EQ(test, mrc_srq_attr_check(&a, IB_SRQ_MAX_WR, 32, 10,
						 128), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_srq_attr_check(&a, 1 << 5, 32, 10, 128),
			-EINVAL);
}

static void mrc_srq_fifo_and_limit_event(struct kunit *test)
{
	struct mrc_t_srq *t = mrc_t_srq_new(test, 10);
	struct mrc_recv_wqe *out = kunit_kzalloc(test, mrc_recv_wqe_size(2),
						 GFP_KERNEL);
	struct ib_srq_attr a = { .srq_limit = 4 };
	bool limit;
	u64 i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, mrc_t_srq_post(t, i), 0);
	KUNIT_ASSERT_EQ(test, mrc_modify_srq(&t->srq.ibsrq, &a, IB_SRQ_LIMIT,
					     NULL), 0);
	for (i = 0; i < 8; i++) {
		KUNIT_ASSERT_EQ(test, mrc_srq_take(&t->srq, out, &limit), 0);
		KUNIT_EXPECT_EQ(test, out->wr_id, i);
		KUNIT_EXPECT_EQ(test, out->sge[0].addr, 0x1000 * i);
		/* 8 posted, limit 4: the 5th take leaves 3 < 4 */
		KUNIT_EXPECT_EQ_MSG(test, limit, i == 4, "take %llu", i);
		if (limit)
			mrc_srq_limit_event(&t->srq);
	}
	KUNIT_EXPECT_EQ(test, t->limit_events, 1);
	KUNIT_EXPECT_EQ(test, mrc_srq_take(&t->srq, out, &limit), -ENOENT);
	/* the limit disarmed itself when it fired */
	KUNIT_ASSERT_EQ(test, mrc_query_srq(&t->srq.ibsrq, &a), 0);
	KUNIT_EXPECT_EQ(test, a.srq_limit, 0u);
	mrc_destroy_srq(&t->srq.ibsrq, NULL);
}

static void mrc_srq_resize_keeps_posted(struct kunit *test)
{
	struct mrc_t_srq *t = mrc_t_srq_new(test, 8);
	struct mrc_recv_wqe *out = kunit_kzalloc(test, mrc_recv_wqe_size(2),
						 GFP_KERNEL);
	struct ib_srq_attr a = { .max_wr = 2 };
	bool limit;
	u64 i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, mrc_t_srq_post(t, i), 0);
	KUNIT_EXPECT_EQ(test, mrc_modify_srq(&t->srq.ibsrq, &a, IB_SRQ_MAX_WR,
					     NULL), -EINVAL);
	a.max_wr = 100;
	KUNIT_ASSERT_EQ(test, mrc_modify_srq(&t->srq.ibsrq, &a, IB_SRQ_MAX_WR,
					     NULL), 0);
	KUNIT_ASSERT_EQ(test, mrc_query_srq(&t->srq.ibsrq, &a), 0);
	KUNIT_EXPECT_GE(test, a.max_wr, 100u);
	for (i = 0; i < 5; i++) {
		KUNIT_ASSERT_EQ(test, mrc_srq_take(&t->srq, out, &limit), 0);
		KUNIT_EXPECT_EQ(test, out->wr_id, i);
	}
	mrc_destroy_srq(&t->srq.ibsrq, NULL);
}

static struct kunit_case mrc_srq_cases[] = {
	KUNIT_CASE(mrc_srq_attr_rules),
	KUNIT_CASE(mrc_srq_fifo_and_limit_event),
	KUNIT_CASE(mrc_srq_resize_keeps_posted),
	{}
};

static struct kunit_suite mrc_srq_suite = {
	.name = "metaroce_srq",
	.test_cases = mrc_srq_cases,
};

kunit_test_suite(mrc_srq_suite);
