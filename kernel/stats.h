/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Per-device counters, shown by `rdma statistic show link <ibdev>/1`, and
 * the same counters per QP counter (`rdma statistic qp`, counter.h).
 *
 * Counting is a per-CPU add: safe in any context (softirq receive
 * included) and free of shared cache lines on the hot path. Readers sum
 * over all CPUs. To add a counter, add it to enum mrc_stat and give it a
 * name in stats.c.
 */
#ifndef _MRC_STATS_H
#define _MRC_STATS_H

#include <linux/percpu.h>

#include "metaroce.h"

enum mrc_stat {
	MRC_STAT_TX_PACKETS,
	MRC_STAT_TX_BYTES,
	MRC_STAT_TX_GSO_BURSTS,
	MRC_STAT_TX_MULTI_SEG,	/* packets of several segments ([ENC-25]) */
	MRC_STAT_RX_PACKETS,
	MRC_STAT_RX_BYTES,
	MRC_STAT_RX_DROPPED,	/* every drop below, and any other */
	/* [SEC-10] received packets dropped, by why (each also rx_dropped) */
	MRC_STAT_RX_DROP_MALFORMED,	/* failed parsing or the ICRC */
	MRC_STAT_RX_DROP_NO_QP,		/* no such QP, nor a lingering one */
	MRC_STAT_RX_DROP_QP_TYPE,	/* not a packet type the QP's type takes */
	MRC_STAT_RX_DROP_QP_STATE,	/* not in a state that receives */
	MRC_STAT_RX_DROP_COOKIE,	/* [PKT-16] another connection's */
	MRC_STAT_RX_DROP_SOURCE,	/* [SEC-3] not from the peer's address */
	MRC_STAT_RX_DROP_QKEY,		/* [PKT-86] a datagram's Q_Key */
	MRC_STAT_RETRANSMITS,
	MRC_STAT_ACKS_SENT,
	MRC_STAT_ACKS_RECEIVED,
	MRC_STAT_ECN_CE,	/* CE-marked packets received */
	/* ACKs sent, by why they were due (enum mrc_ack_why order) */
	MRC_STAT_ACKS_FOR_DELAY,
	MRC_STAT_ACKS_FOR_COUNT,
	MRC_STAT_ACKS_FOR_ORDER,
	MRC_STAT_ACKS_FOR_DUP,
	MRC_STAT_ACKS_FOR_CE,
	MRC_STAT_ACKS_FOR_REQ,
	MRC_STAT_ACKS_FOR_MSG,
	MRC_STAT_ACKS_FOR_WINDOW,
	MRC_STAT_NAKS_SENT,
	MRC_STAT_NAKS_REPEATED,	/* [OPS-31] to resends of a refused message */
	MRC_STAT_ACK_BUNDLES,	/* [ENC-9] datagrams of several ACKs sent */
	MRC_STAT_RX_IN_PLACE,	/* data placed from the NIC's fragments */
	MRC_STAT_TX_BUNDLES,	/* [ENC-13] datagrams of several packets sent */
	MRC_STAT_TX_BUNDLED,	/* ... and the packets in them */
	MRC_STAT_RX_BUNDLES,	/* [ENC-13] packet bundles received */
	MRC_STAT_TX_BUF_REUSED,	/* skbs built in a recycled buffer (txbuf.c) */
	MRC_STAT_TX_BUF_FRESH,	/* ... in a newly allocated one */
	MRC_STAT_ACKS_RODE,	/* [REL-24] held answers that left with data */
	MRC_STAT_ACK_HOLDS_EXPIRED,	/* ... that waited for a reply in vain */
	MRC_STAT_PATH_FAILS,	/* [PATH-5] paths failed */
	MRC_STAT_PATH_MOVES,	/* [PATH-7], [PATH-10] paths that took a new port */
	MRC_STAT_PROBES_ANSWERED,	/* [PKT-76] PROBE REQs answered */
	MRC_STAT_TX_DROPPED,	/* datagrams the net layer could not send */
	MRC_STAT_RX_LOOPBACK,	/* [ENC-17] datagrams received by loopback */
	MRC_STAT_HELLOS_SENT,	/* [PKT-94] OFFERs and ANSWERs sent */
	MRC_STAT_HELLOS_RECEIVED,	/* ... valid ones taken */
	MRC_STAT_HELLOS_REFUSED,	/* ... OFFERs not answered ([SEC-7]) */
	MRC_STAT_PLANES_NEGOTIATED,	/* [PATH-8] connections using >1 plane */
	MRC_STAT_TX_PLANE_GONE,	/* packets of a removed plane sent on plane 0 */
	MRC_STAT_PATHS_OPENED,	/* [PATH-1] connections the peer's HELLO widened */
	MRC_STAT_PROBES_SENT,	/* [PATH-4] PROBE REQs proving failed routes */
	MRC_STAT_PROBES_PROVED,	/* ... answered: the path carries data again */
	MRC_STAT_TAIL_COPIES,	/* [REL-25] of the retransmits, tail copies */
	MRC_STAT_PATH_LINK_FAILS,	/* [PATH-8] paths failed or kept so by a link */
	MRC_STAT_STALL_COPIES,	/* [REL-26] of the retransmits, a stalled window's */
	MRC_STAT_NUM
};

struct mrc_stats {
	u64 v[MRC_STAT_NUM];
};

/*
 * Counting on @s: a device's counters, or a QP counter's that its bound
 * QPs' events go to instead (counter.h).
 */
static inline void mrc_stats_add(struct mrc_stats __percpu *s,
				 enum mrc_stat stat, u64 n)
{
	this_cpu_add(s->v[stat], n);
}

/* A received packet dropped for @why, one of MRC_STAT_RX_DROP_*. */
static inline void mrc_stats_drop(struct mrc_stats __percpu *s,
				  enum mrc_stat why)
{
	this_cpu_inc(s->v[MRC_STAT_RX_DROPPED]);
	this_cpu_inc(s->v[why]);
}

/* Events no QP is known for (yet), or that belong to the device alone. */
static inline void mrc_stat_add(struct mrc_dev *dev, enum mrc_stat stat,
				u64 n)
{
	mrc_stats_add(dev->stats, stat, n);
}

static inline void mrc_stat_inc(struct mrc_dev *dev, enum mrc_stat stat)
{
	mrc_stats_add(dev->stats, stat, 1);
}

static inline void mrc_stat_drop(struct mrc_dev *dev, enum mrc_stat why)
{
	mrc_stats_drop(dev->stats, why);
}

int mrc_stats_init(struct mrc_dev *dev);
void mrc_stats_free(struct mrc_dev *dev);
struct rdma_hw_stats *mrc_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port);
int mrc_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index);
/* For QP counters (counter.c): the same counters, the device's own hidden */
struct rdma_hw_stats *mrc_alloc_qp_counter_stats(void);
void mrc_stats_sum(struct mrc_stats __percpu *s, struct rdma_hw_stats *out);

#endif /* _MRC_STATS_H */
