// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// UD_SEND, the datagram packet of UD and GSI queue pairs: layout pinned to
// the diagram of [PKT-85], and every rule of [PKT-86]/[PKT-87] rejected
// by both the parser and the encoder.
#include <gtest/gtest.h>

#include "wire_samples.h"

using namespace mrc_test;

namespace {

mrc_pkt ud(u32 dst_qpn, u32 qkey, u32 src_qpn, std::vector<u8> &payload)
{
	mrc_pkt p;
	memset(&p, 0, sizeof(p));
	p.type = MRC_PKT_UD_SEND;
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.dst_qpn = dst_qpn;
	p.tsval = 0x01020304;
	p.ud.qkey = qkey;
	p.ud.src_qpn = src_qpn;
	p.payload = payload.empty() ? nullptr : payload.data();
	p.payload_len = (u32)payload.size();
	return p;
}

mrc_wire_reason parse(const std::vector<u8> &b, mrc_pkt *out)
{
	return mrc_wire_parse(b.data(), (u32)b.size(), out);
}

} // namespace

// [PKT-85] [PKT-86]: a MAD to QP1, byte by byte.
TEST(WireUd, GoldenGsiBytes)
{
	std::vector<u8> mad(256, 0xab);
	mrc_pkt p = ud(MRC_WIRE_GSI_QPN, MRC_WIRE_GSI_QKEY, 1, mad);
	auto b = encode(p);

	ASSERT_EQ(b.size(), 40u + 256 + 4);
	EXPECT_EQ(b[0], 1);			// version
	EXPECT_EQ(b[1], 10);			// type UD_SEND
	EXPECT_EQ(b[2], 40 / 4);		// hdr_words
	EXPECT_EQ(b[3], 0);			// path_id
	EXPECT_EQ(b[4], 0);			// flags (be16) FIRST|LAST
	EXPECT_EQ(b[5], 3);
	const u8 qpn[] = {0, 0, 0, 1};
	EXPECT_EQ(0, memcmp(&b[8], qpn, 4));
	for (int i = 12; i < 24; i++)		// psn, msn, ssn
		EXPECT_EQ(b[i], 0) << i;
	const u8 ext[] = {0x80, 0x01, 0x00, 0x00, 0, 0, 0, 1};
	EXPECT_EQ(0, memcmp(&b[28], "\0\0\0\0", 4));	// cookie
	EXPECT_EQ(0, memcmp(&b[32], ext, sizeof(ext)));
	EXPECT_EQ(b[40], 0xab);
	EXPECT_EQ(mrc_get_be32(&b[b.size() - 4]),
		  mrc_wire_icrc(b.data(), (u32)b.size() - 4));

	mrc_pkt out;
	ASSERT_EQ(parse(b, &out), MRC_WIRE_OK);
	EXPECT_EQ(out.type, MRC_PKT_UD_SEND);
	EXPECT_EQ(out.dst_qpn, 1u);
	EXPECT_EQ(out.ud.qkey, MRC_WIRE_GSI_QKEY);
	EXPECT_EQ(out.ud.src_qpn, 1u);
	EXPECT_EQ(out.hdr_len, 40u);
	EXPECT_EQ(out.payload_len, 256u);
}

// [PKT-85] the immediate follows the 8-byte extension.
TEST(WireUd, ImmediateRoundTrip)
{
	std::vector<u8> pl = pattern(1000);
	mrc_pkt p = ud(0x123456, 0x22222222, 0xabcdef, pl);
	p.flags |= MRC_F_IMM | MRC_F_SOLICITED;
	p.imm = 0xcafef00d;
	auto b = encode(p);

	ASSERT_EQ(b.size(), 44u + 1000 + 4);
	EXPECT_EQ(mrc_get_be32(&b[40]), 0xcafef00du);
	mrc_pkt out;
	ASSERT_EQ(parse(b, &out), MRC_WIRE_OK);
	EXPECT_EQ(out.imm, 0xcafef00du);
	EXPECT_EQ(out.flags, p.flags);
	EXPECT_EQ(out.ud.src_qpn, 0xabcdefu);
	EXPECT_EQ(out.payload_len, 1000u);
	EXPECT_EQ(0, memcmp(out.payload, pl.data(), pl.size()));
	EXPECT_EQ(encode(out), b);
}

// [PKT-87] and [PKT-31]: what a datagram may not say. The encoder refuses
// the description, the parser the same bytes (edited and resealed).
TEST(WireUd, Rejections)
{
	std::vector<u8> pl = pattern(64);
	struct {
		const char *what;
		void (*edit)(mrc_pkt &);
		mrc_wire_reason want;
	} cases[] = {
		{"no FIRST", [](mrc_pkt &p) { p.flags = MRC_F_LAST; },
		 MRC_WIRE_E_BAD_FLAGS},
		{"no LAST", [](mrc_pkt &p) { p.flags = MRC_F_FIRST; },
		 MRC_WIRE_E_BAD_FLAGS},
		{"INV", [](mrc_pkt &p) { p.flags |= MRC_F_INV; },
		 MRC_WIRE_E_BAD_FLAGS},
		{"ACK_REQ", [](mrc_pkt &p) { p.flags |= MRC_F_ACK_REQ; },
		 MRC_WIRE_E_BAD_FLAGS},
		{"RETX", [](mrc_pkt &p) { p.flags |= MRC_F_RETX; },
		 MRC_WIRE_E_BAD_FLAGS},
		{"psn", [](mrc_pkt &p) { p.psn = 1; }, MRC_WIRE_E_RESERVED},
		{"msn", [](mrc_pkt &p) { p.msn = 1; }, MRC_WIRE_E_RESERVED},
		{"ssn", [](mrc_pkt &p) { p.ssn = 1; }, MRC_WIRE_E_RESERVED},
		{"stream", [](mrc_pkt &p) { p.stream_id = 1; },
		 MRC_WIRE_E_RESERVED},
		{"path_id", [](mrc_pkt &p) { p.path_id = 1; },
		 MRC_WIRE_E_RESERVED},
		{"cookie", [](mrc_pkt &p) { p.cookie = 1; },
		 MRC_WIRE_E_RESERVED},
		{"src_qpn > 24 bits",
		 [](mrc_pkt &p) { p.ud.src_qpn = 0x01000000; },
		 MRC_WIRE_E_RESERVED},
		{"dst_qpn > 24 bits",
		 [](mrc_pkt &p) { p.dst_qpn = 0x80000001; },
		 MRC_WIRE_E_RESERVED},
		{"too long", [](mrc_pkt &p) { p.payload_len = 65507; },
		 MRC_WIRE_E_TOO_LONG},
	};
	for (auto &c : cases) {
		SCOPED_TRACE(c.what);
		mrc_pkt p = ud(7, 0x11111111, 9, pl);
		c.edit(p);
		EXPECT_EQ(mrc_wire_check(&p), c.want);
		std::vector<u8> buf(70000);
		u32 len;
		EXPECT_EQ(mrc_wire_encode(&p, buf.data(), (u32)buf.size(),
					  &len), c.want);
	}

	// The same rules from the bytes' side.
	mrc_pkt good = ud(7, 0x11111111, 9, pl);
	auto edit = [&](auto fn) {
		auto b = encode(good);
		fn(b);
		reseal(b);
		mrc_pkt out;
		return parse(b, &out);
	};
	EXPECT_EQ(edit([](auto &b) { b[5] = MRC_F_LAST; }),
		  MRC_WIRE_E_BAD_FLAGS);
	EXPECT_EQ(edit([](auto &b) { b[3] = 2; }), MRC_WIRE_E_RESERVED);
	EXPECT_EQ(edit([](auto &b) { b[31] = 1; }), MRC_WIRE_E_RESERVED);
	EXPECT_EQ(edit([](auto &b) { b[15] = 1; }), MRC_WIRE_E_RESERVED);
	EXPECT_EQ(edit([](auto &b) { b[36] = 1; }), MRC_WIRE_E_RESERVED);
	// hdr_words of a SEND on a datagram, and the reverse
	EXPECT_EQ(edit([](auto &b) { b[2] = 44 / 4; }),
		  MRC_WIRE_E_BAD_HDR_LEN);
	// cut inside the extension
	{
		auto b = encode(good);
		b.resize(32 + 4 + 4);
		reseal(b);
		mrc_pkt out;
		EXPECT_EQ(parse(b, &out), MRC_WIRE_E_TRUNCATED);
	}
}
