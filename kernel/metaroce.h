/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The metaroce device: one ib_device per Ethernet netdev, created by
 * `rdma link add NAME type metaroce netdev DEV`.
 *
 * Lifetime, in one place so every file can rely on it:
 *  - main.c creates the device in newlink, keeps it in the registry
 *    (registry.c, keyed by netdev), and removes it on `rdma link delete`,
 *    on NETDEV_UNREGISTER and on module unload.
 *  - ib_core owns the memory: it is freed after ops.dealloc_driver
 *    (mrc_dev_dealloc) has run and the last ib_device reference is gone.
 *  - The netdev pointer stays valid for the whole life of the device:
 *    ib_device_set_netdev() holds a reference that ib_core drops only
 *    when the device is deallocated.
 */
#ifndef _MRC_METAROCE_H
#define _MRC_METAROCE_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "core/wire.h"
#include "linger.h"
#include "share.h"
#include "uapi/metaroce-abi.h"
#include "verbs.h"

#define MRC_DRV_NAME		"metaroce"

/* One port per device: a device is bound to exactly one netdev. */
#define MRC_PORT		1

/*
 * Bytes a payload-carrying packet spends on encapsulation: IPv6 (the larger
 * IP header) + UDP + the worst-case MetaRoCE overhead ([ENC-20] in
 * Documentation/protocol/encapsulation.rst). A port reports the largest IB
 * MTU whose payload fits in the netdev MTU after this.
 */
#define MRC_ENCAP_OVERHEAD	(MRC_WIRE_IPV6_LEN + MRC_WIRE_UDP_LEN + \
				 MRC_WIRE_DATA_OVERHEAD)

/* Room for the netdev's addresses, those of its VLAN uppers, and the
 * default link-local GID; ib_core fills the table, we only size it.
 */
#define MRC_GID_TABLE_LEN	128

struct mrc_stats;

/*
 * [PATH-8] Planes: plane 0 is the device's netdev, planes 1.. are netdevs
 * added at run time (plane.c, /sys/class/infiniband/<dev>/planes). Each
 * holds its netdev until an RCU grace period after it left the device,
 * so a sender that found it under RCU may still send through it.
 */
#define MRC_PLANES_MAX		4

struct mrc_plane {
	struct net_device *ndev;	/* dev_hold()'d */
	u32 id;				/* never reused within the device */
	struct rcu_head rcu;
};

struct mrc_dev {
	struct ib_device ibdev;		/* first: ib_alloc_device() wants it */
	struct net_device *ndev;	/* held by ib_core, see above */

	/* Registry state, under the registry's lock (registry.c). */
	struct list_head registry;	/* RCU list; see mrc_dev_get_by_netdev() */
	bool listed;			/* on the registry; false once dealloc ran */
	bool live;			/* ib_register_device() returned */
	bool ndev_gone;			/* netdev left before we were live */
	enum ib_port_state port_state;	/* last state announced by event */
	u32 link_mbps;			/* netdev speed, 0 if unknown (RTNL) */

	/* [PATH-8] planes 1..; changed under the registry's lock, RCU */
	struct mrc_plane __rcu *plane[MRC_PLANES_MAX];
	u32 plane_ids;			/* the last id given */

	/* Unregistration requested from the netdev notifier. */
	struct work_struct unreg_work;

	struct mrc_stats __percpu *stats;	/* counters (stats.h) */
	struct xarray counters;		/* QP counters by id (counter.c) */

	struct mrc_verbs_tables tables;	/* MR keys, QP numbers (verbs.c) */
	struct mrc_linger linger;	/* destroyed QPs answering (linger.c) */
	struct mrc_share share;		/* receiver's rate hint (share.c) */
};

static inline struct mrc_dev *to_mrc_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mrc_dev, ibdev);
}

struct mrc_ucontext {
	struct ib_ucontext ibuc;
};

static inline struct mrc_ucontext *to_mrc_ucontext(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct mrc_ucontext, ibuc);
}

/* device.c: what a device is and what it reports. */
struct mrc_dev *mrc_dev_alloc(struct net_device *ndev);
enum ib_port_state mrc_port_state(const struct net_device *ndev);
void mrc_dev_update_speed(struct mrc_dev *dev);

/* ucontext.c: the userspace handshake. */
int mrc_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void mrc_dealloc_ucontext(struct ib_ucontext *ibuc);
void mrc_disassociate_ucontext(struct ib_ucontext *ibuc);
int mrc_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);

/* main.c: `rdma link add @name type metaroce netdev @ndev`, also KUnit's. */
int mrc_dev_add(const char *name, struct net_device *ndev);
/* Can @ndev carry a device or a plane? An errno and a message if not. */
int mrc_check_netdev(const char *name, struct net_device *ndev);

/* plane.c: [PATH-8] the device's planes */
extern struct device_attribute dev_attr_planes;

#endif /* _MRC_METAROCE_H */
