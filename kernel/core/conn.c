// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connection bookkeeping: streams, messages, segments, completions; the
 * glue between the per-path machines, congestion control and the
 * scheduler. Rules cited as [REL-n] are in
 * Documentation/protocol/reliability.rst.
 */
#include "conn.h"

enum { TXM_FREE = 0, TXM_POSTED, TXM_DONE, TXM_RETIRED };
enum { RXM_FREE = 0, RXM_ACTIVE, RXM_DONE, RXM_RETIRED };

#define SEG_USED	0x1
#define SEG_ACKED	0x2
#define SEG_QUEUED	0x4
#define SEG_PROBED	0x8	/* [PATH-4] it probed a new route once */
#define SEG_DUPED	0x10	/* [REL-25] sent twice as part of a tail */

/* Ask for an ACK when the path has fewer free PSNs than this. */
#define ACK_REQ_ROOM	16

/*
 * [REL-24] A held answer waits this many times the usual reply time (at
 * least cfg.reply_hold_min_ns, at most cfg.reply_hold_ns): room for a
 * reply that is late now and then, where a miss ends the mode for a while.
 */
#define REPLY_HOLD_MULT		4

/*
 * [REL-24] Holds end on cfg.reply_hold_grain_ns once this many answers
 * in a row rode: an established ping-pong, where the rounding saves timer
 * moves on every round trip. The first holds of a mode end exactly, so
 * an exchange of a message or two (a handshake) does not wait a grain
 * for the answer its last message gets alone.
 */
#define REPLY_GRAIN_AFTER	8

MRC_STATIC_ASSERT((MRC_CONN_MSGS & (MRC_CONN_MSGS - 1)) == 0, "power of 2");
MRC_STATIC_ASSERT((MRC_TX_SEGS & (MRC_TX_SEGS - 1)) == 0, "power of 2");
MRC_STATIC_ASSERT(MRC_CONN_MSGS <= 64, "stream_q.known is one u64");
MRC_STATIC_ASSERT(MRC_MSG_SEG_WND >= MRC_TX_SEGS, "[REL-16]");
MRC_STATIC_ASSERT(MRC_MAX_PATHS <= 32, "path bitmasks are u32");

void mrc_conn_cfg_default(struct mrc_conn_cfg *cfg, u32 npaths, u32 mss)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->npaths = npaths;
	cfg->nstreams = 1;
	cfg->mss = mss;
	cfg->pkt_max = mss;
	cfg->retry_limit = 7;
	cfg->rack = true;
	cfg->ack_resends = true;
	cfg->answer_probe = true;
	cfg->reply_hold_ns = 0;
	cfg->reply_hold_min_ns = 10000;
	cfg->seed = 1;
	mrc_path_cfg_default(&cfg->path);
	mrc_cc_cfg_default(&cfg->cc, mss);
	mrc_sched_cfg_default(&cfg->sched);
}

static void path_open(struct mrc_conn *c, u32 i, u64 now)
{
	struct mrc_path *p = &c->path[i];

	p->id = (u8)i;
	mrc_path_tx_init(&p->tx, &c->cfg.path, c->cfg.tx_isn, &c->rings[i]);
	mrc_cc_path_init(&p->cc, &c->cfg.cc, now);
	p->sport = mrc_sched_new_sport(&c->sched, &c->cfg.sched, c->path, i);
	/* [PATH-2] connection setup (or the peer's HELLO) proved it reachable */
	p->state = MRC_PATH_ACTIVE;
	p->state_since = now;
	p->vtime = c->sched.vnow;
}

bool mrc_conn_init(struct mrc_conn *c, const struct mrc_conn_cfg *cfg,
		   struct mrc_path_ring *rings, u32 nrings, u64 now)
{
	u32 i;

	if (!rings || nrings < cfg->npaths ||
	    !cfg->npaths || cfg->npaths > MRC_MAX_PATHS || !cfg->nstreams ||
	    cfg->nstreams > MRC_MAX_STREAMS || cfg->mss < 64 ||
	    cfg->mss > 0xffff || cfg->cc.min_cwnd < cfg->mss ||
	    cfg->pkt_max < cfg->mss || cfg->pkt_max > 0xffff ||
	    cfg->pkt_max % cfg->mss || cfg->rx_max > 0xffff ||
	    cfg->sched.sport_min > cfg->sched.sport_max ||
	    cfg->tail_dup > MRC_TX_SEGS)
		return false;

	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->rings = rings;
	c->nrings = mrc_min_u32(nrings, MRC_MAX_PATHS);
	mrc_cc_conn_init(&c->cc, &cfg->cc, now);
	c->cc.npaths = cfg->npaths;
	mrc_sched_init(&c->sched, cfg->seed, &cfg->sched);
	c->sched.probe_reqs = cfg->probe_reqs;
	/*
	 * [PATH-1] each side picks its own number of paths: the peer's may
	 * exceed ours, and its packets are taken on every path id there is.
	 */
	for (i = 0; i < MRC_MAX_PATHS; i++)
		mrc_path_rx_init(&c->path[i].rx, cfg->rx_isn);
	c->rx_npaths = cfg->npaths;
	for (i = 0; i < cfg->npaths; i++)
		path_open(c, i, now);
	c->rack_mult = 1;
	c->msn_una = cfg->tx_msn;
	c->msn_nxt = cfg->tx_msn;
	c->peer_msn_ack = cfg->tx_msn;
	/* [REL-15] one segment per packet until the peer says it takes more */
	c->tx_pkt = cfg->mss;
	c->rx_msn_head = cfg->rx_msn;
	c->msn_ack_sent = cfg->rx_msn;
	return true;
}

void mrc_conn_restart_tx(struct mrc_conn *c, u32 isn)
{
	u32 i;

	c->cfg.tx_isn = isn;
	for (i = 0; i < c->cfg.npaths; i++)
		mrc_path_tx_init(&c->path[i].tx, &c->cfg.path, isn,
				 &c->rings[i]);
}

void mrc_conn_rx_probe_route(struct mrc_conn *c, u32 path_id, u16 sport)
{
	if (path_id < MRC_MAX_PATHS && sport)
		c->path[path_id].rx.peer_sport = sport;
}

bool mrc_conn_probe_next(struct mrc_conn *c, u64 now, struct mrc_probe_req *req)
{
	u32 i;

	if (!c->cfg.probe_reqs || c->error ||
	    !mrc_sched_path_in_use(c->path, c->cfg.npaths))
		return false;
	for (i = 0; i < c->cfg.npaths; i++) {
		struct mrc_path *p = &c->path[i];

		/* one REQ at a time, and none beside a data probe */
		if (!mrc_sched_probe_by_req(&c->sched, p) || p->probe_out ||
		    p->tx.inflight_pkts)
			continue;
		p->probe_out = true;
		p->probe_seq++;
		/* as long as a data probe would have been given */
		p->probe_due = now + p->tx.rto_ns;
		p->probes_sent++;
		req->path_id = p->id;
		req->sport = p->sport;
		req->seq = p->probe_seq;
		return true;
	}
	return false;
}

bool mrc_conn_on_probe_resp(struct mrc_conn *c, u64 now, u32 path_id,
			    u32 seq, u32 tsecr)
{
	struct mrc_path *p;
	u32 r;

	if (path_id >= c->cfg.npaths)
		return false;
	p = &c->path[path_id];
	if (!p->probe_out || seq != p->probe_seq)
		return false;
	r = (u32)now - tsecr;
	if ((s32)r > 0)
		mrc_path_tx_rtt(&p->tx, &c->cfg.path, r);
	mrc_sched_on_probe(p, true, now);
	return true;
}

bool mrc_conn_open_paths(struct mrc_conn *c, u32 npaths, u64 now)
{
	u32 i, j;

	npaths = mrc_min_u32(npaths, c->nrings);
	if (npaths <= c->cfg.npaths)
		return false;
	for (i = c->cfg.npaths; i < npaths; i++) {
		path_open(c, i, now);
		/* [REL-10] the first timed path's round trip, if any */
		for (j = 0; j < c->cfg.npaths; j++)
			mrc_path_tx_borrow_rtt(&c->path[i].tx, &c->cfg.path,
					       &c->path[j].tx, now);
	}
	c->cfg.npaths = npaths;
	c->cc.npaths = npaths;
	c->rx_npaths = mrc_max_u32(c->rx_npaths, npaths);
	return true;
}

static struct mrc_tx_segent *segent(struct mrc_conn *c, u32 t)
{
	return &c->seg[t % MRC_TX_SEGS];
}

static struct mrc_tx_msg *txmsg(struct mrc_conn *c, u32 msn)
{
	return &c->txm[msn % MRC_CONN_MSGS];
}

static struct mrc_rx_msg *rxmsg(struct mrc_conn *c, u32 msn)
{
	return &c->rxm[msn % MRC_CONN_MSGS];
}

u32 mrc_conn_inflight(const struct mrc_conn *c)
{
	u32 i, sum = 0;

	for (i = 0; i < c->cfg.npaths; i++)
		sum += c->path[i].tx.inflight_bytes;
	return sum;
}

/* ---- sender ---- */

bool mrc_conn_tx_post(struct mrc_conn *c, u32 stream, u32 len, u64 cookie,
		      u32 *msn)
{
	struct mrc_stream_q *st;
	struct mrc_tx_msg *m;
	u32 n;

	if (c->error || stream >= c->cfg.nstreams || len > MRC_WIRE_MAX_MSG_LEN ||
	    c->msn_nxt - c->msn_una >= MRC_CONN_MSGS)
		return false;
	st = &c->txs[stream];
	n = c->msn_nxt++;
	m = txmsg(c, n);
	memset(m, 0, sizeof(*m));
	m->cookie = cookie;
	m->len = len;
	m->ssn = st->ssn_tail++;
	m->stream = (u16)stream;
	m->state = TXM_POSTED;
	st->msn_of[m->ssn % MRC_CONN_MSGS] = n;
	c->tx_unsent += len;
	if (msn)
		*msn = n;
	return true;
}

/* Message @msn if it is posted and not yet freed, else NULL. */
static struct mrc_tx_msg *posted_msg(struct mrc_conn *c, u32 msn)
{
	return msn - c->msn_una < c->msn_nxt - c->msn_una ? txmsg(c, msn) :
							     NULL;
}

void mrc_conn_tx_no_end_ack(struct mrc_conn *c, u32 msn)
{
	struct mrc_tx_msg *m = posted_msg(c, msn);

	if (m) {
		m->no_end_ack = true;
		m->awaits_answer = true;
	}
}

void mrc_conn_tx_asked_again(struct mrc_conn *c, u64 now)
{
	u32 i;

	for (i = 0; i < c->cfg.npaths; i++) {
		struct mrc_path_tx *tx = &c->path[i].tx;
		u32 t;

		if (!tx->inflight_pkts)
			continue;
		t = mrc_path_tx_cookie(tx, tx->snd_nxt - 1);
		if (t - c->tx_una < c->tx_nxt - c->tx_una &&
		    txmsg(c, segent(c, t)->msn)->response)
			mrc_path_tx_probe_now(tx, now);
	}
}

void mrc_conn_tx_answered(struct mrc_conn *c, u32 msn, u64 now)
{
	u32 i;

	for (i = 0; i < c->cfg.npaths; i++) {
		struct mrc_path_tx *tx = &c->path[i].tx;
		u32 t = mrc_path_tx_cookie(tx, tx->req_psn);

		if (tx->req_set && t - c->tx_una < c->tx_nxt - c->tx_una &&
		    segent(c, t)->msn == msn)
			mrc_path_tx_answered(tx, &c->cfg.path, now,
					     tx->req_psn);
	}
}

void mrc_conn_tx_response(struct mrc_conn *c, u32 msn)
{
	struct mrc_tx_msg *m = posted_msg(c, msn);

	if (!m)
		return;
	m->no_end_ack = true;
	if (!m->response) {
		m->response = true;
		c->tx_unsent_resp += m->len - m->next_off;
	}
}

void mrc_conn_tx_ask_ack(struct mrc_conn *c)
{
	c->ask_ack = true;
}

u32 mrc_conn_pbundle_room(const struct mrc_conn *c)
{
	/* what we accept is what our MTU carries, either way */
	u32 own = c->cfg.rx_max ? c->cfg.rx_max : c->cfg.pkt_max;

	if (!c->peer_rx_max)
		return 0;
	return mrc_min_u32(mrc_min_u32(own, c->peer_rx_max) +
			   MRC_WIRE_DATA_OVERHEAD, MRC_WIRE_MAX_PKT_LEN);
}

bool mrc_conn_tx_backlog(const struct mrc_conn *c)
{
	u32 s;

	if (c->rq_head != c->rq_tail)
		return true;
	for (s = 0; s < c->cfg.nstreams; s++)
		if (c->txs[s].ssn_send != c->txs[s].ssn_tail)
			return true;
	return false;
}

/*
 * The connection window lets @len more bytes go ([CC-2]); new bytes also
 * leave keep_home's share of the backlog at home ([CC-13]), resends do not.
 * A responder's backlog is refilled only a round trip after the requester
 * completed, where a sender's own posts refill it at once: a backlog of
 * mostly responses keeps keep_home_resp at home.
 */
static bool conn_room(struct mrc_conn *c, u32 len, bool fresh)
{
	u32 inflight = mrc_conn_inflight(c);
	u32 keep = c->cfg.cc.keep_home;

	if (!inflight)
		return true;
	if (inflight + len > mrc_cc_conn_window(&c->cc, &c->cfg.cc))
		return false;
	if (!fresh)
		return true;
	if (c->tx_unsent_resp > c->tx_unsent / 2)
		keep = c->cfg.cc.keep_home_resp;
	return inflight + len <=
	       mrc_cc_conn_home_cap(&c->cc, &c->cfg.cc,
				    (u64)inflight + c->tx_unsent,
				    c->cfg.path.ack_delay_ns, keep);
}

/*
 * After the segment just taken, the sender has more it may send now: a
 * resend, or new bytes of a message the peer's MSN window admits.
 */
static bool more_to_send(const struct mrc_conn *c)
{
	u32 s;

	if (c->rq_head != c->rq_tail)
		return true;
	for (s = 0; s < c->cfg.nstreams; s++) {
		const struct mrc_stream_q *st = &c->txs[s];
		u32 msn;

		if (st->ssn_send == st->ssn_tail)
			continue;
		msn = st->msn_of[st->ssn_send % MRC_CONN_MSGS];
		if ((s32)(msn - c->peer_msn_ack) < MRC_CONN_MSGS)
			return true;
	}
	return false;
}

static void reply_leaves(struct mrc_conn *c, u64 now, u16 flags);

static void emit(struct mrc_conn *c, u64 now, u32 t, int pi, u16 flags,
		 struct mrc_tx_seg *seg)
{
	struct mrc_tx_segent *e = segent(c, t);
	struct mrc_tx_msg *m = txmsg(c, e->msn);
	struct mrc_path *p = &c->path[pi];
	bool idle;

	if (p->state == MRC_PATH_PROBING)
		e->flags |= SEG_PROBED;
	seg->psn = mrc_path_tx_send(&p->tx, &c->cfg.path, now, t, e->len);
	seg->msg_cookie = m->cookie;
	seg->msn = e->msn;
	seg->ssn = m->ssn;
	seg->tsval = (u32)now;
	seg->offset = e->offset;
	seg->len = e->len;
	seg->total_len = m->len;
	seg->stream = m->stream;
	seg->sport = p->sport;
	seg->path_id = p->id;
	if (!e->offset)
		flags |= MRC_F_FIRST;
	if (e->offset + e->len == m->len)
		flags |= MRC_F_LAST;
	/*
	 * [REL-14] ask for an ACK where waiting for one would cost time: the
	 * end of the last message there is to send (a sender that goes on
	 * sending keeps ACKs coming) unless an answer will prove it arrived;
	 * when the caller runs short of what only ACKs give back; the
	 * path's sequence window nearly used; or no room left in the path's
	 * or the connection's congestion window for another full segment
	 * (the sender would stop until an ACK), unless req_spacing says an
	 * earlier request of the path still counts.
	 */
	idle = (flags & MRC_F_LAST) && !more_to_send(c);
	/*
	 * [REL-25] the tail of what an idle sender sent last goes again
	 * while nothing else may: a loss there would cost a round trip
	 */
	if (idle && !(flags & MRC_F_RETX) && c->cfg.tail_dup) {
		c->dup_end = t + 1;
		c->dup_next = t + 1 - mrc_min_u32(c->cfg.tail_dup,
						  t + 1 - c->tx_una);
	}
	if ((idle && !m->no_end_ack) ||
	    ((flags & MRC_F_RETX) && c->cfg.ack_resends) || c->ask_ack ||
	    mrc_path_tx_room(&p->tx) < ACK_REQ_ROOM ||
	    ((mrc_sched_path_room(p) < c->tx_pkt ||
	      !conn_room(c, c->tx_pkt, false)) &&
	     !mrc_path_tx_req_pending(&p->tx, c->cfg.path.req_spacing)))
		flags |= MRC_F_ACK_REQ;
	if (flags & MRC_F_LAST)
		c->ask_ack = false;
	reply_leaves(c, now, flags);
	if (flags & MRC_F_ACK_REQ)
		mrc_path_tx_asked(&p->tx, now, seg->psn,
				  idle && c->cfg.answer_probe);
	else if (idle && m->awaits_answer)
		/*
		 * [REL-10] a request that nothing follows waits for its
		 * response, which mrc_conn_tx_answered() reports: lost, it
		 * is probed after an answer time, not the silence rule's
		 */
		mrc_path_tx_asked(&p->tx, now, seg->psn, c->cfg.answer_probe);
	seg->flags = flags;
	c->stats.tx_segs++;
}

/* [PATH-6] the path for a packet of @len; each path weighs at most 1/N */
static int pick(struct mrc_conn *c, u32 len, bool may_probe, u64 now)
{
	c->sched.weight_cap = mrc_cc_conn_window(&c->cc, &c->cfg.cc) /
			      c->cfg.npaths;
	return mrc_sched_pick(&c->sched, c->path, c->cfg.npaths, len,
			      may_probe, now);
}

static bool tx_resend(struct mrc_conn *c, u64 now, struct mrc_tx_seg *seg)
{
	while (c->rq_head != c->rq_tail) {
		u32 t = c->rq[c->rq_head % MRC_TX_SEGS];
		struct mrc_tx_segent *e = segent(c, t);
		int pi;

		if (!(e->flags & SEG_QUEUED)) {
			/* acked while it waited */
			c->rq_head++;
			continue;
		}
		if (!conn_room(c, e->len, false)) {
			c->win_held_at = now;
			return false;
		}
		/*
		 * [PATH-4] once into the unknown: a dead plane's paths come
		 * back to try each time their hold ends, and a probe goes
		 * first, so the segment everything waits behind would ride
		 * one probe after another into the dark
		 */
		pi = pick(c, e->len, !(e->flags & SEG_PROBED), now);
		if (pi < 0)
			return false;
		c->rq_head++;
		e->flags &= ~SEG_QUEUED;
		emit(c, now, t, pi, MRC_F_RETX, seg);
		c->stats.tx_resends++;
		return true;
	}
	return false;
}

/*
 * [REL-25] A copy of the next tail segment not yet acknowledged, on the
 * path the scheduler picks, once, as windows allow.
 */
static bool tx_dup(struct mrc_conn *c, u64 now, struct mrc_tx_seg *seg)
{
	for (; c->dup_next != c->dup_end; c->dup_next++) {
		u32 t = c->dup_next;
		struct mrc_tx_segent *e = segent(c, t);
		int pi;

		if (t - c->tx_una >= c->tx_nxt - c->tx_una ||
		    !(e->flags & SEG_USED) ||
		    (e->flags & (SEG_ACKED | SEG_QUEUED | SEG_DUPED)))
			continue;
		if (!conn_room(c, e->len, false))
			return false;
		pi = pick(c, e->len, false, now);
		if (pi < 0)
			return false;
		c->dup_next++;
		e->flags |= SEG_DUPED;
		emit(c, now, t, pi, MRC_F_RETX, seg);
		c->stats.tx_dups++;
		return true;
	}
	return false;
}

/*
 * [REL-26] How long a connection whose window holds packets back may go
 * without a delivery: two round trips of its slowest route in use, and
 * the peer's ACK delay. 0: no route timed yet.
 */
static u64 stall_wait(const struct mrc_conn *c)
{
	u64 rtt = 0;
	u32 i;

	for (i = 0; i < c->cfg.npaths; i++) {
		const struct mrc_path *p = &c->path[i];

		if (p->state == MRC_PATH_ACTIVE ||
		    p->state == MRC_PATH_CONGESTED)
			rtt = mrc_max_u64(rtt, p->tx.srtt_ns);
	}
	return rtt ? 2 * rtt + c->cfg.path.ack_delay_ns : 0;
}

/* [REL-26] When a stalled window's copy falls due; U64 max: none. */
static u64 stall_deadline(const struct mrc_conn *c)
{
	u64 wait;

	if (!c->cfg.stall_copy || !c->rack_set || c->tx_nxt == c->tx_una ||
	    c->win_held_at < c->rack_seen)
		return ~0ull;
	wait = stall_wait(c);
	if (!wait)
		return ~0ull;
	return mrc_max_u64(c->rack_seen, c->stall_copy_at) + wait;
}

/*
 * [REL-26] The oldest segment not yet acknowledged goes again, now, on
 * the route in use whose ACK came last, whatever the window: the window
 * is full of packets on routes that went silent (a plane dark, but not
 * yet failed), so nothing sent later can be delivered to reveal them
 * ([REL-22]) before their timeouts. Unless that route, too, has packets
 * out: then every route is silent, which is the peer (a receiver away
 * for a while), not a route, and a copy would only queue behind them.
 */
static bool tx_stall_copy(struct mrc_conn *c, u64 now, struct mrc_tx_seg *seg)
{
	u64 fresh = 0;
	int pi = -1;
	u32 i, t;

	c->stall_copy_due = false;
	for (i = 0; i < c->cfg.npaths; i++) {
		const struct mrc_path *p = &c->path[i];

		if ((p->state == MRC_PATH_ACTIVE ||
		     p->state == MRC_PATH_CONGESTED) &&
		    mrc_path_tx_room(&p->tx) &&
		    (pi < 0 || p->tx.last_ack_ns > fresh)) {
			pi = (int)i;
			fresh = p->tx.last_ack_ns;
		}
	}
	if (pi < 0 || c->path[pi].tx.inflight_pkts)
		return false;
	for (t = c->tx_una; t != c->tx_nxt; t++) {
		struct mrc_tx_segent *e = segent(c, t);

		if (!(e->flags & SEG_USED) || (e->flags & SEG_ACKED))
			continue;
		/* copied once already: its timer decides */
		if ((e->flags & (SEG_QUEUED | SEG_DUPED)) == SEG_DUPED)
			return false;
		if (e->flags & SEG_QUEUED) {
			/* its resend, which the window held back */
			e->flags &= ~SEG_QUEUED;
			c->stats.tx_resends++;
		} else {
			e->flags |= SEG_DUPED;
			c->stats.tx_stall_copies++;
		}
		emit(c, now, t, pi, MRC_F_RETX, seg);
		return true;
	}
	return false;
}

bool mrc_conn_tx_next(struct mrc_conn *c, u64 now, struct mrc_tx_seg *seg)
{
	struct mrc_tx_segent *e;
	struct mrc_tx_msg *m = NULL;
	u32 k, s = 0, len, t;
	int pi;

	if (c->error)
		return false;
	if (c->stall_copy_due && tx_stall_copy(c, now, seg))
		return true;
	/*
	 * [REL-8] a lost segment goes before any new one. Entries acked while
	 * they waited are skipped on the way; when that empties the queue,
	 * new data may go now, or nothing would call again with nothing in
	 * flight.
	 */
	if (tx_resend(c, now, seg))
		return true;
	if (c->rq_head != c->rq_tail)
		return false;
	if (c->tx_nxt - c->tx_una >= MRC_TX_SEGS)
		return false;

	for (k = 0; k < c->cfg.nstreams; k++) {
		struct mrc_stream_q *st;
		u32 msn;

		s = (c->tx_rr + k) % c->cfg.nstreams;
		st = &c->txs[s];
		if (st->ssn_send == st->ssn_tail)
			continue;
		msn = st->msn_of[st->ssn_send % MRC_CONN_MSGS];
		/* [REL-18] the peer has room for this MSN */
		if ((s32)(msn - c->peer_msn_ack) >= MRC_CONN_MSGS)
			continue;
		m = txmsg(c, msn);
		break;
	}
	if (!m) {
		if (tx_dup(c, now, seg))
			return true;
		c->sched.idle_at = now;
		return false;
	}
	len = mrc_min_u32(c->tx_pkt, m->len - m->next_off);
	/*
	 * [PATH-10] data waits for a window: the paths' rates now show what
	 * their routes carry, not what the application offered.
	 */
	if (!conn_room(c, len, true)) {
		c->sched.limited_at = now;
		c->win_held_at = now;
		return false;
	}
	pi = pick(c, len, true, now);
	if (pi < 0) {
		c->sched.limited_at = now;
		return false;
	}

	t = c->tx_nxt++;
	e = segent(c, t);
	e->msn = c->txs[s].msn_of[c->txs[s].ssn_send % MRC_CONN_MSGS];
	e->offset = m->next_off;
	e->len = (u16)len;
	e->flags = SEG_USED;
	e->rto_count = 0;
	m->next_off += len;
	m->segs_out++;
	c->tx_unsent -= len;
	if (m->response)
		c->tx_unsent_resp -= len;
	if (m->next_off == m->len) {
		m->all_sent = true;
		c->txs[s].ssn_send++;
	}
	c->tx_rr = s + 1;
	emit(c, now, t, pi, 0, seg);
	return true;
}

static void seg_acked(struct mrc_conn *c, u32 t)
{
	struct mrc_tx_segent *e;
	struct mrc_tx_msg *m;

	if (t - c->tx_una >= c->tx_nxt - c->tx_una)
		return;		/* settled long ago */
	e = segent(c, t);
	if (!(e->flags & SEG_USED) || (e->flags & SEG_ACKED))
		return;
	e->flags = SEG_USED | SEG_ACKED;	/* also leaves the resend queue */
	m = txmsg(c, e->msn);
	m->segs_out--;
	if (m->all_sent && !m->segs_out)
		m->state = TXM_DONE;
	while (c->tx_una != c->tx_nxt && (segent(c, c->tx_una)->flags & SEG_ACKED)) {
		segent(c, c->tx_una)->flags = 0;
		c->tx_una++;
	}
}

static void seg_lost(struct mrc_conn *c, u32 t, bool timeout)
{
	struct mrc_tx_segent *e;

	if (t - c->tx_una >= c->tx_nxt - c->tx_una)
		return;
	e = segent(c, t);
	if (!(e->flags & SEG_USED) || (e->flags & (SEG_ACKED | SEG_QUEUED)))
		return;
	/*
	 * [REL-12] only timeouts count against the retry limit: a gap proves
	 * the peer alive and answering, however lossy the path.
	 */
	if (timeout && ++e->rto_count > c->cfg.retry_limit) {
		c->error = MRC_CONN_E_RETRY;
		return;
	}
	e->flags |= SEG_QUEUED;
	c->rq[c->rq_tail++ % MRC_TX_SEGS] = t;
}

/*
 * [REL-22] How long after the ACK of the newest delivered packet (or of
 * the newest answered request, @answer) an ACK of a packet of @p sent
 * before it may still come: the peer holds a coalesced ACK up to
 * ack_delay (ours stands in for it), @p's route may be slower than that
 * packet's, and the reordering window.
 */
static u64 rack_wait(const struct mrc_conn *c, const struct mrc_path *p,
		     bool answer, u64 reo)
{
	const struct mrc_path_tx *q =
		&c->path[answer ? c->rack_req_path : c->rack_path].tx;
	u64 mine = p->tx.min_rtt_ns, skew;
	u32 i;

	/* a new route may be as slow as the slowest the connection knows */
	for (i = 0; !p->tx.min_rtt_ns && i < c->cfg.npaths; i++)
		mine = mrc_max_u64(mine, c->path[i].tx.min_rtt_ns);
	skew = mine > q->min_rtt_ns ? mine - q->min_rtt_ns : 0;

	/*
	 * The answer to a request carried every ACK due when it arrived,
	 * but on a slower route a packet sent before the request may have
	 * arrived after it, and its ACK waits like any other.
	 */
	if (answer && !skew)
		return reo;
	return c->cfg.path.ack_delay_ns + reo + skew;
}

/* [REL-22] the reordering window, of the delivered packet's path */
static u64 rack_reo(const struct mrc_conn *c, bool answer)
{
	const struct mrc_path_tx *q =
		&c->path[answer ? c->rack_req_path : c->rack_path].tx;

	return mrc_min_u64((u64)c->rack_mult * q->min_rtt_ns / 4, q->srtt_ns);
}

/* [REL-22] @p's packets sent before stamp @before are lost at @due. */
static u64 rack_path(struct mrc_conn *c, struct mrc_path *p, u64 now,
		     u32 before, u64 due)
{
	struct mrc_path_events ev = { .acked = c->ev_acked, .lost = c->ev_lost };
	u64 next = mrc_path_tx_rack(&p->tx, now, before, due, &ev);
	u32 j;

	for (j = 0; j < ev.n_lost; j++)
		seg_lost(c, ev.lost[j], false);
	if (ev.lost_bytes)
		mrc_cc_on_loss(&p->cc, ev.lost_bytes);
	/* [PATH-5] lost while others deliver: the route may be dark */
	if (mrc_sched_on_lost(c->path, c->cfg.npaths, p->id, &c->cfg.sched,
			      ev.n_lost, now)) {
		c->stats.path_fails++;
		mrc_path_tx_abandon(&p->tx, &ev);
		for (j = 0; j < ev.n_lost; j++)
			seg_lost(c, ev.lost[j], false);
		return ~0ull;
	}
	return next;
}

/* [REL-22] declare lost what later deliveries prove lost, on every path. */
static void rack_detect(struct mrc_conn *c, u64 now)
{
	u64 next = ~0ull, reo, reo_req = 0, due;
	u32 i;

	c->rack_deadline = 0;
	if (!c->cfg.rack || !c->rack_set)
		return;
	reo = rack_reo(c, false);
	if (c->rack_req_set)
		reo_req = rack_reo(c, true);
	for (i = 0; i < c->cfg.npaths; i++) {
		struct mrc_path *p = &c->path[i];

		/*
		 * A path without an RTT sample has no known route delay; a
		 * probing one is a new route between the same endpoints, and
		 * a probe that waited for its RTO would hold every message
		 * behind its segment ([PATH-4]).
		 */
		if (!p->tx.inflight_pkts ||
		    (!p->tx.min_rtt_ns && p->state != MRC_PATH_PROBING))
			continue;
		/*
		 * Every ACK asks this of every path: what went before the
		 * packets delivered and is due, in O(1) until something is.
		 */
		if (c->rack_req_set &&
		    mrc_path_tx_sent_before(&p->tx, c->rack_req_sent)) {
			due = c->rack_req_seen + rack_wait(c, p, true, reo_req);
			next = mrc_min_u64(next, now < due ? due :
					   rack_path(c, p, now,
						     c->rack_req_sent, due));
		}
		if (mrc_path_tx_sent_before(&p->tx, c->rack_sent)) {
			due = c->rack_seen + rack_wait(c, p, false, reo);
			next = mrc_min_u64(next, now < due ? due :
					   rack_path(c, p, now, c->rack_sent,
						     due));
		}
	}
	if (next != ~0ull)
		c->rack_deadline = next;
}

/* [REL-22] an ACK on path @pi acknowledged packets: what @ev says of them. */
static void rack_on_ack(struct mrc_conn *c, u32 pi, u64 now,
			const struct mrc_path_events *ev)
{
	c->rack_clean += ev->n_acked;
	if (ev->n_late_rack) {
		/* it arrived after all: widen the window, as RACK's DSACK rule */
		c->rack_mult = mrc_min_u32(c->rack_mult + ev->n_late_rack, 64);
		c->rack_clean = 0;
	} else if (c->rack_clean >= MRC_PATH_REORDER_DECAY) {
		c->rack_mult = mrc_max_u32(c->rack_mult / 2, 1);
		c->rack_clean = 0;
	}
	if (ev->req_acked && (!c->rack_req_set ||
			      mrc_seq_after(ev->req_sent, c->rack_req_sent))) {
		c->rack_req_set = true;
		c->rack_req_path = (u8)pi;
		c->rack_req_sent = ev->req_sent;
		c->rack_req_seen = now;
	}
	if (c->rack_set && !mrc_seq_after(ev->newest_sent, c->rack_sent))
		return;
	c->rack_set = true;
	c->rack_path = (u8)pi;
	c->rack_sent = ev->newest_sent;
	c->rack_seen = now;
}

bool mrc_conn_on_ack(struct mrc_conn *c, u64 now, const struct mrc_ack_info *ack)
{
	struct mrc_path_events ev = { .acked = c->ev_acked, .lost = c->ev_lost };
	struct mrc_path *p;
	u64 rtt = 0;
	u32 i, ce, marked, r;
	bool timed;

	if (ack->path_id >= c->cfg.npaths ||
	    mrc_seq_after(ack->msn_ack, c->msn_nxt)) {
		c->stats.acks_invalid++;
		return false;
	}
	p = &c->path[ack->path_id];
	/* [REL-3] RTT from the echoed timestamp, less the ACK's hold time */
	r = (u32)now - ack->tsecr - ack->ack_delay;
	if ((s32)r > 0)
		rtt = r;
	timed = p->tx.srtt_ns != 0;
	if (mrc_path_tx_on_ack(&p->tx, &c->cfg.path, now, &ack->sack, rtt,
			       &ev) != MRC_ACK_OK) {
		c->stats.acks_invalid++;
		return false;
	}
	/*
	 * [REL-10] its first own sample: lend it to the untimed paths in use
	 * (a probing path's route is unproven: its silence must fail it)
	 */
	if (!timed && p->tx.srtt_ns)
		for (i = 0; i < c->cfg.npaths; i++)
			if (c->path[i].state == MRC_PATH_ACTIVE ||
			    c->path[i].state == MRC_PATH_CONGESTED)
				mrc_path_tx_borrow_rtt(&c->path[i].tx,
						       &c->cfg.path, &p->tx,
						       now);
	c->stats.acks_rcvd++;
	if (!ev.n_acked)
		rtt = 0;	/* a repeated ACK says nothing new about delay */

	for (i = 0; i < ev.n_acked; i++)
		seg_acked(c, ev.acked[i]);
	for (i = 0; i < ev.n_lost; i++)
		seg_lost(c, ev.lost[i], false);

	/* [CC-1] CE count is cumulative per path: marks since the last ACK */
	ce = ack->ce_count - p->ce_seen;
	if ((s32)ce < 0)
		ce = 0;
	else
		p->ce_seen = ack->ce_count;
	marked = (u32)mrc_min_u64((u64)ce * c->tx_pkt, ev.acked_bytes);

	if (ev.lost_bytes)
		mrc_cc_on_loss(&p->cc, ev.lost_bytes);
	if (ev.late_bytes)
		mrc_cc_on_late(&p->cc, &c->cfg.cc, ev.late_bytes);
	mrc_cc_on_ack(&p->cc, &c->cc, &c->cfg.cc, 1u << ack->path_id, now,
		      ev.acked_bytes, marked, rtt, p->tx.srtt_ns,
		      mrc_conn_inflight(c));
	mrc_cc_on_hint(&c->cc, ack->rate_hint);
	if (mrc_seq_after(ack->msn_ack, c->peer_msn_ack))
		c->peer_msn_ack = ack->msn_ack;
	/* [REL-15] as many whole segments as both ends take */
	c->peer_rx_max = ack->rx_max;
	c->tx_pkt = mrc_max_u32(c->cfg.mss,
				mrc_min_u32(ack->rx_max, c->cfg.pkt_max) /
				c->cfg.mss * c->cfg.mss);
	if (ev.n_acked) {
		u64 moves = p->repaths;

		mrc_sched_on_ack(&c->sched, &c->cfg.sched, c->path,
				 c->cfg.npaths, ack->path_id, &c->cfg.path,
				 &c->cfg.cc, c->cc.hint_bps, now);
		c->stats.path_moves += p->repaths - moves;
		rack_on_ack(c, ack->path_id, now, &ev);
		rack_detect(c, now);
	}
	return true;
}

bool mrc_conn_tx_poll(struct mrc_conn *c, struct mrc_completion *done)
{
	u32 k;

	for (k = 0; k < c->cfg.nstreams; k++) {
		u32 s = (c->cq_rr + k) % c->cfg.nstreams;
		struct mrc_stream_q *st = &c->txs[s];
		struct mrc_tx_msg *m;
		u32 msn;

		if (st->ssn_head == st->ssn_tail)
			continue;
		msn = st->msn_of[st->ssn_head % MRC_CONN_MSGS];
		m = txmsg(c, msn);
		/* [REL-19] in posting order; after an error, flush with it */
		if (m->state != TXM_DONE && !c->error)
			continue;
		done->cookie = m->cookie;
		done->msn = msn;
		done->ssn = m->ssn;
		done->len = m->len;
		done->stream = (u16)s;
		done->status = m->state == TXM_DONE ? MRC_CONN_OK : c->error;
		m->state = TXM_RETIRED;
		st->ssn_head++;
		if (mrc_seq_before(st->ssn_send, st->ssn_head))
			st->ssn_send = st->ssn_head;
		while (c->msn_una != c->msn_nxt &&
		       txmsg(c, c->msn_una)->state == TXM_RETIRED) {
			txmsg(c, c->msn_una)->state = TXM_FREE;
			c->msn_una++;
		}
		c->cq_rr = s + 1;
		c->stats.tx_msgs++;
		return true;
	}
	return false;
}

/* ---- receiver ---- */

static enum mrc_rx_verdict rx_invalid(struct mrc_conn *c)
{
	c->error = MRC_CONN_E_PROTO;
	return MRC_RX_INVALID;
}

static bool segbit(const struct mrc_rx_msg *m, u32 seg)
{
	u32 b = seg % MRC_MSG_SEG_WND;

	return m->segs[b / 64] >> (b % 64) & 1;
}

static void segbit_flip(struct mrc_rx_msg *m, u32 seg)
{
	u32 b = seg % MRC_MSG_SEG_WND;

	m->segs[b / 64] ^= 1ull << (b % 64);
}

/*
 * [REL-15] segmentation is exact: offset / mss names the first segment a
 * packet carries, and a packet carries whole segments (one, or several
 * where both ends take larger packets), only the message's last short.
 */
static bool seg_shape_ok(const struct mrc_conn *c, const struct mrc_rx_seg *seg)
{
	u32 rest = seg->total_len - seg->offset;

	if (seg->total_len > MRC_WIRE_MAX_MSG_LEN || seg->offset % c->cfg.mss)
		return false;
	if (!seg->total_len)
		return !seg->offset && !seg->len;
	if (seg->offset >= seg->total_len)
		return false;
	return seg->len == rest ||
	       (seg->len && seg->len < rest && !(seg->len % c->cfg.mss));
}

/*
 * Find or open the message @seg belongs to. Returns NULL (and sets
 * *@verdict) if the segment is a duplicate or breaks a rule.
 */
static struct mrc_rx_msg *rx_msg_of(struct mrc_conn *c,
				    const struct mrc_rx_seg *seg,
				    enum mrc_rx_verdict *verdict)
{
	struct mrc_stream_q *st = &c->rxs[seg->stream];
	struct mrc_rx_msg *m;
	u32 si = seg->ssn % MRC_CONN_MSGS;

	*verdict = MRC_RX_DUP;
	if (mrc_seq_before(seg->msn, c->rx_msn_head))
		return NULL;	/* completed and reported */
	if (seg->msn - c->rx_msn_head >= MRC_CONN_MSGS) {
		*verdict = rx_invalid(c);	/* [REL-18] beyond our window */
		return NULL;
	}
	m = rxmsg(c, seg->msn);
	if (m->state == RXM_RETIRED)
		return NULL;
	if (m->state == RXM_FREE) {
		/* [REL-17] an SSN lives in its stream's window, once */
		if (mrc_seq_before(seg->ssn, st->ssn_head) ||
		    seg->ssn - st->ssn_head >= MRC_CONN_MSGS ||
		    (st->known >> si & 1)) {
			*verdict = rx_invalid(c);
			return NULL;
		}
		memset(m, 0, sizeof(*m));
		m->total = seg->total_len;
		m->ssn = seg->ssn;
		m->stream = seg->stream;
		m->nsegs = mrc_conn_nsegs(seg->total_len, c->cfg.mss);
		m->state = RXM_ACTIVE;
		st->msn_of[si] = seg->msn;
		st->known |= 1ull << si;
	} else if (m->total != seg->total_len || m->ssn != seg->ssn ||
		   m->stream != seg->stream) {
		/* [REL-17] every segment of a message agrees on its identity */
		*verdict = rx_invalid(c);
		return NULL;
	}
	return m;
}

/*
 * [REL-13] a message whose sender waits for it is whole, or [REL-18] the
 * message window moved: its sender completes (and frees) a message once
 * every one of its segments is acknowledged, and they came over several
 * paths.
 */
/* Paths below the peer's count heard of that have packets to acknowledge. */
static u32 rx_pending_paths(const struct mrc_conn *c)
{
	u32 below = c->rx_npaths >= 32 ? ~0u : (1u << c->rx_npaths) - 1;

	return c->rx_pending & below;
}

static void ack_all_pending(struct mrc_conn *c, u8 why)
{
	u32 m;

	for (m = rx_pending_paths(c); m; m &= m - 1)
		mrc_path_rx_ack_now(&c->path[__builtin_ctz(m)].rx, why);
}

/*
 * Every message up to @msn is whole: the application has what a reply
 * may answer. Else a packet is missing or still on its way, or the
 * sender's window cut a message short.
 */
static bool whole_through(struct mrc_conn *c, u32 msn)
{
	u32 i;

	for (i = c->rx_msn_head; mrc_seq_before(i, msn + 1); i++) {
		const struct mrc_rx_msg *m = rxmsg(c, i);

		if (m->state != RXM_DONE && m->state != RXM_RETIRED)
			return false;
	}
	return true;
}

/*
 * [REL-13] the sender asked (ACK_REQ) or a message it waits for is whole:
 * answer at once, or [REL-24] hold the answer for the reply the
 * application has been sending, which then carries it.
 */
static void ack_request(struct mrc_conn *c, u64 now, u8 why,
			const struct mrc_rx_seg *seg)
{
	/*
	 * A resend repairs a loss, and a reply cannot answer what has not
	 * all arrived: neither sender may wait for one.
	 */
	if (c->reply_mode && !(seg->flags & MRC_F_RETX) &&
	    whole_through(c, seg->msn)) {
		if (!c->hold_until) {
			/* an established ping-pong ends holds on the tick */
			u64 grain = c->rode_in_row >= REPLY_GRAIN_AFTER ?
				    c->cfg.reply_hold_grain_ns : 0;
			u64 end = now +
				mrc_min_u64(c->cfg.reply_hold_ns,
					    mrc_max_u64(REPLY_HOLD_MULT *
							c->reply_ns,
							c->cfg.reply_hold_min_ns));

			if (grain && end % grain)
				end += grain - end % grain;
			c->hold_since = now;
			c->hold_until = end;
			c->hold_why = why;
		}
		return;
	}
	ack_all_pending(c, why);
	c->answered = true;
	c->answered_at = now;
}

void mrc_conn_ack_release(struct mrc_conn *c)
{
	if (!c->hold_until)
		return;
	ack_all_pending(c, c->hold_why);
	c->hold_until = 0;
}

/*
 * [REL-24] a packet of ours leaves: a held answer goes with it. A new
 * message soon after an answer left alone is a reply: hold from now on.
 */
static void reply_leaves(struct mrc_conn *c, u64 now, u16 flags)
{
	if (c->hold_until) {
		/* 1/4 gain: a late reply or two do not make the hold jump */
		c->reply_ns = (3 * c->reply_ns + (now - c->hold_since)) / 4;
		mrc_conn_ack_release(c);
		c->stats.acks_rode++;
		c->rode_in_row++;
	} else if (c->answered && (flags & MRC_F_FIRST) &&
		   !(flags & MRC_F_RETX)) {
		c->reply_mode = now - c->answered_at <= c->cfg.reply_hold_ns &&
				c->cfg.reply_hold_ns;
		c->reply_ns = now - c->answered_at;
		c->rode_in_row = 0;
		c->answered = false;
	}
}

/* [REL-24] no reply came in time: answer, and at once from now on. */
static void hold_expired(struct mrc_conn *c, u64 now)
{
	if (!c->hold_until || now < c->hold_until)
		return;
	mrc_conn_ack_release(c);
	c->reply_mode = false;
	c->stats.holds_expired++;
}

/*
 * [PATH-11] ACKs follow the route of the path's newest packet: only one
 * the path accepted, so a packet refused for any reason moves nothing.
 */
static void rx_route(struct mrc_path_rx *rx, const struct mrc_rx_seg *seg)
{
	if (seg->sport)
		rx->peer_sport = seg->sport;
}

enum mrc_rx_verdict mrc_conn_rx_data(struct mrc_conn *c, u64 now,
				     const struct mrc_rx_seg *seg,
				     struct mrc_cc_share *share)
{
	struct mrc_path_rx *rx;
	struct mrc_rx_msg *m;
	enum mrc_rx_verdict v;
	u32 idx, first, n, fresh = 0, placed = 0;

	if (c->error)
		return MRC_RX_DROP;
	if (seg->path_id >= MRC_MAX_PATHS || seg->stream >= c->cfg.nstreams ||
	    !seg_shape_ok(c, seg))
		return rx_invalid(c);

	rx = &c->path[seg->path_id].rx;
	switch (mrc_path_rx_check(rx, seg->psn)) {
	case MRC_RX_PSN_NEW:
		c->rx_npaths = mrc_max_u32(c->rx_npaths, seg->path_id + 1u);
		break;
	case MRC_RX_PSN_DUP:
		/* [REL-6] a copy the network made, or one we gave up on */
		mrc_path_rx_note_dup(rx, now, seg->ce, seg->tsval);
		rx->dup_bytes += seg->len;
		c->rx_pending |= 1u << seg->path_id;
		c->stats.rx_dup++;
		return MRC_RX_DUP;
	default:
		rx->rx_oow++;
		c->stats.rx_drop++;
		return MRC_RX_DROP;
	}

	if (share)
		mrc_cc_share_note(share, &c->share_seen, now);
	m = rx_msg_of(c, seg, &v);
	if (!m) {
		if (v == MRC_RX_INVALID)
			return v;
		goto dup;
	}
	first = seg->offset / c->cfg.mss;
	n = mrc_conn_nsegs(seg->len, c->cfg.mss);
	if (!mrc_seq_before(first + n - 1, m->seg_cum) &&
	    first + n - 1 - m->seg_cum >= MRC_MSG_SEG_WND)
		return rx_invalid(c);	/* [REL-16] */

	/*
	 * [REL-15] mark each segment placed, exactly once. Only a peer that
	 * breaks the rules resends a different cut of a message; placing its
	 * packet again rewrites the same bytes, so it needs no reject.
	 */
	for (idx = first; idx != first + n; idx++) {
		if (mrc_seq_before(idx, m->seg_cum) || segbit(m, idx))
			continue;
		segbit_flip(m, idx);
		placed += mrc_min_u32(c->cfg.mss, m->total - idx * c->cfg.mss);
		fresh++;
	}
	if (!fresh)
		goto dup;
	while (m->seg_cum != m->nsegs && segbit(m, m->seg_cum)) {
		segbit_flip(m, m->seg_cum);
		m->seg_cum++;
	}
	m->placed += placed;
	/* ack_request() answers ACK_REQ, on this path and every other */
	mrc_path_rx_accept(rx, now, seg->psn, seg->ce, seg->tsval, false);
	rx->new_bytes += seg->len;
	rx->placed_bytes += placed;
	c->rx_pending |= 1u << seg->path_id;
	rx_route(rx, seg);
	if ((seg->flags & (MRC_F_LAST | MRC_F_ACK_REQ)) ==
	    (MRC_F_LAST | MRC_F_ACK_REQ))
		m->want_ack = true;
	if (m->seg_cum == m->nsegs)
		m->state = RXM_DONE;
	/* [REL-13] a request is answered with every path's news ([REL-22]) */
	if (seg->flags & MRC_F_ACK_REQ)
		ack_request(c, now, MRC_ACK_WHY_REQ, seg);
	else if (m->state == RXM_DONE && m->want_ack)
		ack_request(c, now, MRC_ACK_WHY_MSG, seg);
	c->stats.rx_new++;
	return MRC_RX_NEW;

dup:
	/*
	 * A new PSN carrying data already placed: a resend whose original
	 * arrived after all. The path must still count the PSN.
	 */
	mrc_path_rx_accept(rx, now, seg->psn, seg->ce, seg->tsval, true);
	rx->new_bytes += seg->len;
	c->rx_pending |= 1u << seg->path_id;
	rx_route(rx, seg);
	if (seg->flags & MRC_F_ACK_REQ)
		ack_all_pending(c, MRC_ACK_WHY_REQ);
	c->stats.rx_dup++;
	return MRC_RX_DUP;
}

/* The segment @seg names was placed before (lingering, [REL-21]). */
static bool rx_was_placed(struct mrc_conn *c, const struct mrc_rx_seg *seg)
{
	struct mrc_rx_msg *m;
	u32 idx, first = seg->offset / c->cfg.mss;
	u32 end = first + mrc_conn_nsegs(seg->len, c->cfg.mss);

	if (mrc_seq_before(seg->msn, c->rx_msn_head))
		return true;
	if (seg->msn - c->rx_msn_head >= MRC_CONN_MSGS)
		return false;
	m = rxmsg(c, seg->msn);
	if (m->state == RXM_FREE || m->ssn != seg->ssn ||
	    m->stream != seg->stream || m->total != seg->total_len)
		return false;
	if (m->state != RXM_ACTIVE)
		return true;
	for (idx = first; idx != end; idx++)
		if (!mrc_seq_before(idx, m->seg_cum) &&
		    (idx - m->seg_cum >= MRC_MSG_SEG_WND || !segbit(m, idx)))
			return false;
	return true;
}

enum mrc_rx_verdict mrc_conn_rx_linger(struct mrc_conn *c, u64 now,
				       const struct mrc_rx_seg *seg)
{
	struct mrc_path_rx *rx;
	enum mrc_rx_psn psn;

	if (c->error || seg->path_id >= MRC_MAX_PATHS ||
	    seg->stream >= c->cfg.nstreams || !seg_shape_ok(c, seg))
		return MRC_RX_DROP;
	rx = &c->path[seg->path_id].rx;
	psn = mrc_path_rx_check(rx, seg->psn);
	if (psn == MRC_RX_PSN_DUP) {
		mrc_path_rx_note_dup(rx, now, seg->ce, seg->tsval);
		rx->dup_bytes += seg->len;
		c->rx_pending |= 1u << seg->path_id;
		c->stats.rx_dup++;
		return MRC_RX_DUP;
	}
	if (psn != MRC_RX_PSN_NEW || !rx_was_placed(c, seg)) {
		c->stats.rx_drop++;
		return MRC_RX_DROP;
	}
	mrc_path_rx_accept(rx, now, seg->psn, seg->ce, seg->tsval, true);
	rx->new_bytes += seg->len;
	c->rx_pending |= 1u << seg->path_id;
	rx_route(rx, seg);
	if (seg->flags & MRC_F_ACK_REQ)
		ack_all_pending(c, MRC_ACK_WHY_REQ);
	c->stats.rx_dup++;
	return MRC_RX_DUP;
}

bool mrc_conn_rx_poll(struct mrc_conn *c, struct mrc_completion *done)
{
	u32 k;

	for (k = 0; k < c->cfg.nstreams; k++) {
		u32 s = (c->rcq_rr + k) % c->cfg.nstreams;
		struct mrc_stream_q *st = &c->rxs[s];
		u32 si = st->ssn_head % MRC_CONN_MSGS;
		struct mrc_rx_msg *m;
		u32 msn;

		if (!(st->known >> si & 1))
			continue;
		msn = st->msn_of[si];
		m = rxmsg(c, msn);
		/* [REL-19] per stream, in SSN order */
		if (m->state != RXM_DONE)
			continue;
		done->cookie = 0;
		done->msn = msn;
		done->ssn = m->ssn;
		done->len = m->total;
		done->stream = (u16)s;
		done->status = MRC_CONN_OK;
		m->state = RXM_RETIRED;
		st->known &= ~(1ull << si);
		st->ssn_head++;
		while (rxmsg(c, c->rx_msn_head)->state == RXM_RETIRED) {
			rxmsg(c, c->rx_msn_head)->state = RXM_FREE;
			c->rx_msn_head++;
		}
		c->rcq_rr = s + 1;
		c->stats.rx_msgs++;
		return true;
	}
	return false;
}

/*
 * [REL-18] msn_ack moved half a window past the last one sent: the
 * sender may be waiting for it, and no data ACK need be due to carry it
 * (completions are reported after the ACK of their last segment was
 * built, when a caller acks before it polls).
 */
static bool msn_update_due(const struct mrc_conn *c)
{
	return c->rx_msn_head - c->msn_ack_sent >= MRC_CONN_MSGS / 2;
}

/* The path the peer was last heard on, for an ACK no path owes. */
static u32 freshest_path(const struct mrc_conn *c)
{
	u32 i, best = 0;

	for (i = 1; i < c->rx_npaths; i++)
		if (c->path[i].rx.tsecr_at > c->path[best].rx.tsecr_at)
			best = i;
	return best;
}

bool mrc_conn_ack_next(struct mrc_conn *c, u64 now, struct mrc_cc_share *share,
		       struct mrc_ack_info *ack)
{
	u32 live = rx_pending_paths(c), from = c->ack_rr % c->rx_npaths;
	u32 m = live & (~0u << from), pass, i = c->rx_npaths;

	/* round robin from ack_rr over the paths that have something */
	for (pass = 0; pass < 2 && i == c->rx_npaths; pass++) {
		for (; m; m &= m - 1) {
			u32 j = __builtin_ctz(m);

			if (mrc_path_rx_ack_due(&c->path[j].rx, &c->cfg.path,
						now)) {
				i = j;
				break;
			}
		}
		m = live & ~(~0u << from);
	}
	if (i == c->rx_npaths) {
		if (!msn_update_due(c))
			return false;
		i = freshest_path(c);
		ack->why = MRC_ACK_WHY_WINDOW;
	} else if (c->path[i].rx.ack_now) {
		ack->why = c->path[i].rx.why;
	} else {
		ack->why = c->path[i].rx.pending >= c->cfg.path.ack_every ?
			   MRC_ACK_WHY_COUNT : MRC_ACK_WHY_DELAY;
	}
	mrc_path_rx_build_ack(&c->path[i].rx, now, &ack->sack, &ack->ce_count,
			      &ack->tsecr, &ack->ack_delay);
	c->rx_pending &= ~(1u << i);
	ack->path_id = (u8)i;
	ack->sport = mrc_conn_ack_sport(c, i);
	ack->msn_ack = c->rx_msn_head;
	ack->rate_hint = share ? mrc_cc_share_hint(share, now) : 0;
	ack->rx_max = c->cfg.rx_max ? c->cfg.rx_max : c->cfg.pkt_max;
	/*
	 * [REL-18] a new msn_ack goes with every path's ACK: the sender
	 * frees a message only once all of its segments are acknowledged.
	 * The update alone would leave its window full of messages whose
	 * packets other paths hold unacknowledged, and the next update falls
	 * due only after more messages the sender cannot send: nothing moves
	 * until their ack_delay runs out.
	 */
	if (c->msn_ack_sent != c->rx_msn_head)
		ack_all_pending(c, MRC_ACK_WHY_WINDOW);
	c->msn_ack_sent = c->rx_msn_head;
	c->ack_rr = i + 1;
	c->stats.acks_sent++;
	return true;
}

/* ---- time ---- */

u64 mrc_conn_deadline(const struct mrc_conn *c)
{
	u64 t = mrc_sched_deadline(&c->cfg.sched, c->path, c->cfg.npaths);
	u32 i, m;

	if (msn_update_due(c))
		return 0;
	if (c->hold_until)
		t = mrc_min_u64(t, c->hold_until);

	for (i = 0; i < c->cfg.npaths; i++) {
		const struct mrc_path *p = &c->path[i];
		u64 tx_at = mrc_path_tx_deadline(&p->tx);

		if (tx_at)
			t = mrc_min_u64(t, tx_at);
		if (p->probe_out)
			t = mrc_min_u64(t, p->probe_due);
	}
	for (m = rx_pending_paths(c); m; m &= m - 1) {
		const struct mrc_path_rx *rx = &c->path[__builtin_ctz(m)].rx;

		t = mrc_min_u64(t, mrc_path_rx_ack_deadline(rx, &c->cfg.path));
	}
	if (c->rack_deadline)
		t = mrc_min_u64(t, c->rack_deadline);
	return mrc_min_u64(t, stall_deadline(c));
}

void mrc_conn_on_timer(struct mrc_conn *c, u64 now)
{
	struct mrc_path_events ev = { .acked = c->ev_acked, .lost = c->ev_lost };
	u32 i, j;

	for (i = 0; i < c->cfg.npaths; i++) {
		struct mrc_path *p = &c->path[i];
		enum mrc_path_timer what;
		u8 was;

		/* [PATH-4] an unanswered PROBE REQ fails its path again */
		if (p->probe_out && now >= p->probe_due) {
			mrc_sched_on_probe(p, false, now);
			c->stats.path_fails++;
		}
		what = mrc_path_tx_on_timer(&p->tx, &c->cfg.path, now, &ev);
		if (what == MRC_TIMER_NONE)
			continue;
		for (j = 0; j < ev.n_lost; j++)
			seg_lost(c, ev.lost[j], what == MRC_TIMER_RTO);
		if (what == MRC_TIMER_PTO) {
			mrc_cc_on_loss(&p->cc, ev.lost_bytes);
			continue;
		}
		mrc_cc_on_rto(&p->cc, &c->cfg.cc);
		was = p->state;
		mrc_sched_on_rto(c->path, c->cfg.npaths, i, &c->cfg.sched,
				 c->cfg.path.rto_min_ns, now);
		if (was != MRC_PATH_FAILED && p->state == MRC_PATH_FAILED)
			c->stats.path_fails++;
	}
	if (c->rack_deadline && now >= c->rack_deadline)
		rack_detect(c, now);
	if (now >= stall_deadline(c)) {
		c->stall_copy_at = now;
		c->stall_copy_due = true;
	}
	hold_expired(c, now);
	c->stats.path_moves += mrc_sched_maintain(&c->sched, &c->cfg.sched,
						  c->path, c->cfg.npaths,
						  &c->cfg.path, &c->cfg.cc, now);
}

void mrc_conn_link(struct mrc_conn *c, u32 paths, bool up, u64 now)
{
	struct mrc_path_events ev = { .acked = c->ev_acked, .lost = c->ev_lost };
	u32 j, m;

	if (c->cfg.npaths < 32)
		paths &= (1u << c->cfg.npaths) - 1;
	for (m = paths; m; m &= m - 1)
		mrc_sched_link_mark(&c->path[__builtin_ctz(m)], up);
	/*
	 * With no link left the peer is as unreachable as over any dead
	 * route: the timeouts and the retry limit decide ([REL-12])
	 */
	if (up || !mrc_sched_some_link(c->path, c->cfg.npaths))
		return;
	for (m = paths; m; m &= m - 1) {
		struct mrc_path *p = &c->path[__builtin_ctz(m)];

		c->stats.path_link_downs++;
		if (!mrc_sched_link_fail(p, now))
			continue;
		c->stats.path_fails++;
		mrc_path_tx_abandon(&p->tx, &ev);
		for (j = 0; j < ev.n_lost; j++)
			seg_lost(c, ev.lost[j], false);
	}
}

/* ---- glue to the wire format ---- */

bool mrc_conn_rx_seg_from_pkt(const struct mrc_pkt *pkt, bool ce,
			      struct mrc_rx_seg *seg)
{
	seg->offset = 0;
	seg->total_len = 0;
	switch (pkt->type) {
	case MRC_PKT_SEND:
		seg->offset = pkt->send.offset;
		seg->total_len = pkt->send.total_len;
		break;
	case MRC_PKT_WRITE:
		seg->offset = pkt->write.offset;
		seg->total_len = pkt->write.total_len;
		break;
	case MRC_PKT_READ_RESP:
		seg->offset = pkt->read_resp.offset;
		seg->total_len = pkt->read_resp.total_len;
		break;
	case MRC_PKT_READ_REQ:
	case MRC_PKT_ATOMIC:
	case MRC_PKT_ATOMIC_RESP:
		/* one empty segment: the request lives in the header */
		break;
	default:
		return false;
	}
	seg->psn = pkt->psn;
	seg->msn = pkt->msn;
	seg->ssn = pkt->ssn;
	seg->tsval = pkt->tsval;
	seg->len = pkt->payload_len;
	seg->stream = pkt->stream_id;
	seg->flags = pkt->flags;
	seg->path_id = pkt->path_id;
	seg->ce = ce;
	return true;
}

void mrc_conn_ack_from_pkt(const struct mrc_pkt *pkt, struct mrc_ack_info *ack)
{
	ack->path_id = pkt->path_id;
	ack->sack.cum = pkt->ack.cum_psn;
	memcpy(ack->sack.bits, pkt->ack.sack, sizeof(ack->sack.bits));
	ack->ce_count = pkt->ack.ce_count;
	ack->tsecr = pkt->ack.tsecr;
	ack->ack_delay = pkt->ack.ack_delay;
	ack->msn_ack = pkt->ack.msn_ack;
	ack->rate_hint = pkt->ack.rate_hint;
	ack->rx_max = pkt->ack.rx_max;
}

void mrc_conn_ack_to_pkt(const struct mrc_ack_info *ack, struct mrc_pkt *pkt)
{
	pkt->type = MRC_PKT_ACK;
	pkt->path_id = ack->path_id;
	pkt->psn = 0;
	pkt->ack.cum_psn = ack->sack.cum;
	memcpy(pkt->ack.sack, ack->sack.bits, sizeof(pkt->ack.sack));
	pkt->ack.ce_count = ack->ce_count;
	pkt->ack.tsecr = ack->tsecr;
	pkt->ack.ack_delay = ack->ack_delay;
	pkt->ack.msn_ack = ack->msn_ack;
	pkt->ack.rate_hint = ack->rate_hint;
	pkt->ack.rx_max = ack->rx_max;
}
