// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// HELLO, negotiation in band: the packet's layout and every rule of
// [PKT-92]/[PKT-93] in the parser and the encoder; the exchange of
// [PKT-94]/[PKT-95] between two ends (tries, answers, the [SEC-7] limits,
// an older peer that never answers) and the planes paths take ([PATH-8]).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

extern "C" {
#include "core/hello.h"
}
#include "wire_samples.h"

using namespace mrc_test;

namespace {

mrc_plane_addr v4(u8 a, u8 b, u8 c, u8 d)
{
	mrc_plane_addr p;
	memset(&p, 0, sizeof(p));
	p.family = 4;
	p.addr[0] = a;
	p.addr[1] = b;
	p.addr[2] = c;
	p.addr[3] = d;
	return p;
}

mrc_plane_addr none()
{
	mrc_plane_addr p;
	memset(&p, 0, sizeof(p));
	return p;
}

mrc_hello_local local(u8 host, u32 nplanes, u32 caps = MRC_CAP_MULTIPLANE)
{
	mrc_hello_local l;
	memset(&l, 0, sizeof(l));
	l.rec.min_ver = 1;
	l.rec.max_ver = 1;
	l.rec.max_paths = 8;
	l.rec.seg_shift = 12;
	l.rec.caps = caps;
	l.rec.cookie = 0x1234;
	l.rec.udp_port = MRC_WIRE_UDP_PORT;
	l.rec.max_streams = 1;
	l.nplanes = (u8)nplanes;
	for (u32 k = 0; k < nplanes; k++)
		l.plane[k] = v4(10, 0, (u8)k, host);
	return l;
}

// One end's HELLO on the wire and back: what a peer's parser gives it.
struct Wire {
	std::vector<u8> bytes;
	mrc_pkt pkt;
};

Wire send(const mrc_hello_state &h, u8 kind)
{
	u8 table[MRC_WIRE_HELLO_TABLE_MAX];
	mrc_pkt p;
	memset(&p, 0, sizeof(p));
	mrc_hello_build(&h, kind, &p, table);
	p.cookie = 0x77;
	Wire w;
	w.bytes = encode(p);
	EXPECT_FALSE(w.bytes.empty());
	EXPECT_EQ(mrc_wire_parse(w.bytes.data(), (u32)w.bytes.size(), &w.pkt),
		  MRC_WIRE_OK);
	return w;
}

mrc_wire_reason parse(const std::vector<u8> &b)
{
	mrc_pkt out;
	return mrc_wire_parse(b.data(), (u32)b.size(), &out);
}

// A valid OFFER of two IPv4 planes, to corrupt.
std::vector<u8> offer_bytes()
{
	mrc_hello_state h;
	mrc_hello_local l = local(1, 2);
	mrc_hello_init(&h, &l);
	return send(h, MRC_HELLO_OFFER).bytes;
}

} // namespace

// [PKT-92]: the layout, byte by byte, and the padding of an OFFER.
TEST(Hello, OfferLayout)
{
	auto b = offer_bytes();
	ASSERT_EQ(b.size(), (size_t)MRC_WIRE_HELLO_MAX_LEN);
	EXPECT_EQ(b.size(), 224u);
	EXPECT_EQ(b[1], MRC_PKT_HELLO);
	EXPECT_EQ(b[2], 60 / 4);			// hdr_words
	EXPECT_EQ(b[3], 0);				// path_id
	EXPECT_EQ(b[32], MRC_HELLO_OFFER);
	EXPECT_EQ(b[33], 2);				// nplanes
	EXPECT_EQ(b[34] | b[35], 0);
	EXPECT_EQ(mrc_get_be32(&b[36]), MRC_HELLO_MAGIC);
	EXPECT_EQ(mrc_get_be32(&b[36 + MRC_WO_HELLO_CAPS]), MRC_CAP_MULTIPLANE);
	// plane 1: family 4, 10.0.1.1, zeros after
	const u8 *e = &b[60 + 20];
	EXPECT_EQ(e[0], 4);
	EXPECT_EQ(e[4], 10);
	EXPECT_EQ(e[6], 1);
	EXPECT_EQ(e[7], 1);
	for (int i = 8; i < 20; i++)
		EXPECT_EQ(e[i], 0) << i;
	for (size_t i = 100; i < b.size() - 4; i++)
		EXPECT_EQ(b[i], 0) << "padding " << i;
}

// [PKT-92] an ANSWER is not padded; IPv6 and "no address" entries.
TEST(Hello, AnswerUnpaddedWithV6AndNone)
{
	mrc_hello_state h;
	mrc_hello_local l = local(2, 3);
	l.plane[1] = none();
	l.plane[2].family = 6;
	for (int i = 0; i < 16; i++)
		l.plane[2].addr[i] = (u8)(0xf0 + i);
	mrc_hello_init(&h, &l);
	Wire w = send(h, MRC_HELLO_ANSWER);
	EXPECT_EQ(w.bytes.size(), 60u + 3 * 20 + 4);
	mrc_plane_addr got;
	mrc_wire_plane_get(w.pkt.payload, 1, &got);
	EXPECT_EQ(got.family, 0);
	mrc_wire_plane_get(w.pkt.payload, 2, &got);
	EXPECT_EQ(got.family, 6);
	EXPECT_EQ(0, memcmp(got.addr, l.plane[2].addr, 16));
	EXPECT_EQ(w.pkt.hello.rec.cookie, 0x1234u);
}

// [PKT-93] every malformed HELLO is rejected by the parser, with its reason.
TEST(Hello, MalformedRejected)
{
	struct Case {
		const char *what;
		void (*mutate)(std::vector<u8> &);
		mrc_wire_reason want;
	} cases[] = {
		{"kind 0", [](std::vector<u8> &b) { b[32] = 0; }, MRC_WIRE_E_BAD_FIELD},
		{"kind 3", [](std::vector<u8> &b) { b[32] = 3; }, MRC_WIRE_E_BAD_FIELD},
		{"nplanes 0", [](std::vector<u8> &b) { b[33] = 0; }, MRC_WIRE_E_BAD_FIELD},
		{"nplanes 9: too many addresses",
		 [](std::vector<u8> &b) { b[33] = 9; }, MRC_WIRE_E_BAD_FIELD},
		{"nplanes 255", [](std::vector<u8> &b) { b[33] = 255; }, MRC_WIRE_E_BAD_FIELD},
		{"reserved", [](std::vector<u8> &b) { b[35] = 1; }, MRC_WIRE_E_RESERVED},
		{"path_id", [](std::vector<u8> &b) { b[3] = 1; }, MRC_WIRE_E_RESERVED},
		{"magic", [](std::vector<u8> &b) { b[36] ^= 1; }, MRC_WIRE_E_BAD_FIELD},
		{"record min_ver 0", [](std::vector<u8> &b) { b[40] = 0; }, MRC_WIRE_E_BAD_FIELD},
		{"record max_paths 0", [](std::vector<u8> &b) { b[42] = 0; }, MRC_WIRE_E_BAD_FIELD},
		{"record seg_shift 14", [](std::vector<u8> &b) { b[43] = 14; }, MRC_WIRE_E_BAD_FIELD},
		{"record reserved", [](std::vector<u8> &b) { b[59] = 1; }, MRC_WIRE_E_RESERVED},
		{"family 5", [](std::vector<u8> &b) { b[60] = 5; }, MRC_WIRE_E_BAD_FIELD},
		{"entry reserved", [](std::vector<u8> &b) { b[61] = 1; }, MRC_WIRE_E_RESERVED},
		{"IPv4 tail", [](std::vector<u8> &b) { b[60 + 8] = 1; }, MRC_WIRE_E_RESERVED},
		{"family 0 with an address",
		 [](std::vector<u8> &b) { b[80] = 0; }, MRC_WIRE_E_RESERVED},
		{"padding", [](std::vector<u8> &b) { b[150] = 1; }, MRC_WIRE_E_RESERVED},
		{"table cut (payload < nplanes * 20)",
		 [](std::vector<u8> &b) { b.resize(60 + 30); b.resize(94); },
		 MRC_WIRE_E_BAD_LENGTH},
		{"payload beyond 8 entries",
		 [](std::vector<u8> &b) { b.insert(b.end() - 4, 4, 0); },
		 MRC_WIRE_E_BAD_LENGTH},
		{"flag ACK_REQ", [](std::vector<u8> &b) { b[5] |= MRC_F_ACK_REQ; },
		 MRC_WIRE_E_BAD_FLAGS},
		{"PSN", [](std::vector<u8> &b) { b[15] = 1; }, MRC_WIRE_E_RESERVED},
	};
	EXPECT_EQ(parse(offer_bytes()), MRC_WIRE_OK);
	for (auto &c : cases) {
		SCOPED_TRACE(c.what);
		auto b = offer_bytes();
		c.mutate(b);
		reseal(b);
		EXPECT_EQ(parse(b), c.want);
	}
}

// [PKT-93] the encoder refuses what the parser rejects.
TEST(Hello, EncoderRefuses)
{
	mrc_hello_state h;
	mrc_hello_local l = local(1, 2);
	mrc_hello_init(&h, &l);
	u8 table[MRC_WIRE_HELLO_TABLE_MAX];
	u8 buf[512];
	u32 len;
	mrc_pkt p;
	memset(&p, 0, sizeof(p));
	mrc_hello_build(&h, MRC_HELLO_ANSWER, &p, table);
	EXPECT_EQ(mrc_wire_encode(&p, buf, sizeof(buf), &len), MRC_WIRE_OK);
	mrc_pkt q = p;
	q.hello.nplanes = 9;
	EXPECT_EQ(mrc_wire_encode(&q, buf, sizeof(buf), &len), MRC_WIRE_E_BAD_FIELD);
	q = p;
	q.hello.rec.max_paths = 0;
	EXPECT_EQ(mrc_wire_encode(&q, buf, sizeof(buf), &len), MRC_WIRE_E_BAD_FIELD);
	q = p;
	q.payload_len = 20;	// shorter than its two entries
	EXPECT_EQ(mrc_wire_encode(&q, buf, sizeof(buf), &len), MRC_WIRE_E_BAD_LENGTH);
	q = p;
	q.path_id = 2;
	EXPECT_EQ(mrc_wire_encode(&q, buf, sizeof(buf), &len), MRC_WIRE_E_RESERVED);
	// an older peer's view: not one of its types
	EXPECT_EQ(mrc_wire_ext_len(MRC_PKT_BUNDLE), 0u);
	EXPECT_EQ(mrc_wire_ext_len(MRC_PKT_HELLO), 28u);
	EXPECT_EQ(mrc_wire_ext_len(MRC_PKT_HELLO + 1), 0u);
}

// [PKT-94] OFFERs at RTS and after 50, 100, 200, 400 ms; none after an ANSWER.
TEST(Hello, OfferTriesThenGivesUp)
{
	mrc_hello_state h;
	mrc_hello_local l = local(1, 2);
	mrc_hello_init(&h, &l);
	EXPECT_FALSE(mrc_hello_offer_due(&h, 0));	// not before RTS
	EXPECT_EQ(mrc_hello_deadline(&h), MRC_HELLO_NEVER);
	u64 t = 1000;
	mrc_hello_start(&h, t);
	std::vector<u64> sent;
	for (u64 now = t; now < t + 5000000000ULL; now += 1000000)
		if (mrc_hello_offer_due(&h, now))
			sent.push_back(now - t);
	ASSERT_EQ(sent.size(), (size_t)MRC_HELLO_TRIES);
	EXPECT_EQ(sent[0], 0u);
	EXPECT_EQ(sent[1], 50000000u);
	EXPECT_EQ(sent[2], 150000000u);
	EXPECT_EQ(sent[3], 350000000u);
	EXPECT_EQ(sent[4], 750000000u);
	EXPECT_EQ(mrc_hello_deadline(&h), MRC_HELLO_NEVER);
	// [PKT-95] an older peer: never answered, one plane, no error
	EXPECT_FALSE(mrc_hello_negotiated(&h));
	EXPECT_EQ(mrc_hello_nplanes(&h), 1u);
	for (u32 i = 0; i < 8; i++)
		EXPECT_EQ(mrc_hello_plane_of(&h, i), 0u);
}

// [PKT-94] [PKT-95] [PATH-8] two ends of two planes each: both negotiate,
// paths alternate over the planes, alike on both ends.
TEST(Hello, TwoEndsNegotiateTwoPlanes)
{
	mrc_hello_state a, b;
	mrc_hello_local la = local(1, 2), lb = local(2, 2);
	mrc_hello_init(&a, &la);
	mrc_hello_init(&b, &lb);
	mrc_hello_start(&a, 0);
	mrc_hello_start(&b, 0);
	ASSERT_TRUE(mrc_hello_offer_due(&a, 0));
	ASSERT_TRUE(mrc_hello_offer_due(&b, 0));
	Wire oa = send(a, MRC_HELLO_OFFER), ob = send(b, MRC_HELLO_OFFER);
	EXPECT_EQ(mrc_hello_on_rx(&b, &oa.pkt, true), MRC_HELLO_SEND_ANSWER);
	EXPECT_EQ(mrc_hello_on_rx(&a, &ob.pkt, true), MRC_HELLO_SEND_ANSWER);
	EXPECT_FALSE(mrc_hello_negotiated(&a));	// known, not yet answered
	EXPECT_EQ(mrc_hello_nplanes(&a), 1u);
	Wire ab = send(b, MRC_HELLO_ANSWER), ba = send(a, MRC_HELLO_ANSWER);
	EXPECT_EQ(mrc_hello_on_rx(&a, &ab.pkt, true), MRC_HELLO_TAKEN);
	EXPECT_EQ(mrc_hello_on_rx(&b, &ba.pkt, true), MRC_HELLO_TAKEN);
	for (auto *h : {&a, &b}) {
		EXPECT_TRUE(mrc_hello_negotiated(h));
		EXPECT_EQ(mrc_hello_nplanes(h), 2u);
		EXPECT_EQ(mrc_hello_deadline(h), MRC_HELLO_NEVER);
		EXPECT_FALSE(mrc_hello_offer_due(h, 1000000000ULL));
		for (u32 i = 0; i < 8; i++)
			EXPECT_EQ(mrc_hello_plane_of(h, i), i % 2) << i;
	}
	// [SEC-3] the peer's plane 1 address is known, a stranger's is not
	mrc_plane_addr p1 = v4(10, 0, 1, 2), x = v4(10, 0, 1, 9);
	EXPECT_EQ(mrc_hello_peer_plane(&a, &p1), 1);
	EXPECT_EQ(mrc_hello_peer_plane(&a, &x), -1);
}

// [PATH-8] P = min of both counts; a plane without an address on either
// end is skipped; without MULTIPLANE on one end, one plane.
TEST(Hello, PlanesBothHave)
{
	auto negotiate = [](mrc_hello_local la, mrc_hello_local lb) {
		mrc_hello_state a, b;
		mrc_hello_init(&a, &la);
		mrc_hello_init(&b, &lb);
		mrc_hello_start(&a, 0);
		EXPECT_TRUE(mrc_hello_offer_due(&a, 0));
		Wire oa = send(a, MRC_HELLO_OFFER);
		EXPECT_EQ(mrc_hello_on_rx(&b, &oa.pkt, true), MRC_HELLO_SEND_ANSWER);
		Wire ab = send(b, MRC_HELLO_ANSWER);
		mrc_hello_on_rx(&a, &ab.pkt, true);
		EXPECT_TRUE(mrc_hello_negotiated(&a));
		return a;
	};
	mrc_hello_state a = negotiate(local(1, 4), local(2, 3));
	EXPECT_EQ(mrc_hello_nplanes(&a), 3u);
	mrc_hello_local lb = local(2, 4);
	lb.plane[1] = none();
	a = negotiate(local(1, 4), lb);
	ASSERT_EQ(mrc_hello_nplanes(&a), 3u);
	EXPECT_EQ(mrc_hello_plane_of(&a, 0), 0u);
	EXPECT_EQ(mrc_hello_plane_of(&a, 1), 2u);
	EXPECT_EQ(mrc_hello_plane_of(&a, 2), 3u);
	a = negotiate(local(1, 2), local(2, 2, 0));
	EXPECT_EQ(mrc_hello_nplanes(&a), 1u);
	a = negotiate(local(1, 2), local(2, 1));
	EXPECT_EQ(mrc_hello_nplanes(&a), 1u);
}

// [PKT-94] [SEC-7] an OFFER flood with the right cookie draws 8 ANSWERs in
// all; an unpadded OFFER (shorter than our ANSWER) draws none; an ANSWER
// is never answered; an end in RTR learns but does not answer.
TEST(Hello, FloodAndAmplificationLimits)
{
	mrc_hello_state a, b;
	mrc_hello_local la = local(1, 2), lb = local(2, 4);
	mrc_hello_init(&a, &la);
	mrc_hello_init(&b, &lb);
	mrc_hello_start(&a, 0);
	Wire oa = send(a, MRC_HELLO_OFFER);
	EXPECT_EQ(mrc_hello_on_rx(&b, &oa.pkt, false), MRC_HELLO_TAKEN);
	EXPECT_TRUE(b.peer_known);
	int answers = 0, refused = 0;
	for (int i = 0; i < 100; i++) {
		auto v = mrc_hello_on_rx(&b, &oa.pkt, true);
		answers += v == MRC_HELLO_SEND_ANSWER;
		refused += v == MRC_HELLO_REFUSED;
	}
	EXPECT_EQ(answers, MRC_HELLO_ANSWERS_MAX);
	EXPECT_EQ(refused, 100 - MRC_HELLO_ANSWERS_MAX);
	EXPECT_EQ(b.stats.refused, (u64)refused);

	// an unpadded OFFER of 2 planes to an end of 4: its ANSWER would be longer
	mrc_hello_state c;
	mrc_hello_init(&c, &lb);
	mrc_pkt small = oa.pkt;
	small.payload_len = 2 * MRC_WIRE_PLANE_LEN;
	EXPECT_EQ(mrc_hello_on_rx(&c, &small, true), MRC_HELLO_REFUSED);

	// ANSWERs never draw an answer, and one we did not ask for is ignored
	mrc_hello_state d;
	mrc_hello_init(&d, &la);
	Wire ans = send(b, MRC_HELLO_ANSWER);
	EXPECT_EQ(mrc_hello_on_rx(&d, &ans.pkt, true), MRC_HELLO_TAKEN);
	EXPECT_FALSE(d.answered);
	EXPECT_FALSE(mrc_hello_negotiated(&d));
}

// [PKT-94] the first valid HELLO fixes the peer's planes: a later one with
// other addresses changes nothing.
TEST(Hello, FirstHelloFixesPeer)
{
	mrc_hello_state a, b, evil;
	mrc_hello_local la = local(1, 2), lb = local(2, 2), le = local(66, 2);
	mrc_hello_init(&a, &la);
	mrc_hello_init(&b, &lb);
	mrc_hello_init(&evil, &le);
	mrc_hello_start(&a, 0);
	Wire ob = send(b, MRC_HELLO_OFFER), oe = send(evil, MRC_HELLO_OFFER);
	mrc_hello_on_rx(&a, &ob.pkt, true);
	mrc_hello_on_rx(&a, &oe.pkt, true);
	mrc_plane_addr p1 = v4(10, 0, 1, 2), e1 = v4(10, 0, 1, 66);
	EXPECT_EQ(mrc_hello_peer_plane(&a, &p1), 1);
	EXPECT_EQ(mrc_hello_peer_plane(&a, &e1), -1);
}
