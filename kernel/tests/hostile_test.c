// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: what a hostile sender can make a receiver do ([SEC-1]..[SEC-10]
 * in Documentation/protocol/integrity.rst): packets of every type, aimed
 * at QPs of every type and state, malformed, stale or from a stranger's
 * address, are dropped and counted by why, and the live connection next
 * to them carries its data unharmed. Runs on the pair of pair.h.
 */
#include <kunit/test.h>

#if IS_BUILTIN(CONFIG_METAROCE)

#include <linux/delay.h>
#include <linux/ip.h>

#include "../metaroce.h"
#include "../stats.h"
#include "../verbs.h"
#include "../core/hello.h"
#include "../core/wire.h"
#include "../xport.h"
#include "pair.h"

/*
 * What a hostile or broken sender can make B do with packets aimed at a
 * real QP and a real, remotely writable buffer: nothing. Every variant is
 * dropped and counted, no byte of the buffer changes, and the connection
 * carries a normal WRITE afterwards.
 */
static void mrc_hostile_packets_change_nothing(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *b = &t->e[1];
	u8 *pkt = kunit_kzalloc(test, 512, GFP_KERNEL);
	u8 *bad = kunit_kzalloc(test, 512, GFP_KERNEL);
	u8 payload[64];
	struct mrc_pkt p = { };
	u64 drop0, drops;
	u32 len = 0, cut, n = 0, i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pkt);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bad);
	memset(payload, 0xee, sizeof(payload));
	memset(b->buf, 0, MRC_T_BUF + 64);
	p.type = MRC_PKT_WRITE;
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.dst_qpn = b->qp->qp_num;
	p.cookie = 100;		/* B's rq_psn: the live connection's cookie */
	p.psn = 100 + (1u << 21);	/* far outside any window */
	p.msn = 0;
	p.write.va = (uintptr_t)b->buf;
	p.write.rkey = b->pd->unsafe_global_rkey;
	p.write.total_len = sizeof(payload);
	p.payload = payload;
	p.payload_len = sizeof(payload);
	KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, pkt, 512, &len), MRC_WIRE_OK);
	drop0 = mrc_t_stat(b->dev, MRC_STAT_RX_DROPPED);

	/* bad ICRC, linear and split over a page fragment */
	memcpy(bad, pkt, len);
	bad[len - 1] ^= 1;
	mrc_t_inject(b, bad, len, false);
	mrc_t_inject(b, bad, len, true);
	n += 2;
	/* truncated anywhere */
	for (cut = 0; cut < len; cut += 7, n++)
		mrc_t_inject(b, pkt, cut, cut & 1);
	/* a version we do not speak, correctly sealed */
	memcpy(bad, pkt, len);
	bad[MRC_WO_VERSION] = 2;
	mrc_wire_seal(bad, len - MRC_WIRE_ICRC_LEN);
	mrc_t_inject(b, bad, len, false);
	n++;
	/* a QP that does not exist */
	p.dst_qpn = b->qp->qp_num + 1000;
	KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, bad, 512, &len), MRC_WIRE_OK);
	mrc_t_inject(b, bad, len, false);
	n++;
	/* a stale connection's cookie */
	p.dst_qpn = b->qp->qp_num;
	p.cookie = 101;
	KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, bad, 512, &len), MRC_WIRE_OK);
	mrc_t_inject(b, bad, len, true);
	n++;
	/*
	 * [ENC-13] a bundle of two such packets drops each; one whose table
	 * does not add up drops whole; a bundle in a bundle is no packet
	 */
	{
		u16 lens[2] = { len, len };
		u32 hl = mrc_wire_pbundle_hdr_len(2);
		u8 *bdl = kunit_kzalloc(test, 2 * (hl + len) + 1, GFP_KERNEL);

		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bdl);
		KUNIT_ASSERT_EQ(test, mrc_wire_pbundle_encode_hdr(lens, 2, bdl,
								  hl),
				MRC_WIRE_OK);
		memcpy(bdl + hl, bad, len);
		memcpy(bdl + hl + len, bad, len);
		mrc_t_inject(b, bdl, hl + 2 * len, false);
		mrc_t_inject(b, bdl, hl + 2 * len, true);
		n += 4;
		mrc_t_inject(b, bdl, hl + 2 * len - 1, false);
		mrc_t_inject(b, bdl, hl + 2 * len + 1, true);
		n += 2;
		lens[0] = hl + len;
		lens[1] = len;
		KUNIT_ASSERT_EQ(test, mrc_wire_pbundle_encode_hdr(lens, 2, bdl,
								  hl),
				MRC_WIRE_OK);
		memmove(bdl + 2 * hl, bdl + hl, len);
		memcpy(bdl + hl, bdl, hl);	/* the inner bundle's header */
		memcpy(bdl + 2 * hl + len, bad, len);
		mrc_t_inject(b, bdl, 2 * hl + 2 * len, false);
		n += 2;
	}
	drops = mrc_t_stat(b->dev, MRC_STAT_RX_DROPPED) - drop0;
	KUNIT_EXPECT_GE(test, drops, (u64)n);

	/* the right cookie but a PSN far ahead: the core refuses to place it */
	mrc_t_inject(b, pkt, len, false);

	for (i = 0; i < MRC_T_BUF + 64; i++)
		KUNIT_ASSERT_EQ_MSG(test, b->buf[i], 0, "byte %u written", i);
	/* and the connection is unharmed */
	mrc_t_write(test, t, 4096);
}

/* A valid packet of @type for @qpn, with B's connection cookie. */
static void mrc_t_sample(struct kunit *test, struct mrc_pkt *p, u8 type,
			 u32 qpn)
{
	static const u8 payload[8] = "hostile";

	memset(p, 0, sizeof(*p));
	p->type = type;
	p->dst_qpn = qpn;
	p->cookie = 100;
	p->psn = 100;
	p->flags = MRC_F_FIRST | MRC_F_LAST;
	switch (type) {
	case MRC_PKT_SEND:
		p->send.total_len = sizeof(payload);
		break;
	case MRC_PKT_WRITE:
		p->write.va = 0x1000;
		p->write.rkey = 1;
		p->write.total_len = sizeof(payload);
		break;
	case MRC_PKT_READ_REQ:
		p->read_req.va = 0x1000;
		p->read_req.rkey = 1;
		p->read_req.len = 8;
		break;
	case MRC_PKT_READ_RESP:
		p->read_resp.total_len = sizeof(payload);
		break;
	case MRC_PKT_ATOMIC:
		p->atomic.va = 0x1000;
		p->atomic.rkey = 1;
		p->atomic.op = MRC_ATOMIC_FETCH_ADD;
		break;
	case MRC_PKT_ACK:
	case MRC_PKT_NAK:
	case MRC_PKT_PROBE:
		p->flags = 0;
		p->psn = 0;
		p->nak.code = MRC_NAK_ACCESS;
		if (type == MRC_PKT_PROBE) {
			p->probe.kind = MRC_PROBE_REQ;
			p->probe.min_ver = 1;
			p->probe.max_ver = 1;
		}
		break;
	case MRC_PKT_UD_SEND:
		p->psn = 0;
		p->cookie = 0;
		p->ud.qkey = 0x4321;	/* no QP of B has it */
		p->ud.src_qpn = 2;
		break;
	}
	if (type == MRC_PKT_SEND || type == MRC_PKT_WRITE ||
	    type == MRC_PKT_READ_RESP || type == MRC_PKT_UD_SEND) {
		p->payload = payload;
		p->payload_len = sizeof(payload);
	}
	KUNIT_ASSERT_EQ_MSG(test, mrc_wire_check(p), MRC_WIRE_OK,
			    "sample of type %u", type);
}

static struct ib_qp *mrc_t_qp(struct kunit *test, struct mrc_t_end *e,
			      enum ib_qp_type type)
{
	struct ib_qp_init_attr init = {
		.qp_type = type,
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp *qp = ib_create_qp(e->pd, &init);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	return qp;
}

static void mrc_t_to_state(struct kunit *test, struct ib_qp *qp,
			   enum ib_qp_state state)
{
	struct ib_qp_attr a = { .qp_state = state };
	int mask = IB_QP_STATE;

	if (state == IB_QPS_INIT) {
		a.port_num = 1;
		a.qkey = 0x1234;
		mask |= IB_QP_PKEY_INDEX | IB_QP_PORT |
			(qp->qp_type == IB_QPT_UD ? IB_QP_QKEY :
						    IB_QP_ACCESS_FLAGS);
	} else if (state == IB_QPS_RTS && qp->qp_type == IB_QPT_UD) {
		mask |= IB_QP_SQ_PSN;
	}
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &a, mask), 0);
}

enum { MRC_T_NO_QP, MRC_T_QP_TYPE, MRC_T_QP_STATE, MRC_T_QKEY, MRC_T_WHYS };

static const enum mrc_stat mrc_t_why[MRC_T_WHYS] = {
	[MRC_T_NO_QP] = MRC_STAT_RX_DROP_NO_QP,
	[MRC_T_QP_TYPE] = MRC_STAT_RX_DROP_QP_TYPE,
	[MRC_T_QP_STATE] = MRC_STAT_RX_DROP_QP_STATE,
	[MRC_T_QKEY] = MRC_STAT_RX_DROP_QKEY,
};

/*
 * [SEC-10] Every packet type to every kind of QP number but the live
 * connection's: none, QP0, a UD QP, QP1 (when ib_mad made one), a UC QP
 * and RC QPs in RESET, INIT and ERR, alone and in both kinds of bundle.
 * Each is dropped for the reason the table gives and nothing else moves;
 * the connection beside them then carries a WRITE. (The first such bug:
 * an ACK to QP1 took the UD QP's private data for an RC transport and
 * spun forever on a "lock" inside it.)
 */
static void mrc_hostile_every_type_to_every_qp(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *a = &t->e[0], *b = &t->e[1];
	struct mrc_t_end err_end = *b;
	struct ib_qp *ud, *uc, *rc_reset, *rc_init, *rc_err;
	struct ib_qp_init_attr uc_init = { };
	struct mrc_qp *gsi;
	u64 before[MRC_T_WHYS], want[MRC_T_WHYS] = { }, drops0, naks0;
	u64 drops = 0;
	u8 *buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	struct {
		u32 qpn;
		int data_why;	/* of every type but UD_SEND */
		int ud_why;	/* of UD_SEND */
	} to[10];
	u32 n = 0, i, len, type, hl, w;
	struct mrc_pkt p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	ud = mrc_t_qp(test, b, IB_QPT_UD);
	mrc_t_to_state(test, ud, IB_QPS_INIT);
	mrc_t_to_state(test, ud, IB_QPS_RTR);
	mrc_t_to_state(test, ud, IB_QPS_RTS);
	/* [OPS-40] a UC QP in RESET takes nothing, as an RC one */
	uc_init = (struct ib_qp_init_attr){
		.qp_type = IB_QPT_UC, .send_cq = b->cq, .recv_cq = b->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	uc = ib_create_qp(b->pd, &uc_init);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, uc);
	rc_reset = mrc_t_qp(test, b, IB_QPT_RC);
	rc_init = mrc_t_qp(test, b, IB_QPT_RC);
	mrc_t_to_state(test, rc_init, IB_QPS_INIT);
	/* connected to A (cookie 100, as B's own), then failed */
	rc_err = mrc_t_qp(test, b, IB_QPT_RC);
	err_end.qp = rc_err;
	KUNIT_ASSERT_EQ(test, mrc_t_connect(&err_end, a, 7000, 100), 0);
	mrc_t_to_state(test, rc_err, IB_QPS_ERR);

	to[n++] = (typeof(to[0])){ b->qp->qp_num + 1000, MRC_T_NO_QP,
				   MRC_T_NO_QP };
	to[n++] = (typeof(to[0])){ 0, MRC_T_NO_QP, MRC_T_NO_QP };
	to[n++] = (typeof(to[0])){ ud->qp_num, MRC_T_QP_TYPE, MRC_T_QKEY };
	gsi = mrc_qp_get(&b->dev->ibdev, 1);
	if (gsi) {
		mrc_qp_put(gsi);
		to[n++] = (typeof(to[0])){ 1, MRC_T_QP_TYPE, MRC_T_QKEY };
	}
	to[n++] = (typeof(to[0])){ rc_reset->qp_num, MRC_T_QP_STATE,
				   MRC_T_QP_TYPE };
	to[n++] = (typeof(to[0])){ uc->qp_num, MRC_T_QP_STATE, MRC_T_QP_TYPE };
	to[n++] = (typeof(to[0])){ rc_init->qp_num, MRC_T_QP_STATE,
				   MRC_T_QP_TYPE };
	to[n++] = (typeof(to[0])){ rc_err->qp_num, MRC_T_QP_STATE,
				   MRC_T_QP_TYPE };

	drops0 = mrc_t_stat(b->dev, MRC_STAT_RX_DROPPED);
	naks0 = mrc_t_stat(b->dev, MRC_STAT_NAKS_SENT);
	for (w = 0; w < MRC_T_WHYS; w++)
		before[w] = mrc_t_stat(b->dev, mrc_t_why[w]);
	for (i = 0; i < n; i++) {
		for (type = MRC_PKT_SEND; type <= MRC_PKT_TYPE_MAX; type++) {
			int why = type == MRC_PKT_UD_SEND ? to[i].ud_why :
							    to[i].data_why;

			mrc_t_sample(test, &p, type, to[i].qpn);
			KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, buf, 512,
							      &len),
					MRC_WIRE_OK);
			mrc_t_inject(b, buf, len, false);
			mrc_t_inject(b, buf, len, true);
			want[why] += 2;
		}
		/* [ENC-9] an ACK bundle: each ACK on its own */
		mrc_t_sample(test, &p, MRC_PKT_ACK, to[i].qpn);
		KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, buf, 512, &len),
				MRC_WIRE_OK);
		KUNIT_ASSERT_EQ(test, len, (u32)MRC_WIRE_ACK_PKT_LEN);
		memcpy(buf + len, buf, len);
		mrc_t_inject(b, buf, 2 * len, false);
		want[to[i].data_why] += 2;
		/* [ENC-13] a packet bundle of a WRITE and a READ request */
		{
			u16 lens[2];
			u32 l0, l1;

			hl = mrc_wire_pbundle_hdr_len(2);
			mrc_t_sample(test, &p, MRC_PKT_WRITE, to[i].qpn);
			KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, buf + hl, 400,
							      &l0),
					MRC_WIRE_OK);
			mrc_t_sample(test, &p, MRC_PKT_READ_REQ, to[i].qpn);
			p.psn = 101;
			p.msn = 1;
			KUNIT_ASSERT_EQ(test,
					mrc_wire_encode(&p, buf + hl + l0, 400,
							&l1),
					MRC_WIRE_OK);
			lens[0] = l0;
			lens[1] = l1;
			KUNIT_ASSERT_EQ(test,
					mrc_wire_pbundle_encode_hdr(lens, 2, buf,
								    hl),
					MRC_WIRE_OK);
			mrc_t_inject(b, buf, hl + l0 + l1, false);
			mrc_t_inject(b, buf, hl + l0 + l1, true);
			want[to[i].data_why] += 4;
		}
	}
	for (w = 0; w < MRC_T_WHYS; w++) {
		u64 got = mrc_t_stat(b->dev, mrc_t_why[w]) - before[w];

		KUNIT_EXPECT_EQ_MSG(test, got, want[w], "reason %u", w);
		drops += want[w];
	}
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_RX_DROPPED) - drops0,
			drops);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_NAKS_SENT), naks0);

	ib_destroy_qp(rc_err);
	ib_destroy_qp(rc_init);
	ib_destroy_qp(rc_reset);
	ib_destroy_qp(uc);
	ib_destroy_qp(ud);
	mrc_t_write(test, t, 4096);
}

/*
 * [SEC-3] A packet the connection would take, from any address but the
 * peer's, is dropped and counted; the same bytes from the peer's address
 * are placed (so the first was refused for its source alone).
 */
static void mrc_hostile_stranger_source_dropped(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *b = &t->e[1];
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	static const u8 payload[64] = "written by whoever sent it";
	struct mrc_pkt p = { };
	u64 src0;
	u32 len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memset(b->buf, 0, MRC_T_BUF + 64);
	p.type = MRC_PKT_WRITE;
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.dst_qpn = b->qp->qp_num;
	p.cookie = 100;		/* B's rq_psn: the live connection's cookie */
	p.psn = 100;		/* the first PSN B expects on path 0 */
	p.write.va = (uintptr_t)b->buf;
	p.write.rkey = b->pd->unsafe_global_rkey;
	p.write.total_len = sizeof(payload);
	p.payload = payload;
	p.payload_len = sizeof(payload);
	KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, buf, 512, &len), MRC_WIRE_OK);

	src0 = mrc_t_stat(b->dev, MRC_STAT_RX_DROP_SOURCE);
	mrc_t_inject_from(b, htonl(0x0a63004d), buf, len, false);
	mrc_t_inject_from(b, htonl(0x0a63004d), buf, len, true);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_RX_DROP_SOURCE) -
			src0, 2ull);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(b->buf, 0, MRC_T_BUF + 64), NULL);

	mrc_t_inject(b, buf, len, false);
	KUNIT_EXPECT_EQ(test, memcmp(b->buf, payload, sizeof(payload)), 0);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_RX_DROP_SOURCE) -
			src0, 2ull);
}

/*
 * [PKT-76] A PROBE REQ on the live connection gets one RESP, counted;
 * a RESP (we ask no questions), a REQ with a wrong cookie or from a
 * stranger's address gets nothing, and the connection carries on.
 */
static void mrc_hostile_probe_answered_once(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *b = &t->e[1];
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	struct mrc_pkt p = { };
	u64 ans0, tx0;
	u32 len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	p.type = MRC_PKT_PROBE;
	p.dst_qpn = b->qp->qp_num;
	p.cookie = 5000;	/* B's sq_psn: what control packets carry */
	p.path_id = 1;
	p.probe.kind = MRC_PROBE_REQ;
	p.probe.min_ver = 1;
	p.probe.max_ver = 1;
	p.probe.seq = 77;
	ans0 = mrc_t_stat(b->dev, MRC_STAT_PROBES_ANSWERED);
	tx0 = mrc_t_stat(b->dev, MRC_STAT_TX_PACKETS);

	KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, buf, 512, &len), MRC_WIRE_OK);
	mrc_t_inject(b, buf, len, false);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_PROBES_ANSWERED) -
			ans0, 1ull);
	KUNIT_EXPECT_GE(test, mrc_t_stat(b->dev, MRC_STAT_TX_PACKETS) - tx0,
			1ull);

	mrc_t_inject_from(b, htonl(0x0a63004d), buf, len, false);
	p.cookie = 5001;
	KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, buf, 512, &len), MRC_WIRE_OK);
	mrc_t_inject(b, buf, len, false);
	p.cookie = 5000;
	p.probe.kind = MRC_PROBE_RESP;
	p.probe.echo_len = 64;
	KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, buf, 512, &len), MRC_WIRE_OK);
	mrc_t_inject(b, buf, len, false);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_PROBES_ANSWERED) -
			ans0, 1ull);
	mrc_t_write(test, t, 4096);
}

/* An OFFER from A (10.99.0.1) announcing plane 1 at @plane1, sealed. */
static u32 mrc_t_hello(struct mrc_t_end *b, u8 kind, u32 cookie,
		       __be32 plane1, u8 *buf)
{
	struct mrc_hello_local l = {
		.rec = { .min_ver = 1, .max_ver = 1, .max_paths = 8,
			 .seg_shift = 12, .caps = MRC_CAP_MULTIPLANE,
			 .cookie = 5000, .udp_port = MRC_WIRE_UDP_PORT,
			 .max_streams = 1 },
		.nplanes = 2,
	};
	u8 table[MRC_WIRE_HELLO_TABLE_MAX];
	struct mrc_hello_state h;
	struct mrc_pkt p = { };
	__be32 a = mrc_t_ip(0);
	u32 len = 0;

	l.plane[0].family = 4;
	memcpy(l.plane[0].addr, &a, 4);
	l.plane[1].family = 4;
	memcpy(l.plane[1].addr, &plane1, 4);
	mrc_hello_init(&h, &l);
	mrc_hello_build(&h, kind, &p, table);
	p.dst_qpn = b->qp->qp_num;
	p.cookie = cookie;
	if (mrc_wire_encode(&p, buf, 512, &len) != MRC_WIRE_OK)
		return 0;
	return len;
}

static bool mrc_t_peer_known(struct mrc_t_end *b)
{
	struct mrc_xp *xp = mrc_xp_of(to_mrc_qp(b->qp));
	bool known;

	spin_lock_bh(&xp->lock);
	known = xp->hello.peer_known && xp->hello.answered;
	spin_unlock_bh(&xp->lock);
	return known;
}

/*
 * [PKT-93] [PKT-94] [SEC-3] [SEC-7] HELLOs at the live connection, once
 * A's own HELLO was answered: one with a stale cookie, from a stranger's
 * address or malformed is dropped and counted, unanswered; a flood of
 * valid OFFERs draws at most MRC_HELLO_ANSWERS_MAX ANSWERs in the
 * connection's life and the rest are counted as refused; an ANSWER is
 * never answered; the planes such late HELLOs announce are not taken
 * (the first HELLO fixed the peer), so data from them is dropped; and
 * the connection carries on.
 */
static void mrc_hostile_hello_rules(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_end *b = &t->e[1];
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	__be32 evil = htonl(0x0a63074d);	/* 10.99.7.77 */
	static const u8 payload[64] = "from a plane nobody announced";
	u64 sent0, rcvd0, ref0, drop0;
	struct mrc_pkt p = { };
	unsigned long until;
	u32 len, i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	until = jiffies + msecs_to_jiffies(MRC_T_WAIT_MS);
	while (!mrc_t_peer_known(b) && time_before(jiffies, until))
		msleep(20);
	KUNIT_ASSERT_TRUE(test, mrc_t_peer_known(b));

	sent0 = mrc_t_stat(b->dev, MRC_STAT_HELLOS_SENT);
	rcvd0 = mrc_t_stat(b->dev, MRC_STAT_HELLOS_RECEIVED);
	ref0 = mrc_t_stat(b->dev, MRC_STAT_HELLOS_REFUSED);

	/* a stale connection's cookie */
	len = mrc_t_hello(b, MRC_HELLO_OFFER, 101, evil, buf);
	KUNIT_ASSERT_GT(test, len, 0u);
	drop0 = mrc_t_stat(b->dev, MRC_STAT_RX_DROP_COOKIE);
	mrc_t_inject(b, buf, len, false);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_RX_DROP_COOKIE) -
			drop0, 1ull);
	/* the right cookie from a stranger, or from the evil plane itself */
	len = mrc_t_hello(b, MRC_HELLO_OFFER, 100, evil, buf);
	drop0 = mrc_t_stat(b->dev, MRC_STAT_RX_DROP_SOURCE);
	mrc_t_inject_from(b, htonl(0x0a63004d), buf, len, false);
	mrc_t_inject_from(b, evil, buf, len, false);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_RX_DROP_SOURCE) -
			drop0, 2ull);
	/* too many addresses: nplanes 9, resealed */
	buf[MRC_WO_HELLO_NPLANES] = 9;
	mrc_wire_seal(buf, len - MRC_WIRE_ICRC_LEN);
	drop0 = mrc_t_stat(b->dev, MRC_STAT_RX_DROP_MALFORMED);
	mrc_t_inject(b, buf, len, true);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_RX_DROP_MALFORMED) -
			drop0, 1ull);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_HELLOS_RECEIVED),
			rcvd0);

	/* a flood of valid OFFERs from A's address */
	len = mrc_t_hello(b, MRC_HELLO_OFFER, 100, evil, buf);
	for (i = 0; i < 100; i++)
		mrc_t_inject(b, buf, len, i & 1);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_HELLOS_RECEIVED) -
			rcvd0, 100ull);
	KUNIT_EXPECT_LE(test, mrc_t_stat(b->dev, MRC_STAT_HELLOS_SENT) - sent0,
			(u64)MRC_HELLO_ANSWERS_MAX);
	KUNIT_EXPECT_EQ(test, (mrc_t_stat(b->dev, MRC_STAT_HELLOS_SENT) -
			       sent0) +
			(mrc_t_stat(b->dev, MRC_STAT_HELLOS_REFUSED) - ref0),
			100ull);
	/* an ANSWER draws nothing */
	sent0 = mrc_t_stat(b->dev, MRC_STAT_HELLOS_SENT);
	len = mrc_t_hello(b, MRC_HELLO_ANSWER, 100, evil, buf);
	mrc_t_inject(b, buf, len, false);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_HELLOS_SENT), sent0);

	/* [SEC-3] the planes of a late HELLO were not taken */
	p.type = MRC_PKT_WRITE;
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.dst_qpn = b->qp->qp_num;
	p.cookie = 100;
	p.psn = 100;
	p.write.va = (uintptr_t)b->buf;
	p.write.rkey = b->pd->unsafe_global_rkey;
	p.write.total_len = sizeof(payload);
	p.payload = payload;
	p.payload_len = sizeof(payload);
	KUNIT_ASSERT_EQ(test, mrc_wire_encode(&p, buf, 512, &len), MRC_WIRE_OK);
	memset(b->buf, 0, MRC_T_BUF + 64);
	drop0 = mrc_t_stat(b->dev, MRC_STAT_RX_DROP_SOURCE);
	mrc_t_inject_from(b, evil, buf, len, false);
	KUNIT_EXPECT_EQ(test, mrc_t_stat(b->dev, MRC_STAT_RX_DROP_SOURCE) -
			drop0, 1ull);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(b->buf, 0, MRC_T_BUF + 64), NULL);
	mrc_t_write(test, t, 4096);
}

static struct kunit_case mrc_hostile_cases[] = {
	KUNIT_CASE(mrc_hostile_packets_change_nothing),
	KUNIT_CASE(mrc_hostile_every_type_to_every_qp),
	KUNIT_CASE(mrc_hostile_stranger_source_dropped),
	KUNIT_CASE(mrc_hostile_probe_answered_once),
	KUNIT_CASE(mrc_hostile_hello_rules),
	{}
};

static struct kunit_suite mrc_hostile_suite = {
	.name = "metaroce_hostile",
	.init = mrc_t_pair_init,
	.exit = mrc_t_pair_exit,
	.test_cases = mrc_hostile_cases,
};

kunit_test_suite(mrc_hostile_suite);

#endif /* IS_BUILTIN(CONFIG_METAROCE) */
