// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UDP encapsulation ([ENC-*]): kernel UDP tunnel sockets, one IPv4 and one
 * IPv6 socket per (network namespace, destination port), shared with a
 * reference count by every user in that namespace. Sockets open in the
 * namespace of the netdev, so a device in a container talks from there.
 *
 * A kernel socket holds no reference on its namespace (one would keep the
 * namespace alive for as long as a QP lingers, and its devices with it),
 * so the namespace's exit (pernet_operations) closes the sockets of every
 * struct mrc_net in it, held or not: a device on a netdev that dies with its namespace or leaves it
 * goes away asynchronously, and a lingering transport ([REL-21]) keeps
 * its mrc_net until its device is freed. Once closed, a holder's sends
 * fail (-ENETDOWN) until its last put frees the rest. The sockets are
 * published under RCU for that: a sender reads them in an RCU section and
 * takes the namespace from the socket; the exit unpublishes them and
 * waits for those sections before it releases them. @net is a lookup key
 * only, read under mrc_nets_lock while the namespace lives.
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
#include "net_loop.h"

static ushort udp_port = MRC_WIRE_UDP_PORT;
module_param(udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port, "UDP destination port of MetaRoCE packets");

struct mrc_net {
	struct list_head list;		/* in mrc_nets, under mrc_nets_lock */
	refcount_t ref;
	struct net *net;		/* key only, while on mrc_nets */
	u16 port;
	struct socket __rcu *sock4;	/* NULL once the namespace's exit ran */
	struct socket __rcu *sock6;	/* ... or when IPv6 is off */
	struct rcu_head rcu;		/* receivers find us under RCU */
};

/*
 * Set once at module init: the layer above hands it down, so no opener
 * names a handler and nothing here reaches up for one.
 */
static mrc_net_rcv_t mrc_net_rcv __read_mostly;

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
	if (mrc_fault_rx(skb, ce, mrc_net_rcv))
		return 0;
	mrc_net_rcv(skb, ce);
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

struct mrc_net *mrc_net_get(struct net *net)
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
	/* a dying namespace's exit may have run: it would close nothing new */
	if (!check_net(net)) {
		n = ERR_PTR(-ENETDOWN);
		goto out;
	}
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n) {
		n = ERR_PTR(-ENOMEM);
		goto out;
	}
	refcount_set(&n->ref, 1);
	n->net = net;
	n->port = udp_port;
	s = mrc_net_sock(net, n->port, false, n);
	if (IS_ERR(s)) {
		pr_err("metaroce: UDP port %u: %pe\n", n->port, s);
		kfree(n);
		n = ERR_CAST(s);
		goto out;
	}
	rcu_assign_pointer(n->sock4, s);
	/* IPv6 may be disabled; IPv4 alone is a working transport */
	s = mrc_net_sock(net, n->port, true, n);
	if (!IS_ERR(s))
		rcu_assign_pointer(n->sock6, s);
	list_add(&n->list, &mrc_nets);
out:
	mutex_unlock(&mrc_nets_lock);
	return n;
}

/*
 * Unpublish and release @n's sockets, once: by its namespace's exit or
 * by its last put, whichever comes first; each holds a reference.
 */
static void mrc_net_close(struct mrc_net *n)
{
	struct socket *s4 = rcu_replace_pointer(n->sock4, NULL, true);
	struct socket *s6 = rcu_replace_pointer(n->sock6, NULL, true);

	if (!s4 && !s6)
		return;
	/* senders that saw a socket are done with it after this */
	synchronize_net();
	if (s4)
		udp_tunnel_sock_release(s4);
	if (s6)
		udp_tunnel_sock_release(s6);
}

void mrc_net_put(struct mrc_net *n)
{
	mutex_lock(&mrc_nets_lock);
	if (!refcount_dec_and_test(&n->ref)) {
		mutex_unlock(&mrc_nets_lock);
		return;
	}
	/* off the list already if its namespace's exit ran */
	list_del(&n->list);
	mutex_unlock(&mrc_nets_lock);

	mrc_net_close(n);
	/* a receive that found @n before the release may still run */
	kfree_rcu(n, rcu);
}

u16 mrc_net_port(const struct mrc_net *n)
{
	return n->port;
}

bool mrc_net_open(const struct mrc_net *n)
{
	return rcu_access_pointer(n->sock4);
}

/*
 * The namespace is going: close the sockets of every mrc_net in it, held
 * or not (the holders' sends fail from now on), and forget the key, so a
 * namespace allocated at the same address later gets sockets of its own.
 * Runs after every netdev of the namespace is gone (pernet subsystems
 * exit after the devices), so no device of ours transmits from it any
 * more but a lingering transport's ACK, which now fails.
 */
static void __net_exit mrc_net_exit_net(struct net *net)
{
	struct mrc_net *n, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&mrc_nets_lock);
	list_for_each_entry_safe(n, tmp, &mrc_nets, list) {
		/* one that is being put closes by itself */
		if (!net_eq(n->net, net) || !refcount_inc_not_zero(&n->ref))
			continue;
		list_move(&n->list, &dead);
		n->net = NULL;
	}
	mutex_unlock(&mrc_nets_lock);

	list_for_each_entry_safe(n, tmp, &dead, list) {
		list_del_init(&n->list);
		mrc_net_close(n);
		mrc_net_put(n);
	}
}

static struct pernet_operations mrc_net_ops = {
	.exit = mrc_net_exit_net,
};

int mrc_net_init(mrc_net_rcv_t rcv)
{
	mrc_net_rcv = rcv;
	mrc_net_loop_init();
	return register_pernet_subsys(&mrc_net_ops);
}

void mrc_net_fini(void)
{
	unregister_pernet_subsys(&mrc_net_ops);
	mrc_net_loop_exit();
}

unsigned int mrc_net_headroom(const struct net_device *ndev)
{
	return LL_RESERVED_SPACE(ndev) + sizeof(struct ipv6hdr) +
	       sizeof(struct udphdr);
}

/*
 * May @skb's bytes go into a burst as a page fragment? Its data must be
 * all in its head, and that head a page fragment of ours alone (txbuf.c):
 * a reference to the page then keeps the bytes as they are.
 */
static bool mrc_net_fraggable(const struct sk_buff *skb)
{
	return skb->head_frag && !skb_is_nonlinear(skb) && !skb_cloned(skb);
}

/*
 * The burst with no copy: each packet's bytes become one fragment of an
 * skb that holds only headroom, so the stack's segmentation (or the NIC's)
 * cuts datagrams out of the packets' own buffers: a NIC with scatter-gather
 * is handed them without a copy, and one with UDP segmentation offload
 * takes the whole burst at once. (A NIC without scatter-gather, like the
 * bed's, still gets a linear copy of each datagram from the stack.)
 */
static struct sk_buff *mrc_net_join_frags(unsigned int head,
					  struct sk_buff_head *list)
{
	struct sk_buff *gso = alloc_skb(head, GFP_ATOMIC), *skb;
	int i = 0;

	if (!gso)
		return NULL;
	skb_reserve(gso, head);
	while ((skb = __skb_dequeue(list))) {
		struct page *page = virt_to_head_page(skb->data);

		get_page(page);
		skb_fill_page_desc(gso, i++, page,
				   skb->data - (u8 *)page_address(page),
				   skb->len);
		skb_len_add(gso, skb->len);
		consume_skb(skb);
	}
	return gso;
}

/* A copy of the burst in one linear skb: packets not in page fragments. */
static struct sk_buff *mrc_net_join_copy(unsigned int head, u32 total,
					 struct sk_buff_head *list)
{
	struct sk_buff *gso = alloc_skb(head + total, GFP_ATOMIC), *skb;

	if (!gso)
		return NULL;
	skb_reserve(gso, head);
	while ((skb = __skb_dequeue(list))) {
		skb_copy_from_linear_data(skb, skb_put(gso, skb->len), skb->len);
		consume_skb(skb);
	}
	return gso;
}

struct sk_buff *mrc_net_join(const struct net_device *ndev,
			     struct sk_buff_head *list)
{
	unsigned int head = mrc_net_headroom(ndev);
	struct sk_buff *first = skb_peek(list), *skb, *gso;
	u32 seg = first->len, total = 0, n = skb_queue_len(list);
	bool frags = n <= MAX_SKB_FRAGS;

	skb_queue_walk(list, skb) {
		total += skb->len;
		frags &= mrc_net_fraggable(skb);
	}
	gso = frags ? mrc_net_join_frags(head, list) :
		      mrc_net_join_copy(head, total, list);
	if (gso) {
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

static int mrc_net_xmit4(struct mrc_net *n, struct sock *sk,
			 struct net_device *ndev, struct dst_cache *cache,
			 struct sk_buff *skb, const struct sockaddr_in *s,
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
		rt = ip_route_output_key(sock_net(sk), &fl);
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
	udp_tunnel_xmit_skb(rt, sk, skb, fl.saddr, fl.daddr, tos,
			    ip4_dst_hoplimit(&rt->dst), htons(IP_DF),
			    htons(sport), htons(n->port), false,
			    !mrc_net_gso_csum(skb));
	return 0;
}

#if IS_ENABLED(CONFIG_IPV6)
static int mrc_net_xmit6(struct mrc_net *n, struct sock *sk,
			 struct net_device *ndev, struct dst_cache *cache,
			 struct sk_buff *skb, const struct sockaddr_in6 *s,
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

	if (cache) {
		dst = dst_cache_get_ip6(cache, &saddr);
		if (dst && !ipv6_addr_equal(&saddr, &fl.saddr)) {
			dst_release(dst);
			dst = NULL;
		}
	}
	if (!dst) {
		dst = ipv6_stub->ipv6_dst_lookup_flow(sock_net(sk), sk, &fl,
						      NULL);
		if (IS_ERR(dst)) {
			kfree_skb(skb);
			return PTR_ERR(dst);
		}
		if (cache)
			dst_cache_set_ip6(cache, dst, &fl.saddr);
	}
	/* IPv6 forbids a zero UDP checksum by default: keep it */
	mrc_net_gso_csum(skb);
	udp_tunnel6_xmit_skb(dst, sk, skb, NULL, &fl.saddr,
			     &fl.daddr, tos, ip6_dst_hoplimit(dst), label,
			     htons(sport), htons(n->port), false);
	return 0;
}
#else
/* unreachable: mrc_net_xmit() refuses AF_INET6 without IPv6 */
static int mrc_net_xmit6(struct mrc_net *n, struct sock *sk,
			 struct net_device *ndev, struct dst_cache *cache,
			 struct sk_buff *skb, const struct sockaddr_in6 *s,
			 const struct sockaddr_in6 *d, u16 sport, u8 tos)
{
	kfree_skb(skb);
	return -EAFNOSUPPORT;
}
#endif

/* The socket of @family, or NULL (closed, or no IPv6); RCU held. */
static struct sock *mrc_net_sk(struct mrc_net *n, sa_family_t family)
{
	struct socket *sock = family == AF_INET ? rcu_dereference(n->sock4) :
						  rcu_dereference(n->sock6);

	return sock ? sock->sk : NULL;
}

int mrc_net_xmit(struct mrc_net *n, struct net_device *ndev,
		 struct mrc_net_routes *rs, struct sk_buff *skb,
		 const struct sockaddr *saddr, const struct sockaddr *daddr,
		 u16 sport, u8 dscp, bool ect)
{
	u8 tos = dscp << 2 | (ect ? MRC_WIRE_ECN_ECT0 : 0);
	sa_family_t family = daddr->sa_family;
	int err = -EAFNOSUPPORT;
	struct net_device *to;
	struct sock *sk;

	if (saddr->sa_family != family ||
	    (family != AF_INET && family != AF_INET6) ||
	    (family == AF_INET6 && !IS_ENABLED(CONFIG_IPV6))) {
		kfree_skb(skb);
		return err;
	}
	/* the namespace's exit unpublishes the sockets, then waits for us */
	rcu_read_lock();
	sk = mrc_net_sk(n, family);
	to = sk ? mrc_net_loop_dev(sock_net(sk), daddr) : NULL;
	if (!sk) {
		kfree_skb(skb);
		err = rcu_access_pointer(n->sock4) ? -EAFNOSUPPORT : -ENETDOWN;
	} else if (to && !netif_running(to)) {
		/* as the stack would: nothing is delivered to a netdev down */
		kfree_skb(skb);
		err = -ENETDOWN;
	} else if (to) {
		err = mrc_net_loop_xmit(to, skb, saddr, daddr, sport, n->port,
					tos, mrc_net_rcv);
	} else if (family == AF_INET) {
		err = mrc_net_xmit4(n, sk, ndev, mrc_net_route(rs, sport, tos),
				    skb, (const struct sockaddr_in *)saddr,
				    (const struct sockaddr_in *)daddr, sport,
				    tos);
	} else {
		err = mrc_net_xmit6(n, sk, ndev, mrc_net_route(rs, sport, tos),
				    skb, (const struct sockaddr_in6 *)saddr,
				    (const struct sockaddr_in6 *)daddr, sport,
				    tos);
	}
	rcu_read_unlock();
	return err;
}
