// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A connection's transport below its engine (xport.c): what the send and
 * receive paths, ACKs and lingering connections share. Packet buffers,
 * sealing, bundles, the batched transmit after xp->lock, the timer and
 * the path counters. Nothing here calls up into rx, tx or the engine.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <net/ipv6.h>

#include "fault.h"
#include "metaroce.h"
#include "net.h"
#include "plane.h"
#include "counter.h"
#include "stats.h"
#include "trace.h"
#include "txbuf.h"
#include "xport.h"

/* A timer armed this much earlier than needed is moved: mrc_xp_arm_timer() */
#define MRC_XP_TIMER_SLACK_NS	NSEC_PER_MSEC
/* headroom a small packet keeps for the header of a bundle of two */
#define MRC_XP_BUNDLE_HEAD	8

/*
 * Off by default: without UDP segmentation in the NIC the stack cuts a
 * burst back into packets in software, one more copy and a UDP checksum
 * per packet, which cost about what they save (measured in the bed).
 */
static bool tx_gso;
module_param(tx_gso, bool, 0644);
MODULE_PARM_DESC(tx_gso,
		 "send a path's packets in bursts, each as one UDP GSO skb (for NICs with UDP segmentation offload)");

/*
 * [ENC-13] small packets a path sends at one moment leave as one
 * datagram, to a peer that takes them: the per-datagram cost of the
 * stacks (and of a virtual link) is most of a small message's.
 */
static bool data_bundles = true;
module_param(data_bundles, bool, 0644);
MODULE_PARM_DESC(data_bundles,
		 "send the small packets of one path and moment as one datagram, to a peer that takes them ([ENC-13])");

/* Largest burst joined into one GSO skb: the IP length field's limit. */
#define MRC_XP_GSO_BYTES	60000
/* ... and one page fragment per packet: no copy (mrc_net_join()) */
#define MRC_XP_GSO_SEGS		MAX_SKB_FRAGS
/* Packets per path burst with GSO on: ~8 KiB at the common MTUs. */
#define MRC_XP_GSO_BURST	8

/* Where a queued packet goes, until mrc_xp_unlock_xmit() sends it. */
struct mrc_xp_cb {
	u16 sport;
	u8 dscp;
	bool one;	/* one packet (not an ACK bundle): may be bundled */
	bool rides;	/* ... an ACK, into any path's bundle ([REL-24]) */
	u8 path;	/* ... of this path ([ENC-13]: a bundle is one path's) */
	u8 plane;	/* [PATH-8] leaves by this plane */
};

#define MRC_XP_CB(skb)	((struct mrc_xp_cb *)(skb)->cb)

struct sk_buff *mrc_xp_alloc_skb(struct mrc_xp *xp, u32 len)
{
	unsigned int head = mrc_net_headroom(xp->ndev);
	struct sk_buff *skb;

	skb = mrc_txbuf_skb(xp->dev, head + len);
	if (skb) {
		skb_reserve(skb, head);
		return skb;
	}
	/*
	 * A small packet may become the first of a bundle: room for the
	 * bundle's header in front and an ACK riding behind lets
	 * mrc_xp_bundle() build the datagram in it.
	 */
	head += MRC_XP_BUNDLE_HEAD;
	skb = alloc_skb(head + len + MRC_WIRE_ACK_PKT_LEN, GFP_ATOMIC);
	if (skb)
		skb_reserve(skb, head);
	return skb;
}

/* The sender's port and class ride in the control block until the send. */
void mrc_xp_paths_note(const struct mrc_xp *xp, struct mrc_xp_paths_was *was)
{
	u32 i;

	was->fails = xp->conn.stats.path_fails;
	was->moves = xp->conn.stats.path_moves;
	was->traced = trace_mrc_path_state_enabled();
	was->npaths = xp->conn.cfg.npaths;
	if (!was->traced)
		return;
	for (i = 0; i < was->npaths; i++) {
		was->state[i] = xp->conn.path[i].state;
		was->sport[i] = xp->conn.path[i].sport;
	}
}

void mrc_xp_count_paths(struct mrc_xp *xp, const struct mrc_xp_paths_was *was)
{
	u32 i;

	mrc_xp_stat_add(xp, MRC_STAT_PATH_FAILS,
			xp->conn.stats.path_fails - was->fails);
	mrc_xp_stat_add(xp, MRC_STAT_PATH_MOVES,
			xp->conn.stats.path_moves - was->moves);
	if (!was->traced)
		return;
	for (i = 0; i < was->npaths; i++) {
		const struct mrc_path *p = &xp->conn.path[i];

		if (p->state != was->state[i] || p->sport != was->sport[i])
			trace_mrc_path_state(xp, i, 0, was->state[i],
					     was->sport[i]);
	}
}

void mrc_xp_set_route(struct sk_buff *skb, u32 sport, u32 dscp)
{
	MRC_XP_CB(skb)->sport = sport;
	MRC_XP_CB(skb)->dscp = dscp;
	MRC_XP_CB(skb)->one = false;
	MRC_XP_CB(skb)->rides = false;
	MRC_XP_CB(skb)->plane = 0;
}

void mrc_xp_set_plane(struct sk_buff *skb, u32 plane)
{
	MRC_XP_CB(skb)->plane = plane < MRC_PLANES_MAX ? plane : 0;
}

/*
 * [PATH-8] The plane @pkt leaves by: a HELLO by plane 0; the answers to
 * the peer's path i by the plane its newest packet came on (as their
 * port follows it, [PATH-11]); our data and PROBE REQs by its path's plane.
 */
u32 mrc_xp_plane_for(const struct mrc_xp *xp, const struct mrc_pkt *pkt)
{
	switch (pkt->type) {
	case MRC_PKT_HELLO:
		return 0;
	case MRC_PKT_PROBE:
		/* a REQ proves our path on its plane; a RESP answers */
		if (pkt->probe.kind == MRC_PROBE_REQ)
			return mrc_hello_plane_of(&xp->hello, pkt->path_id);
		fallthrough;
	case MRC_PKT_ACK:
	case MRC_PKT_NAK:
		return pkt->path_id < MRC_MAX_PATHS ?
		       xp->ack_plane[pkt->path_id] : 0;
	default:
		return mrc_hello_plane_of(&xp->hello, pkt->path_id);
	}
}

/*
 * @skb is one ACK: it may join a bundle of whatever path and class comes
 * before it, which then carries it ([REL-24]: the answer rides with the
 * reply). An ACK is not sequenced, so it does not break [ENC-13]'s rule
 * that a bundle's packets be of one path.
 */
void mrc_xp_set_rides(struct sk_buff *skb)
{
	MRC_XP_CB(skb)->one = true;
	MRC_XP_CB(skb)->rides = true;
}

/*
 * Encode @pkt's headers at @buf and seal the @len bytes from there (the
 * headers and any payload after them) with the ICRC at @buf + @len. Our
 * own bug if it does not encode: never put on the wire what a peer would
 * reject.
 */
bool mrc_xp_encode(struct mrc_xp *xp, struct mrc_pkt *pkt, u8 *buf, u32 len)
{
	u32 hlen = mrc_wire_hdr_len(pkt);
	enum mrc_wire_reason r;
	u32 written;

	pkt->dst_qpn = xp->dest_qpn;
	r = mrc_wire_encode_hdr(pkt, buf, hlen, &written);
	if (r != MRC_WIRE_OK) {
		pr_warn_ratelimited("metaroce: cannot encode type %u: %s\n",
				    pkt->type, mrc_wire_reason_str(r));
		return false;
	}
	mrc_wire_seal(buf, len);
	return true;
}

/*
 * [SEC-3] Did @skb come from the connection's peer? The QP number and
 * cookie are all that name a connection ([ENC-30]), and both can be
 * guessed or seen; the source address narrows who can inject to hosts
 * that can forge the peer's: the address of the QP's address vector
 * (plane 0) or one the peer announced in its HELLO ([PATH-8]). The
 * peer's plane it came from, or -1.
 */
int mrc_xp_from_peer(const struct mrc_xp *xp, const struct sk_buff *skb)
{
	const struct mrc_av *av = xp->av;
	struct mrc_plane_addr a = { };

	if (skb->protocol == htons(ETH_P_IP)) {
		if (av->daddr.in4.sin_family != AF_INET)
			return -1;
		if (ip_hdr(skb)->saddr == av->daddr.in4.sin_addr.s_addr)
			return 0;
		a.family = 4;
		memcpy(a.addr, &ip_hdr(skb)->saddr, 4);
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		if (av->daddr.in6.sin6_family != AF_INET6)
			return -1;
		if (ipv6_addr_equal(&ipv6_hdr(skb)->saddr,
				    &av->daddr.in6.sin6_addr))
			return 0;
		a.family = 6;
		memcpy(a.addr, &ipv6_hdr(skb)->saddr, 16);
	} else {
		return -1;
	}
	return mrc_hello_peer_plane(&xp->hello, &a);
}

/*
 * [PKT-94] Our HELLO of @kind to the peer, on plane 0 and path 0's route,
 * never bundled: an OFFER is as long as any answer to it may be.
 */
int mrc_xp_hello_send(struct mrc_xp *xp, u8 kind, u16 flags,
		      struct sk_buff_head *out)
{
	struct mrc_pkt pkt = { };
	struct sk_buff *skb;
	u8 *table;
	u32 hlen;
	int err;

	pkt.type = MRC_PKT_HELLO;
	hlen = mrc_wire_hdr_len(&pkt);
	skb = mrc_xp_alloc_skb(xp, hlen + MRC_WIRE_HELLO_TABLE_MAX +
			       MRC_WIRE_ICRC_LEN);
	if (!skb)
		return -ENOMEM;
	table = skb_put(skb, hlen) + hlen;
	mrc_hello_build(&xp->hello, kind, &pkt, table);
	skb_put(skb, pkt.payload_len);
	pkt.flags = flags;
	pkt.tsval = (u32)ktime_get_ns();
	pkt.cookie = xp->tx_cookie;
	err = mrc_xp_seal(xp, skb, &pkt, mrc_conn_ack_sport(&xp->conn, 0),
			  xp->dscp_ctrl, out);
	if (!err)
		MRC_XP_CB(skb)->one = false;
	return err;
}

/*
 * Encode @pkt's headers in front of the payload already in @skb (its
 * first hdr_len bytes were left free), add the ICRC and queue it on @out.
 * Frees @skb on failure.
 */
int mrc_xp_seal(struct mrc_xp *xp, struct sk_buff *skb, struct mrc_pkt *pkt,
		u32 sport, u32 dscp, struct sk_buff_head *out)
{
	if (!mrc_xp_encode(xp, pkt, skb->data, skb->len)) {
		kfree_skb(skb);
		return -EINVAL;
	}
	skb_put(skb, MRC_WIRE_ICRC_LEN);
	mrc_xp_set_route(skb, sport, dscp);
	MRC_XP_CB(skb)->one = true;
	MRC_XP_CB(skb)->path = pkt->path_id;
	mrc_xp_set_plane(skb, mrc_xp_plane_for(xp, pkt));
	__skb_queue_tail(out, skb);
	return 0;
}

/*
 * With xp->lock held: the room of a bundle to the peer now, 0 if none may
 * be sent: the peer's packets say whether it takes bundles, the core how
 * much both MTUs carry.
 */
static u32 mrc_xp_bundle_room(struct mrc_xp *xp)
{
	if (!READ_ONCE(data_bundles) || !xp->peer_bundles)
		return 0;
	return mrc_conn_pbundle_room(&xp->conn);
}

/*
 * May @skb's own buffer become a bundle ([ENC-13]): @head bytes of header
 * in front of it (beyond what the stack needs) and @tail bytes of packets
 * behind it, written in place?
 */
static bool mrc_xp_bundles_in_place(struct mrc_xp *xp,
				    const struct sk_buff *skb, u32 head,
				    u32 tail)
{
	return !skb_cloned(skb) && !skb_is_nonlinear(skb) &&
	       skb_tailroom(skb) >= tail &&
	       skb_headroom(skb) >= head + mrc_net_headroom(xp->ndev);
}

/* Packets queued to leave together: a GSO burst or a bundle. */
struct mrc_xp_run {
	struct sk_buff_head q;
	u32 bytes;
	u32 room;	/* a bundle's, or 0: a GSO burst */
};

/* Could @skb and another like it share a bundle of @room bytes? */
static bool mrc_xp_bundles(const struct sk_buff *skb, u32 room)
{
	return room && MRC_XP_CB(skb)->one &&
	       mrc_wire_pbundle_fits(1, skb->len, skb->len, room);
}

/*
 * One datagram of the packets on @run ([ENC-13]): header and length
 * table, then each packet as it was sealed. NULL (the packets still on
 * @run) without memory.
 */
static struct sk_buff *mrc_xp_bundle(struct mrc_xp *xp,
				     struct sk_buff_head *run, u32 bytes)
{
	u32 n = skb_queue_len(run), i = 0, hlen = mrc_wire_pbundle_hdr_len(n);
	u16 lens[MRC_WIRE_PBUNDLE_MAX];
	struct sk_buff *skb, *b = skb_peek(run);
	u8 hdr[MRC_WIRE_PBUNDLE_HDR_MAX];

	BUILD_BUG_ON(MRC_WO_PBUNDLE_LENS + 4 > MRC_XP_BUNDLE_HEAD);
	skb_queue_walk(run, skb)
		lens[i++] = skb->len;
	if (mrc_wire_pbundle_encode_hdr(lens, n, hdr, hlen))
		return NULL;	/* our bug: never send what a peer rejects */
	/*
	 * The first packet's buffer holds the datagram when it has the
	 * room (a reply and the answer riding with it, [REL-24]): one
	 * allocation, free and copy less on the round trip's path.
	 */
	if (mrc_xp_bundles_in_place(xp, b, hlen, bytes - b->len)) {
		__skb_unlink(b, run);
		memcpy(skb_push(b, hlen), hdr, hlen);
	} else {
		b = mrc_xp_alloc_skb(xp, hlen + bytes);
		if (!b)
			return NULL;
		skb_put_data(b, hdr, hlen);
		*MRC_XP_CB(b) = *MRC_XP_CB(skb_peek(run));
	}
	MRC_XP_CB(b)->one = false;
	while ((skb = __skb_dequeue(run))) {
		skb_copy_from_linear_data(skb, skb_put(b, skb->len), skb->len);
		consume_skb(skb);
	}
	return b;
}

/*
 * [REL-24] The reply on @out that the answer to its peer's request may
 * ride in, built in its buffer: the one data packet on @out, with room
 * for an ACK behind it and a bundle header in front. NULL otherwise; the
 * answer then leaves as an skb of its own, which mrc_xp_bundle() joins
 * to the reply (an allocation, a copy and a free more on the round
 * trip's path).
 */
struct sk_buff *mrc_xp_ride_host(struct mrc_xp *xp, struct sk_buff_head *out)
{
	struct sk_buff *skb = skb_peek(out);

	if (!skb || !skb_queue_is_last(out, skb) || !MRC_XP_CB(skb)->one ||
	    MRC_XP_CB(skb)->rides ||
	    !mrc_xp_bundles_in_place(xp, skb, mrc_wire_pbundle_hdr_len(2),
				     MRC_WIRE_ACK_PKT_LEN) ||
	    !mrc_wire_pbundle_fits(1, skb->len, MRC_WIRE_ACK_PKT_LEN,
				   mrc_xp_bundle_room(xp)))
		return NULL;
	return skb;
}

/*
 * @host, from mrc_xp_ride_host(), has an ACK of @len bytes encoded behind
 * its end: make the two one datagram ([ENC-13]).
 */
void mrc_xp_ride(struct mrc_xp *xp, struct sk_buff *host, u32 len)
{
	u16 lens[2] = { host->len, len };
	u32 hlen = mrc_wire_pbundle_hdr_len(2);

	if (mrc_wire_pbundle_encode_hdr(lens, 2, skb_push(host, hlen), hlen)) {
		/* our bug: the lengths were checked to fit */
		WARN_ON_ONCE(1);
		skb_pull(host, hlen);
		return;
	}
	skb_put(host, len);
	MRC_XP_CB(host)->one = false;
	mrc_xp_stat_inc(xp, MRC_STAT_TX_BUNDLES);
	mrc_xp_stat_add(xp, MRC_STAT_TX_BUNDLED, 2);
}

static void mrc_xp_xmit_one(struct mrc_xp *xp, struct sk_buff *skb,
			    u32 npkts)
{
	const struct sockaddr *saddr = (const struct sockaddr *)&xp->av->saddr;
	const struct sockaddr *daddr = (const struct sockaddr *)&xp->av->daddr;
	struct sockaddr_storage s, d;
	struct net_device *ndev = xp->ndev;
	struct mrc_dev *dev = xp->dev;
	struct mrc_stats __percpu *stats;
	u16 sport = MRC_XP_CB(skb)->sport;
	u8 dscp = MRC_XP_CB(skb)->dscp;
	u32 k = MRC_XP_CB(skb)->plane;
	unsigned int len = skb->len;
	int err;

	rcu_read_lock();
	stats = mrc_xp_stats_rcu(xp);
	if (k) {
		/* [PATH-8] a plane gone since: plane 0 takes its paths */
		ndev = mrc_plane_ndev_rcu(dev, k, xp->plane_id[k]);
		if (ndev) {
			mrc_plane_to_sockaddr(&xp->hello.local.plane[k], &s);
			mrc_plane_to_sockaddr(&xp->hello.peer_plane[k], &d);
			saddr = (const struct sockaddr *)&s;
			daddr = (const struct sockaddr *)&d;
		} else {
			mrc_stats_add(stats, MRC_STAT_TX_PLANE_GONE, npkts);
			ndev = xp->ndev;
			k = 0;
		}
	}
	/* [ENC-10] control packets too: an AQM marks them, not drops them */
	err = mrc_net_xmit(xp->net, ndev, &xp->routes[k], skb, saddr, daddr,
			   sport, dscp, true);
	if (err) {
		mrc_stats_add(stats, MRC_STAT_TX_DROPPED, npkts);
	} else {
		xp->plane_tx[k] += npkts;
		mrc_stats_add(stats, MRC_STAT_TX_PACKETS, npkts);
		mrc_stats_add(stats, MRC_STAT_TX_BYTES, len);
		if (npkts > 1)
			mrc_stats_add(stats, MRC_STAT_TX_GSO_BURSTS, 1);
	}
	rcu_read_unlock();
}

static void mrc_xp_xmit_run(struct mrc_xp *xp, struct mrc_xp_run *run)
{
	struct mrc_xp_cb cb = *MRC_XP_CB(skb_peek(&run->q));
	u32 n = skb_queue_len(&run->q);
	struct sk_buff *skb;

	if (n > 1 && run->room) {
		skb = mrc_xp_bundle(xp, &run->q, run->bytes);
		if (skb) {
			mrc_xp_stat_inc(xp, MRC_STAT_TX_BUNDLES);
			mrc_xp_stat_add(xp, MRC_STAT_TX_BUNDLED, n);
			mrc_xp_xmit_one(xp, skb, 1);
			return;
		}
	}
	if (n == 1 || run->room) {
		/* one packet, or a bundle that found no memory: one by one */
		while ((skb = __skb_dequeue(&run->q)))
			mrc_xp_xmit_one(xp, skb, 1);
		return;
	}
	skb = mrc_net_join(xp->ndev, &run->q);
	if (!skb)
		return;
	*MRC_XP_CB(skb) = cb;
	mrc_xp_xmit_one(xp, skb, n);
}

/* May @skb follow the packets on @run, in its bundle or GSO burst? */
static bool mrc_xp_joins(const struct mrc_xp_run *run,
			 const struct sk_buff *skb)
{
	const struct sk_buff *first = skb_peek(&run->q);
	const struct sk_buff *last = skb_peek_tail(&run->q);
	u32 n = skb_queue_len(&run->q);

	if (run->room && MRC_XP_CB(skb)->rides)
		return mrc_wire_pbundle_fits(n, run->bytes, skb->len,
					     run->room);
	if (MRC_XP_CB(skb)->sport != MRC_XP_CB(first)->sport ||
	    MRC_XP_CB(skb)->dscp != MRC_XP_CB(first)->dscp ||
	    MRC_XP_CB(skb)->plane != MRC_XP_CB(first)->plane)
		return false;
	if (run->room)
		return MRC_XP_CB(skb)->one &&
		       MRC_XP_CB(skb)->path == MRC_XP_CB(first)->path &&
		       mrc_wire_pbundle_fits(n, run->bytes, skb->len,
					     run->room);
	return READ_ONCE(tx_gso) && last->len == first->len &&
	       skb->len <= first->len && n < MRC_XP_GSO_SEGS &&
	       (n + 1) * first->len <= MRC_XP_GSO_BYTES;
}

/*
 * Consecutive packets of one path ([PATH-6] bursts) leave as one
 * datagram where they are small and the peer takes bundles (@room > 0),
 * else as one UDP GSO skb; faults are injected per packet before that.
 */
static void mrc_xp_xmit_list(struct mrc_xp *xp, struct sk_buff_head *list,
			     u32 room)
{
	struct mrc_xp_run run = { .bytes = 0 };
	struct sk_buff *skb;

	__skb_queue_head_init(&run.q);
	while ((skb = __skb_dequeue(list))) {
		if (mrc_fault_tx(xp->ndev, skb, MRC_XP_CB(skb)->sport))
			continue;
		if (!skb_queue_empty(&run.q) && !mrc_xp_joins(&run, skb))
			mrc_xp_xmit_run(xp, &run);
		if (skb_queue_empty(&run.q)) {
			run.bytes = 0;
			run.room = mrc_xp_bundles(skb, room) ? room : 0;
		}
		__skb_queue_tail(&run.q, skb);
		run.bytes += skb->len;
	}
	if (!skb_queue_empty(&run.q))
		mrc_xp_xmit_run(xp, &run);
}

/*
 * Drop xp->lock and send what was built under it. A gap in a path's PSNs
 * reads as loss ([REL-7]), so packets must leave in the order they were
 * built: the work item and the receive softirq build one after the other,
 * and the later one must not overtake the earlier on the wire. Taking the
 * transmit lock before dropping xp->lock keeps that order while the next
 * context already runs the protocol.
 */
void mrc_xp_unlock_xmit(struct mrc_xp *xp, struct sk_buff_head *out)
{
	u32 room;

	if (skb_queue_empty(out)) {
		spin_unlock_bh(&xp->lock);
		return;
	}
	room = skb_queue_len(out) > 1 ? mrc_xp_bundle_room(xp) : 0;
	spin_lock(&xp->xmit_lock);
	spin_unlock(&xp->lock);
	mrc_xp_xmit_list(xp, out, room);
	spin_unlock_bh(&xp->xmit_lock);
}

void mrc_xp_kick(struct mrc_xp *xp)
{
	if (!READ_ONCE(xp->dead))
		queue_work(system_highpri_wq, &xp->work);
}

/* With xp->lock held: follow the core's next deadline, @at. */
void mrc_xp_arm_timer_at(struct mrc_xp *xp, u64 at)
{
	u64 grain = xp->conn.cfg.reply_hold_grain_ns;

	if (xp->dead || !xp->live)
		return;
	/* [PKT-94] an OFFER's resend is a deadline too */
	at = min(at, mrc_hello_deadline(&xp->hello));
	if (at == U64_MAX)
		return;
	/*
	 * An earlier expiry will look again; but not one far too early: a
	 * [REL-24] hold the reply ended leaves the timer armed a round trip
	 * before the next deadline (a probe's, milliseconds away), and in a
	 * ping-pong that spurious expiry, a softirq and an engine run per
	 * round trip (1.4 expiries per ib_write_lat round trip in the bed),
	 * costs more than moving the timer. Deadlines that creep later with
	 * each ACK of a stream stay within the slack and move nothing. Nor
	 * is a timer on the holds' grain (a hold's end in an established
	 * ping-pong, the tick) moved later: it expires with the tick, one
	 * spurious run per tick, where the reply ending the hold and the
	 * next request starting one moved it twice per round trip, each a
	 * removal and an insertion in the CPU's timer tree.
	 */
	if (xp->timer_at && xp->timer_at <= at &&
	    (at - xp->timer_at < MRC_XP_TIMER_SLACK_NS ||
	     (grain && !(xp->timer_at % grain))))
		return;
	xp->timer_at = at;
	hrtimer_start(&xp->timer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
}

void mrc_xp_arm_timer(struct mrc_xp *xp)
{
	mrc_xp_arm_timer_at(xp, mrc_conn_deadline(&xp->conn));
}

void mrc_xp_free(struct mrc_xp *xp)
{
	u32 k;

	for (k = 0; k < MRC_PLANES_MAX; k++)
		mrc_net_routes_free(&xp->routes[k]);
	mrc_net_put(xp->net);
	kvfree(xp);
}

/*
 * [PATH-6] bursts only pay where they leave as one GSO skb, or as one
 * bundle ([ENC-13]): then a burst is what a datagram of our MTU carries.
 */
void mrc_xp_burst(struct mrc_conn_cfg *cfg)
{
	u32 room = min_t(u32, cfg->rx_max + MRC_WIRE_DATA_OVERHEAD,
			 MRC_WIRE_MAX_PKT_LEN);

	if (READ_ONCE(tx_gso)) {
		cfg->sched.burst = MRC_XP_GSO_BURST;
	} else if (READ_ONCE(data_bundles) &&
		   room > mrc_wire_pbundle_hdr_len(MRC_WIRE_PBUNDLE_MAX)) {
		cfg->sched.burst = MRC_WIRE_PBUNDLE_MAX;
		cfg->sched.burst_bytes = room -
			mrc_wire_pbundle_hdr_len(MRC_WIRE_PBUNDLE_MAX);
	}
}
