// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: address vectors (ah.c): what a connected QP or an AH may name.
 *
 * metaroce speaks UDP/IP only: a source GID of type RoCE v2 on the port's
 * own netdev, a destination of the same IP family, a 20-bit flow label.
 * Everything else is refused before the transport ever sees it.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <net/ipv6.h>

#include "../verbs.h"

struct mrc_t_av {
	struct net_device *port;
	struct net_device *other;
	struct ib_gid_attr sgid;
	struct rdma_ah_attr ah;
	struct mrc_av av;
};

static int mrc_av_init(struct kunit *test)
{
	struct mrc_t_av *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	union ib_gid dgid;

	if (!t)
		return -ENOMEM;
	test->priv = t;
	/* never registered: only their identity matters here */
	t->port = alloc_etherdev(0);
	t->other = alloc_etherdev(0);
	if (!t->port || !t->other)
		return -ENOMEM;

	t->sgid.gid_type = IB_GID_TYPE_ROCE_UDP_ENCAP;
	t->sgid.port_num = 1;
	t->sgid.index = 3;
	ipv6_addr_set_v4mapped(htonl(0x0a000001),
			       (struct in6_addr *)t->sgid.gid.raw);
	ipv6_addr_set_v4mapped(htonl(0x0a000002), (struct in6_addr *)dgid.raw);
	t->ah.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&t->ah, 1);
	rdma_ah_set_grh(&t->ah, &dgid, 0x12345, 3, 17, 0x28);
	t->ah.grh.sgid_attr = &t->sgid;
	eth_random_addr(t->ah.roce.dmac);
	return 0;
}

static void mrc_av_exit(struct kunit *test)
{
	struct mrc_t_av *t = test->priv;

	if (t && t->port)
		free_netdev(t->port);
	if (t && t->other)
		free_netdev(t->other);
}

static int mrc_t_fill(struct mrc_t_av *t)
{
	return mrc_av_fill(&t->ah, &t->sgid, t->port, t->port, &t->av);
}

static void mrc_av_ipv4(struct kunit *test)
{
	struct mrc_t_av *t = test->priv;

	KUNIT_ASSERT_EQ(test, mrc_t_fill(t), 0);
	KUNIT_EXPECT_EQ(test, t->av.network_type, (u8)RDMA_NETWORK_IPV4);
	KUNIT_EXPECT_EQ(test, t->av.saddr.in4.sin_family, (sa_family_t)AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(t->av.saddr.in4.sin_addr.s_addr),
			0x0a000001u);
	KUNIT_EXPECT_EQ(test, ntohl(t->av.daddr.in4.sin_addr.s_addr),
			0x0a000002u);
	KUNIT_EXPECT_EQ(test, t->av.flow_label, 0x12345u);
	KUNIT_EXPECT_EQ(test, t->av.hop_limit, (u8)17);
	KUNIT_EXPECT_EQ(test, t->av.traffic_class, (u8)0x28);
	KUNIT_EXPECT_EQ(test, t->av.sgid_index, (u8)3);
	KUNIT_EXPECT_EQ(test, t->av.port_num, (u8)1);
	KUNIT_EXPECT_TRUE(test, ether_addr_equal(t->av.dmac, t->ah.roce.dmac));
}

static void mrc_av_ipv6(struct kunit *test)
{
	struct mrc_t_av *t = test->priv;
	struct in6_addr s = { .s6_addr = { 0xfd, 0, [15] = 1 } };
	struct in6_addr d = { .s6_addr = { 0xfd, 0, [15] = 2 } };

	memcpy(t->sgid.gid.raw, &s, 16);
	memcpy(t->ah.grh.dgid.raw, &d, 16);
	KUNIT_ASSERT_EQ(test, mrc_t_fill(t), 0);
	KUNIT_EXPECT_EQ(test, t->av.network_type, (u8)RDMA_NETWORK_IPV6);
	KUNIT_EXPECT_EQ(test, t->av.daddr.in6.sin6_family,
			(sa_family_t)AF_INET6);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&t->av.daddr.in6.sin6_addr,
						&d));
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&t->av.saddr.in6.sin6_addr,
						&s));
}

static void mrc_av_refuses_roce_v1_and_ib(struct kunit *test)
{
	struct mrc_t_av *t = test->priv;

	t->sgid.gid_type = IB_GID_TYPE_ROCE;
	KUNIT_EXPECT_EQ(test, mrc_t_fill(t), -EINVAL);
	t->sgid.gid_type = IB_GID_TYPE_ROCE_UDP_ENCAP;
	t->ah.type = RDMA_AH_ATTR_TYPE_IB;
	KUNIT_EXPECT_EQ(test, mrc_t_fill(t), -EINVAL);
	t->ah.type = RDMA_AH_ATTR_TYPE_ROCE;
	t->ah.ah_flags &= ~IB_AH_GRH;
	KUNIT_EXPECT_EQ(test, mrc_t_fill(t), -EINVAL);
}

static void mrc_av_refuses_bad_destinations(struct kunit *test)
{
	struct mrc_t_av *t = test->priv;
	union ib_gid v4 = t->ah.grh.dgid;

	/* families must match */
	memset(t->ah.grh.dgid.raw, 0, 16);
	t->ah.grh.dgid.raw[0] = 0xfd;
	t->ah.grh.dgid.raw[15] = 2;
	KUNIT_EXPECT_EQ(test, mrc_t_fill(t), -EINVAL);
	/* nobody lives at :: */
	memset(t->ah.grh.dgid.raw, 0, 16);
	memset(t->sgid.gid.raw, 0, 16);
	t->sgid.gid.raw[0] = 0xfd;
	KUNIT_EXPECT_EQ(test, mrc_t_fill(t), -EINVAL);
	/* 20-bit flow labels only */
	ipv6_addr_set_v4mapped(htonl(0x0a000001),
			       (struct in6_addr *)t->sgid.gid.raw);
	t->ah.grh.dgid = v4;
	t->ah.grh.flow_label = 0x100000;
	KUNIT_EXPECT_EQ(test, mrc_t_fill(t), -EINVAL);
	t->ah.grh.flow_label = 0xfffff;
	KUNIT_EXPECT_EQ(test, mrc_t_fill(t), 0);
}

static void mrc_av_refuses_foreign_gid(struct kunit *test)
{
	struct mrc_t_av *t = test->priv;

	/* a GID of another netdev is not this port's address */
	KUNIT_EXPECT_EQ(test, mrc_av_fill(&t->ah, &t->sgid, t->other, t->port,
					  &t->av), -ENODEV);
	KUNIT_EXPECT_EQ(test, mrc_av_fill(&t->ah, &t->sgid, NULL, t->port,
					  &t->av), -ENODEV);
	/* nor a GID of another port */
	t->sgid.port_num = 2;
	KUNIT_EXPECT_EQ(test, mrc_t_fill(t), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_av_fill(&t->ah, NULL, t->port, t->port,
					  &t->av), -EINVAL);
}

/*
 * User AHs by number (mrc_ah_lookup): only an AH of the sending QP's PD
 * resolves; a foreign, unknown, zero or stale (destroyed) number does not.
 */
static void mrc_av_ah_lookup_by_number(struct kunit *test)
{
	struct ib_pd *pd_a = kunit_kzalloc(test, sizeof(*pd_a), GFP_KERNEL);
	struct ib_pd *pd_b = kunit_kzalloc(test, sizeof(*pd_b), GFP_KERNEL);
	struct mrc_ah *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct mrc_ah *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct mrc_ah *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct xarray ahs;
	struct mrc_av av;
	u32 next = 1, na, nb, nc;

	KUNIT_ASSERT_TRUE(test, pd_a && pd_b && a && b && c);
	xa_init_flags(&ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	a->ibah.pd = pd_a;
	a->av.hop_limit = 11;
	b->ibah.pd = pd_b;
	b->av.hop_limit = 22;
	c->ibah.pd = pd_a;
	c->av.hop_limit = 33;
	KUNIT_ASSERT_GE(test, xa_alloc_cyclic_irq(&ahs, &na, a,
						  XA_LIMIT(1, MRC_MAX_AH_NUM),
						  &next, GFP_KERNEL), 0);
	KUNIT_ASSERT_GE(test, xa_alloc_cyclic_irq(&ahs, &nb, b,
						  XA_LIMIT(1, MRC_MAX_AH_NUM),
						  &next, GFP_KERNEL), 0);

	memset(&av, 0, sizeof(av));
	KUNIT_EXPECT_EQ(test, mrc_ah_lookup(&ahs, na, pd_a, &av), 0);
	KUNIT_EXPECT_EQ(test, av.hop_limit, 11);
	KUNIT_EXPECT_EQ(test, mrc_ah_lookup(&ahs, nb, pd_b, &av), 0);
	KUNIT_EXPECT_EQ(test, av.hop_limit, 22);

	/* another PD's (and so another process's) AH */
	memset(&av, 0, sizeof(av));
	KUNIT_EXPECT_EQ(test, mrc_ah_lookup(&ahs, nb, pd_a, &av), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_ah_lookup(&ahs, na, pd_b, &av), -EINVAL);
	KUNIT_EXPECT_EQ(test, av.hop_limit, 0);
	/* zero, never handed out, out of range */
	KUNIT_EXPECT_EQ(test, mrc_ah_lookup(&ahs, 0, pd_a, &av), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_ah_lookup(&ahs, nb + 1, pd_a, &av), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_ah_lookup(&ahs, U32_MAX, pd_a, &av), -EINVAL);

	/* destroyed: its number is stale and not handed out again soon */
	xa_erase_irq(&ahs, na);
	KUNIT_EXPECT_EQ(test, mrc_ah_lookup(&ahs, na, pd_a, &av), -EINVAL);
	KUNIT_ASSERT_GE(test, xa_alloc_cyclic_irq(&ahs, &nc, c,
						  XA_LIMIT(1, MRC_MAX_AH_NUM),
						  &next, GFP_KERNEL), 0);
	KUNIT_EXPECT_NE(test, nc, na);
	KUNIT_EXPECT_EQ(test, mrc_ah_lookup(&ahs, na, pd_a, &av), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_ah_lookup(&ahs, nc, pd_a, &av), 0);
	KUNIT_EXPECT_EQ(test, av.hop_limit, 33);

	xa_destroy(&ahs);
}

static struct kunit_case mrc_av_cases[] = {
	KUNIT_CASE(mrc_av_ipv4),
	KUNIT_CASE(mrc_av_ipv6),
	KUNIT_CASE(mrc_av_refuses_roce_v1_and_ib),
	KUNIT_CASE(mrc_av_refuses_bad_destinations),
	KUNIT_CASE(mrc_av_refuses_foreign_gid),
	KUNIT_CASE(mrc_av_ah_lookup_by_number),
	{}
};

static struct kunit_suite mrc_av_suite = {
	.name = "metaroce_av",
	.init = mrc_av_init,
	.exit = mrc_av_exit,
	.test_cases = mrc_av_cases,
};

kunit_test_suite(mrc_av_suite);
