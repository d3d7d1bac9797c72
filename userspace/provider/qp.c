// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs. The kernel creates the QP and hands us two rings to fill
 * (send and, without an SRQ, receive; uAPI header). Posting writes WQEs
 * into the next free slots, publishes the producer index and rings the
 * doorbell (a uverbs POST_SEND / POST_RECV with no work request) only
 * when the kernel asked for it with METAROCE_QUEUE_NEED_WAKEUP; the
 * kernel reads the ring itself otherwise.
 *
 * Both the classic ibv_post_send() and the ibv_wr_*() API (ibv_qp_ex,
 * which perftest uses by default) write the same slots.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metaroce.h"

MRC_DRV_CMD(mrc_create_qp, ibv_create_qp, ib_uverbs_create_qp_resp,
	    mrc_empty, metaroce_create_qp_resp);
MRC_DRV_CMD(mrc_create_qp_ex, ibv_create_qp_ex, ib_uverbs_ex_create_qp_resp,
	    mrc_empty, metaroce_create_qp_resp);

/* --- doorbells and the provider's counters --------------------------------- */

/*
 * A doorbell is a POST_SEND, POST_RECV or POST_SRQ_RECV write command
 * with no work request; the kernel then reads the ring itself. It goes
 * out as a write(2) on the command fd rather than through ibv_cmd_post_*(),
 * which libibverbs sends as an ioctl (UVERBS_METHOD_INVOKE_WRITE): that
 * path's attribute parsing and LSM hook cost ~8 us more per ring under
 * TCG (perf, ib_read_lat), and a lone WR rings on every post. The three
 * commands share one request layout: response, handle, wr_count,
 * sge_count, wqe_size.
 */
struct mrc_doorbell_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__u32 handle;
	__u32 wr_count;
	__u32 sge_count;
	__u32 wqe_size;
};

#define MRC_DB_LAYOUT(_kabi, _handle)                                          \
	_Static_assert(offsetof(struct _kabi, _handle) == 8 &&                 \
			       offsetof(struct _kabi, wqe_size) == 20 &&       \
			       sizeof(struct _kabi) == 24,                     \
		       #_kabi " is not a doorbell's layout")
MRC_DB_LAYOUT(ib_uverbs_post_send, qp_handle);
MRC_DB_LAYOUT(ib_uverbs_post_recv, qp_handle);
MRC_DB_LAYOUT(ib_uverbs_post_srq_recv, srq_handle);
_Static_assert(sizeof(struct ib_uverbs_post_send_resp) ==
		       sizeof(struct ib_uverbs_post_recv_resp) &&
	       sizeof(struct ib_uverbs_post_send_resp) ==
		       sizeof(struct ib_uverbs_post_srq_recv_resp),
	       "doorbell responses differ");

/* A failed doorbell leaves the published WQEs for the kernel's next look
 * (or the flush), like a lost MMIO write. */
static void mrc_doorbell(struct ibv_context *ctx, uint32_t command,
			 uint32_t handle, uint32_t wqe_size)
{
	struct ib_uverbs_post_send_resp resp;
	struct mrc_doorbell_cmd cmd = {
		.hdr = {
			.command = command,
			.in_words = sizeof(cmd) / 4,
			.out_words = sizeof(resp) / 4,
		},
		.response = (uintptr_t)&resp,
		.handle = handle,
		.wqe_size = wqe_size,
	};

	(void)!write(ctx->cmd_fd, &cmd, sizeof(cmd));
}

void mrc_sq_ring(struct ibv_context *ctx, uint32_t qp_handle)
{
	mrc_doorbell(ctx, IB_USER_VERBS_CMD_POST_SEND, qp_handle,
		     sizeof(struct ib_uverbs_send_wr));
}

static void mrc_sq_doorbell(struct mrc_qp *qp)
{
	__atomic_fetch_add(&qp->stats.sq_doorbells, 1, __ATOMIC_RELAXED);
	mrc_sq_ring(qp->vqp.qp.context, qp->vqp.qp.handle);
}

/*
 * After a post, with the kernel's SQ flags: ring now, or once the process
 * starts to wait on the send CQ (cq.c), or not at all (the send engine
 * pulls the ring at its next ACK before it runs dry).
 */
static void mrc_sq_posted(struct mrc_qp *qp, uint32_t flags)
{
	if (flags & METAROCE_QUEUE_NEED_WAKEUP)
		mrc_sq_doorbell(qp);
	else if (flags & METAROCE_QUEUE_KICK_ON_WAIT)
		mrc_cq_kick_later(to_mcq(qp->vqp.qp.send_cq), qp->vqp.qp.handle);
}

static void mrc_rq_doorbell(struct mrc_qp *qp)
{
	__atomic_fetch_add(&qp->stats.rq_doorbells, 1, __ATOMIC_RELAXED);
	mrc_doorbell(qp->vqp.qp.context, IB_USER_VERBS_CMD_POST_RECV,
		     qp->vqp.qp.handle, sizeof(struct ib_uverbs_recv_wr));
}

/* MRC_PROVIDER_STATS=1: one line per QP at destroy, for syscall counting. */
static void mrc_qp_report(struct mrc_qp *qp)
{
	const char *e = getenv("MRC_PROVIDER_STATS");

	if (!e || !*e || *e == '0')
		return;
	fprintf(stderr,
		"libmetaroce: qp %u: send wrs %llu doorbells %llu, recv wrs %llu doorbells %llu\n",
		qp->vqp.qp.qp_num, (unsigned long long)qp->stats.send_wrs,
		(unsigned long long)qp->stats.sq_doorbells,
		(unsigned long long)qp->stats.recv_wrs,
		(unsigned long long)qp->stats.rq_doorbells);
}

/*
 * After a post: how many WRs of this SQ the kernel has not retired, for
 * its send CQ's poller (cq.c): four or more is a pipeline it may nap on.
 */
static void mrc_note_backlog(struct mrc_qp *qp)
{
	uint32_t out = qp->sq.mine - mrc_load_acquire(&qp->sq.hdr->consumer);

	__atomic_store_n(&to_mcq(qp->vqp.qp.send_cq)->sq_backlog, out,
			 __ATOMIC_RELAXED);
}

/* --- post_send / post_recv -------------------------------------------------- */

/*
 * The verbs contract, as hardware providers keep it: a send queue takes
 * work requests from RTS on (SQD, SQE and ERR included: the last two flush
 * them), a receive queue from INIT on; before that the post fails with
 * EINVAL and writes nothing. The state is libibverbs' copy, which every
 * ibv_modify_qp() of this process updates; the kernel checks again.
 */
static bool mrc_send_state_ok(enum ibv_qp_state s)
{
	return s == IBV_QPS_RTS || s == IBV_QPS_SQD || s == IBV_QPS_SQE ||
	       s == IBV_QPS_ERR;
}

static bool mrc_recv_state_ok(enum ibv_qp_state s)
{
	return s != IBV_QPS_RESET && s != IBV_QPS_UNKNOWN;
}

/*
 * A BIND_MW WR names its window's new rkey, which the window takes once the
 * WR is posted: the next bind (or the consumer) starts from it. Only
 * ibv_bind_mw() (@type1_bind) binds type 1 windows.
 */
static int mrc_post_bind_ok(struct ibv_send_wr *wr, bool type1_bind)
{
	struct ibv_mw *mw = wr->bind_mw.mw;
	bool type1;

	if (wr->opcode != IBV_WR_BIND_MW)
		return 0;
	type1 = mw && mw->type == IBV_MW_TYPE_1;
	if (!mw || type1 != type1_bind)
		return EINVAL;
	return 0;
}

int mrc_post_send_ring(struct mrc_qp *qp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad_wr, bool type1_bind)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct mrc_ring *r = &qp->sq;
	uint32_t room, n = 0, flags = 0;
	int err = 0;

	if (!mrc_send_state_ok(ibqp->state)) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->sq_lock);
	room = mrc_ring_room(r);
	for (; wr; wr = wr->next, n++) {
		if (n == room) {
			err = ENOMEM;
			break;
		}
		err = mrc_post_bind_ok(wr, type1_bind);
		if (!err)
			err = mrc_send_wqe_build(mrc_ring_slot(r, r->mine + n),
						 r->slot_size, r->max_sge,
						 qp->max_inline, ibqp->qp_type,
						 wr);
		if (err)
			break;
		if (wr->opcode == IBV_WR_BIND_MW)
			wr->bind_mw.mw->rkey = wr->bind_mw.rkey;
	}
	if (n) {
		r->mine += n;
		qp->stats.send_wrs += n;
		flags = mrc_ring_publish(r);
		mrc_note_backlog(qp);
	}
	pthread_spin_unlock(&qp->sq_lock);
	mrc_sq_posted(qp, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

int mrc_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	return mrc_post_send_ring(to_mqp(ibqp), wr, bad_wr, false);
}

static int mrc_post_recv_ring(struct mrc_ring *r, pthread_spinlock_t *lock,
			      uint64_t *count, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr, int *ring)
{
	uint32_t room, n = 0;
	int err = 0;

	*ring = 0;
	pthread_spin_lock(lock);
	room = mrc_ring_room(r);
	for (; wr; wr = wr->next, n++) {
		if (n == room) {
			err = ENOMEM;
			break;
		}
		err = mrc_recv_wqe_build(mrc_ring_slot(r, r->mine + n),
					 r->slot_size, r->max_sge, wr);
		if (err)
			break;
	}
	if (n) {
		r->mine += n;
		*count += n;
		*ring = mrc_ring_publish(r) & METAROCE_QUEUE_NEED_WAKEUP;
	}
	pthread_spin_unlock(lock);
	if (err)
		*bad_wr = wr;
	return err;
}

int mrc_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct mrc_qp *qp = to_mqp(ibqp);
	int err, ring;

	/* on an SRQ there is no receive queue of its own */
	if (!qp->rq.hdr || !mrc_recv_state_ok(ibqp->state)) {
		*bad_wr = wr;
		return EINVAL;
	}
	err = mrc_post_recv_ring(&qp->rq, &qp->rq_lock, &qp->stats.recv_wrs,
				 wr, bad_wr, &ring);
	if (ring)
		mrc_rq_doorbell(qp);
	return err;
}

int mrc_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	struct mrc_srq *srq = to_msrq(ibsrq);
	int err, ring;

	err = mrc_post_recv_ring(&srq->ring, &srq->lock, &srq->recv_wrs, wr,
				 bad_wr, &ring);
	if (ring)
		mrc_doorbell(ibsrq->context, IB_USER_VERBS_CMD_POST_SRQ_RECV,
			     ibsrq->handle, sizeof(struct ib_uverbs_recv_wr));
	return err;
}

/* --- the ibv_wr_*() API ------------------------------------------------------ */

/*
 * wr_start takes the send lock and wr_complete (or wr_abort) drops it;
 * every builder in between opens the next slot after the last one. Errors
 * are sticky: wr_complete reports the first and publishes nothing.
 */
static inline struct mrc_qp *qpx_to_mqp(struct ibv_qp_ex *qpx)
{
	return mrc_container_of(qpx, struct mrc_qp, vqp.qp_ex);
}

static void mrc_wr_start(struct ibv_qp_ex *qpx)
{
	struct mrc_qp *qp = qpx_to_mqp(qpx);

	pthread_spin_lock(&qp->sq_lock);
	qp->wr.count = 0;
	/* wr_complete() reports it; nothing is published */
	qp->wr.err = mrc_send_state_ok(qpx->qp_base.state) ? 0 : EINVAL;
	qp->wr.cur = NULL;
	qp->wr.room = mrc_ring_room(&qp->sq);
}

static int mrc_wr_complete(struct ibv_qp_ex *qpx)
{
	struct mrc_qp *qp = qpx_to_mqp(qpx);
	int err = qp->wr.err;
	uint32_t flags = 0;

	if (!err && qp->wr.count) {
		qp->sq.mine += qp->wr.count;
		qp->stats.send_wrs += qp->wr.count;
		flags = mrc_ring_publish(&qp->sq);
		mrc_note_backlog(qp);
	}
	qp->wr.cur = NULL;
	pthread_spin_unlock(&qp->sq_lock);
	mrc_sq_posted(qp, flags);
	return err;
}

static void mrc_wr_abort(struct ibv_qp_ex *qpx)
{
	struct mrc_qp *qp = qpx_to_mqp(qpx);

	qp->wr.cur = NULL;
	pthread_spin_unlock(&qp->sq_lock);
}

/* Opens the next slot for @opcode; NULL (and a sticky error) when it can't. */
static struct metaroce_send_wqe *mrc_wr_open(struct mrc_qp *qp,
					     enum ibv_wr_opcode opcode)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct metaroce_send_wqe *w;

	qp->wr.cur = NULL;
	if (qp->wr.err)
		return NULL;
	if (qp->wr.count == qp->wr.room) {
		qp->wr.err = ENOMEM;
		return NULL;
	}
	w = mrc_ring_slot(&qp->sq, qp->sq.mine + qp->wr.count++);
	mrc_send_wqe_header(w, qpx->wr_id, opcode, qpx->wr_flags);
	w->send_flags &= ~IBV_SEND_INLINE;	/* set by wr_set_inline_data */
	qp->wr.cur = w;
	return w;
}

static void mrc_wr_send(struct ibv_qp_ex *qpx)
{
	mrc_wr_open(qpx_to_mqp(qpx), IBV_WR_SEND);
}

static void mrc_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	struct metaroce_send_wqe *w;

	w = mrc_wr_open(qpx_to_mqp(qpx), IBV_WR_SEND_WITH_IMM);
	if (w)
		w->ex.imm_data = imm;
}

static void mrc_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct metaroce_send_wqe *w;

	w = mrc_wr_open(qpx_to_mqp(qpx), IBV_WR_SEND_WITH_INV);
	if (w)
		w->ex.invalidate_rkey = rkey;
}

static void mrc_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct metaroce_send_wqe *w;

	w = mrc_wr_open(qpx_to_mqp(qpx), IBV_WR_LOCAL_INV);
	if (w)
		w->ex.invalidate_rkey = rkey;
}

/* Type 2 only, as for ibv_post_send(); the window takes @rkey at once. */
static void mrc_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			   uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct mrc_qp *qp = qpx_to_mqp(qpx);
	struct metaroce_send_wqe *w;

	w = mrc_wr_open(qp, IBV_WR_BIND_MW);
	if (!w)
		return;
	if (!mw || mw->type != IBV_MW_TYPE_2 ||
	    mrc_send_wqe_set_bind(w, mw, rkey, info)) {
		qp->wr.err = EINVAL;
		return;
	}
	mw->rkey = rkey;
}

static void mrc_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
			uint32_t rkey, uint64_t raddr, __be32 imm)
{
	struct metaroce_send_wqe *w;

	w = mrc_wr_open(qpx_to_mqp(qpx), op);
	if (!w)
		return;
	w->wr.rdma.remote_addr = raddr;
	w->wr.rdma.rkey = rkey;
	w->ex.imm_data = imm;
}

static void mrc_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t raddr)
{
	mrc_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, raddr, 0);
}

static void mrc_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t raddr, __be32 imm)
{
	mrc_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, raddr, imm);
}

static void mrc_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t raddr)
{
	mrc_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, raddr, 0);
}

static void mrc_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
			  uint32_t rkey, uint64_t raddr, uint64_t compare_add,
			  uint64_t swap)
{
	struct mrc_qp *qp = qpx_to_mqp(qpx);
	struct metaroce_send_wqe *w;

	if (raddr & 7) {
		if (!qp->wr.err)
			qp->wr.err = EINVAL;
		qp->wr.cur = NULL;
		return;
	}
	w = mrc_wr_open(qp, op);
	if (!w)
		return;
	w->wr.atomic.remote_addr = raddr;
	w->wr.atomic.compare_add = compare_add;
	w->wr.atomic.swap = swap;
	w->wr.atomic.rkey = rkey;
}

static void mrc_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t raddr, uint64_t compare,
				  uint64_t swap)
{
	mrc_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, raddr, compare,
		      swap);
}

static void mrc_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t raddr, uint64_t add)
{
	mrc_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, raddr, add, 0);
}

static void mrc_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct mrc_qp *qp = qpx_to_mqp(qpx);

	if (!qp->wr.cur)
		return;
	if (qp->vqp.qp.qp_type != IBV_QPT_UD ||
	    mrc_send_wqe_set_ud(qp->wr.cur, ah, remote_qpn, remote_qkey)) {
		qp->wr.err = EINVAL;
		qp->wr.cur = NULL;
	}
}

static void mrc_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num,
				const struct ibv_sge *list)
{
	struct mrc_qp *qp = qpx_to_mqp(qpx);
	struct metaroce_send_wqe *w = qp->wr.cur;
	struct metaroce_sge *sge;
	size_t i;

	if (!w)
		return;
	if (num > qp->sq.max_sge ||
	    num > mrc_slot_max_sge(qp->sq.slot_size, sizeof(*w))) {
		qp->wr.err = EINVAL;
		qp->wr.cur = NULL;
		return;
	}
	sge = (struct metaroce_sge *)(w + 1);
	for (i = 0; i < num; i++) {
		sge[i].addr = list[i].addr;
		sge[i].length = list[i].length;
		sge[i].lkey = list[i].lkey;
	}
	w->num_sge = (uint32_t)num;
	w->send_flags &= ~IBV_SEND_INLINE;
}

static void mrc_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	mrc_wr_set_sge_list(qpx, 1, &sge);
}

static void mrc_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num,
					const struct ibv_data_buf *list)
{
	struct mrc_qp *qp = qpx_to_mqp(qpx);
	struct metaroce_send_wqe *w = qp->wr.cur;
	uint32_t room, total = 0;
	size_t i;

	if (!w)
		return;
	room = qp->sq.slot_size - (uint32_t)sizeof(*w);
	if (room > qp->max_inline)
		room = qp->max_inline;
	for (i = 0; i < num; i++) {
		if (list[i].length > room - total) {
			qp->wr.err = EINVAL;
			qp->wr.cur = NULL;
			return;
		}
		memcpy((uint8_t *)(w + 1) + total, list[i].addr,
		       list[i].length);
		total += (uint32_t)list[i].length;
	}
	w->length = total;
	w->num_sge = 0;
	w->send_flags |= IBV_SEND_INLINE;
}

static void mrc_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				   size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	mrc_wr_set_inline_data_list(qpx, 1, &buf);
}

/* What the kernel executes for a process, per transport (no LSO). */
#define MRC_RC_SEND_OPS                                                        \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |      \
	 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                  \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |        \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV |  \
	 IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV)
/* UC: the one-way operations and the local ones ([OPS-41]) */
#define MRC_UC_SEND_OPS                                                        \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |      \
	 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                  \
	 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_BIND_MW |               \
	 IBV_QP_EX_WITH_LOCAL_INV)
#define MRC_UD_SEND_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

void mrc_qp_set_wr_ops(struct mrc_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *x = &qp->vqp.qp_ex;

	if (ops & IBV_QP_EX_WITH_SEND)
		x->wr_send = mrc_wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		x->wr_send_imm = mrc_wr_send_imm;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		x->wr_send_inv = mrc_wr_send_inv;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		x->wr_rdma_write = mrc_wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		x->wr_rdma_write_imm = mrc_wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		x->wr_rdma_read = mrc_wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		x->wr_atomic_cmp_swp = mrc_wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		x->wr_atomic_fetch_add = mrc_wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		x->wr_bind_mw = mrc_wr_bind_mw;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		x->wr_local_inv = mrc_wr_local_inv;
	x->wr_set_ud_addr = mrc_wr_set_ud_addr;
	x->wr_set_sge = mrc_wr_set_sge;
	x->wr_set_sge_list = mrc_wr_set_sge_list;
	x->wr_set_inline_data = mrc_wr_set_inline_data;
	x->wr_set_inline_data_list = mrc_wr_set_inline_data_list;
	x->wr_start = mrc_wr_start;
	x->wr_complete = mrc_wr_complete;
	x->wr_abort = mrc_wr_abort;
}

/* --- create / modify / query / destroy --------------------------------------- */

static int mrc_qp_map(struct mrc_qp *qp, int cmd_fd,
		      const struct metaroce_create_qp_resp *r,
		      const struct ibv_qp_cap *cap, int has_srq)
{
	int err;

	err = mrc_ring_map(&qp->sq, cmd_fd, &r->sq,
			   sizeof(struct metaroce_send_wqe));
	if (err)
		return err;
	qp->sq.max_sge = cap->max_send_sge;
	if (!has_srq) {
		err = mrc_ring_map(&qp->rq, cmd_fd, &r->rq,
				   sizeof(struct metaroce_recv_wqe));
		if (err) {
			mrc_ring_unmap(&qp->sq);
			return err;
		}
		qp->rq.max_sge = cap->max_recv_sge;
	}
	qp->max_inline = r->max_inline;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

static void mrc_qp_free(struct mrc_qp *qp)
{
	mrc_ring_unmap(&qp->sq);
	mrc_ring_unmap(&qp->rq);
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp);
}

/*
 * Both create paths end here once the kernel made the QP: map its rings,
 * or destroy it again so a failed create leaves nothing behind. @cap is
 * what the kernel granted (libibverbs copied its answer in).
 */
static struct ibv_qp *mrc_qp_created(struct mrc_qp *qp, int cmd_fd,
				     const struct metaroce_create_qp_resp *drv,
				     const struct ibv_qp_cap *cap, int has_srq)
{
	int err = mrc_qp_map(qp, cmd_fd, drv, cap, has_srq);

	if (err) {
		ibv_cmd_destroy_qp(&qp->vqp.qp);
		free(qp);
		errno = err;
		return NULL;
	}
	return &qp->vqp.qp;
}

/*
 * RC, UC and UD; UD needs AH numbers: a kernel of ABI 2 or later. A
 * module older than UC refuses a UC QP itself (EOPNOTSUPP).
 */
static int mrc_qp_type_ok(struct ibv_context *ibctx, enum ibv_qp_type type)
{
	if (type != IBV_QPT_RC && type != IBV_QPT_UC && type != IBV_QPT_UD) {
		errno = EOPNOTSUPP;
		return 0;
	}
	if (type == IBV_QPT_UD && to_mctx(ibctx)->abi_version < MRC_ABI_UD) {
		errno = EOPNOTSUPP;
		return 0;
	}
	return 1;
}

struct ibv_qp *mrc_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct mrc_create_qp_resp resp;
	struct mrc_create_qp cmd;
	struct mrc_qp *qp;
	int err;

	if (!mrc_qp_type_ok(pd->context, attr->qp_type))
		return NULL;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	err = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	return mrc_qp_created(qp, pd->context->cmd_fd, &resp.drv_payload,
			      &attr->cap, attr->srq != NULL);
}

struct ibv_qp *mrc_create_qp_ex(struct ibv_context *ibctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct mrc_create_qp_ex_resp resp;
	struct mrc_create_qp_ex cmd;
	uint64_t ops = 0;
	struct mrc_qp *qp;
	int err;

	if (attr->comp_mask & ~(IBV_QP_INIT_ATTR_PD |
				IBV_QP_INIT_ATTR_CREATE_FLAGS |
				IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!mrc_qp_type_ok(ibctx, attr->qp_type))
		return NULL;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		uint64_t ok = attr->qp_type == IBV_QPT_RC ? MRC_RC_SEND_OPS :
			      attr->qp_type == IBV_QPT_UC ? MRC_UC_SEND_OPS :
			      attr->qp_type == IBV_QPT_UD ? MRC_UD_SEND_OPS : 0;

		ops = attr->send_ops_flags;
		if (ops & ~ok) {
			errno = EOPNOTSUPP;
			return NULL;
		}
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		mrc_qp_set_wr_ops(qp, ops);
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	err = ibv_cmd_create_qp_ex2(ibctx, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		qp->vqp.comp_mask |= VERBS_QP_EX;
	return mrc_qp_created(qp, ibctx->cmd_fd, &resp.drv_payload,
			      &attr->cap, attr->srq != NULL);
}

int mrc_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct ibv_modify_qp cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_modify_qp(qp, attr, mask, &cmd, sizeof(cmd));
}

int mrc_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init)
{
	struct ibv_query_qp cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_qp(qp, attr, mask, init, &cmd, sizeof(cmd));
}

int mrc_destroy_qp(struct ibv_qp *ibqp)
{
	struct mrc_qp *qp = to_mqp(ibqp);
	int err;

	err = ibv_cmd_destroy_qp(ibqp);
	if (err)
		return err;
	mrc_cq_kick_forget(to_mcq(ibqp->send_cq), ibqp->handle);
	mrc_qp_report(qp);
	mrc_qp_free(qp);
	return 0;
}
