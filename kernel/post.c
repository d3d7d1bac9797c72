// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * post_send and post_recv for kernel consumers: check each work request,
 * copy it into its queue slot and, in ERR, flush it right away (the
 * consumer then sees IB_WC_WR_FLUSH_ERR, which is how ib_drain_qp works).
 *
 * A process posts into its mapped rings instead; for its QPs these calls
 * arrive without work requests and are the doorbell (uAPI header).
 */

#include "verbs.h"

int mrc_qp_post_state_ok(enum ib_qp_state state, bool send, bool *flush)
{
	*flush = false;
	switch (state) {
	case IB_QPS_RESET:
		return -EINVAL;
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		/* receives may be posted before the QP is connected */
		return send ? -EINVAL : 0;
	case IB_QPS_RTS:
	case IB_QPS_SQD:
	case IB_QPS_SQE:
		return 0;
	case IB_QPS_ERR:
		*flush = true;
		return 0;
	default:
		return -EINVAL;
	}
}

int mrc_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct mrc_qp *qp = to_mrc_qp(ibqp);
	unsigned long flags;
	bool flush, posted = false;
	int err = 0;

	if (qp->is_user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		/* the doorbell: flush in ERR (pulls first), else kick */
		if (mrc_qp_state(qp) == IB_QPS_ERR)
			mrc_qp_flush_posted(qp, true);
		else if (qp->hooks && qp->hooks->send_posted)
			qp->hooks->send_posted(qp);
		return 0;
	}

	if ((ibqp->qp_type == IB_QPT_UD || ibqp->qp_type == IB_QPT_GSI) &&
	    !(qp->hooks && qp->hooks->ud_sends)) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}

	spin_lock_irqsave(&qp->sq.lock, flags);
	err = mrc_qp_post_state_ok(qp->state, true, &flush);
	for (; wr && !err; wr = wr->next) {
		struct mrc_send_wqe *wqe;
		u64 total;

		err = mrc_send_wr_check(ibqp->qp_type, wr, qp->sq.max_sge,
					qp->max_inline, &total);
		if (err)
			break;
		wqe = mrc_queue_producer_slot(&qp->sq.q);
		if (!wqe) {
			err = -ENOMEM;
			break;
		}
		mrc_send_wqe_fill(wqe, wr, total);
		if (ibqp->qp_type == IB_QPT_UD || ibqp->qp_type == IB_QPT_GSI) {
			/* the consumer keeps the AH until the WR completes */
			wqe->wr.ud.ah = to_mrc_ah(ud_wr(wr)->ah);
			wqe->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
			wqe->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		}
		mrc_queue_produce(&qp->sq.q);
		posted = true;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (err)
		*bad_wr = wr;
	if (posted && flush)
		mrc_qp_flush_posted(qp, true);
	else if (posted && qp->hooks && qp->hooks->send_posted)
		qp->hooks->send_posted(qp);
	return err;
}

int mrc_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct mrc_qp *qp = to_mrc_qp(ibqp);
	unsigned long flags;
	bool flush, posted = false;
	int err;

	if (qp->srq || (qp->is_user && wr)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->is_user) {
		/* the doorbell, rung in ERR: flush what was posted since */
		if (mrc_qp_state(qp) == IB_QPS_ERR)
			mrc_qp_flush_posted(qp, false);
		return 0;
	}

	spin_lock_irqsave(&qp->rq.lock, flags);
	err = mrc_qp_post_state_ok(qp->state, false, &flush);
	for (; wr && !err; wr = wr->next) {
		struct mrc_recv_wqe *wqe;
		u64 total;

		err = mrc_recv_wr_check(wr, qp->rq.max_sge, &total);
		if (err)
			break;
		wqe = mrc_queue_producer_slot(&qp->rq.q);
		if (!wqe) {
			err = -ENOMEM;
			break;
		}
		mrc_recv_wqe_fill(wqe, wr, total);
		mrc_queue_produce(&qp->rq.q);
		posted = true;
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);

	if (err)
		*bad_wr = wr;
	if (posted && flush)
		mrc_qp_flush_posted(qp, false);
	return err;
}
