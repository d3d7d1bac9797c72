/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Fault injection for tests: drop, duplicate, delay or reorder the packets
 * of one metaroce device, in one direction, optionally on one path (UDP
 * source port), with a seeded pseudo-random sequence so a run can be
 * repeated. Configured in debugfs, /sys/kernel/debug/metaroce/<ibdev>/fault/
 * (see fault.c). Off by default; while no device has it on, each hook costs
 * one static branch.
 */
#ifndef _MRC_FAULT_H
#define _MRC_FAULT_H

#include <linux/jump_label.h>
#include <linux/skbuff.h>

#include "net.h"

#if IS_ENABLED(CONFIG_DEBUG_FS)

DECLARE_STATIC_KEY_FALSE(mrc_fault_on);

bool __mrc_fault_rx(struct sk_buff *skb, bool ce, mrc_net_rcv_t rcv);
bool __mrc_fault_tx(struct net_device *ndev, struct sk_buff *skb, u16 sport);
int mrc_fault_init(void);
void mrc_fault_exit(void);

/*
 * Receive point, before the handler: true when the fault layer took
 * @skb (dropped or held back); it may also have handed a copy to @rcv.
 * skb->data is the MetaRoCE header, the UDP header just in front of it.
 */
static inline bool mrc_fault_rx(struct sk_buff *skb, bool ce,
				mrc_net_rcv_t rcv)
{
	if (static_branch_unlikely(&mrc_fault_on))
		return __mrc_fault_rx(skb, ce, rcv);
	return false;
}

/* Transmit point: true when the fault layer dropped (and freed) @skb. */
static inline bool mrc_fault_tx(struct net_device *ndev, struct sk_buff *skb,
				u16 sport)
{
	if (static_branch_unlikely(&mrc_fault_on))
		return __mrc_fault_tx(ndev, skb, sport);
	return false;
}

#else

static inline bool mrc_fault_rx(struct sk_buff *skb, bool ce,
				mrc_net_rcv_t rcv)
{
	return false;
}

static inline bool mrc_fault_tx(struct net_device *ndev, struct sk_buff *skb,
				u16 sport)
{
	return false;
}

static inline int mrc_fault_init(void)
{
	return 0;
}

static inline void mrc_fault_exit(void)
{
}

#endif

#endif /* _MRC_FAULT_H */
