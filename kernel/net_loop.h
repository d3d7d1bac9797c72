/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Loopback under the UDP tunnel ([ENC-17], net_loop.c): datagrams to an
 * address of the sender's own namespace go straight to the receive
 * handler, never through the IP stack. Part of the net layer: it knows
 * nothing above it either.
 */
#ifndef _MRC_NET_LOOP_H
#define _MRC_NET_LOOP_H

#include "net.h"

/*
 * RCU held: the netdev of @net that owns @daddr (sockaddr_in or _in6),
 * or NULL when the address is not this namespace's.
 */
struct net_device *mrc_net_loop_dev(struct net *net,
				    const struct sockaddr *daddr);

/*
 * Deliver @skb (as mrc_net_xmit() takes it) to @rcv as received on @to,
 * later, from softirq. Consumes @skb; 0, or -ENOBUFS or -ENOMEM when it
 * was dropped (all of it, a burst included).
 */
int mrc_net_loop_xmit(struct net_device *to, struct sk_buff *skb,
		      const struct sockaddr *saddr,
		      const struct sockaddr *daddr, u16 sport, u16 dport,
		      u8 tos, mrc_net_rcv_t rcv);

void mrc_net_loop_init(void);
/* Module exit, once no sender is left: drop what is still queued. */
void mrc_net_loop_exit(void);

#endif /* _MRC_NET_LOOP_H */
