// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the UDP sockets of a network namespace (net.c) and the life of
 * that namespace. A transport may keep its socket longer than its device
 * (a lingering QP, [REL-21]), and a device's netdev may leave or die
 * with its namespace: the namespace must not wait for metaroce, nor may
 * metaroce use it once it is gone. So the namespace's exit closes the
 * sockets whoever still holds them, and a holder's sends then fail.
 */
#include <kunit/test.h>

/* copy_net_ns() is not exported: the suite needs metaroce built in. */
#if IS_BUILTIN(CONFIG_METAROCE)

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>

#include "../net.h"

#define MRC_T_NET_WAIT_MS	20000

static int mrc_t_net_xmit(struct mrc_net *n)
{
	struct sockaddr_in s = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct sockaddr_in d = s;
	struct sk_buff *skb = alloc_skb(128, GFP_KERNEL);

	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, 64);
	skb_put_data(skb, "metaroce", 8);
	return mrc_net_xmit(n, init_net.loopback_dev, NULL, skb,
			    (struct sockaddr *)&s, (struct sockaddr *)&d,
			    49152, 0, false);
}

/*
 * A holder (a lingering transport, say) keeps its socket while the last
 * reference to its namespace goes: the namespace's exit closes it, the
 * holder's sends fail from then on, and its last put frees what is left.
 */
static void mrc_net_namespace_exit_closes_sockets(struct kunit *test)
{
	struct net *net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	struct mrc_net *n, *again;
	int ms;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, net);
	n = mrc_net_get(net);
	if (IS_ERR(n)) {
		put_net(net);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, n);
	}
	KUNIT_EXPECT_TRUE(test, mrc_net_open(n));
	/* one socket pair per namespace, shared */
	again = mrc_net_get(net);
	KUNIT_EXPECT_PTR_EQ(test, again, n);
	if (!IS_ERR(again))
		mrc_net_put(again);

	put_net(net);
	for (ms = 0; ms < MRC_T_NET_WAIT_MS && mrc_net_open(n); ms++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_FALSE_MSG(test, mrc_net_open(n),
			       "the namespace died, its socket is still open");
	if (!mrc_net_open(n))
		KUNIT_EXPECT_EQ(test, mrc_t_net_xmit(n), -ENETDOWN);
	mrc_net_put(n);
}

/* A namespace's new socket pair is its own, not a dead namespace's. */
static void mrc_net_namespaces_get_their_own(struct kunit *test)
{
	struct net *a = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	struct net *b = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	struct mrc_net *na = ERR_PTR(-EINVAL), *nb = ERR_PTR(-EINVAL);

	if (!IS_ERR(a))
		na = mrc_net_get(a);
	if (!IS_ERR(b))
		nb = mrc_net_get(b);
	KUNIT_EXPECT_FALSE(test, IS_ERR(na));
	KUNIT_EXPECT_FALSE(test, IS_ERR(nb));
	KUNIT_EXPECT_PTR_NE(test, na, nb);
	if (!IS_ERR(na))
		mrc_net_put(na);
	if (!IS_ERR(nb))
		mrc_net_put(nb);
	if (!IS_ERR(a))
		put_net(a);
	if (!IS_ERR(b))
		put_net(b);
}

static struct kunit_case mrc_net_cases[] = {
	KUNIT_CASE(mrc_net_namespace_exit_closes_sockets),
	KUNIT_CASE(mrc_net_namespaces_get_their_own),
	{}
};

static struct kunit_suite mrc_net_suite = {
	.name = "metaroce_net",
	.test_cases = mrc_net_cases,
};

kunit_test_suite(mrc_net_suite);

#endif /* IS_BUILTIN(CONFIG_METAROCE) */
