// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address handles and the address vector of connected QPs. metaroce runs
 * over UDP/IP only (RoCE v2 style GIDs): an address is a source GID of our
 * port's netdev (or a VLAN on it) and a destination GID of the same IP
 * family. The transport reads struct mrc_av and never the rdma_ah_attr.
 *
 * A process's AH also gets a number (create_ah response, uAPI header):
 * its send ring names the destination by it, and the UD sender resolves
 * it with mrc_ah_lookup() in the sending QP's PD, copying the AV, since
 * the process may destroy the AH while a WQE naming it is in flight.
 */

#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "verbs.h"

#define MRC_FLOW_LABEL_MASK	0xfffff

static bool mrc_ndev_is_port(const struct net_device *ndev,
			     const struct net_device *port_ndev)
{
	if (ndev == port_ndev)
		return true;
	return is_vlan_dev(ndev) &&
	       vlan_dev_real_dev(ndev) == port_ndev;
}

int mrc_av_fill(const struct rdma_ah_attr *attr,
		const struct ib_gid_attr *sgid_attr,
		const struct net_device *gid_ndev,
		const struct net_device *port_ndev, struct mrc_av *av)
{
	const struct ib_global_route *grh;
	enum rdma_network_type type;
	bool sgid_v4, dgid_v4;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !sgid_attr)
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);

	/* RoCE v2 only: v1 GIDs name an Ethernet-only encapsulation */
	if (sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP ||
	    sgid_attr->port_num != rdma_ah_get_port_num(attr))
		return -EINVAL;
	if (!gid_ndev || !port_ndev || !mrc_ndev_is_port(gid_ndev, port_ndev))
		return -ENODEV;

	type = rdma_gid_attr_network_type(sgid_attr);
	dgid_v4 = ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw);
	sgid_v4 = type == RDMA_NETWORK_IPV4;
	if (sgid_v4 != dgid_v4)
		return -EINVAL;
	if (ipv6_addr_any((const struct in6_addr *)grh->dgid.raw))
		return -EINVAL;
	if (grh->flow_label & ~MRC_FLOW_LABEL_MASK)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->dgid = grh->dgid;
	av->sgid = sgid_attr->gid;
	av->sgid_index = grh->sgid_index;
	av->port_num = rdma_ah_get_port_num(attr);
	av->network_type = type;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->flow_label = grh->flow_label;
	av->sl = rdma_ah_get_sl(attr);
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	rdma_gid2ip((struct sockaddr *)&av->saddr, &av->sgid);
	rdma_gid2ip((struct sockaddr *)&av->daddr, &av->dgid);
	return 0;
}

int mrc_av_from_attr(struct ib_device *ibdev, const struct rdma_ah_attr *attr,
		     struct mrc_av *av)
{
	const struct ib_gid_attr *sgid_attr = attr->grh.sgid_attr;
	struct net_device *gid_ndev;
	int err;

	if (!rdma_is_port_valid(ibdev, rdma_ah_get_port_num(attr)) ||
	    !sgid_attr || sgid_attr->device != ibdev)
		return -EINVAL;

	rcu_read_lock();
	gid_ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (IS_ERR(gid_ndev))
		err = PTR_ERR(gid_ndev);
	else
		err = mrc_av_fill(attr, sgid_attr, gid_ndev,
				  mrc_dev_netdev(ibdev), av);
	rcu_read_unlock();
	return err;
}

void mrc_av_to_attr(const struct mrc_av *av, struct rdma_ah_attr *attr)
{
	union ib_gid dgid = av->dgid;	/* rdma_ah_set_grh() takes no const */

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, av->port_num);
	rdma_ah_set_sl(attr, av->sl);
	rdma_ah_set_grh(attr, &dgid, av->flow_label, av->sgid_index,
			av->hop_limit, av->traffic_class);
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
}

int mrc_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		  struct ib_udata *udata)
{
	struct mrc_verbs_tables *t = mrc_dev_tables(ibah->device);
	struct metaroce_create_ah_resp resp = { };
	struct mrc_ah *ah = to_mrc_ah(ibah);
	int err;

	ah->num = 0;
	err = mrc_av_from_attr(ibah->device, init_attr->ah_attr, &ah->av);
	if (err)
		return err;
	/* a kernel consumer passes the AH itself; a provider of ABI 1 has no UD */
	if (!udata || udata->outlen < sizeof(resp))
		return 0;

	/* from uverbs: process context, may sleep */
	err = xa_alloc_cyclic_irq(&t->ahs, &resp.ah_num, ah,
				  XA_LIMIT(1, MRC_MAX_AH_NUM), &t->next_ah,
				  GFP_KERNEL);
	if (err < 0)
		return err;
	ah->num = resp.ah_num;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err) {
		xa_erase_irq(&t->ahs, ah->num);
		ah->num = 0;
	}
	return err;
}

int mrc_ah_lookup(struct xarray *ahs, u32 num, const struct ib_pd *pd,
		  struct mrc_av *av)
{
	const struct mrc_ah *ah;
	unsigned long flags;
	int err = -EINVAL;

	if (!num)
		return -EINVAL;
	xa_lock_irqsave(ahs, flags);
	ah = xa_load(ahs, num);
	if (ah && ah->ibah.pd == pd) {
		*av = ah->av;
		err = 0;
	}
	xa_unlock_irqrestore(ahs, flags);
	return err;
}

int mrc_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	mrc_av_to_attr(&to_mrc_ah(ibah)->av, attr);
	return 0;
}

int mrc_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct mrc_ah *ah = to_mrc_ah(ibah);

	/* after this no lookup can find it, and none still reads it */
	if (ah->num)
		xa_erase_irq(&mrc_dev_tables(ibah->device)->ahs, ah->num);
	return 0;
}
