// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Loopback ([ENC-17]): a datagram to an address of the sender's own
 * network namespace never enters the IP stack. Routed, it would come back
 * on `lo`, where no device of ours listens; here it is given the UDP and
 * IP headers the stack would have put on it (the receive path reads the
 * source address and port from them) and the netdev that owns the
 * destination address as its ingress, and is handed to the receive
 * handler as if it had arrived there.
 *
 * Not at once: the sender may hold locks the receiver takes (a QP may be
 * connected to itself), and a reply sent from the receive handler would
 * recurse. Each CPU queues its looped datagrams and a tasklet delivers
 * them, a budget at a time, in softirq context as the UDP stack would.
 * The queue is bounded like a NIC's ring: past it the sender's datagram
 * is refused (-ENOBUFS), for the sender to count as a transmit drop.
 */

#include <linux/inetdevice.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/udp.h>

#include "fault.h"
#include "net_loop.h"

#define MRC_LOOP_MAX	2048	/* datagrams queued per CPU */
#define MRC_LOOP_BUDGET	64	/* delivered per tasklet run */

struct mrc_loop {
	struct sk_buff_head q;
	struct tasklet_struct task;
};

static DEFINE_PER_CPU(struct mrc_loop, mrc_loops);

struct mrc_loop_cb {
	mrc_net_rcv_t rcv;
};

static struct mrc_loop_cb *mrc_loop_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct mrc_loop_cb) > sizeof(skb->cb));
	return (struct mrc_loop_cb *)skb->cb;
}

struct net_device *mrc_net_loop_dev(struct net *net,
				    const struct sockaddr *daddr)
{
	struct net_device *ndev = NULL;

	if (daddr->sa_family == AF_INET) {
		const struct sockaddr_in *d = (const struct sockaddr_in *)daddr;

		ndev = __ip_dev_find(net, d->sin_addr.s_addr, false);
	} else if (IS_ENABLED(CONFIG_IPV6) && daddr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *d =
			(const struct sockaddr_in6 *)daddr;

		ndev = ipv6_stub->ipv6_dev_find(net, &d->sin6_addr, NULL);
	}
	return ndev;
}

static void mrc_loop_hdr4(struct sk_buff *skb, const struct sockaddr_in *s,
			  const struct sockaddr_in *d, u8 tos)
{
	struct iphdr *iph;

	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = tos;
	iph->tot_len = htons(skb->len);
	iph->id = 0;
	iph->frag_off = htons(IP_DF);
	iph->ttl = IPDEFTTL;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = s->sin_addr.s_addr;
	iph->daddr = d->sin_addr.s_addr;
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
}

static void mrc_loop_hdr6(struct sk_buff *skb, const struct sockaddr_in6 *s,
			  const struct sockaddr_in6 *d, u8 tos, u16 sport)
{
	struct ipv6hdr *ip6;

	skb_push(skb, sizeof(*ip6));
	skb_reset_network_header(skb);
	ip6 = ipv6_hdr(skb);
	/* the flow label the wire would carry ([ENC-6]) */
	ip6_flow_hdr(ip6, tos, htonl(sport & IPV6_FLOWLABEL_MASK));
	ip6->payload_len = htons(skb->len - sizeof(*ip6));
	ip6->nexthdr = IPPROTO_UDP;
	ip6->hop_limit = IPV6_DEFAULT_HOPLIMIT;
	ip6->saddr = s->sin6_addr;
	ip6->daddr = d->sin6_addr;
	skb->protocol = htons(ETH_P_IPV6);
}

/*
 * Give @skb (data: the MetaRoCE header) the headers it would have arrived
 * with and leave data where the UDP encap hook would: past the UDP header.
 */
static int mrc_loop_headers(struct sk_buff *skb, const struct sockaddr *s,
			    const struct sockaddr *d, u16 sport, u16 dport,
			    u8 tos)
{
	unsigned int len = skb->len;
	struct udphdr *uh;

	if (skb_cow_head(skb, sizeof(struct ipv6hdr) + sizeof(*uh)))
		return -ENOMEM;
	skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(sport);
	uh->dest = htons(dport);
	uh->len = htons(len + sizeof(*uh));
	uh->check = 0;
	if (d->sa_family == AF_INET)
		mrc_loop_hdr4(skb, (const struct sockaddr_in *)s,
			      (const struct sockaddr_in *)d, tos);
	else
		mrc_loop_hdr6(skb, (const struct sockaddr_in6 *)s,
			      (const struct sockaddr_in6 *)d, tos, sport);
	skb_pull(skb, skb_transport_offset(skb) + sizeof(*uh));
	/* nothing on the way could have damaged it: the ICRC still checks */
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	/* for the receiver's count of looped datagrams */
	skb->pkt_type = PACKET_LOOPBACK;
	return 0;
}

static void mrc_loop_run(struct tasklet_struct *t)
{
	struct mrc_loop *l = from_tasklet(l, t, task);
	struct sk_buff *skb;
	int budget = MRC_LOOP_BUDGET;

	while (budget-- && (skb = __skb_dequeue(&l->q))) {
		mrc_net_rcv_t rcv = mrc_loop_cb(skb)->rcv;
		struct net_device *ndev = skb->dev;

		if (!mrc_fault_rx(skb, false, rcv))
			rcv(skb, false);
		dev_put(ndev);
	}
	if (!skb_queue_empty(&l->q))
		tasklet_schedule(&l->task);
}

/* One datagram of @len bytes from @skb at @off, with room for headers. */
static struct sk_buff *mrc_loop_copy(struct sk_buff *skb, u32 off, u32 len)
{
	unsigned int head = sizeof(struct ipv6hdr) + sizeof(struct udphdr);
	struct sk_buff *seg = alloc_skb(head + len, GFP_ATOMIC);

	if (!seg)
		return NULL;
	skb_reserve(seg, head);
	if (skb_copy_bits(skb, off, skb_put(seg, len), len)) {
		kfree_skb(seg);
		return NULL;
	}
	return seg;
}

/*
 * A UDP GSO burst (net.h, mrc_net_join()) is the datagrams the wire would
 * carry, back to back: cut it as the NIC would. Consumes @skb; false if
 * out of memory, with nothing left on @list.
 */
static bool mrc_loop_split(struct sk_buff *skb, struct sk_buff_head *list)
{
	u32 seg = skb_shinfo(skb)->gso_size, off, len;
	struct sk_buff *one;

	__skb_queue_head_init(list);
	if (!skb_is_gso(skb) || !seg) {
		__skb_queue_tail(list, skb);
		return true;
	}
	for (off = 0; off < skb->len; off += len) {
		len = min(seg, skb->len - off);
		one = mrc_loop_copy(skb, off, len);
		if (!one) {
			__skb_queue_purge(list);
			break;
		}
		__skb_queue_tail(list, one);
	}
	consume_skb(skb);
	return !skb_queue_empty(list);
}

/* A burst is queued whole or not at all, so the sender counts it right. */
int mrc_net_loop_xmit(struct net_device *to, struct sk_buff *skb,
		      const struct sockaddr *saddr,
		      const struct sockaddr *daddr, u16 sport, u16 dport,
		      u8 tos, mrc_net_rcv_t rcv)
{
	struct sk_buff_head list;
	struct mrc_loop *l;
	int err = 0;

	if (!mrc_loop_split(skb, &list))
		return -ENOMEM;
	skb_queue_walk(&list, skb) {
		if (mrc_loop_headers(skb, saddr, daddr, sport, dport, tos)) {
			__skb_queue_purge(&list);
			return -ENOMEM;
		}
		skb_dst_drop(skb);
		skb->dev = to;
		mrc_loop_cb(skb)->rcv = rcv;
	}
	local_bh_disable();
	l = this_cpu_ptr(&mrc_loops);
	if (skb_queue_len(&l->q) + skb_queue_len(&list) > MRC_LOOP_MAX) {
		__skb_queue_purge(&list);
		err = -ENOBUFS;
	} else {
		skb_queue_walk(&list, skb)
			dev_hold(to);
		skb_queue_splice_tail_init(&list, &l->q);
		tasklet_schedule(&l->task);
	}
	local_bh_enable();
	return err;
}

void mrc_net_loop_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct mrc_loop *l = per_cpu_ptr(&mrc_loops, cpu);

		__skb_queue_head_init(&l->q);
		tasklet_setup(&l->task, mrc_loop_run);
	}
}

void mrc_net_loop_exit(void)
{
	struct sk_buff *skb;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct mrc_loop *l = per_cpu_ptr(&mrc_loops, cpu);

		tasklet_kill(&l->task);
		while ((skb = __skb_dequeue(&l->q))) {
			dev_put(skb->dev);
			kfree_skb(skb);
		}
	}
}
