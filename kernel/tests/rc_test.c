// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: RDMA WRITE, SEND and READ between the two ends of pair.h must
 * deliver every byte, through loss, fragments, corruption and reordering
 * on the wire, so selective retransmission runs end to end through the
 * glue (skb build, UDP tunnel, parse, placement) and not only in the core.
 */
#include <kunit/test.h>

/* The pair needs metaroce built in (pair.h). */
#if IS_BUILTIN(CONFIG_METAROCE)

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/jhash.h>
#include <linux/kthread.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/user_namespace.h>
#include <linux/udp.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>

#include "../counter.h"
#include "../metaroce.h"
#include "../stats.h"
#include "../ud.h"
#include "../verbs.h"
#include "../xport.h"
#include "../core/wire.h"
#include "pair.h"

static void mrc_rc_write_delivers_every_byte(struct kunit *test)
{
	mrc_t_write(test, test->priv, MRC_T_BUF - 1);
}

static void mrc_rc_send_lands_in_posted_receive(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct ib_sge rsge = {
		.addr = (uintptr_t)b->buf,
		.length = 8192,
		.lkey = b->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .wr_id = 0x2222, .sg_list = &rsge,
				  .num_sge = 1 };
	struct ib_sge ssge = {
		.addr = (uintptr_t)a->buf,
		.length = 5000,
		.lkey = a->pd->local_dma_lkey,
	};
	struct ib_send_wr swr = {
		.wr_id = 0x3333, .opcode = IB_WR_SEND_WITH_IMM,
		.send_flags = IB_SEND_SIGNALED, .sg_list = &ssge, .num_sge = 1,
		.ex.imm_data = cpu_to_be32(0x600dd00d),
	};
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	struct ib_wc wc[2];

	mrc_t_fill(a->buf, 5000, 9);
	memset(b->buf, 0, 8192);
	KUNIT_ASSERT_EQ(test, ib_post_recv(b->qp, &rwr, &rbad), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(a->qp, &swr, &sbad), 0);
	/* one completion on each side; both ends share nothing but the wire */
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc[0]), 0);
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(b, &wc[1]), 0);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x3333ull);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 0x2222ull);
	KUNIT_EXPECT_EQ(test, wc[1].opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc[1].byte_len, 5000u);
	KUNIT_EXPECT_TRUE(test, wc[1].wc_flags & IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc[1].ex.imm_data), 0x600dd00du);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf, b->buf, 5000), 0);
	KUNIT_EXPECT_EQ(test, b->buf[5000], 0);
}

static void mrc_rc_read_fetches_remote_bytes(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	const u32 len = 100000;
	struct ib_wc wc;

	mrc_t_fill(b->buf, MRC_T_BUF, 21);
	memset(a->buf, 0, MRC_T_BUF + 64);
	mrc_t_post_rdma(test, t, IB_WR_RDMA_READ, len, 7, 0x4444);
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf, b->buf + 7, len), 0);
	KUNIT_EXPECT_EQ(test, a->buf[len], 0);
}

/*
 * [OPS-2] A READ completes once its response is placed: with every ACK
 * from B lost, the request is never acknowledged, yet the READ is done.
 */
static void mrc_rc_read_done_without_request_ack(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct mrc_t_wire *w = netdev_priv(b->ndev);
	struct ib_wc wc;

	mrc_t_fill(b->buf, MRC_T_BUF, 23);
	memset(a->buf, 0, MRC_T_BUF + 64);
	WRITE_ONCE(w->drop_acks, true);
	mrc_t_post_rdma(test, t, IB_WR_RDMA_READ, 64, 0, 0x4545);
	KUNIT_EXPECT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
	WRITE_ONCE(w->drop_acks, false);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x4545ull);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf, b->buf, 64), 0);
	/* ACKs flow again: the connection goes on (the request is acked) */
	mrc_t_post_rdma(test, t, IB_WR_RDMA_READ, 64, 0, 0x4546);
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x4546ull);
}

/* Every 7th datagram from A to B is lost: only the holes are resent. */
static void mrc_rc_write_survives_loss(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_wire *w = netdev_priv(t->e[0].ndev);
	u64 retx0 = mrc_t_stat(t->e[0].dev, MRC_STAT_RETRANSMITS);
	u64 sent0 = mrc_t_stat(t->e[0].dev, MRC_STAT_TX_PACKETS);
	u64 retx, sent;

	w->drop_every = 7;
	mrc_t_write(test, t, MRC_T_BUF);
	w->drop_every = 0;
	retx = mrc_t_stat(t->e[0].dev, MRC_STAT_RETRANSMITS) - retx0;
	sent = mrc_t_stat(t->e[0].dev, MRC_STAT_TX_PACKETS) - sent0;
	KUNIT_EXPECT_GT(test, atomic_read(&w->dropped), 0);
	KUNIT_EXPECT_GE(test, retx, (u64)atomic_read(&w->dropped) / 2);
	/* selective: far from go-back-N's resend of everything after a hole */
	KUNIT_EXPECT_LT(test, retx, sent / 2);
	kunit_info(test, "%u dropped, %llu resent of %llu sent\n",
		   atomic_read(&w->dropped), retx, sent);
}

/*
 * Transmit buffers are filled again only once the stack let go of them
 * (txbuf.c). A's wire holds every 9th datagram back to the end, as a
 * qdisc or a slow NIC might, while the sender goes round its buffers many
 * times over (to the sender they are lost, and resent). Each held datagram
 * must leave the wire as it was sent: a buffer refilled under it would
 * hold another packet by then. And every byte lands.
 */
static void mrc_rc_tx_buffers_refilled_only_when_free(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_wire *w = netdev_priv(t->e[0].ndev);
	struct mrc_dev *a = t->e[0].dev;
	u64 reused0 = mrc_t_stat(a, MRC_STAT_TX_BUF_REUSED);
	u64 fresh0 = mrc_t_stat(a, MRC_STAT_TX_BUF_FRESH);
	u64 reused, fresh;

	w->hold_every = 9;
	mrc_t_write(test, t, MRC_T_BUF);
	mrc_t_write(test, t, MRC_T_BUF / 2 + 3);
	mrc_t_wire_release(w, false);
	reused = mrc_t_stat(a, MRC_STAT_TX_BUF_REUSED) - reused0;
	fresh = mrc_t_stat(a, MRC_STAT_TX_BUF_FRESH) - fresh0;
	kunit_info(test, "%llu buffers refilled, %llu new\n", reused, fresh);
	KUNIT_EXPECT_GT(test, reused, 0ull);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->changed), 0);
}

/*
 * [REL-23] A's datagrams reach B in one receive batch, last first: each
 * arrival opens or fills a hole, an ACK due at once. B answers the batch
 * with a few ACK datagrams, not one per arrival, and every byte lands.
 */
static void mrc_rc_batch_of_gaps_acked_once(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct mrc_t_wire *wa = netdev_priv(a->ndev);
	struct mrc_t_wire *wb = netdev_priv(b->ndev);
	const u32 len = 32 * 1024;
	struct ib_wc wc;
	u32 n, acks;
	int acks0, ms;

	wa->hold_every = 1;
	mrc_t_post_write(test, t, len);
	/* the first window leaves in the poster's context or its work item */
	for (ms = 0; ms < MRC_T_WAIT_MS; ms++) {
		if (skb_queue_len(&wa->line) >= 16)
			break;
		usleep_range(1000, 2000);
	}
	acks0 = atomic_read(&wb->seen);
	n = mrc_t_wire_release(wa, true);
	KUNIT_ASSERT_GE(test, n, 16u);
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf, b->buf, len), 0);
	acks = atomic_read(&wb->seen) - acks0;
	kunit_info(test, "%u datagrams in one batch, %u ACK datagrams\n", n,
		   acks);
	KUNIT_EXPECT_LE(test, acks, n / 2);
}

/*
 * READs in flight, each into two SGEs, while both directions lose
 * datagrams: responses are resent and placed out of order around the
 * SGE boundary, and a READ completes only with every byte in place.
 */
static void mrc_rc_reads_survive_loss(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct mrc_t_wire *wa = netdev_priv(a->ndev);
	struct mrc_t_wire *wb = netdev_priv(b->ndev);
	const u32 n = 4, len = MRC_T_BUF / 4;
	struct ib_sge sge[4][2];
	struct ib_rdma_wr wr[4];
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	u32 round, i, j;

	wa->drop_every = 11;
	wb->drop_every = 5;
	for (round = 0; round < 8; round++) {
		mrc_t_fill(b->buf, MRC_T_BUF, 40 + round);
		memset(a->buf, 0, MRC_T_BUF + 64);
		memset(wr, 0, sizeof(wr));
		for (i = 0; i < n; i++) {
			for (j = 0; j < 2; j++) {
				sge[i][j].addr = (uintptr_t)a->buf + i * len +
						 j * len / 2;
				sge[i][j].length = len / 2;
				sge[i][j].lkey = a->pd->local_dma_lkey;
			}
			wr[i].wr.wr_id = i;
			wr[i].wr.opcode = IB_WR_RDMA_READ;
			wr[i].wr.send_flags = IB_SEND_SIGNALED;
			wr[i].wr.sg_list = sge[i];
			wr[i].wr.num_sge = 2;
			wr[i].remote_addr = (uintptr_t)b->buf + i * len;
			wr[i].rkey = b->pd->unsafe_global_rkey;
			KUNIT_ASSERT_EQ(test,
					ib_post_send(a->qp, &wr[i].wr, &bad), 0);
		}
		for (i = 0; i < n; i++) {
			KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
			KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
			KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
		}
		for (i = 0; i < MRC_T_BUF && a->buf[i] == b->buf[i]; i++)
			;
		KUNIT_EXPECT_EQ_MSG(test, i, MRC_T_BUF,
				    "round %u: first bad byte %u", round, i);
		KUNIT_EXPECT_EQ(test, a->buf[MRC_T_BUF], 0);
	}
	wa->drop_every = 0;
	wb->drop_every = 0;
	kunit_info(test, "%d + %d dropped\n", atomic_read(&wa->dropped),
		   atomic_read(&wb->dropped));
}

/*
 * Datagrams arrive as NICs deliver jumbo frames, the first bytes in the
 * linear part and the rest in page fragments, and every 5th has a bit
 * flipped in a fragment. WRITE, SEND and READ data is placed straight
 * from the fragments (rx.c: mrc_rx_in_place()), the ICRC computed over
 * them drops each corrupted copy, and resends bring every byte intact.
 */
static void mrc_rc_fragmented_datagrams(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_wire *wa = netdev_priv(t->e[0].ndev);
	struct mrc_t_wire *wb = netdev_priv(t->e[1].ndev);
	/* to B as virtio-net delivers: no byte past the UDP header linear */
	const u32 udp_end = MRC_WIRE_ETH_LEN + MRC_WIRE_IPV4_LEN +
			    MRC_WIRE_UDP_LEN;
	u64 in_a = mrc_t_stat(t->e[0].dev, MRC_STAT_RX_IN_PLACE);
	u64 in_b = mrc_t_stat(t->e[1].dev, MRC_STAT_RX_IN_PLACE);

	wa->split = udp_end;
	/* to A: the largest data header and 8 bytes linear; ACKs split too */
	wb->split = udp_end + MRC_WIRE_BASE_LEN + MRC_WIRE_WRITE_LEN +
		    MRC_WIRE_IMM_LEN + 8;
	wa->corrupt_every = 5;
	wb->corrupt_every = 5;
	mrc_t_write(test, t, MRC_T_BUF - 1);
	mrc_rc_send_lands_in_posted_receive(test);
	mrc_rc_read_fetches_remote_bytes(test);
	wa->corrupt_every = 0;
	wb->corrupt_every = 0;
	wa->split = 0;
	wb->split = 0;
	kunit_info(test, "%d + %d datagrams corrupted\n",
		   atomic_read(&wa->corrupted), atomic_read(&wb->corrupted));
	KUNIT_EXPECT_GT(test, atomic_read(&wa->corrupted), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&wb->corrupted), 0);
	/* both ends took the data where it lay, headers pulled or not */
	KUNIT_EXPECT_GT(test, mrc_t_stat(t->e[0].dev, MRC_STAT_RX_IN_PLACE),
			in_a);
	KUNIT_EXPECT_GT(test, mrc_t_stat(t->e[1].dev, MRC_STAT_RX_IN_PLACE),
			in_b);
}

/* The length of small WR @i: @len, or (0) one of a spread. */
static u32 mrc_t_small_len(u32 i, u32 len)
{
	return len ? len : 16 + 37 * i;
}

/*
 * Post @n small signaled WRITEs of mrc_t_small_len() bytes from @me's
 * buffer, 1 KiB apart; with @len 0, every 4th is a READ instead.
 */
static void mrc_t_post_small(struct kunit *test, struct mrc_t_end *me,
			     struct mrc_t_end *peer, u32 src, u32 dst, u32 n,
			     u32 len)
{
	struct ib_sge sge[16];
	struct ib_rdma_wr wr[16];
	const struct ib_send_wr *bad;
	u32 i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		bool read = !len && i % 4 == 3;

		sge[i].addr = (uintptr_t)me->buf + src + i * 1024;
		sge[i].length = mrc_t_small_len(i, len);
		sge[i].lkey = me->pd->local_dma_lkey;
		wr[i].wr.wr_id = i;
		wr[i].wr.opcode = read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
		wr[i].wr.send_flags = IB_SEND_SIGNALED;
		wr[i].wr.sg_list = &sge[i];
		wr[i].wr.num_sge = 1;
		wr[i].wr.next = i + 1 < n ? &wr[i + 1].wr : NULL;
		wr[i].remote_addr = (uintptr_t)peer->buf + dst + i * 1024;
		wr[i].rkey = peer->pd->unsafe_global_rkey;
	}
	KUNIT_ASSERT_EQ(test, ib_post_send(me->qp, &wr[0].wr, &bad), 0);
}

/*
 * @n completions on @e, all successful, of WRs numbered in posting order
 * from 0 (@numbered: one mrc_t_post_small() of @n WRs) or all numbered 0
 * (@n posts of one).
 */
static void mrc_t_expect_wcs(struct kunit *test, struct mrc_t_end *e, u32 n,
			     bool numbered)
{
	struct ib_wc wc;
	u32 i;

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(e, &wc), 0);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, numbered ? (u64)i : 0ull);
	}
}

/* Both halves of both buffers equal where @n WRs of the round wrote. */
static void mrc_t_expect_small(struct kunit *test, struct mrc_t_rc *t,
			       u32 round, u32 n, u32 len, bool both)
{
	const u32 half = MRC_T_BUF / 2;
	u8 *a = t->e[0].buf, *b = t->e[1].buf;
	u32 i;

	for (i = 0; i < (both ? 2 * n : n); i++) {
		u32 off = (i < n ? 0 : half) + i % n * 1024;
		u32 l = mrc_t_small_len(i % n, len);

		KUNIT_EXPECT_EQ_MSG(test, memcmp(a + off, b + off, l), 0,
				    "round %u, %c's WR %u", round,
				    i < n ? 'A' : 'B', i % n);
		KUNIT_EXPECT_NE_MSG(test, a[off + l], b[off + l],
				    "round %u: past WR %u", round, i);
	}
}

/*
 * [ENC-13] Small WRITEs and READs posted together leave in packet
 * bundles both ways (once the first ACKs said the peer takes them and
 * how much its MTU carries), and every byte lands. Then 400-byte WRITEs
 * from A, two to a bundle, while every 5th datagram to B is lost and
 * every 3rd arrives in fragments with a bit flipped in the second
 * packet's payload: a lost or damaged bundle costs only its packets,
 * which are resent, and a bundle's larger packets are checked and placed
 * from the fragments (mrc_rx_pbundle_pkt()).
 */
static void mrc_rc_small_messages_bundle(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct mrc_t_wire *wa = netdev_priv(a->ndev);
	u64 tx_a = mrc_t_stat(a->dev, MRC_STAT_TX_BUNDLES);
	u64 tx_b = mrc_t_stat(b->dev, MRC_STAT_TX_BUNDLES);
	u64 rx_a = mrc_t_stat(a->dev, MRC_STAT_RX_BUNDLES);
	u64 rx_b = mrc_t_stat(b->dev, MRC_STAT_RX_BUNDLES);
	u64 in_b;
	const u32 n = 16, half = MRC_T_BUF / 2;
	u32 round;

	/*
	 * Different bytes on both ends: A's WRs work on the first half, B's
	 * on the second; a WRITE makes the target equal to the source and a
	 * READ the other way round, just as long.
	 */
	for (round = 0; round < 3; round++) {
		mrc_t_fill(a->buf, MRC_T_BUF, 60 + round);
		mrc_t_fill(b->buf, MRC_T_BUF, 70 + round);
		mrc_t_post_small(test, a, b, 0, 0, n, 0);
		mrc_t_post_small(test, b, a, half, half, n, 0);
		mrc_t_expect_wcs(test, a, n, true);
		mrc_t_expect_wcs(test, b, n, true);
		mrc_t_expect_small(test, t, round, n, 0, true);
	}
	KUNIT_EXPECT_GT(test, mrc_t_stat(a->dev, MRC_STAT_TX_BUNDLES), tx_a);
	KUNIT_EXPECT_GT(test, mrc_t_stat(b->dev, MRC_STAT_TX_BUNDLES), tx_b);
	KUNIT_EXPECT_GT(test, mrc_t_stat(a->dev, MRC_STAT_RX_BUNDLES), rx_a);
	KUNIT_EXPECT_GT(test, mrc_t_stat(b->dev, MRC_STAT_RX_BUNDLES), rx_b);

	/*
	 * 2 x 460 bytes + 8 in a datagram of 970: the fragments start at 60
	 * and 760, so the flipped byte is the second packet's, in its payload
	 */
	in_b = mrc_t_stat(b->dev, MRC_STAT_RX_IN_PLACE);
	wa->drop_every = 5;
	wa->split = MRC_WIRE_ETH_LEN + MRC_WIRE_IPV4_LEN + MRC_WIRE_UDP_LEN +
		    18;
	wa->corrupt_every = 3;
	for (round = 3; round < 6; round++) {
		mrc_t_fill(a->buf, MRC_T_BUF, 60 + round);
		mrc_t_fill(b->buf, MRC_T_BUF, 70 + round);
		mrc_t_post_small(test, a, b, 0, 0, n, 400);
		mrc_t_expect_wcs(test, a, n, true);
		mrc_t_expect_small(test, t, round, n, 400, false);
	}
	wa->drop_every = 0;
	wa->split = 0;
	wa->corrupt_every = 0;
	KUNIT_EXPECT_GT(test, atomic_read(&wa->corrupted), 0);
	KUNIT_EXPECT_GT(test, mrc_t_stat(b->dev, MRC_STAT_RX_IN_PLACE), in_b);
	kunit_info(test, "bundles A %llu, B %llu; %d lost, %d corrupted\n",
		   mrc_t_stat(a->dev, MRC_STAT_TX_BUNDLES) - tx_a,
		   mrc_t_stat(b->dev, MRC_STAT_TX_BUNDLES) - tx_b,
		   atomic_read(&wa->dropped), atomic_read(&wa->corrupted));
}

/* Wait until @len bytes at @got equal @want; 0 or -ETIMEDOUT. */
static int mrc_t_wait_bytes(const u8 *got, const u8 *want, u32 len)
{
	int ms;

	for (ms = 0; ms < MRC_T_WAIT_MS; ms++) {
		if (!memcmp(got, want, len))
			return 0;
		usleep_range(1000, 2000);
	}
	return -ETIMEDOUT;
}

/* @s summed over both ends of @t */
static u64 mrc_t_stat2(struct mrc_t_rc *t, enum mrc_stat s)
{
	return mrc_t_stat(t->e[0].dev, s) + mrc_t_stat(t->e[1].dev, s);
}

/*
 * Datagrams a timer sent so far: resends, probes and copies go when a
 * round trip outlasts the timers, which a loaded host's test thread can
 * make it do; each may draw an answer that then leaves alone.
 */
static u64 mrc_t_timer_sends(struct mrc_t_rc *t)
{
	return mrc_t_stat2(t, MRC_STAT_RETRANSMITS) +
	       mrc_t_stat2(t, MRC_STAT_PROBES_SENT) +
	       mrc_t_stat2(t, MRC_STAT_TAIL_COPIES) +
	       mrc_t_stat2(t, MRC_STAT_STALL_COPIES);
}

/*
 * [REL-24] A ping-pong of 64-byte WRITEs, each end writing once it saw
 * the other's bytes: once replies have been seen, each end's answer waits
 * for its reply and rides in the reply's datagram, so a round trip costs
 * two datagrams where it cost four. The holds are made long enough that
 * neither the test's pace nor the coalescing delay ends them: only the
 * first answer each way leaves alone, and the last waits for the release.
 */
static void mrc_rc_answers_ride_with_replies(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	const u32 rounds = 20, len = 64, half = MRC_T_BUF / 2;
	u64 sent, rode, timed;
	u32 r, i;

	for (i = 0; i < 2; i++) {
		struct mrc_xp *xp = mrc_xp_of(to_mrc_qp(t->e[i].qp));

		spin_lock_bh(&xp->lock);
		xp->conn.cfg.reply_hold_ns = 10ull * NSEC_PER_SEC;
		xp->conn.cfg.reply_hold_min_ns = 10ull * NSEC_PER_SEC;
		xp->conn.cfg.path.ack_delay_ns = 10ull * NSEC_PER_SEC;
		spin_unlock_bh(&xp->lock);
	}
	sent = mrc_t_stat2(t, MRC_STAT_TX_PACKETS);
	rode = mrc_t_stat2(t, MRC_STAT_ACKS_RODE);
	timed = mrc_t_timer_sends(t);
	for (r = 0; r < rounds; r++) {
		mrc_t_fill(a->buf, len, 2 * r);
		mrc_t_post_small(test, a, b, 0, 0, 1, len);
		KUNIT_ASSERT_EQ(test, mrc_t_wait_bytes(b->buf, a->buf, len), 0);
		mrc_t_fill(b->buf + half, len, 2 * r + 1);
		mrc_t_post_small(test, b, a, half, half, 1, len);
		KUNIT_ASSERT_EQ(test, mrc_t_wait_bytes(a->buf + half,
						       b->buf + half, len), 0);
	}
	/* the last answer goes when its hold ends (QP destroy at the latest) */
	mrc_t_expect_wcs(test, a, rounds, false);
	sent = mrc_t_stat2(t, MRC_STAT_TX_PACKETS) - sent;
	rode = mrc_t_stat2(t, MRC_STAT_ACKS_RODE) - rode;
	timed = mrc_t_timer_sends(t) - timed;
	kunit_info(test,
		   "%u round trips: %llu datagrams, %llu answers rode, %llu sent by timers (so far: ACKs for delay %llu, count %llu, window %llu, holds expired %llu)\n",
		   rounds, sent, rode, timed,
		   mrc_t_stat2(t, MRC_STAT_ACKS_FOR_DELAY),
		   mrc_t_stat2(t, MRC_STAT_ACKS_FOR_COUNT),
		   mrc_t_stat2(t, MRC_STAT_ACKS_FOR_WINDOW),
		   mrc_t_stat2(t, MRC_STAT_ACK_HOLDS_EXPIRED));
	/*
	 * 2 per round trip, plus the first answers before any reply; a
	 * timer's datagram and the answer it draws are on top, and that
	 * answer does not ride. With answers that never ride, 4 per round.
	 */
	KUNIT_EXPECT_LE(test, sent, 2ull * rounds + 4 + 2 * timed);
	KUNIT_EXPECT_GE(test, rode + timed, 2ull * rounds - 3);
	KUNIT_EXPECT_LE(test, timed, rounds / 2ull);
	for (i = 0; i < 2; i++) {
		struct mrc_xp *xp = mrc_xp_of(to_mrc_qp(t->e[i].qp));

		spin_lock_bh(&xp->lock);
		mrc_conn_ack_release(&xp->conn);
		spin_unlock_bh(&xp->lock);
		mrc_xp_kick(xp);
	}
	mrc_t_expect_wcs(test, b, rounds, false);
}

/*
 * [REL-21] Every ACK of B is lost, and B destroys its QP as soon as the
 * data is in place, as a consumer that saw its completion would. A's
 * resends reach B's lingering transport, whose ACK completes the WRITE
 * successfully instead of after retry_cnt timeouts with an error.
 */
static void mrc_rc_destroyed_peer_still_acks(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct mrc_t_wire *wb = netdev_priv(b->ndev);
	const u32 len = 3000;
	struct ib_wc wc;
	int ms;

	wb->drop_every = 1;
	mrc_t_post_write(test, t, len);
	for (ms = 0; ms < MRC_T_WAIT_MS; ms++) {
		if (!memcmp(a->buf, b->buf, len))
			break;
		usleep_range(1000, 2000);
	}
	KUNIT_ASSERT_EQ(test, memcmp(a->buf, b->buf, len), 0);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(a->cq, 1, &wc), 0);
	ib_destroy_qp(b->qp);
	b->qp = NULL;
	wb->drop_every = 0;
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x1111ull);
	KUNIT_EXPECT_EQ(test, b->buf[len], 0);
	KUNIT_EXPECT_GT(test, atomic_read(&wb->dropped), 0);
}

static u32 mrc_t_lingering(struct mrc_linger *l)
{
	u32 n;

	spin_lock_bh(&l->lock);
	n = l->count;
	spin_unlock_bh(&l->lock);
	return n;
}

struct mrc_t_destroyer {
	struct ib_qp *qp;
	struct completion done;
};

static int mrc_t_destroy_fn(void *arg)
{
	struct mrc_t_destroyer *d = arg;

	ib_destroy_qp(d->qp);
	complete(&d->done);
	return 0;
}

/*
 * [REL-21] A lingering transport belongs to the device, whose reaper may
 * free it at any time (at once with more than MRC_LINGER_MAX lingering).
 * It must not become the device's while anyone still reaches it through
 * the QP: a receive in flight or a queued ACK flush (ackq.c) holds a QP
 * reference and calls mrc_xp_of(). Here the test holds such a reference
 * while B's QP, whose connection received data, is destroyed: until the
 * reference goes the transport stays the QP's, even when the reaper runs
 * with every lingering transport expired, and it is still whole where the
 * reference holder looks. Once the reference goes, destroy finishes and
 * the transport lingers.
 */
static void mrc_rc_linger_waits_for_qp_references(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *b = &t->e[1];
	struct mrc_linger *l = &b->dev->linger;
	struct mrc_t_destroyer d = { .qp = b->qp };
	struct task_struct *task;
	unsigned long left;
	struct mrc_qp *qp;
	struct mrc_xp *xp;
	bool dead = false;
	int ms;

	mrc_t_write(test, t, 4096);
	qp = mrc_qp_get(&b->dev->ibdev, b->qp->qp_num);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	xp = mrc_xp_of(qp);
	KUNIT_ASSERT_EQ(test, mrc_t_lingering(l), 0u);

	init_completion(&d.done);
	task = kthread_run(mrc_t_destroy_fn, &d, "mrc_t_destroy");
	if (IS_ERR(task)) {
		mrc_qp_put(qp);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task);
	}
	b->qp = NULL;
	/* destroy marks the transport dead, then waits for our reference */
	for (ms = 0; ms < MRC_T_WAIT_MS && !dead; ms++) {
		spin_lock_bh(&xp->lock);
		dead = xp->dead;
		spin_unlock_bh(&xp->lock);
		if (!dead)
			usleep_range(1000, 2000);
	}
	KUNIT_EXPECT_TRUE(test, dead);
	KUNIT_EXPECT_FALSE(test, completion_done(&d.done));
	/* ... and hands nothing over yet */
	KUNIT_EXPECT_EQ(test, mrc_t_lingering(l), 0u);

	/* the reaper, with everything lingering expired, frees nothing of it */
	spin_lock_bh(&l->lock);
	{
		struct mrc_xp *x;

		list_for_each_entry(x, &l->list, linger_node)
			x->linger_until = 0;
	}
	spin_unlock_bh(&l->lock);
	mod_delayed_work(system_wq, &l->reap, 0);
	flush_delayed_work(&l->reap);

	/* what a queued ACK flush does with its reference (ackq.c) */
	spin_lock_bh(&xp->lock);
	KUNIT_EXPECT_TRUE(test, xp->dead && !xp->live && xp->qp == qp);
	spin_unlock_bh(&xp->lock);

	mrc_qp_put(qp);
	left = wait_for_completion_timeout(&d.done,
					   msecs_to_jiffies(MRC_T_WAIT_MS));
	KUNIT_ASSERT_NE(test, left, 0ul);
	/* now the device has it, and answers for the gone QP */
	KUNIT_EXPECT_EQ(test, mrc_t_lingering(l), 1u);
}

/*
 * A WRITE whose remote range wraps past 2^64 can name no MR, and no
 * packet can carry it ([PKT-46]): it completes at once with
 * IB_WC_REM_ACCESS_ERR, the answer a responder's range check gives
 * (rdma_rxe's too), and the QP enters ERR. Nothing is sent, nothing
 * resent: a request the wire cannot carry must not wait out the retries.
 */
static void mrc_rc_wrapping_remote_range_fails_at_once(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0];
	struct mrc_xp *xa = mrc_xp_of(to_mrc_qp(a->qp));
	struct ib_sge sge = {
		.addr = (uintptr_t)a->buf,
		.length = 4096,
		.lkey = a->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = 0x7777,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
		},
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	u64 segs, retx;

	mrc_t_write(test, t, 4096);
	retx = mrc_t_stat(a->dev, MRC_STAT_RETRANSMITS);
	spin_lock_bh(&xa->lock);
	segs = xa->conn.stats.tx_segs;
	spin_unlock_bh(&xa->lock);

	/* the last 100 bytes below 2^64, and 3996 past it */
	wr.remote_addr = U64_MAX - 99;
	wr.rkey = t->e[1].pd->unsafe_global_rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(a->qp, &wr.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x7777ull);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mrc_qp_state(to_mrc_qp(a->qp)), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(a->dev, MRC_STAT_RETRANSMITS), retx);
	spin_lock_bh(&xa->lock);
	KUNIT_EXPECT_EQ(test, xa->conn.stats.tx_segs, segs);
	spin_unlock_bh(&xa->lock);
}

/* A UD sender that refills its SQ from its completion handler, forever. */
struct mrc_t_flood {
	struct ib_qp *qp;
	struct ib_cq *cq;
	struct ib_ah *ah;
	u32 remote_qpn;
	u8 *buf;
	u32 lkey;
	u32 posted;
	u32 done;
	u32 failed;
	u32 total;
};

#define MRC_T_FLOOD_QKEY	0x1234
#define MRC_T_FLOOD_DEPTH	256
#define MRC_T_FLOOD_LEN		64
#define MRC_T_FLOOD_BUFS	32

static bool mrc_t_flood_post_one(struct mrc_t_flood *f)
{
	u32 i = f->posted;
	struct ib_sge sge = {
		.addr = (uintptr_t)f->buf +
			(i % MRC_T_FLOOD_BUFS) * MRC_T_FLOOD_LEN,
		.length = MRC_T_FLOOD_LEN,
		.lkey = f->lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_id = i,
			.opcode = IB_WR_SEND_WITH_IMM,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
			.ex.imm_data = cpu_to_be32(i),
		},
		.ah = f->ah,
		.remote_qpn = f->remote_qpn,
		.remote_qkey = MRC_T_FLOOD_QKEY,
	};
	const struct ib_send_wr *bad;

	if (f->posted == f->total || f->posted - f->done == MRC_T_FLOOD_DEPTH)
		return false;
	/* counted first: the post may run the handler, which posts on */
	f->posted++;
	if (!ib_post_send(f->qp, &wr.wr, &bad))
		return true;
	f->posted--;
	return false;
}

static void mrc_t_flood_handler(struct ib_cq *cq, void *ctx)
{
	struct mrc_t_flood *f = ctx;
	struct ib_wc wc[16];
	int n, i;

	do {
		while ((n = ib_poll_cq(cq, ARRAY_SIZE(wc), wc)) > 0) {
			for (i = 0; i < n; i++)
				if (wc[i].status != IB_WC_SUCCESS)
					f->failed++;
			f->done += n;
		}
		/* a process refilling its ring as fast as slots free up */
		while (mrc_t_flood_post_one(f))
			;
	} while (ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				  IB_CQ_REPORT_MISSED_EVENTS) > 0);
}

static struct ib_qp *mrc_t_ud_qp(struct mrc_t_end *e, struct ib_cq *scq,
				 struct ib_cq *rcq)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = {
			.max_send_wr = MRC_T_FLOOD_DEPTH,
			.max_recv_wr = MRC_T_FLOOD_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ib_qp_attr a = { };
	struct ib_qp *qp = ib_create_qp(e->pd, &init);

	if (IS_ERR(qp))
		return qp;
	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qkey = MRC_T_FLOOD_QKEY;
	if (!ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			  IB_QP_PORT | IB_QP_QKEY)) {
		a.qp_state = IB_QPS_RTR;
		if (!ib_modify_qp(qp, &a, IB_QP_STATE)) {
			a.qp_state = IB_QPS_RTS;
			if (!ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN))
				return qp;
		}
	}
	ib_destroy_qp(qp);
	return ERR_PTR(-EINVAL);
}

/*
 * A sender that keeps its UD send queue full, refilling it from its
 * completion handler as each datagram leaves, as a process does from a
 * second thread while it rings: the post (for a process, the doorbell
 * system call) returns after at most MRC_UD_TX_BUDGET WQEs, the work item
 * sends the rest, and every datagram goes. B's receives get the first
 * MRC_T_FLOOD_DEPTH of them, in order, every byte as sent.
 */
static void mrc_rc_ud_flood_returns_from_post(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct mrc_t_flood f = { .total = 8 * MRC_T_FLOOD_DEPTH };
	struct ib_cq_init_attr cq_attr = { .cqe = 2 * MRC_T_FLOOD_DEPTH };
	const u32 slot = 2 * MRC_T_FLOOD_LEN;
	struct rdma_ah_attr ah_attr = { };
	struct ib_qp *bqp = NULL;
	union ib_gid dgid;
	struct ib_cq *bcq = NULL;
	u32 in_call, i, k;
	struct ib_wc wc;
	int ms;

	for (k = 0; k < MRC_T_FLOOD_BUFS; k++)
		mrc_t_fill(a->buf + k * MRC_T_FLOOD_LEN, MRC_T_FLOOD_LEN, k);
	memset(b->buf, 0, MRC_T_FLOOD_DEPTH * slot);
	f.buf = a->buf;
	f.lkey = a->pd->local_dma_lkey;

	bcq = ib_alloc_cq(&b->dev->ibdev, NULL, 2 * MRC_T_FLOOD_DEPTH, 0,
			  IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bcq);
	bqp = mrc_t_ud_qp(b, bcq, bcq);
	if (IS_ERR(bqp))
		goto out;
	for (i = 0; i < MRC_T_FLOOD_DEPTH; i++) {
		struct ib_sge sge = {
			.addr = (uintptr_t)b->buf + i * slot,
			.length = slot,
			.lkey = b->pd->local_dma_lkey,
		};
		struct ib_recv_wr rwr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 };
		const struct ib_recv_wr *rbad;

		KUNIT_ASSERT_EQ(test, ib_post_recv(bqp, &rwr, &rbad), 0);
	}
	f.remote_qpn = bqp->qp_num;

	f.cq = ib_create_cq(&a->dev->ibdev, mrc_t_flood_handler, NULL, &f,
			    &cq_attr);
	if (IS_ERR(f.cq)) {
		KUNIT_FAIL(test, "create_cq: %ld", PTR_ERR(f.cq));
		f.cq = NULL;
		goto out;
	}
	f.qp = mrc_t_ud_qp(a, f.cq, f.cq);
	if (IS_ERR(f.qp)) {
		KUNIT_FAIL(test, "UD QP: %ld", PTR_ERR(f.qp));
		f.qp = NULL;
		goto out;
	}
	dgid = b->gid->gid;
	ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&ah_attr, 1);
	rdma_ah_set_grh(&ah_attr, &dgid, 0, a->gid->index, 64, 0);
	f.ah = rdma_create_ah(a->pd, &ah_attr, 0);
	if (IS_ERR(f.ah)) {
		KUNIT_FAIL(test, "create_ah: %ld", PTR_ERR(f.ah));
		f.ah = NULL;
		goto out;
	}

	/* one post, the doorbell; the handler refills from then on */
	ib_req_notify_cq(f.cq, IB_CQ_NEXT_COMP);
	KUNIT_ASSERT_TRUE(test, mrc_t_flood_post_one(&f));
	in_call = f.done;
	kunit_info(test, "%u WQEs sent inside one post, %u in all\n", in_call,
		   f.total);
	KUNIT_EXPECT_LE(test, in_call, (u32)MRC_UD_TX_BUDGET);

	for (ms = 0; ms < MRC_T_WAIT_MS && f.done < f.total; ms++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, f.done, f.total);
	KUNIT_EXPECT_EQ(test, f.failed, 0u);

	for (i = 0; i < MRC_T_FLOOD_DEPTH; i++) {
		u8 want[MRC_T_FLOOD_LEN];

		KUNIT_ASSERT_EQ(test, mrc_t_wait_cq(bcq, &wc), 0);
		KUNIT_ASSERT_EQ_MSG(test, wc.status, IB_WC_SUCCESS, "recv %u",
				    i);
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
		KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), i);
		KUNIT_EXPECT_EQ(test, wc.byte_len,
				(u32)sizeof(struct ib_grh) + MRC_T_FLOOD_LEN);
		mrc_t_fill(want, MRC_T_FLOOD_LEN, i % MRC_T_FLOOD_BUFS);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(b->buf + i * slot +
						 sizeof(struct ib_grh), want,
						 MRC_T_FLOOD_LEN), 0,
				    "datagram %u", i);
	}
out:
	if (f.qp)
		ib_destroy_qp(f.qp);
	if (f.ah)
		rdma_destroy_ah(f.ah, 0);
	if (f.cq)
		ib_destroy_cq(f.cq);
	if (!IS_ERR_OR_NULL(bqp))
		ib_destroy_qp(bqp);
	ib_free_cq(bcq);
	KUNIT_EXPECT_FALSE(test, IS_ERR(bqp));
}

/* Post one local WR (REG_MR, LOCAL_INV) on @e's QP and wait for it. */
static void mrc_t_local_wr(struct kunit *test, struct mrc_t_end *e,
			   struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad;
	struct ib_wc wc;

	wr->send_flags = IB_SEND_SIGNALED;
	KUNIT_ASSERT_EQ(test, ib_post_send(e->qp, wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(e, &wc), 0);
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
}

/*
 * B's ACKs are lost while A WRITEs into a fast-registered MR of B; once
 * the data is there B invalidates the MR, as nvme-rdma does when its
 * command is done. A's resends then fail the MR check, but they repeat
 * what was placed: B acknowledges them instead of failing the QP, and
 * A's WRITE succeeds.
 */
static void mrc_rc_resend_into_invalidated_mr(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct mrc_t_wire *wb = netdev_priv(b->ndev);
	const u32 len = 3000;
	struct ib_reg_wr reg = { };
	struct ib_send_wr inv = { };
	struct ib_rdma_wr wr = { };
	const struct ib_send_wr *bad;
	struct scatterlist sg;
	struct ib_sge sge;
	struct ib_mr *mr;
	struct ib_wc wc;
	int ms;

	mr = ib_alloc_mr(b->pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	sg_init_one(&sg, b->buf, 4096);
	/* virtual DMA: the "mapping" makes the DMA address the kernel's */
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(&b->dev->ibdev, &sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	mrc_t_local_wr(test, b, &reg.wr);

	mrc_t_fill(a->buf, len, 5);
	memset(b->buf, 0, MRC_T_BUF + 64);
	sge.addr = (uintptr_t)a->buf;
	sge.length = len;
	sge.lkey = a->pd->local_dma_lkey;
	wr.wr.wr_id = 0x4444;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = mr->iova;
	wr.rkey = mr->rkey;
	wb->drop_every = 1;
	KUNIT_ASSERT_EQ(test, ib_post_send(a->qp, &wr.wr, &bad), 0);
	for (ms = 0; ms < MRC_T_WAIT_MS && memcmp(a->buf, b->buf, len); ms++)
		usleep_range(1000, 2000);
	KUNIT_ASSERT_EQ(test, memcmp(a->buf, b->buf, len), 0);

	inv.opcode = IB_WR_LOCAL_INV;
	inv.ex.invalidate_rkey = mr->rkey;
	mrc_t_local_wr(test, b, &inv);
	wb->drop_every = 0;
	KUNIT_ASSERT_EQ(test, mrc_t_wait_wc(a, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x4444ull);
	KUNIT_EXPECT_EQ(test, mrc_qp_state(to_mrc_qp(b->qp)), IB_QPS_RTS);
	KUNIT_EXPECT_GT(test, atomic_read(&wb->dropped), 0);
	ib_dereg_mr(mr);
	ib_dma_unmap_sg(&b->dev->ibdev, &sg, 1, DMA_BIDIRECTIONAL);
}

/*
 * [CC-9]..[CC-11] B's ACKs carry its fair share: with B's link at 1000
 * Mbit/s and A the only sender, A hears 1000 Mbit/s. Without a known
 * speed (the test netdev has none) no hint is sent.
 */
static void mrc_rc_acks_carry_rate_hint(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_xp *xa = mrc_xp_of(to_mrc_qp(t->e[0].qp));
	u64 hint;

	mrc_t_write(test, t, 16 * 1024);
	spin_lock_bh(&xa->lock);
	hint = xa->conn.cc.hint_bps;
	spin_unlock_bh(&xa->lock);
	KUNIT_EXPECT_EQ(test, hint, 0ull);

	WRITE_ONCE(t->e[1].dev->link_mbps, 1000);
	mrc_t_write(test, t, 64 * 1024);
	spin_lock_bh(&xa->lock);
	hint = xa->conn.cc.hint_bps;
	spin_unlock_bh(&xa->lock);
	KUNIT_EXPECT_EQ(test, hint, 1000ull * 125000);
}

/*
 * [ENC-15] Data takes the DSCP of the address's traffic class (what
 * rdma_cm's TOS and NCCL_IB_TC set), with ECT(0) whatever ECN bits the
 * class held; ACKs keep the control class (dscp_ctrl, 48), ECT(0) too
 * ([ENC-10]: they were sent Not-ECT).
 */
static void mrc_rc_dscp_from_traffic_class(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv, t2 = *t;
	struct mrc_t_wire *wa = netdev_priv(t->e[0].ndev);
	struct mrc_t_wire *wb = netdev_priv(t->e[1].ndev);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i;

	for (i = 0; i < 2; i++) {
		init.send_cq = t->e[i].cq;
		init.recv_cq = t->e[i].cq;
		t2.e[i].qp = ib_create_qp(t->e[i].pd, &init);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t2.e[i].qp);
		t2.e[i].tclass = 10 << 2 | 3;	/* AF11, and CE: ignored */
	}
	KUNIT_ASSERT_EQ(test, mrc_t_connect(&t2.e[0], &t2.e[1], 300, 6000), 0);
	KUNIT_ASSERT_EQ(test, mrc_t_connect(&t2.e[1], &t2.e[0], 6000, 300), 0);
	mrc_t_hello_settle(&t2);
	WRITE_ONCE(wa->tos_data, 0);
	WRITE_ONCE(wb->tos_ctrl, 0);
	mrc_t_write(test, &t2, 8192);
	KUNIT_EXPECT_EQ(test, READ_ONCE(wa->tos_data),
			(u8)(10 << 2 | MRC_WIRE_ECN_ECT0));
	KUNIT_EXPECT_EQ(test, READ_ONCE(wb->tos_ctrl),
			(u8)(MRC_WIRE_DSCP_CTRL << 2 | MRC_WIRE_ECN_ECT0));
	ib_destroy_qp(t2.e[0].qp);
	ib_destroy_qp(t2.e[1].qp);

	/* the suite's QPs, set up without a class: the default, 26 */
	WRITE_ONCE(wa->tos_data, 0);
	mrc_t_write(test, t, 4096);
	KUNIT_EXPECT_EQ(test, READ_ONCE(wa->tos_data),
			(u8)(MRC_WIRE_DSCP_DATA << 2 | MRC_WIRE_ECN_ECT0));
}

/* Counter @c's value of @s, as ib_core reads it. */
static u64 mrc_t_counter(struct rdma_counter *c, enum mrc_stat s)
{
	mrc_counter_update_stats(c);
	return c->stats->value[s];
}

static const enum mrc_stat mrc_t_traffic[] = {
	MRC_STAT_TX_PACKETS, MRC_STAT_TX_BYTES, MRC_STAT_RX_PACKETS,
	MRC_STAT_RX_BYTES, MRC_STAT_ACKS_SENT, MRC_STAT_ACKS_RECEIVED,
};

/* Has every datagram one end's counter sent reached the other's? */
static bool mrc_t_counters_agree(struct rdma_counter *c)
{
	return mrc_t_counter(&c[0], MRC_STAT_TX_PACKETS) ==
	       mrc_t_counter(&c[1], MRC_STAT_RX_PACKETS) &&
	       mrc_t_counter(&c[1], MRC_STAT_TX_PACKETS) ==
	       mrc_t_counter(&c[0], MRC_STAT_RX_PACKETS) &&
	       mrc_t_counter(&c[0], MRC_STAT_TX_BYTES) ==
	       mrc_t_counter(&c[1], MRC_STAT_RX_BYTES);
}

/*
 * QP counters (counter.c): while bound, a QP's traffic counts on its
 * counter and none on its device, what one end's counter sent the other's
 * received, the device's own counters stay out of the QP view; unbound,
 * the device counts again and the counter keeps what it had.
 */
static void mrc_rc_counter_takes_bound_qp_traffic(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	unsigned long until = jiffies + msecs_to_jiffies(MRC_T_WAIT_MS);
	u64 dev_was[2][ARRAY_SIZE(mrc_t_traffic)], tx;
	struct rdma_counter c[2] = {};
	int i, k;

	for (i = 0; i < 2; i++) {
		c[i].device = &t->e[i].dev->ibdev;
		c[i].port = 1;
		c[i].stats = mrc_counter_alloc_stats(&c[i]);
		KUNIT_ASSERT_NOT_NULL(test, c[i].stats);
		KUNIT_EXPECT_TRUE(test, test_bit(MRC_STAT_RX_DROP_NO_QP,
						 c[i].stats->is_disabled));
		KUNIT_EXPECT_FALSE(test, test_bit(MRC_STAT_TX_PACKETS,
						  c[i].stats->is_disabled));
		KUNIT_ASSERT_EQ(test, mrc_counter_bind_qp(&c[i], t->e[i].qp), 0);
		KUNIT_EXPECT_NE(test, c[i].id, 0u);
		KUNIT_EXPECT_PTR_EQ(test, t->e[i].qp->counter, &c[i]);
		for (k = 0; k < ARRAY_SIZE(mrc_t_traffic); k++)
			dev_was[i][k] = mrc_t_stat(t->e[i].dev, mrc_t_traffic[k]);
	}
	mrc_t_write(test, t, 64 * 1024);
	while (!mrc_t_counters_agree(c) && time_before(jiffies, until))
		msleep(20);
	KUNIT_EXPECT_TRUE(test, mrc_t_counters_agree(c));
	KUNIT_EXPECT_GE(test, mrc_t_counter(&c[0], MRC_STAT_TX_BYTES),
			64ull * 1024);
	KUNIT_EXPECT_GT(test, mrc_t_counter(&c[0], MRC_STAT_ACKS_RECEIVED), 0ull);
	for (i = 0; i < 2; i++)
		for (k = 0; k < ARRAY_SIZE(mrc_t_traffic); k++)
			KUNIT_EXPECT_EQ(test, mrc_t_stat(t->e[i].dev, mrc_t_traffic[k]),
					dev_was[i][k]);

	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, mrc_counter_unbind_qp(t->e[i].qp), 0);
		KUNIT_EXPECT_NULL(test, t->e[i].qp->counter);
	}
	tx = mrc_t_counter(&c[0], MRC_STAT_TX_PACKETS);
	mrc_t_write(test, t, 4096);
	KUNIT_EXPECT_EQ(test, mrc_t_counter(&c[0], MRC_STAT_TX_PACKETS), tx);
	KUNIT_EXPECT_GT(test, mrc_t_stat(t->e[0].dev, MRC_STAT_TX_PACKETS),
			dev_was[0][0]);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, mrc_counter_dealloc(&c[i]), 0);
		KUNIT_EXPECT_TRUE(test, xa_empty(&t->e[i].dev->counters));
		rdma_free_hw_stats_struct(c[i].stats);
	}
}

static struct kunit_case mrc_rc_cases[] = {
	KUNIT_CASE(mrc_rc_write_delivers_every_byte),
	KUNIT_CASE(mrc_rc_send_lands_in_posted_receive),
	KUNIT_CASE(mrc_rc_read_fetches_remote_bytes),
	KUNIT_CASE(mrc_rc_read_done_without_request_ack),
	KUNIT_CASE(mrc_rc_write_survives_loss),
	KUNIT_CASE(mrc_rc_tx_buffers_refilled_only_when_free),
	KUNIT_CASE(mrc_rc_batch_of_gaps_acked_once),
	KUNIT_CASE(mrc_rc_reads_survive_loss),
	KUNIT_CASE(mrc_rc_fragmented_datagrams),
	KUNIT_CASE(mrc_rc_small_messages_bundle),
	KUNIT_CASE(mrc_rc_answers_ride_with_replies),
	KUNIT_CASE(mrc_rc_destroyed_peer_still_acks),
	KUNIT_CASE(mrc_rc_linger_waits_for_qp_references),
	KUNIT_CASE(mrc_rc_wrapping_remote_range_fails_at_once),
	KUNIT_CASE(mrc_rc_ud_flood_returns_from_post),
	KUNIT_CASE(mrc_rc_acks_carry_rate_hint),
	KUNIT_CASE(mrc_rc_resend_into_invalidated_mr),
	KUNIT_CASE(mrc_rc_dscp_from_traffic_class),
	KUNIT_CASE(mrc_rc_counter_takes_bound_qp_traffic),
	{}
};

static struct kunit_suite mrc_rc_suite = {
	.name = "metaroce_rc",
	.init = mrc_t_pair_init,
	.exit = mrc_t_pair_exit,
	.test_cases = mrc_rc_cases,
};

kunit_test_suite(mrc_rc_suite);

#endif /* IS_BUILTIN(CONFIG_METAROCE) */
