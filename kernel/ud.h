/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Datagrams: the transport of UD queue pairs and of the GSI QP (QP1),
 * which carries the MADs of ib_cm and therefore the RDMA CM. One work
 * request is one UD_SEND packet ([PKT-85]); nothing is acknowledged or
 * resent, so this needs none of the core's connection state.
 */
#ifndef _MRC_UD_H
#define _MRC_UD_H

#include <linux/skbuff.h>

#include "core/wire.h"
#include "verbs.h"

/* WQEs one run of a QP's UD sender takes before it leaves the rest */
#define MRC_UD_TX_BUDGET	64

extern const struct mrc_qp_hooks mrc_ud_hooks;

/*
 * Receive one validated UD_SEND (softirq, from rx.c). @skb still has its
 * IP header (for the GRH) and MAC header; the caller frees it.
 */
void mrc_ud_rcv(struct ib_device *ibdev, struct sk_buff *skb,
		const struct mrc_pkt *pkt);

#endif /* _MRC_UD_H */
