/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Our devices, by netdev: the receive path's lookup (demux.c, softirq)
 * and the list the device's life is managed on (main.c). Below both, so
 * the receive path does not reach up into module setup.
 *
 * Our own list rather than ib_device_get_by_netdev(): with
 * RDMA_DRIVER_UNKNOWN that lookup matches every driver's devices (rxe's
 * on the same netdev, say), and ib_unregister_driver(RDMA_DRIVER_UNKNOWN)
 * would remove them all.
 *
 * Lock order: RTNL, then the registry lock. The registry lock is never
 * held across ib_register_device() or any unregistration, which take
 * RTNL themselves.
 */
#ifndef _MRC_REGISTRY_H
#define _MRC_REGISTRY_H

#include "metaroce.h"

/* A reference (ib_device_put()) to our device on @ndev, from any context. */
struct mrc_dev *mrc_dev_get_by_netdev(const struct net_device *ndev);

/* Put @dev on the list unless its netdev carries one or is leaving. */
int mrc_registry_add(const char *name, struct mrc_dev *dev);

/*
 * After ib_register_device(): mark @dev live, or return -ENODEV if its
 * netdev left meanwhile, for the caller to unregister it again.
 */
int mrc_registry_go_live(struct mrc_dev *dev);

/* ib_core deallocates @dev (ops.dealloc_driver): off the list. */
void mrc_registry_forget(struct mrc_dev *dev);

/*
 * Run @fn on our device on @ndev, if any, with the registry locked: the
 * device cannot leave the list meanwhile.
 */
void mrc_registry_with(const struct net_device *ndev,
		       void (*fn)(struct mrc_dev *dev, unsigned long arg),
		       unsigned long arg);

/*
 * [PATH-8] Run @fn on every live device that has @ndev as plane @k (its
 * netdev is plane 0; @id, the plane's id, 0 there), with the registry
 * locked: the devices cannot go meanwhile.
 */
void mrc_registry_with_link(const struct net_device *ndev,
			    void (*fn)(struct mrc_dev *dev, u32 k, u32 id,
				       bool up),
			    bool up);

/*
 * [PATH-8] With RTNL held: make @ndev (held by the caller, in @dev's
 * namespace) @dev's next plane; its index, or -EEXIST (already one of
 * @dev's), -EBUSY (another device's netdev or plane), -ENOSPC (no free
 * slot), -ENODEV (being removed). Takes its own reference on @ndev.
 */
int mrc_registry_plane_add(struct mrc_dev *dev, struct net_device *ndev);

/* With RTNL held: drop @dev's plane on @ndev; -ENOENT if none. */
int mrc_registry_plane_del(struct mrc_dev *dev, const struct net_device *ndev);

/* With RTNL held: @ndev leaves; drop it from whatever device has it as a plane. */
void mrc_registry_plane_gone(const struct net_device *ndev);

/* ib_core frees @dev: its planes go (no sender can reach them). */
void mrc_registry_planes_free(struct mrc_dev *dev);

/* Assert that the caller runs under mrc_registry_with(). */
void mrc_registry_assert_held(void);

/*
 * The first device still listed, with a reference (put_device()), or
 * NULL: for removing them all at module unload.
 */
struct mrc_dev *mrc_registry_first(void);

#endif /* _MRC_REGISTRY_H */
