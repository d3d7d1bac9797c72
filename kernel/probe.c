// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * PROBE packets of an RC connection; see probe.h. The core decides which
 * path a REQ proves and what its answer means (mrc_conn_probe_next(),
 * mrc_conn_on_probe_resp()); here they become packets and back.
 */

#include "ack.h"
#include "metaroce.h"
#include "probe.h"
#include "counter.h"
#include "stats.h"

/* A PROBE of @kind on our path or the peer's @path_id, sealed onto @out. */
static int mrc_probe_send(struct mrc_xp *xp, struct mrc_pkt *pkt, u16 sport,
			  u32 dscp, struct sk_buff_head *out)
{
	struct sk_buff *skb;
	u32 hlen;

	pkt->type = MRC_PKT_PROBE;
	pkt->cookie = mrc_ack_cookie(xp, pkt);
	pkt->probe.min_ver = MRC_WIRE_VERSION;
	pkt->probe.max_ver = MRC_WIRE_VERSION;
	pkt->probe.caps = MRC_CAP_ATOMIC | MRC_CAP_RATE_HINT;
	hlen = mrc_wire_hdr_len(pkt);
	skb = mrc_xp_alloc_skb(xp, hlen + MRC_WIRE_ICRC_LEN);
	if (!skb)
		return -ENOMEM;
	skb_put(skb, hlen);
	return mrc_xp_seal(xp, skb, pkt, sport, dscp, out);
}

void mrc_probe_send_reqs(struct mrc_xp *xp, u64 now, struct sk_buff_head *out)
{
	struct mrc_probe_req req;

	while (mrc_conn_probe_next(&xp->conn, now, &req)) {
		struct mrc_pkt pkt = { };

		pkt.path_id = req.path_id;
		pkt.tsval = (u32)now;
		pkt.probe.kind = MRC_PROBE_REQ;
		pkt.probe.seq = req.seq;
		/*
		 * In the data's class: the route and queues the path's data
		 * will take are what the answer proves. A REQ that could not
		 * be sent is lost like one the network dropped: its timeout
		 * fails the path again.
		 */
		if (!mrc_probe_send(xp, &pkt, req.sport, xp->dscp_data, out))
			mrc_xp_stat_inc(xp, MRC_STAT_PROBES_SENT);
	}
}

/*
 * [PKT-76] a REQ gets one RESP on its path, unpadded (no more bytes out
 * than came in, [SEC-7]); a RESP answers one of our REQs, or is ignored.
 */
void mrc_probe_rx(struct mrc_xp *xp, u64 now, const struct mrc_pkt *in,
		  u16 sport, struct sk_buff_head *out)
{
	struct mrc_xp_paths_was was;
	struct mrc_pkt pkt = { };

	if (in->probe.kind == MRC_PROBE_RESP) {
		if (!xp->live)
			return;
		mrc_xp_paths_note(xp, &was);
		if (mrc_conn_on_probe_resp(&xp->conn, now, in->path_id,
					   in->probe.seq, in->probe.tsecr))
			mrc_xp_stat_inc(xp, MRC_STAT_PROBES_PROVED);
		mrc_xp_count_paths(xp, &was);
		return;
	}
	/* the peer proves a new port: the answer, and later ACKs, take it */
	if (xp->live)
		mrc_conn_rx_probe_route(&xp->conn, in->path_id, sport);
	pkt.path_id = in->path_id;
	pkt.tsval = (u32)now;
	pkt.probe.kind = MRC_PROBE_RESP;
	pkt.probe.seq = in->probe.seq;
	pkt.probe.tsecr = in->tsval;
	pkt.probe.echo_len = in->hdr_len + in->payload_len + MRC_WIRE_ICRC_LEN;
	if (!mrc_probe_send(xp, &pkt, mrc_conn_ack_sport(&xp->conn, in->path_id),
			    xp->dscp_ctrl, out))
		mrc_xp_stat_inc(xp, MRC_STAT_PROBES_ANSWERED);
}
