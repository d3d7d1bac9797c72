/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * KUnit: a pair of metaroce devices that exchange real packets inside the
 * UML kernel, for the suites that need a live connection.
 *
 * A test-only Ethernet pair (a minimal veth: what one end transmits the
 * other receives) carries IPv4, ARP and our UDP datagrams. The second end
 * lives in its own network namespace, so neither address is local to the
 * other and packets really cross the pair. Each end gets an address, a
 * metaroce device and an RC QP; the QPs are connected with ordinary
 * kernel verbs (A's starting PSN 100, B's 5000). The wire can drop,
 * split, corrupt or hold back MetaRoCE datagrams in one direction, so
 * the glue (skb build, UDP tunnel, parse, placement) runs end to end.
 *
 * Addresses are set with devinet_ioctl(), which is not exported: the
 * pair exists when metaroce is built in, as in `make test-kunit`.
 */
#ifndef _MRC_T_PAIR_H
#define _MRC_T_PAIR_H

#include <kunit/test.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include "../stats.h"

#define MRC_T_BUF	(256 * 1024)
#define MRC_T_WAIT_MS	20000

struct mrc_t_wire {
	struct net_device *peer;
	u32 drop_every;		/* drop every Nth MetaRoCE datagram; 0: none */
	bool drop_acks;		/* drop every MetaRoCE ACK */
	u32 split;		/* deliver datagrams in fragments past this */
	u32 corrupt_every;	/* ... and flip a fragment bit in every Nth */
	u32 hold_every;		/* hold every Nth datagram back until release */
	struct sk_buff_head line;	/* ... here */
	atomic_t changed;	/* held datagrams whose bytes changed */
	atomic_t seen;
	u8 tos_data;		/* IP TOS of the last sequenced datagram */
	u8 tos_ctrl;		/* ... and of the last ACK, NAK, PROBE or HELLO */
	atomic_t dropped;
	atomic_t corrupted;
};

/* One end: netdev, metaroce device and the verbs objects on it. */
struct mrc_t_end {
	struct net_device *ndev;
	struct mrc_dev *dev;
	const struct ib_gid_attr *gid;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u8 *buf;
	u8 tclass;		/* of the address mrc_t_connect() gives qp */
};

struct mrc_t_rc {
	struct mrc_t_end e[2];
	struct net *net_b;	/* end 1's namespace */
};

/* The suites' init and exit: both ends up and connected, and down. */
int mrc_t_pair_init(struct kunit *test);
void mrc_t_pair_exit(struct kunit *test);

/* End @i's IPv4 address: 10.99.0.1 (A), 10.99.0.2 (B). */
__be32 mrc_t_ip(int i);
/* Wait until both ends' HELLO exchange is over ([PKT-94]). */
void mrc_t_hello_settle(struct mrc_t_rc *t);
/* RESET -> INIT -> RTR -> RTS towards the other end. */
int mrc_t_connect(struct mrc_t_end *me, struct mrc_t_end *peer,
		  u32 my_psn, u32 peer_psn);
/*
 * Stop holding datagrams back and deliver those held, in one receive
 * batch, in order or @reversed; the number delivered.
 */
u32 mrc_t_wire_release(struct mrc_t_wire *w, bool reversed);

/* Poll @cq (@e's CQ) for one completion, sleeping between tries. */
int mrc_t_wait_cq(struct ib_cq *cq, struct ib_wc *wc);
int mrc_t_wait_wc(struct mrc_t_end *e, struct ib_wc *wc);
void mrc_t_fill(u8 *p, u32 len, u32 seed);
/* A signaled WRITE or READ of @len bytes, A's buffer to B's at @off. */
void mrc_t_post_rdma(struct kunit *test, struct mrc_t_rc *t,
		     enum ib_wr_opcode op, u32 len, u32 off, u64 wr_id);
/* Fill A's buffer, clear B's and post a WRITE of @len bytes from A to B. */
void mrc_t_post_write(struct kunit *test, struct mrc_t_rc *t, u32 len);
/* ... and wait for it: every byte must be at B. */
void mrc_t_write(struct kunit *test, struct mrc_t_rc *t, u32 len);
/* A device counter, summed over the CPUs. */
u64 mrc_t_stat(struct mrc_dev *dev, enum mrc_stat s);
/* @len bytes into B's receive path, from A's address or from @saddr. */
void mrc_t_inject(struct mrc_t_end *b, const u8 *data, u32 len,
		  bool nonlinear);
void mrc_t_inject_from(struct mrc_t_end *b, __be32 saddr, const u8 *data,
		       u32 len, bool nonlinear);

#endif /* _MRC_T_PAIR_H */
