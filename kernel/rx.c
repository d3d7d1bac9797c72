// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The receive side of an RC connection, in the UDP encap softirq with
 * xp->lock held (demux.c found the QP and checked the packet's type
 * against it): check the source, the QP state and the cookie, check the
 * target (MR, receive WQE) before the core counts the packet, ask the
 * core whether the segment is new, and place it directly: WRITE into the
 * checked MR, SEND into the receive its RSN names, READ_RESP into the
 * READ's local SGEs. READ and ATOMIC requests execute on first arrival
 * (the core's duplicate detection makes an ATOMIC run once); their
 * responses are queued in request order when the request completes. ACKs
 * fall due per the core.
 *
 * Nothing reaches memory but through mrc_qp_remote_mr() and the copies
 * of mr_copy.c, i.e. through the single MR check.
 */

#include <linux/module.h>

#include "metaroce.h"
#include "mw.h"
#include "ack.h"
#include "place.h"
#include "probe.h"
#include "counter.h"
#include "stats.h"
#include "xport.h"

/* IBA table 45: the RNR NAK timer field in microseconds. */
static const u32 mrc_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * [OPS-42] Verbs give a UC QP no min_rnr_timer; its 0 would be IBA's
 * 655 ms. A UC sender expects not to wait at all: 640 us, a few round
 * trips of a software path.
 */
#define MRC_UC_RNR_TIMER	12

static u32 mrc_rx_rnr_usecs(const struct mrc_qp *qp)
{
	if (qp->ibqp.qp_type == IB_QPT_UC)
		return mrc_rnr_usecs[MRC_UC_RNR_TIMER];
	return mrc_rnr_usecs[qp->attr.min_rnr_timer & 31];
}

static bool mrc_rx_state_ok(enum ib_qp_state s)
{
	return s == IB_QPS_RTR || s == IB_QPS_RTS || s == IB_QPS_SQD ||
	       s == IB_QPS_SQE;
}

/*
 * The peer answers before it had an sq_psn (see mrc_xp_connect_locked()):
 * its responses start at our sq_psn. Follow it, once, while nothing of
 * its data arrived yet.
 */
static void mrc_rx_follow_peer(struct mrc_xp *xp)
{
	struct mrc_conn *c = &xp->conn;
	u32 i;

	if (c->stats.rx_new || c->stats.rx_dup || c->stats.rx_drop)
		return;
	xp->rx_cookie = xp->tx_cookie;
	for (i = 0; i < MRC_MAX_PATHS; i++)
		mrc_path_rx_init(&c->path[i].rx, xp->rx_cookie);
}

static bool mrc_rx_cookie_ok(struct mrc_xp *xp, const struct mrc_pkt *pkt)
{
	/* [PKT-92] sent from RTS on: the peer's final starting PSN */
	if (pkt->type == MRC_PKT_HELLO)
		return pkt->cookie == xp->rx_cookie;
	if (mrc_ack_is_ctrl(pkt))
		return pkt->cookie == xp->tx_cookie;
	if (pkt->cookie != xp->rx_cookie && pkt->cookie == xp->tx_cookie)
		mrc_rx_follow_peer(xp);
	return pkt->cookie == xp->rx_cookie;
}

static void mrc_rx_nak(struct mrc_xp *xp, const struct mrc_pkt *in, u8 code,
		       u32 arg, struct sk_buff_head *out)
{
	struct mrc_pkt pkt = { };
	struct sk_buff *skb;
	u32 hlen;
	u16 sport = mrc_conn_ack_sport(&xp->conn, in->path_id);

	pkt.type = MRC_PKT_NAK;
	pkt.path_id = in->path_id;
	pkt.tsval = (u32)ktime_get_ns();
	pkt.cookie = mrc_ack_cookie(xp, &pkt);
	pkt.nak.code = code;
	pkt.nak.psn = in->psn;
	pkt.nak.msn = in->msn;
	pkt.nak.arg = arg;
	hlen = mrc_wire_hdr_len(&pkt);
	skb = mrc_xp_alloc_skb(xp, hlen + MRC_WIRE_ICRC_LEN);
	if (!skb)
		return;
	skb_put(skb, hlen);
	if (!mrc_xp_seal(xp, skb, &pkt, sport, xp->dscp_ctrl, out))
		mrc_xp_stat_inc(xp, MRC_STAT_NAKS_SENT);
}

/*
 * [PKT-94] a HELLO that passed every check: the core keeps what it says
 * and may want it answered, once it is ours to answer (RTS or later).
 * Counted per device; an end that does not speak HELLO drops it as the
 * unknown type it is to an older peer.
 */
static void mrc_rx_hello(struct mrc_xp *xp, u64 now, const struct mrc_pkt *pkt,
			 int plane, enum ib_qp_state state,
			 struct sk_buff_head *out)
{
	bool may_answer = state == IB_QPS_RTS || state == IB_QPS_SQD ||
			  state == IB_QPS_SQE;
	u32 had = mrc_hello_nplanes(&xp->hello);

	if (!xp->hello_on) {
		mrc_xp_stat_drop(xp, MRC_STAT_RX_DROP_MALFORMED);
		return;
	}
	/* [SEC-3] the peer's own address: planes are what it announces */
	if (plane) {
		mrc_xp_stat_drop(xp, MRC_STAT_RX_DROP_SOURCE);
		return;
	}
	mrc_xp_stat_inc(xp, MRC_STAT_HELLOS_RECEIVED);
	switch (mrc_hello_on_rx(&xp->hello, pkt, may_answer)) {
	case MRC_HELLO_SEND_ANSWER:
		if (!mrc_xp_hello_send(xp, MRC_HELLO_ANSWER,
				       mrc_ack_bundle_flag(), out))
			mrc_xp_stat_inc(xp, MRC_STAT_HELLOS_SENT);
		break;
	case MRC_HELLO_REFUSED:
		mrc_xp_stat_inc(xp, MRC_STAT_HELLOS_REFUSED);
		break;
	case MRC_HELLO_TAKEN:
		break;
	}
	if (had == 1 && mrc_hello_nplanes(&xp->hello) > 1) {
		mrc_xp_stat_inc(xp, MRC_STAT_PLANES_NEGOTIATED);
		/* [PATH-8] a plane without its link from the start */
		mrc_xp_links_now(xp, now);
	}
	/* [PATH-1] the paths a silent peer would not have taken */
	if (xp->hello.peer_known && xp->live &&
	    mrc_conn_open_paths(&xp->conn,
				min_t(u32, xp->want_paths,
				      xp->hello.peer.max_paths), now)) {
		mrc_xp_stat_inc(xp, MRC_STAT_PATHS_OPENED);
		mrc_xp_links_now(xp, now);
	}
}

/*
 * The peer broke a rule or an access failed: tell it, stop the QP, and
 * remember the refusal: the NAK may be lost, and the refused packet was
 * not acknowledged, so its resends come and are answered in ERR too.
 */
static void mrc_rx_fail(struct mrc_xp *xp, const struct mrc_pkt *pkt, u8 code,
			enum ib_event_type event, struct sk_buff_head *out)
{
	mrc_rx_nak(xp, pkt, code, 0, out);
	if (!xp->refused_code) {
		xp->refused_code = code;
		xp->refused_msn = pkt->msn;
	}
	mrc_qp_error(xp->qp, event);
}

/* [OPS-31] a resend of the message whose refusal failed the QP */
static bool mrc_rx_refused_again(struct mrc_xp *xp, const struct mrc_pkt *pkt,
				 enum ib_qp_state state)
{
	return state == IB_QPS_ERR && xp->refused_code &&
	       !mrc_ack_is_ctrl(pkt) && pkt->type != MRC_PKT_HELLO &&
	       pkt->msn == xp->refused_msn;
}

/*
 * The receive WQE number @rsn, taking posted ones in order up to it.
 * NULL with *@rnr when none is posted yet, NULL alone when @rsn is not in
 * the window (completed long ago, or implausibly far ahead).
 */
static struct mrc_recv_wqe *mrc_rx_recv_wqe(struct mrc_xp *xp, u32 rsn,
					    bool *rnr)
{
	*rnr = false;
	if (rsn - xp->rsn_head >= MRC_CONN_MSGS)
		return NULL;
	while ((s32)(rsn - xp->rsn_take) >= 0) {
		struct mrc_recv_wqe *w = mrc_qp_take_recv(xp->qp);

		if (!w) {
			*rnr = true;
			return NULL;
		}
		xp->rwqe[xp->rsn_take++ % MRC_CONN_MSGS] = w;
	}
	return xp->rwqe[rsn % MRC_CONN_MSGS];
}

/* Per-message facts the glue keeps; false if the segment contradicts them. */
static struct mrc_xp_rmsg *mrc_rx_rmsg(struct mrc_xp *xp,
				       const struct mrc_pkt *pkt)
{
	struct mrc_xp_rmsg *m = &xp->rmsg[pkt->msn % MRC_CONN_MSGS];

	if (!m->type) {
		memset(m, 0, sizeof(*m));
		m->type = pkt->type;
		m->msn = pkt->msn;
	} else if (m->type != pkt->type || m->msn != pkt->msn) {
		return NULL;
	}
	if (pkt->flags & MRC_F_LAST) {
		m->flags = pkt->flags & (MRC_F_IMM | MRC_F_INV | MRC_F_SOLICITED);
		m->imm = pkt->imm;
	}
	return m;
}

static void mrc_rx_data(struct mrc_xp *xp, u64 now, const struct mrc_pkt *pkt,
			const struct sk_buff *skb, bool ce,
			struct sk_buff_head *out)
{
	struct mrc_qp *qp = xp->qp;
	struct mrc_recv_wqe *rwqe = NULL;
	struct mrc_mr *mr = NULL;
	enum mrc_rx_verdict v;
	struct mrc_xp_rmsg *m;
	struct mrc_rx_seg seg;
	u64 mr_va = 0;		/* the target's address in its MR */
	u32 rsn = 0;
	bool rnr = false;
	int err = 0;

	if (!mrc_conn_rx_seg_from_pkt(pkt, ce, &seg))
		return;
	seg.sport = ntohs(udp_hdr(skb)->source);

	/* [OPS-41] a UC responder executes no request that wants an answer */
	if (qp->ibqp.qp_type == IB_QPT_UC &&
	    (pkt->type == MRC_PKT_READ_REQ || pkt->type == MRC_PKT_ATOMIC)) {
		mrc_rx_fail(xp, pkt, MRC_NAK_INVALID_REQ, IB_EVENT_QP_REQ_ERR,
			    out);
		return;
	}

	/* check the target first: a refused packet is not counted */
	switch (pkt->type) {
	case MRC_PKT_SEND:
		rsn = pkt->send.rsn;
		rwqe = mrc_rx_recv_wqe(xp, rsn, &rnr);
		if (rwqe && pkt->send.total_len > rwqe->length) {
			/* [PKT-71] longer than the receive */
			mrc_rx_fail(xp, pkt, MRC_NAK_INVALID_REQ,
				    IB_EVENT_QP_REQ_ERR, out);
			return;
		}
		break;
	case MRC_PKT_WRITE:
		if (pkt->flags & MRC_F_IMM) {
			rsn = pkt->write.rsn;
			rwqe = mrc_rx_recv_wqe(xp, rsn, &rnr);
		}
		mr_va = pkt->write.va + pkt->write.offset;
		if (pkt->payload_len)
			mr = mrc_qp_remote_mr(qp, pkt->write.rkey, &mr_va,
					      pkt->payload_len,
					      IB_ACCESS_REMOTE_WRITE, &err);
		break;
	case MRC_PKT_READ_REQ:
		/* checked now; the responses resolve it again (tx.c) */
		mr_va = pkt->read_req.va;
		if (pkt->read_req.len)
			mr = mrc_qp_remote_mr(qp, pkt->read_req.rkey, &mr_va,
					      pkt->read_req.len,
					      IB_ACCESS_REMOTE_READ, &err);
		break;
	case MRC_PKT_ATOMIC:
		mr_va = pkt->atomic.va;
		if (!(mr_va & 7))
			mr = mrc_qp_remote_mr(qp, pkt->atomic.rkey, &mr_va, 8,
					      IB_ACCESS_REMOTE_ATOMIC, &err);
		/* aligned in a zero-based window may not be in its MR */
		if (mr_va & 7) {
			if (mr)
				mrc_mr_put(mr);
			mrc_rx_fail(xp, pkt, MRC_NAK_INVALID_REQ,
				    IB_EVENT_QP_REQ_ERR, out);
			return;
		}
		break;
	default:
		break;
	}
	if (err) {
		/*
		 * A resend of a WRITE or READ request whose data was placed
		 * (or read) before may find its MR gone: the consumer is free
		 * to invalidate it once the message completed (nvme-rdma's
		 * SEND_WITH_INV right behind the WRITE, LOCAL_INV), and to
		 * register it again under a new key. Such a repeat is no
		 * access error; the core knows it (and acks it) without
		 * placing anything. Only new data that fails the check
		 * fails the QP.
		 */
		if (mrc_conn_rx_linger(&xp->conn, now, &seg) == MRC_RX_DUP)
			return;
		mrc_rx_fail(xp, pkt, MRC_NAK_ACCESS, IB_EVENT_QP_ACCESS_ERR,
			    out);
		return;
	}
	if (rnr) {
		/* not counted: the sender's loss detection will resend it */
		mrc_rx_nak(xp, pkt, MRC_NAK_RNR,
			   mrc_rx_rnr_usecs(qp),
			   out);
		goto put;
	}

	v = mrc_conn_rx_data(&xp->conn, now, &seg, NULL);
	if (v == MRC_RX_INVALID) {
		mrc_rx_fail(xp, pkt, MRC_NAK_SEQ, IB_EVENT_QP_FATAL, out);
		goto put;
	}
	/* [OPS-2] asked again: the response may be lost ([REL-10]) */
	if (v == MRC_RX_DUP && (pkt->type == MRC_PKT_READ_REQ ||
				pkt->type == MRC_PKT_ATOMIC))
		mrc_conn_tx_asked_again(&xp->conn, now);
	if (v != MRC_RX_NEW)
		goto put;
	mrc_share_note(xp->dev, &xp->conn.share_seen, now);

	m = mrc_rx_rmsg(xp, pkt);
	if (!m || ((pkt->type == MRC_PKT_SEND ||
		    (pkt->flags & MRC_F_IMM)) && !rwqe)) {
		mrc_rx_fail(xp, pkt, MRC_NAK_INVALID_REQ, IB_EVENT_QP_FATAL,
			    out);
		goto put;
	}

	switch (pkt->type) {
	case MRC_PKT_SEND:
		m->rsn = rsn;
		if (pkt->payload_len)
			err = mrc_place_sgl(pkt, skb, qp->ibqp.pd,
					    rwqe->sge, rwqe->num_sge,
					    pkt->send.offset);
		if (err)
			m->bad = true;	/* our receive's lkey failed */
		break;
	case MRC_PKT_WRITE:
		if (pkt->flags & MRC_F_IMM)
			m->rsn = rsn;
		if (mr)
			err = mrc_place_mr(pkt, skb, mr, mr_va);
		if (err)
			mrc_qp_error(qp, IB_EVENT_QP_ACCESS_ERR);
		break;
	case MRC_PKT_READ_REQ:
		m->va = pkt->read_req.va;
		m->rkey = pkt->read_req.rkey;
		m->len = pkt->read_req.len;
		m->tag = pkt->read_req.resp_tag;
		break;
	case MRC_PKT_ATOMIC: {
		bool cas = pkt->atomic.op == MRC_ATOMIC_CMP_SWAP;

		/* executed once: a resent request is a duplicate above */
		err = mrc_mr_atomic(mr, mr_va, cas,
				    cas ? pkt->atomic.compare :
					  pkt->atomic.swap_add,
				    pkt->atomic.swap_add, &m->orig);
		if (err)
			mrc_qp_error(qp, IB_EVENT_QP_ACCESS_ERR);
		break;
	}
	case MRC_PKT_READ_RESP:
		m->tag = pkt->read_resp.resp_tag;
		if (mrc_tx_read_resp_place(xp, pkt, skb))
			m->bad = true;
		mrc_tx_answered(xp, pkt, now);
		break;
	case MRC_PKT_ATOMIC_RESP:
		m->orig = pkt->atomic_resp.orig;
		mrc_tx_answered(xp, pkt, now);
		break;
	}
put:
	if (mr)
		mrc_mr_put(mr);
}

/* A SEND or WRITE with immediate completed: report its receive. */
static void mrc_rx_complete_recv(struct mrc_xp *xp, struct mrc_xp_rmsg *m,
				 u32 len)
{
	struct mrc_qp *qp = xp->qp;
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = m->type == MRC_PKT_SEND ? IB_WC_RECV :
			  IB_WC_RECV_RDMA_WITH_IMM,
		.byte_len = len,
		.src_qp = xp->dest_qpn,
		.port_num = MRC_PORT,
	};
	/* receives complete in RSN order, as the peer numbered them */
	if (m->rsn != xp->rsn_head || xp->rsn_head == xp->rsn_take) {
		mrc_qp_error(qp, IB_EVENT_QP_FATAL);
		return;
	}
	xp->rwqe[xp->rsn_head % MRC_CONN_MSGS] = NULL;
	xp->rsn_head++;
	if (m->bad)
		wc.status = IB_WC_LOC_PROT_ERR;
	if (m->flags & MRC_F_IMM) {
		wc.ex.imm_data = cpu_to_be32(m->imm);
		wc.wc_flags |= IB_WC_WITH_IMM;
	} else if (m->flags & MRC_F_INV) {
		wc.ex.invalidate_rkey = m->imm;
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		if (mrc_key_invalidate(&mrc_dev_tables(qp->ibqp.device)->mrs,
				       qp->ibqp.pd, qp->ibqp.qp_num, m->imm,
				       true))
			wc.status = IB_WC_LOC_PROT_ERR;
	}
	mrc_qp_complete_recv(qp, &wc, m->flags & MRC_F_SOLICITED);
}

/* Peer messages the core finished, in order. */
bool mrc_rx_complete(struct mrc_xp *xp)
{
	struct mrc_completion done;
	u32 resp_tail = xp->resp_tail;
	bool answered = false;

	while (mrc_qp_state(xp->qp) != IB_QPS_ERR &&
	       mrc_conn_rx_poll(&xp->conn, &done)) {
		struct mrc_xp_rmsg *m = &xp->rmsg[done.msn % MRC_CONN_MSGS];
		bool ok = true;

		if (m->msn != done.msn)
			continue;	/* cannot happen: every NEW sets it */
		switch (m->type) {
		case MRC_PKT_SEND:
			mrc_rx_complete_recv(xp, m, done.len);
			break;
		case MRC_PKT_WRITE:
			if (m->flags & MRC_F_IMM)
				mrc_rx_complete_recv(xp, m, done.len);
			break;
		case MRC_PKT_READ_REQ:
			ok = mrc_tx_resp_queue(xp, false, m->va, m->rkey, m->len,
					       m->tag, 0);
			break;
		case MRC_PKT_ATOMIC:
			ok = mrc_tx_resp_queue(xp, true, 0, 0, 8, 0, m->orig);
			break;
		case MRC_PKT_READ_RESP:
			ok = !m->bad && !mrc_tx_resp_done(xp, false, m->tag, 0);
			answered = true;
			break;
		case MRC_PKT_ATOMIC_RESP:
			ok = !mrc_tx_resp_done(xp, true, 0, m->orig);
			answered = true;
			break;
		}
		m->type = 0;
		if (!ok)
			mrc_qp_error(xp->qp, IB_EVENT_QP_FATAL);
	}
	if (mrc_qp_state(xp->qp) == IB_QPS_ERR) {
		mrc_tx_flush(xp);
		mrc_place_flush_recvs(xp);
	}
	return answered || xp->resp_tail != resp_tail;
}

/*
 * One packet for @xp; true if it was taken and mrc_rx_pkts_done() must
 * follow (once for all packets of a datagram).
 */
bool mrc_rx_pkt(struct mrc_xp *xp, u64 now, const struct mrc_pkt *pkt,
		const struct sk_buff *skb, bool ce, struct sk_buff_head *out)
{
	enum ib_qp_state state = mrc_qp_state(xp->qp);
	enum mrc_stat why;
	int plane = xp->live ? mrc_xp_from_peer(xp, skb) : -1;

	/* [SEC-10] in the order of the table's checks */
	if (!xp->live) {
		why = MRC_STAT_RX_DROP_QP_STATE;	/* RESET, INIT */
	} else if (plane < 0) {
		why = MRC_STAT_RX_DROP_SOURCE;
	} else if (mrc_rx_refused_again(xp, pkt, state) &&
		   mrc_rx_cookie_ok(xp, pkt)) {
		mrc_rx_nak(xp, pkt, xp->refused_code, 0, out);
		mrc_xp_stat_inc(xp, MRC_STAT_NAKS_REPEATED);
		return false;
	} else if (!mrc_rx_state_ok(state)) {
		why = MRC_STAT_RX_DROP_QP_STATE;
	} else if (!mrc_rx_cookie_ok(xp, pkt)) {
		/* [PKT-16] packets of another (earlier) connection */
		why = MRC_STAT_RX_DROP_COOKIE;
	} else {
		goto take;
	}
	mrc_xp_stat_drop(xp, why);
	return false;
take:
	/* [ENC-9] every packet says whether its sender takes bundles */
	xp->peer_bundles = pkt->flags & MRC_F_BUNDLES;
	/* [PATH-8] answers to this path follow it to its plane */
	if (plane < MRC_PLANES_MAX)
		xp->plane_rx[plane]++;
	if (pkt->path_id < MRC_MAX_PATHS && pkt->type != MRC_PKT_HELLO)
		xp->ack_plane[pkt->path_id] = plane;
	switch (pkt->type) {
	case MRC_PKT_ACK:
		/* also in RTR: a responder's READ/ATOMIC responses are acked */
		mrc_tx_on_ack(xp, now, pkt, out);
		break;
	case MRC_PKT_NAK:
		mrc_tx_on_nak(xp, pkt);
		break;
	case MRC_PKT_PROBE:
		mrc_probe_rx(xp, now, pkt, ntohs(udp_hdr(skb)->source), out);
		break;
	case MRC_PKT_HELLO:
		mrc_rx_hello(xp, now, pkt, plane, state, out);
		break;
	default:
		mrc_rx_data(xp, now, pkt, skb, ce, out);
		break;
	}
	return true;
}

/*
 * After the packets of a datagram (one, or a bundle's, [ENC-13]): their
 * completions, then the ACKs and the timer, once.
 */
void mrc_rx_pkts_done(struct mrc_xp *xp, u64 now, struct sk_buff_head *out)
{
	/*
	 * Complete first: the ACK's msn_ack is the core's rx_msn_head, which
	 * only the completion moves. ACKed the other way round, the ACK for
	 * the packet finishing the oldest message still names it; if that
	 * was the last packet, the sender sees its MSN window ([REL-18])
	 * full with nothing in flight, and nothing ever comes to open it.
	 * Responses the completions queued go right away rather than after
	 * a work item wakeup (that wakeup was most of ib_read_lat's time).
	 * A response received retires its request in that run, and the run
	 * pulls the SQ: the process did not ring for what it posted while
	 * the request was out (poll mode), and the READ limit has room again.
	 */
	u64 rode = xp->conn.stats.acks_rode;

	if (mrc_rx_complete(xp))
		mrc_tx_run(xp, now, MRC_XP_RX_TX_BUDGET, out);
	/*
	 * [REL-23] the ACKs, and the timer they move, after the batch;
	 * unless [REL-24] an answer left its hold to ride with what was sent,
	 * or nothing is due: then the batch's end has nothing to add, and
	 * its tasklet would be one more softirq round per datagram (a READ
	 * ping-pong's every response, whose ACK is coalesced).
	 */
	if (!xp->ack_queued) {
		u64 at = mrc_conn_deadline(&xp->conn);

		if (at > now) {
			mrc_xp_arm_timer_at(xp, at);
			return;
		}
	}
	if (xp->conn.stats.acks_rode == rode && mrc_ackq_defer(xp))
		return;
	mrc_ack_send(xp, now, out);
	mrc_xp_arm_timer(xp);
}
