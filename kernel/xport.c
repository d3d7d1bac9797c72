// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The transport's life per RC QP: created with the QP, connected when
 * modify_qp reaches RTR (the core's connection from the QP attributes),
 * driven by one work item and one hrtimer, torn down with the QP.
 * Contexts and locking: see xport.h.
 */

#include <linux/module.h>
#include <linux/random.h>

#include "ack.h"
#include "linger.h"
#include "metaroce.h"
#include "net.h"
#include "plane.h"
#include "counter.h"
#include "stats.h"
#include "xport.h"

/* Floors for software endpoints; see mrc_xp_connect_locked(). */
#define MRC_XP_ACK_DELAY_NS	(4 * NSEC_PER_MSEC)
#define MRC_XP_REQ_SPACING	8

/*
 * The timers' floors ([REL-10]): the defaults suit software endpoints on
 * a loaded or emulated host, whose RTT swings by milliseconds; an
 * endpoint on a quiet host and a microsecond fabric may lower them (the
 * RTO keeps at least 4 ACK delays: see mrc_xp_connect_locked()).
 */
static uint rto_min_us = 20000;
module_param(rto_min_us, uint, 0644);
MODULE_PARM_DESC(rto_min_us,
		 "retransmission timeout floor, us (at least 16000: 4 ACK delays); for new connections");

static uint rto_init_us = 100000;
module_param(rto_init_us, uint, 0644);
MODULE_PARM_DESC(rto_init_us,
		 "retransmission timeout before a path's first RTT sample, us (at least rto_min_us); for new connections");

static uint fail_lost = 8;
module_param(fail_lost, uint, 0644);
MODULE_PARM_DESC(fail_lost,
		 "a path that lost this many packets without an ACK of its own while others deliver fails and moves to a new port ([PATH-5]); 0: only timeouts fail it; for new connections");

static uint repath_rounds = 4;
module_param(repath_rounds, uint, 0644);
MODULE_PARM_DESC(repath_rounds,
		 "rounds a path delivers far less than its siblings (or the connection less than the receiver's hint) before it moves to a new port ([PATH-10]); 0: never; for new connections");

static uint delay_target_us = 30000;
module_param(delay_target_us, uint, 0644);
MODULE_PARM_DESC(delay_target_us,
		 "queueing delay above the path's base RTT read as congestion ([CC-6]), us, for new connections");

/*
 * Off by default: at the 30 ms floor the drains ([CC-6a]) cost the bed 2-4%
 * of lossless bandwidth and no connection starved without them; with a
 * lower delay_target_us, or on a host whose delay drifts with its load,
 * 32 keeps the base where the host's delay is.
 */
static uint base_epoch_rounds;
module_param(base_epoch_rounds, uint, 0644);
MODULE_PARM_DESC(base_epoch_rounds,
		 "rounds of a [CC-6] base epoch: the base RTT is the least of the last two; 0: of all time; for new connections");

static bool rack = true;
module_param(rack, bool, 0644);
MODULE_PARM_DESC(rack,
		 "declare a packet lost when later ones of any path arrived ([REL-22]); for new connections");

static bool ack_resends = true;
module_param(ack_resends, bool, 0644);
MODULE_PARM_DESC(ack_resends,
		 "a resend asks for an ACK at once ([REL-14]); for new connections");

/*
 * Off by default: the copies cost a lossless connection bandwidth and
 * queueing (the simulated 8-plane ring lost 6% at 128) for a lossy one's
 * tails ([REL-25]; selftests/results/scale.md); a fabric that drops
 * should measure its own trade.
 */
static uint tail_dup;
module_param(tail_dup, uint, 0644);
MODULE_PARM_DESC(tail_dup,
		 "segments an idle sender copies once from its unacknowledged tail ([REL-25]); 0: none; for new connections");

/*
 * Off by default: with the default four paths a faster connection window
 * only queued more on the links it shares with others (the simulated
 * bench-multipath cell c fell from 0.79 of its target to 0.71); a fabric
 * whose connections spread over many paths turns it on ([CC-5]).
 */
static bool conn_ai_paths;
module_param(conn_ai_paths, bool, 0644);
MODULE_PARM_DESC(conn_ai_paths,
		 "the connection window grows a segment a round per path acked, not one ([CC-5]); for new connections");

/*
 * Off by default: it keeps a dark plane's stream going (bench planes, cell
 * ph), but a receiver that stalls for a while (the simulated TCG swings
 * beside a competing flow) drew copies that cost that cell 0.08 of its
 * goodput and three times the path moves ([REL-26]). No copy goes while
 * the route that answered last has packets out too, which took most of
 * that back; the planes bench has yet to show the dark plane's gain kept.
 */
static bool stall_copy;
module_param(stall_copy, bool, 0644);
MODULE_PARM_DESC(stall_copy,
		 "a window full of packets nothing has acknowledged for two round trips sends its oldest again on the route that answered last ([REL-26]); for new connections");

static bool answer_probe = true;
module_param(answer_probe, bool, 0644);
MODULE_PARM_DESC(answer_probe,
		 "probe a request whose answer is overdue ([REL-10] answer timeout); for new connections");

/*
 * In the bed a guest's application replies 100-200 us after the request's
 * arrival; 500 us covers that with room and costs a one-way sender that
 * waits for its completion at most that much once per switch of mode.
 */
static uint reply_hold_us = 500;
module_param(reply_hold_us, uint, 0644);
MODULE_PARM_DESC(reply_hold_us,
		 "how long the answer to an ACK_REQ waits for the application's reply to carry it, once it has been replying ([REL-24]), us; 0: answer at once; for new connections");

static uint keep_home = 2;
module_param(keep_home, uint, 0644);
MODULE_PARM_DESC(keep_home,
		 "of a connection's backlog above one BDP, put 1/keep_home in flight and keep the rest unsent ([CC-13]); 0, 1: no cap; for new connections");

static uint keep_home_resp = 3;
module_param(keep_home_resp, uint, 0644);
MODULE_PARM_DESC(keep_home_resp,
		 "keep_home for a backlog of mostly READ and ATOMIC responses ([CC-13]); for new connections");

static bool probe_reqs = true;
module_param(probe_reqs, bool, 0644);
MODULE_PARM_DESC(probe_reqs,
		 "prove a failed path's new route with PROBE REQs while other paths carry the data, rather than with data ([PATH-4]); for new connections");

static uint npaths = 4;
module_param(npaths, uint, 0444);
MODULE_PARM_DESC(npaths,
		 "paths (UDP source ports) this end sends a connection on, 1-32; more than 8 once the peer's HELLO says it takes them ([PATH-1])");

static uint ack_every = 32;
module_param(ack_every, uint, 0644);
MODULE_PARM_DESC(ack_every, "data packets per path per ACK at most, >= 1");

/*
 * [ENC-25] payload per packet, above the IB path MTU where the netdev MTU
 * allows: per-packet costs dominate a software endpoint (4096 -> 8192
 * with 9000-byte frames halves the packet rate).
 */
static unsigned int max_payload = 0xffff;
module_param(max_payload, uint, 0644);
MODULE_PARM_DESC(max_payload,
		 "payload bytes per packet at most, rounded down to whole segments; the netdev MTU bounds it too (0: one segment)");

static bool hello = true;
module_param(hello, bool, 0644);
MODULE_PARM_DESC(hello,
		 "negotiate in band: HELLO at RTS, answer the peer's, use the planes both ends have ([PKT-92], [PATH-8]); off: behave as an end that predates HELLO; for new connections");

static ushort dscp_ctrl = MRC_WIRE_DSCP_CTRL;
module_param(dscp_ctrl, ushort, 0644);
MODULE_PARM_DESC(dscp_ctrl,
		 "DSCP of ACKs, NAKs, PROBEs and HELLOs (0-63, [ENC-15]); data takes the traffic class of the QP's address (rdma_cm TOS), else 26; for new connections");

/* Timers due, packets to send, ACKs due, completions: one engine run. */
static void mrc_xp_run(struct mrc_xp *xp, u32 budget)
{
	struct sk_buff_head out;
	u64 now;

	__skb_queue_head_init(&out);
	spin_lock_bh(&xp->lock);
	if (xp->dead || !xp->live)
		goto unlock;
	now = ktime_get_ns();
	if (xp->timer_at && xp->timer_at <= now)
		xp->timer_at = 0;
	/* [PKT-94] our OFFER, until answered */
	if (mrc_hello_offer_due(&xp->hello, now) &&
	    !mrc_xp_hello_send(xp, MRC_HELLO_OFFER, mrc_ack_bundle_flag(), &out))
		mrc_xp_stat_inc(xp, MRC_STAT_HELLOS_SENT);
	if (mrc_conn_deadline(&xp->conn) <= now) {
		u64 expired = xp->conn.stats.holds_expired;
		struct mrc_xp_paths_was was;

		mrc_xp_paths_note(xp, &was);
		mrc_conn_on_timer(&xp->conn, now);
		if (xp->conn.stats.holds_expired != expired)
			mrc_xp_stat_inc(xp, MRC_STAT_ACK_HOLDS_EXPIRED);
		mrc_xp_count_paths(xp, &was);
	}
	mrc_tx_run(xp, now, budget, &out);
	if (mrc_rx_complete(xp))	/* responses, answered requests */
		mrc_tx_run(xp, now, budget, &out);
	mrc_ack_send(xp, now, &out);
	mrc_xp_arm_timer(xp);
unlock:
	mrc_xp_unlock_xmit(xp, &out);
}

/*
 * In softirq (a soft hrtimer), as TCP's timers: a delayed ACK, a probe or
 * a retransmission must not wait for a work item that a busy-polling
 * process on the same CPU keeps off it for a scheduler slice.
 */
static enum hrtimer_restart mrc_xp_timer_fn(struct hrtimer *t)
{
	mrc_xp_run(container_of(t, struct mrc_xp, timer), MRC_XP_TX_BUDGET);
	return HRTIMER_NORESTART;
}

static void mrc_xp_work(struct work_struct *w)
{
	mrc_xp_run(container_of(w, struct mrc_xp, work), MRC_XP_TX_BUDGET);
}

/* [PKT-94] no hello yet: one plane, nothing known of the peer. */
static void mrc_xp_hello_reset(struct mrc_xp *xp)
{
	struct mrc_hello_local none = { .nplanes = 1 };

	mrc_hello_init(&xp->hello, &none);
	memset(xp->plane_id, 0, sizeof(xp->plane_id));
	memset(xp->ack_plane, 0, sizeof(xp->ack_plane));
}

/*
 * [PKT-92] At RTS, our cookie final: what our HELLO says, the planes the
 * device has now included, and the first OFFER due.
 */
static void mrc_xp_hello_begin(struct mrc_xp *xp, u64 now)
{
	struct mrc_hello_local l = { };
	struct mrc_hello *r = &l.rec;

	if (!xp->hello_on || xp->hello.started)
		return;
	r->min_ver = MRC_WIRE_VERSION;
	r->max_ver = MRC_WIRE_VERSION;
	r->max_paths = MRC_MAX_PATHS;	/* [PATH-1] we take every path id */
	r->seg_shift = clamp_t(u32, ilog2(xp->conn.cfg.mss),
			       MRC_HELLO_SEG_SHIFT_MIN, MRC_HELLO_SEG_SHIFT_MAX);
	r->caps = MRC_CAP_ATOMIC | MRC_CAP_RATE_HINT | MRC_CAP_MULTIPLANE;
	if (mrc_ack_bundle_flag())
		r->caps |= MRC_CAP_BUNDLES;
	r->cookie = xp->rx_cookie;
	r->udp_port = mrc_net_port(xp->net);
	r->max_streams = 1;
	mrc_planes_snapshot(xp->dev, (const struct sockaddr *)&xp->av->saddr,
			    &l, xp->plane_id);
	mrc_hello_init(&xp->hello, &l);
	mrc_hello_start(&xp->hello, now);
}

static int mrc_xp_create(struct mrc_qp *qp)
{
	struct net_device *ndev = mrc_dev_netdev(qp->ibqp.device);
	struct mrc_xp *xp;
	struct mrc_net *n;
	u32 want;

	if (!mrc_qp_type_connected(qp->ibqp.qp_type))
		return 0;
	/*
	 * A connection sends on at most npaths paths, read here: rings for
	 * those only (3 KiB each), not for every path id, halve an RC QP's
	 * memory at the default 4 (85 KiB; 170 KiB at 32).
	 */
	want = clamp_t(u32, READ_ONCE(npaths), 1, MRC_MAX_PATHS);
	xp = kvzalloc(struct_size(xp, rings, want), GFP_KERNEL);
	if (!xp)
		return -ENOMEM;
	xp->want_paths = want;
	n = mrc_net_get(dev_net(ndev));
	if (IS_ERR(n)) {
		kvfree(xp);
		return PTR_ERR(n);
	}
	xp->net = n;
	xp->qp = qp;
	xp->dev = to_mrc_dev(qp->ibqp.device);
	xp->ndev = ndev;
	xp->av = &qp->attr.av;
	xp->qpn = qp->ibqp.qp_num;
	xp->dscp_data = MRC_WIRE_DSCP_DATA;
	xp->dscp_ctrl = min_t(u8, READ_ONCE(dscp_ctrl), 63);
	mrc_xp_hello_reset(xp);
	spin_lock_init(&xp->lock);
	spin_lock_init(&xp->xmit_lock);
	INIT_WORK(&xp->work, mrc_xp_work);
	hrtimer_init(&xp->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	xp->timer.function = mrc_xp_timer_fn;
	qp->xport = xp;
	return 0;
}

/* Forget every WQE: the verbs layer dropped them (RESET) without CQEs. */
static void mrc_xp_reset_locked(struct mrc_xp *xp)
{
	mrc_xp_hello_reset(xp);
	xp->live = false;
	xp->flushed = false;
	xp->peer_bundles = false;
	xp->refused_code = 0;
	xp->sq_head = 0;
	xp->sq_post = 0;
	xp->sq_take = 0;
	xp->tx_rsn = 0;
	/* READs dropped unanswered must not hold [OPS-4]'s room for good */
	xp->rd_posted = 0;
	xp->rd_retired = 0;
	xp->resp_head = 0;
	xp->resp_post = 0;
	xp->resp_tail = 0;
	xp->rsn_head = 0;
	xp->rsn_take = 0;
	memset(xp->rwqe, 0, sizeof(xp->rwqe));
	memset(xp->rmsg, 0, sizeof(xp->rmsg));
}

/*
 * [REL-12] counts RTOs against retry_cnt; IB gives each of those retries
 * the local ACK timeout (4.096 us * 2^timeout). Make that the RTO's floor
 * (and never below its cap), so a peer the consumer allows that long is
 * not failed after retry_cnt RTOs of a few milliseconds each, which a
 * loaded host's RTT swings alone set off. Fast recovery is unaffected:
 * gaps and the PTO resend earlier and do not count. 0 is "infinite" in
 * IB; the transport then keeps its own floor.
 */
static void mrc_xp_set_timeout(struct mrc_xp *xp, u8 timeout)
{
	struct mrc_path_cfg *pc = &xp->conn.cfg.path;
	u64 t = 4096ULL << min_t(u8, timeout, 31);
	u32 i;

	if (!timeout)
		return;
	pc->rto_min_ns = max(pc->rto_min_ns, t);
	pc->rto_max_ns = max(pc->rto_max_ns, pc->rto_min_ns);
	pc->rto_init_ns = max(pc->rto_init_ns, pc->rto_min_ns);
	for (i = 0; i < xp->conn.cfg.npaths; i++) {
		struct mrc_path_tx *tx = &xp->conn.path[i].tx;

		tx->rto_ns = max(tx->rto_ns, pc->rto_min_ns);
	}
}

/*
 * [ENC-25] the largest packet payload our netdev carries, also what our
 * ACKs tell the peer we accept (rx_max). A peer's MTU bounds its own, so
 * asymmetric MTUs are safe; a smaller MTU inside the fabric is not
 * detected (as for any jumbo frame), hence max_payload.
 */
static u32 mrc_xp_pkt_room(struct mrc_xp *xp)
{
	u32 mtu = READ_ONCE(xp->ndev->mtu);
	u32 room = mtu > MRC_ENCAP_OVERHEAD ? mtu - MRC_ENCAP_OVERHEAD : 0;

	return min3(room, READ_ONCE(max_payload), 0xffffU);
}

static bool mrc_xp_connect_locked(struct mrc_xp *xp, u64 now)
{
	const struct mrc_qp_attrs *a = &xp->qp->attr;
	struct mrc_conn_cfg cfg;
	u32 mss = ib_mtu_enum_to_int(a->path_mtu);

	/*
	 * The IB path MTU is what both ends were given, so it is the one
	 * segment size they agree on without a handshake ([REL-15]); the
	 * port MTU already left room for every header.
	 */
	/*
	 * [ENC-15] data takes the class the application asked for (the
	 * address's traffic class: rdma_cm's TOS, NCCL_IB_TC); its two ECN
	 * bits are ours to set.
	 */
	xp->dscp_data = a->av.traffic_class >> 2 ? : MRC_WIRE_DSCP_DATA;
	/* [PATH-1] more than a silent peer takes only once its HELLO says so */
	mrc_conn_cfg_default(&cfg, min_t(u32, xp->want_paths,
					 MRC_PATHS_UNANNOUNCED), mss);
	cfg.pkt_max = max(mrc_xp_pkt_room(xp) / mss, 1U) * mss;
	/* exactly, not in segments: a bundle may fill it ([ENC-13]) */
	cfg.rx_max = max(mrc_xp_pkt_room(xp), cfg.pkt_max);
	/*
	 * A responder may answer READs and ATOMICs before it reaches RTS,
	 * or without ever doing so (perftest's server): until sq_psn is
	 * known its responses start at rq_psn, the one PSN both ends know
	 * at RTR, and the requester follows (mrc_rx_follow_peer()).
	 */
	xp->tx_cookie = a->sq_psn ? a->sq_psn : a->rq_psn;
	xp->rx_cookie = a->rq_psn;
	cfg.tx_isn = xp->tx_cookie;
	cfg.rx_isn = xp->rx_cookie;
	/*
	 * retry_cnt comes with RTS (mrc_xp_modified()); until then, and for
	 * a responder that stays in RTR, its responses need the core's
	 * default, not 0 (which fails at the first timeout).
	 */
	if (a->retry_cnt)
		cfg.retry_limit = a->retry_cnt;
	/*
	 * A software endpoint is scheduled, not clocked: a peer that waits
	 * a few milliseconds for a CPU is not a lost packet.
	 */
	cfg.path.rto_min_ns = max3((u64)cfg.path.rto_min_ns,
				   (u64)READ_ONCE(rto_min_us) * NSEC_PER_USEC,
				   4ULL * MRC_XP_ACK_DELAY_NS);
	/*
	 * Before its first RTT sample a path knows nothing: a first RTO as
	 * short as the floor fired before the first ACK of a busy-polling
	 * peer arrived, and resent the whole first window (RFC 6298 starts
	 * at 1 s).
	 */
	cfg.path.rto_init_ns = max3((u64)cfg.path.rto_init_ns,
				    (u64)READ_ONCE(rto_init_us) * NSEC_PER_USEC,
				    cfg.path.rto_min_ns);
	cfg.sched.fail_lost = READ_ONCE(fail_lost);
	cfg.sched.repath_rounds = READ_ONCE(repath_rounds);
	/*
	 * [CC-6] reads a round's least RTT above the base as a standing
	 * queue. A software endpoint's RTT swings by milliseconds with
	 * scheduling alone, and a guest the host stops for longer than a
	 * short round inflates all of that round: in the bed 5 ms kept
	 * ib_write_bw's srtt at 4.4 ms over a 2-3 ms base, but now and then
	 * collapsed a window (runs at 5-13 MiB/s); 30 ms let a 25 ms queue
	 * stand, and each hole in a message held the messages after it
	 * that long. 10 ms suited 8 s runs on a quiet host, but on a slower
	 * one a connection's whole life sat near it (srtt 9-10 ms at any
	 * window, the host's delay, not a queue): rounds kept reading as
	 * marked and a 48 s ib_write_bw decayed from 27 to 10 MiB/s, where
	 * 30 ms held 17-44 and 100 ms 25-47 in alternating runs. A slower
	 * loss recovery costs less than a starved connection.
	 */
	cfg.cc.delay_target_ns = max_t(u64, cfg.cc.delay_target_ns,
				       (u64)READ_ONCE(delay_target_us) *
				       NSEC_PER_USEC);
	cfg.cc.base_epoch_rounds = READ_ONCE(base_epoch_rounds);
	cfg.cc.keep_home = READ_ONCE(keep_home);
	cfg.cc.keep_home_resp = READ_ONCE(keep_home_resp);
	cfg.cc.conn_ai_paths = READ_ONCE(conn_ai_paths);
	cfg.rack = READ_ONCE(rack);
	cfg.ack_resends = READ_ONCE(ack_resends);
	cfg.answer_probe = READ_ONCE(answer_probe);
	cfg.tail_dup = min_t(u32, READ_ONCE(tail_dup), MRC_TX_SEGS);
	cfg.stall_copy = READ_ONCE(stall_copy);
	cfg.reply_hold_ns = (u64)READ_ONCE(reply_hold_us) * NSEC_PER_USEC;
	/*
	 * A hold ends on a scheduler tick (the tick's hrtimer expires on
	 * multiples of TICK_NSEC): a timer that expires with the tick costs
	 * no reprogramming of the CPU's timer, where one that ends a hold
	 * exactly moved it twice per round trip of a ping-pong (armed before
	 * the tick, then moved past it when the reply took the answer). In a
	 * guest each move is a write to the emulated local APIC; 2.2 per
	 * ib_write_lat round trip against rdma_rxe's 0.3 in the bed. The
	 * answer of a reply that does not come then leaves up to a tick
	 * later, once per switch of mode, still well inside the peer's RTO;
	 * the core rounds only in an established ping-pong.
	 */
	cfg.reply_hold_grain_ns = TICK_NSEC;
	/*
	 * Each ACK costs a software endpoint as much as a data packet, and
	 * a timer-driven one also a work item wakeup. The sender asks for
	 * an ACK wherever it would otherwise wait ([REL-14]) and a whole
	 * message is acknowledged at once ([REL-13]), so the coalescing
	 * delay only bounds how stale a mid-stream ACK may get.
	 */
	cfg.path.ack_delay_ns = max_t(u64, cfg.path.ack_delay_ns,
				      MRC_XP_ACK_DELAY_NS);
	/*
	 * For the same reason, a stream is acknowledged every 32 packets
	 * per path, not 8: in the bed, ib_write_bw 1 MiB went from 10-12 to
	 * 13-15 MiB/s, its sender freed of 3 in 4 ACK receptions.
	 */
	cfg.path.ack_every = max_t(u32, READ_ONCE(ack_every), 1);
	/*
	 * ... but an ACK held as long as the peer's RTO turns every held
	 * ACK into a timeout: a streaming responder (128 READs of 64 B)
	 * failed with "retry exceeded" while its ACKs were on their way:
	 * the RTO floor above keeps 4 of them.
	 */
	cfg.path.req_spacing = MRC_XP_REQ_SPACING;
	mrc_xp_burst(&cfg);
	cfg.seed = get_random_u64();
	xp->dest_qpn = a->dest_qp_num;
	xp->hello_on = READ_ONCE(hello);
	cfg.probe_reqs = READ_ONCE(probe_reqs);
	if (!mrc_conn_init(&xp->conn, &cfg, xp->rings, xp->want_paths, now))
		return false;
	mrc_xp_set_timeout(xp, a->timeout);
	xp->live = true;
	return true;
}

static void mrc_xp_modified(struct mrc_qp *qp, int mask, enum ib_qp_state old)
{
	struct mrc_xp *xp = mrc_xp_of(qp);
	enum ib_qp_state state = mrc_qp_state(qp);
	u64 now = ktime_get_ns();
	u32 i;

	if (!xp)
		return;
	if (mask & IB_QP_AV) {
		spin_lock_bh(&xp->xmit_lock);
		for (i = 0; i < MRC_PLANES_MAX; i++)
			mrc_net_routes_reset(&xp->routes[i]);
		spin_unlock_bh(&xp->xmit_lock);
	}
	spin_lock_bh(&xp->lock);
	switch (state) {
	case IB_QPS_RESET:
		mrc_xp_reset_locked(xp);
		break;
	case IB_QPS_RTR:
		if (!xp->live && !mrc_xp_connect_locked(xp, now))
			pr_warn_ratelimited("metaroce: QP %u: bad connection attributes\n",
					    qp->ibqp.qp_num);
		break;
	case IB_QPS_RTS:
		/* sq_psn arrives with RTS; if nothing was sent before it */
		if (!xp->live || old != IB_QPS_RTR || xp->conn.stats.tx_segs)
			break;
		xp->tx_cookie = qp->attr.sq_psn;
		/* and paths opened later ([PATH-1]) start there too */
		mrc_conn_restart_tx(&xp->conn, xp->tx_cookie);
		break;
	default:
		break;
	}
	if (state == IB_QPS_RTS && xp->live)
		mrc_xp_hello_begin(xp, now);
	/* retry_cnt usually comes with RTS, after the connection was set up */
	if (xp->live && (mask & IB_QP_RETRY_CNT))
		xp->conn.cfg.retry_limit = qp->attr.retry_cnt;
	if (xp->live && (mask & IB_QP_TIMEOUT))
		mrc_xp_set_timeout(xp, qp->attr.timeout);
	spin_unlock_bh(&xp->lock);
	mrc_xp_kick(xp);
}

static void mrc_xp_send_posted(struct mrc_qp *qp)
{
	struct mrc_xp *xp = mrc_xp_of(qp);
	struct sk_buff_head out;

	if (!xp)
		return;
	/*
	 * Send the first packets in the poster's context, saving a work
	 * item wakeup per post (latency). Not from hard irq or with irqs
	 * off, and only with trylock: a completion handler that posts runs
	 * under xp->lock already.
	 */
	if (in_hardirq() || irqs_disabled() || !spin_trylock_bh(&xp->lock)) {
		mrc_xp_kick(xp);
		return;
	}
	__skb_queue_head_init(&out);
	if (xp->live && !xp->dead) {
		u64 now = ktime_get_ns();

		mrc_tx_run(xp, now, MRC_XP_RX_TX_BUDGET, &out);
		/* [REL-24] an answer held for this reply goes with it */
		mrc_ack_send(xp, now, &out);
		mrc_xp_arm_timer(xp);
	}
	mrc_xp_unlock_xmit(xp, &out);
}

static void mrc_xp_destroy(struct mrc_qp *qp)
{
	struct mrc_xp *xp = mrc_xp_of(qp);
	struct sk_buff_head out;

	if (!xp)
		return;
	__skb_queue_head_init(&out);
	spin_lock_bh(&xp->lock);
	/*
	 * [REL-23] the ACKs a receive batch left due, and [REL-24] an answer
	 * held for a reply that will not come now, go before the QP
	 */
	if (xp->live) {
		mrc_conn_ack_release(&xp->conn);
		mrc_ack_send(xp, ktime_get_ns(), &out);
	}
	/*
	 * [REL-21] a healthy connection that received data answers on,
	 * but only from release: see mrc_xp_release()
	 */
	xp->linger_due = xp->live && mrc_conn_may_linger(&xp->conn);
	xp->dead = true;
	xp->live = false;
	mrc_xp_unlock_xmit(xp, &out);
	/* nothing re-arms or re-queues once dead is seen under the lock */
	hrtimer_cancel(&xp->timer);
	cancel_work_sync(&xp->work);
}

/*
 * Every QP reference is gone (a receive in flight, a queued ACK flush):
 * nobody reaches the transport through the QP any more, so only now may
 * it become the device's, whose reaper frees it at any time (linger.c).
 */
static void mrc_xp_release(struct mrc_qp *qp)
{
	struct mrc_xp *xp = mrc_xp_of(qp);

	if (!xp)
		return;
	qp->xport = NULL;
	if (xp->linger_due)
		mrc_linger_start(xp);
	else
		mrc_xp_free(xp);
}

const struct mrc_qp_hooks mrc_xp_hooks = {
	.create = mrc_xp_create,
	.modified = mrc_xp_modified,
	.send_posted = mrc_xp_send_posted,
	.destroy = mrc_xp_destroy,
	.release = mrc_xp_release,
};
