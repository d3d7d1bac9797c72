// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Encode/parse round trips, exact layouts and sizes of every packet type.
// Rule numbers refer to Documentation/protocol/packets.rst (PKT),
// encapsulation.rst (ENC) and integrity.rst (INT).
#include <gtest/gtest.h>

#include "wire_samples.h"

using namespace mrc_test;

namespace {

void expect_same(const mrc_pkt &a, const mrc_pkt &b)
{
	EXPECT_EQ(a.type, b.type);
	EXPECT_EQ(a.path_id, b.path_id);
	EXPECT_EQ(a.flags, b.flags);
	EXPECT_EQ(a.stream_id, b.stream_id);
	EXPECT_EQ(a.dst_qpn, b.dst_qpn);
	EXPECT_EQ(a.psn, b.psn);
	EXPECT_EQ(a.msn, b.msn);
	EXPECT_EQ(a.ssn, b.ssn);
	EXPECT_EQ(a.tsval, b.tsval);
	EXPECT_EQ(a.cookie, b.cookie);
	if (a.flags & (MRC_F_IMM | MRC_F_INV)) {
		EXPECT_EQ(a.imm, b.imm);
	}
	EXPECT_EQ(a.payload_len, b.payload_len);
	switch (a.type) {
	case MRC_PKT_SEND:
		EXPECT_EQ(a.send.rsn, b.send.rsn);
		EXPECT_EQ(a.send.offset, b.send.offset);
		EXPECT_EQ(a.send.total_len, b.send.total_len);
		break;
	case MRC_PKT_WRITE:
		EXPECT_EQ(a.write.va, b.write.va);
		EXPECT_EQ(a.write.rkey, b.write.rkey);
		EXPECT_EQ(a.write.offset, b.write.offset);
		EXPECT_EQ(a.write.total_len, b.write.total_len);
		EXPECT_EQ(a.write.rsn, b.write.rsn);
		break;
	case MRC_PKT_READ_REQ:
		EXPECT_EQ(a.read_req.va, b.read_req.va);
		EXPECT_EQ(a.read_req.rkey, b.read_req.rkey);
		EXPECT_EQ(a.read_req.len, b.read_req.len);
		EXPECT_EQ(a.read_req.resp_tag, b.read_req.resp_tag);
		break;
	case MRC_PKT_READ_RESP:
		EXPECT_EQ(a.read_resp.resp_tag, b.read_resp.resp_tag);
		EXPECT_EQ(a.read_resp.offset, b.read_resp.offset);
		EXPECT_EQ(a.read_resp.total_len, b.read_resp.total_len);
		break;
	case MRC_PKT_ATOMIC:
		EXPECT_EQ(a.atomic.va, b.atomic.va);
		EXPECT_EQ(a.atomic.swap_add, b.atomic.swap_add);
		EXPECT_EQ(a.atomic.compare, b.atomic.compare);
		EXPECT_EQ(a.atomic.rkey, b.atomic.rkey);
		EXPECT_EQ(a.atomic.op, b.atomic.op);
		break;
	case MRC_PKT_ATOMIC_RESP:
		EXPECT_EQ(a.atomic_resp.orig, b.atomic_resp.orig);
		break;
	case MRC_PKT_ACK:
		EXPECT_EQ(a.ack.cum_psn, b.ack.cum_psn);
		EXPECT_EQ(a.ack.tsecr, b.ack.tsecr);
		EXPECT_EQ(a.ack.ack_delay, b.ack.ack_delay);
		EXPECT_EQ(a.ack.ce_count, b.ack.ce_count);
		EXPECT_EQ(a.ack.msn_ack, b.ack.msn_ack);
		EXPECT_EQ(a.ack.rsn_limit, b.ack.rsn_limit);
		EXPECT_EQ(a.ack.rate_hint, b.ack.rate_hint);
		EXPECT_EQ(a.ack.rx_max, b.ack.rx_max);
		for (int i = 0; i < MRC_WIRE_SACK_WORDS; i++)
			EXPECT_EQ(a.ack.sack[i], b.ack.sack[i]) << i;
		break;
	case MRC_PKT_NAK:
		EXPECT_EQ(a.nak.code, b.nak.code);
		EXPECT_EQ(a.nak.psn, b.nak.psn);
		EXPECT_EQ(a.nak.msn, b.nak.msn);
		EXPECT_EQ(a.nak.arg, b.nak.arg);
		break;
	case MRC_PKT_PROBE:
		EXPECT_EQ(a.probe.kind, b.probe.kind);
		EXPECT_EQ(a.probe.min_ver, b.probe.min_ver);
		EXPECT_EQ(a.probe.max_ver, b.probe.max_ver);
		EXPECT_EQ(a.probe.seq, b.probe.seq);
		EXPECT_EQ(a.probe.tsecr, b.probe.tsecr);
		EXPECT_EQ(a.probe.caps, b.probe.caps);
		EXPECT_EQ(a.probe.echo_len, b.probe.echo_len);
		break;
	case MRC_PKT_UD_SEND:
		EXPECT_EQ(a.ud.qkey, b.ud.qkey);
		EXPECT_EQ(a.ud.src_qpn, b.ud.src_qpn);
		break;
	default:
		ADD_FAILURE() << "unknown type";
	}
}

} // namespace

// [PKT-10] [PKT-20] [PKT-21]: every type and variant survives a round trip,
// and re-encoding the parsed packet reproduces the exact bytes.
TEST(WireCodec, RoundTripEveryTypeAndVariant)
{
	bool seen[MRC_PKT_TYPE_MAX + 1] = {};

	for (const auto &s : wire_samples()) {
		SCOPED_TRACE(s.name);
		ASSERT_EQ(mrc_wire_check(&s.pkt), MRC_WIRE_OK);
		auto bytes = encode(s.pkt);
		ASSERT_FALSE(bytes.empty());
		mrc_pkt out;
		ASSERT_EQ(mrc_wire_parse(bytes.data(), (u32)bytes.size(), &out),
			  MRC_WIRE_OK);
		expect_same(s.pkt, out);
		EXPECT_EQ(out.hdr_len, mrc_wire_hdr_len(&s.pkt));
		ASSERT_EQ(out.payload_len, s.payload.size());
		if (out.payload_len) {
			EXPECT_EQ(0, memcmp(out.payload, s.payload.data(),
					    out.payload_len));
		}
		EXPECT_EQ(encode(out), bytes);
		seen[s.pkt.type] = true;
	}
	for (int t = 1; t <= MRC_PKT_TYPE_MAX; t++)
		EXPECT_TRUE(seen[t]) << "no sample of type " << t;
}

// [PKT-21] header sizes per type; [ENC-20] the data overhead the kernel
// subtracts from the MTU is the largest data header plus the ICRC.
TEST(WireCodec, HeaderSizes)
{
	struct {
		u8 type;
		u32 ext;
	} want[] = {
		{MRC_PKT_SEND, 12},	 {MRC_PKT_WRITE, 24},
		{MRC_PKT_READ_REQ, 20},	 {MRC_PKT_READ_RESP, 12},
		{MRC_PKT_ATOMIC, 32},	 {MRC_PKT_ATOMIC_RESP, 8},
		{MRC_PKT_ACK, 64},	 {MRC_PKT_NAK, 16},
		{MRC_PKT_PROBE, 20},	 {MRC_PKT_UD_SEND, 8},
	};
	for (auto w : want) {
		EXPECT_EQ(mrc_wire_ext_len(w.type), w.ext) << int(w.type);
		mrc_pkt p = blank(w.type);
		EXPECT_EQ(mrc_wire_hdr_len(&p), 32 + w.ext);
		EXPECT_EQ((32 + w.ext) % 4, 0u);
	}
	EXPECT_EQ(mrc_wire_ext_len(0), 0u);
	EXPECT_EQ(mrc_wire_ext_len(MRC_PKT_TYPE_MAX + 1), 0u);
	EXPECT_EQ(mrc_wire_ext_len(255), 0u);
	EXPECT_EQ(MRC_WIRE_DATA_OVERHEAD, 64);
	EXPECT_EQ(MRC_WIRE_MAX_HDR_LEN, 96);
	// 1500-byte IPv6 MTU leaves room for a 1024-byte segment, 9000 for 8192.
	EXPECT_GE(1500 - MRC_WIRE_IPV6_LEN - MRC_WIRE_UDP_LEN -
			  MRC_WIRE_DATA_OVERHEAD, 1024);
	EXPECT_GE(9000 - MRC_WIRE_IPV6_LEN - MRC_WIRE_UDP_LEN -
			  MRC_WIRE_DATA_OVERHEAD, 8192);
}

// [PKT-1] [PKT-10] [PKT-40] [INT-1] [INT-2]: the bytes, written out by hand
// from the diagrams in packets.rst, so encoder and parser cannot agree on
// a layout the specification does not describe.
TEST(WireCodec, GoldenSendBytes)
{
	const u8 payload[4] = {0xaa, 0xbb, 0xcc, 0xdd};
	std::vector<u8> want = {
		0x01, 0x01, 0x0c, 0x02,	// version 1, SEND, 12 words, path 2
		0x00, 0x17, 0x00, 0x05,	// FIRST|LAST|IMM|SOLICITED, stream 5
		0x00, 0x12, 0x34, 0x56,	// dst QPN 0x123456
		0x01, 0x02, 0x03, 0x04,	// PSN
		0x00, 0x00, 0x00, 0x09,	// MSN
		0x00, 0x00, 0x00, 0x03,	// SSN
		0x0a, 0x0b, 0x0c, 0x0d,	// tsval
		0xfe, 0xed, 0xbe, 0xef,	// cookie
		0x00, 0x00, 0x00, 0x11,	// RSN
		0x00, 0x00, 0x00, 0x00,	// offset
		0x00, 0x00, 0x00, 0x04,	// total length
		0xca, 0xfe, 0xba, 0xbe,	// immediate
		0xaa, 0xbb, 0xcc, 0xdd,	// payload
	};
	u32 crc = mrc_wire_icrc(want.data(), (u32)want.size());
	want.push_back((u8)(crc >> 24));
	want.push_back((u8)(crc >> 16));
	want.push_back((u8)(crc >> 8));
	want.push_back((u8)crc);

	mrc_pkt p = blank(MRC_PKT_SEND);
	p.path_id = 2;
	p.flags = MRC_F_FIRST | MRC_F_LAST | MRC_F_IMM | MRC_F_SOLICITED;
	p.stream_id = 5;
	p.dst_qpn = 0x123456;
	p.psn = 0x01020304;
	p.msn = 9;
	p.ssn = 3;
	p.tsval = 0x0a0b0c0d;
	p.cookie = 0xfeedbeef;
	p.send = {0x11, 0, 4};
	p.imm = 0xcafebabe;
	p.payload = payload;
	p.payload_len = 4;
	EXPECT_EQ(encode(p), want);
}

// [PKT-60] [PKT-61]: ACK layout and SACK word/bit order.
TEST(WireCodec, GoldenAckBytes)
{
	mrc_pkt p = blank(MRC_PKT_ACK);
	p.path_id = 0x7f;
	p.ack.cum_psn = 0x10;
	p.ack.tsecr = 0x20;
	p.ack.ack_delay = 0x30;
	p.ack.ce_count = 0x40;
	p.ack.msn_ack = 0x50;
	p.ack.rsn_limit = 0x60;
	p.ack.rate_hint = 0x70;
	p.ack.rx_max = 0x80;
	p.ack.sack[0] = 0x1;	// PSN cum+1
	p.ack.sack[3] = 1ull << 63;	// PSN cum+256
	auto b = encode(p);
	ASSERT_EQ(b.size(), 100u);
	EXPECT_EQ(b[2], 96 / 4);
	EXPECT_EQ(b[3], 0x7f);
	for (int i = 12; i < 24; i++)
		EXPECT_EQ(b[i], 0) << "PSN/MSN/SSN of an ACK are zero " << i;
	const u8 ext[] = {0, 0, 0, 0x10, 0, 0, 0, 0x20, 0, 0, 0, 0x30,
			  0, 0, 0, 0x40, 0, 0, 0, 0x50, 0, 0, 0, 0x60,
			  0, 0, 0, 0x70, 0, 0, 0, 0x80};
	EXPECT_EQ(0, memcmp(b.data() + 32, ext, sizeof(ext)));
	EXPECT_EQ(b[64 + 7], 0x01);	// word 0 is big-endian, LSB last
	EXPECT_EQ(b[64 + 24], 0x80);	// word 3 MSB first
	for (int i = 64; i < 96; i++)
		if (i != 64 + 7 && i != 64 + 24) {
			EXPECT_EQ(b[i], 0) << i;
		}
}

// [PKT-10] [PKT-40] [PKT-45] [PKT-50] [PKT-51] [PKT-55] [PKT-57] [PKT-60]
// [PKT-70] [PKT-75] [PKT-90]: the offsets of wire.h are the ones the
// diagrams in packets.rst give, written here as plain numbers.
TEST(WireCodec, OffsetsMatchSpecDiagrams)
{
	const std::pair<int, int> want[] = {
		{MRC_WO_VERSION, 0},	     {MRC_WO_TYPE, 1},
		{MRC_WO_HDR_WORDS, 2},	     {MRC_WO_PATH_ID, 3},
		{MRC_WO_FLAGS, 4},	     {MRC_WO_STREAM_ID, 6},
		{MRC_WO_DST_QPN, 8},	     {MRC_WO_PSN, 12},
		{MRC_WO_MSN, 16},	     {MRC_WO_SSN, 20},
		{MRC_WO_TSVAL, 24},	     {MRC_WO_COOKIE, 28},
		{MRC_WO_SEND_RSN, 32},	     {MRC_WO_SEND_OFFSET, 36},
		{MRC_WO_SEND_TOTAL, 40},     {MRC_WO_WRITE_VA, 32},
		{MRC_WO_WRITE_RKEY, 40},     {MRC_WO_WRITE_OFFSET, 44},
		{MRC_WO_WRITE_TOTAL, 48},    {MRC_WO_WRITE_RSN, 52},
		{MRC_WO_RREQ_VA, 32},	     {MRC_WO_RREQ_RKEY, 40},
		{MRC_WO_RREQ_LEN, 44},	     {MRC_WO_RREQ_TAG, 48},
		{MRC_WO_RRESP_TAG, 32},	     {MRC_WO_RRESP_OFFSET, 36},
		{MRC_WO_RRESP_TOTAL, 40},    {MRC_WO_ATOMIC_VA, 32},
		{MRC_WO_ATOMIC_SWAP_ADD, 40}, {MRC_WO_ATOMIC_COMPARE, 48},
		{MRC_WO_ATOMIC_RKEY, 56},    {MRC_WO_ATOMIC_OP, 60},
		{MRC_WO_ARESP_ORIG, 32},     {MRC_WO_ACK_CUM_PSN, 32},
		{MRC_WO_ACK_TSECR, 36},	     {MRC_WO_ACK_DELAY, 40},
		{MRC_WO_ACK_CE_COUNT, 44},   {MRC_WO_ACK_MSN, 48},
		{MRC_WO_ACK_RSN_LIMIT, 52},  {MRC_WO_ACK_RATE, 56},
		{MRC_WO_ACK_RX_MAX, 60},	     {MRC_WO_ACK_SACK, 64},
		{MRC_WO_NAK_CODE, 32},	     {MRC_WO_NAK_PSN, 36},
		{MRC_WO_NAK_MSN, 40},	     {MRC_WO_NAK_ARG, 44},
		{MRC_WO_PROBE_KIND, 32},     {MRC_WO_PROBE_MIN_VER, 33},
		{MRC_WO_PROBE_MAX_VER, 34},  {MRC_WO_PROBE_RSVD, 35},
		{MRC_WO_PROBE_SEQ, 36},	     {MRC_WO_PROBE_TSECR, 40},
		{MRC_WO_PROBE_CAPS, 44},     {MRC_WO_PROBE_ECHO_LEN, 48},
		{MRC_WO_HELLO_MAGIC, 0},     {MRC_WO_HELLO_MIN_VER, 4},
		{MRC_WO_HELLO_MAX_VER, 5},   {MRC_WO_HELLO_MAX_PATHS, 6},
		{MRC_WO_HELLO_SEG_SHIFT, 7}, {MRC_WO_HELLO_CAPS, 8},
		{MRC_WO_HELLO_COOKIE, 12},   {MRC_WO_HELLO_UDP_PORT, 16},
		{MRC_WO_HELLO_MAX_STREAMS, 18}, {MRC_WO_HELLO_RSVD, 20},
	};
	for (auto [got, spec] : want)
		EXPECT_EQ(got, spec);
	// [PKT-30] flag bits, [PKT-20] types, [PKT-56] [PKT-71] [PKT-75] codes
	EXPECT_EQ(MRC_F_FIRST, 1 << 0);
	EXPECT_EQ(MRC_F_LAST, 1 << 1);
	EXPECT_EQ(MRC_F_IMM, 1 << 2);
	EXPECT_EQ(MRC_F_INV, 1 << 3);
	EXPECT_EQ(MRC_F_SOLICITED, 1 << 4);
	EXPECT_EQ(MRC_F_ACK_REQ, 1 << 5);
	EXPECT_EQ(MRC_F_RETX, 1 << 6);
	EXPECT_EQ(MRC_F_CE_ECHO, 1 << 7);
	EXPECT_EQ(MRC_PKT_SEND, 1);
	EXPECT_EQ(MRC_PKT_PROBE, 9);
	EXPECT_EQ(MRC_ATOMIC_CMP_SWAP, 1);
	EXPECT_EQ(MRC_ATOMIC_FETCH_ADD, 2);
	EXPECT_EQ(MRC_NAK_ACCESS, 1);
	EXPECT_EQ(MRC_NAK_SEQ, 5);
	EXPECT_EQ(MRC_PROBE_RESP, 2);
	// [ENC-2] [ENC-3] [ENC-15]
	EXPECT_EQ(MRC_WIRE_UDP_PORT, 61791);
	EXPECT_EQ(MRC_WIRE_SPORT_MIN, 49152);
	EXPECT_EQ(MRC_WIRE_DSCP_DATA, 26);
	EXPECT_EQ(MRC_WIRE_DSCP_CTRL, 48);
}

// [PKT-45] [PKT-47]: a WRITE with immediate, byte by byte.
TEST(WireCodec, GoldenWriteImmBytes)
{
	const u8 payload[2] = {0x5a, 0xa5};
	mrc_pkt p = blank(MRC_PKT_WRITE);
	p.flags = MRC_F_LAST | MRC_F_IMM;
	p.write = {0x0102030405060708ull, 0x0a0b0c0d, 6, 8, 0x21};
	p.imm = 0x31323334;
	p.payload = payload;
	p.payload_len = 2;
	auto b = encode(p);
	ASSERT_EQ(b.size(), 60u + 2 + 4);
	EXPECT_EQ(b[1], MRC_PKT_WRITE);
	EXPECT_EQ(b[2], 60 / 4);
	const u8 ext[] = {1, 2, 3, 4, 5, 6, 7, 8,  0x0a, 0x0b, 0x0c, 0x0d,
			  0, 0, 0, 6, 0, 0, 0, 8,  0, 0, 0, 0x21,
			  0x31, 0x32, 0x33, 0x34, 0x5a, 0xa5};
	EXPECT_EQ(0, memcmp(b.data() + 32, ext, sizeof(ext)));
}

// [PKT-90] CM private data round trip and validation.
TEST(WireCodec, HelloRoundTrip)
{
	mrc_hello h = {1, 1, 16, 12, MRC_CAP_ATOMIC | MRC_CAP_RATE_HINT,
		       0x1234abcd, MRC_WIRE_UDP_PORT, 8};
	u8 buf[64] = {};
	ASSERT_EQ(mrc_hello_encode(&h, buf, MRC_HELLO_LEN), MRC_WIRE_OK);
	EXPECT_EQ(buf[0], 'M');
	EXPECT_EQ(buf[3], 'E');
	mrc_hello out;
	// CM private data arrives zero-padded: longer buffers are accepted.
	ASSERT_EQ(mrc_hello_parse(buf, sizeof(buf), &out), MRC_WIRE_OK);
	EXPECT_EQ(out.min_ver, 1);
	EXPECT_EQ(out.max_ver, 1);
	EXPECT_EQ(out.max_paths, 16);
	EXPECT_EQ(out.seg_shift, 12);
	EXPECT_EQ(out.caps, h.caps);
	EXPECT_EQ(out.cookie, h.cookie);
	EXPECT_EQ(out.udp_port, MRC_WIRE_UDP_PORT);
	EXPECT_EQ(out.max_streams, 8);

	EXPECT_EQ(mrc_hello_encode(&h, buf, MRC_HELLO_LEN - 1),
		  MRC_WIRE_E_NO_SPACE);
	EXPECT_EQ(mrc_hello_parse(buf, MRC_HELLO_LEN - 1, &out),
		  MRC_WIRE_E_TRUNCATED);
	u8 bad[MRC_HELLO_LEN];
	memcpy(bad, buf, sizeof(bad));
	bad[0] ^= 1;
	EXPECT_EQ(mrc_hello_parse(bad, sizeof(bad), &out),
		  MRC_WIRE_E_BAD_FIELD);
	memcpy(bad, buf, sizeof(bad));
	bad[MRC_WO_HELLO_RSVD + 2] = 1;
	EXPECT_EQ(mrc_hello_parse(bad, sizeof(bad), &out),
		  MRC_WIRE_E_RESERVED);
	mrc_hello inval[] = {
		{0, 1, 1, 12, 0, 0, 0, 1},	// min_ver 0
		{2, 1, 1, 12, 0, 0, 0, 1},	// min > max
		{1, 1, 0, 12, 0, 0, 0, 1},	// no paths
		{1, 1, 1, 7, 0, 0, 0, 1},	// segment below 256
		{1, 1, 1, 14, 0, 0, 0, 1},	// segment above 8192
		{1, 1, 1, 12, 0, 0, 0, 0},	// no streams
	};
	for (auto &x : inval) {
		EXPECT_EQ(mrc_hello_encode(&x, buf, sizeof(buf)),
			  MRC_WIRE_E_BAD_FIELD);
		// and the parser says the same about the same bytes
		mrc_hello ok = h;
		ASSERT_EQ(mrc_hello_encode(&ok, buf, sizeof(buf)), MRC_WIRE_OK);
		buf[MRC_WO_HELLO_MIN_VER] = x.min_ver;
		buf[MRC_WO_HELLO_MAX_VER] = x.max_ver;
		buf[MRC_WO_HELLO_MAX_PATHS] = x.max_paths;
		buf[MRC_WO_HELLO_SEG_SHIFT] = x.seg_shift;
		mrc_put_be16(buf + MRC_WO_HELLO_MAX_STREAMS, x.max_streams);
		EXPECT_EQ(mrc_hello_parse(buf, MRC_HELLO_LEN, &out),
			  MRC_WIRE_E_BAD_FIELD);
	}
}

// [PKT-99] non-linear receive: headers parsed from the first fragment,
// payload pointer only when the payload is in it, ICRC left to the caller.
TEST(WireCodec, ParseHeaderOnly)
{
	for (const auto &s : wire_samples()) {
		SCOPED_TRACE(s.name);
		auto b = encode(s.pkt);
		u32 hdr = mrc_wire_hdr_len(&s.pkt);
		mrc_pkt out;
		ASSERT_EQ(mrc_wire_parse_hdr(b.data(), hdr, (u32)b.size(), &out),
			  MRC_WIRE_OK);
		expect_same(s.pkt, out);
		if (s.payload.empty())
			EXPECT_NE(out.payload, nullptr);
		else
			EXPECT_EQ(out.payload, nullptr);
		ASSERT_EQ(mrc_wire_parse_hdr(b.data(), (u32)b.size() + 100,
					     (u32)b.size(), &out),
			  MRC_WIRE_OK);
		EXPECT_EQ(out.payload, b.data() + hdr);
		if (hdr > MRC_WIRE_BASE_LEN) {
			EXPECT_EQ(mrc_wire_parse_hdr(b.data(), hdr - 1,
						     (u32)b.size(), &out),
				  MRC_WIRE_E_TRUNCATED);
		}
		// the ICRC is the caller's job here
		b[b.size() - 1] ^= 1;
		EXPECT_EQ(mrc_wire_parse_hdr(b.data(), (u32)b.size(),
					     (u32)b.size(), &out),
			  MRC_WIRE_OK);
		u32 st = mrc_wire_icrc_update(MRC_WIRE_ICRC_SEED, b.data(), hdr);
		st = mrc_wire_icrc_update(st, b.data() + hdr,
					  (u32)b.size() - hdr - 4);
		EXPECT_NE(mrc_wire_icrc_final(st),
			  mrc_get_be32(b.data() + b.size() - 4));
	}
}

// [INT-6] scatter-gather send: headers encoded alone, payload elsewhere,
// ICRC over both, equals the one-buffer encoding.
TEST(WireCodec, EncodeHeaderThenSeal)
{
	for (const auto &s : wire_samples()) {
		SCOPED_TRACE(s.name);
		u8 hdr[MRC_WIRE_MAX_HDR_LEN];
		u32 hdr_len = 0;
		ASSERT_EQ(mrc_wire_encode_hdr(&s.pkt, hdr, sizeof(hdr), &hdr_len),
			  MRC_WIRE_OK);
		EXPECT_EQ(hdr_len, mrc_wire_hdr_len(&s.pkt));
		u32 st = mrc_wire_icrc_update(MRC_WIRE_ICRC_SEED, hdr, hdr_len);
		st = mrc_wire_icrc_update(st, s.payload.data(),
					  (u32)s.payload.size());
		std::vector<u8> b(hdr, hdr + hdr_len);
		b.insert(b.end(), s.payload.begin(), s.payload.end());
		u8 tr[4];
		mrc_put_be32(tr, mrc_wire_icrc_final(st));
		b.insert(b.end(), tr, tr + 4);
		EXPECT_EQ(b, encode(s.pkt));
	}
	mrc_pkt bad = blank(0);
	u8 hdr[MRC_WIRE_MAX_HDR_LEN];
	u32 hdr_len;
	EXPECT_EQ(mrc_wire_encode_hdr(&bad, hdr, sizeof(hdr), &hdr_len),
		  MRC_WIRE_E_BAD_TYPE);
}

// [PKT-13] the header-only parser applies the same outer checks.
TEST(WireCodec, ParseHeaderOnlyOuterChecks)
{
	auto b = encode(wire_samples()[0].pkt);
	mrc_pkt out;
	EXPECT_EQ(mrc_wire_parse_hdr(b.data(), 0, (u32)b.size(), &out),
		  MRC_WIRE_E_TRUNCATED);
	EXPECT_EQ(mrc_wire_parse_hdr(b.data(), 31, (u32)b.size(), &out),
		  MRC_WIRE_E_TRUNCATED);
	EXPECT_EQ(mrc_wire_parse_hdr(b.data(), 35, 35, &out),
		  MRC_WIRE_E_TRUNCATED);
	EXPECT_EQ(mrc_wire_parse_hdr(b.data(), 64, MRC_WIRE_MAX_PKT_LEN + 1,
				     &out),
		  MRC_WIRE_E_TOO_LONG);
	b[0] = 2;
	EXPECT_EQ(mrc_wire_parse_hdr(b.data(), (u32)b.size(), (u32)b.size(),
				     &out),
		  MRC_WIRE_E_BAD_VERSION);
}

// [ENC-9] an ACK bundle is whole ACKs back to back, each sealed and
// parsed on its own; anything else is one packet
TEST(WireCodec, AckBundles)
{
	std::vector<u8> d;
	mrc_pkt p = blank(MRC_PKT_ACK);

	p.flags = MRC_F_BUNDLES;
	for (u8 path = 0; path < 3; path++) {
		p.path_id = path;
		p.ack.cum_psn = 100u * path;
		auto one = encode(p);
		ASSERT_EQ(one.size(), (size_t)MRC_WIRE_ACK_PKT_LEN);
		EXPECT_EQ(mrc_wire_bundle_count(one.data(), (u32)one.size()), 1u);
		d.insert(d.end(), one.begin(), one.end());
	}
	ASSERT_EQ(mrc_wire_bundle_count(d.data(), (u32)d.size()), 3u);
	for (u32 i = 0; i < 3; i++) {
		mrc_pkt q;
		ASSERT_EQ(mrc_wire_parse(d.data() + i * MRC_WIRE_ACK_PKT_LEN,
					 MRC_WIRE_ACK_PKT_LEN, &q),
			  MRC_WIRE_OK);
		EXPECT_EQ(q.type, MRC_PKT_ACK);
		EXPECT_EQ(q.path_id, i);
		EXPECT_EQ(q.ack.cum_psn, 100u * i);
	}
	// the whole bundle is no single packet
	mrc_pkt q;
	EXPECT_NE(mrc_wire_parse(d.data(), (u32)d.size(), &q), MRC_WIRE_OK);
	// not a whole number of ACKs, more than the most, or not an ACK first
	EXPECT_EQ(mrc_wire_bundle_count(d.data(), (u32)d.size() - 1), 1u);
	std::vector<u8> nine;
	for (int i = 0; i < 3; i++)
		nine.insert(nine.end(), d.begin(), d.end());
	EXPECT_EQ(mrc_wire_bundle_count(nine.data(), (u32)nine.size()), 1u);
	nine.resize(MRC_WIRE_BUNDLE_MAX * MRC_WIRE_ACK_PKT_LEN);
	EXPECT_EQ(mrc_wire_bundle_count(nine.data(), (u32)nine.size()),
		  (u32)MRC_WIRE_BUNDLE_MAX);
	d[MRC_WO_TYPE] = MRC_PKT_SEND;
	EXPECT_EQ(mrc_wire_bundle_count(d.data(), (u32)d.size()), 1u);
	EXPECT_EQ(mrc_wire_bundle_count(d.data(), 1), 1u);
}

// [ENC-13] a packet bundle: header, length table, whole packets; every
// packet parses on its own, and the bundle as a whole is no packet
TEST(WireCodec, PacketBundles)
{
	const auto &samples = wire_samples();
	std::vector<std::vector<u8>> pkts;
	std::vector<u16> lens;

	for (const auto &s : samples) {
		if (s.pkt.type == MRC_PKT_UD_SEND || pkts.size() == 5)
			continue;
		pkts.push_back(encode(s.pkt));
		lens.push_back((u16)pkts.back().size());
	}
	ASSERT_EQ(pkts.size(), 5u);
	for (u32 n = MRC_WIRE_PBUNDLE_MIN; n <= 5; n++) {
		u32 hlen = mrc_wire_pbundle_hdr_len(n);
		// 4 bytes, then the be16 lengths padded to 4
		EXPECT_EQ(hlen, 4 + 4 * ((n + 1) / 2));
		std::vector<u8> d(hlen, 0xee);
		ASSERT_EQ(mrc_wire_pbundle_encode_hdr(lens.data(), n, d.data(),
						      hlen),
			  MRC_WIRE_OK);
		EXPECT_EQ(d[0], MRC_WIRE_VERSION);
		EXPECT_EQ(d[1], MRC_PKT_BUNDLE);
		EXPECT_EQ(d[2], n);
		EXPECT_EQ(d[3], 0);
		EXPECT_EQ((u32)(d[4] << 8 | d[5]), lens[0]);
		if (n % 2) {
			EXPECT_EQ(d[hlen - 2], 0);
			EXPECT_EQ(d[hlen - 1], 0);
		}
		for (u32 i = 0; i < n; i++)
			d.insert(d.end(), pkts[i].begin(), pkts[i].end());
		EXPECT_TRUE(mrc_wire_is_pbundle(d.data(), (u32)d.size()));
		mrc_wire_pbundle b;
		ASSERT_EQ(mrc_wire_pbundle_parse(d.data(), hlen, (u32)d.size(),
						 &b),
			  MRC_WIRE_OK);
		ASSERT_EQ(b.count, n);
		EXPECT_EQ(b.hdr_len, hlen);
		for (u32 i = 0; i < n; i++) {
			mrc_pkt q;
			ASSERT_EQ(b.len[i], lens[i]);
			ASSERT_EQ(mrc_wire_parse(d.data() + b.off[i], b.len[i],
						 &q),
				  MRC_WIRE_OK);
			EXPECT_EQ(encode(q), pkts[i]);
		}
		mrc_pkt q;
		EXPECT_NE(mrc_wire_parse(d.data(), (u32)d.size(), &q),
			  MRC_WIRE_OK);
		EXPECT_EQ(mrc_wire_bundle_count(d.data(), (u32)d.size()), 1u);
	}
	// the room test a sender bundles by
	u32 two = mrc_wire_pbundle_hdr_len(2) + lens[0] + lens[1];
	EXPECT_TRUE(mrc_wire_pbundle_fits(1, lens[0], lens[1], two));
	EXPECT_FALSE(mrc_wire_pbundle_fits(1, lens[0], lens[1], two - 1));
	EXPECT_FALSE(mrc_wire_pbundle_fits(MRC_WIRE_PBUNDLE_MAX, 0, 36, 65507));
	// a lone packet is no bundle
	EXPECT_FALSE(mrc_wire_is_pbundle(pkts[0].data(), (u32)pkts[0].size()));
	// the encoder refuses what a receiver would
	u8 buf[128];
	u16 big[MRC_WIRE_PBUNDLE_MAX + 1];
	for (auto &l : big)
		l = 100;
	EXPECT_EQ(mrc_wire_pbundle_encode_hdr(big, 1, buf, sizeof(buf)),
		  MRC_WIRE_E_BAD_LENGTH);
	EXPECT_EQ(mrc_wire_pbundle_encode_hdr(big, MRC_WIRE_PBUNDLE_MAX + 1,
					      buf, sizeof(buf)),
		  MRC_WIRE_E_BAD_LENGTH);
	EXPECT_EQ(mrc_wire_pbundle_encode_hdr(big, MRC_WIRE_PBUNDLE_MAX, buf,
					      mrc_wire_pbundle_hdr_len(
						      MRC_WIRE_PBUNDLE_MAX) - 1),
		  MRC_WIRE_E_NO_SPACE);
	big[1] = MRC_WIRE_MIN_PKT_LEN - 1;
	EXPECT_EQ(mrc_wire_pbundle_encode_hdr(big, 2, buf, sizeof(buf)),
		  MRC_WIRE_E_BAD_LENGTH);
	big[0] = big[1] = 40000;
	EXPECT_EQ(mrc_wire_pbundle_encode_hdr(big, 2, buf, sizeof(buf)),
		  MRC_WIRE_E_TOO_LONG);
}

TEST(WireCodec, ReasonStrings)
{
	for (int r = 0; r < MRC_WIRE_REASON_COUNT; r++) {
		const char *s = mrc_wire_reason_str((mrc_wire_reason)r);
		ASSERT_NE(s, nullptr);
		EXPECT_STRNE(s, "unknown") << r;
		for (int q = 0; q < r; q++)
			EXPECT_STRNE(s, mrc_wire_reason_str((mrc_wire_reason)q));
	}
	EXPECT_STREQ(mrc_wire_reason_str(MRC_WIRE_REASON_COUNT), "unknown");
	EXPECT_STREQ(mrc_wire_reason_str((mrc_wire_reason)-1), "unknown");
}
