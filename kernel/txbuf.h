/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Transmit buffers that are filled again instead of zeroed again (txbuf.c).
 */
#ifndef _MRC_TXBUF_H
#define _MRC_TXBUF_H

#include <linux/skbuff.h>

struct mrc_dev;

struct sk_buff *mrc_txbuf_skb(struct mrc_dev *dev, unsigned int size);
int mrc_txbuf_init(void);
void mrc_txbuf_exit(void);

#endif /* _MRC_TXBUF_H */
