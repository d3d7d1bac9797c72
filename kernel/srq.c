// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues. QPs attached to an SRQ take WQEs from it one at
 * a time (mrc_srq_take(), under the QP's receive lock); when the number
 * of WQEs left drops below an armed srq_limit, IB_EVENT_SRQ_LIMIT_REACHED
 * is raised once and the limit disarms, as IBA 10.2.9.5 describes.
 */

#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

/* A user SRQ: copy in what the process posted since the last pull. */
static void mrc_srq_pull_locked(struct mrc_srq *srq)
{
	u32 uprod;

	if (!srq->uq.hdr)
		return;
	uprod = mrc_queue_user_producer(&srq->uq, srq->q.prod,
					srq->q.num - mrc_queue_count(&srq->q));
	for (; srq->q.prod != uprod; mrc_queue_produce(&srq->q))
		mrc_recv_wqe_from_user(mrc_queue_at(&srq->q, srq->q.prod),
				       mrc_queue_at(&srq->uq, srq->q.prod),
				       srq->max_sge);
}

static int mrc_srq_init_user(struct mrc_srq *srq, struct ib_udata *udata)
{
	struct ib_ucontext *uctx = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	struct metaroce_create_srq_resp resp = { };
	int err;

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	err = mrc_queue_init_user(&srq->uq, uctx, srq->q.num,
				  mrc_user_recv_slot_size(srq->max_sge));
	if (err)
		return err;
	mrc_queue_info(&srq->uq, &resp.srq);
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		mrc_queue_free(&srq->uq);
	return err;
}

int mrc_srq_attr_check(const struct ib_srq_attr *attr, int mask,
		       u32 cur_max_wr, u32 count, u32 dev_max_wr)
{
	u32 max_wr = cur_max_wr;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		/* cannot shrink below the WQEs already posted */
		if (!attr->max_wr || attr->max_wr > dev_max_wr ||
		    attr->max_wr < count)
			return -EINVAL;
		max_wr = attr->max_wr;
	}
	if ((mask & IB_SRQ_LIMIT) && attr->srq_limit > max_wr)
		return -EINVAL;
	return 0;
}

int mrc_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct mrc_srq *srq = to_mrc_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > MRC_MAX_SRQ_WR ||
	    attr->max_sge > MRC_MAX_SGE)
		return -EINVAL;

	spin_lock_init(&srq->lock);
	srq->max_sge = max(attr->max_sge, 1U);
	err = mrc_queue_init(&srq->q, attr->max_wr,
			     mrc_recv_wqe_size(srq->max_sge));
	if (err)
		return err;
	srq->max_wr = srq->q.num;
	srq->limit = 0;		/* srq_limit is ignored at creation */
	if (udata) {
		err = mrc_srq_init_user(srq, udata);
		if (err) {
			mrc_queue_free(&srq->q);
			return err;
		}
	}

	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	return 0;
}

/*
 * A user SRQ's new ring, described at the address the command names. The
 * provider holds its posters off from the command until it has mapped
 * the new ring, so the producer index pulled from the old one under the
 * SRQ lock is its last word on it.
 */
static int mrc_srq_resize_user(struct mrc_queue *fresh_uq, u32 max_wr,
			       u32 slot_size, struct ib_udata *udata)
{
	struct ib_ucontext *uctx = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	struct metaroce_modify_srq_cmd cmd = { };
	struct metaroce_queue_info info;
	int err;

	if (udata->inlen < sizeof(cmd))
		return -EOPNOTSUPP;	/* an older provider */
	err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
	if (err)
		return err;
	err = mrc_queue_init_user(fresh_uq, uctx, max_wr, slot_size);
	if (err)
		return err;
	mrc_queue_info(fresh_uq, &info);
	if (copy_to_user(u64_to_user_ptr(cmd.ring_info_addr), &info,
			 sizeof(info))) {
		mrc_queue_free(fresh_uq);
		return -EFAULT;
	}
	return 0;
}

int mrc_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct mrc_srq *srq = to_mrc_srq(ibsrq);
	struct mrc_queue fresh, fresh_uq = { }, old = { }, old_uq = { };
	bool user = srq->uq.hdr;
	unsigned long flags;
	int err;

	if (mask & IB_SRQ_MAX_WR) {
		if (!attr->max_wr || attr->max_wr > MRC_MAX_SRQ_WR)
			return -EINVAL;
		if (user && !udata)
			return -EINVAL;
		err = mrc_queue_init(&fresh, attr->max_wr, srq->q.elem_size);
		if (err)
			return err;
		if (user) {
			err = mrc_srq_resize_user(&fresh_uq, fresh.num,
						  srq->uq.elem_size, udata);
			if (err) {
				mrc_queue_free(&fresh);
				return err;
			}
		}
	}

	spin_lock_irqsave(&srq->lock, flags);
	mrc_srq_pull_locked(srq);
	err = mrc_srq_attr_check(attr, mask, srq->max_wr,
				 mrc_queue_count(&srq->q), MRC_MAX_SRQ_WR);
	if (!err && (mask & IB_SRQ_MAX_WR)) {
		err = mrc_queue_move(&fresh, &srq->q);
		if (!err) {
			old = srq->q;
			srq->q = fresh;
			srq->max_wr = fresh.num;
		}
		if (!err && user) {
			/* the same indexes: posted up to q.prod, taken none */
			mrc_queue_publish(&fresh_uq.hdr->consumer, srq->q.cons);
			mrc_queue_publish(&fresh_uq.hdr->producer, srq->q.prod);
			old_uq = srq->uq;
			srq->uq = fresh_uq;
		}
	}
	if (!err && (mask & IB_SRQ_LIMIT))
		srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->lock, flags);

	if (mask & IB_SRQ_MAX_WR) {
		mrc_queue_free(err ? &fresh : &old);
		if (user)
			mrc_queue_free(err ? &fresh_uq : &old_uq);
	}
	return err;
}

int mrc_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mrc_srq *srq = to_mrc_srq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int mrc_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mrc_srq *srq = to_mrc_srq(ibsrq);

	/* ib_core refuses while QPs still use the SRQ */
	mrc_queue_free(&srq->q);
	if (srq->uq.hdr)
		mrc_queue_free(&srq->uq);
	return 0;
}

int mrc_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct mrc_srq *srq = to_mrc_srq(ibsrq);
	unsigned long flags;
	int err = 0;

	/* a process posts into its ring; this call is only the doorbell */
	if (srq->uq.hdr) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		return 0;
	}

	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		struct mrc_recv_wqe *wqe;
		u64 total;

		err = mrc_recv_wr_check(wr, srq->max_sge, &total);
		if (err)
			break;
		wqe = mrc_queue_producer_slot(&srq->q);
		if (!wqe) {
			err = -ENOMEM;
			break;
		}
		mrc_recv_wqe_fill(wqe, wr, total);
		mrc_queue_produce(&srq->q);
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (err)
		*bad_wr = wr;
	return err;
}

int mrc_srq_take(struct mrc_srq *srq, struct mrc_recv_wqe *out,
		 bool *limit_reached)
{
	struct mrc_recv_wqe *wqe;
	unsigned long flags;
	int err = 0;

	*limit_reached = false;
	spin_lock_irqsave(&srq->lock, flags);
	mrc_srq_pull_locked(srq);
	wqe = mrc_queue_consumer_slot(&srq->q);
	if (!wqe) {
		err = -ENOENT;
	} else {
		memcpy(out, wqe, mrc_recv_wqe_size(wqe->num_sge));
		mrc_queue_consume(&srq->q);
		if (srq->uq.hdr)
			mrc_queue_publish(&srq->uq.hdr->consumer, srq->q.cons);
		if (srq->limit && mrc_queue_count(&srq->q) < srq->limit) {
			srq->limit = 0;
			*limit_reached = true;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

void mrc_srq_limit_event(struct mrc_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}
