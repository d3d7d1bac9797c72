// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Extended CQs (ibv_create_cq_ex): the same ring as cq.c, read through
 * the iterator (ibv_start_poll, ibv_next_poll, ibv_end_poll) and the
 * ibv_wc_read_*() accessors. start_poll takes the CQ's lock and end_poll
 * drops it, as the verbs contract allows; the consumer index is published
 * once, at end_poll. An empty start_poll returns ENOENT with the lock
 * released (end_poll must not follow) and rings a doorbell a post left to
 * the poller, as an empty poll_cq does.
 *
 * The ring carries what a struct ibv_wc carries, so the standard fields
 * are offered; a completion timestamp, VLAN, flow tag or tag matching
 * information is not, and asking for one fails with EOPNOTSUPP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

MRC_DRV_CMD(mrc_create_cq_ex, ibv_create_cq_ex, ib_uverbs_ex_create_cq_resp,
	    mrc_empty, metaroce_create_cq_resp);

#define MRC_CQ_EX_WC_FLAGS                                                    \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |                        \
	 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |                       \
	 IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |                             \
	 IBV_WC_EX_WITH_DLID_PATH_BITS)

static inline struct mrc_cq *cqx_to_mcq(struct ibv_cq_ex *cqx)
{
	return mrc_container_of(cqx, struct mrc_cq, vcq.cq_ex);
}

/* The next completion into cq->cur, or ENOENT; lock held. */
static int mrc_cq_ex_take(struct mrc_cq *cq)
{
	struct mrc_ring *r = &cq->ring;
	uint32_t prod = mrc_load_acquire(&r->hdr->producer);

	/* a producer index past a full ring is the kernel's bug or a lie */
	if (r->mine == prod || prod - r->mine > r->num)
		return ENOENT;
	mrc_wc_from_uverbs(&cq->cur, mrc_ring_slot(r, r->mine));
	r->mine++;
	cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
	cq->vcq.cq_ex.status = cq->cur.status;
	return 0;
}

static int mrc_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct mrc_cq *cq = cqx_to_mcq(cqx);

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	if (!mrc_cq_ex_take(cq))
		return 0;
	pthread_spin_unlock(&cq->lock);
	mrc_cq_kick(cq);
	return ENOENT;
}

static int mrc_next_poll(struct ibv_cq_ex *cqx)
{
	return mrc_cq_ex_take(cqx_to_mcq(cqx));
}

static void mrc_end_poll(struct ibv_cq_ex *cqx)
{
	struct mrc_cq *cq = cqx_to_mcq(cqx);

	mrc_store_release(&cq->ring.hdr->consumer, cq->ring.mine);
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode mrc_read_opcode(struct ibv_cq_ex *cqx)
{
	return cqx_to_mcq(cqx)->cur.opcode;
}

static uint32_t mrc_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cqx_to_mcq(cqx)->cur.vendor_err;
}

static uint32_t mrc_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cqx_to_mcq(cqx)->cur.byte_len;
}

/* the immediate, or the invalidated rkey: one field, as in ibv_wc */
static __be32 mrc_read_imm_data(struct ibv_cq_ex *cqx)
{
	return cqx_to_mcq(cqx)->cur.imm_data;
}

static uint32_t mrc_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cqx_to_mcq(cqx)->cur.qp_num;
}

static uint32_t mrc_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cqx_to_mcq(cqx)->cur.src_qp;
}

static unsigned int mrc_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return cqx_to_mcq(cqx)->cur.wc_flags;
}

static uint32_t mrc_read_slid(struct ibv_cq_ex *cqx)
{
	return cqx_to_mcq(cqx)->cur.slid;
}

static uint8_t mrc_read_sl(struct ibv_cq_ex *cqx)
{
	return cqx_to_mcq(cqx)->cur.sl;
}

static uint8_t mrc_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cqx_to_mcq(cqx)->cur.dlid_path_bits;
}

static void mrc_cq_ex_set_ops(struct ibv_cq_ex *cqx, uint64_t wc_flags)
{
	cqx->start_poll = mrc_start_poll;
	cqx->next_poll = mrc_next_poll;
	cqx->end_poll = mrc_end_poll;
	cqx->read_opcode = mrc_read_opcode;
	cqx->read_vendor_err = mrc_read_vendor_err;
	cqx->read_wc_flags = mrc_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = mrc_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = mrc_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = mrc_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = mrc_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = mrc_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = mrc_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = mrc_read_dlid_path_bits;
}

struct ibv_cq_ex *mrc_create_cq_ex(struct ibv_context *ibctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct mrc_create_cq_ex_resp resp;
	struct mrc_create_cq_ex cmd;
	struct mrc_cq *cq;
	int err;

	if (attr->wc_flags & ~(uint64_t)MRC_CQ_EX_WC_FLAGS ||
	    attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	err = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp),
				   0);
	if (!err)
		err = mrc_cq_setup(cq, ibctx->cmd_fd, &resp.drv_payload);
	if (err) {
		free(cq);
		errno = err;
		return NULL;
	}
	mrc_cq_ex_set_ops(&cq->vcq.cq_ex, attr->wc_flags);
	return &cq->vcq.cq_ex;
}
