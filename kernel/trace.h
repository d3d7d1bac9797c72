/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Tracepoints of metaroce (TRACE_SYSTEM metaroce).
 *
 * mrc_path_ack fires once per valid ACK, after the core applied it, with
 * the numbers of the path it acknowledged: RTT, windows, counters.
 * mrc_path_state fires, with the same record, for each path whose state
 * or source port a core call changed (failed, re-entropied, probing,
 * proven again): a path that gets no ACKs still reports where it stands.
 * mrc_path_rx fires on the receiving end, once per ACK built, with the
 * cumulative counters of the peer's path the ACK answers: arrivals new and
 * duplicate, holes, CE marks, the window. Per ACK, not per packet, as the
 * sender's side is per ACK received.
 * The BPF telemetry (bpf/path_telemetry.bpf.c, userspace/tools/metaroce-top)
 * attaches to all three; with nothing attached they cost a static branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM metaroce

#if !defined(MRC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MRC_TRACE_H

#include <linux/tracepoint.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "metaroce.h"
#include "xport.h"
#include "trace_fields.h"

#ifndef MRC_TRACE_HELPERS
#define MRC_TRACE_HELPERS
static inline u32 mrc_trace_us(u64 ns)
{
	return (u32)min_t(u64, div_u64(ns, NSEC_PER_USEC), U32_MAX);
}

/* PSNs from the receive window's base to the newest, and of those missing */
static inline u16 mrc_trace_rx_span(const struct mrc_path_rx *rx)
{
	return (u16)min_t(u32, rx->next - rx->cum, U16_MAX);
}

static inline u16 mrc_trace_rx_holes(const struct mrc_path_rx *rx)
{
	u32 i, got = 0, span = mrc_trace_rx_span(rx);

	for (i = 0; i < MRC_SACK_WORDS; i++)
		got += hweight64(rx->bits[i]);
	return span > got ? (u16)(span - got) : 0;
}
#endif

/* @path is one of the connection's (checked by the caller). */
DECLARE_EVENT_CLASS(mrc_path_class,
		    TP_PROTO(const struct mrc_xp *xp, u32 path, u32 rate_hint,
			     u8 was_state, u16 was_sport),
		    TP_ARGS(xp, path, rate_hint, was_state, was_sport),
		    TP_STRUCT__entry(MRC_TP_PATH_FIELDS),
		    TP_fast_assign(const struct mrc_path *p = &xp->conn.path[path];

				   strscpy(__entry->dev, dev_name(&xp->qp->ibqp.device->dev),
					   MRC_TP_DEV_LEN);
				   __entry->tx_pkts = p->tx.sent_pkts;
				   __entry->acked_pkts = p->tx.acked_pkts;
				   __entry->lost_pkts = mrc_path_tx_lost(&p->tx);
				   __entry->late_pkts = p->tx.late_acks;
				   __entry->rto_fired = p->tx.rto_fired;
				   __entry->tx_bytes = p->tx.sent_bytes;
				   __entry->acked_bytes = p->tx.acked_bytes;
				   __entry->qpn = xp->qp->ibqp.qp_num;
				   __entry->srtt_us = mrc_trace_us(p->tx.srtt_ns);
				   __entry->min_rtt_us = mrc_trace_us(p->tx.min_rtt_ns);
				   __entry->rto_us = mrc_trace_us(p->tx.rto_ns);
				   __entry->cwnd = p->cc.cwnd;
				   __entry->inflight = p->tx.inflight_bytes;
				   __entry->conn_cwnd = xp->conn.cc.cwnd;
				   __entry->ce = p->ce_seen;
				   __entry->rate_hint = rate_hint;
				   __entry->moves = (u32)(p->reentropies + p->repaths);
				   __entry->rtt_us = mrc_trace_us(p->tx.last_rtt_ns);
				   __entry->rtt_samples = p->tx.rtt_samples;
				   __entry->loss_pm = (u16)p->cc.loss_pm;
				   __entry->mark_pm = (u16)p->cc.mark_pm;
				   __entry->sport = p->sport;
				   __entry->path = path;
				   __entry->state = p->state;
				   __entry->was_state = was_state;
				   __entry->fail_why = p->fail_why;
				   __entry->was_sport = was_sport;),
		    TP_printk("%s qpn=%u path=%u sport=%u state=%u was=%u/%u why=%u srtt_us=%u cwnd=%u inflight=%u conn_cwnd=%u tx_pkts=%llu lost=%llu late=%llu rto=%llu ce=%u hint=%u",
			      __entry->dev, __entry->qpn, __entry->path,
			      __entry->sport, __entry->state, __entry->was_state,
			      __entry->was_sport, __entry->fail_why, __entry->srtt_us,
			      __entry->cwnd, __entry->inflight, __entry->conn_cwnd,
			      __entry->tx_pkts, __entry->lost_pkts, __entry->late_pkts,
			      __entry->rto_fired, __entry->ce, __entry->rate_hint)
);

DEFINE_EVENT(mrc_path_class, mrc_path_ack,
	     TP_PROTO(const struct mrc_xp *xp, u32 path, u32 rate_hint,
		      u8 was_state, u16 was_sport),
	     TP_ARGS(xp, path, rate_hint, was_state, was_sport)
);

DEFINE_EVENT(mrc_path_class, mrc_path_state,
	     TP_PROTO(const struct mrc_xp *xp, u32 path, u32 rate_hint,
		      u8 was_state, u16 was_sport),
	     TP_ARGS(xp, path, rate_hint, was_state, was_sport)
);

/* @ack was just built by mrc_conn_ack_next() for one of the peer's paths. */
TRACE_EVENT(mrc_path_rx,
	    TP_PROTO(const struct mrc_xp *xp, const struct mrc_ack_info *ack),
	    TP_ARGS(xp, ack),
	    TP_STRUCT__entry(MRC_TP_RX_FIELDS),
	    TP_fast_assign(const struct mrc_path_rx *rx = &xp->conn.path[ack->path_id].rx;

			   strscpy(__entry->dev, dev_name(&xp->dev->ibdev.dev),
				   MRC_TP_DEV_LEN);
			   __entry->rx_pkts = rx->rx_new;
			   __entry->rx_bytes = rx->new_bytes;
			   __entry->placed_bytes = rx->placed_bytes;
			   __entry->dup_pkts = rx->rx_dup;
			   __entry->dup_bytes = rx->dup_bytes;
			   __entry->late_pkts = rx->rx_late;
			   __entry->skipped = rx->rx_skipped;
			   __entry->slides = rx->slides;
			   __entry->oow = rx->rx_oow;
			   __entry->acks = rx->acks;
			   __entry->qpn = xp->qpn;
			   __entry->ce = rx->ce_count;
			   __entry->ack_delay_us = ack->ack_delay / NSEC_PER_USEC;
			   __entry->rate_hint = ack->rate_hint;
			   __entry->span = mrc_trace_rx_span(rx);
			   __entry->holes = mrc_trace_rx_holes(rx);
			   __entry->peer_sport = rx->peer_sport;
			   __entry->ack_sport = ack->sport;
			   __entry->path = ack->path_id;
			   __entry->why = ack->why;),
	    TP_printk("%s qpn=%u path=%u sport=%u new=%llu bytes=%llu placed=%llu dup=%llu late=%llu skipped=%llu slides=%llu ce=%u span=%u holes=%u why=%u",
		      __entry->dev, __entry->qpn, __entry->path,
		      __entry->peer_sport, __entry->rx_pkts, __entry->rx_bytes,
		      __entry->placed_bytes, __entry->dup_pkts,
		      __entry->late_pkts, __entry->skipped, __entry->slides,
		      __entry->ce, __entry->span, __entry->holes, __entry->why)
);

#endif /* MRC_TRACE_H */

/* Out of tree the header is found through -I$(src), see Kbuild. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
