/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * PROBE packets of an RC connection ([PKT-75], [PKT-76], [PATH-4]), with
 * xp->lock held: our REQs prove a failed path's new route while other
 * paths carry the data, and the peer's REQs get their RESP.
 */
#ifndef _MRC_PROBE_H
#define _MRC_PROBE_H

#include "xport.h"

/* The REQs the core wants sent now, queued on @out. */
void mrc_probe_send_reqs(struct mrc_xp *xp, u64 now, struct sk_buff_head *out);

/*
 * A valid PROBE of this connection arrived from UDP port @sport: answer a
 * REQ, take a RESP.
 */
void mrc_probe_rx(struct mrc_xp *xp, u64 now, const struct mrc_pkt *in,
		  u16 sport, struct sk_buff_head *out);

#endif /* _MRC_PROBE_H */
