/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * QP counters (`rdma statistic qp`): ib_core binds QPs to counters, by
 * its auto-mode rule or by hand. A bound QP's events count on its
 * counter's per-CPU array instead of the device's: ib_core shows the
 * port's counters as the device's plus every counter's (and the history
 * of freed ones), so each event is counted once. A transport lingering
 * after its QP (linger.c) counts on the device again.
 */
#ifndef _MRC_COUNTER_H
#define _MRC_COUNTER_H

#include <rdma/rdma_counter.h>

#include "metaroce.h"
#include "stats.h"
#include "verbs.h"
#include "xport.h"

/* Under RCU: where @qp's events count now. */
static inline struct mrc_stats __percpu *mrc_qp_stats_rcu(struct mrc_qp *qp)
{
	struct mrc_stats __percpu *s = rcu_dereference(qp->counter_stats);

	return s ? s : to_mrc_dev(qp->ibqp.device)->stats;
}

/* A transport's events: its QP's, or the device's once it lingers. */
static inline struct mrc_stats __percpu *mrc_xp_stats_rcu(struct mrc_xp *xp)
{
	struct mrc_qp *qp = READ_ONCE(xp->qp);

	return qp ? mrc_qp_stats_rcu(qp) : xp->dev->stats;
}

static inline void mrc_qp_stat_add(struct mrc_qp *qp, enum mrc_stat stat,
				   u64 n)
{
	rcu_read_lock();
	mrc_stats_add(mrc_qp_stats_rcu(qp), stat, n);
	rcu_read_unlock();
}

static inline void mrc_xp_stat_add(struct mrc_xp *xp, enum mrc_stat stat,
				   u64 n)
{
	rcu_read_lock();
	mrc_stats_add(mrc_xp_stats_rcu(xp), stat, n);
	rcu_read_unlock();
}

#define mrc_qp_stat_inc(qp, stat)	mrc_qp_stat_add(qp, stat, 1)
#define mrc_xp_stat_inc(xp, stat)	mrc_xp_stat_add(xp, stat, 1)

/* A received packet dropped for @why, one of MRC_STAT_RX_DROP_*. */
static inline void mrc_qp_stat_drop(struct mrc_qp *qp, enum mrc_stat why)
{
	mrc_qp_stat_inc(qp, MRC_STAT_RX_DROPPED);
	mrc_qp_stat_inc(qp, why);
}

static inline void mrc_xp_stat_drop(struct mrc_xp *xp, enum mrc_stat why)
{
	mrc_xp_stat_inc(xp, MRC_STAT_RX_DROPPED);
	mrc_xp_stat_inc(xp, why);
}

/* ib_core's counter operations (struct ib_device_ops) */
int mrc_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int mrc_counter_unbind_qp(struct ib_qp *ibqp);
int mrc_counter_dealloc(struct rdma_counter *counter);
struct rdma_hw_stats *mrc_counter_alloc_stats(struct rdma_counter *counter);
int mrc_counter_update_stats(struct rdma_counter *counter);

void mrc_counters_init(struct mrc_dev *dev);
void mrc_counters_free(struct mrc_dev *dev);

#endif /* _MRC_COUNTER_H */
