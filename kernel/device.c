// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What a metaroce device is and what it reports: the ib_device attributes,
 * the operations table, and the query_* answers for its single RoCE v2
 * port. Port attributes are read from the netdev on every query rather
 * than cached, so they cannot go stale.
 */

#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>

#include "metaroce.h"
#include "mw.h"
#include "registry.h"
#include "counter.h"
#include "stats.h"
#include "ud.h"
#include "xport.h"

/* The IB MTU whose payload fits the netdev MTU after our encapsulation. */
static enum ib_mtu mrc_ib_mtu(unsigned int ndev_mtu)
{
	enum ib_mtu mtu;

	for (mtu = IB_MTU_4096; mtu > IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) + MRC_ENCAP_OVERHEAD <= ndev_mtu)
			break;
	return mtu;
}

/*
 * A port is usable when the netdev is up, has carrier and can carry at
 * least the smallest IB MTU; anything else is reported as DOWN.
 */
enum ib_port_state mrc_port_state(const struct net_device *ndev)
{
	if (netif_running(ndev) && netif_carrier_ok(ndev) &&
	    READ_ONCE(ndev->mtu) >=
	    ib_mtu_enum_to_int(IB_MTU_256) + MRC_ENCAP_OVERHEAD)
		return IB_PORT_ACTIVE;
	return IB_PORT_DOWN;
}

static const struct {
	u32 mbps;
	u8 width;
	u16 speed;
} mrc_rates[] = {
	{ 400000, IB_WIDTH_4X, IB_SPEED_NDR },
	{ 200000, IB_WIDTH_4X, IB_SPEED_HDR },
	{ 100000, IB_WIDTH_4X, IB_SPEED_EDR },
	{  50000, IB_WIDTH_1X, IB_SPEED_HDR },
	{  40000, IB_WIDTH_4X, IB_SPEED_QDR },
	{  25000, IB_WIDTH_1X, IB_SPEED_EDR },
	{  20000, IB_WIDTH_4X, IB_SPEED_DDR },
	{  10000, IB_WIDTH_1X, IB_SPEED_QDR },
	{   5000, IB_WIDTH_1X, IB_SPEED_DDR },
	{      0, IB_WIDTH_1X, IB_SPEED_SDR },
};

/*
 * Remember the netdev's link speed for query_port. ethtool needs RTNL, and
 * query_port is called where taking it is costly or unsafe (modify_qp,
 * ib_core work items), so the speed is read here, with RTNL held: when
 * the device is created and on every netdev event that can change it.
 * Not ib_get_eth_speed(): it logs a warning on every call for a netdev
 * without a known speed (virtio-net, veth). Unknown speed counts as 0.
 */
void mrc_dev_update_speed(struct mrc_dev *dev)
{
	struct ethtool_link_ksettings ks;
	u32 mbps = 0;

	ASSERT_RTNL();
	if (dev->ndev->reg_state == NETREG_REGISTERED &&
	    !__ethtool_get_link_ksettings(dev->ndev, &ks) &&
	    ks.base.speed != (u32)SPEED_UNKNOWN)
		mbps = ks.base.speed;
	WRITE_ONCE(dev->link_mbps, mbps);
}

/* The fastest IB width x speed that does not exceed the link speed. */
static void mrc_port_speed(const struct mrc_dev *dev, u16 *speed, u8 *width)
{
	u32 mbps = READ_ONCE(dev->link_mbps);
	int i;

	for (i = 0; mrc_rates[i].mbps > mbps; i++)
		;
	*speed = mrc_rates[i].speed;
	*width = mrc_rates[i].width;
}

static int mrc_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	/* No driver-specific query_device data is defined in the ABI. */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	mrc_verbs_fill_device_attr(attr);
	attr->sys_image_guid = ibdev->node_guid;
	/* major.minor.sub in 16-bit fields: as mrc_get_dev_fw_str() says */
	attr->fw_ver = (u64)METAROCE_ABI_VERSION << 32;
	attr->max_pkeys = 1;
	/* `rdma link delete` may remove the device. */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	return 0;
}

/*
 * No firmware: the version is that of the uAPI the module speaks
 * (METAROCE_ABI_VERSION), which is what a provider must match.
 */
static void mrc_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.0.0", METAROCE_ABI_VERSION);
}

/* ib_query_port() has zeroed @attr before calling us. Takes no lock. */
static int mrc_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct mrc_dev *dev = to_mrc_dev(ibdev);
	struct net_device *ndev = dev->ndev;

	attr->state = mrc_port_state(ndev);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (netif_running(ndev))
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = mrc_ib_mtu(READ_ONCE(ndev->mtu));
	attr->gid_tbl_len = MRC_GID_TABLE_LEN;
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	/* what the transport enforces at post time (wqe.c) */
	attr->max_msg_sz = MRC_MAX_MSG_SIZE;
	/* connections through the IB CM (MADs on QP1); GIDs are addresses */
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->ip_gids = true;
	mrc_port_speed(dev, &attr->active_speed, &attr->active_width);
	return 0;
}

/* RoCE has no partitions: the one P_Key is the default full member. */
static int mrc_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static enum rdma_link_layer mrc_get_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

/*
 * RoCE v2 only: with just the UDP-encap capability ib_core fills the GID
 * table with RoCE v2 entries for the netdev's IPv4 (as ::ffff:a.b.c.d)
 * and IPv6 addresses and keeps it current; it never calls a query_gid.
 */
static int mrc_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = MRC_GID_TABLE_LEN;
	immutable->pkey_tbl_len = 1;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static void mrc_dev_dealloc(struct ib_device *ibdev)
{
	mrc_linger_purge(&to_mrc_dev(ibdev)->linger);
	mrc_verbs_tables_destroy(&to_mrc_dev(ibdev)->tables);
	mrc_counters_free(to_mrc_dev(ibdev));
	mrc_stats_free(to_mrc_dev(ibdev));
	mrc_registry_planes_free(to_mrc_dev(ibdev));
	mrc_registry_forget(to_mrc_dev(ibdev));
}

static ssize_t metaroce_abi_version_show(struct device *device,
					 struct device_attribute *attr,
					 char *buf)
{
	return sysfs_emit(buf, "%u\n", METAROCE_ABI_VERSION);
}
static DEVICE_ATTR_RO(metaroce_abi_version);

static ssize_t netdev_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct mrc_dev *dev = rdma_device_to_drv_device(device, struct mrc_dev,
							ibdev);

	return sysfs_emit(buf, "%s\n", netdev_name(dev->ndev));
}
static DEVICE_ATTR_RO(netdev);

static struct attribute *mrc_dev_attrs[] = {
	&dev_attr_metaroce_abi_version.attr,
	&dev_attr_netdev.attr,
	&dev_attr_planes.attr,
	NULL,
};

static const struct attribute_group mrc_dev_attr_group = {
	.attrs = mrc_dev_attrs,
};

/* Verbs object files add their operations and object sizes here. */
static const struct ib_device_ops mrc_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = METAROCE_ABI_VERSION,
	.device_group = &mrc_dev_attr_group,

	.alloc_hw_port_stats = mrc_alloc_hw_port_stats,
	.alloc_ucontext = mrc_alloc_ucontext,
	.counter_alloc_stats = mrc_counter_alloc_stats,
	.counter_bind_qp = mrc_counter_bind_qp,
	.counter_dealloc = mrc_counter_dealloc,
	.counter_unbind_qp = mrc_counter_unbind_qp,
	.counter_update_stats = mrc_counter_update_stats,
	.dealloc_driver = mrc_dev_dealloc,
	.dealloc_ucontext = mrc_dealloc_ucontext,
	.fill_res_qp_entry = mrc_xp_fill_res_qp,
	.disassociate_ucontext = mrc_disassociate_ucontext,
	.get_dev_fw_str = mrc_get_dev_fw_str,
	.get_hw_stats = mrc_get_hw_stats,
	.get_link_layer = mrc_get_link_layer,
	.get_port_immutable = mrc_get_port_immutable,
	.mmap = mrc_mmap,
	.query_device = mrc_query_device,
	.query_pkey = mrc_query_pkey,
	.query_port = mrc_query_port,

	/* verbs objects (verbs.h) */
	.alloc_pd = mrc_alloc_pd,
	.dealloc_pd = mrc_dealloc_pd,
	.create_ah = mrc_create_ah,
	.create_user_ah = mrc_create_ah,	/* with udata: numbered */
	.query_ah = mrc_query_ah,
	.destroy_ah = mrc_destroy_ah,
	.get_dma_mr = mrc_get_dma_mr,
	.reg_user_mr = mrc_reg_user_mr,
	.reg_user_mr_dmabuf = mrc_reg_user_mr_dmabuf,
	.rereg_user_mr = mrc_rereg_user_mr,
	.alloc_mr = mrc_alloc_mr,
	.map_mr_sg = mrc_map_mr_sg,
	.dereg_mr = mrc_dereg_mr,
	.alloc_mw = mrc_alloc_mw,
	.dealloc_mw = mrc_dealloc_mw,
	.mmap_free = mrc_mmap_free,
	.create_cq = mrc_create_cq,
	.destroy_cq = mrc_destroy_cq,
	.resize_cq = mrc_resize_cq,
	.poll_cq = mrc_poll_cq,
	.req_notify_cq = mrc_req_notify_cq,
	.create_srq = mrc_create_srq,
	.modify_srq = mrc_modify_srq,
	.query_srq = mrc_query_srq,
	.destroy_srq = mrc_destroy_srq,
	.post_srq_recv = mrc_post_srq_recv,
	.create_qp = mrc_create_qp,
	.modify_qp = mrc_modify_qp,
	.query_qp = mrc_query_qp,
	.destroy_qp = mrc_destroy_qp,
	.post_send = mrc_post_send,
	.post_recv = mrc_post_recv,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, mrc_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_pd, mrc_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_mw, mrc_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_ah, mrc_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mrc_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_srq, mrc_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_qp, mrc_qp, ibqp),
};

/*
 * A device for @ndev, ready for ib_register_device(). Undo with
 * ib_dealloc_device(), which also drops the netdev reference taken here.
 */
struct mrc_dev *mrc_dev_alloc(struct net_device *ndev)
{
	struct ib_device *ibdev;
	struct mrc_dev *dev;
	int err;

	dev = ib_alloc_device(mrc_dev, ibdev);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	ibdev = &dev->ibdev;
	dev->ndev = ndev;
	INIT_LIST_HEAD(&dev->registry);
	mrc_verbs_tables_init(&dev->tables);
	mrc_linger_init(&dev->linger);
	mrc_counters_init(dev);
	mrc_share_init(&dev->share);
	dev->tables.qp_hooks = &mrc_xp_hooks;	/* the transport (xport.c) */
	dev->tables.ud_hooks = &mrc_ud_hooks;	/* datagrams (ud.c) */

	/* SMC-R and RDS only accept IB CAs; that is what we emulate. */
	ibdev->node_type = RDMA_NODE_IB_CA;
	/*
	 * The netdev's device (a NIC's PCI function, virtio ...), if it has
	 * one, as our parent: /sys/class/infiniband/<dev>/device/net/ then
	 * shows the netdev, and tools that map RDMA devices to NICs and bus
	 * topology (rdma_cm users, NCCL) find it. DMA is unaffected: we
	 * register without a DMA device (virtual DMA).
	 */
	ibdev->dev.parent = ndev->dev.parent;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	/*
	 * A process posts into mapped rings and uses these write commands
	 * only as doorbells (uAPI header); arming a CQ is REQ_NOTIFY_CQ.
	 * ib_core's default command mask leaves all four out.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SRQ_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	strscpy(ibdev->node_desc, MRC_DRV_NAME, sizeof(ibdev->node_desc));
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, ndev->dev_addr);
	ib_set_device_ops(ibdev, &mrc_dev_ops);

	err = mrc_stats_init(dev);
	if (!err)
		err = ib_device_set_netdev(ibdev, ndev, MRC_PORT);
	if (err) {
		ib_dealloc_device(ibdev);
		return ERR_PTR(err);
	}
	return dev;
}
