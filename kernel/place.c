// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Received payload into memory (place.h). */

#include "metaroce.h"
#include "place.h"

/* The offset of @pkt's payload in @skb, when it was left there. */
static u32 mrc_place_payload_off(const struct mrc_pkt *pkt,
				 const struct sk_buff *skb)
{
	return ((const struct mrc_rx_cb *)skb->cb)->pkt_off + pkt->hdr_len;
}

int mrc_place_sgl(const struct mrc_pkt *pkt, const struct sk_buff *skb,
		  const struct ib_pd *pd, const struct mrc_sge *sge,
		  u32 num_sge, u64 offset)
{
	if (pkt->payload)
		return mrc_sgl_copy(pd, sge, num_sge, offset,
				    (void *)pkt->payload, pkt->payload_len,
				    MRC_COPY_TO_MR);
	return mrc_sgl_place_skb(pd, sge, num_sge, offset, skb,
				 mrc_place_payload_off(pkt, skb),
				 pkt->payload_len);
}

int mrc_place_mr(const struct mrc_pkt *pkt, const struct sk_buff *skb,
		 struct mrc_mr *mr, u64 va)
{
	if (pkt->payload)
		return mrc_mr_copy(mr, va, (void *)pkt->payload,
				   pkt->payload_len, MRC_COPY_TO_MR);
	return mrc_mr_place_skb(mr, va, skb, mrc_place_payload_off(pkt, skb),
				pkt->payload_len);
}

void mrc_place_flush_recvs(struct mrc_xp *xp)
{
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
	};

	while (xp->rsn_head != xp->rsn_take) {
		xp->rwqe[xp->rsn_head++ % MRC_CONN_MSGS] = NULL;
		mrc_qp_complete_recv(xp->qp, &wc, false);
	}
}
