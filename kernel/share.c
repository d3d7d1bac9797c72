// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The receiver's fair-share rate hint ([CC-10]): the device's inbound
 * capacity divided among the connections that delivered data lately. The
 * capacity is the netdev's link speed, or rx_capacity_mbps when set (a
 * virtio or veth netdev reports no speed; without one no hint is sent).
 */

#include <linux/ktime.h>
#include <linux/module.h>

#include "metaroce.h"
#include "share.h"

/* [CC-10] longer than one sender's gap between packets at its share */
#define MRC_SHARE_EPOCH_NS	(500 * NSEC_PER_USEC)
#define MRC_BYTES_PER_MBIT	125000ull

static uint rx_capacity_mbps;
module_param(rx_capacity_mbps, uint, 0644);
MODULE_PARM_DESC(rx_capacity_mbps,
		 "inbound capacity for the receiver's rate hint, Mbit/s; 0: the link speed");

void mrc_share_init(struct mrc_share *sh)
{
	spin_lock_init(&sh->lock);
	mrc_cc_share_init(&sh->s, 0, MRC_SHARE_EPOCH_NS, ktime_get_ns());
}

static u64 mrc_share_capacity(struct mrc_dev *dev)
{
	u32 mbps = READ_ONCE(rx_capacity_mbps);

	return (u64)(mbps ? mbps : READ_ONCE(dev->link_mbps)) *
	       MRC_BYTES_PER_MBIT;
}

void mrc_share_note(struct mrc_dev *dev, u32 *seen, u64 now)
{
	struct mrc_share *sh = &dev->share;

	if (!mrc_share_capacity(dev))
		return;
	spin_lock(&sh->lock);
	mrc_cc_share_note(&sh->s, seen, now);
	spin_unlock(&sh->lock);
}

u32 mrc_share_hint(struct mrc_dev *dev, u64 now)
{
	struct mrc_share *sh = &dev->share;
	u64 cap = mrc_share_capacity(dev);
	u32 hint;

	if (!cap)
		return 0;
	spin_lock(&sh->lock);
	sh->s.capacity_bps = cap;
	hint = mrc_cc_share_hint(&sh->s, now);
	spin_unlock(&sh->lock);
	return hint;
}
