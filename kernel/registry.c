// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Our devices, by netdev; see registry.h.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/rculist.h>

#include "registry.h"

static DEFINE_MUTEX(mrc_registry_lock);
static LIST_HEAD(mrc_registry);

static struct mrc_dev *mrc_registry_find(const struct net_device *ndev)
{
	struct mrc_dev *dev;

	lockdep_assert_held(&mrc_registry_lock);
	list_for_each_entry(dev, &mrc_registry, registry)
		if (dev->ndev == ndev)
			return dev;
	return NULL;
}

/* Under RCU or the registry lock: is @ndev one of @dev's planes 1..? */
static bool mrc_dev_has_plane(const struct mrc_dev *dev,
			      const struct net_device *ndev)
{
	const struct mrc_plane *pl;
	u32 k;

	for (k = 1; k < MRC_PLANES_MAX; k++) {
		pl = rcu_dereference_check(dev->plane[k],
					   lockdep_is_held(&mrc_registry_lock));
		if (pl && pl->ndev == ndev)
			return true;
	}
	return false;
}

/*
 * From softirq. The list is RCU-safe and ib_core frees devices with
 * kfree_rcu(), so a reference is taken before leaving RCU. A datagram on
 * any plane's netdev is the device's ([PATH-8]).
 */
struct mrc_dev *mrc_dev_get_by_netdev(const struct net_device *ndev)
{
	struct mrc_dev *dev, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(dev, &mrc_registry, registry) {
		if ((dev->ndev == ndev || mrc_dev_has_plane(dev, ndev)) &&
		    ib_device_try_get(&dev->ibdev)) {
			found = dev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* The device that uses @ndev as its netdev or a plane. */
static struct mrc_dev *mrc_registry_user(const struct net_device *ndev)
{
	struct mrc_dev *dev;

	lockdep_assert_held(&mrc_registry_lock);
	list_for_each_entry(dev, &mrc_registry, registry)
		if (dev->ndev == ndev || mrc_dev_has_plane(dev, ndev))
			return dev;
	return NULL;
}

int mrc_registry_plane_add(struct mrc_dev *dev, struct net_device *ndev)
{
	struct mrc_dev *other;
	struct mrc_plane *pl;
	int k, err = -ENOSPC;

	ASSERT_RTNL();
	pl = kzalloc(sizeof(*pl), GFP_KERNEL);
	if (!pl)
		return -ENOMEM;
	mutex_lock(&mrc_registry_lock);
	other = mrc_registry_user(ndev);
	if (other) {
		err = other == dev ? -EEXIST : -EBUSY;
		goto out;
	}
	/* under RTNL: its NETDEV_UNREGISTER has not run, or ran already */
	if (ndev->reg_state != NETREG_REGISTERED) {
		err = -ENODEV;
		goto out;
	}
	for (k = 1; k < MRC_PLANES_MAX; k++) {
		if (rcu_access_pointer(dev->plane[k]))
			continue;
		dev_hold(ndev);
		pl->ndev = ndev;
		pl->id = ++dev->plane_ids;
		rcu_assign_pointer(dev->plane[k], pl);
		pl = NULL;
		err = k;
		break;
	}
out:
	mutex_unlock(&mrc_registry_lock);
	kfree(pl);
	return err;
}

static void mrc_plane_free_rcu(struct rcu_head *head)
{
	struct mrc_plane *pl = container_of(head, struct mrc_plane, rcu);

	dev_put(pl->ndev);
	kfree(pl);
}

/* Off @dev at slot @k; senders that found it finish first. */
static void mrc_plane_drop(struct mrc_dev *dev, u32 k)
{
	struct mrc_plane *pl;

	pl = rcu_replace_pointer(dev->plane[k], NULL,
				 lockdep_is_held(&mrc_registry_lock));
	if (pl)
		call_rcu(&pl->rcu, mrc_plane_free_rcu);
}

/* @dev's planes on @ndev go; how many. */
static int mrc_planes_drop_ndev(struct mrc_dev *dev,
				const struct net_device *ndev)
{
	const struct mrc_plane *pl;
	int n = 0;
	u32 k;

	for (k = 1; k < MRC_PLANES_MAX; k++) {
		pl = rcu_dereference_protected(dev->plane[k],
					       lockdep_is_held(&mrc_registry_lock));
		if (pl && pl->ndev == ndev) {
			mrc_plane_drop(dev, k);
			n++;
		}
	}
	return n;
}

int mrc_registry_plane_del(struct mrc_dev *dev, const struct net_device *ndev)
{
	int n;

	mutex_lock(&mrc_registry_lock);
	n = mrc_planes_drop_ndev(dev, ndev);
	mutex_unlock(&mrc_registry_lock);
	return n ? 0 : -ENOENT;
}

void mrc_registry_plane_gone(const struct net_device *ndev)
{
	struct mrc_dev *dev;

	mutex_lock(&mrc_registry_lock);
	list_for_each_entry(dev, &mrc_registry, registry)
		if (mrc_planes_drop_ndev(dev, ndev))
			pr_info("%s: plane %s removed: its netdev is going away\n",
				dev_name(&dev->ibdev.dev), netdev_name(ndev));
	mutex_unlock(&mrc_registry_lock);
}

void mrc_registry_planes_free(struct mrc_dev *dev)
{
	u32 k;

	mutex_lock(&mrc_registry_lock);
	for (k = 1; k < MRC_PLANES_MAX; k++)
		mrc_plane_drop(dev, k);
	mutex_unlock(&mrc_registry_lock);
}

int mrc_registry_add(const char *name, struct mrc_dev *dev)
{
	struct mrc_dev *other;
	int err = 0;

	mutex_lock(&mrc_registry_lock);
	other = mrc_registry_user(dev->ndev);
	if (other) {
		/*
		 * ibdev.name, a plain array, is safe to read while a rename
		 * runs; it is empty until the other registration has begun.
		 */
		pr_err("%s: %s already carries metaroce device %s (or is its plane)\n", name,
		       netdev_name(dev->ndev),
		       other->ibdev.name[0] ? other->ibdev.name :
					      "(being created)");
		err = -EEXIST;
	} else if (READ_ONCE(dev->ndev->reg_state) != NETREG_REGISTERED) {
		/* Its NETDEV_UNREGISTER ran before we were listed. */
		pr_err("%s: %s is being removed\n", name,
		       netdev_name(dev->ndev));
		err = -ENODEV;
	} else {
		list_add_tail_rcu(&dev->registry, &mrc_registry);
		dev->listed = true;
	}
	mutex_unlock(&mrc_registry_lock);
	return err;
}

int mrc_registry_go_live(struct mrc_dev *dev)
{
	int err = 0;

	mutex_lock(&mrc_registry_lock);
	/* Off the list means `rdma link delete` removed it already. */
	if (dev->listed) {
		if (dev->ndev_gone) {
			err = -ENODEV;
		} else {
			dev->live = true;
			dev->port_state = mrc_port_state(dev->ndev);
		}
	}
	mutex_unlock(&mrc_registry_lock);
	return err;
}

void mrc_registry_forget(struct mrc_dev *dev)
{
	mutex_lock(&mrc_registry_lock);
	if (dev->listed) {
		list_del_rcu(&dev->registry);
		dev->listed = false;
	}
	mutex_unlock(&mrc_registry_lock);
}

void mrc_registry_with(const struct net_device *ndev,
		       void (*fn)(struct mrc_dev *dev, unsigned long arg),
		       unsigned long arg)
{
	struct mrc_dev *dev;

	mutex_lock(&mrc_registry_lock);
	dev = mrc_registry_find(ndev);
	if (dev)
		fn(dev, arg);
	mutex_unlock(&mrc_registry_lock);
}

void mrc_registry_with_link(const struct net_device *ndev,
			    void (*fn)(struct mrc_dev *dev, u32 k, u32 id,
				       bool up),
			    bool up)
{
	const struct mrc_plane *pl;
	struct mrc_dev *dev;
	u32 k;

	mutex_lock(&mrc_registry_lock);
	list_for_each_entry(dev, &mrc_registry, registry) {
		if (!dev->live)
			continue;
		if (dev->ndev == ndev)
			fn(dev, 0, 0, up);
		for (k = 1; k < MRC_PLANES_MAX; k++) {
			pl = rcu_dereference_protected(dev->plane[k],
						       lockdep_is_held(&mrc_registry_lock));
			if (pl && pl->ndev == ndev)
				fn(dev, k, pl->id, up);
		}
	}
	mutex_unlock(&mrc_registry_lock);
}

void mrc_registry_assert_held(void)
{
	lockdep_assert_held(&mrc_registry_lock);
}

struct mrc_dev *mrc_registry_first(void)
{
	struct mrc_dev *dev;

	mutex_lock(&mrc_registry_lock);
	dev = list_first_entry_or_null(&mrc_registry, struct mrc_dev,
				       registry);
	if (dev)
		get_device(&dev->ibdev.dev);
	mutex_unlock(&mrc_registry_lock);
	return dev;
}
