// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues: a ring of struct ib_wc for kernel consumers or of
 * struct ib_uverbs_wc mapped by a process (the provider polls it without a
 * system call), the arming rules of req_notify_cq, and overflow reported
 * as IB_EVENT_CQ_ERR.
 *
 * Producers (the QP's work queues) push under their own lock so that
 * completions keep posting order, but consumer callbacks (completion
 * handler, async event) run only after every lock is dropped: a handler
 * may poll this CQ and post new work to the same QP.
 */

#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

/* The CQ without its device: create_cq, and KUnit with a bare struct. */
int mrc_cq_init(struct mrc_cq *cq, u32 cqe)
{
	int err;

	if (cqe < 1 || cqe > MRC_MAX_CQE)
		return -EINVAL;
	spin_lock_init(&cq->lock);
	err = mrc_queue_init(&cq->q, cqe, sizeof(struct ib_wc));
	if (err)
		return err;
	cq->notify = 0;
	cq->overflow = false;
	cq->user = false;
	cq->ibcq.cqe = cq->q.num;
	return 0;
}

void mrc_cq_fini(struct mrc_cq *cq)
{
	mrc_queue_free(&cq->q);
}

static int mrc_cq_init_user(struct mrc_cq *cq, u32 cqe,
			    struct ib_udata *udata)
{
	struct ib_ucontext *uctx = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	struct metaroce_create_cq_resp resp = { };
	int err;

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	if (cqe < 1 || cqe > MRC_MAX_CQE)
		return -EINVAL;
	spin_lock_init(&cq->lock);
	err = mrc_queue_init_user(&cq->q, uctx, cqe,
				  sizeof(struct ib_uverbs_wc));
	if (err)
		return err;
	cq->notify = 0;
	cq->overflow = false;
	cq->user = true;
	cq->ibcq.cqe = cq->q.num;

	mrc_queue_info(&cq->q, &resp.cq);
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		mrc_cq_fini(cq);
	return err;
}

int mrc_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct mrc_create_cq_arg *arg)
{
	struct ib_udata *udata = mrc_create_cq_udata(arg);

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (udata)
		return mrc_cq_init_user(to_mrc_cq(ibcq), attr->cqe, udata);
	return mrc_cq_init(to_mrc_cq(ibcq), attr->cqe);
}

int mrc_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	/* ib_core refuses while QPs or SRQs still use the CQ */
	mrc_cq_fini(to_mrc_cq(ibcq));
	return 0;
}

/*
 * A user CQ's new ring: mapped by the process from the offset the response
 * gives. The provider holds its pollers off from the command until it has
 * mapped the new ring, so the consumer index taken from the old one here
 * is its last word on it.
 */
static int mrc_resize_cq_user(struct mrc_cq *cq, struct mrc_queue *fresh,
			      int cqe, struct ib_udata *udata)
{
	struct ib_ucontext *uctx = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	struct metaroce_resize_cq_resp resp = { };
	int err;

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	err = mrc_queue_init_user(fresh, uctx, cqe,
				  sizeof(struct ib_uverbs_wc));
	if (err)
		return err;
	mrc_queue_info(fresh, &resp.cq);
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		mrc_queue_free(fresh);
	return err;
}

int mrc_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct mrc_cq *cq = to_mrc_cq(ibcq);
	struct mrc_queue fresh, old;
	unsigned long flags;
	int err;

	if (!udata != !cq->user)
		return -EINVAL;
	if (cqe < 1 || cqe > MRC_MAX_CQE)
		return -EINVAL;
	if (cq->user)
		err = mrc_resize_cq_user(cq, &fresh, cqe, udata);
	else
		err = mrc_queue_init(&fresh, cqe, sizeof(struct ib_wc));
	if (err)
		return err;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->user)
		mrc_queue_sync_user_consumer(&cq->q);
	err = mrc_queue_move(&fresh, &cq->q);	/* -EINVAL: too many CQEs */
	if (!err) {
		old = cq->q;
		cq->q = fresh;
		ibcq->cqe = fresh.num;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	mrc_queue_free(err ? &fresh : &old);
	return err;
}

int mrc_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mrc_cq *cq = to_mrc_cq(ibcq);
	unsigned long flags;
	int n;

	/* the process polls its ring itself; uverbs' poll_cq cannot help */
	if (cq->user)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++) {
		struct ib_wc *slot = mrc_queue_consumer_slot(&cq->q);

		if (!slot)
			break;
		wc[n] = *slot;
		mrc_queue_consume(&cq->q);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int mrc_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mrc_cq *cq = to_mrc_cq(ibcq);
	unsigned long irqflags;
	int missed = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->user)
		mrc_queue_sync_user_consumer(&cq->q);
	/* "next completion" is the wider request; it is never narrowed */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && !mrc_queue_empty(&cq->q))
		missed = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

static void mrc_wc_to_uverbs(struct ib_uverbs_wc *u, const struct ib_wc *wc)
{
	u->wr_id = wc->wr_id;
	u->status = wc->status;
	u->opcode = wc->opcode;
	u->vendor_err = wc->vendor_err;
	u->byte_len = wc->byte_len;
	u->ex.imm_data = wc->ex.imm_data;
	u->qp_num = wc->qp ? wc->qp->qp_num : 0;
	u->src_qp = wc->src_qp;
	u->wc_flags = wc->wc_flags;
	u->pkey_index = wc->pkey_index;
	u->slid = ib_lid_cpu16(wc->slid);
	u->sl = wc->sl;
	u->dlid_path_bits = wc->dlid_path_bits;
	u->port_num = wc->port_num;
	u->reserved = 0;
}

/*
 * Add @wc under the producer's lock. Returns what mrc_cq_kick() must do
 * once the caller has dropped its locks.
 */
unsigned int mrc_cq_push(struct mrc_cq *cq, const struct ib_wc *wc,
			 bool solicited)
{
	unsigned int kick = 0;
	unsigned long flags;
	void *slot;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow) {
		kick = MRC_CQ_DROPPED;
		goto out;
	}
	if (cq->user)
		mrc_queue_sync_user_consumer(&cq->q);
	slot = mrc_queue_producer_slot(&cq->q);
	if (!slot) {
		/* the CQ is in error from now on, as on an HCA */
		cq->overflow = true;
		kick = MRC_CQ_DROPPED | MRC_CQ_KICK_ERR;
		goto out;
	}
	if (cq->user)
		mrc_wc_to_uverbs(slot, wc);
	else
		*(struct ib_wc *)slot = *wc;
	mrc_queue_produce(&cq->q);

	/* solicited arming also fires on any unsuccessful completion */
	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		kick = MRC_CQ_KICK_COMP;
	}
out:
	spin_unlock_irqrestore(&cq->lock, flags);
	return kick;
}

void mrc_cq_kick(struct mrc_cq *cq, unsigned int kick)
{
	if (kick & MRC_CQ_KICK_ERR && cq->ibcq.event_handler) {
		struct ib_event ev = {
			.device = cq->ibcq.device,
			.element.cq = &cq->ibcq,
			.event = IB_EVENT_CQ_ERR,
		};

		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	if (kick & MRC_CQ_KICK_COMP && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

int mrc_cq_post(struct mrc_cq *cq, const struct ib_wc *wc, bool solicited)
{
	unsigned int kick = mrc_cq_push(cq, wc, solicited);

	mrc_cq_kick(cq, kick);
	return kick & MRC_CQ_DROPPED ? -EOVERFLOW : 0;
}
