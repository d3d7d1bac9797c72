// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_core's QP counters (counter.h) on per-CPU arrays: one per counter,
 * found by the counter's id in the device's xarray, and pointed to under
 * RCU by each QP bound to it.
 *
 * ib_core calls bind and unbind under the counter's mutex, and frees a
 * counter when its last QP is unbound: it reads the counter's values one
 * last time into the port's history, then deallocates it.
 */

#include <linux/slab.h>

#include "counter.h"

struct mrc_counter {
	struct mrc_stats __percpu *stats;
	u32 nqps;	/* QPs bound, under the rdma_counter's lock */
};

void mrc_counters_init(struct mrc_dev *dev)
{
	xa_init_flags(&dev->counters, XA_FLAGS_ALLOC1);
}

static void mrc_counter_free(struct mrc_counter *c)
{
	free_percpu(c->stats);
	kfree(c);
}

/* A new counter's array, numbered: ib_core names the counter by its id. */
static struct mrc_counter *mrc_counter_new(struct mrc_dev *dev, u32 *id)
{
	struct mrc_counter *c;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->stats = alloc_percpu(struct mrc_stats);
	if (c->stats && !xa_alloc(&dev->counters, id, c, xa_limit_31b,
				  GFP_KERNEL))
		return c;
	mrc_counter_free(c);
	return NULL;
}

int mrc_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct mrc_dev *dev = to_mrc_dev(counter->device);
	struct mrc_counter *c;

	if (!counter->id) {
		c = mrc_counter_new(dev, &counter->id);
		if (!c)
			return -ENOMEM;
	} else {
		c = xa_load(&dev->counters, counter->id);
		if (WARN_ON_ONCE(!c))
			return -EINVAL;
	}
	c->nqps++;
	ibqp->counter = counter;
	rcu_assign_pointer(to_mrc_qp(ibqp)->counter_stats, c->stats);
	return 0;
}

int mrc_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct mrc_dev *dev = to_mrc_dev(ibqp->device);
	struct mrc_counter *c;

	c = xa_load(&dev->counters, ibqp->counter->id);
	RCU_INIT_POINTER(to_mrc_qp(ibqp)->counter_stats, NULL);
	ibqp->counter = NULL;
	/*
	 * The last QP's unbind may free the counter, whose values ib_core
	 * then reads once for the port's history: an event counted on the
	 * array after that read would be lost to the port. Senders and
	 * receivers count under RCU, so one grace period lets them finish.
	 */
	if (c && !--c->nqps)
		synchronize_rcu();
	return 0;
}

int mrc_counter_dealloc(struct rdma_counter *counter)
{
	struct mrc_counter *c;

	c = xa_erase(&to_mrc_dev(counter->device)->counters, counter->id);
	if (c)
		mrc_counter_free(c);
	return 0;
}

struct rdma_hw_stats *mrc_counter_alloc_stats(struct rdma_counter *counter)
{
	return mrc_alloc_qp_counter_stats();
}

int mrc_counter_update_stats(struct rdma_counter *counter)
{
	struct mrc_counter *c;

	c = xa_load(&to_mrc_dev(counter->device)->counters, counter->id);
	if (c)
		mrc_stats_sum(c->stats, counter->stats);
	return 0;
}

/* Device release: ib_core freed every counter with the device's QPs. */
void mrc_counters_free(struct mrc_dev *dev)
{
	struct mrc_counter *c;
	unsigned long id;

	xa_for_each(&dev->counters, id, c) {
		WARN_ON_ONCE(1);
		xa_erase(&dev->counters, id);
		mrc_counter_free(c);
	}
	xa_destroy(&dev->counters);
}
