// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * [PATH-8] Planes: /sys/class/infiniband/<dev>/planes lists them
 * ("index netdev state addresses", one a line, plane 0 the device's own
 * netdev) and takes "add <netdev>" or "del <netdev>"; and what a
 * connection needs of them: the addresses its HELLO announces and the
 * netdev a plane's packets leave by. A plane added serves connections
 * that reach RTS later; one removed is dropped by its connections, whose
 * paths on it fall back to plane 0.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>

#include "plane.h"
#include "registry.h"

bool mrc_plane_from_sockaddr(const struct sockaddr *sa,
			     struct mrc_plane_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET) {
		a->family = 4;
		memcpy(a->addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		a->family = 6;
		memcpy(a->addr, &((const struct sockaddr_in6 *)sa)->sin6_addr,
		       16);
		return true;
	}
	return false;
}

void mrc_plane_to_sockaddr(const struct mrc_plane_addr *a,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == 4) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		memcpy(&in->sin_addr, a->addr, 4);
	} else if (a->family == 6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, a->addr, 16);
	}
}

/*
 * Under RCU: @ndev's first address of @family (4: the primary IPv4
 * address; 6: the first global IPv6 one, not tentative), into @a.
 */
static bool mrc_plane_addr_rcu(struct net_device *ndev, u8 family,
			       struct mrc_plane_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (family == 4) {
		const struct in_device *in = __in_dev_get_rcu(ndev);
		const struct in_ifaddr *ifa;

		if (!in)
			return false;
		in_dev_for_each_ifa_rcu(ifa, in) {
			a->family = 4;
			memcpy(a->addr, &ifa->ifa_local, 4);
			return true;
		}
		return false;
	}
	if (family == 6 && IS_ENABLED(CONFIG_IPV6)) {
		struct inet6_dev *in6 = __in6_dev_get(ndev);
		const struct inet6_ifaddr *ifp;
		bool found = false;

		if (!in6)
			return false;
		read_lock_bh(&in6->lock);
		list_for_each_entry(ifp, &in6->addr_list, if_list) {
			if (ifp->scope != RT_SCOPE_UNIVERSE ||
			    (ifp->flags & IFA_F_TENTATIVE))
				continue;
			a->family = 6;
			memcpy(a->addr, &ifp->addr, 16);
			found = true;
			break;
		}
		read_unlock_bh(&in6->lock);
		return found;
	}
	return false;
}

void mrc_planes_snapshot(struct mrc_dev *dev, const struct sockaddr *saddr,
			 struct mrc_hello_local *l, u32 *ids)
{
	const struct mrc_plane *pl;
	u32 k, n = 1;

	memset(l->plane, 0, sizeof(l->plane));
	memset(ids, 0, MRC_PLANES_MAX * sizeof(*ids));
	mrc_plane_from_sockaddr(saddr, &l->plane[0]);
	rcu_read_lock();
	for (k = 1; k < MRC_PLANES_MAX; k++) {
		pl = rcu_dereference(dev->plane[k]);
		if (!pl || !l->plane[0].family ||
		    !mrc_plane_addr_rcu(pl->ndev, l->plane[0].family,
					&l->plane[k]))
			continue;
		ids[k] = pl->id;
		n = k + 1;
	}
	rcu_read_unlock();
	l->nplanes = n;
}

struct net_device *mrc_plane_ndev_rcu(struct mrc_dev *dev, u32 k, u32 id)
{
	const struct mrc_plane *pl;

	if (!k || k >= MRC_PLANES_MAX)
		return NULL;
	pl = rcu_dereference(dev->plane[k]);
	return pl && pl->id == id ? pl->ndev : NULL;
}

/* One line of the listing: "index netdev state [addresses]". */
static int mrc_plane_show_one(char *buf, int at, u32 k,
			      struct net_device *ndev)
{
	struct mrc_plane_addr a;
	bool up = netif_running(ndev) && netif_carrier_ok(ndev);

	at += sysfs_emit_at(buf, at, "%u %s %s", k, netdev_name(ndev),
			    up ? "up" : "down");
	if (mrc_plane_addr_rcu(ndev, 4, &a))
		at += sysfs_emit_at(buf, at, " %pI4", a.addr);
	if (mrc_plane_addr_rcu(ndev, 6, &a))
		at += sysfs_emit_at(buf, at, " %pI6c", a.addr);
	return at + sysfs_emit_at(buf, at, "\n");
}

static ssize_t planes_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct mrc_dev *dev = rdma_device_to_drv_device(device, struct mrc_dev,
							ibdev);
	const struct mrc_plane *pl;
	int at = 0;
	u32 k;

	rcu_read_lock();
	at = mrc_plane_show_one(buf, at, 0, dev->ndev);
	for (k = 1; k < MRC_PLANES_MAX; k++) {
		pl = rcu_dereference(dev->plane[k]);
		if (pl)
			at = mrc_plane_show_one(buf, at, k, pl->ndev);
	}
	rcu_read_unlock();
	return at;
}

static const char *mrc_plane_err(int err)
{
	switch (err) {
	case -EEXIST:	return "is a plane of this device already";
	case -EBUSY:	return "is used by another metaroce device";
	case -ENOSPC:	return "would be one plane too many";
	case -ENODEV:	return "is being removed";
	case -ENOENT:	return "is not a plane of this device";
	default:	return "cannot be a plane";
	}
}

/* "add NAME" or "del NAME"; RTNL keeps the netdev registered meanwhile. */
static int mrc_planes_edit(struct mrc_dev *dev, bool add, const char *name)
{
	const char *ib = dev_name(&dev->ibdev.dev);
	struct net_device *ndev;
	int err;

	ndev = dev_get_by_name(dev_net(dev->ndev), name);
	if (!ndev) {
		pr_warn_ratelimited("%s: planes: no netdev %s in the device's namespace\n",
				    ib, name);
		return -ENODEV;
	}
	err = add ? mrc_check_netdev(ib, ndev) : 0;
	if (!err && ndev == dev->ndev)
		err = add ? -EEXIST : -EINVAL;
	if (!err) {
		rtnl_lock();
		err = add ? mrc_registry_plane_add(dev, ndev) :
			    mrc_registry_plane_del(dev, ndev);
		rtnl_unlock();
	}
	if (err == -EINVAL)
		pr_warn_ratelimited("%s: planes: %s is plane 0, the device's own netdev\n",
				    ib, name);
	else if (err < 0 && err != -EOPNOTSUPP)
		pr_warn_ratelimited("%s: planes: %s %s\n", ib, name,
				    mrc_plane_err(err));
	else if (err >= 0)
		pr_info("%s: plane %s %s\n", ib, name,
			add ? "added" : "removed");
	dev_put(ndev);
	return err < 0 ? err : 0;
}

static ssize_t planes_store(struct device *device,
			    struct device_attribute *attr, const char *buf,
			    size_t count)
{
	struct mrc_dev *dev = rdma_device_to_drv_device(device, struct mrc_dev,
							ibdev);
	char verb[4], name[IFNAMSIZ + 1];
	int err;

	if (sscanf(buf, "%3s %16s", verb, name) != 2 ||
	    strnlen(name, sizeof(name)) >= IFNAMSIZ ||
	    (strcmp(verb, "add") && strcmp(verb, "del"))) {
		pr_warn_ratelimited("%s: planes: write \"add <netdev>\" or \"del <netdev>\"\n",
				    dev_name(&dev->ibdev.dev));
		return -EINVAL;
	}
	err = mrc_planes_edit(dev, !strcmp(verb, "add"), name);
	return err ? err : count;
}

struct device_attribute dev_attr_planes = __ATTR_RW(planes);
