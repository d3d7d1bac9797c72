// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Work requests: what a QP type accepts, the checks made at post time and
 * the copy of a work request into its queue slot. Everything here is pure
 * (no device, no locks) so KUnit can drive it with stack objects.
 */

#include <linux/overflow.h>
#include <linux/string.h>

#include "verbs.h"

int mrc_wr_opcode_ok(enum ib_qp_type type, enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return 0;
	/* [OPS-41] UC: the one-way operations and the local ones */
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
		return mrc_qp_type_connected(type) ? 0 : -EINVAL;
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return type == IB_QPT_RC ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

static bool mrc_opcode_is_atomic(enum ib_wr_opcode opcode)
{
	return opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* Opcodes whose payload may be carried inline in the WQE. */
static bool mrc_opcode_inlinable(enum ib_wr_opcode opcode)
{
	return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM ||
	       opcode == IB_WR_SEND_WITH_INV || opcode == IB_WR_RDMA_WRITE ||
	       opcode == IB_WR_RDMA_WRITE_WITH_IMM;
}

static u64 mrc_sge_sum(const struct ib_sge *sg, int num_sge)
{
	u64 sum = 0;
	int i;

	/* at most MRC_MAX_SGE u32 lengths: cannot overflow a u64 */
	for (i = 0; i < num_sge; i++)
		sum += sg[i].length;
	return sum;
}

int mrc_send_wr_check(enum ib_qp_type type, const struct ib_send_wr *wr,
		      u32 max_sge, u32 max_inline, u64 *total_len)
{
	enum ib_wr_opcode op = wr->opcode;
	u64 total;

	if (mrc_wr_opcode_ok(type, op))
		return -EINVAL;

	/* local memory operations carry no data */
	if (op == IB_WR_LOCAL_INV || op == IB_WR_REG_MR) {
		if (op == IB_WR_REG_MR && !reg_wr(wr)->mr)
			return -EINVAL;
		*total_len = 0;
		return 0;
	}

	if (wr->num_sge < 0 || wr->num_sge > max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return -EINVAL;
	total = mrc_sge_sum(wr->sg_list, wr->num_sge);
	if (total > MRC_MAX_MSG_SIZE)
		return -EINVAL;

	if (wr->send_flags & IB_SEND_INLINE) {
		if (!mrc_opcode_inlinable(op) || total > max_inline)
			return -EINVAL;
	}

	/* IBA 9.4.5: one 8-byte local buffer, naturally aligned target */
	if (mrc_opcode_is_atomic(op) &&
	    (wr->num_sge != 1 || total != 8 ||
	     (atomic_wr(wr)->remote_addr & 7)))
		return -EINVAL;

	if ((type == IB_QPT_UD || type == IB_QPT_GSI) && !ud_wr(wr)->ah)
		return -EINVAL;

	*total_len = total;
	return 0;
}

int mrc_recv_wr_check(const struct ib_recv_wr *wr, u32 max_sge,
		      u64 *total_len)
{
	if (wr->num_sge < 0 || wr->num_sge > max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return -EINVAL;
	*total_len = mrc_sge_sum(wr->sg_list, wr->num_sge);
	return 0;
}

static void mrc_copy_sges(struct mrc_sge *dst, const struct ib_sge *src,
			  int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
	}
}

/*
 * Copy @wr (already checked, @total from the check) into @wqe. Inline
 * data is read here, at post time, from the kernel addresses in the SGEs:
 * the consumer may reuse its buffer as soon as post_send returns.
 */
void mrc_send_wqe_fill(struct mrc_send_wqe *wqe, const struct ib_send_wr *wr,
		       u64 total)
{
	enum ib_wr_opcode op = wr->opcode;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = op;
	wqe->send_flags = wr->send_flags;
	wqe->length = total;

	if (op == IB_WR_SEND_WITH_INV || op == IB_WR_LOCAL_INV)
		wqe->ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else if (op == IB_WR_SEND_WITH_IMM || op == IB_WR_RDMA_WRITE_WITH_IMM)
		wqe->ex.imm_data = wr->ex.imm_data;

	switch (op) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		wqe->wr.reg.mr = to_mrc_mr(reg_wr(wr)->mr);
		wqe->wr.reg.key = reg_wr(wr)->key;
		wqe->wr.reg.access = reg_wr(wr)->access;
		wqe->send_flags &= ~IB_SEND_INLINE;
		return;
	case IB_WR_LOCAL_INV:
		wqe->send_flags &= ~IB_SEND_INLINE;
		return;
	default:
		break;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = wqe->data;
		int i;

		wqe->num_sge = 0;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		wqe->num_sge = wr->num_sge;
		mrc_copy_sges(mrc_send_wqe_sge(wqe), wr->sg_list, wr->num_sge);
	}
}

void mrc_recv_wqe_fill(struct mrc_recv_wqe *wqe, const struct ib_recv_wr *wr,
		       u64 total)
{
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	/* only compared with a message length, which is at most 2 GiB */
	wqe->length = min_t(u64, total, U32_MAX);
	mrc_copy_sges(wqe->sge, wr->sg_list, wr->num_sge);
}

size_t mrc_send_wqe_size(u32 max_sge, u32 max_inline)
{
	size_t data = max_t(size_t, (size_t)max_sge * sizeof(struct mrc_sge),
			    max_inline);

	return ALIGN(sizeof(struct mrc_send_wqe) + data, 8);
}

size_t mrc_recv_wqe_size(u32 max_sge)
{
	return struct_size((struct mrc_recv_wqe *)NULL, sge, max_sge);
}

enum ib_wc_opcode mrc_wr_to_wc_opcode(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

size_t mrc_user_send_slot_size(u32 max_sge, u32 max_inline)
{
	size_t data = max_t(size_t, (size_t)max_sge * sizeof(struct mrc_sge),
			    max_inline);

	return ALIGN(sizeof(struct metaroce_send_wqe) + data, 8);
}

size_t mrc_user_recv_slot_size(u32 max_sge)
{
	return sizeof(struct metaroce_recv_wqe) +
	       (size_t)max_sge * sizeof(struct metaroce_sge);
}

/*
 * What a process may post: no fast registration from userspace, but
 * windows (BIND_MW, which kernel consumers have no API for) and their
 * invalidation.
 */
static bool mrc_user_opcode_ok(enum ib_qp_type type, u32 opcode)
{
	if (opcode == IB_WR_BIND_MW)
		return mrc_qp_type_connected(type);
	if (mrc_wr_opcode_ok(type, opcode))
		return false;
	return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM ||
	       opcode == IB_WR_SEND_WITH_INV || opcode == IB_WR_RDMA_WRITE ||
	       opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
	       opcode == IB_WR_RDMA_READ || mrc_opcode_is_atomic(opcode) ||
	       opcode == IB_WR_LOCAL_INV;
}

static bool mrc_opcode_is_local(u32 opcode)
{
	return opcode == IB_WR_BIND_MW || opcode == IB_WR_LOCAL_INV;
}

/*
 * A bind slot: every field is checked by mrc_mw_bind() when it executes,
 * against the window and MR as they are then.
 */
static void mrc_bind_from_user(struct mrc_bind_wr *b,
			       const struct metaroce_send_wqe *uwqe)
{
	b->addr = READ_ONCE(uwqe->wr.bind.addr);
	b->length = READ_ONCE(uwqe->wr.bind.length);
	b->mw_rkey = READ_ONCE(uwqe->wr.bind.mw_rkey);
	b->rkey = READ_ONCE(uwqe->wr.bind.rkey);
	b->mr_lkey = READ_ONCE(uwqe->wr.bind.mr_lkey);
	b->access = READ_ONCE(uwqe->wr.bind.access);
}

#define MRC_USER_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

/*
 * A user send slot becomes a kernel WQE. The process can rewrite its
 * slot at any time, from another thread too, so nothing is read from it
 * twice: each header field is loaded once (READ_ONCE: the compiler may
 * neither repeat nor split the load) into a local, and the SGEs or inline
 * bytes are copied once into @wqe, their length bounded by a local that
 * was checked first. Every check then runs on those copies, and only the
 * copies are used later, so a value changed after its check is never
 * seen: a torn or racing write can at worst make the slot malformed,
 * which is refused like any other. A malformed slot still yields a WQE,
 * with opcode MRC_WR_INVALID and no data, so that it completes in order
 * with IB_WC_LOC_QP_OP_ERR.
 */
int mrc_send_wqe_from_user(enum ib_qp_type type, struct mrc_send_wqe *wqe,
			   const struct metaroce_send_wqe *uwqe, u32 max_sge,
			   u32 max_inline)
{
	u32 opcode = READ_ONCE(uwqe->opcode);
	u32 flags = READ_ONCE(uwqe->send_flags);
	const void *udata = uwqe + 1;
	u64 total = 0;
	u32 i, n;

	BUILD_BUG_ON(sizeof(struct mrc_sge) != sizeof(struct metaroce_sge));
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = READ_ONCE(uwqe->wr_id);
	wqe->opcode = opcode;
	wqe->send_flags = flags;
	wqe->ex.invalidate_rkey = READ_ONCE(uwqe->ex.invalidate_rkey);

	if (!mrc_user_opcode_ok(type, opcode) ||
	    (flags & ~MRC_USER_SEND_FLAGS))
		goto bad;

	if (mrc_opcode_is_local(opcode)) {
		/* no data: neither SGEs nor inline bytes */
		if ((flags & IB_SEND_INLINE) || READ_ONCE(uwqe->num_sge))
			goto bad;
		if (opcode == IB_WR_BIND_MW)
			mrc_bind_from_user(&wqe->wr.bind, uwqe);
		return 0;
	}

	if (flags & IB_SEND_INLINE) {
		n = READ_ONCE(uwqe->length);
		if (!mrc_opcode_inlinable(opcode) || n > max_inline)
			goto bad;
		memcpy(wqe->data, udata, n);
		total = n;
	} else {
		struct mrc_sge *sge = mrc_send_wqe_sge(wqe);

		n = READ_ONCE(uwqe->num_sge);
		if (n > max_sge)
			goto bad;
		memcpy(sge, udata, n * sizeof(*sge));
		for (i = 0; i < n; i++)
			total += sge[i].length;
		wqe->num_sge = n;
	}
	if (total > MRC_MAX_MSG_SIZE)
		goto bad;

	switch (opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = READ_ONCE(uwqe->wr.rdma.remote_addr);
		wqe->wr.rdma.rkey = READ_ONCE(uwqe->wr.rdma.rkey);
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr =
			READ_ONCE(uwqe->wr.atomic.remote_addr);
		if (wqe->num_sge != 1 || total != 8 ||
		    (wqe->wr.atomic.remote_addr & 7))
			goto bad;
		wqe->wr.atomic.compare_add =
			READ_ONCE(uwqe->wr.atomic.compare_add);
		wqe->wr.atomic.swap = READ_ONCE(uwqe->wr.atomic.swap);
		wqe->wr.atomic.rkey = READ_ONCE(uwqe->wr.atomic.rkey);
		break;
	default:
		break;
	}
	if (type == IB_QPT_UD) {
		/* resolved (and checked) by the sender: mrc_ah_lookup() */
		wqe->wr.ud.ah = NULL;
		wqe->wr.ud.ah_num = READ_ONCE(uwqe->wr.ud.ah_num);
		wqe->wr.ud.remote_qpn = READ_ONCE(uwqe->wr.ud.remote_qpn);
		wqe->wr.ud.remote_qkey = READ_ONCE(uwqe->wr.ud.remote_qkey);
	}
	wqe->length = total;
	return 0;

bad:
	wqe->opcode = MRC_WR_INVALID;
	wqe->send_flags &= IB_SEND_SIGNALED;
	wqe->num_sge = 0;
	wqe->length = 0;
	memset(&wqe->wr, 0, sizeof(wqe->wr));
	return -EINVAL;
}

/*
 * As above for a receive slot (one load of num_sge, one copy of the
 * SGEs); a malformed one becomes a 0-byte buffer.
 */
int mrc_recv_wqe_from_user(struct mrc_recv_wqe *wqe,
			   const struct metaroce_recv_wqe *uwqe, u32 max_sge)
{
	u32 n = READ_ONCE(uwqe->num_sge);
	u64 total = 0;
	u32 i;

	wqe->wr_id = READ_ONCE(uwqe->wr_id);
	wqe->num_sge = 0;
	wqe->length = 0;
	if (n > max_sge)
		return -EINVAL;

	memcpy(wqe->sge, uwqe + 1, n * sizeof(struct mrc_sge));
	for (i = 0; i < n; i++)
		total += wqe->sge[i].length;
	wqe->num_sge = n;
	wqe->length = min_t(u64, total, U32_MAX);
	return 0;
}
