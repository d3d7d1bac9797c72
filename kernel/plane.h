/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * [PATH-8] A device's planes seen from a connection: the addresses it
 * announces in its HELLO and the netdev a plane's packets leave by.
 * The planes themselves are kept by registry.c; sysfs edits them here.
 */
#ifndef _MRC_PLANE_H
#define _MRC_PLANE_H

#include "core/hello.h"
#include "metaroce.h"

/*
 * @dev's planes for a connection from @saddr (plane 0's address): into
 * @l's table (a plane without an address of @saddr's family gets none)
 * and their ids into @ids, 0 for none. Any context.
 */
void mrc_planes_snapshot(struct mrc_dev *dev, const struct sockaddr *saddr,
			 struct mrc_hello_local *l, u32 *ids);

/* Under RCU: plane @k's netdev if it is still the plane @id, else NULL. */
struct net_device *mrc_plane_ndev_rcu(struct mrc_dev *dev, u32 k, u32 id);

/* @a as a plane address (family 4 or 6); false for another family. */
bool mrc_plane_from_sockaddr(const struct sockaddr *sa,
			     struct mrc_plane_addr *a);

/* @a (family 4 or 6) as a sockaddr into @ss. */
void mrc_plane_to_sockaddr(const struct mrc_plane_addr *a,
			   struct sockaddr_storage *ss);

#endif /* _MRC_PLANE_H */
