// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: completion queues (cq.c) on bare structs, no device.
 *
 * What a consumer relies on: completions come out in the order they went
 * in, a full CQ is an error (never a silent overwrite), and the handler
 * fires exactly when the CQ was armed for that kind of completion.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "../verbs.h"

struct mrc_t_cq {
	struct mrc_cq cq;
	int comp_calls;
	int err_events;
};

static void mrc_t_comp(struct ib_cq *ibcq, void *ctx)
{
	struct mrc_t_cq *t = ctx;

	t->comp_calls++;
}

static void mrc_t_event(struct ib_event *ev, void *ctx)
{
	struct mrc_t_cq *t = ctx;

	if (ev->event == IB_EVENT_CQ_ERR)
		t->err_events++;
}

static struct mrc_t_cq *mrc_t_cq_new(struct kunit *test, u32 cqe)
{
	struct mrc_t_cq *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	KUNIT_ASSERT_EQ(test, mrc_cq_init(&t->cq, cqe), 0);
	t->cq.ibcq.comp_handler = mrc_t_comp;
	t->cq.ibcq.event_handler = mrc_t_event;
	t->cq.ibcq.cq_context = t;
	return t;
}

static int mrc_t_post(struct mrc_t_cq *t, u64 wr_id, enum ib_wc_status st,
		      bool solicited)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = st,
		.opcode = IB_WC_RECV,
		.byte_len = (u32)wr_id * 3,
	};

	return mrc_cq_post(&t->cq, &wc, solicited);
}

static void mrc_cq_sizes(struct kunit *test)
{
	struct mrc_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_EXPECT_EQ(test, mrc_cq_init(cq, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_cq_init(cq, MRC_MAX_CQE + 1), -EINVAL);
	KUNIT_ASSERT_EQ(test, mrc_cq_init(cq, 5), 0);
	/* at least what was asked for, reported back in ibcq.cqe */
	KUNIT_EXPECT_GE(test, cq->ibcq.cqe, 5);
	KUNIT_EXPECT_EQ(test, (u32)cq->ibcq.cqe, cq->q.num);
	mrc_cq_fini(cq);
	KUNIT_ASSERT_EQ(test, mrc_cq_init(cq, MRC_MAX_CQE), 0);
	KUNIT_EXPECT_GE(test, cq->ibcq.cqe, MRC_MAX_CQE);
	mrc_cq_fini(cq);
}

static void mrc_cq_fifo_order(struct kunit *test)
{
	struct mrc_t_cq *t = mrc_t_cq_new(test, 64);
	struct ib_wc wc[5];
	u64 next = 0;
	int n, i, round;

	/* Interleave posting and polling across several ring wraps. */
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 37; i++)
			KUNIT_ASSERT_EQ(test, mrc_t_post(t, round * 37 + i,
							 IB_WC_SUCCESS, false),
					0);
		while ((n = mrc_poll_cq(&t->cq.ibcq, ARRAY_SIZE(wc), wc)) > 0) {
			for (i = 0; i < n; i++) {
				KUNIT_ASSERT_EQ(test, wc[i].wr_id, next);
				KUNIT_EXPECT_EQ(test, wc[i].byte_len,
						(u32)next * 3);
				next++;
			}
		}
		KUNIT_ASSERT_EQ(test, n, 0);
	}
	KUNIT_EXPECT_EQ(test, next, 20ull * 37);
	mrc_cq_fini(&t->cq);
}

static void mrc_cq_overflow_is_an_error(struct kunit *test)
{
	struct mrc_t_cq *t = mrc_t_cq_new(test, 4);
	struct ib_wc wc[16];
	u32 i, num = t->cq.q.num;

	for (i = 0; i < num; i++)
		KUNIT_ASSERT_EQ(test, mrc_t_post(t, i, IB_WC_SUCCESS, false), 0);
	KUNIT_EXPECT_EQ(test, t->err_events, 0);
	KUNIT_EXPECT_EQ(test, mrc_t_post(t, 100, IB_WC_SUCCESS, false),
			-EOVERFLOW);
	KUNIT_EXPECT_EQ(test, t->err_events, 1);
	KUNIT_EXPECT_TRUE(test, t->cq.overflow);

	/* The CQ stays in error: even with room again nothing is stored. */
	KUNIT_ASSERT_EQ(test, mrc_poll_cq(&t->cq.ibcq, ARRAY_SIZE(wc), wc),
			(int)num);
	for (i = 0; i < num; i++)
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, (u64)i);
	KUNIT_EXPECT_EQ(test, mrc_t_post(t, 101, IB_WC_SUCCESS, false),
			-EOVERFLOW);
	KUNIT_EXPECT_EQ(test, mrc_poll_cq(&t->cq.ibcq, ARRAY_SIZE(wc), wc), 0);
	/* CQ_ERR is raised once, not per dropped completion. */
	KUNIT_EXPECT_EQ(test, t->err_events, 1);
	mrc_cq_fini(&t->cq);
}

static void mrc_cq_unarmed_is_silent(struct kunit *test)
{
	struct mrc_t_cq *t = mrc_t_cq_new(test, 8);

	mrc_t_post(t, 1, IB_WC_SUCCESS, true);
	mrc_t_post(t, 2, IB_WC_GENERAL_ERR, false);
	KUNIT_EXPECT_EQ(test, t->comp_calls, 0);
	mrc_cq_fini(&t->cq);
}

static void mrc_cq_next_comp_fires_once(struct kunit *test)
{
	struct mrc_t_cq *t = mrc_t_cq_new(test, 8);

	KUNIT_EXPECT_EQ(test, mrc_req_notify_cq(&t->cq.ibcq, IB_CQ_NEXT_COMP),
			0);
	mrc_t_post(t, 1, IB_WC_SUCCESS, false);
	KUNIT_EXPECT_EQ(test, t->comp_calls, 1);
	/* one arming, one call */
	mrc_t_post(t, 2, IB_WC_SUCCESS, true);
	KUNIT_EXPECT_EQ(test, t->comp_calls, 1);
	mrc_req_notify_cq(&t->cq.ibcq, IB_CQ_NEXT_COMP);
	mrc_t_post(t, 3, IB_WC_SUCCESS, false);
	KUNIT_EXPECT_EQ(test, t->comp_calls, 2);
	mrc_cq_fini(&t->cq);
}

static void mrc_cq_solicited_arming(struct kunit *test)
{
	struct mrc_t_cq *t = mrc_t_cq_new(test, 8);

	mrc_req_notify_cq(&t->cq.ibcq, IB_CQ_SOLICITED);
	mrc_t_post(t, 1, IB_WC_SUCCESS, false);
	KUNIT_EXPECT_EQ(test, t->comp_calls, 0);
	mrc_t_post(t, 2, IB_WC_SUCCESS, true);
	KUNIT_EXPECT_EQ(test, t->comp_calls, 1);

	/* An unsuccessful completion also satisfies a solicited arming. */
	mrc_req_notify_cq(&t->cq.ibcq, IB_CQ_SOLICITED);
	mrc_t_post(t, 3, IB_WC_REM_ACCESS_ERR, false);
	KUNIT_EXPECT_EQ(test, t->comp_calls, 2);

	/* "Next completion" is wider and is not narrowed by a later call. */
	mrc_req_notify_cq(&t->cq.ibcq, IB_CQ_NEXT_COMP);
	mrc_req_notify_cq(&t->cq.ibcq, IB_CQ_SOLICITED);
	mrc_t_post(t, 4, IB_WC_SUCCESS, false);
	KUNIT_EXPECT_EQ(test, t->comp_calls, 3);
	mrc_cq_fini(&t->cq);
}

static void mrc_cq_reports_missed_events(struct kunit *test)
{
	struct mrc_t_cq *t = mrc_t_cq_new(test, 8);
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, mrc_req_notify_cq(&t->cq.ibcq, IB_CQ_NEXT_COMP |
						IB_CQ_REPORT_MISSED_EVENTS),
			0);
	mrc_t_post(t, 1, IB_WC_SUCCESS, false);
	/* completions are waiting: the consumer must poll before sleeping */
	KUNIT_EXPECT_EQ(test, mrc_req_notify_cq(&t->cq.ibcq, IB_CQ_NEXT_COMP |
						IB_CQ_REPORT_MISSED_EVENTS),
			1);
	KUNIT_EXPECT_EQ(test, mrc_poll_cq(&t->cq.ibcq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, mrc_req_notify_cq(&t->cq.ibcq, IB_CQ_NEXT_COMP |
						IB_CQ_REPORT_MISSED_EVENTS),
			0);
	mrc_cq_fini(&t->cq);
}

static struct kunit_case mrc_cq_cases[] = {
	KUNIT_CASE(mrc_cq_sizes),
	KUNIT_CASE(mrc_cq_fifo_order),
	KUNIT_CASE(mrc_cq_overflow_is_an_error),
	KUNIT_CASE(mrc_cq_unarmed_is_silent),
	KUNIT_CASE(mrc_cq_next_comp_fires_once),
	KUNIT_CASE(mrc_cq_solicited_arming),
	KUNIT_CASE(mrc_cq_reports_missed_events),
	{}
};

static struct kunit_suite mrc_cq_suite = {
	.name = "metaroce_cq",
	.test_cases = mrc_cq_cases,
};

kunit_test_suite(mrc_cq_suite);
