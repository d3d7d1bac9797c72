/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A MetaRoCE connection as the portable core sees it: N paths, several
 * independent ordered streams, and per-message bookkeeping in both
 * directions.
 *
 * Sender: the caller posts messages on streams; mrc_conn_tx_next() hands
 * out one segment at a time (resends first), already given a path, PSN and
 * header fields; ACKs and timers turn into resends and, per stream and in
 * posting order, completions.
 *
 * Receiver: mrc_conn_rx_data() says whether a segment is new (place it),
 * a duplicate, or a protocol violation; messages complete when every
 * segment was placed exactly once, and are reported per stream in order;
 * mrc_conn_ack_next() builds the ACKs that fall due.
 *
 * A message is cut into segments of exactly cfg.mss bytes (the last one
 * shorter; an empty message is one empty segment), so a receiver names a
 * segment by (MSN, offset / mss) and needs no reorder buffer ([REL-15]).
 * A packet carries one or more whole consecutive segments: as many as the
 * peer's ACKs say it accepts (its MTU), and cfg.pkt_max allows.
 *
 * The caller provides the memory (struct mrc_conn is large and fixed), the
 * time and the serialisation; nothing here allocates, sleeps or locks.
 */
#ifndef MRC_CORE_CONN_H
#define MRC_CORE_CONN_H

#include "compat.h"
#include "wire.h"
#include "path.h"
#include "cc.h"
#include "sched.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * [PATH-1] Path ids a receiver takes and a connection may send on. A peer
 * that has not said otherwise in its HELLO takes MRC_PATHS_UNANNOUNCED.
 * Each path costs about 3.6 KiB of connection state (its window of
 * MRC_PATH_WND slots) whether it sends or not: 32 make a wide fabric's
 * planes usable (several routes per plane) at ~150 KiB a connection.
 */
#define MRC_MAX_PATHS		32
#define MRC_PATHS_UNANNOUNCED	8
#define MRC_MAX_STREAMS		8
/* Messages in progress per connection and direction: the MSN window. */
#define MRC_CONN_MSGS		64
/* Segments in flight per connection: the sender's segment table. */
#define MRC_TX_SEGS		1024
/* Receiver's per-message segment window; see [REL-16] for why it suffices. */
#define MRC_MSG_SEG_WND		MRC_TX_SEGS

struct mrc_conn_cfg {
	u32 npaths;		/* 1..MRC_MAX_PATHS */
	u32 nstreams;		/* 1..MRC_MAX_STREAMS */
	u32 mss;		/* segment payload bytes, agreed by both ends */
	u32 pkt_max;		/* payload per packet, n * mss ([REL-15]) */
	u32 rx_max;		/* payload per packet we accept (0: pkt_max) */
	u32 tx_isn;		/* first PSN of each of our paths */
	u32 rx_isn;		/* first PSN of each of the peer's paths */
	u32 tx_msn;		/* first MSN we send */
	u32 rx_msn;		/* first MSN the peer sends */
	u32 retry_limit;	/* timeouts one segment survives ([REL-12]) */
	bool rack;		/* [REL-22] loss by later deliveries on any path */
	bool ack_resends;	/* [REL-14] a resend asks for an ACK */
	bool answer_probe;	/* [REL-10] the answer timeout probes tails */
	bool probe_reqs;	/* [PATH-4] PROBE REQs prove probing paths */
	u32 tail_dup;		/* [REL-25] last segments of an idle sender's
				 * message sent twice; 0: none
				 */
	bool stall_copy;	/* [REL-26] a window stalled behind silence
				 * sends its oldest packet again (off by default)
				 */
	u64 reply_hold_ns;	/* [REL-24] longest wait for a reply; 0: none */
	u64 reply_hold_min_ns;	/* ... shortest */
	u64 reply_hold_grain_ns; /* ... its end rounded up to this; 0: exact */
	u64 seed;		/* source-port choice */
	struct mrc_path_cfg path;
	struct mrc_cc_cfg cc;
	struct mrc_sched_cfg sched;
};

void mrc_conn_cfg_default(struct mrc_conn_cfg *cfg, u32 npaths, u32 mss);

enum mrc_conn_error {
	MRC_CONN_OK = 0,
	MRC_CONN_E_RETRY,	/* a segment ran out of retries ([REL-12]) */
	MRC_CONN_E_PROTO,	/* the peer broke a rule ([REL-17]) */
};

/* One segment to transmit, as mrc_conn_tx_next() decided it. */
struct mrc_tx_seg {
	u64 msg_cookie;		/* the caller's cookie for the message */
	u32 psn;
	u32 msn;
	u32 ssn;
	u32 tsval;		/* (u32)now */
	u32 offset;		/* of the payload in the message */
	u32 len;
	u32 total_len;
	u16 stream;
	u16 sport;		/* UDP source port of the path */
	u16 flags;		/* MRC_F_FIRST, _LAST, _RETX, _ACK_REQ */
	u8 path_id;
};

/* The parts of a received sequenced packet the core looks at. */
struct mrc_rx_seg {
	u32 psn;
	u32 msn;
	u32 ssn;
	u32 tsval;
	u32 offset;
	u32 len;
	u32 total_len;
	u16 stream;
	u16 flags;
	u16 sport;		/* its UDP source port; 0: not known */
	u8 path_id;
	bool ce;		/* the IP header carried ECN CE */
};

/* The parts of an ACK the core looks at. */
struct mrc_ack_info {
	struct mrc_sack sack;
	u32 ce_count;
	u32 tsecr;
	u32 ack_delay;
	u32 msn_ack;
	u32 rate_hint;		/* Mbit/s, 0: none */
	u32 rx_max;		/* payload per packet the ACK's sender accepts */
	u16 sport;		/* built ACKs: the UDP source port to send on */
	u8 path_id;
	u8 why;			/* enum mrc_ack_why, built ACKs only */
};

enum mrc_rx_verdict {
	MRC_RX_NEW = 0,		/* place the payload now */
	MRC_RX_DUP,		/* already placed: drop (an ACK will follow) */
	MRC_RX_DROP,		/* stale or implausible PSN: drop silently */
	MRC_RX_INVALID,		/* protocol violation: connection now in error */
};

struct mrc_completion {
	u64 cookie;		/* sender: the posted cookie; receiver: 0 */
	u32 msn;
	u32 ssn;
	u32 len;
	u16 stream;
	u8 status;		/* enum mrc_conn_error: OK or why it failed */
};

/* ---- internal state; fields are read by tests and stats ---- */

struct mrc_tx_msg {
	u64 cookie;
	u32 len;
	u32 next_off;		/* first byte not yet sent */
	u32 segs_out;		/* segments sent and not yet acked */
	u32 ssn;
	u16 stream;
	u8 state;
	bool all_sent;
	bool no_end_ack;	/* a request or a response: no ACK_REQ at its end */
	bool awaits_answer;	/* mrc_conn_tx_no_end_ack(): a request */
	bool response;		/* mrc_conn_tx_response() */
};

struct mrc_tx_segent {
	u32 msn;
	u32 offset;
	u16 len;
	u8 flags;
	u8 rto_count;
};

struct mrc_stream_q {
	u32 ssn_head;		/* oldest message not yet completed */
	u32 ssn_send;		/* tx: oldest message with bytes unsent */
	u32 ssn_tail;		/* tx: next SSN to post */
	u64 known;		/* rx: bit (ssn % MSGS): msn_of[] is valid */
	u32 msn_of[MRC_CONN_MSGS];	/* SSN % MSGS -> MSN */
};

struct mrc_rx_msg {
	u32 total;
	u32 placed;		/* bytes, for stats */
	u32 ssn;
	u32 seg_cum;		/* segments before it are all placed */
	u32 nsegs;
	u16 stream;
	u8 state;
	bool want_ack;		/* its LAST segment carried ACK_REQ */
	u64 segs[MRC_MSG_SEG_WND / 64];	/* bit (seg % WND): placed */
};

struct mrc_conn_stats {
	u64 tx_segs;
	u64 tx_resends;
	u64 tx_dups;		/* [REL-25] tail segments sent twice */
	u64 tx_stall_copies;	/* [REL-26] oldest segments sent again */
	u64 tx_msgs;
	u64 rx_new;
	u64 rx_dup;
	u64 rx_drop;
	u64 rx_msgs;
	u64 acks_sent;
	u64 acks_rcvd;
	u64 acks_invalid;
	u64 acks_rode;		/* [REL-24] held answers that left with data */
	u64 holds_expired;	/* ... that waited for a reply in vain */
	u64 path_fails;		/* [PATH-5] a path failed */
	u64 path_link_downs;	/* [PATH-8] ... or stayed failed, for its link */
	u64 path_moves;		/* [PATH-7], [PATH-10] a path took a new port */
};

struct mrc_conn {
	struct mrc_conn_cfg cfg;
	/*
	 * Our paths 0..cfg.npaths-1 send; the peer's path ids, up to
	 * MRC_MAX_PATHS whatever its own count, are received in path[].rx.
	 */
	struct mrc_path path[MRC_MAX_PATHS];
	struct mrc_path_ring *rings;	/* the caller's, one per path it may open */
	u32 nrings;
	u32 rx_npaths;		/* the peer's paths heard of: >= cfg.npaths */
	/*
	 * Bit i: path[i].rx has packets to acknowledge (pending): what every
	 * input's ACK pick and deadline ask, without a look at idle paths.
	 */
	u32 rx_pending;
	struct mrc_cc_conn cc;
	struct mrc_sched sched;
	u8 error;		/* enum mrc_conn_error */
	bool ask_ack;		/* mrc_conn_tx_ask_ack() */
	u32 share_seen;		/* marker for mrc_cc_share_note() */

	/* sender */
	u32 tx_una;		/* oldest segment-table entry not yet acked */
	u32 tx_nxt;
	u32 msn_una;		/* oldest MSN whose slot is not free */
	u32 msn_nxt;		/* next MSN to post */
	u32 peer_msn_ack;	/* peer completed every MSN before this */
	u32 peer_rx_max;	/* the peer's latest rx_max; 0 before its first ACK */
	u32 tx_pkt;		/* payload per packet we send ([REL-15]) */
	u32 rq_head;		/* resend queue of segment-table indices */
	u32 rq_tail;
	u32 tx_rr;		/* stream round robin, sending */
	u64 tx_unsent;		/* bytes posted, not yet sent once */
	u64 tx_unsent_resp;	/* ... of responses */
	/* [REL-22] the packet sent last of those known delivered, any path */
	bool rack_set;
	u8 rack_path;		/* its path */
	u32 rack_sent;		/* its send stamp (mrc_path_stamp()) */
	u64 rack_seen;		/* when its ACK arrived */
	bool rack_req_set;	/* ... and of the ACK_REQ packets answered: */
	u8 rack_req_path;
	u32 rack_req_sent;
	u64 rack_req_seen;
	u32 rack_mult;		/* reordering window, quarters of min_rtt */
	u32 rack_clean;		/* packets acked since a late [REL-22] loss */
	u64 rack_deadline;	/* when a packet left waiting falls due; 0: none */
	u32 dup_next;		/* [REL-25] next segment-table entry to copy */
	u32 dup_end;		/* ... and the end of the tail */
	u64 win_held_at;	/* [REL-26] the window last held a packet back */
	u64 stall_copy_at;	/* ... the last copy of a stalled window */
	bool stall_copy_due;	/* ... one is to go now */
	u32 cq_rr;		/* stream round robin, completions */
	struct mrc_tx_segent seg[MRC_TX_SEGS];
	u32 rq[MRC_TX_SEGS];
	struct mrc_tx_msg txm[MRC_CONN_MSGS];
	struct mrc_stream_q txs[MRC_MAX_STREAMS];

	/* receiver */
	u32 rx_msn_head;	/* oldest MSN not yet completed and reported */
	u32 msn_ack_sent;	/* rx_msn_head as the last ACK sent said */
	u32 rcq_rr;
	struct mrc_rx_msg rxm[MRC_CONN_MSGS];
	struct mrc_stream_q rxs[MRC_MAX_STREAMS];
	u32 ack_rr;
	/* [REL-24] the answer to an ACK_REQ waits for the reply that carries it */
	bool reply_mode;	/* the application replies: hold answers */
	bool answered;		/* an answer left at once, at answered_at */
	u8 hold_why;		/* enum mrc_ack_why of the answer held */
	u64 hold_since;
	u64 hold_until;		/* 0: none held */
	u64 answered_at;
	u64 reply_ns;		/* how soon replies follow, smoothed */
	u32 rode_in_row;	/* held answers that rode since the mode began */

	struct mrc_conn_stats stats;
	/* scratch for path events: the core is not reentrant per connection */
	u32 ev_acked[MRC_PATH_WND];
	u32 ev_lost[MRC_PATH_WND];
};

/* [REL-15] segments of @len bytes cut at @mss; nothing is one empty one. */
static inline u32 mrc_conn_nsegs(u32 len, u32 mss)
{
	return len ? (len - 1) / mss + 1 : 1;
}

/*
 * @rings: the send rings of the first @nrings paths, the most this side
 * will ever send on (cfg.npaths now, more by mrc_conn_open_paths()); the
 * caller's memory, for the connection's life. Returns false if @cfg is out
 * of range or @nrings < cfg.npaths.
 */
bool mrc_conn_init(struct mrc_conn *c, const struct mrc_conn_cfg *cfg,
		   struct mrc_path_ring *rings, u32 nrings, u64 now);

/* Send from @isn on every path open, as if nothing had been sent yet. */
void mrc_conn_restart_tx(struct mrc_conn *c, u32 isn);

/*
 * [PATH-11] A PROBE REQ of the peer's path @path_id came from @sport: its
 * answers follow that route, as for the path's data (a REQ is how the
 * peer proves a new port before any data takes it).
 */
void mrc_conn_rx_probe_route(struct mrc_conn *c, u32 path_id, u16 sport);

/* A PROBE REQ to send ([PKT-75]): on @path_id, from @sport, with @seq. */
struct mrc_probe_req {
	u8 path_id;
	u16 sport;
	u32 seq;
};

/*
 * [PATH-4] With cfg.probe_reqs, a probing path is proven by a PROBE REQ
 * while another path is in use, so no data rides into a route that may be
 * dead. Call after mrc_conn_tx_next() has nothing more; returns false when
 * no REQ is due. The REQ carries tsval = (u32)now like any packet.
 */
bool mrc_conn_probe_next(struct mrc_conn *c, u64 now, struct mrc_probe_req *req);

/*
 * A PROBE RESP arrived on @path_id, echoing @seq and (in tsecr) the REQ's
 * tsval. One the connection did not ask for is ignored (false).
 */
bool mrc_conn_on_probe_resp(struct mrc_conn *c, u64 now, u32 path_id,
			    u32 seq, u32 tsecr);

/*
 * [PATH-1] Send on @npaths paths (at most MRC_MAX_PATHS) from now on: the
 * peer announced that it takes them. The new paths start as the first ones
 * did, active, at the direction's initial PSN (cfg.tx_isn), as many as
 * there are rings (mrc_conn_init()). Paths are never closed: returns false,
 * changing nothing, unless @npaths adds some.
 */
bool mrc_conn_open_paths(struct mrc_conn *c, u32 npaths, u64 now);

/* ---- sender ---- */

/*
 * Queue a message of @len bytes on @stream. Returns false when the
 * connection has MRC_CONN_MSGS messages in progress (post later), the
 * stream is out of range, or the connection is in error.
 */
bool mrc_conn_tx_post(struct mrc_conn *c, u32 stream, u32 len, u64 cookie,
		      u32 *msn);

/*
 * [REL-14] Message @msn is a READ or ATOMIC request: its end asks for no
 * ACK of its own, as its response proves it arrived and answers it
 * ([REL-10], mrc_conn_tx_answered()). A response is marked by
 * mrc_conn_tx_response() instead.
 */
void mrc_conn_tx_no_end_ack(struct mrc_conn *c, u32 msn);

/*
 * [OPS-2] The response to request @msn (a READ or ATOMIC request that
 * mrc_conn_tx_no_end_ack() marked) began to arrive: it answers the
 * request ([REL-10]), whose own ACK may wait for the peer's ACK delay.
 */
void mrc_conn_tx_answered(struct mrc_conn *c, u32 msn, u64 now);

/*
 * [OPS-2] A request of the peer that we answered came again (its sender's
 * answer timeout, [REL-10]): the response may be lost. The newest
 * unacknowledged segment of each response in flight is probed now, as a
 * PTO would.
 */
void mrc_conn_tx_asked_again(struct mrc_conn *c, u64 now);

/*
 * Message @msn, just posted, answers a request of the peer (a READ or
 * ATOMIC response): it does not ask for an ACK at its end ([REL-14]), and
 * a backlog of mostly responses keeps keep_home_resp at home ([CC-13]).
 */
void mrc_conn_tx_response(struct mrc_conn *c, u32 msn);

/*
 * [REL-14] The next segments ask for an ACK, up to the end of a message
 * (whose ACK then covers every path, [REL-13]): the caller runs short of
 * something only ACKs give back (a responder's owed-response slots).
 */
void mrc_conn_tx_ask_ack(struct mrc_conn *c);

/*
 * Bytes posted but not yet sent, or resends queued: what an ACK or the
 * timer will send, whatever holds it back now (windows, a budget).
 */
bool mrc_conn_tx_backlog(const struct mrc_conn *c);

/*
 * [ENC-13] Bytes a packet bundle to the peer may take now: what both
 * ends' MTUs carry (our rx_max, the peer's latest) plus one packet's
 * overhead; 0 before the peer's first ACK said what it takes.
 */
u32 mrc_conn_pbundle_room(const struct mrc_conn *c);

/* The next segment to send at @now, if windows allow; false if none. */
bool mrc_conn_tx_next(struct mrc_conn *c, u64 now, struct mrc_tx_seg *seg);

/* Apply an ACK. Returns false (and ignores it) if it is invalid. */
bool mrc_conn_on_ack(struct mrc_conn *c, u64 now, const struct mrc_ack_info *ack);

/* Next sender completion, in posting order per stream; false if none. */
bool mrc_conn_tx_poll(struct mrc_conn *c, struct mrc_completion *done);

/* Bytes in flight over all paths. */
u32 mrc_conn_inflight(const struct mrc_conn *c);

/* ---- receiver ---- */

enum mrc_rx_verdict mrc_conn_rx_data(struct mrc_conn *c, u64 now,
				     const struct mrc_rx_seg *seg,
				     struct mrc_cc_share *share);

/*
 * The local endpoint is gone ([REL-21]): acknowledge @seg if it repeats
 * what was placed (MRC_RX_DUP, an ACK falls due), else MRC_RX_DROP. Never
 * MRC_RX_NEW: nothing is placed any more.
 */
enum mrc_rx_verdict mrc_conn_rx_linger(struct mrc_conn *c, u64 now,
				       const struct mrc_rx_seg *seg);

/* [REL-21] the connection is healthy and placed data: worth lingering. */
static inline bool mrc_conn_may_linger(const struct mrc_conn *c)
{
	return !c->error && c->stats.rx_new;
}

/* Next receiver completion, in SSN order per stream; false if none. */
bool mrc_conn_rx_poll(struct mrc_conn *c, struct mrc_completion *done);

/*
 * [REL-24] Whatever answer is held falls due now (the endpoint goes away,
 * or must not wait for a reply).
 */
void mrc_conn_ack_release(struct mrc_conn *c);

/*
 * [PATH-11] The UDP source port for what answers the peer's path
 * @path_id (its ACKs, NAKs): the port the path's newest packet came
 * from, so the answers follow the sender when it moves the path to a new
 * route; before any packet, our own path's port.
 */
static inline u16 mrc_conn_ack_sport(const struct mrc_conn *c, u32 path_id)
{
	const struct mrc_path *p = &c->path[path_id < MRC_MAX_PATHS ? path_id : 0];

	if (p->rx.peer_sport)
		return p->rx.peer_sport;
	return path_id < c->cfg.npaths ? p->sport : c->path[0].sport;
}

/* Build the next ACK that is due at @now; false if none. */
bool mrc_conn_ack_next(struct mrc_conn *c, u64 now, struct mrc_cc_share *share,
		       struct mrc_ack_info *ack);

/*
 * [PATH-8] The link of the plane the paths in bitmask @paths leave by went
 * down (!@up) or came back at this end. Down, while some other path has a
 * link: each of them fails at once and what it has in flight is resent
 * on the others (it never left, or died with the link), rather than after
 * the path's silence; it rests, without probing, until the link is back.
 * With no link left the timeouts decide, as on any dead route. Up: a
 * path the link failed moves at the next mrc_conn_on_timer(). The caller
 * re-reads mrc_conn_deadline() and runs the sender.
 */
void mrc_conn_link(struct mrc_conn *c, u32 paths, bool up, u64 now);

/* ---- time ---- */

/* When mrc_conn_on_timer() next has work; U64 max if never. */
u64 mrc_conn_deadline(const struct mrc_conn *c);

/* Run the timers due at @now (retransmission, path re-probing). */
void mrc_conn_on_timer(struct mrc_conn *c, u64 now);

/* ---- glue to the wire format ---- */

/* Fill @seg from a parsed sequenced packet; false if it is not one. */
bool mrc_conn_rx_seg_from_pkt(const struct mrc_pkt *pkt, bool ce,
			      struct mrc_rx_seg *seg);

/* Fill @ack from a parsed ACK packet. */
void mrc_conn_ack_from_pkt(const struct mrc_pkt *pkt, struct mrc_ack_info *ack);

/* Fill the ACK fields of @pkt (type, path, ack extension) from @ack. */
void mrc_conn_ack_to_pkt(const struct mrc_ack_info *ack, struct mrc_pkt *pkt);

#ifdef __cplusplus
}
#endif

#endif /* MRC_CORE_CONN_H */
