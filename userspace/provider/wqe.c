// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Work requests into ring slots, completions out of them: the byte-level
 * half of the data path, pure functions (the host tests call them on
 * plain memory).
 *
 * The kernel copies each slot once and checks the copy (it treats the
 * ring as hostile), so the checks here are for the caller's benefit: a bad
 * work request fails at post time with bad_wr set, as on an HCA, instead
 * of turning into an error completion later.
 */
#include <errno.h>
#include <string.h>

#include "metaroce.h"

static int mrc_opcode_ok(enum ibv_qp_type type, enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return type == IBV_QPT_RC || type == IBV_QPT_UC ||
		       type == IBV_QPT_UD;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
		return type == IBV_QPT_RC || type == IBV_QPT_UC;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return type == IBV_QPT_RC;
	default:
		return 0;	/* TSO, DRIVER1: not offered */
	}
}

static int mrc_opcode_inlinable(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

uint32_t mrc_slot_max_sge(uint32_t slot_size, size_t hdr)
{
	return slot_size < hdr ? 0 :
	       (uint32_t)((slot_size - hdr) / sizeof(struct metaroce_sge));
}

/* The header of a send slot; the data part is left to the caller. */
void mrc_send_wqe_header(struct metaroce_send_wqe *w, uint64_t wr_id,
			 enum ibv_wr_opcode opcode, unsigned int send_flags)
{
	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->opcode = opcode;
	/* only what the kernel accepts; IP_CSUM etc. mean nothing here */
	w->send_flags = send_flags & (IBV_SEND_FENCE | IBV_SEND_SIGNALED |
				      IBV_SEND_SOLICITED | IBV_SEND_INLINE);
}

int mrc_send_wqe_build(void *slot, uint32_t slot_size, uint32_t max_sge,
		       uint32_t max_inline, enum ibv_qp_type type,
		       const struct ibv_send_wr *wr)
{
	struct metaroce_send_wqe *w = slot;
	uint8_t *data = (uint8_t *)(w + 1);
	uint64_t total = 0;
	int i;

	/*
	 * The QP's max_send_sge bounds every WR, inline or not, as the
	 * kernel's post check does; the slot may hold more (it is sized
	 * for max_inline too). Checked before the slot is touched.
	 */
	if (!mrc_opcode_ok(type, wr->opcode) || wr->num_sge < 0 ||
	    (uint32_t)wr->num_sge > max_sge)
		return EINVAL;
	mrc_send_wqe_header(w, wr->wr_id, wr->opcode, wr->send_flags);

	/* memory operations carry no data: SGEs and INLINE mean nothing */
	if (wr->opcode == IBV_WR_LOCAL_INV || wr->opcode == IBV_WR_BIND_MW) {
		w->send_flags &= ~IBV_SEND_INLINE;
		if (wr->opcode == IBV_WR_LOCAL_INV) {
			w->ex.invalidate_rkey = wr->invalidate_rkey;
			return 0;
		}
		return mrc_send_wqe_set_bind(w, wr->bind_mw.mw,
					     wr->bind_mw.rkey,
					     &wr->bind_mw.bind_info);
	}

	if ((wr->send_flags & IBV_SEND_INLINE) &&
	    mrc_opcode_inlinable(wr->opcode)) {
		uint32_t room = slot_size - sizeof(*w);

		if (room > max_inline)
			room = max_inline;
		for (i = 0; i < wr->num_sge; i++) {
			const struct ibv_sge *s = &wr->sg_list[i];

			if (s->length > room - total)
				return EINVAL;
			memcpy(data + total, (void *)(uintptr_t)s->addr,
			       s->length);
			total += s->length;
		}
		w->length = (uint32_t)total;
	} else {
		struct metaroce_sge *sge = (struct metaroce_sge *)data;

		w->send_flags &= ~IBV_SEND_INLINE;
		if ((uint32_t)wr->num_sge > mrc_slot_max_sge(slot_size, sizeof(*w)))
			return EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
			total += wr->sg_list[i].length;
		}
		w->num_sge = (uint32_t)wr->num_sge;
	}
	if (total > MRC_MAX_MSG_SIZE)
		return EINVAL;

	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		w->ex.imm_data = wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
		w->ex.invalidate_rkey = wr->invalidate_rkey;
		break;
	default:
		break;
	}
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		w->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		w->wr.rdma.rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (w->num_sge != 1 || total != 8 ||
		    (wr->wr.atomic.remote_addr & 7))
			return EINVAL;
		w->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		w->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		w->wr.atomic.swap = wr->wr.atomic.swap;
		w->wr.atomic.rkey = wr->wr.atomic.rkey;
		break;
	default:
		break;
	}
	if (type == IBV_QPT_UD)
		return mrc_send_wqe_set_ud(w, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
					   wr->wr.ud.remote_qkey);
	return 0;
}

/*
 * A window's binding (ABI 3). The kernel checks every IB bind rule when
 * the slot executes; here only what makes no slot: no window, a length
 * without an MR, or a new rkey naming another window (its index is the
 * window's, only the low byte is the consumer's).
 */
int mrc_send_wqe_set_bind(struct metaroce_send_wqe *w, struct ibv_mw *mw,
			  uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	if (!mw || (!info->mr && info->length) ||
	    (rkey >> 8) != (mw->rkey >> 8))
		return EINVAL;
	w->num_sge = 0;
	w->wr.bind.addr = info->addr;
	w->wr.bind.length = info->length;
	w->wr.bind.mw_rkey = mw->rkey;
	w->wr.bind.rkey = rkey;
	w->wr.bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	w->wr.bind.access = info->mw_access_flags;
	return 0;
}

/*
 * The destination of a UD send. The kernel checks the AH number (it must
 * be an AH of the QP's PD, still alive); here only that there is one.
 */
int mrc_send_wqe_set_ud(struct metaroce_send_wqe *w, struct ibv_ah *ah,
			uint32_t remote_qpn, uint32_t remote_qkey)
{
	if (!ah || !to_mah(ah)->num || remote_qpn > 0xffffff)
		return EINVAL;
	w->wr.ud.ah_num = to_mah(ah)->num;
	w->wr.ud.remote_qpn = remote_qpn;
	w->wr.ud.remote_qkey = remote_qkey;
	w->wr.ud.reserved = 0;
	return 0;
}

int mrc_recv_wqe_build(void *slot, uint32_t slot_size, uint32_t max_sge,
		       const struct ibv_recv_wr *wr)
{
	struct metaroce_recv_wqe *w = slot;
	struct metaroce_sge *sge = (struct metaroce_sge *)(w + 1);
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge ||
	    (uint32_t)wr->num_sge > mrc_slot_max_sge(slot_size, sizeof(*w)))
		return EINVAL;
	w->wr_id = wr->wr_id;
	w->num_sge = (uint32_t)wr->num_sge;
	w->reserved = 0;
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

/*
 * The kernel fills CQ slots from its struct ib_wc. Opcodes and most flags
 * share their values with libibverbs', but the kernel's IB_WC_WITH_INVALIDATE
 * (bit 2) and IB_WC_IP_CSUM_OK (bit 3) are swapped against IBV_WC_WITH_INV
 * and IBV_WC_IP_CSUM_OK.
 */
void mrc_wc_from_uverbs(struct ibv_wc *wc, const struct ib_uverbs_wc *u)
{
	unsigned int f = u->wc_flags;

	wc->wr_id = u->wr_id;
	wc->status = (enum ibv_wc_status)u->status;
	wc->opcode = (enum ibv_wc_opcode)u->opcode;
	wc->vendor_err = u->vendor_err;
	wc->byte_len = u->byte_len;
	wc->imm_data = u->ex.imm_data;
	wc->qp_num = u->qp_num;
	wc->src_qp = u->src_qp;
	wc->wc_flags = f & (IBV_WC_GRH | IBV_WC_WITH_IMM);
	if (f & MRC_KWC_WITH_INVALIDATE)
		wc->wc_flags |= IBV_WC_WITH_INV;
	if (f & MRC_KWC_IP_CSUM_OK)
		wc->wc_flags |= IBV_WC_IP_CSUM_OK;
	wc->pkey_index = u->pkey_index;
	wc->slid = u->slid;
	wc->sl = u->sl;
	wc->dlid_path_bits = u->dlid_path_bits;
}
