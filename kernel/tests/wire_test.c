// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the portable wire core (core/wire.c) compiled as kernel code.
 *
 * The userspace tests cover the same functions with the host compiler; here
 * they run with the kernel's flags, its unaligned accessors and KASAN. Every
 * parse of a crafted packet reads from a buffer allocated at exactly the
 * packet's length, so a read past the end is a KASAN report, which fails
 * the case.
 */
#include <kunit/test.h>
#include <linux/crc32.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "../core/wire.h"

#define MRC_T_BUF	512

/* The packet types mrc_t_pkt() knows how to fill; a new type joins here. */
static const u8 mrc_t_types[] = {
	MRC_PKT_SEND, MRC_PKT_WRITE, MRC_PKT_READ_REQ, MRC_PKT_READ_RESP,
	MRC_PKT_ATOMIC, MRC_PKT_ATOMIC_RESP, MRC_PKT_ACK, MRC_PKT_NAK,
	MRC_PKT_PROBE,
};

/* A valid packet of @type with every field set to something recognisable. */
static void mrc_t_pkt(struct mrc_pkt *p, u8 type, const u8 *payload,
		      u32 payload_len)
{
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->path_id = 7;
	p->dst_qpn = 0x00abcdef;
	p->tsval = 0x01020304;
	p->cookie = 0xc0ffee11;
	switch (type) {
	case MRC_PKT_SEND:
	case MRC_PKT_WRITE:
	case MRC_PKT_READ_RESP:
		p->flags = MRC_F_FIRST | MRC_F_LAST;
		p->payload = payload;
		p->payload_len = payload_len;
		if (type == MRC_PKT_SEND) {
			p->send.rsn = 0x11223344;
			p->send.total_len = payload_len;
		} else if (type == MRC_PKT_WRITE) {
			p->write.va = 0x00007f0012345000ull;
			p->write.rkey = 0x5a5a0102;
			p->write.total_len = payload_len;
		} else {
			p->read_resp.resp_tag = 0x77;
			p->read_resp.total_len = payload_len;
		}
		break;
	case MRC_PKT_READ_REQ:
		p->flags = MRC_F_FIRST | MRC_F_LAST;
		p->read_req.va = 0x1000;
		p->read_req.rkey = 0x99;
		p->read_req.len = 65536;
		p->read_req.resp_tag = 0x1234;
		break;
	case MRC_PKT_ATOMIC:
		p->flags = MRC_F_FIRST | MRC_F_LAST;
		p->atomic.va = 0x2000;
		p->atomic.rkey = 0x42;
		p->atomic.op = MRC_ATOMIC_FETCH_ADD;
		p->atomic.swap_add = 5;
		break;
	case MRC_PKT_ATOMIC_RESP:
		p->flags = MRC_F_FIRST | MRC_F_LAST;
		p->atomic_resp.orig = 0xfedcba9876543210ull;
		break;
	case MRC_PKT_ACK:
		p->ack.cum_psn = 1000;
		p->ack.rate_hint = 25000;
		break;
	case MRC_PKT_NAK:
		p->nak.code = MRC_NAK_ACCESS;
		p->nak.psn = 17;
		break;
	case MRC_PKT_PROBE:
		p->probe.kind = MRC_PROBE_REQ;
		p->probe.min_ver = 1;
		p->probe.max_ver = 1;
		p->probe.seq = 3;
		p->payload = payload;
		p->payload_len = payload_len;
		break;
	}
	if (type >= MRC_PKT_SEND && type <= MRC_PKT_ATOMIC_RESP) {
		p->psn = 0x80000001;
		p->msn = 0x00010002;
		p->ssn = 9;
		p->stream_id = 3;
	}
}

/* Encode @p, asserting success; returns the packet length. */
static u32 mrc_t_encode(struct kunit *test, const struct mrc_pkt *p, u8 *buf)
{
	enum mrc_wire_reason r;
	u32 len = 0;

	r = mrc_wire_encode(p, buf, MRC_T_BUF, &len);
	KUNIT_ASSERT_EQ_MSG(test, r, MRC_WIRE_OK, "encode: %s",
			    mrc_wire_reason_str(r));
	KUNIT_ASSERT_GE(test, len, (u32)MRC_WIRE_MIN_PKT_LEN);
	return len;
}

/*
 * Parse @len bytes of @src from a heap copy of exactly @len bytes; on
 * success @out->payload is moved back into @src, which outlives the copy.
 */
static enum mrc_wire_reason mrc_t_parse(struct kunit *test, const u8 *src,
					u32 len, struct mrc_pkt *out)
{
	u8 *exact = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);
	enum mrc_wire_reason r;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, exact);
	memcpy(exact, src, len);
	r = mrc_wire_parse(exact, len, out);
	if (r == MRC_WIRE_OK && out->payload)
		out->payload = src + (out->payload - exact);
	kunit_kfree(test, exact);
	return r;
}

/* Recompute the ICRC after a deliberate edit, so the edit itself is judged. */
static void mrc_t_reseal(u8 *buf, u32 len)
{
	mrc_wire_seal(buf, len - MRC_WIRE_ICRC_LEN);
}

/* Edit a valid packet of @type with @edit, reseal, expect @want. */
static void mrc_t_expect_reject(struct kunit *test, u8 type,
				void (*edit)(u8 *buf, u32 *len),
				enum mrc_wire_reason want)
{
	u8 *buf = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	struct mrc_pkt p, out;
	u8 payload[16] = { 1, 2, 3 };
	enum mrc_wire_reason r;
	u32 len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	mrc_t_pkt(&p, type, payload, sizeof(payload));
	len = mrc_t_encode(test, &p, buf);
	edit(buf, &len);
	mrc_t_reseal(buf, len);
	r = mrc_t_parse(test, buf, len, &out);
	/* Compare names: a failure then says which reason came instead. */
	KUNIT_EXPECT_STREQ(test, mrc_wire_reason_str(r),
			   mrc_wire_reason_str(want));
}

/* ---- round trips ---- */

static void mrc_t_roundtrip(struct kunit *test, const struct mrc_pkt *p,
			    struct mrc_pkt *out)
{
	u8 *buf = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	enum mrc_wire_reason r;
	u32 len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	len = mrc_t_encode(test, p, buf);
	KUNIT_EXPECT_EQ(test, len, mrc_wire_hdr_len(p) + p->payload_len +
			MRC_WIRE_ICRC_LEN);
	r = mrc_t_parse(test, buf, len, out);
	KUNIT_ASSERT_EQ_MSG(test, r, MRC_WIRE_OK, "parse: %s",
			    mrc_wire_reason_str(r));
	KUNIT_EXPECT_EQ(test, out->type, p->type);
	KUNIT_EXPECT_EQ(test, out->path_id, p->path_id);
	KUNIT_EXPECT_EQ(test, out->flags, p->flags);
	KUNIT_EXPECT_EQ(test, out->stream_id, p->stream_id);
	KUNIT_EXPECT_EQ(test, out->dst_qpn, p->dst_qpn);
	KUNIT_EXPECT_EQ(test, out->psn, p->psn);
	KUNIT_EXPECT_EQ(test, out->msn, p->msn);
	KUNIT_EXPECT_EQ(test, out->ssn, p->ssn);
	KUNIT_EXPECT_EQ(test, out->tsval, p->tsval);
	KUNIT_EXPECT_EQ(test, out->cookie, p->cookie);
	KUNIT_EXPECT_EQ(test, out->hdr_len, mrc_wire_hdr_len(p));
	KUNIT_EXPECT_EQ(test, out->payload_len, p->payload_len);
	if (p->flags & (MRC_F_IMM | MRC_F_INV))
		KUNIT_EXPECT_EQ(test, out->imm, p->imm);
}

static void mrc_wire_send_roundtrip(struct kunit *test)
{
	static const u8 payload[100] = { [0] = 0xaa, [99] = 0x55 };
	struct mrc_pkt p, out;

	mrc_t_pkt(&p, MRC_PKT_SEND, payload, sizeof(payload));
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.hdr_len,
			(u32)(MRC_WIRE_BASE_LEN + MRC_WIRE_SEND_LEN));
	KUNIT_EXPECT_EQ(test, out.send.rsn, p.send.rsn);
	KUNIT_EXPECT_EQ(test, out.send.offset, 0u);
	KUNIT_EXPECT_EQ(test, out.send.total_len, (u32)sizeof(payload));
	KUNIT_ASSERT_NOT_NULL(test, out.payload);
	KUNIT_EXPECT_EQ(test, memcmp(out.payload, payload, sizeof(payload)), 0);
}

static void mrc_wire_send_imm_roundtrip(struct kunit *test)
{
	u8 payload[8] = { 9, 8, 7 };
	struct mrc_pkt p, out;

	mrc_t_pkt(&p, MRC_PKT_SEND, payload, sizeof(payload));
	p.flags |= MRC_F_IMM | MRC_F_SOLICITED;
	p.imm = 0xdeadbeef;
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.hdr_len, (u32)(MRC_WIRE_BASE_LEN +
			MRC_WIRE_SEND_LEN + MRC_WIRE_IMM_LEN));
	KUNIT_EXPECT_EQ(test, out.imm, 0xdeadbeefu);
	KUNIT_EXPECT_EQ(test, memcmp(out.payload, payload, sizeof(payload)), 0);
}

static void mrc_wire_send_inv_roundtrip(struct kunit *test)
{
	u8 payload[4] = { 1 };
	struct mrc_pkt p, out;

	mrc_t_pkt(&p, MRC_PKT_SEND, payload, sizeof(payload));
	p.flags |= MRC_F_INV;
	p.imm = 0x00c0ffee;	/* the rkey to invalidate */
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_TRUE(test, out.flags & MRC_F_INV);
	KUNIT_EXPECT_EQ(test, out.imm, 0x00c0ffeeu);
}

static void mrc_wire_empty_send_roundtrip(struct kunit *test)
{
	struct mrc_pkt p, out;

	/* A zero-byte SEND is one packet, FIRST and LAST, with no payload. */
	mrc_t_pkt(&p, MRC_PKT_SEND, NULL, 0);
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.payload_len, 0u);
	KUNIT_EXPECT_EQ(test, out.send.total_len, 0u);
}

static void mrc_wire_write_middle_segment_roundtrip(struct kunit *test)
{
	u8 payload[256];
	struct mrc_pkt p, out;
	int i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = i;
	mrc_t_pkt(&p, MRC_PKT_WRITE, payload, sizeof(payload));
	p.flags = 0;		/* neither first nor last */
	p.write.offset = 256;
	p.write.total_len = 768;
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.write.va, p.write.va);
	KUNIT_EXPECT_EQ(test, out.write.rkey, p.write.rkey);
	KUNIT_EXPECT_EQ(test, out.write.offset, 256u);
	KUNIT_EXPECT_EQ(test, out.write.total_len, 768u);
	KUNIT_EXPECT_EQ(test, memcmp(out.payload, payload, sizeof(payload)), 0);
}

static void mrc_wire_read_roundtrip(struct kunit *test)
{
	u8 payload[32] = { 0x10 };
	struct mrc_pkt p, out;

	mrc_t_pkt(&p, MRC_PKT_READ_REQ, NULL, 0);
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.read_req.va, p.read_req.va);
	KUNIT_EXPECT_EQ(test, out.read_req.rkey, p.read_req.rkey);
	KUNIT_EXPECT_EQ(test, out.read_req.len, p.read_req.len);
	KUNIT_EXPECT_EQ(test, out.read_req.resp_tag, p.read_req.resp_tag);

	mrc_t_pkt(&p, MRC_PKT_READ_RESP, payload, sizeof(payload));
	p.flags = MRC_F_LAST;
	p.read_resp.offset = 64;
	p.read_resp.total_len = 64 + sizeof(payload);
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.read_resp.resp_tag, p.read_resp.resp_tag);
	KUNIT_EXPECT_EQ(test, out.read_resp.offset, 64u);
	KUNIT_EXPECT_EQ(test, out.read_resp.total_len, 96u);
}

static void mrc_wire_atomic_roundtrip(struct kunit *test)
{
	struct mrc_pkt p, out;

	mrc_t_pkt(&p, MRC_PKT_ATOMIC, NULL, 0);
	p.atomic.op = MRC_ATOMIC_CMP_SWAP;
	p.atomic.compare = 0x0123456789abcdefull;
	p.atomic.swap_add = 0xfedcba9876543210ull;
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.atomic.op, (u8)MRC_ATOMIC_CMP_SWAP);
	KUNIT_EXPECT_EQ(test, out.atomic.va, p.atomic.va);
	KUNIT_EXPECT_EQ(test, out.atomic.rkey, p.atomic.rkey);
	KUNIT_EXPECT_EQ(test, out.atomic.compare, p.atomic.compare);
	KUNIT_EXPECT_EQ(test, out.atomic.swap_add, p.atomic.swap_add);

	mrc_t_pkt(&p, MRC_PKT_ATOMIC_RESP, NULL, 0);
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.atomic_resp.orig, p.atomic_resp.orig);
}

static void mrc_wire_ack_roundtrip(struct kunit *test)
{
	struct mrc_pkt p, out;
	int i;

	mrc_t_pkt(&p, MRC_PKT_ACK, NULL, 0);
	p.flags = MRC_F_CE_ECHO;
	p.ack.cum_psn = 0xfffffff0;
	p.ack.tsecr = 0x11111111;
	p.ack.ack_delay = 2500;
	p.ack.ce_count = 77;
	p.ack.msn_ack = 0x22222222;
	p.ack.rsn_limit = 0x33333333;
	p.ack.rate_hint = 40000;
	p.ack.rx_max = 8192;
	p.ack.sack[0] = 0x8000000000000001ull;
	p.ack.sack[1] = 0;
	p.ack.sack[2] = 0xffffffffffffffffull;
	p.ack.sack[3] = 0x0123456789abcdefull;
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.ack.cum_psn, p.ack.cum_psn);
	KUNIT_EXPECT_EQ(test, out.ack.tsecr, p.ack.tsecr);
	KUNIT_EXPECT_EQ(test, out.ack.ack_delay, p.ack.ack_delay);
	KUNIT_EXPECT_EQ(test, out.ack.ce_count, p.ack.ce_count);
	KUNIT_EXPECT_EQ(test, out.ack.msn_ack, p.ack.msn_ack);
	KUNIT_EXPECT_EQ(test, out.ack.rsn_limit, p.ack.rsn_limit);
	KUNIT_EXPECT_EQ(test, out.ack.rate_hint, p.ack.rate_hint);
	KUNIT_EXPECT_EQ(test, out.ack.rx_max, p.ack.rx_max);
	for (i = 0; i < MRC_WIRE_SACK_WORDS; i++)
		KUNIT_EXPECT_EQ(test, out.ack.sack[i], p.ack.sack[i]);
}

static void mrc_wire_nak_probe_roundtrip(struct kunit *test)
{
	u8 pad[64] = { 0 };
	struct mrc_pkt p, out;

	mrc_t_pkt(&p, MRC_PKT_NAK, NULL, 0);
	p.nak.code = MRC_NAK_RNR;
	p.nak.msn = 12;
	p.nak.arg = 655;	/* microseconds */
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.nak.code, (u8)MRC_NAK_RNR);
	KUNIT_EXPECT_EQ(test, out.nak.psn, p.nak.psn);
	KUNIT_EXPECT_EQ(test, out.nak.msn, 12u);
	KUNIT_EXPECT_EQ(test, out.nak.arg, 655u);

	/* A probe response echoes the request and may be padded. */
	mrc_t_pkt(&p, MRC_PKT_PROBE, pad, sizeof(pad));
	p.probe.kind = MRC_PROBE_RESP;
	p.probe.tsecr = 0xabcdef01;
	p.probe.caps = MRC_CAP_ATOMIC | MRC_CAP_RATE_HINT;
	p.probe.echo_len = 1200;
	mrc_t_roundtrip(test, &p, &out);
	KUNIT_EXPECT_EQ(test, out.probe.kind, (u8)MRC_PROBE_RESP);
	KUNIT_EXPECT_EQ(test, out.probe.seq, p.probe.seq);
	KUNIT_EXPECT_EQ(test, out.probe.tsecr, p.probe.tsecr);
	KUNIT_EXPECT_EQ(test, out.probe.caps, p.probe.caps);
	KUNIT_EXPECT_EQ(test, out.probe.echo_len, 1200u);
	KUNIT_EXPECT_EQ(test, out.payload_len, (u32)sizeof(pad));
}

/* The bytes land at the offsets wire.h documents, big-endian. */
static void mrc_wire_layout_is_big_endian(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	const u32 hdr = MRC_WIRE_BASE_LEN + MRC_WIRE_WRITE_LEN +
			MRC_WIRE_IMM_LEN;
	struct mrc_pkt p;
	u32 len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	mrc_t_pkt(&p, MRC_PKT_WRITE, (const u8 *)"abcd", 4);
	p.flags |= MRC_F_IMM;
	p.imm = 0xa1b2c3d4;
	p.write.rsn = 0x0badf00d;
	len = mrc_t_encode(test, &p, buf);
	KUNIT_EXPECT_EQ(test, len, hdr + 4 + MRC_WIRE_ICRC_LEN);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_VERSION], (u8)MRC_WIRE_VERSION);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_TYPE], (u8)MRC_PKT_WRITE);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_HDR_WORDS], (u8)(hdr / 4));
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_PATH_ID], (u8)7);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_FLAGS], 0);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_FLAGS + 1],
			(u8)(MRC_F_FIRST | MRC_F_LAST | MRC_F_IMM));
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_DST_QPN], 0);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_DST_QPN + 1], 0xab);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_DST_QPN + 3], 0xef);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_PSN], 0x80);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_PSN + 3], 0x01);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_WRITE_VA + 2], 0x7f);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_WRITE_VA + 6], 0x50);
	KUNIT_EXPECT_EQ(test, buf[MRC_WO_WRITE_VA + 7], 0x00);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf + MRC_WO_WRITE_RKEY),
			0x5a5a0102u);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf + MRC_WO_WRITE_RSN),
			0x0badf00du);
	/* the immediate closes the header, the payload follows it */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf + hdr - MRC_WIRE_IMM_LEN),
			0xa1b2c3d4u);
	KUNIT_EXPECT_EQ(test, memcmp(buf + hdr, "abcd", 4), 0);
	/* the trailer is CRC32C of everything before it */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf + hdr + 4),
			~__crc32c_le(~0u, buf, hdr + 4));
}

static void mrc_wire_encode_hdr_matches_encode(struct kunit *test)
{
	u8 *whole = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	u8 *hdr = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	u8 payload[40] = { 3 };
	struct mrc_pkt p;
	u32 hdr_len = 0;
	int i, type;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, whole);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, hdr);
	for (i = 0; i < ARRAY_SIZE(mrc_t_types); i++) {
		type = mrc_t_types[i];
		mrc_t_pkt(&p, type, payload, sizeof(payload));
		mrc_t_encode(test, &p, whole);
		KUNIT_ASSERT_EQ(test, mrc_wire_encode_hdr(&p, hdr, MRC_T_BUF,
							  &hdr_len),
				MRC_WIRE_OK);
		KUNIT_EXPECT_EQ(test, hdr_len, mrc_wire_hdr_len(&p));
		KUNIT_EXPECT_EQ_MSG(test, memcmp(hdr, whole, hdr_len), 0,
				    "type %d", type);
	}
}

/* Parsing accepts only canonical bytes: re-encoding gives them back. */
static void mrc_wire_parse_is_canonical(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	u8 *again = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	struct rnd_state rnd;
	struct mrc_pkt p, out;
	u8 payload[24] = { 0 };
	u32 len, len2, accepted = 0;
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, again);
	prandom_seed_state(&rnd, 0x6d726365);
	for (i = 0; i < 20000; i++) {
		u8 type = mrc_t_types[i % ARRAY_SIZE(mrc_t_types)];
		u32 pos, mask;

		mrc_t_pkt(&p, type, payload, sizeof(payload));
		len = mrc_t_encode(test, &p, buf);
		/* Flip a few bits in the headers, then make the ICRC agree. */
		pos = prandom_u32_state(&rnd) % (len - MRC_WIRE_ICRC_LEN);
		mask = 1u << (prandom_u32_state(&rnd) % 8);
		buf[pos] ^= mask;
		if (i & 1)
			buf[prandom_u32_state(&rnd) % 48] ^= 1u <<
				(prandom_u32_state(&rnd) % 8);
		mrc_t_reseal(buf, len);
		if (mrc_t_parse(test, buf, len, &out) != MRC_WIRE_OK)
			continue;
		accepted++;
		KUNIT_ASSERT_EQ(test, mrc_wire_encode(&out, again, MRC_T_BUF,
						      &len2), MRC_WIRE_OK);
		KUNIT_ASSERT_EQ(test, len2, len);
		KUNIT_ASSERT_EQ_MSG(test, memcmp(again, buf, len), 0,
				    "iteration %d type %u byte %u", i, type,
				    pos);
	}
	/* Flips of free fields (psn, va, ...) must still be accepted. */
	KUNIT_EXPECT_GT(test, accepted, 1000u);
}

/* ---- rejections ---- */

static void mrc_wire_rejects_every_truncation(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	u8 payload[20] = { 1 };
	struct mrc_pkt p, out;
	u32 len, cut;
	int i, type;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(mrc_t_types); i++) {
		type = mrc_t_types[i];
		mrc_t_pkt(&p, type, payload, sizeof(payload));
		len = mrc_t_encode(test, &p, buf);
		for (cut = 0; cut < len; cut++) {
			enum mrc_wire_reason r = mrc_t_parse(test, buf, cut,
							     &out);

			KUNIT_EXPECT_NE_MSG(test, r, MRC_WIRE_OK,
					    "type %d cut to %u", type, cut);
			if (cut < MRC_WIRE_MIN_PKT_LEN)
				KUNIT_EXPECT_EQ(test, r, MRC_WIRE_E_TRUNCATED);
		}
	}
}

static void mrc_t_cut_inside_ext(u8 *buf, u32 *len)
{
	/* Keep 8 bytes of the WRITE extension; the ICRC follows. */
	*len = MRC_WIRE_BASE_LEN + 8 + MRC_WIRE_ICRC_LEN;
}

static void mrc_wire_rejects_sealed_short_header(struct kunit *test)
{
	/* Correct ICRC, but the header claims more bytes than there are. */
	mrc_t_expect_reject(test, MRC_PKT_WRITE, mrc_t_cut_inside_ext,
			    MRC_WIRE_E_TRUNCATED);
}

static void mrc_wire_rejects_too_long(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	struct mrc_pkt p, out;
	u32 len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	mrc_t_pkt(&p, MRC_PKT_SEND, NULL, 0);
	len = mrc_t_encode(test, &p, buf);
	KUNIT_EXPECT_EQ(test, mrc_wire_parse_hdr(buf, len,
						 MRC_WIRE_MAX_PKT_LEN + 1,
						 &out),
			MRC_WIRE_E_TOO_LONG);
	KUNIT_EXPECT_EQ(test, mrc_wire_parse_hdr(buf, len, ~0u, &out),
			MRC_WIRE_E_TOO_LONG);

	/* The encoder refuses a segment that would not fit a UDP datagram. */
	p.payload_len = MRC_WIRE_MAX_PKT_LEN - mrc_wire_hdr_len(&p) -
			MRC_WIRE_ICRC_LEN + 1;
	p.send.total_len = p.payload_len;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_TOO_LONG);
	p.payload_len--;
	p.send.total_len--;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_OK);
}

static void mrc_t_version0(u8 *buf, u32 *len)
{
	buf[MRC_WO_VERSION] = 0;
}

static void mrc_t_version2(u8 *buf, u32 *len)
{
	buf[MRC_WO_VERSION] = 2;
}

static void mrc_t_version255(u8 *buf, u32 *len)
{
	buf[MRC_WO_VERSION] = 0xff;
}

static void mrc_wire_rejects_bad_version(struct kunit *test)
{
	mrc_t_expect_reject(test, MRC_PKT_SEND, mrc_t_version0,
			    MRC_WIRE_E_BAD_VERSION);
	mrc_t_expect_reject(test, MRC_PKT_ACK, mrc_t_version2,
			    MRC_WIRE_E_BAD_VERSION);
	mrc_t_expect_reject(test, MRC_PKT_WRITE, mrc_t_version255,
			    MRC_WIRE_E_BAD_VERSION);
}

/* The ICRC catches every single-bit error, header, payload or trailer. */
static void mrc_wire_rejects_any_bit_flip(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	u8 payload[48];
	struct mrc_pkt p, out;
	u32 len, bit;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memset(payload, 0x3c, sizeof(payload));
	mrc_t_pkt(&p, MRC_PKT_WRITE, payload, sizeof(payload));
	len = mrc_t_encode(test, &p, buf);
	for (bit = 0; bit < len * 8; bit++) {
		buf[bit / 8] ^= 1u << (bit % 8);
		/* Version errors are reported before the ICRC is checked. */
		if (bit / 8 != MRC_WO_VERSION)
			KUNIT_EXPECT_EQ_MSG(test,
					    mrc_t_parse(test, buf, len, &out),
					    MRC_WIRE_E_BAD_CRC, "bit %u", bit);
		else
			KUNIT_EXPECT_NE(test, mrc_t_parse(test, buf, len, &out),
					MRC_WIRE_OK);
		buf[bit / 8] ^= 1u << (bit % 8);
	}
	KUNIT_EXPECT_EQ(test, mrc_t_parse(test, buf, len, &out), MRC_WIRE_OK);
}

static void mrc_t_type0(u8 *buf, u32 *len)
{
	buf[MRC_WO_TYPE] = 0;
}

static void mrc_t_type10(u8 *buf, u32 *len)
{
	buf[MRC_WO_TYPE] = MRC_PKT_TYPE_MAX + 1;
}

static void mrc_t_type255(u8 *buf, u32 *len)
{
	buf[MRC_WO_TYPE] = 0xff;
}

static void mrc_wire_rejects_unknown_type(struct kunit *test)
{
	mrc_t_expect_reject(test, MRC_PKT_SEND, mrc_t_type0,
			    MRC_WIRE_E_BAD_TYPE);
	mrc_t_expect_reject(test, MRC_PKT_SEND, mrc_t_type10,
			    MRC_WIRE_E_BAD_TYPE);
	mrc_t_expect_reject(test, MRC_PKT_ACK, mrc_t_type255,
			    MRC_WIRE_E_BAD_TYPE);
}

static void mrc_t_words_plus(u8 *buf, u32 *len)
{
	buf[MRC_WO_HDR_WORDS]++;
}

static void mrc_t_words_minus(u8 *buf, u32 *len)
{
	buf[MRC_WO_HDR_WORDS]--;
}

static void mrc_t_imm_flag_no_room(u8 *buf, u32 *len)
{
	/* IMM set but the header length still says "no immediate". */
	buf[MRC_WO_FLAGS + 1] |= MRC_F_IMM;
}

static void mrc_wire_rejects_bad_header_length(struct kunit *test)
{
	mrc_t_expect_reject(test, MRC_PKT_WRITE, mrc_t_words_plus,
			    MRC_WIRE_E_BAD_HDR_LEN);
	mrc_t_expect_reject(test, MRC_PKT_ACK, mrc_t_words_minus,
			    MRC_WIRE_E_BAD_HDR_LEN);
	mrc_t_expect_reject(test, MRC_PKT_SEND, mrc_t_imm_flag_no_room,
			    MRC_WIRE_E_BAD_HDR_LEN);
}

static void mrc_wire_rejects_reserved_flags(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	struct mrc_pkt p, out;
	u32 len;
	int bit;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	/* bit 8 is BUNDLES ([ENC-9]) */
	for (bit = 9; bit < 16; bit++) {
		mrc_t_pkt(&p, MRC_PKT_SEND, NULL, 0);
		len = mrc_t_encode(test, &p, buf);
		put_unaligned_be16(get_unaligned_be16(buf + MRC_WO_FLAGS) |
				   1u << bit, buf + MRC_WO_FLAGS);
		mrc_t_reseal(buf, len);
		KUNIT_EXPECT_EQ_MSG(test, mrc_t_parse(test, buf, len, &out),
				    MRC_WIRE_E_RESERVED, "flag bit %d", bit);
		/* and the encoder will not produce it either */
		p.flags |= 1u << bit;
		KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_RESERVED);
	}
}

static void mrc_wire_rejects_flags_foreign_to_type(struct kunit *test)
{
	struct mrc_pkt p;

	mrc_t_pkt(&p, MRC_PKT_READ_REQ, NULL, 0);
	p.flags |= MRC_F_IMM;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	mrc_t_pkt(&p, MRC_PKT_WRITE, (const u8 *)"x", 1);
	p.flags |= MRC_F_INV;	/* invalidate rides on SEND only */
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	mrc_t_pkt(&p, MRC_PKT_ACK, NULL, 0);
	p.flags = MRC_F_FIRST;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	mrc_t_pkt(&p, MRC_PKT_NAK, NULL, 0);
	p.flags = MRC_F_CE_ECHO;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	mrc_t_pkt(&p, MRC_PKT_SEND, (const u8 *)"x", 1);
	p.flags |= MRC_F_CE_ECHO;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	/* [PKT-31] BUNDLES on connection packets, never on a datagram */
	p.flags ^= MRC_F_CE_ECHO | MRC_F_BUNDLES;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_OK);
	mrc_t_pkt(&p, MRC_PKT_UD_SEND, (const u8 *)"x", 1);
	p.flags |= MRC_F_BUNDLES;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
}

/* [ENC-9] whole ACKs back to back are a bundle; nothing else is */
static void mrc_wire_ack_bundles(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	struct mrc_pkt p, out;
	u32 i, len = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	for (i = 0; i < 3; i++) {
		mrc_t_pkt(&p, MRC_PKT_ACK, NULL, 0);
		p.path_id = i;
		len += mrc_t_encode(test, &p, buf + len);
	}
	KUNIT_ASSERT_EQ(test, len, 3u * MRC_WIRE_ACK_PKT_LEN);
	KUNIT_EXPECT_EQ(test, mrc_wire_bundle_count(buf, len), 3u);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test,
				mrc_t_parse(test, buf + i * MRC_WIRE_ACK_PKT_LEN,
					    MRC_WIRE_ACK_PKT_LEN, &out),
				MRC_WIRE_OK);
		KUNIT_EXPECT_EQ(test, out.path_id, i);
	}
	KUNIT_EXPECT_EQ(test, mrc_wire_bundle_count(buf, MRC_WIRE_ACK_PKT_LEN),
			1u);
	KUNIT_EXPECT_EQ(test, mrc_wire_bundle_count(buf, len - 1), 1u);
	buf[MRC_WO_TYPE] = MRC_PKT_SEND;
	KUNIT_EXPECT_EQ(test, mrc_wire_bundle_count(buf, len), 1u);
}

static void mrc_wire_rejects_inconsistent_flags(struct kunit *test)
{
	u8 payload[8] = { 0 };
	struct mrc_pkt p;

	mrc_t_pkt(&p, MRC_PKT_SEND, payload, sizeof(payload));
	p.flags |= MRC_F_IMM | MRC_F_INV;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);

	/* Immediate data and solicited events belong to the last packet. */
	mrc_t_pkt(&p, MRC_PKT_SEND, payload, sizeof(payload));
	p.send.total_len = 16;
	p.flags = MRC_F_FIRST | MRC_F_IMM;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	p.flags = MRC_F_FIRST | MRC_F_SOLICITED;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	p.flags = MRC_F_FIRST;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_OK);

	/* FIRST if and only if offset 0; LAST iff the segment ends the message. */
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	p.flags = 0;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	p.send.offset = 8;
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	p.flags = MRC_F_LAST;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_OK);

	/* Single-packet requests carry FIRST and LAST. */
	mrc_t_pkt(&p, MRC_PKT_READ_REQ, NULL, 0);
	p.flags = MRC_F_FIRST;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	mrc_t_pkt(&p, MRC_PKT_ATOMIC, NULL, 0);
	p.flags = MRC_F_LAST;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
	mrc_t_pkt(&p, MRC_PKT_ATOMIC_RESP, NULL, 0);
	p.flags = 0;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FLAGS);
}

static void mrc_t_qpn_high(u8 *buf, u32 *len)
{
	buf[MRC_WO_DST_QPN] = 0x01;
}

static void mrc_t_ack_psn(u8 *buf, u32 *len)
{
	put_unaligned_be32(5, buf + MRC_WO_PSN);
}

static void mrc_t_write_rsn_no_imm(u8 *buf, u32 *len)
{
	/* only a WRITE with immediate consumes a receive */
	put_unaligned_be32(3, buf + MRC_WO_WRITE_RSN);
}

static void mrc_t_probe_stream(u8 *buf, u32 *len)
{
	put_unaligned_be16(1, buf + MRC_WO_STREAM_ID);
}

static void mrc_wire_rejects_reserved_fields(struct kunit *test)
{
	mrc_t_expect_reject(test, MRC_PKT_SEND, mrc_t_qpn_high,
			    MRC_WIRE_E_RESERVED);
	/* ACK, NAK and PROBE are not sequenced: their sequence fields are 0. */
	mrc_t_expect_reject(test, MRC_PKT_ACK, mrc_t_ack_psn,
			    MRC_WIRE_E_RESERVED);
	mrc_t_expect_reject(test, MRC_PKT_PROBE, mrc_t_probe_stream,
			    MRC_WIRE_E_RESERVED);
	mrc_t_expect_reject(test, MRC_PKT_WRITE, mrc_t_write_rsn_no_imm,
			    MRC_WIRE_E_RESERVED);
}

static void mrc_t_atomic_rsvd(u8 *buf, u32 *len)
{
	buf[MRC_WO_ATOMIC_OP + 2] = 1;
}

static void mrc_t_nak_rsvd(u8 *buf, u32 *len)
{
	buf[MRC_WO_NAK_CODE + 1] = 1;
}

static void mrc_t_probe_rsvd(u8 *buf, u32 *len)
{
	buf[MRC_WO_PROBE_RSVD] = 1;
}

static void mrc_wire_rejects_reserved_ext_bytes(struct kunit *test)
{
	mrc_t_expect_reject(test, MRC_PKT_ATOMIC, mrc_t_atomic_rsvd,
			    MRC_WIRE_E_RESERVED);
	mrc_t_expect_reject(test, MRC_PKT_NAK, mrc_t_nak_rsvd,
			    MRC_WIRE_E_RESERVED);
	mrc_t_expect_reject(test, MRC_PKT_PROBE, mrc_t_probe_rsvd,
			    MRC_WIRE_E_RESERVED);
}

static void mrc_t_append8(u8 *buf, u32 *len)
{
	/* Eight stray bytes between the header and the ICRC. */
	memset(buf + *len - MRC_WIRE_ICRC_LEN, 0xee, 8);
	*len += 8;
}

static void mrc_wire_rejects_payload_on_control(struct kunit *test)
{
	mrc_t_expect_reject(test, MRC_PKT_ACK, mrc_t_append8,
			    MRC_WIRE_E_BAD_LENGTH);
	mrc_t_expect_reject(test, MRC_PKT_NAK, mrc_t_append8,
			    MRC_WIRE_E_BAD_LENGTH);
	mrc_t_expect_reject(test, MRC_PKT_READ_REQ, mrc_t_append8,
			    MRC_WIRE_E_BAD_LENGTH);
	mrc_t_expect_reject(test, MRC_PKT_ATOMIC, mrc_t_append8,
			    MRC_WIRE_E_BAD_LENGTH);
}

static void mrc_wire_rejects_bad_segments(struct kunit *test)
{
	u8 payload[64] = { 0 };
	struct mrc_pkt p;

	/* Segment ends past the message. */
	mrc_t_pkt(&p, MRC_PKT_WRITE, payload, sizeof(payload));
	p.write.total_len = 63;
	p.flags = MRC_F_FIRST;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_OFFSET);

	/* Offset near 2^32 must not wrap into range. */
	mrc_t_pkt(&p, MRC_PKT_SEND, payload, sizeof(payload));
	p.send.offset = 0xffffffe0;
	p.send.total_len = 0x80000000;
	p.flags = 0;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_OFFSET);

	/* Messages are at most 2^31 bytes. */
	mrc_t_pkt(&p, MRC_PKT_READ_RESP, payload, sizeof(payload));
	p.read_resp.total_len = MRC_WIRE_MAX_MSG_LEN + 1;
	p.flags = MRC_F_FIRST;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_LENGTH);
	p.read_resp.total_len = MRC_WIRE_MAX_MSG_LEN;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_OK);

	/* An empty segment of a non-empty message says nothing. */
	mrc_t_pkt(&p, MRC_PKT_SEND, NULL, 0);
	p.send.total_len = 10;
	p.flags = MRC_F_FIRST;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_LENGTH);
}

static void mrc_wire_rejects_wrapping_addresses(struct kunit *test)
{
	u8 payload[16] = { 0 };
	struct mrc_pkt p;

	mrc_t_pkt(&p, MRC_PKT_WRITE, payload, sizeof(payload));
	p.write.va = ~0ull - 14;	/* 16 bytes from here wrap */
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_VA_OVERFLOW);
	p.write.va = ~0ull - 15;	/* ends exactly at 2^64 */
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_OK);

	mrc_t_pkt(&p, MRC_PKT_READ_REQ, NULL, 0);
	p.read_req.va = ~0ull - p.read_req.len + 2;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_VA_OVERFLOW);
	p.read_req.va = 0;
	p.read_req.len = MRC_WIRE_MAX_MSG_LEN + 1;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_LENGTH);

	mrc_t_pkt(&p, MRC_PKT_ATOMIC, NULL, 0);
	p.atomic.va = ~0ull - 6;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_VA_OVERFLOW);
	p.atomic.va = ~0ull - 7;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_OK);
}

static void mrc_wire_rejects_bad_enum_values(struct kunit *test)
{
	struct mrc_pkt p;

	mrc_t_pkt(&p, MRC_PKT_ATOMIC, NULL, 0);
	p.atomic.op = 0;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FIELD);
	p.atomic.op = 3;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FIELD);
	p.atomic.op = MRC_ATOMIC_FETCH_ADD;
	p.atomic.compare = 1;	/* meaningless for fetch-and-add */
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_RESERVED);

	mrc_t_pkt(&p, MRC_PKT_NAK, NULL, 0);
	p.nak.code = 0;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FIELD);
	p.nak.code = MRC_NAK_CODE_MAX + 1;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FIELD);
	p.nak.code = MRC_NAK_ACCESS;
	p.nak.arg = 10;		/* only RNR carries an argument */
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_RESERVED);

	mrc_t_pkt(&p, MRC_PKT_PROBE, NULL, 0);
	p.probe.kind = 3;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FIELD);
	p.probe.kind = MRC_PROBE_REQ;
	p.probe.min_ver = 0;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FIELD);
	p.probe.min_ver = 2;
	p.probe.max_ver = 1;
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_BAD_FIELD);
	p.probe.min_ver = 1;
	p.probe.echo_len = 100;	/* a request echoes nothing */
	KUNIT_EXPECT_EQ(test, mrc_wire_check(&p), MRC_WIRE_E_RESERVED);
}

/* ---- encoder contract ---- */

static void mrc_wire_encode_refuses_without_writing(struct kunit *test)
{
	u8 *buf = kunit_kmalloc(test, MRC_T_BUF, GFP_KERNEL);
	u8 payload[16] = { 0 };
	struct mrc_pkt p;
	u32 len = 0x1234, i, need;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memset(buf, 0xa5, MRC_T_BUF);
	mrc_t_pkt(&p, MRC_PKT_NAK, NULL, 0);
	p.nak.code = 0;
	KUNIT_EXPECT_EQ(test, mrc_wire_encode(&p, buf, MRC_T_BUF, &len),
			MRC_WIRE_E_BAD_FIELD);
	KUNIT_EXPECT_EQ(test, len, 0x1234u);
	for (i = 0; i < MRC_T_BUF; i++)
		KUNIT_ASSERT_EQ(test, buf[i], 0xa5);

	/* Exactly enough room works; one byte less is refused untouched. */
	mrc_t_pkt(&p, MRC_PKT_SEND, payload, sizeof(payload));
	need = mrc_wire_hdr_len(&p) + sizeof(payload) + MRC_WIRE_ICRC_LEN;
	KUNIT_EXPECT_EQ(test, mrc_wire_encode(&p, buf, need - 1, &len),
			MRC_WIRE_E_NO_SPACE);
	for (i = 0; i < MRC_T_BUF; i++)
		KUNIT_ASSERT_EQ(test, buf[i], 0xa5);
	KUNIT_EXPECT_EQ(test, mrc_wire_encode(&p, buf, need, &len),
			MRC_WIRE_OK);
	KUNIT_EXPECT_EQ(test, len, need);
	KUNIT_EXPECT_EQ(test, buf[need], 0xa5);
	KUNIT_EXPECT_EQ(test, mrc_wire_encode_hdr(&p, buf,
						  mrc_wire_hdr_len(&p) - 1,
						  &len),
			MRC_WIRE_E_NO_SPACE);
}

/* ---- partial (non-linear skb) parsing ---- */

static void mrc_wire_parse_hdr_partial(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MRC_T_BUF, GFP_KERNEL);
	u8 payload[200];
	struct mrc_pkt p, out;
	u32 len, hdr;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memset(payload, 0x42, sizeof(payload));
	mrc_t_pkt(&p, MRC_PKT_WRITE, payload, sizeof(payload));
	len = mrc_t_encode(test, &p, buf);
	hdr = mrc_wire_hdr_len(&p);

	/* Only the headers are linear: valid, payload not reachable. */
	KUNIT_EXPECT_EQ(test, mrc_wire_parse_hdr(buf, hdr, len, &out),
			MRC_WIRE_OK);
	KUNIT_EXPECT_NULL(test, out.payload);
	KUNIT_EXPECT_EQ(test, out.payload_len, (u32)sizeof(payload));
	KUNIT_EXPECT_EQ(test, out.write.va, p.write.va);

	/* Everything linear: the payload points into the buffer. */
	KUNIT_EXPECT_EQ(test, mrc_wire_parse_hdr(buf, len, len, &out),
			MRC_WIRE_OK);
	KUNIT_EXPECT_PTR_EQ(test, out.payload, (const u8 *)buf + hdr);

	/* Fewer linear bytes than the header: truncated, not guessed. */
	KUNIT_EXPECT_EQ(test, mrc_wire_parse_hdr(buf, hdr - 1, len, &out),
			MRC_WIRE_E_TRUNCATED);

	/* The ICRC is the caller's job here: a bad trailer still parses... */
	buf[len - 1] ^= 0xff;
	KUNIT_EXPECT_EQ(test, mrc_wire_parse_hdr(buf, len, len, &out),
			MRC_WIRE_OK);
	/* ...and the whole-packet parser catches it. */
	KUNIT_EXPECT_EQ(test, mrc_t_parse(test, buf, len, &out),
			MRC_WIRE_E_BAD_CRC);
}

/* ---- small helpers ---- */

static void mrc_wire_reason_names(struct kunit *test)
{
	int i, j;

	for (i = 0; i < MRC_WIRE_REASON_COUNT; i++) {
		const char *a = mrc_wire_reason_str(i);

		KUNIT_ASSERT_NOT_NULL(test, a);
		KUNIT_EXPECT_STRNEQ(test, a, "unknown");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, a, mrc_wire_reason_str(j));
	}
	KUNIT_EXPECT_STREQ(test, mrc_wire_reason_str(MRC_WIRE_REASON_COUNT),
			   "unknown");
	KUNIT_EXPECT_STREQ(test, mrc_wire_reason_str(-1), "unknown");
}

static void mrc_wire_ext_lengths(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mrc_wire_ext_len(0), 0u);
	KUNIT_EXPECT_EQ(test, mrc_wire_ext_len(MRC_PKT_SEND),
			(u32)MRC_WIRE_SEND_LEN);
	KUNIT_EXPECT_EQ(test, mrc_wire_ext_len(MRC_PKT_WRITE),
			(u32)MRC_WIRE_WRITE_LEN);
	KUNIT_EXPECT_EQ(test, mrc_wire_ext_len(MRC_PKT_ACK),
			(u32)MRC_WIRE_ACK_LEN);
	KUNIT_EXPECT_EQ(test, mrc_wire_ext_len(MRC_PKT_PROBE),
			(u32)MRC_WIRE_PROBE_LEN);
	/* every extension keeps the header a whole number of words */
	KUNIT_EXPECT_EQ(test, MRC_WIRE_WRITE_LEN % 4, 0);
	KUNIT_EXPECT_EQ(test, MRC_WIRE_ATOMIC_LEN % 4, 0);
	KUNIT_EXPECT_EQ(test, mrc_wire_ext_len(MRC_PKT_TYPE_MAX + 1), 0u);
	KUNIT_EXPECT_EQ(test, mrc_wire_ext_len(0xff), 0u);
}

static void mrc_wire_seq_arithmetic_wraps(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mrc_seq_before(1, 2));
	KUNIT_EXPECT_FALSE(test, mrc_seq_before(2, 2));
	KUNIT_EXPECT_TRUE(test, mrc_seq_before(0xfffffff0u, 5));
	KUNIT_EXPECT_TRUE(test, mrc_seq_after(5, 0xfffffff0u));
	KUNIT_EXPECT_FALSE(test, mrc_seq_after(0xfffffff0u, 5));
	KUNIT_EXPECT_TRUE(test, mrc_seq_before(0x7fffffffu, 0x80000000u));
}

/* ---- connection setup private data ---- */

static void mrc_t_hello(struct mrc_hello *h)
{
	h->min_ver = 1;
	h->max_ver = 1;
	h->max_paths = 16;
	h->seg_shift = 12;
	h->caps = MRC_CAP_ATOMIC | MRC_CAP_RATE_HINT;
	h->cookie = 0x600dcafe;
	h->udp_port = MRC_WIRE_UDP_PORT;
	h->max_streams = 64;
}

static void mrc_wire_hello_roundtrip(struct kunit *test)
{
	u8 buf[MRC_HELLO_LEN];
	struct mrc_hello h, out;

	mrc_t_hello(&h);
	KUNIT_ASSERT_EQ(test, mrc_hello_encode(&h, buf, sizeof(buf)),
			MRC_WIRE_OK);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf), 0x4d524345u);
	KUNIT_ASSERT_EQ(test, mrc_hello_parse(buf, sizeof(buf), &out),
			MRC_WIRE_OK);
	KUNIT_EXPECT_EQ(test, out.min_ver, h.min_ver);
	KUNIT_EXPECT_EQ(test, out.max_ver, h.max_ver);
	KUNIT_EXPECT_EQ(test, out.max_paths, h.max_paths);
	KUNIT_EXPECT_EQ(test, out.seg_shift, h.seg_shift);
	KUNIT_EXPECT_EQ(test, out.caps, h.caps);
	KUNIT_EXPECT_EQ(test, out.cookie, h.cookie);
	KUNIT_EXPECT_EQ(test, out.udp_port, h.udp_port);
	KUNIT_EXPECT_EQ(test, out.max_streams, h.max_streams);
	KUNIT_EXPECT_EQ(test, mrc_hello_encode(&h, buf, sizeof(buf) - 1),
			MRC_WIRE_E_NO_SPACE);
}

static void mrc_wire_hello_rejects(struct kunit *test)
{
	u8 buf[MRC_HELLO_LEN], bad[MRC_HELLO_LEN];
	struct mrc_hello h, out;
	int i;

	mrc_t_hello(&h);
	KUNIT_ASSERT_EQ(test, mrc_hello_encode(&h, buf, sizeof(buf)),
			MRC_WIRE_OK);
	for (i = 0; i < MRC_HELLO_LEN; i++)
		KUNIT_EXPECT_EQ(test, mrc_hello_parse(buf, i, &out),
				MRC_WIRE_E_TRUNCATED);

	memcpy(bad, buf, sizeof(bad));
	bad[MRC_WO_HELLO_MAGIC] ^= 0x20;
	KUNIT_EXPECT_EQ(test, mrc_hello_parse(bad, sizeof(bad), &out),
			MRC_WIRE_E_BAD_FIELD);
	for (i = MRC_WO_HELLO_RSVD; i < MRC_HELLO_LEN; i++) {
		memcpy(bad, buf, sizeof(bad));
		bad[i] = 1;
		KUNIT_EXPECT_EQ(test, mrc_hello_parse(bad, sizeof(bad), &out),
				MRC_WIRE_E_RESERVED);
	}
	memcpy(bad, buf, sizeof(bad));
	bad[MRC_WO_HELLO_SEG_SHIFT] = MRC_HELLO_SEG_SHIFT_MAX + 1;
	KUNIT_EXPECT_EQ(test, mrc_hello_parse(bad, sizeof(bad), &out),
			MRC_WIRE_E_BAD_FIELD);
	memcpy(bad, buf, sizeof(bad));
	bad[MRC_WO_HELLO_MAX_PATHS] = 0;
	KUNIT_EXPECT_EQ(test, mrc_hello_parse(bad, sizeof(bad), &out),
			MRC_WIRE_E_BAD_FIELD);
	memcpy(bad, buf, sizeof(bad));
	bad[MRC_WO_HELLO_MIN_VER] = 2;	/* min > max */
	KUNIT_EXPECT_EQ(test, mrc_hello_parse(bad, sizeof(bad), &out),
			MRC_WIRE_E_BAD_FIELD);

	memcpy(bad, buf, sizeof(bad));
	put_unaligned_be16(0, bad + MRC_WO_HELLO_MAX_STREAMS);
	KUNIT_EXPECT_EQ(test, mrc_hello_parse(bad, sizeof(bad), &out),
			MRC_WIRE_E_BAD_FIELD);

	h.seg_shift = MRC_HELLO_SEG_SHIFT_MIN - 1;
	KUNIT_EXPECT_EQ(test, mrc_hello_encode(&h, buf, sizeof(buf)),
			MRC_WIRE_E_BAD_FIELD);
}

static struct kunit_case mrc_wire_cases[] = {
	KUNIT_CASE(mrc_wire_send_roundtrip),
	KUNIT_CASE(mrc_wire_send_imm_roundtrip),
	KUNIT_CASE(mrc_wire_send_inv_roundtrip),
	KUNIT_CASE(mrc_wire_empty_send_roundtrip),
	KUNIT_CASE(mrc_wire_write_middle_segment_roundtrip),
	KUNIT_CASE(mrc_wire_read_roundtrip),
	KUNIT_CASE(mrc_wire_atomic_roundtrip),
	KUNIT_CASE(mrc_wire_ack_roundtrip),
	KUNIT_CASE(mrc_wire_nak_probe_roundtrip),
	KUNIT_CASE(mrc_wire_layout_is_big_endian),
	KUNIT_CASE(mrc_wire_encode_hdr_matches_encode),
	KUNIT_CASE(mrc_wire_parse_is_canonical),
	KUNIT_CASE(mrc_wire_rejects_every_truncation),
	KUNIT_CASE(mrc_wire_rejects_sealed_short_header),
	KUNIT_CASE(mrc_wire_rejects_too_long),
	KUNIT_CASE(mrc_wire_rejects_bad_version),
	KUNIT_CASE(mrc_wire_rejects_any_bit_flip),
	KUNIT_CASE(mrc_wire_rejects_unknown_type),
	KUNIT_CASE(mrc_wire_rejects_bad_header_length),
	KUNIT_CASE(mrc_wire_rejects_reserved_flags),
	KUNIT_CASE(mrc_wire_rejects_flags_foreign_to_type),
	KUNIT_CASE(mrc_wire_ack_bundles),
	KUNIT_CASE(mrc_wire_rejects_inconsistent_flags),
	KUNIT_CASE(mrc_wire_rejects_reserved_fields),
	KUNIT_CASE(mrc_wire_rejects_reserved_ext_bytes),
	KUNIT_CASE(mrc_wire_rejects_payload_on_control),
	KUNIT_CASE(mrc_wire_rejects_bad_segments),
	KUNIT_CASE(mrc_wire_rejects_wrapping_addresses),
	KUNIT_CASE(mrc_wire_rejects_bad_enum_values),
	KUNIT_CASE(mrc_wire_encode_refuses_without_writing),
	KUNIT_CASE(mrc_wire_parse_hdr_partial),
	KUNIT_CASE(mrc_wire_reason_names),
	KUNIT_CASE(mrc_wire_ext_lengths),
	KUNIT_CASE(mrc_wire_seq_arithmetic_wraps),
	KUNIT_CASE(mrc_wire_hello_roundtrip),
	KUNIT_CASE(mrc_wire_hello_rejects),
	{}
};

static struct kunit_suite mrc_wire_suite = {
	.name = "metaroce_wire",
	.test_cases = mrc_wire_cases,
};

kunit_test_suite(mrc_wire_suite);
