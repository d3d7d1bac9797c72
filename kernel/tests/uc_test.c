// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: UC queue pairs ([OPS-40]..[OPS-43]) on the pair of pair.h. UC
 * rides the RC transport: its SENDs and WRITEs arrive whole and in order
 * through loss, the requests UC does not have are refused at post time,
 * and a peer that sends one anyway fails the connection, not the host.
 */
#include <kunit/test.h>

#if IS_BUILTIN(CONFIG_METAROCE)

#include <linux/delay.h>

#include "../metaroce.h"
#include "../stats.h"
#include "../verbs.h"
#include "../core/wire.h"
#include "pair.h"

#define MRC_T_UC_SLOT	8192
#define MRC_T_UC_MSGS	8	/* 7 SENDs, then a WRITE with immediate */

/* @u: @t's ends with a UC QP each, connected (A 400 -> B, B 7000 -> A). */
static void mrc_t_uc_up(struct kunit *test, struct mrc_t_rc *t,
			struct mrc_t_rc *u)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i;

	*u = *t;
	for (i = 0; i < 2; i++) {
		init.send_cq = t->e[i].cq;
		init.recv_cq = t->e[i].cq;
		u->e[i].qp = ib_create_qp(t->e[i].pd, &init);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, u->e[i].qp);
	}
	KUNIT_ASSERT_EQ(test, mrc_t_connect(&u->e[0], &u->e[1], 400, 7000), 0);
	KUNIT_ASSERT_EQ(test, mrc_t_connect(&u->e[1], &u->e[0], 7000, 400), 0);
	mrc_t_hello_settle(u);
}

static void mrc_t_uc_down(struct mrc_t_rc *t, struct mrc_t_rc *u)
{
	int i;

	for (i = 0; i < 2; i++) {
		ib_destroy_qp(u->e[i].qp);
		/* mrc_t_connect() may have looked the GID up again */
		t->e[i].gid = u->e[i].gid;
	}
}

/*
 * [OPS-42] SENDs of 1 B to 6 KiB and a WRITE with immediate, every 5th
 * datagram lost on the way: each lands whole, in its receive, in order,
 * and the sender's completions say success in posting order.
 */
static void mrc_uc_messages_survive_loss(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv, u;
	struct mrc_t_wire *w = netdev_priv(t->e[0].ndev);
	struct mrc_t_end *a, *b;
	u64 retx0 = mrc_t_stat(t->e[0].dev, MRC_STAT_RETRANSMITS);
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	struct ib_wc wc;
	u32 i, len[MRC_T_UC_MSGS];

	mrc_t_uc_up(test, t, &u);
	a = &u.e[0];
	b = &u.e[1];
	memset(b->buf, 0, MRC_T_BUF + 64);
	for (i = 0; i < MRC_T_UC_MSGS; i++) {
		struct ib_sge s = {
			.addr = (uintptr_t)b->buf + i * MRC_T_UC_SLOT,
			.length = MRC_T_UC_SLOT,
			.lkey = b->pd->local_dma_lkey,
		};
		struct ib_recv_wr r = { .wr_id = 100 + i, .sg_list = &s,
					.num_sge = 1 };

		KUNIT_ASSERT_EQ(test, ib_post_recv(b->qp, &r, &rbad), 0);
	}
	w->drop_every = 5;
	for (i = 0; i < MRC_T_UC_MSGS; i++) {
		bool last = i == MRC_T_UC_MSGS - 1;
		struct ib_sge s = {
			.addr = (uintptr_t)a->buf + i * MRC_T_UC_SLOT,
			.lkey = a->pd->local_dma_lkey,
		};
		struct ib_rdma_wr wr = {
			.wr = {
				.wr_id = 200 + i,
				.opcode = last ? IB_WR_RDMA_WRITE_WITH_IMM :
						 IB_WR_SEND,
				.send_flags = IB_SEND_SIGNALED,
				.sg_list = &s,
				.num_sge = 1,
				.ex.imm_data = cpu_to_be32(0xc0ffee),
			},
			/* the WRITE lands in the slot its receive names */
			.remote_addr = (uintptr_t)b->buf + i * MRC_T_UC_SLOT,
			.rkey = b->pd->unsafe_global_rkey,
		};

		len[i] = last ? 4096 : 1 + i * 1000;
		s.length = len[i];
		mrc_t_fill(a->buf + i * MRC_T_UC_SLOT, len[i], i);
		KUNIT_ASSERT_EQ(test, ib_post_send(a->qp, &wr.wr, &sbad), 0);
	}
	for (i = 0; i < MRC_T_UC_MSGS; i++) {
		KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 200ull + i);
	}
	for (i = 0; i < MRC_T_UC_MSGS; i++) {
		bool last = i == MRC_T_UC_MSGS - 1;
		u8 *got = b->buf + i * MRC_T_UC_SLOT;

		KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(b, &wc), 0);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 100ull + i);
		KUNIT_EXPECT_EQ(test, wc.opcode, last ? IB_WC_RECV_RDMA_WITH_IMM :
							IB_WC_RECV);
		KUNIT_EXPECT_EQ(test, wc.byte_len, len[i]);
		KUNIT_EXPECT_EQ(test, memcmp(got, a->buf + i * MRC_T_UC_SLOT,
					     len[i]), 0);
		KUNIT_EXPECT_EQ(test, got[len[i]], 0);
		if (last)
			KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data),
					0xc0ffeeu);
	}
	w->drop_every = 0;
	/* what was lost was resent, not dropped as a UC HCA would */
	KUNIT_EXPECT_GT(test, atomic_read(&w->dropped), 0);
	KUNIT_EXPECT_GT(test, mrc_t_stat(t->e[0].dev, MRC_STAT_RETRANSMITS),
			retx0);
	mrc_t_uc_down(t, &u);
}

/*
 * [OPS-42] A UC SEND that finds no receive waits for one (RNR NAKs 640 us
 * apart), however many: verbs give UC no rnr_retry, and its 0 would have
 * failed the SEND at the first NAK. Posted late, the receive gets it.
 */
static void mrc_uc_send_waits_for_receive(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv, u;
	struct mrc_t_end *a, *b;
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	unsigned long until;
	struct ib_wc wc;
	u64 naks0;

	mrc_t_uc_up(test, t, &u);
	a = &u.e[0];
	b = &u.e[1];
	{
		struct ib_sge s = { .addr = (uintptr_t)a->buf, .length = 3000,
				    .lkey = a->pd->local_dma_lkey };
		struct ib_send_wr wr = { .wr_id = 7, .opcode = IB_WR_SEND,
					 .send_flags = IB_SEND_SIGNALED,
					 .sg_list = &s, .num_sge = 1 };

		mrc_t_fill(a->buf, 3000, 77);
		memset(b->buf, 0, 4096);
		naks0 = mrc_t_stat(b->dev, MRC_STAT_NAKS_SENT);
		KUNIT_ASSERT_EQ(test, ib_post_send(a->qp, &wr, &sbad), 0);
	}
	/* three refusals at least: the sender came back after each */
	until = jiffies + msecs_to_jiffies(MRC_T_WAIT_MS);
	while (mrc_t_stat(b->dev, MRC_STAT_NAKS_SENT) < naks0 + 3 &&
	       time_before(jiffies, until))
		msleep(20);
	KUNIT_EXPECT_GE(test, mrc_t_stat(b->dev, MRC_STAT_NAKS_SENT), naks0 + 3);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(a->cq, 1, &wc), 0);
	{
		struct ib_sge s = { .addr = (uintptr_t)b->buf, .length = 4096,
				    .lkey = b->pd->local_dma_lkey };
		struct ib_recv_wr r = { .wr_id = 8, .sg_list = &s, .num_sge = 1 };

		KUNIT_ASSERT_EQ(test, ib_post_recv(b->qp, &r, &rbad), 0);
	}
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ull);
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(b, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 8ull);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 3000u);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf, b->buf, 3000), 0);
	KUNIT_EXPECT_EQ(test, b->buf[3000], 0);
	mrc_t_uc_down(t, &u);
}

/*
 * [OPS-41] READ and the atomics fail at post time on a UC QP (no WQE
 * written, bad_wr names the request); a peer that sends a READ request
 * to a UC QP anyway gets a NAK, and only that QP enters the error state.
 */
static void mrc_uc_refuses_requests(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv, u;
	const enum ib_wr_opcode ops[] = { IB_WR_RDMA_READ,
		IB_WR_ATOMIC_FETCH_AND_ADD, IB_WR_ATOMIC_CMP_AND_SWP };
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	const struct ib_send_wr *sbad;
	struct mrc_pkt p = { };
	struct mrc_t_end *a, *b;
	u64 naks0;
	u32 len, i;
	int ms;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	mrc_t_uc_up(test, t, &u);
	a = &u.e[0];
	b = &u.e[1];
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		struct ib_sge s = { .addr = (uintptr_t)a->buf, .length = 8,
				    .lkey = a->pd->local_dma_lkey };
		struct ib_atomic_wr wr = {
			.wr = { .wr_id = i, .opcode = ops[i], .sg_list = &s,
				.num_sge = 1, .send_flags = IB_SEND_SIGNALED },
			.remote_addr = (uintptr_t)b->buf,
			.rkey = b->pd->unsafe_global_rkey,
		};

		sbad = NULL;
		KUNIT_EXPECT_EQ(test, ib_post_send(a->qp, &wr.wr, &sbad),
				-EINVAL);
		KUNIT_EXPECT_PTR_EQ(test, sbad, &wr.wr);
	}
	KUNIT_EXPECT_EQ(test, mrc_qp_state(to_mrc_qp(a->qp)), IB_QPS_RTS);

	/* as A's UC QP would send it, had it no such check */
	p.type = MRC_PKT_READ_REQ;
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.dst_qpn = b->qp->qp_num;
	p.cookie = 400;			/* B's rq_psn */
	p.psn = 400;
	p.read_req.va = (uintptr_t)b->buf;
	p.read_req.rkey = b->pd->unsafe_global_rkey;
	p.read_req.len = 8;
	KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, buf, 512, &len), MRC_WIRE_OK);
	naks0 = mrc_t_stat(b->dev, MRC_STAT_NAKS_SENT);
	mrc_t_inject(b, buf, len, false);
	for (ms = 0; ms < MRC_T_WAIT_MS &&
	     mrc_qp_state(to_mrc_qp(b->qp)) != IB_QPS_ERR; ms += 20)
		msleep(20);
	KUNIT_EXPECT_EQ(test, mrc_qp_state(to_mrc_qp(b->qp)), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_NAKS_SENT), naks0 + 1);
	mrc_t_uc_down(t, &u);
	/* the suite's RC connection on the same devices carries on */
	mrc_t_write(test, t, 4096);
}

static struct kunit_case mrc_uc_cases[] = {
	KUNIT_CASE(mrc_uc_messages_survive_loss),
	KUNIT_CASE(mrc_uc_send_waits_for_receive),
	KUNIT_CASE(mrc_uc_refuses_requests),
	{}
};

static struct kunit_suite mrc_uc_suite = {
	.name = "metaroce_uc",
	.init = mrc_t_pair_init,
	.exit = mrc_t_pair_exit,
	.test_cases = mrc_uc_cases,
};

kunit_test_suite(mrc_uc_suite);

#endif /* IS_BUILTIN(CONFIG_METAROCE) */
