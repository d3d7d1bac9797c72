// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * [PATH-8] A plane's link seen from its connections: when a netdev of the
 * device goes down or loses its carrier, every RC connection fails the
 * paths it sends on that plane at once and resends what they had in
 * flight on the others, rather than waiting for the paths' silence
 * ([PATH-5]); the peer, which cannot see our NIC, still finds its own
 * paths there silent. When the link is back those paths move and probe
 * at once. A connection that starts using a plane whose link is down
 * already (its HELLO negotiated the planes) fails them as it starts.
 */

#include "core/hello.h"
#include "counter.h"
#include "metaroce.h"
#include "plane.h"
#include "verbs.h"
#include "xport.h"

/*
 * With xp->lock held: tell the core whether the paths on plane @k have
 * their link (@k of MRC_PLANES_MAX: every plane, as it is now).
 */
static void mrc_xp_link(struct mrc_xp *xp, u32 k, bool up, u64 now)
{
	u64 downs = xp->conn.stats.path_link_downs;
	struct mrc_xp_paths_was was;
	u32 i, pk, paths = 0;

	BUILD_BUG_ON(MRC_MAX_PATHS > 32);	/* a path mask in a u32 */
	mrc_xp_paths_note(xp, &was);
	rcu_read_lock();
	for (i = 0; i < xp->conn.cfg.npaths; i++) {
		pk = mrc_hello_plane_of(&xp->hello, i);
		if (k < MRC_PLANES_MAX && pk != k)
			continue;
		if (k == MRC_PLANES_MAX) {
			struct net_device *ndev = pk ?
				mrc_plane_ndev_rcu(xp->dev, pk, xp->plane_id[pk]) :
				xp->ndev;

			/* a plane gone since: plane 0 carries its paths */
			if (!ndev || (netif_running(ndev) &&
				      netif_carrier_ok(ndev)))
				continue;
		}
		paths |= 1u << i;
	}
	rcu_read_unlock();
	/* all at once: a connection on that plane alone keeps its timeouts */
	mrc_conn_link(&xp->conn, paths, up, now);
	mrc_xp_stat_add(xp, MRC_STAT_PATH_LINK_FAILS,
			xp->conn.stats.path_link_downs - downs);
	mrc_xp_count_paths(xp, &was);
	/* the engine resends, moves what came back and re-arms the timer */
	mrc_xp_kick(xp);
}

void mrc_xp_links_now(struct mrc_xp *xp, u64 now)
{
	if (!xp->dead && xp->live)
		mrc_xp_link(xp, MRC_PLANES_MAX, false, now);
}

void mrc_xp_plane_link(struct mrc_dev *dev, u32 k, u32 id, bool up)
{
	struct mrc_qp *qp;
	u32 qpn = 0;

	if (k >= MRC_PLANES_MAX)
		return;
	while ((qp = mrc_qp_get_next(&dev->ibdev, &qpn))) {
		struct mrc_xp *xp = mrc_xp_of(qp);

		if (xp) {
			spin_lock_bh(&xp->lock);
			if (!xp->dead && xp->live && (!k || xp->plane_id[k] == id))
				mrc_xp_link(xp, k, up, ktime_get_ns());
			spin_unlock_bh(&xp->lock);
		}
		mrc_qp_put(qp);
		if (qpn == U32_MAX)
			break;
		qpn++;
	}
}
