// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ACKs of an RC connection's receive side (ack.h): the core decides when
 * one is due and what it says; this builds, bundles and queues them.
 */

#include <linux/module.h>

#include "metaroce.h"
#include "ack.h"
#include "share.h"
#include "counter.h"
#include "stats.h"
#include "trace.h"

/* [OPS-20] receive credits; an SRQ's are not ours to count */
static u32 mrc_ack_rsn_limit(struct mrc_xp *xp)
{
	struct mrc_qp *qp = xp->qp;

	if (!qp)
		return xp->rsn_take;	/* lingering: no receive comes again */
	return xp->rsn_take +
	       (qp->srq ? MRC_CONN_MSGS : mrc_qp_recv_available(qp));
}

static bool ack_bundles = true;
module_param(ack_bundles, bool, 0644);
MODULE_PARM_DESC(ack_bundles,
		 "send the ACKs of one moment as one datagram, to a peer that takes them ([ENC-9])");

u16 mrc_ack_bundle_flag(void)
{
	return READ_ONCE(ack_bundles) ? MRC_F_BUNDLES : 0;
}

/* An ACK of @why was built, into @skb's bundle or (NULL) riding with data. */
static void mrc_ack_sent(struct mrc_xp *xp, u8 why, struct sk_buff *skb)
{
	mrc_xp_stat_inc(xp, MRC_STAT_ACKS_SENT);
	mrc_xp_stat_inc(xp, MRC_STAT_ACKS_FOR_DELAY + why);
	if (skb && skb->len == 2 * MRC_WIRE_ACK_PKT_LEN)
		mrc_xp_stat_inc(xp, MRC_STAT_ACK_BUNDLES);
}

/*
 * Every ACK due now. To a peer that takes them they leave as bundles
 * ([ENC-9]): a message whose segments crossed several paths draws an ACK
 * on each ([REL-13], [REL-18]), and one datagram instead of one per path
 * saves both ends a trip through their network stacks per path. A lone
 * ACK behind a lone reply on @out is encoded in the reply's buffer
 * ([REL-24]: the answer rides with it).
 */
void mrc_ack_send(struct mrc_xp *xp, u64 now, struct sk_buff_head *out)
{
	u32 room = xp->peer_bundles ? MRC_WIRE_BUNDLE_MAX : 1;
	struct sk_buff *host = mrc_xp_ride_host(xp, out);
	struct sk_buff *skb = NULL;
	struct mrc_ack_info ack;
	u32 riding = 0;

	while (mrc_conn_ack_next(&xp->conn, now, NULL, &ack)) {
		struct mrc_pkt pkt = { };
		u32 len;

		/* [CC-9] every ACK carries the device's fair share */
		ack.rate_hint = mrc_share_hint(xp->dev, now);
		trace_mrc_path_rx(xp, &ack);
		mrc_conn_ack_to_pkt(&ack, &pkt);
		pkt.flags |= mrc_ack_bundle_flag();
		pkt.tsval = (u32)now;
		pkt.cookie = mrc_ack_cookie(xp, &pkt);
		pkt.ack.rsn_limit = mrc_ack_rsn_limit(xp);
		len = mrc_wire_hdr_len(&pkt);
		if (host) {
			/* a lone answer rides in the reply's own buffer */
			if (mrc_xp_encode(xp, &pkt, skb_tail_pointer(host), len)) {
				riding = len + MRC_WIRE_ICRC_LEN;
				mrc_ack_sent(xp, ack.why, NULL);
			}
			host = NULL;
			continue;
		}
		if (skb && skb->len + MRC_WIRE_ACK_PKT_LEN >
			   room * MRC_WIRE_ACK_PKT_LEN) {
			__skb_queue_tail(out, skb);
			skb = NULL;
		}
		if (!skb) {
			skb = mrc_xp_alloc_skb(xp, room * MRC_WIRE_ACK_PKT_LEN);
			if (!skb)
				break;
			/* [ENC-5] a bundle travels as its first path's ACK */
			mrc_xp_set_route(skb, ack.sport, xp->dscp_ctrl);
			mrc_xp_set_plane(skb, mrc_xp_plane_for(xp, &pkt));
			if (riding) {
				/* not alone after all: it joins the others */
				skb_put_data(skb, skb_tail_pointer(skb_peek(out)),
					     riding);
				riding = 0;
			}
		}
		if (!mrc_xp_encode(xp, &pkt, skb_tail_pointer(skb), len))
			continue;
		skb_put(skb, len + MRC_WIRE_ICRC_LEN);
		mrc_ack_sent(xp, ack.why, skb);
	}
	if (riding)
		mrc_xp_ride(xp, skb_peek(out), riding);
	if (skb && skb->len == MRC_WIRE_ACK_PKT_LEN)
		mrc_xp_set_rides(skb);	/* [REL-24] with data queued before */
	if (skb && skb->len)
		__skb_queue_tail(out, skb);
	else
		kfree_skb(skb);
}
