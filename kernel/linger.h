/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Lingering ([REL-21] in Documentation/protocol/reliability.rst): the
 * transport of a destroyed RC QP stays a while to acknowledge resends of
 * what it had placed.
 */
#ifndef _MRC_LINGER_H
#define _MRC_LINGER_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

struct mrc_dev;
struct mrc_pkt;
struct mrc_xp;
struct sk_buff;

/* Per device: its lingering transports, oldest first. */
struct mrc_linger {
	spinlock_t lock;		/* the list and count; readers use RCU */
	struct list_head list;
	u32 count;
	struct delayed_work reap;
};

void mrc_linger_init(struct mrc_linger *l);
/* Free every lingering transport; the device is going away. */
void mrc_linger_purge(struct mrc_linger *l);

/*
 * From hooks->release: the transport is dead, its timer and work are
 * stopped, no QP reference is left, and the QP's memory is still there.
 * The device owns the transport from here; the caller must not touch it.
 */
void mrc_linger_start(struct mrc_xp *xp);

/*
 * A packet in @skb for a QP number no QP has: a lingering transport
 * answers it, or it is dropped and counted.
 */
void mrc_linger_rcv(struct mrc_dev *dev, const struct sk_buff *skb,
		    const struct mrc_pkt *pkt, bool ce);

#endif /* _MRC_LINGER_H */
