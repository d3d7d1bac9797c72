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

/*
 * From softirq. The list is RCU-safe and ib_core frees devices with
 * kfree_rcu(), so a reference is taken before leaving RCU.
 */
struct mrc_dev *mrc_dev_get_by_netdev(const struct net_device *ndev)
{
	struct mrc_dev *dev, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(dev, &mrc_registry, registry) {
		if (dev->ndev == ndev && ib_device_try_get(&dev->ibdev)) {
			found = dev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

int mrc_registry_add(const char *name, struct mrc_dev *dev)
{
	struct mrc_dev *other;
	int err = 0;

	mutex_lock(&mrc_registry_lock);
	other = mrc_registry_find(dev->ndev);
	if (other) {
		/*
		 * ibdev.name, a plain array, is safe to read while a rename
		 * runs; it is empty until the other registration has begun.
		 */
		pr_err("%s: %s already carries metaroce device %s\n", name,
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
