// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: creation, numbering, lookup, destruction, and the entry
 * points through which the transport takes work and reports completions.
 *
 * Ownership of a WQE: posted WQEs wait in [cursor, prod) of their work
 * queue; mrc_qp_next_send_wqe()/mrc_qp_take_recv() hand the one at the
 * cursor to the transport, which owns it ([cons, cursor)) until it calls
 * mrc_qp_complete_send()/_recv(), always for the oldest. When the QP
 * enters ERR, WQEs not yet taken are flushed at once if the transport
 * holds none; otherwise the transport completes what it holds (with its
 * real status or IB_WC_WR_FLUSH_ERR) and the flush of the rest follows
 * the last of those. Completions thus keep posting order, and no WQE a
 * transport is still reading is reported done to the consumer.
 *
 * Lock order: modify_lock (mutex) -> sq.lock -> rq.lock -> srq/cq locks.
 * Consumer callbacks (completion handlers, async events) run after the
 * queue locks are dropped.
 */

#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include "mw.h"
#include "verbs.h"

/* Completion handler work collected under the queue locks. */
struct mrc_kicks {
	unsigned int scq;
	unsigned int rcq;
	bool srq_limit;
	bool last_wqe;
	bool sq_drained;
	bool fatal;		/* a CQE was lost to CQ overflow */
};

static void mrc_qp_run_kicks(struct mrc_qp *qp, const struct mrc_kicks *k)
{
	if (k->scq)
		mrc_cq_kick(qp->scq, k->scq);
	if (k->rcq)
		mrc_cq_kick(qp->rcq, k->rcq);
	if (k->srq_limit)
		mrc_srq_limit_event(qp->srq);
	if (k->last_wqe)
		mrc_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
	if (k->sq_drained)
		mrc_qp_event(qp, IB_EVENT_SQ_DRAINED);
	if (k->fatal)
		mrc_qp_event(qp, IB_EVENT_QP_FATAL);
}

void mrc_qp_event(struct mrc_qp *qp, enum ib_event_type event)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = event,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* --- user rings, under the work queue's lock ---------------------------- */

/* Retire the oldest WQE; a user ring learns that its slot is free again. */
static void mrc_wq_retire(struct mrc_wq *wq)
{
	mrc_queue_consume(&wq->q);
	if (wq->uq.hdr)
		mrc_queue_publish(&wq->uq.hdr->consumer, wq->q.cons);
}

/* Copy in what the process posted to its send ring since the last pull. */
static void mrc_sq_pull_locked(struct mrc_qp *qp)
{
	struct mrc_wq *wq = &qp->sq;
	u32 uprod;

	if (!wq->uq.hdr)
		return;
	uprod = mrc_queue_user_producer(&wq->uq, wq->q.prod,
					wq->q.num - mrc_queue_count(&wq->q));
	for (; wq->q.prod != uprod; mrc_queue_produce(&wq->q))
		mrc_send_wqe_from_user(qp->ibqp.qp_type,
				       mrc_queue_at(&wq->q, wq->q.prod),
				       mrc_queue_at(&wq->uq, wq->q.prod),
				       wq->max_sge, qp->max_inline);
}

static void mrc_rq_pull_locked(struct mrc_qp *qp)
{
	struct mrc_wq *wq = &qp->rq;
	u32 uprod;

	if (!wq->uq.hdr)
		return;
	uprod = mrc_queue_user_producer(&wq->uq, wq->q.prod,
					wq->q.num - mrc_queue_count(&wq->q));
	for (; wq->q.prod != uprod; mrc_queue_produce(&wq->q))
		mrc_recv_wqe_from_user(mrc_queue_at(&wq->q, wq->q.prod),
				       mrc_queue_at(&wq->uq, wq->q.prod),
				       wq->max_sge);
}

/*
 * RESET drops every WQE without a completion. Indices are not rewound:
 * a user ring's producer index belongs to the process, so the kernel
 * catches up with it instead.
 */
static void mrc_wq_reset_locked(struct mrc_wq *wq)
{
	u32 to = wq->q.prod;

	if (wq->uq.hdr)
		to = mrc_queue_user_producer(&wq->uq, wq->q.cons, wq->q.num);
	wq->q.prod = to;
	wq->q.cons = to;
	wq->cursor = to;
	mrc_queue_publish(&wq->q.hdr->producer, to);
	mrc_queue_publish(&wq->q.hdr->consumer, to);
	if (wq->uq.hdr)
		mrc_queue_publish(&wq->uq.hdr->consumer, to);
}

/* --- flushing, under the work queue's lock ------------------------------ */

static void mrc_sq_flush_locked(struct mrc_qp *qp, struct mrc_kicks *k)
{
	struct mrc_send_wqe *wqe;

	/* only once the transport gave back every WQE it took */
	if (qp->sq.cursor != qp->sq.q.cons)
		return;
	mrc_sq_pull_locked(qp);
	while ((wqe = mrc_queue_consumer_slot(&qp->sq.q))) {
		struct ib_wc wc = {
			.wr_id = wqe->wr_id,
			.status = IB_WC_WR_FLUSH_ERR,
			.opcode = mrc_wr_to_wc_opcode(wqe->opcode),
			.qp = &qp->ibqp,
		};

		/* flushes are reported whether signaled or not */
		k->scq |= mrc_cq_push(qp->scq, &wc, false);
		mrc_wq_retire(&qp->sq);
	}
	qp->sq.cursor = qp->sq.q.cons;
}

static void mrc_rq_flush_locked(struct mrc_qp *qp, struct mrc_kicks *k)
{
	struct mrc_recv_wqe *wqe;

	if (qp->rq.cursor != qp->rq.q.cons)
		return;
	mrc_rq_pull_locked(qp);
	/* with an SRQ this ring only holds WQEs already taken: none here */
	while ((wqe = mrc_queue_consumer_slot(&qp->rq.q))) {
		struct ib_wc wc = {
			.wr_id = wqe->wr_id,
			.status = IB_WC_WR_FLUSH_ERR,
			.opcode = IB_WC_RECV,
			.qp = &qp->ibqp,
		};

		k->rcq |= mrc_cq_push(qp->rcq, &wc, false);
		mrc_wq_retire(&qp->rq);
	}
	qp->rq.cursor = qp->rq.q.cons;
}

/*
 * Set the state with both queues locked, so posters and the transport see
 * a state and the queue contents that go with it.
 */
static void mrc_qp_set_state_locked(struct mrc_qp *qp, enum ib_qp_state state,
				    struct mrc_kicks *k)
{
	enum ib_qp_state old = qp->state;

	WRITE_ONCE(qp->state, state);
	/* in ERR, receives posted later are flushed only if the process rings */
	if (qp->rq.uq.hdr)
		mrc_queue_set_flags(&qp->rq.uq, state == IB_QPS_ERR ?
				    METAROCE_QUEUE_NEED_WAKEUP : 0);
	if (state == IB_QPS_ERR) {
		mrc_sq_flush_locked(qp, k);
		mrc_rq_flush_locked(qp, k);
		if (qp->srq && old != IB_QPS_ERR)
			k->last_wqe = true;
	} else if (state == IB_QPS_SQD && old != IB_QPS_SQD) {
		qp->attr.sq_draining = qp->sq.cursor != qp->sq.q.cons;
		if (!qp->attr.sq_draining && qp->attr.en_sqd_async_notify)
			k->sq_drained = true;
	}
}

void mrc_qp_set_state(struct mrc_qp *qp, enum ib_qp_state state)
{
	struct mrc_kicks k = { };
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	spin_lock(&qp->rq.lock);
	mrc_qp_set_state_locked(qp, state, &k);
	if (state == IB_QPS_RESET) {
		mrc_wq_reset_locked(&qp->sq);
		mrc_wq_reset_locked(&qp->rq);
	}
	spin_unlock(&qp->rq.lock);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	mrc_qp_run_kicks(qp, &k);
}

/* Flush what was just posted to a QP in ERR (see post.c). */
void mrc_qp_flush_posted(struct mrc_qp *qp, bool send)
{
	struct mrc_kicks k = { };
	unsigned long flags;

	if (send) {
		spin_lock_irqsave(&qp->sq.lock, flags);
		if (qp->state == IB_QPS_ERR)
			mrc_sq_flush_locked(qp, &k);
		spin_unlock_irqrestore(&qp->sq.lock, flags);
	} else {
		spin_lock_irqsave(&qp->rq.lock, flags);
		if (qp->state == IB_QPS_ERR)
			mrc_rq_flush_locked(qp, &k);
		spin_unlock_irqrestore(&qp->rq.lock, flags);
	}
	mrc_qp_run_kicks(qp, &k);
}

int mrc_qp_error(struct mrc_qp *qp, enum ib_event_type event)
{
	if (mrc_qp_state(qp) == IB_QPS_RESET)
		return -EINVAL;
	mrc_qp_set_state(qp, IB_QPS_ERR);
	if (event)
		mrc_qp_event(qp, event);
	return 0;
}

/* --- transport entry points --------------------------------------------- */

struct mrc_send_wqe *mrc_qp_next_send_wqe(struct mrc_qp *qp)
{
	struct mrc_send_wqe *wqe = NULL;
	unsigned long flags;
	u32 prod = READ_ONCE(qp->sq.q.prod);

	/*
	 * The engine asks once more after the last WQE it took: when none
	 * waits, here or in the user ring, answer without the lock. A WQE
	 * posted meanwhile is no worse off than one posted just after the
	 * lock: the poster kicks the engine, or the doorbell decision
	 * (mrc_tx_doorbell()) re-reads the ring.
	 */
	if (READ_ONCE(qp->sq.cursor) == prod &&
	    (!qp->sq.uq.hdr || READ_ONCE(qp->sq.uq.hdr->producer) == prod))
		return NULL;
	spin_lock_irqsave(&qp->sq.lock, flags);
	/* SQD: finish what was started, start nothing new */
	if (qp->state == IB_QPS_RTS) {
		if (qp->sq.cursor == qp->sq.q.prod)
			mrc_sq_pull_locked(qp);
		if (qp->sq.cursor != qp->sq.q.prod)
			wqe = mrc_queue_at(&qp->sq.q, qp->sq.cursor++);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return wqe;
}

int mrc_qp_complete_send(struct mrc_qp *qp, enum ib_wc_status status)
{
	struct mrc_kicks k = { };
	struct mrc_send_wqe *wqe;
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->sq.cursor == qp->sq.q.cons) {
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		return -ENOENT;
	}
	wqe = mrc_queue_consumer_slot(&qp->sq.q);
	if (status != IB_WC_SUCCESS || qp->sig_all ||
	    (wqe->send_flags & IB_SEND_SIGNALED)) {
		struct ib_wc wc = {
			.wr_id = wqe->wr_id,
			.status = status,
			.opcode = mrc_wr_to_wc_opcode(wqe->opcode),
			.byte_len = wqe->length,
			.qp = &qp->ibqp,
		};

		k.scq = mrc_cq_push(qp->scq, &wc, false);
	}
	mrc_wq_retire(&qp->sq);

	if (qp->state == IB_QPS_ERR) {
		mrc_sq_flush_locked(qp, &k);
	} else if (status != IB_WC_SUCCESS || (k.scq & MRC_CQ_DROPPED)) {
		/*
		 * An error completion (or one the CQ could not take) puts the
		 * QP in ERR before the transport can take another WQE.
		 */
		k.fatal = k.scq & MRC_CQ_DROPPED;
		spin_lock(&qp->rq.lock);
		mrc_qp_set_state_locked(qp, IB_QPS_ERR, &k);
		spin_unlock(&qp->rq.lock);
	} else if (qp->state == IB_QPS_SQD && qp->attr.sq_draining &&
		   qp->sq.cursor == qp->sq.q.cons) {
		qp->attr.sq_draining = false;
		k.sq_drained = qp->attr.en_sqd_async_notify;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	mrc_qp_run_kicks(qp, &k);
	return 0;
}

static bool mrc_qp_can_receive(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

struct mrc_recv_wqe *mrc_qp_take_recv(struct mrc_qp *qp)
{
	struct mrc_recv_wqe *wqe = NULL;
	bool limit = false;
	unsigned long flags;

	spin_lock_irqsave(&qp->rq.lock, flags);
	if (!mrc_qp_can_receive(qp->state))
		goto out;
	if (qp->srq) {
		/* a WQE from the SRQ moves into this QP's ring of taken ones */
		wqe = mrc_queue_producer_slot(&qp->rq.q);
		if (wqe && mrc_srq_take(qp->srq, wqe, &limit)) {
			wqe = NULL;
		} else if (wqe) {
			mrc_queue_produce(&qp->rq.q);
			qp->rq.cursor++;
		}
	} else {
		if (qp->rq.cursor == qp->rq.q.prod)
			mrc_rq_pull_locked(qp);
		if (qp->rq.cursor != qp->rq.q.prod)
			wqe = mrc_queue_at(&qp->rq.q, qp->rq.cursor++);
	}
out:
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (limit)
		mrc_srq_limit_event(qp->srq);
	return wqe;
}

/*
 * The doorbell of a user SQ (uAPI header). A sender that polls the ring
 * calls mrc_qp_sq_poll_mode(qp, true) so the process stops ringing, and
 * mrc_qp_sq_poll_mode(qp, false) before it stops polling; then, if this
 * returns true, WQEs arrived while the flag was clear and the sender must
 * look again (the process may have read the flag before it was set).
 * @kick, when polling: the sender has sent all it took and looks again
 * only at its next ACK; the process rings once when it starts to wait.
 */
bool mrc_qp_sq_poll_mode(struct mrc_qp *qp, bool polling, bool kick)
{
	struct mrc_queue *uq = &qp->sq.uq;
	bool pending;

	if (!uq->hdr)
		return false;
	if (polling) {
		mrc_queue_set_flags(uq, kick ? METAROCE_QUEUE_KICK_ON_WAIT : 0);
		return false;
	}
	mrc_queue_set_flags(uq, METAROCE_QUEUE_NEED_WAKEUP);
	/* flag store before producer load; pairs with the provider's barrier */
	smp_mb();
	pending = READ_ONCE(uq->hdr->producer) != READ_ONCE(qp->sq.q.prod);
	return pending;
}

u32 mrc_qp_recv_available(struct mrc_qp *qp)
{
	unsigned long flags;
	u32 n, prod = READ_ONCE(qp->rq.q.prod);

	if (qp->srq)
		return 0;
	/*
	 * Nothing new in the user ring: count without the lock. The caller
	 * holds the transport lock, under which alone the cursor moves
	 * (but for a flush to ERR, which only lowers the count), and prod
	 * read first can only have grown: never more than are posted.
	 */
	if (!qp->rq.uq.hdr || READ_ONCE(qp->rq.uq.hdr->producer) == prod) {
		n = prod - READ_ONCE(qp->rq.cursor);
		return n <= qp->rq.q.num ? n : 0;
	}
	spin_lock_irqsave(&qp->rq.lock, flags);
	mrc_rq_pull_locked(qp);
	n = qp->rq.q.prod - qp->rq.cursor;
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	return n;
}

int mrc_qp_complete_recv(struct mrc_qp *qp, const struct ib_wc *wc,
			 bool solicited)
{
	struct mrc_kicks k = { };
	struct mrc_recv_wqe *wqe;
	unsigned long flags;
	struct ib_wc out;
	bool fail, fatal;

	spin_lock_irqsave(&qp->rq.lock, flags);
	if (qp->rq.cursor == qp->rq.q.cons) {
		spin_unlock_irqrestore(&qp->rq.lock, flags);
		return -ENOENT;
	}
	wqe = mrc_queue_consumer_slot(&qp->rq.q);
	out = *wc;
	out.wr_id = wqe->wr_id;
	out.qp = &qp->ibqp;
	k.rcq = mrc_cq_push(qp->rcq, &out, solicited);
	mrc_wq_retire(&qp->rq);

	fail = (wc->status != IB_WC_SUCCESS || (k.rcq & MRC_CQ_DROPPED)) &&
	       qp->state != IB_QPS_ERR;
	fatal = fail && (k.rcq & MRC_CQ_DROPPED);
	if (qp->state == IB_QPS_ERR)
		mrc_rq_flush_locked(qp, &k);
	spin_unlock_irqrestore(&qp->rq.lock, flags);

	mrc_qp_run_kicks(qp, &k);
	if (fail)
		mrc_qp_set_state(qp, IB_QPS_ERR);
	if (fatal)
		mrc_qp_event(qp, IB_EVENT_QP_FATAL);
	return 0;
}

struct mrc_mr *mrc_qp_remote_mr(struct mrc_qp *qp, u32 rkey, u64 *va, u64 len,
				int need, int *err)
{
	/* set by modify_qp; a racing change applies from the next packet */
	int qp_access = READ_ONCE(qp->attr.access);

	if (!mrc_access_allows(qp_access, need)) {
		*err = -EACCES;
		return NULL;
	}
	return mrc_rkey_get(qp->ibqp.pd, qp->ibqp.qp_num, rkey, va, len, need,
			    err);
}

/* --- lookup ------------------------------------------------------------- */

struct mrc_qp *mrc_qp_get(struct ib_device *ibdev, u32 qpn)
{
	struct mrc_verbs_tables *t = mrc_dev_tables(ibdev);
	struct mrc_qp *qp;
	unsigned long flags;

	/*
	 * Under the xarray lock rather than RCU: ib_core frees the QP with
	 * kfree() once destroy_qp returns, and destroy erases the entry under
	 * this lock before waiting for the references taken here.
	 */
	xa_lock_irqsave(&t->qps, flags);
	qp = xa_load(&t->qps, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	xa_unlock_irqrestore(&t->qps, flags);
	return qp;
}

struct mrc_qp *mrc_qp_get_next(struct ib_device *ibdev, u32 *qpn)
{
	struct mrc_verbs_tables *t = mrc_dev_tables(ibdev);
	unsigned long idx = *qpn, flags;
	struct mrc_qp *qp;

	/* as mrc_qp_get(): destroy erases the entry under this lock */
	xa_lock_irqsave(&t->qps, flags);
	for (;;) {
		qp = xa_find(&t->qps, &idx, U32_MAX, XA_PRESENT);
		if (!qp || refcount_inc_not_zero(&qp->ref))
			break;
		/* being destroyed: the next one */
		if (idx == U32_MAX) {
			qp = NULL;
			break;
		}
		idx++;
	}
	xa_unlock_irqrestore(&t->qps, flags);
	if (qp)
		*qpn = idx;
	return qp;
}

void mrc_qp_put(struct mrc_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

/* --- create, query, destroy --------------------------------------------- */

int mrc_qp_init_check(const struct ib_qp_init_attr *init,
		      const struct ib_device_attr *dev)
{
	const struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_GSI:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	if (cap->max_send_wr > dev->max_qp_wr ||
	    cap->max_send_sge > dev->max_send_sge ||
	    cap->max_inline_data > MRC_MAX_INLINE)
		return -EINVAL;
	if (!init->srq && (cap->max_recv_wr > dev->max_qp_wr ||
			   cap->max_recv_sge > dev->max_recv_sge))
		return -EINVAL;
	return 0;
}

static int mrc_qp_alloc_queues(struct mrc_qp *qp,
			       struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	size_t size;
	int err;

	qp->sq.max_sge = cap->max_send_sge;
	size = mrc_send_wqe_size(qp->sq.max_sge, cap->max_inline_data);
	err = mrc_queue_init(&qp->sq.q, cap->max_send_wr, size);
	if (err)
		return err;
	qp->sq.max_wr = qp->sq.q.num;
	/* whatever room the slot has for SGEs may carry inline data too */
	qp->max_inline = min_t(size_t, size - sizeof(struct mrc_send_wqe),
			       MRC_MAX_INLINE);

	if (qp->srq) {
		qp->rq.max_sge = qp->srq->max_sge;
		qp->rq.max_wr = 0;
		err = mrc_queue_init(&qp->rq.q, MRC_SRQ_INFLIGHT,
				     mrc_recv_wqe_size(qp->rq.max_sge));
	} else {
		qp->rq.max_sge = cap->max_recv_sge;
		err = mrc_queue_init(&qp->rq.q, cap->max_recv_wr,
				     mrc_recv_wqe_size(qp->rq.max_sge));
		qp->rq.max_wr = qp->rq.q.num;
	}
	if (err) {
		mrc_queue_free(&qp->sq.q);
		return err;
	}

	cap->max_send_wr = qp->sq.max_wr;
	cap->max_inline_data = qp->max_inline;
	cap->max_recv_wr = qp->rq.max_wr;
	if (qp->srq)
		cap->max_recv_sge = 0;
	return 0;
}

/*
 * Reserve the QP number; the QP becomes findable only in mrc_qp_publish(),
 * after the transport's create hook has run and could use the number.
 */
static int mrc_qp_number(struct mrc_qp *qp, struct mrc_verbs_tables *t)
{
	u32 qpn;
	int err;

	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		err = xa_insert_irq(&t->qps, 1, NULL, GFP_KERNEL);
		if (err)
			return err == -EBUSY ? -EEXIST : err;
		qp->ibqp.qp_num = 1;
		return 0;
	}
	err = xa_alloc_cyclic_irq(&t->qps, &qpn, NULL,
				  XA_LIMIT(MRC_MIN_QPN, MRC_MAX_QPN),
				  &t->next_qpn, GFP_KERNEL);
	if (err < 0)
		return err;
	qp->ibqp.qp_num = qpn;
	return 0;
}

static void mrc_qp_publish(struct mrc_qp *qp, struct mrc_verbs_tables *t)
{
	/* the slot is reserved, so storing cannot need memory */
	xa_store_irq(&t->qps, qp->ibqp.qp_num, qp, GFP_ATOMIC);
	if (qp->ibqp.qp_type == IB_QPT_GSI)
		t->gsi = qp;
}

/*
 * The QP without its device: state, locks and queues from @init (already
 * checked). create_qp builds on it; KUnit can use it on a bare struct.
 */
int mrc_qp_init(struct mrc_qp *qp, struct ib_qp_init_attr *init)
{
	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	mutex_init(&qp->modify_lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->state = IB_QPS_RESET;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->srq = init->srq ? to_mrc_srq(init->srq) : NULL;
	qp->scq = to_mrc_cq(init->send_cq);
	qp->rcq = to_mrc_cq(init->recv_cq);
	qp->attr.path_mtu = IB_MTU_1024;
	qp->attr.port_num = init->qp_type == IB_QPT_GSI ? init->port_num : 1;
	qp->ibqp.qp_type = init->qp_type;
	return mrc_qp_alloc_queues(qp, init);
}

void mrc_qp_fini(struct mrc_qp *qp)
{
	mrc_queue_free(&qp->sq.q);
	mrc_queue_free(&qp->rq.q);
	if (qp->sq.uq.hdr)
		mrc_queue_free(&qp->sq.uq);
	if (qp->rq.uq.hdr)
		mrc_queue_free(&qp->rq.uq);
}

/*
 * A process's QP: rings it fills, mapped through the ucontext, next to
 * the kernel's own copies (same number of slots, so an index names the
 * same WQE in both).
 */
static int mrc_qp_init_user(struct mrc_qp *qp, struct ib_qp_init_attr *init,
			    struct ib_udata *udata)
{
	struct ib_ucontext *uctx = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	struct metaroce_create_qp_resp resp = { };
	u32 room = max(qp->sq.max_sge * (u32)sizeof(struct mrc_sge),
		       qp->max_inline);
	int err;

	if (!mrc_qp_type_connected(init->qp_type) &&
	    init->qp_type != IB_QPT_UD)
		return -EOPNOTSUPP;
	if (udata->outlen < sizeof(resp))
		return -EINVAL;

	err = mrc_queue_init_user(&qp->sq.uq, uctx, qp->sq.q.num,
				  mrc_user_send_slot_size(0, room));
	if (err)
		return err;
	/* no sender polls the ring yet: every post rings the doorbell */
	mrc_queue_set_flags(&qp->sq.uq, METAROCE_QUEUE_NEED_WAKEUP);
	mrc_queue_info(&qp->sq.uq, &resp.sq);

	if (!qp->srq) {
		err = mrc_queue_init_user(&qp->rq.uq, uctx, qp->rq.q.num,
					  mrc_user_recv_slot_size(qp->rq.max_sge));
		if (err)
			return err;
		mrc_queue_info(&qp->rq.uq, &resp.rq);
	}
	resp.max_inline = qp->max_inline;
	qp->is_user = true;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

int mrc_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct mrc_qp *qp = to_mrc_qp(ibqp);
	struct mrc_verbs_tables *t = mrc_dev_tables(ibqp->device);
	int err;

	err = mrc_qp_init_check(init, &ibqp->device->attrs);
	if (err)
		return err;
	err = mrc_qp_init(qp, init);
	if (err)
		return err;
	if (udata) {
		err = mrc_qp_init_user(qp, init, udata);
		if (err)
			goto err_queues;
	}
	qp->hooks = init->qp_type == IB_QPT_UD || init->qp_type == IB_QPT_GSI ?
		    t->ud_hooks : t->qp_hooks;
	err = mrc_qp_number(qp, t);
	if (err)
		goto err_queues;
	if (qp->hooks && qp->hooks->create) {
		err = qp->hooks->create(qp);
		if (err)
			goto err_number;
	}
	mrc_qp_publish(qp, t);
	return 0;

err_number:
	xa_erase_irq(&t->qps, ibqp->qp_num);
err_queues:
	mrc_qp_fini(qp);
	return err;
}

int mrc_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct mrc_qp *qp = to_mrc_qp(ibqp);
	const struct mrc_qp_attrs *a = &qp->attr;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));

	mutex_lock(&qp->modify_lock);
	attr->qp_state = mrc_qp_state(qp);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = a->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = a->qkey;
	attr->rq_psn = a->rq_psn;
	attr->sq_psn = a->sq_psn;
	attr->dest_qp_num = a->dest_qp_num;
	attr->qp_access_flags = a->access;
	attr->cap.max_send_wr = qp->sq.max_wr;
	attr->cap.max_recv_wr = qp->rq.max_wr;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->rq.max_sge;
	attr->cap.max_inline_data = qp->max_inline;
	if (mrc_qp_type_connected(ibqp->qp_type))
		mrc_av_to_attr(&a->av, &attr->ah_attr);
	attr->pkey_index = a->pkey_index;
	attr->port_num = a->port_num;
	attr->sq_draining = a->sq_draining;
	attr->en_sqd_async_notify = a->en_sqd_async_notify;
	attr->max_rd_atomic = a->max_rd_atomic;
	attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
	attr->min_rnr_timer = a->min_rnr_timer;
	attr->timeout = a->timeout;
	attr->retry_cnt = a->retry_cnt;
	attr->rnr_retry = a->rnr_retry;
	mutex_unlock(&qp->modify_lock);

	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->port_num = a->port_num;
	return 0;
}

int mrc_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mrc_qp *qp = to_mrc_qp(ibqp);
	struct mrc_verbs_tables *t = mrc_dev_tables(ibqp->device);

	mutex_lock(&qp->modify_lock);
	xa_erase_irq(&t->qps, ibqp->qp_num);
	if (t->gsi == qp)
		t->gsi = NULL;
	/* destroying generates no completions; stop everyone first */
	mrc_qp_set_state(qp, IB_QPS_RESET);
	if (qp->hooks && qp->hooks->destroy)
		qp->hooks->destroy(qp);
	mutex_unlock(&qp->modify_lock);

	mrc_qp_put(qp);
	wait_for_completion(&qp->released);
	if (qp->hooks && qp->hooks->release)
		qp->hooks->release(qp);

	mrc_qp_fini(qp);
	return 0;
}
