// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: a metaroce ib_device on a real (test-only) Ethernet netdev,
 * registered with ib_core inside the UML kernel.
 *
 * The netdev is a minimal one of our own (it drops what it is given), so
 * the test needs no driver: register it, build the device the way `rdma
 * link add` does, and check what ib_core and its consumers read back.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "../metaroce.h"
#include "../verbs.h"

static netdev_tx_t mrc_t_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops mrc_t_ndev_ops = {
	.ndo_start_xmit = mrc_t_xmit,
};

struct mrc_t_dev {
	struct net_device *ndev;
	struct mrc_dev *dev;
};

static struct net_device *mrc_t_ndev(struct kunit *test)
{
	struct net_device *ndev = alloc_etherdev(0);
	int err;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ndev);
	ndev->netdev_ops = &mrc_t_ndev_ops;
	ndev->max_mtu = ETH_MAX_MTU;	/* room for jumbo frames */
	eth_hw_addr_random(ndev);
	err = register_netdev(ndev);
	if (err)
		free_netdev(ndev);
	KUNIT_ASSERT_EQ(test, err, 0);
	return ndev;
}

static void mrc_t_ndev_free(struct net_device *ndev)
{
	unregister_netdev(ndev);
	free_netdev(ndev);
}

static int mrc_t_ndev_up(struct net_device *ndev, bool up)
{
	int err = 0;

	rtnl_lock();
	if (up)
		err = dev_open(ndev, NULL);
	else
		dev_close(ndev);
	rtnl_unlock();
	return err;
}

static int mrc_t_ndev_mtu(struct net_device *ndev, int mtu)
{
	int err;

	rtnl_lock();
	err = dev_set_mtu(ndev, mtu);
	rtnl_unlock();
	return err;
}

static int mrc_device_init(struct kunit *test)
{
	struct mrc_t_dev *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	t->ndev = mrc_t_ndev(test);
	t->dev = mrc_dev_alloc(t->ndev);
	if (IS_ERR(t->dev)) {
		mrc_t_ndev_free(t->ndev);
		return PTR_ERR(t->dev);
	}
	err = ib_register_device(&t->dev->ibdev, "mrct%d", NULL);
	if (err) {
		ib_dealloc_device(&t->dev->ibdev);
		mrc_t_ndev_free(t->ndev);
		return err;
	}
	test->priv = t;
	return 0;
}

static void mrc_device_exit(struct kunit *test)
{
	struct mrc_t_dev *t = test->priv;

	/* With ops.dealloc_driver set, unregistering also frees the device. */
	ib_unregister_device(&t->dev->ibdev);
	mrc_t_ndev_free(t->ndev);
}

static void mrc_device_identity(struct kunit *test)
{
	struct mrc_t_dev *t = test->priv;
	struct ib_device *ibdev = &t->dev->ibdev;

	KUNIT_EXPECT_EQ(test, ibdev->node_type, (u8)RDMA_NODE_IB_CA);
	KUNIT_EXPECT_EQ(test, rdma_end_port(ibdev), 1u);
	KUNIT_EXPECT_EQ(test, rdma_port_get_link_layer(ibdev, 1),
			IB_LINK_LAYER_ETHERNET);
	KUNIT_EXPECT_TRUE(test, rdma_protocol_roce_udp_encap(ibdev, 1));
	KUNIT_EXPECT_FALSE(test, rdma_protocol_roce_eth_encap(ibdev, 1));
	KUNIT_EXPECT_PTR_EQ(test, mrc_dev_netdev(ibdev), t->ndev);
	KUNIT_EXPECT_NE(test, ibdev->node_guid, 0ull);
	KUNIT_EXPECT_STREQ(test, ibdev->node_desc, "metaroce");
	/* ib_core asked query_device at registration and kept the answer */
	KUNIT_EXPECT_EQ(test, ibdev->attrs.max_qp_wr, MRC_MAX_QP_WR);
	KUNIT_EXPECT_EQ(test, ibdev->attrs.max_send_sge, MRC_MAX_SGE);
	KUNIT_EXPECT_EQ(test, ibdev->attrs.max_cqe, MRC_MAX_CQE);
	KUNIT_EXPECT_EQ(test, ibdev->attrs.max_pkeys, (u16)1);
	KUNIT_EXPECT_TRUE(test, ibdev->attrs.kernel_cap_flags &
			  IBK_ALLOW_USER_UNREG);
}

static void mrc_device_port_follows_netdev(struct kunit *test)
{
	struct mrc_t_dev *t = test->priv;
	struct ib_port_attr pa;

	/* registered but never opened: down and disabled */
	KUNIT_ASSERT_EQ(test, ib_query_port(&t->dev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.state, IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, pa.phys_state,
			(u8)IB_PORT_PHYS_STATE_DISABLED);
	KUNIT_EXPECT_EQ(test, mrc_port_state(t->ndev), IB_PORT_DOWN);

	KUNIT_ASSERT_EQ(test, mrc_t_ndev_up(t->ndev, true), 0);
	netif_carrier_on(t->ndev);
	KUNIT_ASSERT_EQ(test, ib_query_port(&t->dev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.state, IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, pa.phys_state, (u8)IB_PORT_PHYS_STATE_LINK_UP);

	/* up but no carrier: polling for a link */
	netif_carrier_off(t->ndev);
	KUNIT_ASSERT_EQ(test, ib_query_port(&t->dev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.state, IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, pa.phys_state, (u8)IB_PORT_PHYS_STATE_POLLING);

	netif_carrier_on(t->ndev);
	KUNIT_ASSERT_EQ(test, mrc_t_ndev_up(t->ndev, false), 0);
	KUNIT_EXPECT_EQ(test, mrc_port_state(t->ndev), IB_PORT_DOWN);
}

static void mrc_device_mtu_follows_netdev(struct kunit *test)
{
	struct mrc_t_dev *t = test->priv;
	struct ib_port_attr pa;

	KUNIT_ASSERT_EQ(test, mrc_t_ndev_up(t->ndev, true), 0);
	netif_carrier_on(t->ndev);

	/* 1500: 2048 + headers does not fit, 1024 does */
	KUNIT_ASSERT_EQ(test, ib_query_port(&t->dev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.max_mtu, IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, pa.active_mtu, IB_MTU_1024);
	KUNIT_EXPECT_LE(test, ib_mtu_enum_to_int(pa.active_mtu) +
			MRC_ENCAP_OVERHEAD, 1500);

	KUNIT_ASSERT_EQ(test, mrc_t_ndev_mtu(t->ndev, 9000), 0);
	KUNIT_ASSERT_EQ(test, ib_query_port(&t->dev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.active_mtu, IB_MTU_4096);

	/* a netdev MTU too small for the smallest IB MTU: port down */
	KUNIT_ASSERT_EQ(test, mrc_t_ndev_mtu(t->ndev, 300), 0);
	KUNIT_EXPECT_EQ(test, mrc_port_state(t->ndev), IB_PORT_DOWN);
	KUNIT_ASSERT_EQ(test, ib_query_port(&t->dev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.state, IB_PORT_DOWN);
	mrc_t_ndev_up(t->ndev, false);
}

static void mrc_device_port_tables(struct kunit *test)
{
	struct mrc_t_dev *t = test->priv;
	struct ib_port_attr pa;
	u16 pkey = 0;

	KUNIT_ASSERT_EQ(test, ib_query_port(&t->dev->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.gid_tbl_len, MRC_GID_TABLE_LEN);
	KUNIT_EXPECT_EQ(test, pa.pkey_tbl_len, 1u);
	KUNIT_EXPECT_EQ(test, ib_query_pkey(&t->dev->ibdev, 1, 0, &pkey), 0);
	KUNIT_EXPECT_EQ(test, pkey, (u16)IB_DEFAULT_PKEY_FULL);
	KUNIT_EXPECT_NE(test, ib_query_pkey(&t->dev->ibdev, 1, 1, &pkey), 0);
}

/*
 * ib_core fills the GID table itself for RoCE devices: index 0 is the
 * default GID, the link-local address made from the netdev's MAC, typed
 * RoCE v2 because that is the only encapsulation the port announces.
 */
static void mrc_device_default_gid_is_rocev2(struct kunit *test)
{
	struct mrc_t_dev *t = test->priv;
	const struct ib_gid_attr *attr = ERR_PTR(-ENOENT);
	union ib_gid want = { };
	int i;

	want.raw[0] = 0xfe;
	want.raw[1] = 0x80;
	addrconf_addr_eui48(&want.raw[8], t->ndev->dev_addr);
	KUNIT_ASSERT_EQ(test, mrc_t_ndev_up(t->ndev, true), 0);
	netif_carrier_on(t->ndev);
	/* the table is filled from ib_core's work queue: wait for it */
	for (i = 0; i < 3000 && IS_ERR(attr); i++) {
		attr = rdma_get_gid_attr(&t->dev->ibdev, 1, 0);
		if (IS_ERR(attr))
			usleep_range(10000, 20000);
	}
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(attr), "no GID at index 0: %ld",
			       PTR_ERR(attr));
	KUNIT_EXPECT_EQ(test, attr->gid_type, IB_GID_TYPE_ROCE_UDP_ENCAP);
	KUNIT_EXPECT_EQ(test, memcmp(&attr->gid, &want, sizeof(want)), 0);
	KUNIT_EXPECT_PTR_EQ(test, rcu_access_pointer(attr->ndev), t->ndev);
	rdma_put_gid_attr(attr);
	mrc_t_ndev_up(t->ndev, false);
}

static struct kunit_case mrc_device_cases[] = {
	KUNIT_CASE(mrc_device_identity),
	KUNIT_CASE(mrc_device_port_follows_netdev),
	KUNIT_CASE(mrc_device_mtu_follows_netdev),
	KUNIT_CASE(mrc_device_port_tables),
	KUNIT_CASE(mrc_device_default_gid_is_rocev2),
	{}
};

static struct kunit_suite mrc_device_suite = {
	.name = "metaroce_device",
	.init = mrc_device_init,
	.exit = mrc_device_exit,
	.test_cases = mrc_device_cases,
};

kunit_test_suite(mrc_device_suite);
