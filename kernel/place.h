/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Received payload into memory, for the receive path (SEND, WRITE) and
 * the send engine (READ responses), and the receives a failed QP gives
 * back. Only through mr_copy.c, i.e. the single MR check.
 */
#ifndef _MRC_PLACE_H
#define _MRC_PLACE_H

#include "xport.h"

/*
 * @pkt's payload into an SGE list at message offset @offset: from its
 * bytes in one piece, or from @skb when the datagram was left in
 * fragments (mrc_rx_in_place(), mrc_rx_pbundle_pkt()).
 */
int mrc_place_sgl(const struct mrc_pkt *pkt, const struct sk_buff *skb,
		  const struct ib_pd *pd, const struct mrc_sge *sge,
		  u32 num_sge, u64 offset);

/* The same into an MR range at @va. */
int mrc_place_mr(const struct mrc_pkt *pkt, const struct sk_buff *skb,
		 struct mrc_mr *mr, u64 va);

/* With xp->lock held, in ERR: give back every receive WQE we took. */
void mrc_place_flush_recvs(struct mrc_xp *xp);

#endif /* _MRC_PLACE_H */
