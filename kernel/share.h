/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The receiver's fair share ([CC-9]..[CC-11] in
 * Documentation/protocol/congestion.rst): one per device, counted over
 * every RC connection that delivers data to it, put into every ACK.
 */
#ifndef _MRC_SHARE_H
#define _MRC_SHARE_H

#include <linux/spinlock.h>

#include "core/cc.h"

struct mrc_dev;

struct mrc_share {
	spinlock_t lock;	/* any QP's receive or ACK path, BH off */
	struct mrc_cc_share s;
};

void mrc_share_init(struct mrc_share *sh);
/* A connection (its marker @seen) delivered new data at @now. */
void mrc_share_note(struct mrc_dev *dev, u32 *seen, u64 now);
/* The hint for an ACK sent at @now, Mbit/s; 0 if the capacity is unknown. */
u32 mrc_share_hint(struct mrc_dev *dev, u64 now);

#endif /* _MRC_SHARE_H */
