// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * An RC connection's state for `rdma -dd resource show qp`.
 *
 * The whole QP entry must fit in one netlink dump message, whose size the
 * reading tool chooses (iproute2: a page). An entry that does not fit is
 * not skipped: nldev ends the dump there, so that QP and every QP after it
 * vanish from the listing. So the table comes in two parts. The summary
 * (the connection, the planes, a few numbers per path of the first
 * MRC_RES_PATHS) is sized to fit, and an entry that cannot hold it is
 * retried in the next message, as nldev does. The rest (the same numbers
 * of paths above those: up to MRC_MAX_PATHS would not fit a page; then
 * cookies, queue indexes, each path's sequence numbers and timers: what a
 * hang is understood from) is added while there is room; what did not fit
 * is dropped whole, group by group, and detail_omitted says how many
 * groups that was. Paths that failed or probed give their detail first.
 */

#include <rdma/restrack.h>

#include "metaroce.h"
#include "xport.h"

/* detail_omitted's attributes (name string and u64) */
#define MRC_RES_ROOM	(nla_total_size(sizeof("detail_omitted")) + \
			 nla_total_size_64bit(sizeof(u64)))

/* Paths whose summary row is always there. */
#define MRC_RES_PATHS	MRC_PATHS_UNANNOUNCED

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

/* Per path, @n values named p<id>_<names[i]>. */
static int mrc_res_put_path(struct sk_buff *msg, u32 id,
			    const char * const *names, const u64 *v, u32 n)
{
	char name[24];
	u32 i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%u_%s", id, names[i]);
		if (rdma_nl_put_driver_u64(msg, name, v[i]))
			return -EMSGSIZE;
	}
	return 0;
}

/* A deadline as nanoseconds from @now (negative: overdue), 0: none. */
static u64 mrc_res_in(u64 at, u64 now)
{
	return at ? at - now : 0;
}

/* A path's few numbers: state, route, traffic. */
static int mrc_res_path_row(struct sk_buff *msg, const struct mrc_xp *xp,
			    const struct mrc_path *p)
{
	static const char * const names[] = {
		"state", "sport", "plane", "sent", "acked", "lost", "srtt_us",
		"cwnd", "reentropies", "repaths", "ack_sport",
	};
	const struct mrc_path_tx *tx = &p->tx;
	const u64 v[] = {
		p->state, p->sport, mrc_hello_plane_of(&xp->hello, p->id),
		tx->sent_pkts, tx->acked_pkts, mrc_path_tx_lost(tx),
		div_u64(tx->srtt_ns, 1000), p->cc.cwnd, p->reentropies,
		p->repaths, p->rx.peer_sport,
	};

	BUILD_BUG_ON(ARRAY_SIZE(names) != ARRAY_SIZE(v));
	return mrc_res_put_path(msg, p->id, names, v, ARRAY_SIZE(v));
}

/* Paths that carried data the peer acknowledged ([PATH-1]: opened ones too). */
static u32 mrc_res_paths_acked(const struct mrc_conn *c)
{
	u32 i, n = 0;

	for (i = 0; i < c->cfg.npaths; i++)
		n += !!c->path[i].tx.acked_pkts;
	return n;
}

static int mrc_res_summary(struct sk_buff *msg, const struct mrc_xp *xp)
{
	const struct mrc_hello_state *h = &xp->hello;
	const struct mrc_conn *c = &xp->conn;
	const struct mrc_res_val v[] = {
		{ "live", xp->live },
		{ "error", xp->live ? c->error : 0 },
		/* [PKT-94] [PATH-8] the HELLO exchange and the planes' traffic */
		{ "hello_offers", h->stats.offers_sent },
		{ "hello_answered", h->answered },
		{ "planes", mrc_hello_nplanes(h) },
		{ "peer_planes", h->peer_nplanes },
		{ "plane0_tx", xp->plane_tx[0] },
		{ "plane0_rx", xp->plane_rx[0] },
		{ "plane1_tx", xp->plane_tx[1] },
		{ "plane1_rx", xp->plane_rx[1] },
		{ "plane2_tx", xp->plane_tx[2] },
		{ "plane2_rx", xp->plane_rx[2] },
		{ "plane3_tx", xp->plane_tx[3] },
		{ "plane3_rx", xp->plane_rx[3] },
	};
	u32 i;
	int err;

	BUILD_BUG_ON(MRC_PLANES_MAX != 4);
	err = mrc_res_put(msg, v, ARRAY_SIZE(v));
	if (err || !xp->live)
		return err;
	{
		const struct mrc_res_val cv[] = {
			{ "tx_una", c->tx_una },
			{ "tx_nxt", c->tx_nxt },
			{ "msn_una", c->msn_una },
			{ "msn_nxt", c->msn_nxt },
			{ "rq_len", c->rq_tail - c->rq_head },
			{ "paths", c->cfg.npaths },
			{ "paths_acked", mrc_res_paths_acked(c) },
			{ "tx_segs", c->stats.tx_segs },
			{ "tx_resends", c->stats.tx_resends },
			{ "rx_new", c->stats.rx_new },
			{ "rx_dup", c->stats.rx_dup },
			{ "rx_drop", c->stats.rx_drop },
		};

		err = mrc_res_put(msg, cv, ARRAY_SIZE(cv));
	}
	for (i = 0; !err && i < min_t(u32, c->cfg.npaths, MRC_RES_PATHS); i++)
		err = mrc_res_path_row(msg, xp, &c->path[i]);
	return err;
}

/*
 * A path that failed or sent PROBE REQs is what someone reading a stalled
 * or lopsided connection needs, and when the message is short of room the
 * later groups are the ones dropped; so those paths' detail comes first.
 */
static bool mrc_res_troubled(const struct mrc_path *p)
{
	return p->fails || p->probes_sent;
}

/* The @n-th path in detail order, NULL past the last. */
static const struct mrc_path *mrc_res_nth_detail(const struct mrc_conn *c,
						 u32 n)
{
	u32 pass, i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < c->cfg.npaths; i++)
			if (mrc_res_troubled(&c->path[i]) == !pass && !n--)
				return &c->path[i];
	return NULL;
}

/* The groups of detail in order; false when @g is past the last. */
static bool mrc_res_detail(struct sk_buff *msg, const struct mrc_xp *xp,
			   u32 g, u64 now, int *err)
{
	static const char * const pnames[] = {
		"snd_una", "snd_nxt", "inflight", "retries", "rto_in",
		"rcv_cum", "rcv_pending", "rcv_oow", "fails",
		"fail_why", "loss_pm", "mark_pm", "ato_us", "probes",
		"probes_ans", "preqs", "preqs_ans",
	};
	const struct mrc_hello_state *h = &xp->hello;
	const struct mrc_conn *c = &xp->conn;
	const struct mrc_path *p;

	if (g == 0) {
		const struct mrc_res_val v[] = {
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
			{ "hello_answers", h->stats.answers_sent },
			{ "hello_refused", h->stats.refused },
			{ "hello_peer", h->peer_known },
		};

		*err = mrc_res_put(msg, v, ARRAY_SIZE(v));
		return true;
	}
	if (!xp->live)
		return false;
	if (g == 1) {
		const struct mrc_res_val v[] = {
			{ "deadline_in", mrc_res_in(mrc_conn_deadline(c), now) },
			{ "hold_in", mrc_res_in(c->hold_until, now) },
			{ "reply_mode", c->reply_mode },
			{ "peer_msn_ack", c->peer_msn_ack },
			{ "rx_msn_head", c->rx_msn_head },
			{ "msn_ack_sent", c->msn_ack_sent },
			{ "acks_sent", c->stats.acks_sent },
			{ "acks_rcvd", c->stats.acks_rcvd },
			{ "acks_invalid", c->stats.acks_invalid },
			{ "acks_rode", c->stats.acks_rode },
			{ "holds_expired", c->stats.holds_expired },
		};

		*err = mrc_res_put(msg, v, ARRAY_SIZE(v));
		return true;
	}
	g -= 2;
	/* the summary rows of the paths above MRC_RES_PATHS ... */
	if (c->cfg.npaths > MRC_RES_PATHS) {
		if (g < c->cfg.npaths - MRC_RES_PATHS) {
			*err = mrc_res_path_row(msg, xp,
						&c->path[MRC_RES_PATHS + g]);
			return true;
		}
		g -= c->cfg.npaths - MRC_RES_PATHS;
	}
	/* ... then each path's detail, the troubled paths' first */
	p = mrc_res_nth_detail(c, g);
	if (!p)
		return false;
	{
		const struct mrc_path_tx *tx = &p->tx;
		const struct mrc_path_rx *rx = &p->rx;
		const u64 v[] = {
			tx->snd_una, tx->snd_nxt, tx->inflight_pkts,
			tx->retries, mrc_res_in(tx->rto_deadline, now),
			rx->cum, rx->pending, rx->rx_oow, p->fails,
			p->fail_why, p->cc.loss_pm, p->cc.mark_pm,
			div_u64(mrc_path_tx_answer_timeout(tx), 1000),
			tx->pto_fired, tx->pto_answer,
			p->probes_sent, p->probes_answered,
		};

		BUILD_BUG_ON(ARRAY_SIZE(pnames) != ARRAY_SIZE(v));
		*err = mrc_res_put_path(msg, p->id, pnames, v, ARRAY_SIZE(v));
	}
	return true;
}

int mrc_xp_fill_res_qp(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct mrc_qp *qp = to_mrc_qp(ibqp);
	u64 now = ktime_get_ns();
	struct nlattr *table;
	struct mrc_xp *xp;
	u32 g, omitted = 0;
	int err;

	xp = mrc_xp_of(qp);
	if (!xp)
		return 0;
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	spin_lock_bh(&xp->lock);
	err = mrc_res_summary(msg, xp);
	for (g = 0; !err; g++) {
		unsigned char *mark = skb_tail_pointer(msg);
		int gerr = 0;

		if (!mrc_res_detail(msg, xp, g, now, &gerr))
			break;
		/* room is kept for detail_omitted after every group */
		if (gerr || skb_tailroom(msg) < MRC_RES_ROOM) {
			nlmsg_trim(msg, mark);
			omitted++;
		}
	}
	spin_unlock_bh(&xp->lock);
	if (!err && omitted)
		err = rdma_nl_put_driver_u64(msg, "detail_omitted", omitted) ?
		      -EMSGSIZE : 0;
	if (err) {
		nla_nest_cancel(msg, table);
		return err;
	}
	nla_nest_end(msg, table);
	return 0;
}
