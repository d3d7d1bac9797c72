/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The transport glue of an RC QP: the portable core's connection plus
 * what the core does not know about (work requests, receive buffers,
 * memory regions, sockets). Protocol decisions are the core's; these
 * files only carry them out.
 *
 *   xport.c  the engine: QP hooks (create, connect on modify_qp,
 *            destroy) and one run per timer expiry or work item
 *   xp.c     what everything below the engine shares: packet buffers,
 *            sealing, bundles, the batched transmit, timer arming
 *   tx.c     send engine: WQEs -> core messages -> packets; ACK/NAK in;
 *            send completions
 *   demux.c  datagrams in: parse, bundles, QP lookup by type ([SEC-10])
 *   rx.c     an RC QP's receive: source, state, cookie, placement,
 *            READ/ATOMIC execution, ACKs out, receive completions
 *
 * Contexts and locking (also Documentation/design.rst):
 *  - xp->lock (spin_lock_bh) serialises everything below it: the core
 *    connection (which never locks), the tables here, and the calls into
 *    the verbs objects that take or complete WQEs, so completions keep
 *    the core's order. Lock order: xp->lock -> sq/rq/srq/cq locks (the
 *    verbs objects never call back into the glue under their locks).
 *  - Receive runs in the UDP encap softirq; it holds a QP reference
 *    (mrc_qp_get) for the whole packet.
 *  - The send engine runs in process context from xp->work (system
 *    high-priority workqueue), kicked by post_send and modify_qp, and in
 *    softirq from the soft hrtimer that follows mrc_conn_deadline()
 *    (delayed ACKs, probes, retransmissions) and from ACKs that open the
 *    window. Packets are built under xp->lock and sent after it is
 *    dropped, in build order (mrc_xp_unlock_xmit()).
 *  - Destroy: hooks->destroy marks the transport dead under the lock
 *    (nobody queues work or arms the timer after that), then cancels the
 *    timer and the work. hooks->release runs once every QP reference (a
 *    receive in flight, a queued ACK flush) is gone, so nobody can reach
 *    the transport through the QP: only then is it freed, or handed to
 *    the device to linger (linger.c), whose reaper may free it at once.
 */
#ifndef _MRC_XPORT_H
#define _MRC_XPORT_H

#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "core/conn.h"
#include "core/hello.h"
#include "metaroce.h"
#include "net.h"
#include "verbs.h"

/* Send WQEs the transport holds at once (taken, not yet completed). */
#define MRC_XP_SQ		128
/*
 * READ/ATOMIC responses owed to the peer. A slot is freed when the peer
 * acks the response, but the peer completes its READ, and may send the
 * next request, as soon as the response is placed: besides the
 * max_dest_rd_atomic requests it may have outstanding ([OPS-4]), up to
 * about as many responses it already has may still wait for their ACK
 * (more under ACK loss). One ring of max_dest_rd_atomic slots overflowed
 * under 1% loss with nvmet-rdma reading at depth 128; twice that holds.
 */
#define MRC_XP_RESP		(2 * MRC_MAX_RD_ATOMIC)
/* Packets one run of the send engine builds before it yields. */
#define MRC_XP_TX_BUDGET	64
/* ... and when an ACK runs it in softirq. */
#define MRC_XP_RX_TX_BUDGET	16
/* Core message cookies with this bit name a response, else a WQE. */
#define MRC_XP_COOKIE_RESP	BIT_ULL(63)

struct mrc_xp_swqe {
	struct mrc_send_wqe *wqe;
	u32 msn;		/* core message (remote operations) */
	u32 rsn;		/* SEND, WRITE_WITH_IMM: receive it consumes */
	u64 orig;		/* ATOMIC: the value the response returned */
	u8 status;		/* enum ib_wc_status, final once done */
	u8 rnr_naks;		/* RNR NAKs for it so far */
	bool remote;		/* goes to the peer through the core */
	bool posted;		/* handed to the core */
	bool need_resp;		/* READ, ATOMIC: done after the response */
	bool responded;
	bool done;
};

struct mrc_xp_resp {
	u64 va;
	u64 orig;		/* ATOMIC result */
	u32 rkey;
	u32 len;		/* READ: bytes; ATOMIC: 8 */
	u32 tag;		/* the requester's MSN of the request */
	u32 msn;		/* our core message carrying the response */
	bool atomic;
	bool posted;
	bool done;
};

/* What the glue knows of a peer message, slot msn % MRC_CONN_MSGS. */
struct mrc_xp_rmsg {
	u64 va;			/* READ_REQ */
	u64 orig;		/* ATOMIC: executed, the old value; ATOMIC_RESP */
	u32 msn;
	u32 imm;
	u32 rsn;
	u32 rkey;		/* READ_REQ */
	u32 len;		/* READ_REQ */
	u32 tag;		/* READ_REQ, READ_RESP */
	u16 flags;		/* MRC_F_IMM/INV/SOLICITED of the LAST segment */
	u8 type;		/* enum mrc_pkt_type, 0: slot unused */
	bool bad;		/* the message cannot complete successfully */
};

struct mrc_xp {
	struct mrc_qp *qp;		/* NULL once lingering */
	struct mrc_dev *dev;
	struct mrc_net *net;
	struct net_device *ndev;	/* the device's netdev */
	const struct mrc_av *av;	/* the QP's, or linger_av */
	u32 qpn;
	spinlock_t lock;		/* see the header comment */
	spinlock_t xmit_lock;		/* wire order; mrc_xp_unlock_xmit() */
	/* to the peer, per plane ([PATH-8]); under xmit_lock */
	struct mrc_net_routes routes[MRC_PLANES_MAX];
	struct work_struct work;
	struct hrtimer timer;
	u64 timer_at;			/* armed deadline, 0: none */
	bool live;			/* connected: conn is valid */
	bool dead;			/* destroy began */
	bool flushed;			/* ERR: held WQEs given back */
	bool peer_bundles;		/* [ENC-9] the peer takes ACK bundles */
	bool ack_queued;		/* on a CPU's ACK queue (ackq.c) */
	u32 ack_held;			/* datagrams whose ACKs wait there */
	u32 last_send_len;		/* of the last SEND or WRITE taken */
	u8 refused_code;		/* [OPS-31] the NAK that failed the QP */
	u32 refused_msn;		/* its message, if refused_code */
	u32 dest_qpn;
	u32 tx_cookie;			/* our data's ISN and cookie ([PKT-16]) */
	u32 rx_cookie;			/* the peer's */
	u8 dscp_data;
	u8 dscp_ctrl;

	/* [PKT-92] the HELLO exchange and the planes it opened ([PATH-8]) */
	struct mrc_hello_state hello;
	bool hello_on;			/* we speak HELLO (module parameter) */
	u8 want_paths;			/* npaths at creation ([PATH-1]) */
	u32 plane_id[MRC_PLANES_MAX];	/* our planes' ids when we offered */
	u8 ack_plane[MRC_MAX_PATHS];	/* the plane the peer's path i came on */
	u64 plane_rx[MRC_PLANES_MAX];	/* packets taken, by plane */
	u64 plane_tx[MRC_PLANES_MAX];	/* datagrams sent, by plane; xmit_lock */

	/* sender: WQE slots [sq_head, sq_take), posted to the core up to
	 * sq_post
	 */
	u32 sq_head;
	u32 sq_post;
	u32 sq_take;
	u32 tx_rsn;			/* next RSN we consume at the peer */
	/* READ/ATOMIC WQEs handed to the core, and retired from sq_head */
	u32 rd_posted;
	u32 rd_retired;
	struct mrc_xp_swqe sq[MRC_XP_SQ];

	/* responder: responses [resp_head, resp_tail), posted to resp_post */
	u32 resp_head;
	u32 resp_post;
	u32 resp_tail;
	struct mrc_xp_resp resp[MRC_XP_RESP];

	/* receiver: receive WQEs taken for RSNs [rsn_head, rsn_take) */
	u32 rsn_head;
	u32 rsn_take;
	struct mrc_recv_wqe *rwqe[MRC_CONN_MSGS];
	struct mrc_xp_rmsg rmsg[MRC_CONN_MSGS];

	/* lingering after the QP was destroyed (linger.c) */
	bool linger_due;		/* destroy chose to; release hands over */
	bool lingering;
	u64 linger_until;
	struct mrc_av linger_av;
	struct list_head linger_node;	/* the device's list, RCU */
	struct list_head reap_node;	/* the reaper's private list */

	struct mrc_conn conn;		/* large */
	/* [PATH-1] a send ring for each path it may open: want_paths */
	struct mrc_path_ring rings[];
};

/*
 * Where the paths stood before a core call ([PATH-5], [PATH-7],
 * [PATH-10]): afterwards the device counts their failures and moves, and
 * the metaroce:mrc_path_state tracepoint reports each path that changed.
 * The states are taken only while that tracepoint is on.
 */
struct mrc_xp_paths_was {
	u64 fails;
	u64 moves;
	bool traced;
	u32 npaths;			/* a HELLO may open more meanwhile */
	u8 state[MRC_MAX_PATHS];
	u16 sport[MRC_MAX_PATHS];
};

void mrc_xp_paths_note(const struct mrc_xp *xp, struct mrc_xp_paths_was *was);
void mrc_xp_count_paths(struct mrc_xp *xp, const struct mrc_xp_paths_was *was);

/*
 * qp->xport is a different object for each QP type (ud.c keeps its own
 * there): only a connected QP's is a transport, whatever a packet claims.
 */
static inline struct mrc_xp *mrc_xp_of(struct mrc_qp *qp)
{
	return mrc_qp_type_connected(qp->ibqp.qp_type) ? qp->xport : NULL;
}

extern const struct mrc_qp_hooks mrc_xp_hooks;

/* xp.c: below the engine, shared by rx, tx, ACKs and linger */
void mrc_xp_burst(struct mrc_conn_cfg *cfg);
void mrc_xp_kick(struct mrc_xp *xp);
void mrc_xp_arm_timer(struct mrc_xp *xp);
void mrc_xp_arm_timer_at(struct mrc_xp *xp, u64 at);
void mrc_xp_unlock_xmit(struct mrc_xp *xp, struct sk_buff_head *out);
void mrc_xp_free(struct mrc_xp *xp);
struct sk_buff *mrc_xp_alloc_skb(struct mrc_xp *xp, u32 len);
void mrc_xp_set_route(struct sk_buff *skb, u32 sport, u32 dscp);
void mrc_xp_set_rides(struct sk_buff *skb);
struct sk_buff *mrc_xp_ride_host(struct mrc_xp *xp, struct sk_buff_head *out);
void mrc_xp_ride(struct mrc_xp *xp, struct sk_buff *host, u32 len);
bool mrc_xp_encode(struct mrc_xp *xp, struct mrc_pkt *pkt, u8 *buf, u32 len);
int mrc_xp_from_peer(const struct mrc_xp *xp, const struct sk_buff *skb);
u32 mrc_xp_plane_for(const struct mrc_xp *xp, const struct mrc_pkt *pkt);
void mrc_xp_set_plane(struct sk_buff *skb, u32 plane);
int mrc_xp_hello_send(struct mrc_xp *xp, u8 kind, u16 flags,
		      struct sk_buff_head *out);
int mrc_xp_seal(struct mrc_xp *xp, struct sk_buff *skb, struct mrc_pkt *pkt,
		u32 sport, u32 dscp, struct sk_buff_head *out);

/*
 * xport_link.c: [PATH-8] plane @k (id @id; plane 0: the device's netdev)
 * of @dev lost its link (!@up) or has it back. Process context, may not
 * hold any QP's or transport's lock.
 */
void mrc_xp_plane_link(struct mrc_dev *dev, u32 k, u32 id, bool up);
/* With xp->lock held: fail the paths whose planes have no link now. */
void mrc_xp_links_now(struct mrc_xp *xp, u64 now);

/* xport_res.c: rdma -dd resource show qp */
int mrc_xp_fill_res_qp(struct sk_buff *msg, struct ib_qp *ibqp);

/* tx.c, all with xp->lock held */
void mrc_tx_run(struct mrc_xp *xp, u64 now, u32 budget,
		struct sk_buff_head *out);
void mrc_tx_on_ack(struct mrc_xp *xp, u64 now, const struct mrc_pkt *pkt,
		   struct sk_buff_head *out);
void mrc_tx_on_nak(struct mrc_xp *xp, const struct mrc_pkt *pkt);
void mrc_tx_complete(struct mrc_xp *xp);
void mrc_tx_flush(struct mrc_xp *xp);
int mrc_tx_read_resp_place(struct mrc_xp *xp, const struct mrc_pkt *pkt,
			   const struct sk_buff *skb);
int mrc_tx_resp_done(struct mrc_xp *xp, bool atomic, u32 tag, u64 orig);
void mrc_tx_answered(struct mrc_xp *xp, const struct mrc_pkt *pkt, u64 now);
bool mrc_tx_resp_queue(struct mrc_xp *xp, bool atomic, u64 va, u32 rkey,
		       u32 len, u32 tag, u64 orig);

/*
 * Where in the received skb the packet being processed starts: 0, or
 * deeper for the packets of a bundle ([ENC-13]). The UDP layer is done
 * with the control block once it hands us the skb.
 */
struct mrc_rx_cb {
	u32 pkt_off;
	u32 len;	/* the datagram's, as received */
	bool ce;
	bool counted;	/* in rx_packets, on a QP's counter or the device */
};

#define MRC_RX_CB(skb)	((struct mrc_rx_cb *)(skb)->cb)

/* demux.c: every datagram the UDP tunnel receives (net.h) */
void mrc_rx_rcv(struct sk_buff *skb, bool ce);
void mrc_rx_exit(void);
/* Count the datagram @skb on @qp's counters, unless it was counted. */
void mrc_rx_count(struct mrc_qp *qp, struct sk_buff *skb);
/* Datagrams that found no device of ours on their netdev, module-wide. */
long mrc_rx_no_device_count(void);

/* rx.c, all with xp->lock held */
/*
 * One packet for @xp; true if it was taken and mrc_rx_pkts_done() must
 * follow (once for all packets of a datagram).
 */
bool mrc_rx_pkt(struct mrc_xp *xp, u64 now, const struct mrc_pkt *pkt,
		const struct sk_buff *skb, bool ce, struct sk_buff_head *out);
void mrc_rx_pkts_done(struct mrc_xp *xp, u64 now, struct sk_buff_head *out);
/*
 * Report finished receives; true if the send engine must run: it queued
 * responses, or a response answered a READ or ATOMIC (the run retires it).
 */
bool mrc_rx_complete(struct mrc_xp *xp);

/* ackq.c */
bool mrc_ackq_defer(struct mrc_xp *xp);
void mrc_ackq_init(void);
void mrc_ackq_exit(void);

#endif /* _MRC_XPORT_H */
