/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The UDP tunnel under metaroce: one kernel UDP socket pair (IPv4 and
 * IPv6) per (network namespace, destination port), shared by every QP of
 * every device in that namespace; skb in, skb out. This layer knows
 * nothing above it: the receiver is a function handed over at open.
 */
#ifndef _MRC_NET_H
#define _MRC_NET_H

#include <linux/skbuff.h>
#include <linux/socket.h>
#include <net/dst_cache.h>
#include <net/net_namespace.h>

struct mrc_net;

/*
 * The routes of one sender to one peer, cached per flow (source port and
 * TOS: either may pick the route). With every slot taken a new flow takes
 * the slot taken longest ago (a repaired path's new port, [PATH-7], would
 * otherwise never be cached); a flow whose cache could not be allocated
 * looks its route up per packet. The owner serializes every use of one
 * cache (sends, reset) and zeroes it first.
 */
#define MRC_NET_ROUTES	16

struct mrc_net_route {
	struct dst_cache cache;
	u16 sport;
	u8 tos;
	bool used;
};

struct mrc_net_routes {
	struct mrc_net_route r[MRC_NET_ROUTES];
	u32 next;		/* slot to retag when all are used */
};

/* The peer or its address changed: forget every route. */
void mrc_net_routes_reset(struct mrc_net_routes *rs);
void mrc_net_routes_free(struct mrc_net_routes *rs);

/*
 * Receive handler, softirq context. @skb->data is the first byte of the
 * MetaRoCE header (the UDP payload), skb->dev the ingress netdev; @ce is
 * the IP ECN CE mark; skb->pkt_type is PACKET_LOOPBACK for a datagram
 * looped back (net_loop.h). The handler owns @skb and must free it.
 */
typedef void (*mrc_net_rcv_t)(struct sk_buff *skb, bool ce);

/*
 * Process context: the shared socket of @net, opened on first use;
 * -ENETDOWN if @net is dying. It stays valid until mrc_net_put(), but
 * @net's exit closes it under its holders (net.c).
 */
struct mrc_net *mrc_net_get(struct net *net);
void mrc_net_put(struct mrc_net *n);
/* The UDP destination port @n's sockets take. */
u16 mrc_net_port(const struct mrc_net *n);
/* False once the namespace's exit closed the sockets under the holders. */
bool mrc_net_open(const struct mrc_net *n);

/* Module init and exit: the namespaces' exit hook. */
/* @rcv: the one handler of every datagram, the module's (demux.c) */
int mrc_net_init(mrc_net_rcv_t rcv);
void mrc_net_fini(void);

/* Bytes to reserve in front of a packet's MetaRoCE header. */
unsigned int mrc_net_headroom(const struct net_device *ndev);

/*
 * One UDP GSO skb from the packets on @list (same flow, all as long as the
 * first but the last, which may be shorter), which it consumes. NULL if
 * out of memory: the packets are gone, as if lost on the wire.
 */
struct sk_buff *mrc_net_join(const struct net_device *ndev,
			     struct sk_buff_head *list);

/*
 * Send @skb (data = the MetaRoCE header, payload and ICRC) from @saddr to
 * @daddr (both struct sockaddr_in or both sockaddr_in6) out of @ndev,
 * source port @sport, DSCP @dscp, ECT(0) if @ect; @skb may be a
 * mrc_net_join() burst. Any context but hard irq; with bottom halves off
 * if @rs (the routes to @daddr, or NULL) is given. Consumes @skb; returns
 * 0 or a negative errno (route lookup; -ENETDOWN once the namespace is
 * gone; -ENOBUFS when the loopback queue is full). A datagram to an
 * address of this namespace is looped back (net_loop.h) rather than sent.
 * Transmit faults (fault.h) are the caller's to inject, once per packet,
 * before packets are joined.
 */
int mrc_net_xmit(struct mrc_net *n, struct net_device *ndev,
		 struct mrc_net_routes *rs, struct sk_buff *skb,
		 const struct sockaddr *saddr, const struct sockaddr *daddr,
		 u16 sport, u8 dscp, bool ect);

#endif /* _MRC_NET_H */
