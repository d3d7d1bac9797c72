// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: work-request validation and WQE construction (wqe.c).
 *
 * post_send must refuse, before anything is queued, what a real HCA
 * refuses: opcodes the QP type lacks, too many SGEs, oversize messages,
 * bad inline use, misaligned atomics, UD sends without an address.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "../verbs.h"

static const enum ib_wr_opcode mrc_t_ops[] = {
	IB_WR_SEND, IB_WR_SEND_WITH_IMM, IB_WR_SEND_WITH_INV,
	IB_WR_RDMA_WRITE, IB_WR_RDMA_WRITE_WITH_IMM, IB_WR_RDMA_READ,
	IB_WR_ATOMIC_CMP_AND_SWP, IB_WR_ATOMIC_FETCH_AND_ADD,
	IB_WR_LOCAL_INV, IB_WR_REG_MR,
};

/* Bit i: mrc_t_ops[i] is valid on the QP type. */
static const struct {
	enum ib_qp_type type;
	u32 ok;
} mrc_t_op_table[] = {
	{ IB_QPT_RC, 0x3ff },
	/* [OPS-41] all but READ and the atomics */
	{ IB_QPT_UC, 0x3ff & ~(BIT(5) | BIT(6) | BIT(7)) },
	{ IB_QPT_UD, 0x01 | 0x02 },
	{ IB_QPT_GSI, 0x01 | 0x02 },
};

static void mrc_wr_opcodes_per_qp_type(struct kunit *test)
{
	int t, i;

	for (t = 0; t < ARRAY_SIZE(mrc_t_op_table); t++)
		for (i = 0; i < ARRAY_SIZE(mrc_t_ops); i++) {
			bool ok = mrc_t_op_table[t].ok & BIT(i);

			KUNIT_EXPECT_EQ_MSG(test,
					    mrc_wr_opcode_ok(mrc_t_op_table[t].type,
							     mrc_t_ops[i]),
					    ok ? 0 : -EINVAL,
					    "qp type %d opcode %d",
					    mrc_t_op_table[t].type, mrc_t_ops[i]);
		}
	KUNIT_EXPECT_EQ(test, mrc_wr_opcode_ok(IB_QPT_RC, IB_WR_LSO), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_wr_opcode_ok(IB_QPT_RC, IB_WR_MASKED_ATOMIC_CMP_AND_SWP),
			-EINVAL);
}

static void mrc_wr_sge_limits(struct kunit *test)
{
	struct ib_sge sge[4] = {
		{ .addr = 0x1000, .length = 100, .lkey = 1 },
		{ .addr = 0x2000, .length = 200, .lkey = 1 },
		{ .addr = 0x3000, .length = 300, .lkey = 1 },
		{ .addr = 0x4000, .length = 0, .lkey = 1 },
	};
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .sg_list = sge,
				 .num_sge = 4 };
	u64 total = 0;

	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr, 4, 0, &total),
			0);
	KUNIT_EXPECT_EQ(test, total, 600ull);
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr, 3, 0, &total),
			-EINVAL);
	wr.num_sge = -1;
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr, 4, 0, &total),
			-EINVAL);
	wr.num_sge = 1;
	wr.sg_list = NULL;
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr, 4, 0, &total),
			-EINVAL);
	/* a zero-length send needs no SGE at all */
	wr.num_sge = 0;
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr, 4, 0, &total),
			0);
	KUNIT_EXPECT_EQ(test, total, 0ull);
}

static void mrc_wr_message_size_limit(struct kunit *test)
{
	struct ib_sge sge[2] = {
		{ .addr = 0, .length = 0x40000000, .lkey = 1 },
		{ .addr = 0, .length = 0x40000000, .lkey = 1 },
	};
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = sge,
			.num_sge = 2 },
	};
	u64 total = 0;

	/* exactly 2 GiB is the largest message */
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 2, 0,
						&total), 0);
	KUNIT_EXPECT_EQ(test, total, 1ull << 31);
	sge[1].length++;
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 2, 0,
						&total), -EINVAL);
	/* u32 lengths summed must not wrap back under the limit */
	sge[0].length = U32_MAX;
	sge[1].length = 2;
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 2, 0,
						&total), -EINVAL);
}

static void mrc_wr_inline_rules(struct kunit *test)
{
	u8 data[64];
	struct ib_sge sge = { .addr = (uintptr_t)data, .length = 64 };
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_INLINE },
	};
	u64 total;

	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 1, 64,
						&total), 0);
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 1, 63,
						&total), -EINVAL);
	/* a READ has nothing to carry inline */
	wr.wr.opcode = IB_WR_RDMA_READ;
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 1, 64,
						&total), -EINVAL);
}

static void mrc_wr_atomic_rules(struct kunit *test)
{
	struct ib_sge sge = { .addr = 0x1000, .length = 8, .lkey = 1 };
	struct ib_atomic_wr wr = {
		.wr = { .opcode = IB_WR_ATOMIC_FETCH_AND_ADD, .sg_list = &sge,
			.num_sge = 1 },
		.remote_addr = 0x10008,
		.compare_add = 1,
	};
	u64 total;

	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 2, 0,
						&total), 0);
	KUNIT_EXPECT_EQ(test, total, 8ull);
	wr.remote_addr = 0x10004;
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 2, 0,
						&total), -EINVAL);
	wr.remote_addr = 0x10008;
	sge.length = 4;
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 2, 0,
						&total), -EINVAL);
	sge.length = 8;
	wr.wr.num_sge = 0;
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 2, 0,
						&total), -EINVAL);
}

static void mrc_wr_ud_needs_ah_and_reg_needs_mr(struct kunit *test)
{
	struct ib_ud_wr ud = { .wr = { .opcode = IB_WR_SEND } };
	struct ib_reg_wr reg = { .wr = { .opcode = IB_WR_REG_MR } };
	u64 total;

	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_UD, &ud.wr, 1, 0,
						&total), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_GSI, &ud.wr, 1, 0,
						&total), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &reg.wr, 1, 0,
						&total), -EINVAL);
}

static void mrc_wr_recv_check(struct kunit *test)
{
	struct ib_sge sge[2] = {
		{ .addr = 0x1000, .length = U32_MAX, .lkey = 1 },
		{ .addr = 0x2000, .length = U32_MAX, .lkey = 1 },
	};
	struct ib_recv_wr wr = { .sg_list = sge, .num_sge = 2 };
	u64 total = 0;

	KUNIT_EXPECT_EQ(test, mrc_recv_wr_check(&wr, 2, &total), 0);
	KUNIT_EXPECT_EQ(test, total, 2ull * U32_MAX);	/* no u32 wrap */
	KUNIT_EXPECT_EQ(test, mrc_recv_wr_check(&wr, 1, &total), -EINVAL);
	wr.sg_list = NULL;
	KUNIT_EXPECT_EQ(test, mrc_recv_wr_check(&wr, 2, &total), -EINVAL);
}

static void mrc_wr_inline_copied_at_post(struct kunit *test)
{
	size_t size = mrc_send_wqe_size(2, 64);
	struct mrc_send_wqe *wqe = kunit_kzalloc(test, size, GFP_KERNEL);
	u8 a[20], b[30];
	struct ib_sge sge[2] = {
		{ .addr = (uintptr_t)a, .length = sizeof(a) },
		{ .addr = (uintptr_t)b, .length = sizeof(b) },
	};
	struct ib_send_wr wr = {
		.wr_id = 77, .opcode = IB_WR_SEND_WITH_IMM, .sg_list = sge,
		.num_sge = 2, .send_flags = IB_SEND_INLINE | IB_SEND_SIGNALED,
		.ex.imm_data = cpu_to_be32(0xabcd),
	};
	u64 total;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wqe);
	memset(a, 0xa1, sizeof(a));
	memset(b, 0xb2, sizeof(b));
	KUNIT_ASSERT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr, 2, 64, &total),
			0);
	mrc_send_wqe_fill(wqe, &wr, total);
	/* the consumer reuses its buffers the moment post_send returns */
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	KUNIT_EXPECT_TRUE(test, mrc_send_wqe_inline(wqe));
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 77ull);
	KUNIT_EXPECT_EQ(test, wqe->length, 50u);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 0u);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wqe->ex.imm_data), 0xabcdu);
	KUNIT_EXPECT_EQ(test, wqe->data[0], 0xa1);
	KUNIT_EXPECT_EQ(test, wqe->data[19], 0xa1);
	KUNIT_EXPECT_EQ(test, wqe->data[20], 0xb2);
	KUNIT_EXPECT_EQ(test, wqe->data[49], 0xb2);
}

static void mrc_wr_sges_and_remote_copied(struct kunit *test)
{
	size_t size = mrc_send_wqe_size(2, 0);
	struct mrc_send_wqe *wqe = kunit_kzalloc(test, size, GFP_KERNEL);
	struct ib_sge sge[2] = {
		{ .addr = 0x1000, .length = 10, .lkey = 0x11 },
		{ .addr = 0x2000, .length = 20, .lkey = 0x22 },
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 5, .opcode = IB_WR_RDMA_WRITE, .sg_list = sge,
			.num_sge = 2 },
		.remote_addr = 0xfeed0000,
		.rkey = 0x3344,
	};
	struct mrc_sge *s;
	u64 total;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wqe);
	KUNIT_EXPECT_GE(test, size, sizeof(*wqe) + 2 * sizeof(struct mrc_sge));
	KUNIT_EXPECT_EQ(test, size % 8, (size_t)0);
	KUNIT_ASSERT_EQ(test, mrc_send_wr_check(IB_QPT_RC, &wr.wr, 2, 0,
						&total), 0);
	mrc_send_wqe_fill(wqe, &wr.wr, total);
	s = mrc_send_wqe_sge(wqe);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 2u);
	KUNIT_EXPECT_EQ(test, wqe->length, 30u);
	KUNIT_EXPECT_EQ(test, s[1].addr, 0x2000ull);
	KUNIT_EXPECT_EQ(test, s[1].length, 20u);
	KUNIT_EXPECT_EQ(test, s[1].lkey, 0x22u);
	KUNIT_EXPECT_EQ(test, wqe->wr.rdma.remote_addr, 0xfeed0000ull);
	KUNIT_EXPECT_EQ(test, wqe->wr.rdma.rkey, 0x3344u);
}

static void mrc_wr_completion_opcodes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mrc_wr_to_wc_opcode(IB_WR_SEND), IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, mrc_wr_to_wc_opcode(IB_WR_SEND_WITH_INV),
			IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, mrc_wr_to_wc_opcode(IB_WR_RDMA_WRITE_WITH_IMM),
			IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, mrc_wr_to_wc_opcode(IB_WR_RDMA_READ),
			IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, mrc_wr_to_wc_opcode(IB_WR_ATOMIC_CMP_AND_SWP),
			IB_WC_COMP_SWAP);
	KUNIT_EXPECT_EQ(test, mrc_wr_to_wc_opcode(IB_WR_ATOMIC_FETCH_AND_ADD),
			IB_WC_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, mrc_wr_to_wc_opcode(IB_WR_LOCAL_INV),
			IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, mrc_wr_to_wc_opcode(IB_WR_REG_MR), IB_WC_REG_MR);
}

/*
 * A process's UD slot names its AH by number; the copy keeps the number
 * (resolved and checked only when sending) and no pointer.
 */
static void mrc_wr_user_ud_slot(struct kunit *test)
{
	size_t usize = mrc_user_send_slot_size(2, 0);
	struct metaroce_send_wqe *u = kunit_kzalloc(test, usize, GFP_KERNEL);
	struct mrc_send_wqe *wqe;
	struct metaroce_sge *sge;

	wqe = kunit_kzalloc(test, mrc_send_wqe_size(2, 0), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u);
	KUNIT_ASSERT_NOT_NULL(test, wqe);
	sge = (struct metaroce_sge *)(u + 1);
	u->wr_id = 9;
	u->opcode = IB_WR_SEND_WITH_IMM;
	u->send_flags = IB_SEND_SIGNALED;
	u->num_sge = 1;
	u->ex.imm_data = cpu_to_be32(0x1234);
	u->wr.ud.ah_num = 77;
	u->wr.ud.remote_qpn = 0x123456;
	u->wr.ud.remote_qkey = 0x11111111;
	sge[0].addr = 0x1000;
	sge[0].length = 100;
	sge[0].lkey = 0x500;
	wqe->wr.ud.ah = (struct mrc_ah *)0x1;	/* must not survive */

	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_UD, wqe, u, 2, 0),
			0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, (u32)IB_WR_SEND_WITH_IMM);
	KUNIT_EXPECT_NULL(test, wqe->wr.ud.ah);
	KUNIT_EXPECT_EQ(test, wqe->wr.ud.ah_num, 77u);
	KUNIT_EXPECT_EQ(test, wqe->wr.ud.remote_qpn, 0x123456u);
	KUNIT_EXPECT_EQ(test, wqe->wr.ud.remote_qkey, 0x11111111u);
	KUNIT_EXPECT_EQ(test, wqe->length, 100u);

	/* UD has no RDMA: the slot becomes an error completion */
	u->opcode = IB_WR_RDMA_WRITE;
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_UD, wqe, u, 2, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, wqe->opcode, (u32)MRC_WR_INVALID);
}

/* A user send slot with room for @max_sge SGEs or @max_inline bytes. */
struct mrc_t_uslot {
	struct metaroce_send_wqe *u;
	struct metaroce_sge *sge;
	struct mrc_send_wqe *wqe;
};

static void mrc_t_uslot_init(struct kunit *test, struct mrc_t_uslot *s,
			     u32 max_sge, u32 max_inline)
{
	s->u = kunit_kzalloc(test, mrc_user_send_slot_size(max_sge, max_inline),
			     GFP_KERNEL);
	s->wqe = kunit_kzalloc(test, mrc_send_wqe_size(max_sge, max_inline),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->u);
	KUNIT_ASSERT_NOT_NULL(test, s->wqe);
	s->sge = (struct metaroce_sge *)(s->u + 1);
}

/* A well-formed 2-SGE RDMA WRITE, the base every hostile variant bends. */
static void mrc_t_uslot_write(struct mrc_t_uslot *s)
{
	memset(s->u, 0, sizeof(*s->u));
	s->u->wr_id = 0xabc;
	s->u->opcode = IB_WR_RDMA_WRITE;
	s->u->send_flags = IB_SEND_SIGNALED;
	s->u->num_sge = 2;
	s->u->wr.rdma.remote_addr = 0x10000;
	s->u->wr.rdma.rkey = 7;
	s->sge[0].addr = 0x1000;
	s->sge[0].length = 100;
	s->sge[1].addr = 0x2000;
	s->sge[1].length = 200;
}

/*
 * A refused slot still becomes a WQE, so that it completes in posting
 * order: MRC_WR_INVALID, which the RC and UD senders complete with
 * IB_WC_LOC_QP_OP_ERR, carrying nothing (no SGE, no length, no flag but
 * SIGNALED) and its wr_id.
 */
static void mrc_t_expect_refused(struct kunit *test, struct mrc_t_uslot *s,
				 enum ib_qp_type type, const char *what)
{
	KUNIT_EXPECT_EQ_MSG(test, mrc_send_wqe_from_user(type, s->wqe, s->u,
							 4, 64),
			    -EINVAL, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, s->wqe->opcode, (u32)MRC_WR_INVALID, "%s",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, s->wqe->num_sge, 0u, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, s->wqe->length, 0u, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, s->wqe->send_flags & ~IB_SEND_SIGNALED, 0,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, s->wqe->wr_id, s->u->wr_id, "%s", what);
}

/*
 * What a hostile process can write into its send ring: each slot below is
 * refused, whatever it claims, and nothing is read past the slot.
 */
static void mrc_wr_user_send_slot_hostile(struct kunit *test)
{
	static const u32 bad_ops[] = {
		IB_WR_LOCAL_INV, IB_WR_REG_MR, IB_WR_LSO, IB_WR_BIND_MW,
		MRC_WR_INVALID, 0xdead, U32_MAX,
	};
	struct mrc_t_uslot s;
	u32 i;

	mrc_t_uslot_init(test, &s, 4, 64);
	mrc_t_uslot_write(&s);
	KUNIT_ASSERT_EQ(test, mrc_send_wqe_from_user(IB_QPT_RC, s.wqe, s.u,
						     4, 64), 0);
	KUNIT_EXPECT_EQ(test, s.wqe->length, 300u);

	/* more SGEs than the QP has, up to all ones */
	s.u->num_sge = 5;
	mrc_t_expect_refused(test, &s, IB_QPT_RC, "5 SGEs of 4");
	s.u->num_sge = U32_MAX;
	mrc_t_expect_refused(test, &s, IB_QPT_RC, "num_sge U32_MAX");
	s.u->num_sge = 0x80000001;
	mrc_t_expect_refused(test, &s, IB_QPT_RC, "num_sge * 16 wraps u32");

	/* lengths whose sum passes the largest message */
	mrc_t_uslot_write(&s);
	s.sge[0].length = U32_MAX;
	s.sge[1].length = U32_MAX;
	mrc_t_expect_refused(test, &s, IB_QPT_RC, "2 x 4 GiB");
	s.sge[0].length = MRC_MAX_MSG_SIZE;
	s.sge[1].length = 1;
	mrc_t_expect_refused(test, &s, IB_QPT_RC, "2 GiB + 1");

	/* inline: longer than max_inline, or all ones */
	mrc_t_uslot_write(&s);
	s.u->opcode = IB_WR_SEND;
	s.u->send_flags |= IB_SEND_INLINE;
	s.u->length = 65;
	mrc_t_expect_refused(test, &s, IB_QPT_RC, "inline 65 of 64");
	s.u->length = U32_MAX;
	mrc_t_expect_refused(test, &s, IB_QPT_RC, "inline U32_MAX");
	s.u->opcode = IB_WR_RDMA_READ;
	s.u->length = 8;
	mrc_t_expect_refused(test, &s, IB_QPT_RC, "inline READ");

	/* opcodes a process may not post, or that do not exist */
	for (i = 0; i < ARRAY_SIZE(bad_ops); i++) {
		mrc_t_uslot_write(&s);
		s.u->opcode = bad_ops[i];
		mrc_t_expect_refused(test, &s, IB_QPT_RC, "opcode");
	}
	/* an opcode the QP type lacks */
	mrc_t_uslot_write(&s);
	mrc_t_expect_refused(test, &s, IB_QPT_UD, "WRITE on UD");
	s.u->opcode = IB_WR_RDMA_READ;
	mrc_t_expect_refused(test, &s, IB_QPT_UD, "READ on UD");

	/* any flag but FENCE, SIGNALED, SOLICITED and INLINE */
	for (i = 0; i < 32; i++) {
		u32 f = BIT(i);

		if (f & (IB_SEND_FENCE | IB_SEND_SIGNALED |
			 IB_SEND_SOLICITED | IB_SEND_INLINE))
			continue;
		mrc_t_uslot_write(&s);
		s.u->send_flags |= f;
		mrc_t_expect_refused(test, &s, IB_QPT_RC, "flag");
	}

	/* atomics: one 8-byte SGE, an aligned target */
	mrc_t_uslot_write(&s);
	s.u->opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	s.u->num_sge = 1;
	s.sge[0].length = 8;
	s.u->wr.atomic.remote_addr = 0x1004;
	mrc_t_expect_refused(test, &s, IB_QPT_RC, "misaligned atomic");
	s.u->wr.atomic.remote_addr = 0x1000;
	s.sge[0].length = 16;
	mrc_t_expect_refused(test, &s, IB_QPT_RC, "16-byte atomic");
	s.sge[0].length = 8;
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_RC, s.wqe, s.u,
						     4, 64), 0);
}

/* The same for receive slots: a refused one is a 0-byte buffer. */
static void mrc_wr_user_recv_slot_hostile(struct kunit *test)
{
	size_t usize = mrc_user_recv_slot_size(4);
	struct metaroce_recv_wqe *u = kunit_kzalloc(test, usize, GFP_KERNEL);
	struct mrc_recv_wqe *wqe;
	struct metaroce_sge *sge;
	static const u32 bad_num[] = { 5, 0x10000000, 0x80000001, U32_MAX };
	u32 i;

	wqe = kunit_kzalloc(test, mrc_recv_wqe_size(4), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u);
	KUNIT_ASSERT_NOT_NULL(test, wqe);
	sge = (struct metaroce_sge *)(u + 1);
	u->wr_id = 3;
	u->num_sge = 4;
	for (i = 0; i < 4; i++) {
		sge[i].addr = 0x1000 * (i + 1);
		sge[i].length = U32_MAX;
	}
	/* four 4 GiB buffers: the length saturates, nothing wraps */
	KUNIT_EXPECT_EQ(test, mrc_recv_wqe_from_user(wqe, u, 4), 0);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 4u);
	KUNIT_EXPECT_EQ(test, wqe->length, U32_MAX);
	for (i = 0; i < ARRAY_SIZE(bad_num); i++) {
		u->num_sge = bad_num[i];
		KUNIT_EXPECT_EQ_MSG(test, mrc_recv_wqe_from_user(wqe, u, 4),
				    -EINVAL, "num_sge %u", bad_num[i]);
		KUNIT_EXPECT_EQ(test, wqe->num_sge, 0u);
		KUNIT_EXPECT_EQ(test, wqe->length, 0u);
		KUNIT_EXPECT_EQ(test, wqe->wr_id, 3ull);
	}
}

static struct kunit_case mrc_wr_cases[] = {
	KUNIT_CASE(mrc_wr_opcodes_per_qp_type),
	KUNIT_CASE(mrc_wr_sge_limits),
	KUNIT_CASE(mrc_wr_message_size_limit),
	KUNIT_CASE(mrc_wr_inline_rules),
	KUNIT_CASE(mrc_wr_atomic_rules),
	KUNIT_CASE(mrc_wr_ud_needs_ah_and_reg_needs_mr),
	KUNIT_CASE(mrc_wr_recv_check),
	KUNIT_CASE(mrc_wr_inline_copied_at_post),
	KUNIT_CASE(mrc_wr_sges_and_remote_copied),
	KUNIT_CASE(mrc_wr_completion_opcodes),
	KUNIT_CASE(mrc_wr_user_ud_slot),
	KUNIT_CASE(mrc_wr_user_send_slot_hostile),
	KUNIT_CASE(mrc_wr_user_recv_slot_hostile),
	{}
};

static struct kunit_suite mrc_wr_suite = {
	.name = "metaroce_wr",
	.test_cases = mrc_wr_cases,
};

kunit_test_suite(mrc_wr_suite);
