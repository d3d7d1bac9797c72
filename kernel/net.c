// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UDP encapsulation ([ENC-*]): kernel UDP tunnel sockets, one IPv4 and one
 * IPv6 socket per (network namespace, destination port), shared with a
 * reference count by every user in that namespace. Sockets open in the
 * namespace of the netdev, so a device in a container talks from there.
 *
 * Receive runs in the UDP encap hook (softirq): the UDP checksum was
 * verified by the stack, we read the ECN CE mark from the IP header, pull
 * the UDP header and hand the rest to the one receive handler. Transmit
 * routes each flow (the source port is part of it, so ECMP and multipath
 * routes see each path) from a per-flow dst_cache of the sender's, as
 * UDP tunnels do, and looks up only when the cache is empty or stale;
 * it sets DSCP and ECT(0), and
 * pushes UDP and IP headers through the udp_tunnel helpers. A burst of one
 * path's packets goes down as one UDP GSO skb (mrc_net_join()): one route
 * lookup, one qdisc pass and one device notification for the burst, with
 * each datagram cut back out exactly (by the NIC, or in software).
 */

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <net/dsfield.h>

#include "core/wire.h"
#include "fault.h"
#include "net.h"

static ushort udp_port = MRC_WIRE_UDP_PORT;
module_param(udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port, "UDP destination port of MetaRoCE packets");

struct mrc_net {
	struct list_head list;		/* in mrc_nets, under mrc_nets_lock */
	refcount_t ref;
	struct net *net;		/* key only: the socket lives in it */
	u16 port;
	mrc_net_rcv_t rcv;
	struct socket *sock4;
	struct socket *sock6;		/* NULL when IPv6 is off */
};

static LIST_HEAD(mrc_nets);
static DEFINE_MUTEX(mrc_nets_lock);

static int mrc_net_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct mrc_net *n = rcu_dereference_sk_user_data(sk);
	bool ce = false;

	if (!n)
		goto drop;
	if (skb->protocol == htons(ETH_P_IP))
		ce = INET_ECN_is_ce(ip_hdr(skb)->tos);
	else if (skb->protocol == htons(ETH_P_IPV6))
		ce = INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
	if (!pskb_may_pull(skb, sizeof(struct udphdr)))
		goto drop;
	__skb_pull(skb, sizeof(struct udphdr));
	if (mrc_fault_rx(skb, ce, n->rcv))
		return 0;
	n->rcv(skb, ce);
	return 0;

drop:
	kfree_skb(skb);
	return 0;
}

static struct socket *mrc_net_sock(struct net *net, u16 port, bool ipv6,
				   struct mrc_net *n)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = n,
		.encap_type = 1,
		.encap_rcv = mrc_net_encap_rcv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(port),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
		cfg.local_ip6 = in6addr_any;
	} else {
		cfg.family = AF_INET;
		cfg.local_ip.s_addr = htonl(INADDR_ANY);
	}
	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tcfg);
	return sock;
}

struct mrc_net *mrc_net_get(struct net *net, mrc_net_rcv_t rcv)
{
	struct mrc_net *n;
	struct socket *s;

	mutex_lock(&mrc_nets_lock);
	list_for_each_entry(n, &mrc_nets, list) {
		if (net_eq(n->net, net) && n->port == udp_port) {
			refcount_inc(&n->ref);
			goto out;
		}
	}
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n) {
		n = ERR_PTR(-ENOMEM);
		goto out;
	}
	refcount_set(&n->ref, 1);
	n->net = net;
	n->port = udp_port;
	n->rcv = rcv;
	s = mrc_net_sock(net, n->port, false, n);
	if (IS_ERR(s)) {
		pr_err("metaroce: UDP port %u: %pe\n", n->port, s);
		kfree(n);
		n = ERR_CAST(s);
		goto out;
	}
	n->sock4 = s;
	/* IPv6 may be disabled; IPv4 alone is a working transport */
	s = mrc_net_sock(net, n->port, true, n);
	n->sock6 = IS_ERR(s) ? NULL : s;
	list_add(&n->list, &mrc_nets);
out:
	mutex_unlock(&mrc_nets_lock);
	return n;
}

void mrc_net_put(struct mrc_net *n)
{
	mutex_lock(&mrc_nets_lock);
	if (!refcount_dec_and_test(&n->ref)) {
		mutex_unlock(&mrc_nets_lock);
		return;
	}
	list_del(&n->list);
	mutex_unlock(&mrc_nets_lock);

	udp_tunnel_sock_release(n->sock4);
	if (n->sock6)
		udp_tunnel_sock_release(n->sock6);
	/* a receive that found @n before the release may still run */
	synchronize_net();
	kfree(n);
}

unsigned int mrc_net_headroom(const struct net_device *ndev)
{
	return LL_RESERVED_SPACE(ndev) + sizeof(struct ipv6hdr) +
	       sizeof(struct udphdr);
}

struct sk_buff *mrc_net_join(const struct net_device *ndev,
			     struct sk_buff_head *list)
{
	unsigned int head = mrc_net_headroom(ndev);
	struct sk_buff *first = skb_peek(list), *skb, *gso;
	u32 seg = first->len, total = 0, n = skb_queue_len(list);

	skb_queue_walk(list, skb)
		total += skb->len;
	gso = alloc_skb(head + total, GFP_ATOMIC);
	if (gso) {
		skb_reserve(gso, head);
		while ((skb = __skb_dequeue(list))) {
			skb_copy_from_linear_data(skb, skb_put(gso, skb->len),
						  skb->len);
			consume_skb(skb);
		}
		skb_shinfo(gso)->gso_size = seg;
		skb_shinfo(gso)->gso_segs = n;
		skb_shinfo(gso)->gso_type = SKB_GSO_UDP_L4;
	}
	__skb_queue_purge(list);
	return gso;
}

/*
 * UDP GSO needs the UDP checksum (it is adjusted per datagram) and wants
 * it offloaded from the UDP header, which the tunnel helper pushes next.
 */
static bool mrc_net_gso_csum(struct sk_buff *skb)
{
	if (!skb_is_gso(skb))
		return false;
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_headroom(skb) - sizeof(struct udphdr);
	skb->csum_offset = offsetof(struct udphdr, check);
	return true;
}

/* The cache of flow (@sport, @tos), taking a free slot; NULL: none. */
static struct dst_cache *mrc_net_route(struct mrc_net_routes *rs, u16 sport,
				       u8 tos)
{
	struct mrc_net_route *r;
	int i;

	if (!rs)
		return NULL;
	for (i = 0; i < MRC_NET_ROUTES; i++) {
		r = &rs->r[i];
		if (!r->used) {
			/* the first send of a flow: this context may not sleep */
			if (dst_cache_init(&r->cache, GFP_ATOMIC))
				return NULL;
			r->sport = sport;
			r->tos = tos;
			r->used = true;
			return &r->cache;
		}
		if (r->sport == sport && r->tos == tos)
			return &r->cache;
	}
	r = &rs->r[rs->next++ % MRC_NET_ROUTES];
	dst_cache_reset(&r->cache);
	r->sport = sport;
	r->tos = tos;
	return &r->cache;
}

void mrc_net_routes_reset(struct mrc_net_routes *rs)
{
	int i;

	for (i = 0; i < MRC_NET_ROUTES && rs->r[i].used; i++)
		dst_cache_reset(&rs->r[i].cache);
}

void mrc_net_routes_free(struct mrc_net_routes *rs)
{
	int i;

	for (i = 0; i < MRC_NET_ROUTES && rs->r[i].used; i++) {
		dst_cache_destroy(&rs->r[i].cache);
		rs->r[i].used = false;
	}
}

static int mrc_net_xmit4(struct mrc_net *n, struct net_device *ndev,
			 struct dst_cache *cache, struct sk_buff *skb,
			 const struct sockaddr_in *s,
			 const struct sockaddr_in *d, u16 sport, u8 tos)
{
	struct flowi4 fl = {
		.flowi4_oif = ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = RT_TOS(tos),
		.daddr = d->sin_addr.s_addr,
		.saddr = s->sin_addr.s_addr,
		.fl4_sport = htons(sport),
		.fl4_dport = htons(n->port),
	};
	struct rtable *rt = NULL;
	__be32 saddr;

	if (cache) {
		rt = dst_cache_get_ip4(cache, &saddr);
		if (rt && saddr != fl.saddr) {
			ip_rt_put(rt);
			rt = NULL;
		}
	}
	if (!rt) {
		rt = ip_route_output_key(n->net, &fl);
		if (IS_ERR(rt)) {
			kfree_skb(skb);
			return PTR_ERR(rt);
		}
		if (cache)
			dst_cache_set_ip4(cache, &rt->dst, fl.saddr);
	}
	/*
	 * The ICRC covers the payload; the UDP checksum would add nothing
	 * but is kept where GSO needs it.
	 */
	udp_tunnel_xmit_skb(rt, n->sock4->sk, skb, fl.saddr, fl.daddr, tos,
			    ip4_dst_hoplimit(&rt->dst), htons(IP_DF),
			    htons(sport), htons(n->port), false,
			    !mrc_net_gso_csum(skb));
	return 0;
}

#if IS_ENABLED(CONFIG_IPV6)
static int mrc_net_xmit6(struct mrc_net *n, struct net_device *ndev,
			 struct dst_cache *cache, struct sk_buff *skb,
			 const struct sockaddr_in6 *s,
			 const struct sockaddr_in6 *d, u16 sport, u8 tos)
{
	/* the flow label carries the path's entropy too ([ENC-*]) */
	__be32 label = htonl(sport & IPV6_FLOWLABEL_MASK);
	struct flowi6 fl = {
		.flowi6_oif = ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = d->sin6_addr,
		.saddr = s->sin6_addr,
		.flowlabel = ip6_make_flowinfo(tos, label),
		.fl6_sport = htons(sport),
		.fl6_dport = htons(n->port),
	};
	struct dst_entry *dst = NULL;
	struct in6_addr saddr;

	if (!n->sock6) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	if (cache) {
		dst = dst_cache_get_ip6(cache, &saddr);
		if (dst && !ipv6_addr_equal(&saddr, &fl.saddr)) {
			dst_release(dst);
			dst = NULL;
		}
	}
	if (!dst) {
		dst = ipv6_stub->ipv6_dst_lookup_flow(n->net, n->sock6->sk,
						      &fl, NULL);
		if (IS_ERR(dst)) {
			kfree_skb(skb);
			return PTR_ERR(dst);
		}
		if (cache)
			dst_cache_set_ip6(cache, dst, &fl.saddr);
	}
	/* IPv6 forbids a zero UDP checksum by default: keep it */
	mrc_net_gso_csum(skb);
	udp_tunnel6_xmit_skb(dst, n->sock6->sk, skb, NULL, &fl.saddr,
			     &fl.daddr, tos, ip6_dst_hoplimit(dst), label,
			     htons(sport), htons(n->port), false);
	return 0;
}
#endif

int mrc_net_xmit(struct mrc_net *n, struct net_device *ndev,
		 struct mrc_net_routes *rs, struct sk_buff *skb,
		 const struct sockaddr *saddr, const struct sockaddr *daddr,
		 u16 sport, u8 dscp, bool ect)
{
	u8 tos = dscp << 2 | (ect ? MRC_WIRE_ECN_ECT0 : 0);

	if (daddr->sa_family == AF_INET && saddr->sa_family == AF_INET)
		return mrc_net_xmit4(n, ndev, mrc_net_route(rs, sport, tos),
				     skb, (const struct sockaddr_in *)saddr,
				     (const struct sockaddr_in *)daddr,
				     sport, tos);
#if IS_ENABLED(CONFIG_IPV6)
	if (daddr->sa_family == AF_INET6 && saddr->sa_family == AF_INET6)
		return mrc_net_xmit6(n, ndev, mrc_net_route(rs, sport, tos),
				     skb, (const struct sockaddr_in6 *)saddr,
				     (const struct sockaddr_in6 *)daddr,
				     sport, tos);
#endif
	kfree_skb(skb);
	return -EAFNOSUPPORT;
}
