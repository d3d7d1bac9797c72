// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Fault injection, for tests of the transport's loss recovery: per
 * metaroce device, in one direction, on every path or on one (UDP source
 * port), drop / duplicate / delay / reorder packets with given
 * probabilities drawn from a seeded PRNG, so a failing run can be
 * replayed with the same seed.
 *
 * /sys/kernel/debug/metaroce/<ibdev>/fault/
 *   mode            0 off (default), 1 receive, 2 transmit (drop only:
 *                   holding or copying a packet on transmit would need its
 *                   addresses and route, receive needs nothing but the skb)
 *   seed            writing it restarts the random sequence
 *   drop_ppm, duplicate_ppm, delay_ppm, reorder_ppm
 *                   probabilities in parts per million, checked in that
 *                   order per packet; a duplicate is handed over at once
 *   delay_us        how long a delayed packet is held (jiffy resolution)
 *   port            UDP source port (one path) to act on, 0: every path
 *   type            receive: MetaRoCE packet type to act on (wire.h
 *                   enum mrc_pkt_type), 0: every type
 *   drop_next       receive: drop this many of the next packets acted on,
 *                   before any draw (counts down): one lost NAK, say
 *   dropped, duplicated, delayed, reordered   what was done (read only)
 *
 * A reordered packet is held until the next packet of the device has been
 * handed over, or delay_us if none comes. Held packets keep their order
 * among themselves; they are released by a timer in softirq context, like
 * the UDP receive they came from.
 *
 * The devices are found through an ib_client, so the verbs code needs no
 * hook; the transport calls mrc_fault_rx()/mrc_fault_tx() (fault.h), one
 * static branch while no device has a mode set.
 */

#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/udp.h>
#include <rdma/ib_verbs.h>

#include "metaroce.h"
#include "fault.h"
#include "xport.h"

DEFINE_STATIC_KEY_FALSE(mrc_fault_on);

enum { MRC_FAULT_OFF, MRC_FAULT_RX, MRC_FAULT_TX, MRC_FAULT_MODES };

#define MRC_FAULT_PPM	1000000

struct mrc_fault {
	struct list_head list;		/* mrc_faults, RCU */
	struct net_device *ndev;	/* compared, never dereferenced */
	struct dentry *dir;

	/* settings: written by debugfs, read locklessly per packet */
	u32 mode;
	u32 drop, dup, delay, reorder;	/* ppm */
	u32 delay_us;
	u32 port;
	u32 type;			/* receive: 0 or enum mrc_pkt_type */
	u32 drop_next;			/* debugfs sets it, f->lock counts it down */

	spinlock_t lock;		/* rnd, held, counters */
	struct rnd_state rnd;
	u64 seed;
	struct sk_buff_head held;
	struct timer_list timer;
	mrc_net_rcv_t rcv;		/* where held packets go */
	u64 dropped, duplicated, delayed, reordered;
};

/* What a held packet remembers, in skb->cb (the UDP layer is done with it). */
struct mrc_fault_cb {
	unsigned long due;		/* jiffies */
	bool ce;
	bool reorder;			/* also released by the next packet */
};

static inline struct mrc_fault_cb *mrc_fault_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct mrc_fault_cb) > sizeof(skb->cb));
	return (struct mrc_fault_cb *)skb->cb;
}

static LIST_HEAD(mrc_faults);
static DEFINE_MUTEX(mrc_faults_lock);	/* list writers, mode changes */
static struct dentry *mrc_fault_root;
static struct ib_client mrc_fault_client;

static struct mrc_fault *mrc_fault_find(const struct net_device *ndev,
					u32 mode)
{
	struct mrc_fault *f;

	list_for_each_entry_rcu(f, &mrc_faults, list)
		if (f->ndev == ndev)
			return READ_ONCE(f->mode) == mode ? f : NULL;
	return NULL;
}

/* Under f->lock: true with probability @ppm per million. */
static bool mrc_fault_roll(struct mrc_fault *f, u32 ppm)
{
	return ppm && prandom_u32_state(&f->rnd) % MRC_FAULT_PPM < ppm;
}

/* The packet is of the type to act on (skb->data: the MetaRoCE header). */
static bool mrc_fault_type_ok(struct mrc_fault *f, const struct sk_buff *skb)
{
	u32 type = READ_ONCE(f->type);
	u8 buf, *t;

	if (!type)
		return true;
	t = skb_header_pointer(skb, MRC_WO_TYPE, 1, &buf);
	return t && *t == type;
}

static void mrc_fault_deliver(mrc_net_rcv_t rcv, struct sk_buff_head *list)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(list)))
		rcv(skb, mrc_fault_cb(skb)->ce);
}

/* Under f->lock: move the held packets that are due (or reordered) out. */
static void mrc_fault_take(struct mrc_fault *f, struct sk_buff_head *out,
			   bool reordered)
{
	struct sk_buff *skb, *tmp;

	skb_queue_walk_safe(&f->held, skb, tmp) {
		struct mrc_fault_cb *cb = mrc_fault_cb(skb);

		if (time_after_eq(jiffies, cb->due) ||
		    (reordered && cb->reorder)) {
			__skb_unlink(skb, &f->held);
			__skb_queue_tail(out, skb);
		}
	}
	skb = skb_peek(&f->held);
	if (skb)
		mod_timer(&f->timer, mrc_fault_cb(skb)->due);
}

static void mrc_fault_timer(struct timer_list *t)
{
	struct mrc_fault *f = from_timer(f, t, timer);
	struct sk_buff_head out;

	__skb_queue_head_init(&out);
	spin_lock_bh(&f->lock);
	mrc_fault_take(f, &out, false);
	spin_unlock_bh(&f->lock);
	mrc_fault_deliver(f->rcv, &out);
}

bool __mrc_fault_rx(struct sk_buff *skb, bool ce, mrc_net_rcv_t rcv)
{
	struct sk_buff *copy = NULL;
	struct sk_buff_head out;
	struct mrc_fault_cb *cb;
	struct mrc_fault *f;
	bool held = false;
	u32 port;

	rcu_read_lock();
	f = mrc_fault_find(skb->dev, MRC_FAULT_RX);
	port = f ? READ_ONCE(f->port) : 0;
	if (!f || (port && ntohs(udp_hdr(skb)->source) != port) ||
	    !mrc_fault_type_ok(f, skb)) {
		rcu_read_unlock();
		return false;
	}
	__skb_queue_head_init(&out);
	spin_lock_bh(&f->lock);
	f->rcv = rcv;
	if (f->drop_next || mrc_fault_roll(f, READ_ONCE(f->drop))) {
		if (f->drop_next)
			f->drop_next--;
		f->dropped++;
		spin_unlock_bh(&f->lock);
		rcu_read_unlock();
		kfree_skb(skb);
		return true;
	}
	if (mrc_fault_roll(f, READ_ONCE(f->dup))) {
		copy = skb_clone(skb, GFP_ATOMIC);
		if (copy)
			f->duplicated++;
	}
	cb = mrc_fault_cb(skb);
	cb->ce = ce;
	cb->reorder = false;
	if (mrc_fault_roll(f, READ_ONCE(f->delay))) {
		f->delayed++;
		held = true;
	} else if (mrc_fault_roll(f, READ_ONCE(f->reorder))) {
		f->reordered++;
		cb->reorder = true;
		held = true;
	}
	if (held) {
		cb->due = jiffies + usecs_to_jiffies(READ_ONCE(f->delay_us));
		__skb_queue_tail(&f->held, skb);
		if (!timer_pending(&f->timer))
			mod_timer(&f->timer, cb->due);
	} else {
		__skb_queue_tail(&out, skb);
		/* what was held for reordering goes after this one */
		mrc_fault_take(f, &out, true);
	}
	spin_unlock_bh(&f->lock);
	rcu_read_unlock();

	if (copy)
		rcv(copy, ce);
	mrc_fault_deliver(rcv, &out);
	return true;
}

bool __mrc_fault_tx(struct net_device *ndev, struct sk_buff *skb, u16 sport)
{
	struct mrc_fault *f;
	bool drop = false;
	u32 port;

	rcu_read_lock();
	f = mrc_fault_find(ndev, MRC_FAULT_TX);
	port = f ? READ_ONCE(f->port) : 0;
	if (f && (!port || port == sport)) {
		spin_lock_bh(&f->lock);
		drop = mrc_fault_roll(f, READ_ONCE(f->drop));
		if (drop)
			f->dropped++;
		spin_unlock_bh(&f->lock);
	}
	rcu_read_unlock();
	if (drop)
		kfree_skb(skb);
	return drop;
}

/* Mode changes flip the static key: one increment per device not off. */
static void mrc_fault_set_mode(struct mrc_fault *f, u32 mode)
{
	struct sk_buff_head out;

	lockdep_assert_held(&mrc_faults_lock);
	if (!f->mode && mode)
		static_branch_inc(&mrc_fault_on);
	else if (f->mode && !mode)
		static_branch_dec(&mrc_fault_on);
	WRITE_ONCE(f->mode, mode);
	if (mode == MRC_FAULT_RX)
		return;
	/* nothing is held outside receive mode: hand it all over now */
	__skb_queue_head_init(&out);
	spin_lock_bh(&f->lock);
	skb_queue_splice_init(&f->held, &out);
	spin_unlock_bh(&f->lock);
	if (!skb_queue_empty(&out)) {
		local_bh_disable();
		mrc_fault_deliver(f->rcv, &out);
		local_bh_enable();
	}
}

static int mrc_fault_mode_get(void *data, u64 *val)
{
	struct mrc_fault *f = data;

	*val = READ_ONCE(f->mode);
	return 0;
}

static int mrc_fault_mode_set(void *data, u64 val)
{
	struct mrc_fault *f = data;

	if (val >= MRC_FAULT_MODES)
		return -EINVAL;
	mutex_lock(&mrc_faults_lock);
	mrc_fault_set_mode(f, val);
	mutex_unlock(&mrc_faults_lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(mrc_fault_mode_fops, mrc_fault_mode_get,
			 mrc_fault_mode_set, "%llu\n");

static int mrc_fault_seed_get(void *data, u64 *val)
{
	struct mrc_fault *f = data;

	spin_lock_bh(&f->lock);
	*val = f->seed;
	spin_unlock_bh(&f->lock);
	return 0;
}

static int mrc_fault_seed_set(void *data, u64 val)
{
	struct mrc_fault *f = data;

	spin_lock_bh(&f->lock);
	f->seed = val;
	prandom_seed_state(&f->rnd, val);
	spin_unlock_bh(&f->lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(mrc_fault_seed_fops, mrc_fault_seed_get,
			 mrc_fault_seed_set, "%llu\n");

static void mrc_fault_files(struct mrc_fault *f, struct dentry *d)
{
	debugfs_create_file_unsafe("mode", 0600, d, f, &mrc_fault_mode_fops);
	debugfs_create_file_unsafe("seed", 0600, d, f, &mrc_fault_seed_fops);
	debugfs_create_u32("drop_ppm", 0600, d, &f->drop);
	debugfs_create_u32("duplicate_ppm", 0600, d, &f->dup);
	debugfs_create_u32("delay_ppm", 0600, d, &f->delay);
	debugfs_create_u32("reorder_ppm", 0600, d, &f->reorder);
	debugfs_create_u32("delay_us", 0600, d, &f->delay_us);
	debugfs_create_u32("port", 0600, d, &f->port);
	debugfs_create_u32("type", 0600, d, &f->type);
	debugfs_create_u32("drop_next", 0600, d, &f->drop_next);
	/* read without the lock: a counter may be one packet stale */
	debugfs_create_u64("dropped", 0400, d, &f->dropped);
	debugfs_create_u64("duplicated", 0400, d, &f->duplicated);
	debugfs_create_u64("delayed", 0400, d, &f->delayed);
	debugfs_create_u64("reordered", 0400, d, &f->reordered);
}

static int mrc_fault_add(struct ib_device *ibdev)
{
	struct mrc_fault *f;

	if (ibdev->ops.owner != THIS_MODULE)
		return -EOPNOTSUPP;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->ndev = to_mrc_dev(ibdev)->ndev;
	f->delay_us = 1000;
	f->seed = 1;
	prandom_seed_state(&f->rnd, f->seed);
	spin_lock_init(&f->lock);
	skb_queue_head_init(&f->held);
	timer_setup(&f->timer, mrc_fault_timer, 0);
	f->dir = debugfs_create_dir(dev_name(&ibdev->dev), mrc_fault_root);
	mrc_fault_files(f, debugfs_create_dir("fault", f->dir));

	mutex_lock(&mrc_faults_lock);
	list_add_tail_rcu(&f->list, &mrc_faults);
	mutex_unlock(&mrc_faults_lock);
	ib_set_client_data(ibdev, &mrc_fault_client, f);
	return 0;
}

static void mrc_fault_remove(struct ib_device *ibdev, void *data)
{
	struct mrc_fault *f = data;

	debugfs_remove(f->dir);		/* no more mode writes */
	mutex_lock(&mrc_faults_lock);
	mrc_fault_set_mode(f, MRC_FAULT_OFF);
	list_del_rcu(&f->list);
	mutex_unlock(&mrc_faults_lock);
	synchronize_rcu();		/* no receive holds f any more */
	del_timer_sync(&f->timer);
	skb_queue_purge(&f->held);
	kfree(f);
}

static struct ib_client mrc_fault_client = {
	.name = "metaroce-fault",
	.add = mrc_fault_add,
	.remove = mrc_fault_remove,
};

static int mrc_rx_no_device_get(void *data, u64 *val)
{
	*val = mrc_rx_no_device_count();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(mrc_rx_no_device_fops, mrc_rx_no_device_get, NULL,
			 "%llu\n");

int mrc_fault_init(void)
{
	int err;

	mrc_fault_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	/* no device to count these on; beside the devices' directories */
	debugfs_create_file_unsafe("rx_no_device", 0444, mrc_fault_root, NULL,
				   &mrc_rx_no_device_fops);
	err = ib_register_client(&mrc_fault_client);
	if (err)
		debugfs_remove(mrc_fault_root);
	return err;
}

void mrc_fault_exit(void)
{
	ib_unregister_client(&mrc_fault_client);
	debugfs_remove(mrc_fault_root);
}
