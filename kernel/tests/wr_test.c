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
	{ IB_QPT_UC, 0x01 | 0x02 | 0x08 | 0x10 | 0x100 | 0x200 },
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
	{}
};

static struct kunit_suite mrc_wr_suite = {
	.name = "metaroce_wr",
	.test_cases = mrc_wr_cases,
};

kunit_test_suite(mrc_wr_suite);
