// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: two metaroce devices exchange real packets inside the UML kernel
 * (the suites of rc_test.c and hostile_test.c; pair.h says how).
 */
#include <kunit/test.h>

#if IS_BUILTIN(CONFIG_METAROCE)

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/jhash.h>
#include <linux/rtnetlink.h>
#include <linux/user_namespace.h>
#include <linux/udp.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>

#include "../metaroce.h"
#include "../registry.h"
#include "../stats.h"
#include "../xport.h"
#include "../core/wire.h"
#include "pair.h"
/* The MetaRoCE packet type of @skb, or -1 if it is not ours. */
static int mrc_t_our_type(struct sk_buff *skb, u8 *tos)
{
	struct udphdr _uh, *uh;
	struct iphdr _ih, *ih;
	u8 _t, *t;

	if (skb->protocol != htons(ETH_P_IP))
		return -1;
	ih = skb_header_pointer(skb, ETH_HLEN, sizeof(_ih), &_ih);
	if (!ih || ih->protocol != IPPROTO_UDP)
		return -1;
	*tos = ih->tos;
	uh = skb_header_pointer(skb, ETH_HLEN + ih->ihl * 4, sizeof(_uh), &_uh);
	if (!uh || uh->dest != htons(MRC_WIRE_UDP_PORT))
		return -1;
	t = skb_header_pointer(skb, ETH_HLEN + ih->ihl * 4 + sizeof(*uh) +
			       MRC_WO_TYPE, sizeof(_t), &_t);
	return t ? *t : -1;
}

/*
 * @skb as virtio-net delivers a jumbo frame: its first @head bytes in the
 * linear part, the rest in page fragments (of an odd size, so that they
 * end anywhere); @corrupt flips a bit in the last fragment. On allocation
 * failure the frame goes as it is.
 */
static struct sk_buff *mrc_t_fragment(struct sk_buff *skb, u32 head,
				      bool corrupt)
{
	const u32 chunk = 700;
	struct sk_buff *n;
	u32 off, len;

	if (skb->len <= head)
		return skb;
	n = alloc_skb(head, GFP_ATOMIC);
	if (!n)
		return skb;
	skb_put(n, head);
	skb_copy_bits(skb, 0, n->data, head);
	for (off = head; off < skb->len; off += len) {
		struct page *page = alloc_page(GFP_ATOMIC);

		len = min(skb->len - off, chunk);
		if (!page || skb_shinfo(n)->nr_frags == MAX_SKB_FRAGS) {
			if (page)
				__free_page(page);
			kfree_skb(n);
			return skb;
		}
		skb_copy_bits(skb, off, page_address(page), len);
		if (corrupt && off + len == skb->len)
			*(u8 *)page_address(page) ^= 0x10;
		skb_add_rx_frag(n, skb_shinfo(n)->nr_frags, page, 0, len,
				PAGE_SIZE);
	}
	n->dev = skb->dev;	/* dev_forward_skb() compares namespaces */
	n->protocol = skb->protocol;
	consume_skb(skb);
	return n;
}

#define MRC_T_HOLD_MAX	64

/* The bytes of a held datagram, hashed when it was sent. */
#define mrc_t_cb_hash(skb)	(*(u32 *)(skb)->cb)

static u32 mrc_t_hash(struct sk_buff *skb)
{
	return jhash(skb->data, skb_headlen(skb), skb->len);
}

static netdev_tx_t mrc_t_wire_xmit(struct sk_buff *skb,
				   struct net_device *ndev)
{
	struct mrc_t_wire *w = netdev_priv(ndev);

	u8 tos = 0;
	int type = mrc_t_our_type(skb, &tos);

	if (type >= 0) {
		u32 n = atomic_inc_return(&w->seen);
		bool corrupt;

		if (type == MRC_PKT_ACK || type == MRC_PKT_NAK ||
		    type == MRC_PKT_PROBE || type == MRC_PKT_HELLO)
			WRITE_ONCE(w->tos_ctrl, tos);
		else
			WRITE_ONCE(w->tos_data, tos);

		if ((w->drop_every && n % w->drop_every == 0) ||
		    (READ_ONCE(w->drop_acks) && type == MRC_PKT_ACK)) {
			atomic_inc(&w->dropped);
			dev_kfree_skb_any(skb);
			return NETDEV_TX_OK;
		}
		corrupt = w->corrupt_every && n % w->corrupt_every == 0 &&
			  skb->len > w->split;
		if (w->split)
			skb = mrc_t_fragment(skb, w->split, corrupt);
		if (corrupt && skb_is_nonlinear(skb))
			atomic_inc(&w->corrupted);
		if (w->hold_every && n % w->hold_every == 0 &&
		    skb_queue_len(&w->line) < MRC_T_HOLD_MAX) {
			mrc_t_cb_hash(skb) = mrc_t_hash(skb);
			skb_queue_tail(&w->line, skb);
			return NETDEV_TX_OK;
		}
	}
	/* as veth: scrub, eth_type_trans, netif_rx on the other end */
	dev_forward_skb(w->peer, skb);
	return NETDEV_TX_OK;
}

/*
 * Stop holding datagrams back and deliver those held, in one receive
 * batch, in order or @reversed; the number delivered.
 */
u32 mrc_t_wire_release(struct mrc_t_wire *w, bool reversed)
{
	struct sk_buff *held[MRC_T_HOLD_MAX];
	u32 i, n = 0;

	WRITE_ONCE(w->hold_every, 0);
	while (n < MRC_T_HOLD_MAX && (held[n] = skb_dequeue(&w->line)))
		n++;
	local_bh_disable();
	for (i = 0; i < n; i++) {
		struct sk_buff *skb = held[reversed ? n - 1 - i : i];

		if (mrc_t_cb_hash(skb) != mrc_t_hash(skb))
			atomic_inc(&w->changed);
		dev_forward_skb(w->peer, skb);
	}
	local_bh_enable();
	return n;
}

static const struct net_device_ops mrc_t_wire_ops = {
	.ndo_start_xmit = mrc_t_wire_xmit,
};

static int mrc_t_set_addr(struct net_device *ndev, __be32 addr)
{
	struct net *net = dev_net(ndev);
	struct ifreq ifr = { };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	int err;

	strscpy(ifr.ifr_name, ndev->name, IFNAMSIZ);
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = addr;
	err = devinet_ioctl(net, SIOCSIFADDR, &ifr);
	if (err)
		return err;
	sin->sin_addr.s_addr = htonl(0xffffff00);
	return devinet_ioctl(net, SIOCSIFNETMASK, &ifr);
}

__be32 mrc_t_ip(int i)
{
	return htonl(0x0a630001 + i);	/* 10.99.0.1, 10.99.0.2 */
}

/*
 * The IPv4 GID ib_core derives from the address, once it has: its work
 * queue fills the table, which can take seconds on a loaded machine.
 */
static const struct ib_gid_attr *mrc_t_wait_gid(struct mrc_t_end *e, int i)
{
	const struct ib_gid_attr *attr = ERR_PTR(-ENOENT);
	union ib_gid gid;
	int t;

	ipv6_addr_set_v4mapped(mrc_t_ip(i), (struct in6_addr *)gid.raw);
	for (t = 0; t < 3000 && IS_ERR(attr); t++) {
		attr = rdma_find_gid_by_port(&e->dev->ibdev, &gid,
					     IB_GID_TYPE_ROCE_UDP_ENCAP, 1,
					     e->ndev);
		if (IS_ERR(attr))
			usleep_range(10000, 20000);
	}
	return attr;
}

static int mrc_t_end_up(struct kunit *test, struct mrc_t_rc *t, int i)
{
	struct mrc_t_end *e = &t->e[i];
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = 2,
			.max_recv_sge = 1,
		},
	};
	char name[IB_DEVICE_NAME_MAX];
	int err;

	rtnl_lock();
	err = dev_open(e->ndev, NULL);
	rtnl_unlock();
	if (err)
		return err;
	err = mrc_t_set_addr(e->ndev, mrc_t_ip(i));
	if (err)
		return err;
	/* The production path, so the device is in the receive registry. */
	snprintf(name, sizeof(name), "mrce%d", i);
	err = mrc_dev_add(name, e->ndev);
	if (err)
		return err;
	e->dev = mrc_dev_get_by_netdev(e->ndev);
	if (!e->dev)
		return -ENODEV;
	/* mrc_t_end_down() unregisters it; no reference of ours is needed. */
	ib_device_put(&e->dev->ibdev);
	e->gid = mrc_t_wait_gid(e, i);
	if (IS_ERR(e->gid)) {
		err = PTR_ERR(e->gid);
		e->gid = NULL;
		return err;
	}
	/* virtual DMA: the global rkey covers kernel virtual addresses */
	e->pd = ib_alloc_pd(&e->dev->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(e->pd)) {
		err = PTR_ERR(e->pd);
		e->pd = NULL;
		return err;
	}
	e->cq = ib_alloc_cq(&e->dev->ibdev, NULL, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(e->cq)) {
		err = PTR_ERR(e->cq);
		e->cq = NULL;
		return err;
	}
	init.send_cq = e->cq;
	init.recv_cq = e->cq;
	e->qp = ib_create_qp(e->pd, &init);
	if (IS_ERR(e->qp)) {
		err = PTR_ERR(e->qp);
		e->qp = NULL;
		return err;
	}
	/* a guard zone after the buffer shows writes past the end */
	e->buf = kunit_kzalloc(test, MRC_T_BUF + 64, GFP_KERNEL);
	return e->buf ? 0 : -ENOMEM;
}

static void mrc_t_end_down(struct mrc_t_end *e)
{
	if (e->qp)
		ib_destroy_qp(e->qp);
	if (e->cq)
		ib_free_cq(e->cq);
	if (e->pd)
		ib_dealloc_pd(e->pd);
	if (e->gid)
		rdma_put_gid_attr(e->gid);
	if (e->dev)
		ib_unregister_device(&e->dev->ibdev);
}

/*
 * RESET -> INIT -> RTR -> RTS towards the other end; a UC QP without the
 * attributes verbs do not give UC (responder resources, RNR and retry).
 */
int mrc_t_connect(struct mrc_t_end *me, struct mrc_t_end *peer,
		  u32 my_psn, u32 peer_psn)
{
	bool rc = me->qp->qp_type == IB_QPT_RC;
	int rtr_rc = rc ? IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER : 0;
	int rts_rc = rc ? IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			  IB_QP_MAX_QP_RD_ATOMIC : 0;
	union ib_gid dgid = peer->gid->gid;
	struct ib_qp_attr a = { };
	int err, tries;

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	err = ib_modify_qp(me->qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = peer_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, &dgid, 0, me->gid->index, 64, me->tclass);
	/*
	 * -ENODATA: the source GID's table slot is no longer valid. ib_core
	 * rebuilds a netdev's GIDs on later address events and our address
	 * may come back at another index: look it up again and retry, for
	 * up to ~30 s.
	 */
	for (tries = 0; tries < 300; tries++) {
		const struct ib_gid_attr *g;

		err = ib_modify_qp(me->qp, &a, IB_QP_STATE | IB_QP_AV |
				   IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				   IB_QP_RQ_PSN | rtr_rc);
		if (err != -ENODATA)
			break;
		msleep(100);
		g = rdma_find_gid_by_port(&me->dev->ibdev, &me->gid->gid,
					  IB_GID_TYPE_ROCE_UDP_ENCAP, 1,
					  me->ndev);
		if (IS_ERR(g))
			continue;
		rdma_put_gid_attr(me->gid);
		me->gid = g;
		rdma_ah_set_grh(&a.ah_attr, &dgid, 0, me->gid->index, 64, me->tclass);
	}
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = my_psn;
	a.timeout = 10;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ib_modify_qp(me->qp, &a, IB_QP_STATE | IB_QP_SQ_PSN | rts_rc);
}

int mrc_t_pair_init(struct kunit *test)
{
	struct mrc_t_rc *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	int i, err;

	if (!t)
		return -ENOMEM;
	test->priv = t;
	t->net_b = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	if (IS_ERR(t->net_b)) {
		err = PTR_ERR(t->net_b);
		t->net_b = NULL;
		return err;
	}
	for (i = 0; i < 2; i++) {
		struct net_device *ndev;

		ndev = alloc_etherdev(sizeof(struct mrc_t_wire));
		if (!ndev)
			return -ENOMEM;
		ndev->netdev_ops = &mrc_t_wire_ops;
		eth_hw_addr_random(ndev);
		if (i)
			dev_net_set(ndev, t->net_b);
		err = register_netdev(ndev);
		if (err) {
			free_netdev(ndev);
			return err;
		}
		t->e[i].ndev = ndev;
	}
	for (i = 0; i < 2; i++) {
		struct mrc_t_wire *w = netdev_priv(t->e[i].ndev);

		w->peer = t->e[!i].ndev;
		skb_queue_head_init(&w->line);
	}
	for (i = 0; i < 2; i++) {
		err = mrc_t_end_up(test, t, i);
		if (err) {
			kunit_err(test, "end %d: setup failed: %d\n", i, err);
			return err;
		}
	}
	err = mrc_t_connect(&t->e[0], &t->e[1], 100, 5000);
	if (!err)
		err = mrc_t_connect(&t->e[1], &t->e[0], 5000, 100);
	if (err)
		kunit_err(test, "connect failed: %d\n", err);
	else
		mrc_t_hello_settle(t);
	return err;
}

/* Has end @i's HELLO been answered, or will none be ([PKT-94])? */
static bool mrc_t_hello_done(struct mrc_t_rc *t, int i)
{
	struct mrc_xp *xp = mrc_xp_of(to_mrc_qp(t->e[i].qp));
	bool done;

	spin_lock_bh(&xp->lock);
	done = !xp->hello_on || xp->hello.answered ||
	       mrc_hello_deadline(&xp->hello) == MRC_HELLO_NEVER;
	spin_unlock_bh(&xp->lock);
	return done;
}

/*
 * Both ends' HELLOs answered before a case starts: an OFFER resent
 * 50 ms after RTS would otherwise land in a case's count of datagrams.
 */
void mrc_t_hello_settle(struct mrc_t_rc *t)
{
	unsigned long until = jiffies + msecs_to_jiffies(MRC_T_WAIT_MS);

	while ((!mrc_t_hello_done(t, 0) || !mrc_t_hello_done(t, 1)) &&
	       time_before(jiffies, until))
		msleep(20);
}

void mrc_t_pair_exit(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	int i;

	if (!t)
		return;
	for (i = 0; i < 2; i++)
		mrc_t_end_down(&t->e[i]);
	for (i = 0; i < 2; i++)
		if (t->e[i].ndev) {
			struct mrc_t_wire *w = netdev_priv(t->e[i].ndev);

			skb_queue_purge(&w->line);
			unregister_netdev(t->e[i].ndev);
			free_netdev(t->e[i].ndev);
		}
	if (t->net_b)
		put_net(t->net_b);
}

/* Poll @cq for one completion, sleeping between tries. */
int mrc_t_wait_cq(struct ib_cq *cq, struct ib_wc *wc)
{
	int ms;

	for (ms = 0; ms < MRC_T_WAIT_MS; ms++) {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return 0;
		usleep_range(1000, 2000);
	}
	return -ETIMEDOUT;
}

int mrc_t_wait_wc(struct mrc_t_end *e, struct ib_wc *wc)
{
	return mrc_t_wait_cq(e->cq, wc);
}

void mrc_t_fill(u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(i * 131 + seed + (i >> 10));
}

/*
 * Post a signaled RDMA WRITE or READ of @len bytes between A's buffer and
 * B's at @off, from A.
 */
void mrc_t_post_rdma(struct kunit *test, struct mrc_t_rc *t,
		     enum ib_wr_opcode op, u32 len, u32 off, u64 wr_id)
{
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct ib_sge sge = {
		.addr = (uintptr_t)a->buf,
		.length = len,
		.lkey = a->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
		},
		.remote_addr = (uintptr_t)b->buf + off,
		.rkey = b->pd->unsafe_global_rkey,
	};
	const struct ib_send_wr *bad;

	KUNIT_ASSERT_EQ(test, ib_post_send(a->qp, &wr.wr, &bad), 0);
}

/* Fill A's buffer, clear B's and post a WRITE of @len bytes from A to B. */
void mrc_t_post_write(struct kunit *test, struct mrc_t_rc *t, u32 len)
{
	mrc_t_fill(t->e[0].buf, len, 3);
	memset(t->e[1].buf, 0, MRC_T_BUF + 64);
	mrc_t_post_rdma(test, t, IB_WR_RDMA_WRITE, len, 0, 0x1111);
}

void mrc_t_write(struct kunit *test, struct mrc_t_rc *t, u32 len)
{
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct ib_wc wc;

	mrc_t_post_write(test, t, len);
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x1111ull);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_WRITE);
	/* a completed WRITE means every byte is in place at the target */
	KUNIT_EXPECT_EQ(test, memcmp(a->buf, b->buf, len), 0);
	KUNIT_EXPECT_EQ(test, b->buf[len], 0);
}

u64 mrc_t_stat(struct mrc_dev *dev, enum mrc_stat s)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(dev->stats, cpu)->v[s];
	return sum;
}

/*
 * Hand @len bytes to B's receive path as if they came off its wire from
 * @saddr: behind an IPv4 and a UDP header, as the UDP encap hook leaves
 * them (rx.c reads the source address from the IP header, [SEC-3]).
 */
void mrc_t_inject_from(struct mrc_t_end *b, __be32 saddr, const u8 *data,
		       u32 len, bool nonlinear)
{
	const u32 room = sizeof(struct iphdr) + sizeof(struct udphdr);
	struct sk_buff *skb = alloc_skb(len + 64 + room, GFP_KERNEL);
	u32 head = nonlinear ? min_t(u32, len, 40) : len;
	struct iphdr *ih;

	if (!skb)
		return;
	skb_reserve(skb, 64 + room);
	skb_put_data(skb, data, head);
	if (head < len) {
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page) {
			kfree_skb(skb);
			return;
		}
		memcpy(page_address(page), data + head, len - head);
		skb_add_rx_frag(skb, 0, page, 0, len - head, PAGE_SIZE);
	}
	ih = skb_push(skb, room);
	memset(ih, 0, room);
	ih->version = 4;
	ih->ihl = 5;
	ih->ttl = 64;
	ih->protocol = IPPROTO_UDP;
	ih->saddr = saddr;
	ih->daddr = mrc_t_ip(1);
	ih->tot_len = htons(skb->len);
	skb_reset_network_header(skb);
	/* as the IP layer leaves it: rx.c reads the UDP source port */
	skb_set_transport_header(skb, sizeof(*ih));
	skb_pull(skb, room);
	skb->protocol = htons(ETH_P_IP);
	skb->dev = b->ndev;
	local_bh_disable();	/* as in the UDP encap softirq */
	mrc_rx_rcv(skb, false);
	local_bh_enable();
}

/* ... from A, the connection's peer. */
void mrc_t_inject(struct mrc_t_end *b, const u8 *data, u32 len,
		  bool nonlinear)
{
	mrc_t_inject_from(b, mrc_t_ip(0), data, len, nonlinear);
}

#endif /* IS_BUILTIN(CONFIG_METAROCE) */
