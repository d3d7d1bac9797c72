// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the QP state machine (qp_modify.c, post.c) and work-queue
 * completion rules (qp.c) on bare structs, no device.
 *
 * The transport is played by the test: it takes WQEs with
 * mrc_qp_next_send_wqe()/mrc_qp_take_recv() and retires them with
 * mrc_qp_complete_*(), as the data path will.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "../verbs.h"

/* ---- modify_qp attribute and transition checks ---- */

static const struct mrc_qp_limits mrc_t_lim = {
	.active_mtu = IB_MTU_1024,
	.max_rd_atomic = 16,
	.max_dest_rd_atomic = 16,
	.port_cnt = 1,
	.pkey_tbl_len = 1,
};

#define MRC_T_TO_INIT	(IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | \
			 IB_QP_ACCESS_FLAGS)
#define MRC_T_TO_RTR	(IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | \
			 IB_QP_DEST_QPN | IB_QP_RQ_PSN | \
			 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define MRC_T_TO_RTS	(IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT | \
			 IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
			 IB_QP_MAX_QP_RD_ATOMIC)

/* Attributes a well-behaved consumer passes on the way to RTS. */
static void mrc_t_attr(struct ib_qp_attr *a, enum ib_qp_state next)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = next;
	a->port_num = 1;
	a->qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	a->path_mtu = IB_MTU_1024;
	a->dest_qp_num = 0x123;
	a->rq_psn = 1;
	a->sq_psn = 1;
	a->max_dest_rd_atomic = 16;
	a->max_rd_atomic = 16;
	a->min_rnr_timer = 12;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
}

static int mrc_t_check(enum ib_qp_state cur, struct ib_qp_attr *a, int mask)
{
	return mrc_qp_attr_check(IB_QPT_RC, cur, a, mask, &mrc_t_lim);
}

static void mrc_qp_rc_path_to_rts(struct kunit *test)
{
	struct ib_qp_attr a;

	mrc_t_attr(&a, IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RESET, &a, MRC_T_TO_INIT), 0);
	mrc_t_attr(&a, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_INIT, &a, MRC_T_TO_RTR), 0);
	mrc_t_attr(&a, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RTR, &a, MRC_T_TO_RTS), 0);
	/* RTS -> RTS with no attributes is a legal no-op */
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RTS, &a, IB_QP_STATE), 0);
}

static void mrc_qp_refuses_skipped_states(struct kunit *test)
{
	struct ib_qp_attr a;

	mrc_t_attr(&a, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RESET, &a, MRC_T_TO_RTS),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_INIT, &a, MRC_T_TO_RTS),
			-EINVAL);
	mrc_t_attr(&a, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RESET, &a, MRC_T_TO_RTR),
			-EINVAL);
	/* out of ERR only through RESET */
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_ERR, &a, MRC_T_TO_RTR),
			-EINVAL);
	mrc_t_attr(&a, IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_ERR, &a, IB_QP_STATE), 0);
	/* an unknown target state */
	a.qp_state = IB_QPS_ERR + 1;
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RESET, &a, IB_QP_STATE),
			-EINVAL);
}

static void mrc_qp_any_live_state_to_error(struct kunit *test)
{
	enum ib_qp_state s;
	struct ib_qp_attr a;

	/* every state but RESET, which must first go to INIT (IBA 10.3.1) */
	mrc_t_attr(&a, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RESET, &a, IB_QP_STATE),
			-EINVAL);
	for (s = IB_QPS_INIT; s <= IB_QPS_ERR; s++)
		KUNIT_EXPECT_EQ_MSG(test, mrc_t_check(s, &a, IB_QP_STATE), 0,
				    "from state %d", s);
}

static void mrc_qp_requires_transition_attrs(struct kunit *test)
{
	struct ib_qp_attr a;

	mrc_t_attr(&a, IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RESET, &a,
					  MRC_T_TO_INIT & ~IB_QP_PORT),
			-EINVAL);
	mrc_t_attr(&a, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_INIT, &a,
					  MRC_T_TO_RTR & ~IB_QP_DEST_QPN),
			-EINVAL);
	mrc_t_attr(&a, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RTR, &a,
					  MRC_T_TO_RTS & ~IB_QP_SQ_PSN),
			-EINVAL);
	/* and refuses attributes the transition does not allow */
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RTR, &a,
					  MRC_T_TO_RTS | IB_QP_DEST_QPN),
			-EINVAL);
}

static void mrc_qp_cur_state_must_match(struct kunit *test)
{
	struct ib_qp_attr a;

	mrc_t_attr(&a, IB_QPS_RTS);
	a.cur_qp_state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RTS, &a,
					  IB_QP_STATE | IB_QP_CUR_STATE),
			-EINVAL);
	a.cur_qp_state = IB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RTS, &a,
					  IB_QP_STATE | IB_QP_CUR_STATE),
			0);
}

/* Change one field of a valid INIT->RTR or RTR->RTS set, expect @want. */
static void mrc_t_rtr_field(struct kunit *test, void (*bad)(struct ib_qp_attr *),
			    int want)
{
	struct ib_qp_attr a;

	mrc_t_attr(&a, IB_QPS_RTR);
	bad(&a);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_INIT, &a, MRC_T_TO_RTR), want);
}

static void mrc_t_rts_field(struct kunit *test, void (*bad)(struct ib_qp_attr *),
			    int want)
{
	struct ib_qp_attr a;

	mrc_t_attr(&a, IB_QPS_RTS);
	bad(&a);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RTR, &a, MRC_T_TO_RTS), want);
}

static void mrc_t_mtu_above_port(struct ib_qp_attr *a)
{
	a->path_mtu = IB_MTU_2048;	/* port is at 1024 */
}

static void mrc_t_mtu_zero(struct ib_qp_attr *a)
{
	a->path_mtu = 0;
}

static void mrc_t_qpn_zero(struct ib_qp_attr *a)
{
	a->dest_qp_num = 0;
}

static void mrc_t_qpn_wide(struct ib_qp_attr *a)
{
	a->dest_qp_num = MRC_MAX_QPN + 1;
}

static void mrc_t_dest_rd_atomic(struct ib_qp_attr *a)
{
	a->max_dest_rd_atomic = 17;
}

static void mrc_t_rnr_timer(struct ib_qp_attr *a)
{
	a->min_rnr_timer = 32;
}

static void mrc_t_timeout(struct ib_qp_attr *a)
{
	a->timeout = 32;
}

static void mrc_t_retry(struct ib_qp_attr *a)
{
	a->retry_cnt = 8;
}

static void mrc_t_rnr_retry(struct ib_qp_attr *a)
{
	a->rnr_retry = 8;
}

static void mrc_t_rd_atomic(struct ib_qp_attr *a)
{
	a->max_rd_atomic = 17;
}

static void mrc_qp_refuses_out_of_range_values(struct kunit *test)
{
	mrc_t_rtr_field(test, mrc_t_mtu_above_port, -EINVAL);
	mrc_t_rtr_field(test, mrc_t_mtu_zero, -EINVAL);
	mrc_t_rtr_field(test, mrc_t_qpn_zero, -EINVAL);
	mrc_t_rtr_field(test, mrc_t_qpn_wide, -EINVAL);
	mrc_t_rtr_field(test, mrc_t_dest_rd_atomic, -EINVAL);
	mrc_t_rtr_field(test, mrc_t_rnr_timer, -EINVAL);
	mrc_t_rts_field(test, mrc_t_timeout, -EINVAL);
	mrc_t_rts_field(test, mrc_t_retry, -EINVAL);
	mrc_t_rts_field(test, mrc_t_rnr_retry, -EINVAL);
	mrc_t_rts_field(test, mrc_t_rd_atomic, -EINVAL);
}

static void mrc_qp_refuses_bad_port_pkey_access(struct kunit *test)
{
	struct ib_qp_attr a;

	mrc_t_attr(&a, IB_QPS_INIT);
	a.port_num = 0;
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RESET, &a, MRC_T_TO_INIT),
			-EINVAL);
	a.port_num = 2;
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RESET, &a, MRC_T_TO_INIT),
			-EINVAL);
	mrc_t_attr(&a, IB_QPS_INIT);
	a.pkey_index = 1;
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RESET, &a, MRC_T_TO_INIT),
			-EINVAL);
	mrc_t_attr(&a, IB_QPS_INIT);
	a.qp_access_flags |= IB_ACCESS_MW_BIND;
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RESET, &a, MRC_T_TO_INIT),
			-EINVAL);
	/* no alternate path: the transport does its own multipath */
	mrc_t_attr(&a, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, mrc_t_check(IB_QPS_RTR, &a,
					  MRC_T_TO_RTS | IB_QP_ALT_PATH),
			-EOPNOTSUPP);
}

static void mrc_qp_post_allowed_by_state(struct kunit *test)
{
	bool flush = true;

	KUNIT_EXPECT_NE(test, mrc_qp_post_state_ok(IB_QPS_RESET, false, &flush),
			0);
	KUNIT_EXPECT_NE(test, mrc_qp_post_state_ok(IB_QPS_RESET, true, &flush),
			0);
	KUNIT_EXPECT_EQ(test, mrc_qp_post_state_ok(IB_QPS_INIT, false, &flush),
			0);
	KUNIT_EXPECT_FALSE(test, flush);
	KUNIT_EXPECT_NE(test, mrc_qp_post_state_ok(IB_QPS_INIT, true, &flush),
			0);
	KUNIT_EXPECT_NE(test, mrc_qp_post_state_ok(IB_QPS_RTR, true, &flush),
			0);
	KUNIT_EXPECT_EQ(test, mrc_qp_post_state_ok(IB_QPS_RTS, true, &flush),
			0);
	KUNIT_EXPECT_FALSE(test, flush);
	/* in ERR a post succeeds and completes at once, flushed */
	KUNIT_EXPECT_EQ(test, mrc_qp_post_state_ok(IB_QPS_ERR, true, &flush),
			0);
	KUNIT_EXPECT_TRUE(test, flush);
}

/* ---- a bare RC QP with its two CQs ---- */

struct mrc_t_qp {
	struct mrc_cq scq;
	struct mrc_cq rcq;
	struct mrc_qp qp;
	int fatal_events;
};

static void mrc_t_qp_event(struct ib_event *ev, void *ctx)
{
	struct mrc_t_qp *t = ctx;

	if (ev->event == IB_EVENT_QP_FATAL)
		t->fatal_events++;
}

static struct mrc_t_qp *mrc_t_qp_new(struct kunit *test, u32 depth)
{
	struct mrc_t_qp *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = depth,
			.max_send_sge = 2,
			.max_recv_sge = 2,
			.max_inline_data = 64,
		},
	};

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	KUNIT_ASSERT_EQ(test, mrc_cq_init(&t->scq, 64), 0);
	KUNIT_ASSERT_EQ(test, mrc_cq_init(&t->rcq, 64), 0);
	init.send_cq = &t->scq.ibcq;
	init.recv_cq = &t->rcq.ibcq;
	KUNIT_ASSERT_EQ(test, mrc_qp_init(&t->qp, &init), 0);
	KUNIT_EXPECT_GE(test, t->qp.sq.max_wr, depth);
	t->qp.ibqp.event_handler = mrc_t_qp_event;
	t->qp.ibqp.qp_context = t;
	return t;
}

static void mrc_t_qp_free(struct mrc_t_qp *t)
{
	mrc_qp_fini(&t->qp);
	mrc_cq_fini(&t->scq);
	mrc_cq_fini(&t->rcq);
}

static int mrc_t_send(struct mrc_t_qp *t, u64 wr_id, bool signaled)
{
	static u8 payload[16];
	struct ib_sge sge = {
		.addr = (uintptr_t)payload,
		.length = sizeof(payload),
		.lkey = 0x100,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IB_WR_SEND,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = signaled ? IB_SEND_SIGNALED : 0,
	};
	const struct ib_send_wr *bad = NULL;

	return mrc_post_send(&t->qp.ibqp, &wr, &bad);
}

static int mrc_t_recv(struct mrc_t_qp *t, u64 wr_id)
{
	struct ib_sge sge = { .addr = 0x1000, .length = 256, .lkey = 0x200 };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };
	const struct ib_recv_wr *bad = NULL;

	return mrc_post_recv(&t->qp.ibqp, &wr, &bad);
}

static void mrc_qp_post_refused_before_ready(struct kunit *test)
{
	struct mrc_t_qp *t = mrc_t_qp_new(test, 8);
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, mrc_qp_state(&t->qp), IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, mrc_t_send(t, 1, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_t_recv(t, 1), -EINVAL);
	mrc_qp_set_state(&t->qp, IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, mrc_t_send(t, 2, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_t_recv(t, 2), 0);
	/* nothing is taken by the transport before RTS */
	KUNIT_EXPECT_NULL(test, mrc_qp_next_send_wqe(&t->qp));
	KUNIT_EXPECT_NULL(test, mrc_qp_take_recv(&t->qp));
	KUNIT_EXPECT_EQ(test, mrc_poll_cq(&t->scq.ibcq, 1, &wc), 0);
	mrc_t_qp_free(t);
}

static void mrc_qp_send_completions_in_order(struct kunit *test)
{
	struct mrc_t_qp *t = mrc_t_qp_new(test, 8);
	struct mrc_send_wqe *wqe;
	struct ib_wc wc[8];
	int i;

	mrc_qp_set_state(&t->qp, IB_QPS_RTS);
	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, mrc_t_send(t, i, i != 2), 0);
	for (i = 1; i <= 4; i++) {
		wqe = mrc_qp_next_send_wqe(&t->qp);
		KUNIT_ASSERT_NOT_NULL(test, wqe);
		KUNIT_EXPECT_EQ(test, wqe->wr_id, (u64)i);
		KUNIT_EXPECT_EQ(test, wqe->length, 16u);
	}
	KUNIT_EXPECT_NULL(test, mrc_qp_next_send_wqe(&t->qp));
	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, mrc_qp_complete_send(&t->qp,
							   IB_WC_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, mrc_qp_complete_send(&t->qp, IB_WC_SUCCESS),
			-ENOENT);
	/* the unsignaled WR 2 completes silently; order is kept */
	KUNIT_ASSERT_EQ(test, mrc_poll_cq(&t->scq.ibcq, 8, wc), 3);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 1ull);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 3ull);
	KUNIT_EXPECT_EQ(test, wc[2].wr_id, 4ull);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, 16u);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, &t->qp.ibqp);
	mrc_t_qp_free(t);
}

static void mrc_qp_error_completion_flushes_rest(struct kunit *test)
{
	struct mrc_t_qp *t = mrc_t_qp_new(test, 8);
	struct ib_wc wc[8];

	mrc_qp_set_state(&t->qp, IB_QPS_RTS);
	mrc_t_send(t, 1, true);
	mrc_t_send(t, 2, false);
	mrc_t_send(t, 3, true);
	mrc_t_recv(t, 10);
	KUNIT_ASSERT_NOT_NULL(test, mrc_qp_next_send_wqe(&t->qp));
	mrc_qp_complete_send(&t->qp, IB_WC_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, mrc_qp_state(&t->qp), IB_QPS_ERR);

	/* the error first, then every other WR flushed, signaled or not */
	KUNIT_ASSERT_EQ(test, mrc_poll_cq(&t->scq.ibcq, 8, wc), 3);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 1ull);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 2ull);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wc[2].wr_id, 3ull);
	KUNIT_EXPECT_EQ(test, wc[2].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_ASSERT_EQ(test, mrc_poll_cq(&t->rcq.ibcq, 8, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 10ull);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);

	/* posting in ERR succeeds and is flushed at once */
	KUNIT_EXPECT_EQ(test, mrc_t_send(t, 4, false), 0);
	KUNIT_ASSERT_EQ(test, mrc_poll_cq(&t->scq.ibcq, 8, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 4ull);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);
	mrc_t_qp_free(t);
}

static void mrc_qp_flush_waits_for_transport(struct kunit *test)
{
	struct mrc_t_qp *t = mrc_t_qp_new(test, 8);
	struct ib_wc wc[8];

	mrc_qp_set_state(&t->qp, IB_QPS_RTS);
	mrc_t_send(t, 1, true);
	mrc_t_send(t, 2, true);
	mrc_t_send(t, 3, true);
	KUNIT_ASSERT_NOT_NULL(test, mrc_qp_next_send_wqe(&t->qp));
	KUNIT_ASSERT_NOT_NULL(test, mrc_qp_next_send_wqe(&t->qp));
	/* WRs 1 and 2 are in the transport's hands when the QP fails */
	mrc_qp_error(&t->qp, 0);
	KUNIT_EXPECT_EQ(test, mrc_poll_cq(&t->scq.ibcq, 8, wc), 0);
	KUNIT_EXPECT_NULL(test, mrc_qp_next_send_wqe(&t->qp));
	mrc_qp_complete_send(&t->qp, IB_WC_WR_FLUSH_ERR);
	mrc_qp_complete_send(&t->qp, IB_WC_WR_FLUSH_ERR);
	/* only now is WR 3 flushed, after them: order holds */
	KUNIT_ASSERT_EQ(test, mrc_poll_cq(&t->scq.ibcq, 8, wc), 3);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 1ull);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 2ull);
	KUNIT_EXPECT_EQ(test, wc[2].wr_id, 3ull);
	mrc_t_qp_free(t);
}

static void mrc_qp_recv_completions_in_order(struct kunit *test)
{
	struct mrc_t_qp *t = mrc_t_qp_new(test, 8);
	struct mrc_recv_wqe *wqe;
	struct ib_wc in = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.byte_len = 100,
	};
	struct ib_wc wc[4];
	int i;

	mrc_qp_set_state(&t->qp, IB_QPS_INIT);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, mrc_t_recv(t, 20 + i), 0);
	mrc_qp_set_state(&t->qp, IB_QPS_RTR);
	for (i = 0; i < 3; i++) {
		wqe = mrc_qp_take_recv(&t->qp);
		KUNIT_ASSERT_NOT_NULL(test, wqe);
		KUNIT_EXPECT_EQ(test, wqe->wr_id, 20ull + i);
		KUNIT_EXPECT_EQ(test, wqe->length, 256u);
		KUNIT_EXPECT_EQ(test, wqe->sge[0].lkey, 0x200u);
	}
	/* none left: the transport would answer RNR */
	KUNIT_EXPECT_NULL(test, mrc_qp_take_recv(&t->qp));
	for (i = 0; i < 3; i++) {
		in.wr_id = 999;	/* filled in by the QP, not trusted */
		KUNIT_ASSERT_EQ(test, mrc_qp_complete_recv(&t->qp, &in, false),
				0);
	}
	KUNIT_ASSERT_EQ(test, mrc_poll_cq(&t->rcq.ibcq, 4, wc), 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, 20ull + i);
		KUNIT_EXPECT_EQ(test, wc[i].byte_len, 100u);
	}
	mrc_t_qp_free(t);
}

static void mrc_qp_full_queue_refuses(struct kunit *test)
{
	struct mrc_t_qp *t = mrc_t_qp_new(test, 4);
	struct ib_sge sge = { .addr = 0x1000, .length = 8, .lkey = 1 };
	struct ib_send_wr wr[6];
	const struct ib_send_wr *bad = NULL;
	u32 i, depth = t->qp.sq.max_wr;

	KUNIT_ASSERT_LT(test, depth, (u32)ARRAY_SIZE(wr));
	mrc_qp_set_state(&t->qp, IB_QPS_RTS);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < ARRAY_SIZE(wr); i++) {
		wr[i].wr_id = i;
		wr[i].opcode = IB_WR_RDMA_WRITE;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < ARRAY_SIZE(wr) ? &wr[i + 1] : NULL;
	}
	/* a chain longer than the ring: the first overflowing WR is bad */
	KUNIT_EXPECT_EQ(test, mrc_post_send(&t->qp.ibqp, wr, &bad), -ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&wr[depth]);
	for (i = 0; i < depth; i++)
		KUNIT_EXPECT_NOT_NULL(test, mrc_qp_next_send_wqe(&t->qp));
	KUNIT_EXPECT_NULL(test, mrc_qp_next_send_wqe(&t->qp));
	mrc_t_qp_free(t);
}

static void mrc_qp_reset_drops_silently(struct kunit *test)
{
	struct mrc_t_qp *t = mrc_t_qp_new(test, 8);
	struct ib_wc wc[8];

	mrc_qp_set_state(&t->qp, IB_QPS_RTS);
	mrc_t_send(t, 1, true);
	mrc_t_recv(t, 2);
	mrc_qp_set_state(&t->qp, IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, mrc_poll_cq(&t->scq.ibcq, 8, wc), 0);
	KUNIT_EXPECT_EQ(test, mrc_poll_cq(&t->rcq.ibcq, 8, wc), 0);
	mrc_qp_set_state(&t->qp, IB_QPS_RTS);
	KUNIT_EXPECT_NULL(test, mrc_qp_next_send_wqe(&t->qp));
	KUNIT_EXPECT_NULL(test, mrc_qp_take_recv(&t->qp));
	mrc_t_qp_free(t);
}

static void mrc_qp_cq_overflow_is_fatal(struct kunit *test)
{
	struct mrc_t_qp *t = mrc_t_qp_new(test, 128);
	u32 i, room = t->scq.q.num;

	mrc_qp_set_state(&t->qp, IB_QPS_RTS);
	for (i = 0; i <= room; i++)
		KUNIT_ASSERT_EQ(test, mrc_t_send(t, i, true), 0);
	for (i = 0; i <= room; i++) {
		KUNIT_ASSERT_NOT_NULL(test, mrc_qp_next_send_wqe(&t->qp));
		mrc_qp_complete_send(&t->qp, IB_WC_SUCCESS);
	}
	/* a completion the CQ could not take: the QP is lost, loudly */
	KUNIT_EXPECT_EQ(test, mrc_qp_state(&t->qp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, t->fatal_events, 1);
	mrc_t_qp_free(t);
}

static struct kunit_case mrc_qp_cases[] = {
	KUNIT_CASE(mrc_qp_rc_path_to_rts),
	KUNIT_CASE(mrc_qp_refuses_skipped_states),
	KUNIT_CASE(mrc_qp_any_live_state_to_error),
	KUNIT_CASE(mrc_qp_requires_transition_attrs),
	KUNIT_CASE(mrc_qp_cur_state_must_match),
	KUNIT_CASE(mrc_qp_refuses_out_of_range_values),
	KUNIT_CASE(mrc_qp_refuses_bad_port_pkey_access),
	KUNIT_CASE(mrc_qp_post_allowed_by_state),
	KUNIT_CASE(mrc_qp_post_refused_before_ready),
	KUNIT_CASE(mrc_qp_send_completions_in_order),
	KUNIT_CASE(mrc_qp_error_completion_flushes_rest),
	KUNIT_CASE(mrc_qp_flush_waits_for_transport),
	KUNIT_CASE(mrc_qp_recv_completions_in_order),
	KUNIT_CASE(mrc_qp_full_queue_refuses),
	KUNIT_CASE(mrc_qp_reset_drops_silently),
	KUNIT_CASE(mrc_qp_cq_overflow_is_fatal),
	{}
};

static struct kunit_suite mrc_qp_suite = {
	.name = "metaroce_qp",
	.test_cases = mrc_qp_cases,
};

kunit_test_suite(mrc_qp_suite);
