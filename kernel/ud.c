// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UD and GSI queue pairs: each send WQE becomes one UD_SEND datagram to
 * its AH's address, completed as soon as it was handed to the network;
 * each received datagram fills one receive WQE with a 40-byte GRH (built
 * from the IP header, as RoCE v2 does) and the payload. No state is kept
 * per peer: Q_Keys and QP numbers are all the addressing there is
 * ([PKT-85]..[PKT-88]).
 *
 * A process's send slot names its AH by number (uAPI header); it is
 * resolved here, per WQE, in the QP's PD (mrc_ah_lookup()).
 *
 * Contexts: sends run in the poster's context when that is process or
 * softirq context (a work item otherwise), at most MRC_UD_TX_BUDGET WQEs
 * per run, the rest in the work item; one sender at a time per QP, and a
 * post from inside a completion handler only asks the running sender to
 * look again. Receives run in the UDP encap softirq, one at a
 * time per QP (rx_lock), so completions retire the WQE they filled.
 */

#include <linux/etherdevice.h>
#include <linux/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_mad.h>

#include "metaroce.h"
#include "counter.h"
#include "fault.h"
#include "net.h"
#include "stats.h"
#include "ud.h"
#include "xport.h"

struct mrc_ud {
	struct mrc_qp *qp;
	struct mrc_net *net;
	struct net_device *ndev;
	spinlock_t lock;		/* busy, again, dead */
	spinlock_t rx_lock;		/* take + fill + complete a receive */
	struct work_struct work;
	bool busy;			/* a sender is running */
	bool again;			/* WQEs were posted while it ran */
	bool dead;
	u16 sport;
};

static bool mrc_ud_is_gsi(const struct mrc_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_GSI;
}

/* Only a datagram QP keeps a struct mrc_ud in qp->xport (see xport.h). */
static inline struct mrc_ud *mrc_ud_of(struct mrc_qp *qp)
{
	if (qp->ibqp.qp_type != IB_QPT_UD && !mrc_ud_is_gsi(qp))
		return NULL;
	return qp->xport;
}

/* The Q_Key a datagram of this QP is checked against, and sent with. */
static u32 mrc_ud_qp_qkey(const struct mrc_qp *qp)
{
	return mrc_ud_is_gsi(qp) ? MRC_WIRE_GSI_QKEY : READ_ONCE(qp->attr.qkey);
}

/* Largest datagram payload the netdev's MTU carries without fragments. */
static u32 mrc_ud_max_payload(const struct mrc_ud *ud, u8 network_type)
{
	u32 ip = network_type == RDMA_NETWORK_IPV6 ? MRC_WIRE_IPV6_LEN :
						     MRC_WIRE_IPV4_LEN;
	u32 over = ip + MRC_WIRE_UDP_LEN + MRC_WIRE_BASE_LEN +
		   MRC_WIRE_UD_SEND_LEN + MRC_WIRE_IMM_LEN + MRC_WIRE_ICRC_LEN;
	u32 mtu = READ_ONCE(ud->ndev->mtu);

	return mtu > over ? mtu - over : 0;
}

/* One WQE, one datagram; returns the WQE's completion status. */
static enum ib_wc_status mrc_ud_send_one(struct mrc_ud *ud,
					 struct mrc_send_wqe *wqe)
{
	struct mrc_qp *qp = ud->qp;
	const struct mrc_av *av;
	struct mrc_av uav;
	struct mrc_pkt pkt = { };
	struct sk_buff *skb;
	u32 hlen, written;
	u8 dscp;
	int err;

	if (wqe->opcode != IB_WR_SEND && wqe->opcode != IB_WR_SEND_WITH_IMM)
		return IB_WC_LOC_QP_OP_ERR;
	if (wqe->wr.ud.ah) {
		av = &wqe->wr.ud.ah->av;
	} else {
		/* a process's slot names its AH by number: never trust it */
		if (mrc_ah_lookup(&mrc_dev_tables(qp->ibqp.device)->ahs,
				  wqe->wr.ud.ah_num, qp->ibqp.pd, &uav))
			return IB_WC_LOC_QP_OP_ERR;
		av = &uav;
	}
	if (wqe->length > mrc_ud_max_payload(ud, av->network_type))
		return IB_WC_LOC_LEN_ERR;

	pkt.type = MRC_PKT_UD_SEND;
	pkt.flags = MRC_F_FIRST | MRC_F_LAST;
	if (wqe->opcode == IB_WR_SEND_WITH_IMM) {
		pkt.flags |= MRC_F_IMM;
		pkt.imm = be32_to_cpu(wqe->ex.imm_data);
	}
	if (wqe->send_flags & IB_SEND_SOLICITED)
		pkt.flags |= MRC_F_SOLICITED;
	pkt.dst_qpn = wqe->wr.ud.remote_qpn & MRC_WIRE_QPN_MASK;
	pkt.tsval = (u32)ktime_get_ns();
	/* IBA: a WR Q_Key with the high bit set means "use the QP's" */
	pkt.ud.qkey = (wqe->wr.ud.remote_qkey & MRC_QKEY_CONTROLLED) ?
		      mrc_ud_qp_qkey(qp) : wqe->wr.ud.remote_qkey;
	pkt.ud.src_qpn = qp->ibqp.qp_num;
	pkt.payload_len = wqe->length;
	hlen = mrc_wire_hdr_len(&pkt);

	skb = alloc_skb(mrc_net_headroom(ud->ndev) + hlen + wqe->length +
			MRC_WIRE_ICRC_LEN, GFP_ATOMIC);
	if (!skb)
		return IB_WC_SUCCESS;	/* a datagram may be lost anywhere */
	skb_reserve(skb, mrc_net_headroom(ud->ndev));
	skb_put(skb, hlen);
	if (mrc_send_wqe_inline(wqe)) {
		skb_put_data(skb, wqe->data, wqe->length);
	} else if (wqe->length) {
		err = mrc_sgl_copy(qp->ibqp.pd, mrc_send_wqe_sge(wqe),
				   wqe->num_sge, 0, skb_put(skb, wqe->length),
				   wqe->length, MRC_COPY_FROM_MR);
		if (err) {
			kfree_skb(skb);
			return IB_WC_LOC_PROT_ERR;
		}
	}
	if (mrc_wire_encode_hdr(&pkt, skb->data, hlen, &written) !=
	    MRC_WIRE_OK) {
		kfree_skb(skb);
		return IB_WC_LOC_QP_OP_ERR;
	}
	mrc_wire_seal(skb->data, skb->len);
	skb_put(skb, MRC_WIRE_ICRC_LEN);

	dscp = av->traffic_class >> 2;
	if (!dscp)
		dscp = mrc_ud_is_gsi(qp) ? MRC_WIRE_DSCP_CTRL :
					   MRC_WIRE_DSCP_DATA;
	written = skb->len;
	/* a drop fault loses it on the way: sent, as far as the QP knows */
	if (mrc_fault_tx(ud->ndev, skb, ud->sport))
		return IB_WC_SUCCESS;
	/* no congestion control here: datagrams are sent not-ECT */
	if (!mrc_net_xmit(ud->net, ud->ndev, NULL, skb,
			  (const struct sockaddr *)&av->saddr,
			  (const struct sockaddr *)&av->daddr, ud->sport, dscp,
			  false)) {
		mrc_qp_stat_inc(qp, MRC_STAT_TX_PACKETS);
		mrc_qp_stat_add(qp, MRC_STAT_TX_BYTES, written);
	} else {
		/* lost on the way, as far as the QP knows */
		mrc_qp_stat_inc(qp, MRC_STAT_TX_DROPPED);
	}
	return IB_WC_SUCCESS;
}

/*
 * At most MRC_UD_TX_BUDGET WQEs per run: a process that refills its ring
 * from another thread as fast as WQEs leave would otherwise keep this
 * loop, and its doorbell system call (or a softirq), going for good. The
 * rest is left to the work item, which runs the same budget and queues
 * itself again, so the CPU is given back between runs; a burst of up to
 * a budget still leaves at once, in the poster's context.
 */
static void mrc_ud_send_all(struct mrc_ud *ud)
{
	u32 budget = MRC_UD_TX_BUDGET;
	struct mrc_send_wqe *wqe;

	spin_lock_bh(&ud->lock);
	if (ud->busy || ud->dead) {
		ud->again = true;
		spin_unlock_bh(&ud->lock);
		return;
	}
	ud->busy = true;
	do {
		ud->again = false;
		spin_unlock_bh(&ud->lock);
		while (budget && (wqe = mrc_qp_next_send_wqe(ud->qp))) {
			enum ib_wc_status st = IB_WC_LOC_QP_OP_ERR;

			if (wqe->opcode != MRC_WR_INVALID)
				st = mrc_ud_send_one(ud, wqe);
			/* may call a handler that posts: it sets ->again */
			mrc_qp_complete_send(ud->qp, st);
			budget--;
		}
		spin_lock_bh(&ud->lock);
	} while (ud->again && budget && !ud->dead);
	ud->busy = false;
	/* under the lock: destroy sets dead, then cancels the work */
	if (!budget && !ud->dead)
		queue_work(system_highpri_wq, &ud->work);
	spin_unlock_bh(&ud->lock);
}

static void mrc_ud_work(struct work_struct *w)
{
	mrc_ud_send_all(container_of(w, struct mrc_ud, work));
}

static void mrc_ud_send_posted(struct mrc_qp *qp)
{
	struct mrc_ud *ud = mrc_ud_of(qp);

	if (!ud)
		return;
	if (in_hardirq() || irqs_disabled())
		queue_work(system_highpri_wq, &ud->work);
	else
		mrc_ud_send_all(ud);
}

static void mrc_ud_modified(struct mrc_qp *qp, int mask, enum ib_qp_state old)
{
	/* WQEs posted before RTS wait for it */
	if (mrc_qp_state(qp) == IB_QPS_RTS && old != IB_QPS_RTS)
		mrc_ud_send_posted(qp);
}

static int mrc_ud_create(struct mrc_qp *qp)
{
	struct net_device *ndev = mrc_dev_netdev(qp->ibqp.device);
	struct mrc_ud *ud;
	struct mrc_net *n;

	ud = kzalloc(sizeof(*ud), GFP_KERNEL);
	if (!ud)
		return -ENOMEM;
	n = mrc_net_get(dev_net(ndev));
	if (IS_ERR(n)) {
		kfree(ud);
		return PTR_ERR(n);
	}
	ud->net = n;
	ud->qp = qp;
	ud->ndev = ndev;
	spin_lock_init(&ud->lock);
	spin_lock_init(&ud->rx_lock);
	INIT_WORK(&ud->work, mrc_ud_work);
	/* [PKT-88] one source port per QP: its datagrams stay in order */
	ud->sport = MRC_WIRE_SPORT_MIN +
		    hash_32(qp->ibqp.qp_num ^ ndev->ifindex, 14);
	qp->xport = ud;
	return 0;
}

static void mrc_ud_destroy(struct mrc_qp *qp)
{
	struct mrc_ud *ud = mrc_ud_of(qp);

	if (!ud)
		return;
	spin_lock_bh(&ud->lock);
	ud->dead = true;
	spin_unlock_bh(&ud->lock);
	cancel_work_sync(&ud->work);
}

static void mrc_ud_release(struct mrc_qp *qp)
{
	struct mrc_ud *ud = mrc_ud_of(qp);

	if (!ud)
		return;
	qp->xport = NULL;
	mrc_net_put(ud->net);
	kfree(ud);
}

const struct mrc_qp_hooks mrc_ud_hooks = {
	.create = mrc_ud_create,
	.modified = mrc_ud_modified,
	.send_posted = mrc_ud_send_posted,
	.destroy = mrc_ud_destroy,
	.release = mrc_ud_release,
	.ud_sends = true,
};

/* --- receive ------------------------------------------------------------ */

/*
 * The GRH a RoCE v2 receiver reports: the IPv6 header as is, or the IPv4
 * header in the last 20 of the 40 bytes (what ib_core's
 * ib_get_rdma_header_version() and ib_init_ah_attr_from_wc() expect).
 */
static u8 mrc_ud_grh(const struct sk_buff *skb, u8 *grh)
{
	memset(grh, 0, sizeof(struct ib_grh));
	if (skb->protocol == htons(ETH_P_IPV6)) {
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
		return RDMA_NETWORK_IPV6;
	}
	memcpy(grh + sizeof(struct ib_grh) - sizeof(struct iphdr), ip_hdr(skb),
	       sizeof(struct iphdr));
	return RDMA_NETWORK_IPV4;
}

static bool mrc_ud_rx_state_ok(enum ib_qp_state s)
{
	return s == IB_QPS_RTR || s == IB_QPS_RTS || s == IB_QPS_SQD ||
	       s == IB_QPS_SQE;
}

static bool mrc_ud_deliver(struct mrc_qp *qp, struct sk_buff *skb,
			   const struct mrc_pkt *pkt)
{
	u8 grh[sizeof(struct ib_grh)];
	struct mrc_recv_wqe *rwqe;
	struct ib_wc wc = { };
	u32 len = sizeof(grh) + pkt->payload_len;

	rwqe = mrc_qp_take_recv(qp);
	if (!rwqe)
		return false;

	wc.opcode = IB_WC_RECV;
	wc.status = IB_WC_SUCCESS;
	wc.src_qp = pkt->ud.src_qpn;
	wc.pkey_index = 0;
	wc.port_num = 1;
	wc.network_hdr_type = mrc_ud_grh(skb, grh);
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	if (pkt->flags & MRC_F_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(pkt->imm);
	}
	if (skb_mac_header_was_set(skb) &&
	    skb_mac_header_len(skb) >= ETH_HLEN) {
		ether_addr_copy(wc.smac, eth_hdr(skb)->h_source);
		wc.wc_flags |= IB_WC_WITH_SMAC;
	}
	if (len > rwqe->length) {
		wc.status = IB_WC_LOC_LEN_ERR;
	} else if (mrc_sgl_copy(qp->ibqp.pd, rwqe->sge, rwqe->num_sge, 0, grh,
				sizeof(grh), MRC_COPY_TO_MR) ||
		   (pkt->payload_len &&
		    mrc_sgl_copy(qp->ibqp.pd, rwqe->sge, rwqe->num_sge,
				 sizeof(grh), (void *)pkt->payload,
				 pkt->payload_len, MRC_COPY_TO_MR))) {
		wc.status = IB_WC_LOC_PROT_ERR;
	}
	wc.byte_len = wc.status == IB_WC_SUCCESS ? len : 0;
	mrc_qp_complete_recv(qp, &wc, pkt->flags & MRC_F_SOLICITED);
	return true;
}

/* May @qp take the datagram @pkt? If not, *@why says why (stats.h). */
static bool mrc_ud_takes(struct mrc_qp *qp, const struct mrc_pkt *pkt,
			 enum mrc_stat *why)
{
	/* [PKT-86] only datagram QPs, only with their Q_Key */
	if (!mrc_ud_of(qp))
		*why = MRC_STAT_RX_DROP_QP_TYPE;
	else if (!mrc_ud_rx_state_ok(mrc_qp_state(qp)))
		*why = MRC_STAT_RX_DROP_QP_STATE;
	else if (pkt->ud.qkey != mrc_ud_qp_qkey(qp))
		*why = MRC_STAT_RX_DROP_QKEY;
	/*
	 * A MAD is at most 256 bytes; a longer datagram would end QP1's
	 * receive with a length error and so the QP itself.
	 */
	else if (!pkt->payload ||
		 (mrc_ud_is_gsi(qp) && pkt->payload_len > IB_MGMT_MAD_SIZE))
		*why = MRC_STAT_RX_DROP_MALFORMED;
	else
		return true;
	return false;
}

void mrc_ud_rcv(struct ib_device *ibdev, struct sk_buff *skb,
		const struct mrc_pkt *pkt)
{
	struct mrc_dev *dev = to_mrc_dev(ibdev);
	enum mrc_stat why = MRC_STAT_RX_DROP_NO_QP;
	struct mrc_qp *qp;
	struct mrc_ud *ud;
	bool taken;

	qp = mrc_qp_get(ibdev, pkt->dst_qpn);
	if (!qp) {
		mrc_stat_drop(dev, why);
		return;
	}
	mrc_rx_count(qp, skb);
	taken = mrc_ud_takes(qp, pkt, &why);
	if (taken) {
		ud = mrc_ud_of(qp);
		spin_lock_bh(&ud->rx_lock);
		/* no receive posted: dropped, as in IB */
		if (!mrc_ud_deliver(qp, skb, pkt))
			mrc_qp_stat_inc(qp, MRC_STAT_RX_DROPPED);
		spin_unlock_bh(&ud->rx_lock);
	} else {
		mrc_qp_stat_drop(qp, why);
	}
	mrc_qp_put(qp);
}
