// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The send engine of an RC QP. Work requests are taken from the send
 * queue in order into xp->sq; remote ones become core messages
 * (mrc_conn_tx_post); the core hands out segments (mrc_conn_tx_next),
 * which we turn into packets with the payload gathered from the WQE's
 * SGEs, or from the responder's MR for READ/ATOMIC responses we owe.
 * ACKs and NAKs come back through rx.c; completions leave in posting
 * order: a WQE is done when the core completed its message and, for READ
 * and ATOMIC, the response arrived.
 *
 * Everything here runs with xp->lock held (see xport.h).
 */

#include "ack.h"
#include "metaroce.h"
#include "mw.h"
#include "place.h"
#include "probe.h"
#include "counter.h"
#include "stats.h"
#include "trace.h"
#include "xport.h"

static struct mrc_xp_swqe *mrc_swqe(struct mrc_xp *xp, u32 i)
{
	return &xp->sq[i % MRC_XP_SQ];
}

/* Every SGE of a gather (or, for READ/ATOMIC, scatter) list is usable. */
static int mrc_tx_check_sges(struct mrc_qp *qp, struct mrc_send_wqe *wqe,
			     int need)
{
	struct mrc_sge *sge = mrc_send_wqe_sge(wqe);
	struct mrc_mr *mr;
	u32 i;
	int err;

	if (mrc_send_wqe_inline(wqe))
		return 0;
	for (i = 0; i < wqe->num_sge; i++) {
		if (!sge[i].length)
			continue;
		mr = mrc_mr_get_checked(qp->ibqp.pd, sge[i].lkey, sge[i].addr,
					sge[i].length, need, &err);
		if (!mr)
			return err;
		mrc_mr_put(mr);
	}
	return 0;
}

/*
 * [PKT-46] A target range that wraps past 2^64 lies in no MR, and no
 * packet may carry it. A responder's range check would refuse it with
 * NAK ACCESS, as any RDMA device's does (rdma_rxe's mr_check_range()),
 * so it completes at once with what that NAK brings,
 * IB_WC_REM_ACCESS_ERR, and the QP enters ERR ([OPS-30]). Sent, each of
 * its packets would fail to encode, and the WR would end only after
 * retry_cnt timeouts. An atomic's 8 aligned bytes (checked at post)
 * cannot wrap.
 */
static bool mrc_tx_target_wraps(const struct mrc_send_wqe *wqe)
{
	switch (wqe->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		return mrc_wire_va_wraps(wqe->wr.rdma.remote_addr,
					 wqe->length);
	default:
		return false;
	}
}

/* Take one WQE; local operations finish here, in order. */
static void mrc_tx_take(struct mrc_xp *xp, struct mrc_send_wqe *wqe)
{
	struct mrc_qp *qp = xp->qp;
	struct mrc_xp_swqe *e = mrc_swqe(xp, xp->sq_take++);
	int err = 0;

	memset(e, 0, sizeof(*e));
	e->wqe = wqe;
	e->status = IB_WC_SUCCESS;
	switch (wqe->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_SEND:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		/* [PKT-40] the receives a peer consumes are numbered in order */
		e->rsn = xp->tx_rsn++;
		fallthrough;
	case IB_WR_RDMA_WRITE:
		e->remote = true;
		xp->last_send_len = wqe->length;
		err = mrc_tx_check_sges(qp, wqe, 0);
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		e->remote = true;
		e->need_resp = true;
		err = mrc_tx_check_sges(qp, wqe, IB_ACCESS_LOCAL_WRITE);
		break;
	case IB_WR_LOCAL_INV:
		err = mrc_key_invalidate(&mrc_dev_tables(qp->ibqp.device)->mrs,
					 qp->ibqp.pd, qp->ibqp.qp_num,
					 wqe->ex.invalidate_rkey, false);
		e->done = true;
		break;
	case IB_WR_BIND_MW:
		/* C10-71ff: a broken bind rule is a bind error, the QP fails */
		if (mrc_mw_bind(&mrc_dev_tables(qp->ibqp.device)->mrs,
				qp->ibqp.pd, qp->ibqp.qp_num, &wqe->wr.bind))
			e->status = IB_WC_MW_BIND_ERR;
		e->done = true;
		return;
	case IB_WR_REG_MR:
		err = mrc_mr_fast_reg(qp->ibqp.pd, wqe->wr.reg.mr,
				      wqe->wr.reg.key, wqe->wr.reg.access);
		e->done = true;
		break;
	default:
		e->status = IB_WC_LOC_QP_OP_ERR;
		e->done = true;
		return;
	}
	if (err) {
		e->status = IB_WC_LOC_PROT_ERR;
		e->done = true;
	} else if (mrc_tx_target_wraps(wqe)) {
		e->status = IB_WC_REM_ACCESS_ERR;
		e->done = true;
	}
}

/*
 * [REL-12] The connection failed: a READ or ATOMIC whose request was
 * delivered still waits for its response, which cannot come now (the
 * responder may have gone to ERR after acknowledging the request). It
 * ends with the connection's error, so the WQEs behind it retire in
 * order and the first error moves the QP to ERR. Left waiting, it held
 * the send queue in RTS for good, every later WQE done and unreported
 * (mrc_ufuzz seed 11, its 220th operation: an ATOMIC with a bad key).
 */
static void mrc_tx_fail_waiters(struct mrc_xp *xp)
{
	enum ib_wc_status status = xp->conn.error == MRC_CONN_E_RETRY ?
				   IB_WC_RETRY_EXC_ERR : IB_WC_REM_OP_ERR;
	u32 i;

	for (i = xp->sq_head; i != xp->sq_post; i++) {
		struct mrc_xp_swqe *e = mrc_swqe(xp, i);

		if (e->posted && e->need_resp && !e->done) {
			e->status = status;
			e->done = true;
		}
	}
}

/* The core's sender completions: mark the WQEs whose messages finished. */
static void mrc_tx_poll(struct mrc_xp *xp)
{
	struct mrc_completion done;

	while (mrc_conn_tx_poll(&xp->conn, &done)) {
		struct mrc_xp_swqe *e;

		if (done.cookie & MRC_XP_COOKIE_RESP) {
			u32 i = done.cookie & ~MRC_XP_COOKIE_RESP;

			/*
			 * A response that ran out of retries ends the
			 * connection, as a request's would: without a QP
			 * error nobody would learn of it.
			 */
			if (done.status != MRC_CONN_OK) {
				const struct mrc_conn_stats *st = &xp->conn.stats;

				pr_warn_ratelimited("metaroce: QP %u: a response to the peer failed (%s; %llu segments, %llu resent, %llu ACKs, %llu invalid)\n",
						    xp->qpn,
						    done.status == MRC_CONN_E_RETRY ?
						    "retries exceeded" : "protocol error",
						    st->tx_segs, st->tx_resends,
						    st->acks_rcvd, st->acks_invalid);
				mrc_qp_error(xp->qp, IB_EVENT_QP_FATAL);
			}
			/* a response is delivered: its slot may be reused */
			xp->resp[i % MRC_XP_RESP].done = true;
			while (xp->resp_head != xp->resp_post &&
			       xp->resp[xp->resp_head % MRC_XP_RESP].done)
				xp->resp_head++;
			continue;
		}
		/*
		 * [OPS-2] a READ or ATOMIC retires with its response; its
		 * request's ACK may come after. Only a failure still counts.
		 */
		if ((s32)((u32)done.cookie - xp->sq_head) < 0) {
			if (done.status != MRC_CONN_OK)
				mrc_qp_error(xp->qp, IB_EVENT_QP_FATAL);
			continue;
		}
		e = mrc_swqe(xp, (u32)done.cookie);
		if (done.status != MRC_CONN_OK && e->status == IB_WC_SUCCESS)
			e->status = done.status == MRC_CONN_E_RETRY ?
				    IB_WC_RETRY_EXC_ERR : IB_WC_REM_OP_ERR;
		/* a READ or ATOMIC waits for its response, unless it failed */
		if (e->status != IB_WC_SUCCESS || !e->need_resp)
			e->done = true;
	}
	if (xp->conn.error)
		mrc_tx_fail_waiters(xp);
}

static uint ring_bytes = 16384;
module_param(ring_bytes, uint, 0644);
MODULE_PARM_DESC(ring_bytes,
		 "a process rings again once all it posted is sent, if its last SEND or WRITE carried this many bytes (0: only once idle)");

/*
 * Poll mode waits for the engine's next run, which an ACK brings. While
 * the engine holds work back (windows, a budget) that is soon enough; once
 * it has sent everything, the next ACK may be a round trip of queued
 * packets away, and the process's next WRs wait for it. For large WRs a
 * system call each is cheap next to their packets, and ringing keeps the
 * link busy (ib_write_bw 64 KiB, 8 WRs out: the link idled between
 * bursts, +30-60% with ringing); small WRs go out in batches on the ACK
 * clock instead, as a system call and a NIC notification per WR cost
 * more than they gain (64 B writes: -60% when each rang). Those batches
 * start when the process waits: see mrc_tx_all_out().
 */
static bool mrc_tx_poll_ok(struct mrc_xp *xp, bool all_out)
{
	u32 big = READ_ONCE(ring_bytes);

	if (xp->sq_head == xp->sq_take)
		return false;	/* idle: nothing would look */
	if (!big || xp->last_send_len < big)
		return true;
	return !all_out;
}

/*
 * Everything taken is sent and nothing is held back: the engine's next
 * look at the ring is the next ACK's run, a round trip away. WRs posted
 * now would wait for it; perftest's ib_write_bw 4 KiB (30 WRs out, one
 * signaled) rang for the first WR after each completion and left the
 * other 29 a round trip in the ring. So the process is asked to ring
 * once when it starts to wait (METAROCE_QUEUE_KICK_ON_WAIT): one system
 * call per batch, not per WR.
 */
static bool mrc_tx_all_out(struct mrc_xp *xp)
{
	return xp->sq_post == xp->sq_take &&
	       xp->sq_take - xp->sq_head < MRC_XP_SQ &&
	       !mrc_conn_tx_backlog(&xp->conn);
}

/*
 * The doorbell of a process's SQ (uAPI header; Documentation/design.rst,
 * "Queues and doorbells"). While WQEs are outstanding, an ACK, a response
 * or the retransmit timer runs this engine again and every run pulls the
 * ring, so the process need not ring. Once idle nothing would look: ask
 * for the doorbell again, and look once more if a WQE slipped in while
 * the flag was clear. Outside RTS nothing is pulled; the move to RTS kicks.
 */
static void mrc_tx_doorbell(struct mrc_xp *xp)
{
	bool rts = mrc_qp_state(xp->qp) == IB_QPS_RTS;
	bool all_out = rts && mrc_tx_all_out(xp);

	if (rts && mrc_tx_poll_ok(xp, all_out))
		mrc_qp_sq_poll_mode(xp->qp, true, all_out);
	else if (mrc_qp_sq_poll_mode(xp->qp, false, false) && rts)
		mrc_xp_kick(xp);
}

/* Report finished WQEs, oldest first; true if a READ or ATOMIC retired. */
static bool mrc_tx_retire(struct mrc_xp *xp)
{
	bool rd_retired = false;

	mrc_tx_poll(xp);
	while (xp->sq_head != xp->sq_post) {
		struct mrc_xp_swqe *e = mrc_swqe(xp, xp->sq_head);

		if (!e->done)
			break;
		xp->sq_head++;
		if (e->posted && e->need_resp) {
			xp->rd_retired++;
			rd_retired = true;
		}
		mrc_qp_complete_send(xp->qp, e->status);
		if (e->status != IB_WC_SUCCESS)
			break;		/* the QP is in ERR now */
	}
	return rd_retired;
}

void mrc_tx_complete(struct mrc_xp *xp)
{
	bool rd_retired = mrc_tx_retire(xp);

	if (mrc_qp_state(xp->qp) == IB_QPS_ERR)
		mrc_tx_flush(xp);
	else if (rd_retired && xp->sq_post != xp->sq_take)
		mrc_xp_kick(xp);	/* a READ may wait for the room */
	mrc_tx_doorbell(xp);
}

/* ERR: give every WQE back, finished ones with their status. */
void mrc_tx_flush(struct mrc_xp *xp)
{
	while (xp->sq_head != xp->sq_take) {
		struct mrc_xp_swqe *e = mrc_swqe(xp, xp->sq_head++);

		mrc_qp_complete_send(xp->qp, e->done ? e->status :
				     IB_WC_WR_FLUSH_ERR);
	}
	xp->sq_post = xp->sq_take;
	xp->rd_retired = xp->rd_posted;
	xp->resp_head = xp->resp_tail;
	xp->resp_post = xp->resp_tail;
}

/*
 * [OPS-4] READ and ATOMIC requests outstanding (posted, not yet retired
 * in order from the SQ) stay within max_rd_atomic, as a verbs device's
 * send queue stalls: kernel consumers (nvmet-rdma's rdma_rw) post more
 * READs than that and rely on it. 0 would stall for good: read as 1.
 */
static bool mrc_tx_rd_room(struct mrc_xp *xp)
{
	u32 limit = max_t(u32, xp->qp->attr.max_rd_atomic, 1);

	return xp->rd_posted - xp->rd_retired < limit;
}

/* Hand taken WQEs and owed responses to the core, in order. */
static void mrc_tx_post(struct mrc_xp *xp)
{
	while (xp->sq_post != xp->sq_take) {
		struct mrc_xp_swqe *e = mrc_swqe(xp, xp->sq_post);
		u32 len;

		if (e->remote && !e->done) {
			if (e->need_resp && !mrc_tx_rd_room(xp))
				break;	/* retiring one kicks the engine */
			/* READ and ATOMIC requests are one empty segment */
			len = e->need_resp ? 0 : e->wqe->length;
			if (!mrc_conn_tx_post(&xp->conn, 0, len, xp->sq_post,
					      &e->msn))
				break;
			e->posted = true;
			if (e->need_resp) {
				/* [OPS-2] its response acknowledges it */
				mrc_conn_tx_no_end_ack(&xp->conn, e->msn);
				xp->rd_posted++;
			}
		}
		xp->sq_post++;
	}
	while (xp->resp_post != xp->resp_tail) {
		struct mrc_xp_resp *r = &xp->resp[xp->resp_post % MRC_XP_RESP];

		if (!mrc_conn_tx_post(&xp->conn, 0, r->atomic ? 0 : r->len,
				      MRC_XP_COOKIE_RESP | xp->resp_post,
				      &r->msn))
			break;
		r->posted = true;
		xp->resp_post++;
		/*
		 * [REL-14] nobody waits for a response's completion, and an
		 * ACK the requester sends at once would come before its
		 * application sees the response. Slots come back only with
		 * those ACKs, though: ask while half of them are taken.
		 */
		mrc_conn_tx_response(&xp->conn, r->msn);
		if (xp->resp_tail - xp->resp_head >= MRC_XP_RESP / 2)
			mrc_conn_tx_ask_ack(&xp->conn);
	}
}

/* Headers of a request segment; the payload is gathered by the caller. */
static void mrc_tx_fill_req(struct mrc_xp_swqe *e, const struct mrc_tx_seg *seg,
			    struct mrc_pkt *pkt)
{
	struct mrc_send_wqe *wqe = e->wqe;
	bool last = seg->flags & MRC_F_LAST;

	switch (wqe->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_SEND:
		pkt->type = MRC_PKT_SEND;
		pkt->send.rsn = e->rsn;
		pkt->send.offset = seg->offset;
		pkt->send.total_len = seg->total_len;
		if (last && wqe->opcode == IB_WR_SEND_WITH_IMM) {
			pkt->flags |= MRC_F_IMM;
			pkt->imm = be32_to_cpu(wqe->ex.imm_data);
		} else if (last && wqe->opcode == IB_WR_SEND_WITH_INV) {
			pkt->flags |= MRC_F_INV;
			pkt->imm = wqe->ex.invalidate_rkey;
		}
		break;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		/*
		 * [PKT-47] wants the RSN in every packet, but IMM may only be
		 * set on the last and the parser refuses an RSN without it:
		 * the last packet names the receive.
		 */
		if (last) {
			pkt->flags |= MRC_F_IMM;
			pkt->write.rsn = e->rsn;
			pkt->imm = be32_to_cpu(wqe->ex.imm_data);
		}
		fallthrough;
	case IB_WR_RDMA_WRITE:
		pkt->type = MRC_PKT_WRITE;
		pkt->write.va = wqe->wr.rdma.remote_addr;
		pkt->write.rkey = wqe->wr.rdma.rkey;
		pkt->write.offset = seg->offset;
		pkt->write.total_len = seg->total_len;
		break;
	case IB_WR_RDMA_READ:
		pkt->type = MRC_PKT_READ_REQ;
		pkt->read_req.va = wqe->wr.rdma.remote_addr;
		pkt->read_req.rkey = wqe->wr.rdma.rkey;
		pkt->read_req.len = wqe->length;
		pkt->read_req.resp_tag = e->msn;
		break;
	default:	/* the two atomics */
		pkt->type = MRC_PKT_ATOMIC;
		pkt->atomic.va = wqe->wr.atomic.remote_addr;
		pkt->atomic.rkey = wqe->wr.atomic.rkey;
		if (wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP) {
			pkt->atomic.op = MRC_ATOMIC_CMP_SWAP;
			pkt->atomic.compare = wqe->wr.atomic.compare_add;
			pkt->atomic.swap_add = wqe->wr.atomic.swap;
		} else {
			pkt->atomic.op = MRC_ATOMIC_FETCH_ADD;
			pkt->atomic.swap_add = wqe->wr.atomic.compare_add;
		}
		break;
	}
	if (last && (wqe->send_flags & IB_SEND_SOLICITED) &&
	    (pkt->type == MRC_PKT_SEND || pkt->type == MRC_PKT_WRITE))
		pkt->flags |= MRC_F_SOLICITED;
}

/* Build the packet of one segment; 0 or an ib_wc_status for the WQE. */
static int mrc_tx_build(struct mrc_xp *xp, const struct mrc_tx_seg *seg,
			struct sk_buff_head *out)
{
	struct mrc_qp *qp = xp->qp;
	struct mrc_pkt pkt = { };
	struct sk_buff *skb;
	u32 hlen;
	u8 *data;
	int err = 0;

	pkt.path_id = seg->path_id;
	pkt.flags = seg->flags | mrc_ack_bundle_flag();
	pkt.stream_id = seg->stream;
	pkt.psn = seg->psn;
	pkt.msn = seg->msn;
	pkt.ssn = seg->ssn;
	pkt.tsval = seg->tsval;
	pkt.cookie = xp->tx_cookie;
	pkt.payload_len = seg->len;

	if (seg->msg_cookie & MRC_XP_COOKIE_RESP) {
		struct mrc_xp_resp *r =
			&xp->resp[(u32)seg->msg_cookie % MRC_XP_RESP];

		if (r->atomic) {
			pkt.type = MRC_PKT_ATOMIC_RESP;
			pkt.atomic_resp.orig = r->orig;
		} else {
			pkt.type = MRC_PKT_READ_RESP;
			pkt.read_resp.resp_tag = r->tag;
			pkt.read_resp.offset = seg->offset;
			pkt.read_resp.total_len = seg->total_len;
		}
		hlen = mrc_wire_hdr_len(&pkt);
		skb = mrc_xp_alloc_skb(xp, hlen + seg->len + MRC_WIRE_ICRC_LEN);
		if (!skb)
			return -ENOMEM;
		data = skb_put(skb, hlen + seg->len) + hlen;
		if (seg->len) {
			/* the MR may have changed since the request: check again */
			u64 va = r->va + seg->offset;
			struct mrc_mr *mr = mrc_qp_remote_mr(qp, r->rkey, &va,
							     seg->len,
							     IB_ACCESS_REMOTE_READ,
							     &err);

			if (mr) {
				err = mrc_mr_copy(mr, va, data, seg->len,
						  MRC_COPY_FROM_MR);
				mrc_mr_put(mr);
			}
			if (err && (seg->flags & MRC_F_RETX)) {
				/*
				 * A resend after the consumer invalidated the
				 * MR (nvme-rdma does, once its command is
				 * done): most likely the requester has the
				 * data and its ACK is late. Send nothing; if
				 * the original really was lost, the segment
				 * runs out of retries and the QP fails then.
				 */
				kfree_skb(skb);
				return 0;
			}
			if (err) {
				kfree_skb(skb);
				return IB_WC_REM_ACCESS_ERR;
			}
		}
	} else {
		struct mrc_xp_swqe *e = mrc_swqe(xp, (u32)seg->msg_cookie);
		struct mrc_send_wqe *wqe = e->wqe;

		mrc_tx_fill_req(e, seg, &pkt);
		hlen = mrc_wire_hdr_len(&pkt);
		skb = mrc_xp_alloc_skb(xp, hlen + seg->len + MRC_WIRE_ICRC_LEN);
		if (!skb)
			return -ENOMEM;
		data = skb_put(skb, hlen + seg->len) + hlen;
		if (seg->len && mrc_send_wqe_inline(wqe))
			memcpy(data, wqe->data + seg->offset, seg->len);
		else if (seg->len)
			err = mrc_sgl_copy(qp->ibqp.pd, mrc_send_wqe_sge(wqe),
					   wqe->num_sge, seg->offset, data,
					   seg->len, MRC_COPY_FROM_MR);
		if (err) {
			kfree_skb(skb);
			e->status = IB_WC_LOC_PROT_ERR;
			e->done = true;
			return IB_WC_LOC_PROT_ERR;
		}
	}
	return mrc_xp_seal(xp, skb, &pkt, seg->sport, xp->dscp_data, out);
}

void mrc_tx_run(struct mrc_xp *xp, u64 now, u32 budget,
		struct sk_buff_head *out)
{
	u64 rode = xp->conn.stats.acks_rode, dups, stalls;
	struct mrc_send_wqe *wqe;
	struct mrc_tx_seg seg;
	u32 n = 0;
	int err;

	if (mrc_qp_state(xp->qp) == IB_QPS_ERR) {
		mrc_tx_flush(xp);
		mrc_place_flush_recvs(xp);
		mrc_tx_doorbell(xp);	/* posts in ERR must ring to be flushed */
		return;
	}
	/* answered READs first: their retirement makes room for more */
	mrc_tx_retire(xp);
	while (xp->sq_take - xp->sq_head < MRC_XP_SQ &&
	       (wqe = mrc_qp_next_send_wqe(xp->qp)))
		mrc_tx_take(xp, wqe);
	mrc_tx_post(xp);

	dups = xp->conn.stats.tx_dups;
	stalls = xp->conn.stats.tx_stall_copies;
	while (n < budget && mrc_conn_tx_next(&xp->conn, now, &seg)) {
		if (seg.flags & MRC_F_RETX)
			mrc_xp_stat_inc(xp, MRC_STAT_RETRANSMITS);
		if (seg.len > xp->conn.cfg.mss)
			mrc_xp_stat_inc(xp, MRC_STAT_TX_MULTI_SEG);
		err = mrc_tx_build(xp, &seg, out);
		if (err == -ENOMEM)
			break;	/* the core counts it lost and resends it */
		if (err > 0 && (seg.msg_cookie & MRC_XP_COOKIE_RESP)) {
			/* the responder lost access to the memory being read */
			mrc_qp_error(xp->qp, IB_EVENT_QP_ACCESS_ERR);
			break;
		}
		n++;
	}
	if (n == budget)
		mrc_xp_kick(xp);
	else
		mrc_probe_send_reqs(xp, now, out);
	if (xp->conn.stats.acks_rode != rode)
		mrc_xp_stat_add(xp, MRC_STAT_ACKS_RODE,
				xp->conn.stats.acks_rode - rode);
	if (xp->conn.stats.tx_dups != dups)
		mrc_xp_stat_add(xp, MRC_STAT_TAIL_COPIES,
				xp->conn.stats.tx_dups - dups);
	if (xp->conn.stats.tx_stall_copies != stalls)
		mrc_xp_stat_add(xp, MRC_STAT_STALL_COPIES,
				xp->conn.stats.tx_stall_copies - stalls);
	mrc_tx_complete(xp);
}

/*
 * 0 sends everything from the (high priority) work item: on a CPU shared
 * with a busy-polling application, softirq work that overflows into
 * ksoftirqd gets only a fair share of the CPU against the poller.
 */
static uint ack_tx_budget = MRC_XP_RX_TX_BUDGET;
module_param(ack_tx_budget, uint, 0644);
MODULE_PARM_DESC(ack_tx_budget,
		 "packets an ACK may send from softirq before the work item takes over");

void mrc_tx_on_ack(struct mrc_xp *xp, u64 now, const struct mrc_pkt *pkt,
		   struct sk_buff_head *out)
{
	struct mrc_xp_paths_was was;
	struct mrc_ack_info ack;
	const struct mrc_path *p;

	mrc_xp_stat_inc(xp, MRC_STAT_ACKS_RECEIVED);
	mrc_conn_ack_from_pkt(pkt, &ack);
	mrc_xp_paths_note(xp, &was);
	if (!mrc_conn_on_ack(&xp->conn, now, &ack))
		return;
	mrc_xp_count_paths(xp, &was);
	/* accepted: path_id is one of ours */
	p = &xp->conn.path[ack.path_id];
	trace_mrc_path_ack(xp, ack.path_id, ack.rate_hint, p->state, p->sport);
	/*
	 * The windows may have opened: send a little right here, as TCP
	 * does from its ACK processing; the work item takes over beyond
	 * that budget, so softirq time stays bounded.
	 */
	mrc_tx_run(xp, now, READ_ONCE(ack_tx_budget), out);
}

/* The posted, unfinished WQE whose message is @msn; NULL if none. */
static struct mrc_xp_swqe *mrc_tx_pending_msn(struct mrc_xp *xp, u32 msn)
{
	u32 i;

	for (i = xp->sq_head; i != xp->sq_post; i++) {
		struct mrc_xp_swqe *e = mrc_swqe(xp, i);

		if (e->posted && e->msn == msn && !e->done)
			return e;
	}
	return NULL;
}

/* The posted WQE whose message is @msn fails with @status. */
static void mrc_tx_fail_msn(struct mrc_xp *xp, u32 msn,
			    enum ib_wc_status status)
{
	struct mrc_xp_swqe *e = mrc_tx_pending_msn(xp, msn);

	if (e) {
		e->status = status;
		e->done = true;
	}
	mrc_tx_complete(xp);
}

/*
 * The peer had no receive for message @msn. The core resends it (the
 * packet was not accepted, so it is lost to the core); each refusal
 * counts against rnr_retry, where 7 means "retry forever" (IBA 9.7.5.2.8).
 * Verbs give a UC QP no rnr_retry: it waits as long as it takes
 * ([OPS-42]), where a UC HCA would have lost the message.
 */
static void mrc_tx_on_rnr(struct mrc_xp *xp, u32 msn)
{
	u8 limit = xp->qp->ibqp.qp_type == IB_QPT_UC ? 7 :
		   xp->qp->attr.rnr_retry;
	struct mrc_xp_swqe *e;

	if (limit >= 7)
		return;
	e = mrc_tx_pending_msn(xp, msn);
	if (e && ++e->rnr_naks > limit)
		mrc_tx_fail_msn(xp, msn, IB_WC_RNR_RETRY_EXC_ERR);
}

void mrc_tx_on_nak(struct mrc_xp *xp, const struct mrc_pkt *pkt)
{
	enum ib_wc_status status;

	switch (pkt->nak.code) {
	case MRC_NAK_RNR:
		mrc_tx_on_rnr(xp, pkt->nak.msn);
		return;
	case MRC_NAK_ACCESS:
		status = IB_WC_REM_ACCESS_ERR;
		break;
	case MRC_NAK_INVALID_REQ:
		status = IB_WC_REM_INV_REQ_ERR;
		break;
	case MRC_NAK_REMOTE_OP:
		status = IB_WC_REM_OP_ERR;
		break;
	default:
		/*
		 * SEQ: the packet was not accepted, so the core's loss
		 * detection resends it; nothing to do here.
		 */
		return;
	}
	mrc_tx_fail_msn(xp, pkt->nak.msn, status);
}

/* READ/ATOMIC response handling at the requester, called from rx.c. */

/* The oldest WQE still waiting for its response; NULL if none. */
static struct mrc_xp_swqe *mrc_tx_resp_waiter(struct mrc_xp *xp)
{
	u32 i;

	for (i = xp->sq_head; i != xp->sq_post; i++) {
		struct mrc_xp_swqe *e = mrc_swqe(xp, i);

		if (e->posted && e->need_resp && !e->responded &&
		    e->status == IB_WC_SUCCESS)
			return e;
	}
	return NULL;
}

/* The sink of a READ_RESP segment: the READ WQE whose MSN is @tag. */
int mrc_tx_read_resp_place(struct mrc_xp *xp, const struct mrc_pkt *pkt,
			   const struct sk_buff *skb)
{
	struct mrc_send_wqe *wqe;
	u32 i;

	for (i = xp->sq_head; i != xp->sq_post; i++) {
		struct mrc_xp_swqe *e = mrc_swqe(xp, i);

		if (!e->posted || e->msn != pkt->read_resp.resp_tag ||
		    e->wqe->opcode != IB_WR_RDMA_READ || e->responded)
			continue;
		wqe = e->wqe;
		if (pkt->read_resp.total_len != wqe->length)
			return -EINVAL;
		if (!pkt->payload_len)
			return 0;
		return mrc_place_sgl(pkt, skb, xp->qp->ibqp.pd,
				     mrc_send_wqe_sge(wqe), wqe->num_sge,
				     pkt->read_resp.offset);
	}
	return -ENOENT;
}

/*
 * A response message completed. Responders answer in request order, so
 * it belongs to the oldest WQE still waiting ([OPS-2]); @tag is checked
 * for READs, @orig stored for ATOMICs. The caller runs the engine, which
 * retires the WQE (mrc_rx_complete() says so).
 */
int mrc_tx_resp_done(struct mrc_xp *xp, bool atomic, u32 tag, u64 orig)
{
	struct mrc_xp_swqe *e = mrc_tx_resp_waiter(xp);
	struct mrc_send_wqe *wqe;
	bool is_read;
	int err = 0;

	if (!e)
		return -ENOENT;
	wqe = e->wqe;
	is_read = wqe->opcode == IB_WR_RDMA_READ;
	if (atomic == is_read || (is_read && e->msn != tag))
		return -EINVAL;
	if (atomic) {
		/* the original value lands in the local 8-byte buffer */
		err = mrc_sgl_copy(xp->qp->ibqp.pd, mrc_send_wqe_sge(wqe),
				   wqe->num_sge, 0, &orig, sizeof(orig),
				   MRC_COPY_TO_MR);
		if (err)
			e->status = IB_WC_LOC_PROT_ERR;
	}
	e->responded = true;
	e->done = true;		/* [OPS-2] the response proves the request */
	return 0;
}

/*
 * [OPS-2] A segment of a response arrived: it answers its request
 * ([REL-10]), a READ's by its tag, an ATOMIC's the oldest waiting; a
 * response to nothing we sent matches no request and changes nothing.
 */
void mrc_tx_answered(struct mrc_xp *xp, const struct mrc_pkt *pkt, u64 now)
{
	struct mrc_xp_swqe *e;

	if (pkt->type == MRC_PKT_READ_RESP) {
		mrc_conn_tx_answered(&xp->conn, pkt->read_resp.resp_tag, now);
		return;
	}
	e = mrc_tx_resp_waiter(xp);
	if (e)
		mrc_conn_tx_answered(&xp->conn, e->msn, now);
}

/*
 * Queue a response we owe (rx.c, at the request's completion). The caller
 * runs the engine after the completions: a work item kicked here woke a
 * kworker per READ for nothing.
 */
bool mrc_tx_resp_queue(struct mrc_xp *xp, bool atomic, u64 va, u32 rkey,
		       u32 len, u32 tag, u64 orig)
{
	struct mrc_xp_resp *r;

	if (xp->resp_tail - xp->resp_head >= MRC_XP_RESP)
		return false;
	r = &xp->resp[xp->resp_tail++ % MRC_XP_RESP];
	memset(r, 0, sizeof(*r));
	r->atomic = atomic;
	r->va = va;
	r->rkey = rkey;
	r->len = atomic ? 0 : len;
	r->tag = tag;
	r->orig = orig;
	mrc_tx_post(xp);
	return true;
}
