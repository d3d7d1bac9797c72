// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Lingering ([REL-21]): when an RC QP is destroyed, its peer may not have
 * heard the last ACK yet (lost, or still on its way). Without an answer
 * the peer resends until its retries run out and fails data that did
 * arrive. So the transport of a healthy connection stays a while after
 * the QP is gone, found by QP number on its device's list, and
 * acknowledges resends of what it had placed. It never touches the QP
 * again, places nothing and sends only ACKs, from the receive softirq.
 *
 * A device keeps at most MRC_LINGER_MAX of them for MRC_LINGER_NS each;
 * its reaper frees them oldest first, after an RCU grace period, since
 * receivers find them under RCU.
 *
 * Lifetime: the QP owns its transport until hooks->release, which runs
 * once every QP reference is gone. Receivers and the ACK flush tasklet
 * (ackq.c) hold such a reference while they use qp->xport, so the
 * transport is handed to the device only there (mrc_linger_start()), and
 * from then on only the list under RCU reaches it. Between destroy and
 * release its QP number is in no table: packets for it are dropped, as
 * for any unknown QP.
 */

#include "ack.h"
#include "linger.h"
#include "metaroce.h"
#include "stats.h"
#include "xport.h"

#define MRC_LINGER_NS	NSEC_PER_SEC
#define MRC_LINGER_MAX	64

/* After the grace period nobody holds them: free every one on @gone. */
static void mrc_linger_free(struct list_head *gone)
{
	struct mrc_xp *xp, *tmp;

	if (list_empty(gone))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(xp, tmp, gone, reap_node)
		mrc_xp_free(xp);
}

static void mrc_linger_reap(struct work_struct *w)
{
	struct mrc_linger *l = container_of(to_delayed_work(w),
					    struct mrc_linger, reap);
	u64 now = ktime_get_ns(), next = 0;
	struct mrc_xp *xp, *tmp;
	LIST_HEAD(gone);

	spin_lock_bh(&l->lock);
	list_for_each_entry_safe(xp, tmp, &l->list, linger_node) {
		if (l->count <= MRC_LINGER_MAX && xp->linger_until > now) {
			next = xp->linger_until;
			break;
		}
		list_del_rcu(&xp->linger_node);
		list_add_tail(&xp->reap_node, &gone);
		l->count--;
	}
	spin_unlock_bh(&l->lock);
	if (next)
		queue_delayed_work(system_wq, &l->reap,
				   nsecs_to_jiffies(next - now) + 1);
	mrc_linger_free(&gone);
}

void mrc_linger_init(struct mrc_linger *l)
{
	spin_lock_init(&l->lock);
	INIT_LIST_HEAD(&l->list);
	l->count = 0;
	INIT_DELAYED_WORK(&l->reap, mrc_linger_reap);
}

void mrc_linger_purge(struct mrc_linger *l)
{
	struct mrc_xp *xp, *tmp;
	LIST_HEAD(gone);

	cancel_delayed_work_sync(&l->reap);
	spin_lock_bh(&l->lock);
	list_for_each_entry_safe(xp, tmp, &l->list, linger_node) {
		list_del_rcu(&xp->linger_node);
		list_add_tail(&xp->reap_node, &gone);
	}
	l->count = 0;
	spin_unlock_bh(&l->lock);
	mrc_linger_free(&gone);
}

void mrc_linger_start(struct mrc_xp *xp)
{
	struct mrc_linger *l = &xp->dev->linger;
	bool full;

	spin_lock_bh(&xp->lock);
	/* the QP's memory goes with it: keep what sending ACKs needs */
	xp->linger_av = xp->qp->attr.av;
	xp->av = &xp->linger_av;
	xp->qp = NULL;
	xp->linger_until = ktime_get_ns() + MRC_LINGER_NS;
	xp->lingering = true;
	spin_unlock_bh(&xp->lock);

	spin_lock_bh(&l->lock);
	list_add_tail_rcu(&xp->linger_node, &l->list);
	full = ++l->count > MRC_LINGER_MAX;
	spin_unlock_bh(&l->lock);
	if (full)
		mod_delayed_work(system_wq, &l->reap, 0);
	else
		queue_delayed_work(system_wq, &l->reap,
				   nsecs_to_jiffies(MRC_LINGER_NS) + 1);
}

void mrc_linger_rcv(struct mrc_dev *dev, const struct sk_buff *skb,
		    const struct mrc_pkt *pkt, bool ce)
{
	enum mrc_stat why = MRC_STAT_RX_DROP_NO_QP;
	struct mrc_linger *l = &dev->linger;
	struct sk_buff_head out;
	struct mrc_rx_seg seg;
	struct mrc_xp *xp;
	bool acked = false;

	/* ACKs and NAKs for a lingering side are not wanted ([REL-21]) */
	if (!READ_ONCE(l->count) || !mrc_conn_rx_seg_from_pkt(pkt, ce, &seg))
		goto drop;
	__skb_queue_head_init(&out);
	rcu_read_lock();
	list_for_each_entry_rcu(xp, &l->list, linger_node) {
		u64 now;

		if (xp->qpn != pkt->dst_qpn)
			continue;
		spin_lock_bh(&xp->lock);
		now = ktime_get_ns();
		if (mrc_xp_from_peer(xp, skb) < 0) {
			why = MRC_STAT_RX_DROP_SOURCE;
		} else if (pkt->cookie != xp->rx_cookie) {
			why = MRC_STAT_RX_DROP_COOKIE;
		} else if (mrc_conn_rx_linger(&xp->conn, now, &seg) ==
			   MRC_RX_DUP) {
			mrc_ack_send(xp, now, &out);
			acked = true;
		} else {
			why = MRC_STAT_RX_DROP_QP_STATE; /* new data: no taker */
		}
		mrc_xp_unlock_xmit(xp, &out);
		break;
	}
	rcu_read_unlock();
	if (acked)
		return;
drop:
	mrc_stat_drop(dev, why);
}
