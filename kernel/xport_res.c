// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * An RC connection's state for `rdma -dd resource show qp`: the cookies,
 * the core's counters and each path's sequence numbers and timers. A
 * connection that hangs once in dozens of runs is understood from what it
 * showed then or not at all (selftests/soak keeps this for every failure).
 */

#include <rdma/restrack.h>

#include "metaroce.h"
#include "xport.h"

struct mrc_res_val {
	const char *name;
	u64 v;
};

static int mrc_res_put(struct sk_buff *msg, const struct mrc_res_val *v,
		       u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (rdma_nl_put_driver_u64(msg, v[i].name, v[i].v))
			return -EMSGSIZE;
	return 0;
}

/* A deadline as nanoseconds from @now (negative: overdue), 0: none. */
static u64 mrc_res_in(u64 at, u64 now)
{
	return at ? at - now : 0;
}

static int mrc_res_path(struct sk_buff *msg, const struct mrc_path *p,
			u32 plane, u64 now)
{
	static const char * const names[] = {
		"snd_una", "snd_nxt", "inflight", "retries", "rto_in",
		"rcv_cum", "rcv_pending", "rcv_oow", "state", "sport",
		"ack_sport", "fails", "fail_why", "reentropies", "repaths",
		"sent", "acked", "lost", "srtt_us", "cwnd", "loss_pm", "mark_pm",
		"ato_us", "probes", "probes_ans", "plane",
	};
	const struct mrc_path_tx *tx = &p->tx;
	const struct mrc_path_rx *rx = &p->rx;
	u64 v[] = {
		tx->snd_una, tx->snd_nxt, tx->inflight_pkts, tx->retries,
		mrc_res_in(tx->rto_deadline, now), rx->cum, rx->pending,
		rx->rx_oow, p->state, p->sport, rx->peer_sport, p->fails,
		p->fail_why, p->reentropies, p->repaths, tx->sent_pkts,
		tx->acked_pkts, mrc_path_tx_lost(tx), div_u64(tx->srtt_ns, 1000),
		p->cc.cwnd, p->cc.loss_pm, p->cc.mark_pm,
		div_u64(mrc_path_tx_answer_timeout(tx), 1000), tx->pto_fired,
		tx->pto_answer, plane,
	};
	char name[24];
	u32 i;

	BUILD_BUG_ON(ARRAY_SIZE(names) != ARRAY_SIZE(v));
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		snprintf(name, sizeof(name), "p%u_%s", p->id, names[i]);
		if (rdma_nl_put_driver_u64(msg, name, v[i]))
			return -EMSGSIZE;
	}
	return 0;
}

int mrc_xp_fill_res_qp(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct mrc_qp *qp = to_mrc_qp(ibqp);
	struct nlattr *table;
	struct mrc_xp *xp;
	const struct mrc_conn *c;
	u64 now = ktime_get_ns();
	u32 i;
	int err;

	xp = mrc_xp_of(qp);
	if (!xp)
		return 0;
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	spin_lock_bh(&xp->lock);
	c = &xp->conn;
	{
		const struct mrc_res_val v[] = {
			{ "live", xp->live },
			{ "dead", xp->dead },
			{ "tx_cookie", xp->tx_cookie },
			{ "rx_cookie", xp->rx_cookie },
			{ "timer_in", mrc_res_in(xp->timer_at, now) },
			{ "ack_queued", xp->ack_queued },
			{ "sq_head", xp->sq_head },
			{ "sq_post", xp->sq_post },
			{ "sq_take", xp->sq_take },
			{ "resp_head", xp->resp_head },
			{ "resp_post", xp->resp_post },
			{ "resp_tail", xp->resp_tail },
			{ "rsn_head", xp->rsn_head },
			{ "rsn_take", xp->rsn_take },
		};

		err = mrc_res_put(msg, v, ARRAY_SIZE(v));
	}
	if (!err) {
		/* [PKT-94] [PATH-8] the HELLO exchange and the planes' traffic */
		const struct mrc_hello_state *h = &xp->hello;
		const struct mrc_res_val v[] = {
			{ "hello_offers", h->stats.offers_sent },
			{ "hello_answers", h->stats.answers_sent },
			{ "hello_refused", h->stats.refused },
			{ "hello_peer", h->peer_known },
			{ "hello_answered", h->answered },
			{ "peer_planes", h->peer_nplanes },
			{ "planes", mrc_hello_nplanes(h) },
			{ "plane0_tx", xp->plane_tx[0] },
			{ "plane0_rx", xp->plane_rx[0] },
			{ "plane1_tx", xp->plane_tx[1] },
			{ "plane1_rx", xp->plane_rx[1] },
			{ "plane2_tx", xp->plane_tx[2] },
			{ "plane2_rx", xp->plane_rx[2] },
			{ "plane3_tx", xp->plane_tx[3] },
			{ "plane3_rx", xp->plane_rx[3] },
		};

		BUILD_BUG_ON(MRC_PLANES_MAX != 4);
		err = mrc_res_put(msg, v, ARRAY_SIZE(v));
	}
	if (err || !xp->live)
		goto out;
	{
		const struct mrc_res_val v[] = {
			{ "error", c->error },
			{ "deadline_in", mrc_res_in(mrc_conn_deadline(c), now) },
			{ "hold_in", mrc_res_in(c->hold_until, now) },
			{ "reply_mode", c->reply_mode },
			{ "tx_una", c->tx_una },
			{ "tx_nxt", c->tx_nxt },
			{ "rq_len", c->rq_tail - c->rq_head },
			{ "msn_una", c->msn_una },
			{ "msn_nxt", c->msn_nxt },
			{ "peer_msn_ack", c->peer_msn_ack },
			{ "rx_msn_head", c->rx_msn_head },
			{ "msn_ack_sent", c->msn_ack_sent },
			{ "tx_segs", c->stats.tx_segs },
			{ "tx_resends", c->stats.tx_resends },
			{ "rx_new", c->stats.rx_new },
			{ "rx_dup", c->stats.rx_dup },
			{ "rx_drop", c->stats.rx_drop },
			{ "acks_sent", c->stats.acks_sent },
			{ "acks_rcvd", c->stats.acks_rcvd },
			{ "acks_invalid", c->stats.acks_invalid },
			{ "acks_rode", c->stats.acks_rode },
			{ "holds_expired", c->stats.holds_expired },
		};

		err = mrc_res_put(msg, v, ARRAY_SIZE(v));
	}
	for (i = 0; !err && i < c->cfg.npaths; i++)
		err = mrc_res_path(msg, &c->path[i],
				   mrc_hello_plane_of(&xp->hello, i), now);
out:
	spin_unlock_bh(&xp->lock);
	if (err) {
		nla_nest_cancel(msg, table);
		return err;
	}
	nla_nest_end(msg, table);
	return 0;
}
