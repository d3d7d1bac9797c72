// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The device counters (stats.h) as ib_core's hw_stats: allocation, names,
 * and the sum over CPUs that `rdma statistic` and sysfs hw_counters read,
 * for the port and for QP counters (counter.c).
 */

#include <rdma/ib_verbs.h>

#include "core/path.h"
#include "stats.h"

static const struct rdma_stat_desc mrc_stat_descs[] = {
	[MRC_STAT_TX_PACKETS].name = "tx_packets",
	[MRC_STAT_TX_BYTES].name = "tx_bytes",
	[MRC_STAT_TX_GSO_BURSTS].name = "tx_gso_bursts",
	[MRC_STAT_TX_MULTI_SEG].name = "tx_multi_seg",
	[MRC_STAT_RX_PACKETS].name = "rx_packets",
	[MRC_STAT_RX_BYTES].name = "rx_bytes",
	[MRC_STAT_RX_DROPPED].name = "rx_dropped",
	[MRC_STAT_RX_DROP_MALFORMED].name = "rx_drop_malformed",
	[MRC_STAT_RX_DROP_NO_QP].name = "rx_drop_no_qp",
	[MRC_STAT_RX_DROP_QP_TYPE].name = "rx_drop_qp_type",
	[MRC_STAT_RX_DROP_QP_STATE].name = "rx_drop_qp_state",
	[MRC_STAT_RX_DROP_COOKIE].name = "rx_drop_cookie",
	[MRC_STAT_RX_DROP_SOURCE].name = "rx_drop_source",
	[MRC_STAT_RX_DROP_QKEY].name = "rx_drop_qkey",
	[MRC_STAT_RETRANSMITS].name = "retransmits",
	[MRC_STAT_ACKS_SENT].name = "acks_sent",
	[MRC_STAT_ACKS_RECEIVED].name = "acks_received",
	[MRC_STAT_ECN_CE].name = "ecn_ce_received",
	[MRC_STAT_ACKS_FOR_DELAY].name = "acks_for_delay",
	[MRC_STAT_ACKS_FOR_COUNT].name = "acks_for_count",
	[MRC_STAT_ACKS_FOR_ORDER].name = "acks_for_order",
	[MRC_STAT_ACKS_FOR_DUP].name = "acks_for_dup",
	[MRC_STAT_ACKS_FOR_CE].name = "acks_for_ce",
	[MRC_STAT_ACKS_FOR_REQ].name = "acks_for_request",
	[MRC_STAT_ACKS_FOR_MSG].name = "acks_for_message",
	[MRC_STAT_ACKS_FOR_WINDOW].name = "acks_for_window",
	[MRC_STAT_NAKS_SENT].name = "naks_sent",
	[MRC_STAT_NAKS_REPEATED].name = "naks_repeated",
	[MRC_STAT_ACK_BUNDLES].name = "ack_bundles",
	[MRC_STAT_RX_IN_PLACE].name = "rx_in_place",
	[MRC_STAT_TX_BUNDLES].name = "tx_bundles",
	[MRC_STAT_TX_BUNDLED].name = "tx_bundled",
	[MRC_STAT_RX_BUNDLES].name = "rx_bundles",
	[MRC_STAT_TX_BUF_REUSED].name = "tx_buf_reused",
	[MRC_STAT_TX_BUF_FRESH].name = "tx_buf_fresh",
	[MRC_STAT_ACKS_RODE].name = "acks_rode",
	[MRC_STAT_ACK_HOLDS_EXPIRED].name = "ack_holds_expired",
	[MRC_STAT_PATH_FAILS].name = "path_fails",
	[MRC_STAT_PATH_MOVES].name = "path_moves",
	[MRC_STAT_PROBES_ANSWERED].name = "probes_answered",
	[MRC_STAT_TX_DROPPED].name = "tx_dropped",
	[MRC_STAT_RX_LOOPBACK].name = "rx_loopback",
	[MRC_STAT_HELLOS_SENT].name = "hellos_sent",
	[MRC_STAT_HELLOS_RECEIVED].name = "hellos_received",
	[MRC_STAT_HELLOS_REFUSED].name = "hellos_refused",
	[MRC_STAT_PLANES_NEGOTIATED].name = "planes_negotiated",
	[MRC_STAT_TX_PLANE_GONE].name = "tx_plane_gone",
	[MRC_STAT_PATHS_OPENED].name = "paths_opened",
	[MRC_STAT_PROBES_SENT].name = "probes_sent",
	[MRC_STAT_PROBES_PROVED].name = "probes_proved",
	[MRC_STAT_TAIL_COPIES].name = "tail_copies",
	[MRC_STAT_PATH_LINK_FAILS].name = "path_link_fails",
	[MRC_STAT_STALL_COPIES].name = "stall_copies",
};

static_assert(MRC_STAT_ACKS_FOR_WINDOW - MRC_STAT_ACKS_FOR_DELAY ==
	      MRC_ACK_WHY_WINDOW - MRC_ACK_WHY_DELAY);

static_assert(ARRAY_SIZE(mrc_stat_descs) == MRC_STAT_NUM);

int mrc_stats_init(struct mrc_dev *dev)
{
	dev->stats = alloc_percpu(struct mrc_stats);
	return dev->stats ? 0 : -ENOMEM;
}

void mrc_stats_free(struct mrc_dev *dev)
{
	free_percpu(dev->stats);
	dev->stats = NULL;
}

struct rdma_hw_stats *mrc_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port)
{
	return rdma_alloc_hw_stats_struct(mrc_stat_descs, MRC_STAT_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/*
 * Counted before any QP is known, or for the device's buffers: always on
 * the device, never on a QP counter, so `rdma statistic qp show` leaves
 * them out.
 */
static const enum mrc_stat mrc_stats_device_only[] = {
	MRC_STAT_RX_DROP_NO_QP,
	MRC_STAT_RX_IN_PLACE,
	MRC_STAT_TX_BUF_REUSED,
	MRC_STAT_TX_BUF_FRESH,
};

/*
 * A QP counter's values have the device's layout: ib_core adds a freed
 * counter's values to the port's by index (its history).
 */
struct rdma_hw_stats *mrc_alloc_qp_counter_stats(void)
{
	struct rdma_hw_stats *stats;
	int i;

	stats = rdma_alloc_hw_stats_struct(mrc_stat_descs, MRC_STAT_NUM,
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	for (i = 0; stats && i < ARRAY_SIZE(mrc_stats_device_only); i++)
		set_bit(mrc_stats_device_only[i], stats->is_disabled);
	return stats;
}

void mrc_stats_sum(struct mrc_stats __percpu *s, struct rdma_hw_stats *out)
{
	int cpu, i;

	memset(out->value, 0, MRC_STAT_NUM * sizeof(out->value[0]));
	for_each_possible_cpu(cpu) {
		const struct mrc_stats *c = per_cpu_ptr(s, cpu);

		for (i = 0; i < MRC_STAT_NUM; i++)
			out->value[i] += READ_ONCE(c->v[i]);
	}
}

int mrc_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	mrc_stats_sum(to_mrc_dev(ibdev)->stats, stats);
	return MRC_STAT_NUM;
}
