/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The answers of a connection's receive side: the ACKs the core says are
 * due, bundled for a peer that takes bundles ([ENC-9]) or riding with a
 * reply ([REL-24]), and what every control packet carries. Below the
 * receive path (rx.c), the send engine (tx.c), the ACK queue (ackq.c),
 * lingering (linger.c) and xport.c's run; above xport.c's packet
 * primitives only.
 */
#ifndef _MRC_ACK_H
#define _MRC_ACK_H

#include "xport.h"

/*
 * [PKT-16] without a hello the cookie is the starting PSN of a direction.
 * We read "direction" as the one a packet serves: data and responses
 * carry their sender's starting PSN (xp->tx_cookie), ACKs and NAKs the
 * starting PSN of the data they answer (xp->rx_cookie), so that a
 * responder that never reaches RTS still sends ACKs the requester takes.
 */
static inline bool mrc_ack_is_ctrl(const struct mrc_pkt *pkt)
{
	return pkt->type == MRC_PKT_ACK || pkt->type == MRC_PKT_NAK ||
	       pkt->type == MRC_PKT_PROBE;
}

static inline u32 mrc_ack_cookie(const struct mrc_xp *xp,
				 const struct mrc_pkt *pkt)
{
	return mrc_ack_is_ctrl(pkt) ? xp->rx_cookie : xp->tx_cookie;
}

/* [ENC-9] the flag our connection packets carry when we take bundles */
u16 mrc_ack_bundle_flag(void);

/* With xp->lock held: every ACK due at @now, queued on @out. */
void mrc_ack_send(struct mrc_xp *xp, u64 now, struct sk_buff_head *out);

#endif /* _MRC_ACK_H */
