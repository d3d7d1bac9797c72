// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Module entry points and the life of devices: `rdma link add` creates a
 * device (newlink), the netdev notifier follows the netdev (port events,
 * removal on NETDEV_UNREGISTER), module unload removes whatever is left.
 *
 * Which device belongs to which netdev is the registry's (registry.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>

#include "core/wire.h"
#include "fault.h"
#include "metaroce.h"
#include "net.h"
#include "registry.h"
#include "txbuf.h"
#include "xport.h"

/*
 * Unregistrations requested by the netdev notifier run here, not on
 * ib_core's queue: destroying this queue at module exit guarantees that
 * none of them is still inside our code.
 */
static struct workqueue_struct *mrc_wq;

static void mrc_unreg_work(struct work_struct *work)
{
	struct mrc_dev *dev = container_of(work, struct mrc_dev, unreg_work);

	/* Drops the reference mrc_dev_detach() took. */
	ib_unregister_device_and_put(&dev->ibdev);
}

/* The netdev is going away: so must the device, which holds it. */
static void mrc_dev_detach(struct mrc_dev *dev)
{
	mrc_registry_assert_held();
	if (!dev->live) {
		/* newlink has not finished; it will see this and undo. */
		dev->ndev_gone = true;
		return;
	}
	/* No reference means an unregistration is already under way. */
	if (!ib_device_try_get(&dev->ibdev))
		return;
	dev->live = false;
	queue_work(mrc_wq, &dev->unreg_work);
}

/* Announce a change of port state to ib_core and its clients. */
static void mrc_dev_update_port(struct mrc_dev *dev)
{
	enum ib_port_state state = mrc_port_state(dev->ndev);
	struct ib_event event = {
		.device = &dev->ibdev,
		.element.port_num = MRC_PORT,
	};

	mrc_registry_assert_held();
	if (!dev->live || state == dev->port_state)
		return;
	/*
	 * The event is delivered from a work item; the reference keeps the
	 * device from being torn down before that item is queued, and
	 * teardown flushes the queue.
	 */
	if (!ib_device_try_get(&dev->ibdev))
		return;
	dev->port_state = state;
	event.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
	ib_device_put(&dev->ibdev);
}

/* Under the registry lock: @dev follows its netdev's @event. */
static void mrc_dev_follow(struct mrc_dev *dev, unsigned long event)
{
	if (event == NETDEV_UNREGISTER) {
		mrc_dev_detach(dev);
	} else {
		mrc_dev_update_speed(dev);
		mrc_dev_update_port(dev);
	}
}

static int mrc_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:		/* carrier on/off */
	case NETDEV_CHANGEMTU:
	case NETDEV_UNREGISTER:
		break;
	default:
		return NOTIFY_DONE;
	}

	mrc_registry_with(ndev, mrc_dev_follow, event);
	/* [PATH-8] a plane's netdev leaving takes the plane, not the device */
	if (event == NETDEV_UNREGISTER)
		mrc_registry_plane_gone(ndev);
	/* [PATH-8] a plane without its link: its paths fail at once */
	else if (event != NETDEV_CHANGEMTU)
		mrc_registry_with_link(ndev, mrc_xp_plane_link,
				       netif_running(ndev) &&
				       netif_carrier_ok(ndev));
	return NOTIFY_DONE;
}

static struct notifier_block mrc_netdev_notifier = {
	.notifier_call = mrc_netdev_event,
};

int mrc_check_netdev(const char *name, struct net_device *ndev)
{
	if (ndev->type != ARPHRD_ETHER) {
		pr_err("%s: %s is not an Ethernet device (type %u)\n",
		       name, netdev_name(ndev), ndev->type);
		return -EOPNOTSUPP;
	}
	/* ib_core already gives the real device GIDs for its VLANs. */
	if (is_vlan_dev(ndev)) {
		pr_err("%s: %s is a VLAN; attach to %s instead\n", name,
		       netdev_name(ndev),
		       netdev_name(vlan_dev_real_dev(ndev)));
		return -EOPNOTSUPP;
	}
	return 0;
}

int mrc_dev_add(const char *name, struct net_device *ndev)
{
	struct ib_device *clash;
	struct mrc_dev *dev;
	int err;

	err = mrc_check_netdev(name, ndev);
	if (err)
		return err;

	/* Checked here for a clear message; registration checks again. */
	clash = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (clash) {
		ib_device_put(clash);
		pr_err("%s: an RDMA device with this name exists\n", name);
		return -EEXIST;
	}

	dev = mrc_dev_alloc(ndev);
	if (IS_ERR(dev)) {
		pr_err("%s: cannot allocate a device for %s: %pe\n", name,
		       netdev_name(ndev), dev);
		return PTR_ERR(dev);
	}
	INIT_WORK(&dev->unreg_work, mrc_unreg_work);

	err = mrc_registry_add(name, dev);
	if (err) {
		ib_dealloc_device(&dev->ibdev);
		return err;
	}
	/* Listed: from here on the notifier keeps the speed current. */
	rtnl_lock();
	mrc_dev_update_speed(dev);
	rtnl_unlock();

	/*
	 * Once registered, the device can be unregistered and freed by
	 * others at any time; this reference keeps its memory ours until
	 * mrc_registry_go_live() has looked at it.
	 */
	get_device(&dev->ibdev.dev);
	err = ib_register_device(&dev->ibdev, name, NULL);
	if (err) {
		if (err == -ENFILE)	/* the name was taken meanwhile */
			err = -EEXIST;
		pr_err("%s: registration on %s failed: %pe\n", name,
		       netdev_name(ndev), ERR_PTR(err));
		ib_dealloc_device(&dev->ibdev);
	} else {
		err = mrc_registry_go_live(dev);
		if (err) {
			pr_err("%s: %s went away during creation\n", name,
			       netdev_name(ndev));
			ib_unregister_device(&dev->ibdev);
		}
	}
	put_device(&dev->ibdev.dev);
	return err;
}

static struct rdma_link_ops mrc_link_ops = {
	.type = MRC_DRV_NAME,
	.newlink = mrc_dev_add,
};

/* Synchronously unregister every device still in the registry. */
static void mrc_unregister_all(void)
{
	struct mrc_dev *dev;

	while ((dev = mrc_registry_first())) {
		/*
		 * Waits for any unregistration already running, so it also
		 * returns only after dealloc_driver took @dev off the list.
		 */
		ib_unregister_device(&dev->ibdev);
		put_device(&dev->ibdev.dev);
	}
}

/*
 * The ICRC covers every byte sent and received. The CPU's CRC32C
 * instruction is the fast way on real hardware, but an emulated CPU (QEMU
 * TCG) runs it bit by bit, several times slower than the tables: time
 * both once, best of three, and keep the faster.
 */
static void __init mrc_icrc_choose(void)
{
	u64 best[2] = { U64_MAX, U64_MAX }, t;
	static u32 sink;
	int round, impl, i;
	u8 *buf;

	if (!mrc_wire_icrc_cpu_available())
		return;
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return;
	get_random_bytes(buf, PAGE_SIZE);
	for (round = 0; round < 3; round++) {
		for (impl = 0; impl < 2; impl++) {
			u32 crc = MRC_WIRE_ICRC_SEED;

			t = ktime_get_ns();
			for (i = 0; i < 4; i++)
				crc = impl ? mrc_wire_icrc_update_cpu(crc, buf,
								      PAGE_SIZE) :
				      mrc_wire_icrc_update_portable(crc, buf,
								    PAGE_SIZE);
			best[impl] = min(best[impl], ktime_get_ns() - t);
			WRITE_ONCE(sink, crc);
		}
	}
	kfree(buf);
	mrc_wire_icrc_use_cpu(best[1] <= best[0]);
	pr_info("ICRC by %s (%llu ns per 16 KiB; %s: %llu ns)\n",
		best[1] <= best[0] ? "the CPU's crc32 instruction" : "tables",
		min(best[0], best[1]),
		best[1] <= best[0] ? "tables" : "the instruction",
		max(best[0], best[1]));
}

static int __init mrc_init(void)
{
	int err;

	mrc_icrc_choose();

	mrc_wq = alloc_workqueue(MRC_DRV_NAME, 0, 0);
	if (!mrc_wq)
		return -ENOMEM;

	err = register_netdevice_notifier(&mrc_netdev_notifier);
	if (err) {
		destroy_workqueue(mrc_wq);
		return err;
	}

	err = mrc_txbuf_init();
	if (err)
		goto out_notifier;
	err = mrc_fault_init();
	if (err)
		goto out_txbuf;
	err = mrc_net_init(mrc_rx_rcv);
	if (err)
		goto out_fault;
	mrc_ackq_init();
	rdma_link_register(&mrc_link_ops);
	return 0;

out_fault:
	mrc_fault_exit();
out_txbuf:
	mrc_txbuf_exit();
out_notifier:
	unregister_netdevice_notifier(&mrc_netdev_notifier);
	destroy_workqueue(mrc_wq);
	return err;
}

static void __exit mrc_exit(void)
{
	/* Waits for newlink calls in flight; no device is created after. */
	rdma_link_unregister(&mrc_link_ops);
	mrc_unregister_all();
	/* no device is left to hold a socket; this closes none in practice */
	mrc_net_fini();
	mrc_rx_exit();
	mrc_ackq_exit();
	mrc_fault_exit();
	unregister_netdevice_notifier(&mrc_netdev_notifier);
	destroy_workqueue(mrc_wq);
	mrc_txbuf_exit();
	/* planes dropped last release their netdevs from RCU callbacks */
	rcu_barrier();
}

module_init(mrc_init);
module_exit(mrc_exit);

MODULE_ALIAS_RDMA_LINK(MRC_DRV_NAME);
/* libibverbs needs ib_uverbs; hosts without udev rules would lack it. */
MODULE_SOFTDEP("post: ib_uverbs");
MODULE_DESCRIPTION("MetaRoCE: multipath RDMA transport over UDP");
MODULE_LICENSE("Dual BSD/GPL");
