// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A datagram in, in the UDP encap softirq: find the device by netdev,
 * take the datagram apart (one packet, an ACK bundle [ENC-9] or a packet
 * bundle [ENC-13]), validate each packet (mrc_wire_parse) and hand it to
 * the handler its destination QP's type names ([SEC-10]): datagrams to
 * ud.c, everything else to an RC QP's transport (rx.c) or, when the QP is
 * gone, to a lingering one (linger.c). Whatever no handler takes is
 * dropped and counted by why. A data packet left in page fragments by
 * the NIC is validated and placed from them; anything else is parsed in
 * one piece.
 */

#include <linux/module.h>

#include "counter.h"
#include "linger.h"
#include "metaroce.h"
#include "registry.h"
#include "stats.h"
#include "ud.h"
#include "xport.h"

static atomic_long_t mrc_rx_malformed = ATOMIC_LONG_INIT(0);
/* no device to count them on: debugfs shows it (metaroce/rx_no_device) */
static atomic_long_t mrc_rx_no_device = ATOMIC_LONG_INIT(0);

long mrc_rx_no_device_count(void)
{
	return atomic_long_read(&mrc_rx_no_device);
}

static void mrc_rx_malformed_pkt(struct mrc_dev *dev, enum mrc_wire_reason r,
				 bool bundled)
{
	atomic_long_inc(&mrc_rx_malformed);
	net_dbg_ratelimited("metaroce: %s: dropped malformed packet (%s%s), %ld so far\n",
			    dev_name(&dev->ibdev.dev), mrc_wire_reason_str(r),
			    bundled ? ", in a bundle" : "",
			    atomic_long_read(&mrc_rx_malformed));
	mrc_stat_drop(dev, MRC_STAT_RX_DROP_MALFORMED);
}

/*
 * A datagram's receive counters, once: on the QP that its first packet
 * with a known QP is for, else on the device. A bundle counts once, as
 * on transmit.
 */
static void mrc_rx_count_on(struct mrc_stats __percpu *s, struct sk_buff *skb)
{
	struct mrc_rx_cb *cb = MRC_RX_CB(skb);

	if (cb->counted)
		return;
	cb->counted = true;
	mrc_stats_add(s, MRC_STAT_RX_PACKETS, 1);
	mrc_stats_add(s, MRC_STAT_RX_BYTES, cb->len);
	if (skb->pkt_type == PACKET_LOOPBACK)
		mrc_stats_add(s, MRC_STAT_RX_LOOPBACK, 1);
	if (cb->ce)
		mrc_stats_add(s, MRC_STAT_ECN_CE, 1);
}

void mrc_rx_count(struct mrc_qp *qp, struct sk_buff *skb)
{
	rcu_read_lock();
	mrc_rx_count_on(mrc_qp_stats_rcu(qp), skb);
	rcu_read_unlock();
}

/*
 * A valid packet to its QP, by [SEC-10]'s table: a datagram to the UD
 * receive, which checks its QP's type itself; every other type to an RC
 * QP's transport, or to a lingering one when the QP is gone. Anything
 * else is dropped and counted by why.
 */
static void mrc_rx_dispatch(struct mrc_dev *dev, struct sk_buff *skb,
			    const struct mrc_pkt *pkt, bool ce)
{
	struct ib_device *ibdev = &dev->ibdev;
	struct sk_buff_head out;
	struct mrc_qp *qp;
	struct mrc_xp *xp;
	u64 now;

	if (pkt->type == MRC_PKT_UD_SEND) {
		mrc_ud_rcv(ibdev, skb, pkt);	/* datagrams: ud.c */
		return;
	}
	qp = mrc_qp_get(ibdev, pkt->dst_qpn);
	if (!qp) {
		mrc_linger_rcv(dev, skb, pkt, ce);
		return;
	}
	mrc_rx_count(qp, skb);
	xp = mrc_xp_of(qp);
	if (!xp) {
		/* UD, GSI: datagrams only; UC: no transport of its own yet */
		mrc_qp_stat_drop(qp, MRC_STAT_RX_DROP_QP_TYPE);
		mrc_qp_put(qp);
		return;
	}
	now = ktime_get_ns();
	__skb_queue_head_init(&out);
	spin_lock_bh(&xp->lock);
	if (xp->dead)
		mrc_qp_stat_drop(qp, MRC_STAT_RX_DROP_QP_STATE);
	else if (mrc_rx_pkt(xp, now, pkt, skb, ce, &out))
		mrc_rx_pkts_done(xp, now, &out);
	mrc_xp_unlock_xmit(xp, &out);
	mrc_qp_put(qp);
}

/*
 * One packet of a datagram: all of it, or one ACK of an ACK bundle
 * ([ENC-9], @bundled), which must be an ACK to count.
 */
static void mrc_rx_one(struct mrc_dev *dev, struct sk_buff *skb,
		       const u8 *buf, u32 len, bool ce, bool bundled)
{
	enum mrc_wire_reason r;
	struct mrc_pkt pkt;

	r = mrc_wire_parse(buf, len, &pkt);
	if (r == MRC_WIRE_OK && bundled && pkt.type != MRC_PKT_ACK)
		r = MRC_WIRE_E_BAD_TYPE;
	if (r != MRC_WIRE_OK) {
		mrc_rx_malformed_pkt(dev, r, bundled);
		return;
	}
	mrc_rx_dispatch(dev, skb, &pkt, ce);
}

/*
 * [INT-6] Does the packet of @len (>= MRC_WIRE_MIN_PKT_LEN) bytes at @off
 * in @skb carry its ICRC? Computed over the fragments where it lies.
 */
static bool mrc_rx_skb_icrc_ok(struct sk_buff *skb, u32 off, u32 len)
{
	u32 state = MRC_WIRE_ICRC_SEED, done = 0, n;
	const __be32 *icrc;
	struct skb_seq_state st;
	__be32 icrc_buf;
	const u8 *p;

	len -= MRC_WIRE_ICRC_LEN;
	icrc = skb_header_pointer(skb, off + len, sizeof(icrc_buf), &icrc_buf);
	if (!icrc)
		return false;
	skb_prepare_seq_read(skb, off, off + len, &st);
	while (done < len && (n = skb_seq_read(done, &p, &st))) {
		/* a block may run past @len: the ICRC itself follows */
		n = min(n, len - done);
		state = mrc_wire_icrc_update(state, p, n);
		done += n;
	}
	skb_abort_seq_read(&st);
	return mrc_wire_icrc_final(state) == be32_to_cpup(icrc);
}

/* Bundled packets up to this long are copied out whole and parsed so. */
#define MRC_RX_PBUNDLE_COPY	256

/*
 * Packet @i of bundle @b in @skb, into @pkt: parsed where it lies in the
 * linear part, or copied out whole to @buf when it is small; otherwise as
 * mrc_rx_in_place() takes a data packet, its headers copied to @buf, its
 * ICRC computed over the fragments and its payload left there for
 * placement (MRC_RX_CB(skb)->pkt_off says where the packet starts).
 */
static enum mrc_wire_reason
mrc_rx_pbundle_pkt(struct sk_buff *skb, const struct mrc_wire_pbundle *b,
		   u32 i, u8 *buf, struct mrc_pkt *pkt)
{
	u32 off = b->off[i], len = b->len[i];
	enum mrc_wire_reason r;

	MRC_RX_CB(skb)->pkt_off = off;
	if (off + len <= skb_headlen(skb))
		return mrc_wire_parse(skb->data + off, len, pkt);
	if (len <= MRC_RX_PBUNDLE_COPY) {
		if (skb_copy_bits(skb, off, buf, len))
			return MRC_WIRE_E_TRUNCATED;
		return mrc_wire_parse(buf, len, pkt);
	}
	if (skb_copy_bits(skb, off, buf, MRC_WIRE_MAX_HDR_LEN))
		return MRC_WIRE_E_TRUNCATED;
	r = mrc_wire_parse_hdr(buf, MRC_WIRE_MAX_HDR_LEN, len, pkt);
	if (r != MRC_WIRE_OK)
		return r;
	return mrc_rx_skb_icrc_ok(skb, off, len) ? MRC_WIRE_OK :
						   MRC_WIRE_E_BAD_CRC;
}

/*
 * [ENC-13] A packet bundle: every packet is validated on its own, and
 * those for the first one's QP are taken under one hold of its lock,
 * their ACKs and completions following once, as for a burst of datagrams
 * that arrived together. A UD_SEND, or a packet for another QP, is
 * dropped alone. Without a QP (a lingering QPN, or none) each packet
 * goes its single way.
 */
static void mrc_rx_pbundle(struct mrc_dev *dev, struct sk_buff *skb, bool ce)
{
	u8 buf[MRC_RX_PBUNDLE_COPY];
	struct mrc_wire_pbundle b;
	struct sk_buff_head out;
	struct mrc_xp *xp = NULL;
	struct mrc_qp *qp = NULL;
	enum mrc_wire_reason r;
	bool taken = false, first = true;
	u64 now = 0;
	u32 i, qpn = 0, n;

	BUILD_BUG_ON(MRC_RX_PBUNDLE_COPY < MRC_WIRE_MAX_HDR_LEN);
	/* the header and length table in the linear part */
	r = MRC_WIRE_E_TRUNCATED;
	if (pskb_may_pull(skb, MRC_WO_PBUNDLE_LENS)) {
		n = min_t(u32, skb->data[MRC_WO_PBUNDLE_COUNT],
			  MRC_WIRE_PBUNDLE_MAX);
		if (pskb_may_pull(skb, min(skb->len,
					   mrc_wire_pbundle_hdr_len(n))))
			r = mrc_wire_pbundle_parse(skb->data,
						   skb_headlen(skb), skb->len,
						   &b);
	}
	if (r != MRC_WIRE_OK) {
		mrc_rx_malformed_pkt(dev, r, true);
		return;
	}
	__skb_queue_head_init(&out);
	for (i = 0; i < b.count; i++) {
		struct mrc_pkt pkt;

		r = mrc_rx_pbundle_pkt(skb, &b, i, buf, &pkt);
		if (r == MRC_WIRE_OK && pkt.type == MRC_PKT_UD_SEND)
			r = MRC_WIRE_E_BAD_TYPE;
		else if (r == MRC_WIRE_OK && !first && pkt.dst_qpn != qpn)
			r = MRC_WIRE_E_BAD_FIELD;
		if (r != MRC_WIRE_OK) {
			mrc_rx_malformed_pkt(dev, r, true);
			continue;
		}
		if (!pkt.payload && pkt.payload_len)
			mrc_stat_inc(dev, MRC_STAT_RX_IN_PLACE);
		if (first) {
			first = false;
			qpn = pkt.dst_qpn;
			qp = mrc_qp_get(&dev->ibdev, qpn);
			if (qp)
				mrc_rx_count(qp, skb);
			xp = qp ? mrc_xp_of(qp) : NULL;
			if (xp) {
				now = ktime_get_ns();
				spin_lock_bh(&xp->lock);
			}
		}
		if (!xp)
			mrc_rx_dispatch(dev, skb, &pkt, ce);
		else if (!xp->dead)
			taken |= mrc_rx_pkt(xp, now, &pkt, skb, ce, &out);
		else
			mrc_qp_stat_drop(qp, MRC_STAT_RX_DROP_QP_STATE);
	}
	MRC_RX_CB(skb)->pkt_off = 0;
	if (xp) {
		if (taken && !xp->dead)
			mrc_rx_pkts_done(xp, now, &out);
		mrc_xp_unlock_xmit(xp, &out);
	}
	if (qp) {
		mrc_qp_stat_inc(qp, MRC_STAT_RX_BUNDLES);
		mrc_qp_put(qp);
	} else {
		mrc_stat_inc(dev, MRC_STAT_RX_BUNDLES);
	}
}

/*
 * A data packet whose payload is in @skb's fragments (virtio-net and most
 * NICs put all but the first bytes of a jumbo frame in pages) is taken
 * where it lies: headers parsed from the linear part, the ICRC computed
 * over the fragments, the payload copied from them into its MR or receive
 * buffer. One copy instead of two (gather, then place). False: not such
 * a packet, for mrc_rx_gather().
 */
#define MRC_RX_DATA_HDR_MAX	(MRC_WIRE_DATA_OVERHEAD - MRC_WIRE_ICRC_LEN)
static bool mrc_rx_in_place(struct mrc_dev *dev, struct sk_buff *skb,
			    bool ce)
{
	struct mrc_pkt pkt;

	/*
	 * virtio-net leaves nothing past the UDP header in the linear part;
	 * pulling a data packet's largest header there costs a small copy
	 * (into the head's tailroom, normally)
	 */
	if (!skb_is_nonlinear(skb) || skb->len < MRC_WIRE_MIN_PKT_LEN ||
	    !pskb_may_pull(skb, min_t(u32, skb->len, MRC_RX_DATA_HDR_MAX)))
		return false;
	if (mrc_wire_is_pbundle(skb->data, skb_headlen(skb))) {
		mrc_rx_pbundle(dev, skb, ce);
		return true;
	}
	if (mrc_wire_parse_hdr(skb->data, skb_headlen(skb), skb->len,
			       &pkt) != MRC_WIRE_OK || pkt.payload ||
	    (pkt.type != MRC_PKT_SEND && pkt.type != MRC_PKT_WRITE &&
	     pkt.type != MRC_PKT_READ_RESP))
		return false;
	if (!mrc_rx_skb_icrc_ok(skb, 0, skb->len)) {
		mrc_rx_malformed_pkt(dev, MRC_WIRE_E_BAD_CRC, false);
		return true;
	}
	mrc_stat_inc(dev, MRC_STAT_RX_IN_PLACE);
	mrc_rx_dispatch(dev, skb, &pkt, ce);
	return true;
}

/*
 * Any other datagram in pieces (ACK bundles, UD, requests) is gathered
 * into this CPU's buffer rather than linearized: skb_linearize()
 * allocates a new head for every such packet, and with init_on_alloc
 * (distribution kernels) zeroes it, which cost the receiving guest more
 * than the copy itself. Larger datagrams (reassembled fragments) are
 * still linearized.
 */
#define MRC_RX_GATHER_MAX	16384
static DEFINE_PER_CPU(u8 *, mrc_rx_gather_buf);

/* With BHs off: @skb's bytes in one piece, or NULL. */
static const u8 *mrc_rx_gather(struct sk_buff *skb)
{
	u8 **buf = this_cpu_ptr(&mrc_rx_gather_buf);

	if (!skb_is_nonlinear(skb))
		return skb->data;
	if (skb->len > MRC_RX_GATHER_MAX)
		return skb_linearize(skb) ? NULL : skb->data;
	if (!*buf)
		*buf = kmalloc(MRC_RX_GATHER_MAX, GFP_ATOMIC);
	if (!*buf || skb_copy_bits(skb, 0, *buf, skb->len))
		return skb_linearize(skb) ? NULL : skb->data;
	return *buf;
}

/* Module exit, after the last receive. */
void mrc_rx_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kfree(per_cpu(mrc_rx_gather_buf, cpu));
		per_cpu(mrc_rx_gather_buf, cpu) = NULL;
	}
}

void mrc_rx_rcv(struct sk_buff *skb, bool ce)
{
	struct mrc_dev *dev;
	const u8 *data;
	u32 i, n;

	dev = mrc_dev_get_by_netdev(skb->dev);
	if (!dev) {
		/* the namespace's socket, but no device of ours on the netdev */
		atomic_long_inc(&mrc_rx_no_device);
		goto free;
	}
	MRC_RX_CB(skb)->pkt_off = 0;
	MRC_RX_CB(skb)->len = skb->len;
	MRC_RX_CB(skb)->ce = ce;
	MRC_RX_CB(skb)->counted = false;
	local_bh_disable();
	if (mrc_rx_in_place(dev, skb, ce))
		goto enable;
	/* the rest is parsed in one piece */
	data = mrc_rx_gather(skb);
	if (!data) {
		mrc_stat_inc(dev, MRC_STAT_RX_DROPPED);
		goto enable;
	}
	if (mrc_wire_is_pbundle(data, skb->len)) {
		/* in pieces they went in place; in one piece in the head */
		mrc_rx_pbundle(dev, skb, ce);
		goto enable;
	}
	n = mrc_wire_bundle_count(data, skb->len);
	if (n == 1)
		mrc_rx_one(dev, skb, data, skb->len, ce, false);
	for (i = 0; n > 1 && i < n; i++)
		mrc_rx_one(dev, skb, data + i * MRC_WIRE_ACK_PKT_LEN,
			   MRC_WIRE_ACK_PKT_LEN, ce, true);
enable:
	/* no QP took any of it */
	mrc_rx_count_on(dev->stats, skb);
	local_bh_enable();
	ib_device_put(&dev->ibdev);
free:
	kfree_skb(skb);
}
