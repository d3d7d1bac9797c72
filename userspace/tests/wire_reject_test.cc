// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Every rejection reason of mrc_wire_parse(), boundary lengths, and the
// encoder refusing what the parser would reject. Rule numbers refer to
// Documentation/protocol/packets.rst and integrity.rst.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "wire_samples.h"

using namespace mrc_test;

namespace {

WireSample sample(const std::string &name)
{
	for (auto &s : wire_samples())
		if (s.name == name)
			return s;
	ADD_FAILURE() << "no sample " << name;
	return {};
}

mrc_wire_reason parse(const std::vector<u8> &b)
{
	mrc_pkt out;
	return mrc_wire_parse(b.data(), (u32)b.size(), &out);
}

// Edit the encoded bytes of a sample, reseal the ICRC, parse.
mrc_wire_reason parse_edited(const std::string &name,
			     const std::function<void(std::vector<u8> &)> &edit)
{
	auto b = encode(sample(name).pkt);
	EXPECT_FALSE(b.empty());
	edit(b);
	reseal(b);
	return parse(b);
}

// Edit the description; the encoder must refuse it with the same reason
// the parser gives for the same bytes (built by hand via the edit).
mrc_wire_reason check_edited(const std::string &name,
			     const std::function<void(mrc_pkt &)> &edit)
{
	auto s = sample(name);
	edit(s.pkt);
	std::vector<u8> buf(70000);
	u32 len;
	auto r = mrc_wire_encode(&s.pkt, buf.data(), (u32)buf.size(), &len);
	EXPECT_EQ(r, mrc_wire_check(&s.pkt));
	return r;
}

void put32(std::vector<u8> &b, u32 off, u32 v)
{
	mrc_put_be32(b.data() + off, v);
}

} // namespace

// [PKT-13] [INT-5] too short for a base header and ICRC, at every length.
TEST(WireReject, Truncated)
{
	auto b = encode(sample("ack_sack").pkt);
	for (u32 n = 0; n < MRC_WIRE_MIN_PKT_LEN; n++) {
		mrc_pkt out;
		EXPECT_EQ(mrc_wire_parse(b.data(), n, &out),
			  MRC_WIRE_E_TRUNCATED) << n;
	}
	// A prefix resealed so the ICRC is right: the header claims more
	// bytes than there are.
	for (u32 n = MRC_WIRE_MIN_PKT_LEN; n < b.size(); n++) {
		std::vector<u8> c(b.begin(), b.begin() + n);
		reseal(c);
		EXPECT_EQ(parse(c), MRC_WIRE_E_TRUNCATED) << n;
	}
}

// [PKT-96] longer than any UDP payload.
TEST(WireReject, TooLong)
{
	std::vector<u8> b(MRC_WIRE_MAX_PKT_LEN + 1, 0);
	b[0] = MRC_WIRE_VERSION;
	EXPECT_EQ(parse(b), MRC_WIRE_E_TOO_LONG);
	EXPECT_EQ(check_edited("send_first",
			       [](mrc_pkt &p) {
				       p.payload_len = MRC_WIRE_MAX_PKT_LEN;
				       p.send.total_len = 1u << 20;
			       }),
		  MRC_WIRE_E_TOO_LONG);
}

// [PKT-13] unknown versions are dropped before anything else is read.
TEST(WireReject, BadVersion)
{
	for (int v : {0, 2, 0x11, 0xff})
		EXPECT_EQ(parse_edited("send_only",
				       [v](auto &b) { b[0] = (u8)v; }),
			  MRC_WIRE_E_BAD_VERSION) << v;
}

// [INT-3] [INT-5] a wrong ICRC is reported as such, before structure.
TEST(WireReject, BadCrc)
{
	auto b = encode(sample("send_only").pkt);
	b[1] = 0xee;	// also a bad type, but the ICRC is checked first
	EXPECT_EQ(parse(b), MRC_WIRE_E_BAD_CRC);
	b = encode(sample("send_only").pkt);
	b.back() ^= 0x80;
	EXPECT_EQ(parse(b), MRC_WIRE_E_BAD_CRC);
}

// [PKT-20] unknown packet types.
TEST(WireReject, BadType)
{
	for (int t : {0, MRC_PKT_TYPE_MAX + 1, 0x80, 0xff})
		EXPECT_EQ(parse_edited("send_only",
				       [t](auto &b) { b[1] = (u8)t; }),
			  MRC_WIRE_E_BAD_TYPE) << t;
	EXPECT_EQ(check_edited("send_only", [](mrc_pkt &p) { p.type = 0; }),
		  MRC_WIRE_E_BAD_TYPE);
}

// [PKT-11] header length must be exactly base + extension + imm.
TEST(WireReject, BadHeaderLength)
{
	for (int d : {-1, 1, -8, 100})
		EXPECT_EQ(parse_edited("send_only",
				       [d](auto &b) { b[2] = (u8)(b[2] + d); }),
			  MRC_WIRE_E_BAD_HDR_LEN) << d;
	EXPECT_EQ(parse_edited("send_only", [](auto &b) { b[2] = 0; }),
		  MRC_WIRE_E_BAD_HDR_LEN);
	// IMM set but no room for it
	EXPECT_EQ(parse_edited("send_only", [](auto &b) { b[5] |= MRC_F_IMM; }),
		  MRC_WIRE_E_BAD_HDR_LEN);
}

// [PKT-12] [PKT-14] [PKT-15] [PKT-56] [PKT-70] [PKT-75] reserved bits.
TEST(WireReject, ReservedBits)
{
	for (int bit = 9; bit < 16; bit++)
		EXPECT_EQ(parse_edited("send_only",
				       [bit](auto &b) {
					       b[4] |= (u8)(1 << (bit - 8));
				       }),
			  MRC_WIRE_E_RESERVED) << bit;
	EXPECT_EQ(parse_edited("send_only", [](auto &b) { b[8] = 1; }),
		  MRC_WIRE_E_RESERVED);
	for (u32 off : {MRC_WO_PSN, MRC_WO_MSN, MRC_WO_SSN})
		for (auto name : {"ack_plain", "nak_1", "probe_req"})
			EXPECT_EQ(parse_edited(name,
					       [off](auto &b) { b[off + 3] = 1; }),
				  MRC_WIRE_E_RESERVED) << name << off;
	EXPECT_EQ(parse_edited("ack_plain",
			       [](auto &b) { b[MRC_WO_STREAM_ID] = 1; }),
		  MRC_WIRE_E_RESERVED);
	for (int i = 1; i < 4; i++) {
		EXPECT_EQ(parse_edited("atomic_cmp_swap",
				       [i](auto &b) {
					       b[MRC_WO_ATOMIC_OP + i] = 1;
				       }),
			  MRC_WIRE_E_RESERVED);
		EXPECT_EQ(parse_edited("nak_1",
				       [i](auto &b) {
					       b[MRC_WO_NAK_CODE + i] = 1;
				       }),
			  MRC_WIRE_E_RESERVED);
	}
	EXPECT_EQ(parse_edited("probe_req",
			       [](auto &b) { b[MRC_WO_PROBE_RSVD] = 1; }),
		  MRC_WIRE_E_RESERVED);
	// FETCH_ADD has no compare operand
	EXPECT_EQ(parse_edited("atomic_fetch_add",
			       [](auto &b) {
				       b[MRC_WO_ATOMIC_COMPARE + 7] = 1;
			       }),
		  MRC_WIRE_E_RESERVED);
	// only RNR has an argument
	EXPECT_EQ(parse_edited("nak_1",
			       [](auto &b) { put32(b, MRC_WO_NAK_ARG, 5); }),
		  MRC_WIRE_E_RESERVED);
	// a probe request echoes nothing
	EXPECT_EQ(parse_edited("probe_req",
			       [](auto &b) { put32(b, MRC_WO_PROBE_TSECR, 1); }),
		  MRC_WIRE_E_RESERVED);
	EXPECT_EQ(parse_edited("probe_req",
			       [](auto &b) {
				       put32(b, MRC_WO_PROBE_ECHO_LEN, 1);
			       }),
		  MRC_WIRE_E_RESERVED);
	EXPECT_EQ(check_edited("send_only",
			       [](mrc_pkt &p) { p.dst_qpn = 1u << 24; }),
		  MRC_WIRE_E_RESERVED);
	// [PKT-47] a WRITE without immediate consumes no receive
	EXPECT_EQ(parse_edited("write_first",
			       [](auto &b) { put32(b, MRC_WO_WRITE_RSN, 1); }),
		  MRC_WIRE_E_RESERVED);
	EXPECT_EQ(check_edited("ack_plain", [](mrc_pkt &p) { p.psn = 1; }),
		  MRC_WIRE_E_RESERVED);
	EXPECT_EQ(check_edited("send_only", [](mrc_pkt &p) { p.flags |= 0x200; }),
		  MRC_WIRE_E_RESERVED);
	// [PKT-31] BUNDLES (bit 8) on every connection packet, not a datagram
	for (auto name : {"send_only", "ack_plain", "nak_1", "probe_req"})
		EXPECT_EQ(check_edited(name,
				       [](mrc_pkt &p) { p.flags |= MRC_F_BUNDLES; }),
			  MRC_WIRE_OK) << name;
	EXPECT_EQ(check_edited("ud_gsi_mad",
			       [](mrc_pkt &p) { p.flags |= MRC_F_BUNDLES; }),
		  MRC_WIRE_E_BAD_FLAGS);
}

// [PKT-31] [PKT-32] [PKT-33] [PKT-42] flags allowed per type and consistent.
TEST(WireReject, BadFlags)
{
	auto flags = [](u16 f) {
		return [f](std::vector<u8> &b) {
			u16 old = mrc_get_be16(b.data() + MRC_WO_FLAGS);
			mrc_put_be16(b.data() + MRC_WO_FLAGS, old | f);
		};
	};
	// not allowed for the type
	EXPECT_EQ(parse_edited("ack_plain", flags(MRC_F_FIRST)),
		  MRC_WIRE_E_BAD_FLAGS);
	EXPECT_EQ(parse_edited("nak_1", flags(MRC_F_CE_ECHO)),
		  MRC_WIRE_E_BAD_FLAGS);
	EXPECT_EQ(parse_edited("probe_req", flags(MRC_F_ACK_REQ)),
		  MRC_WIRE_E_BAD_FLAGS);
	EXPECT_EQ(parse_edited("send_only", flags(MRC_F_CE_ECHO)),
		  MRC_WIRE_E_BAD_FLAGS);
	EXPECT_EQ(check_edited("write_first",
			       [](mrc_pkt &p) { p.flags |= MRC_F_INV; }),
		  MRC_WIRE_E_BAD_FLAGS);
	EXPECT_EQ(check_edited("read_req",
			       [](mrc_pkt &p) { p.flags |= MRC_F_IMM; }),
		  MRC_WIRE_E_BAD_FLAGS);
	// IMM and INV exclusive; IMM/INV/SOLICITED only on the last packet
	EXPECT_EQ(check_edited("send_last_imm",
			       [](mrc_pkt &p) { p.flags |= MRC_F_INV; }),
		  MRC_WIRE_E_BAD_FLAGS);
	for (u16 f : {MRC_F_IMM, MRC_F_INV, MRC_F_SOLICITED})
		EXPECT_EQ(check_edited("send_first",
				       [f](mrc_pkt &p) { p.flags |= f; }),
			  MRC_WIRE_E_BAD_FLAGS) << f;
	// FIRST iff offset 0, LAST iff the segment ends the message
	EXPECT_EQ(parse_edited("send_middle", flags(MRC_F_FIRST)),
		  MRC_WIRE_E_BAD_FLAGS);
	EXPECT_EQ(parse_edited("send_middle", flags(MRC_F_LAST)),
		  MRC_WIRE_E_BAD_FLAGS);
	EXPECT_EQ(check_edited("send_first",
			       [](mrc_pkt &p) { p.flags &= ~MRC_F_FIRST; }),
		  MRC_WIRE_E_BAD_FLAGS);
	EXPECT_EQ(check_edited("read_resp_last",
			       [](mrc_pkt &p) { p.flags &= ~MRC_F_LAST; }),
		  MRC_WIRE_E_BAD_FLAGS);
	// single-packet requests carry FIRST|LAST
	for (auto name : {"read_req", "atomic_cmp_swap", "atomic_resp"})
		EXPECT_EQ(check_edited(name,
				       [](mrc_pkt &p) { p.flags &= ~MRC_F_LAST; }),
			  MRC_WIRE_E_BAD_FLAGS) << name;
}

// [PKT-43] [PKT-44] [PKT-95] length fields.
TEST(WireReject, BadLength)
{
	// payload on a type that carries none
	for (auto name : {"read_req", "atomic_cmp_swap", "atomic_resp",
			  "ack_plain", "nak_3"}) {
		auto b = encode(sample(name).pkt);
		b.insert(b.end() - 4, {1, 2, 3, 4});
		reseal(b);
		EXPECT_EQ(parse(b), MRC_WIRE_E_BAD_LENGTH) << name;
	}
	EXPECT_EQ(check_edited("send_only",
			       [](mrc_pkt &p) {
				       p.send.total_len = MRC_WIRE_MAX_MSG_LEN + 1;
			       }),
		  MRC_WIRE_E_BAD_LENGTH);
	EXPECT_EQ(check_edited("read_req",
			       [](mrc_pkt &p) {
				       p.read_req.len = MRC_WIRE_MAX_MSG_LEN + 1;
			       }),
		  MRC_WIRE_E_BAD_LENGTH);
	// an empty segment of a non-empty message
	EXPECT_EQ(check_edited("send_empty",
			       [](mrc_pkt &p) {
				       p.send.total_len = 10;
				       p.flags = MRC_F_FIRST;
			       }),
		  MRC_WIRE_E_BAD_LENGTH);
	// the largest message is allowed, its last byte included
	EXPECT_EQ(check_edited("write_last_imm",
			       [](mrc_pkt &p) {
				       p.write.total_len = MRC_WIRE_MAX_MSG_LEN;
				       p.write.offset = MRC_WIRE_MAX_MSG_LEN -
							p.payload_len;
			       }),
		  MRC_WIRE_OK);
}

// [PKT-41] offset + payload must stay inside the message, without wrap.
TEST(WireReject, BadOffset)
{
	EXPECT_EQ(parse_edited("send_middle",
			       [](auto &b) {
				       put32(b, MRC_WO_SEND_OFFSET, 8000);
			       }),
		  MRC_WIRE_E_BAD_OFFSET);
	EXPECT_EQ(parse_edited("write_last_imm",
			       [](auto &b) {
				       put32(b, MRC_WO_WRITE_OFFSET, 0xfffff000);
			       }),
		  MRC_WIRE_E_BAD_OFFSET);
	EXPECT_EQ(parse_edited("read_resp_last",
			       [](auto &b) {
				       put32(b, MRC_WO_RRESP_TOTAL, 1000);
			       }),
		  MRC_WIRE_E_BAD_OFFSET);
}

// [PKT-46] [PKT-50] [PKT-55] the target range must not wrap 2^64.
TEST(WireReject, VaOverflow)
{
	EXPECT_EQ(check_edited("write_first",
			       [](mrc_pkt &p) { p.write.va = ~0ull - 100; }),
		  MRC_WIRE_E_VA_OVERFLOW);
	EXPECT_EQ(check_edited("read_req",
			       [](mrc_pkt &p) { p.read_req.va = ~0ull; }),
		  MRC_WIRE_E_VA_OVERFLOW);
	EXPECT_EQ(check_edited("atomic_cmp_swap",
			       [](mrc_pkt &p) { p.atomic.va = ~0ull - 6; }),
		  MRC_WIRE_E_VA_OVERFLOW);
	EXPECT_EQ(check_edited("atomic_cmp_swap",
			       [](mrc_pkt &p) { p.atomic.va = ~0ull - 7; }),
		  MRC_WIRE_OK);
	EXPECT_EQ(check_edited("read_req_empty",
			       [](mrc_pkt &p) { p.read_req.va = ~0ull; }),
		  MRC_WIRE_OK);
	EXPECT_EQ(parse_edited("write_top_byte",
			       [](auto &b) { put32(b, MRC_WO_WRITE_TOTAL, 2); }),
		  MRC_WIRE_E_VA_OVERFLOW);
}

// [PKT-56] [PKT-70] [PKT-75] enumerated fields.
TEST(WireReject, BadField)
{
	for (int op : {0, 3, 0xff})
		EXPECT_EQ(parse_edited("atomic_cmp_swap",
				       [op](auto &b) {
					       b[MRC_WO_ATOMIC_OP] = (u8)op;
				       }),
			  MRC_WIRE_E_BAD_FIELD) << op;
	for (int code : {0, MRC_NAK_CODE_MAX + 1, 0xff})
		EXPECT_EQ(parse_edited("nak_1",
				       [code](auto &b) {
					       b[MRC_WO_NAK_CODE] = (u8)code;
				       }),
			  MRC_WIRE_E_BAD_FIELD) << code;
	for (int kind : {0, 3, 0xff})
		EXPECT_EQ(parse_edited("probe_req",
				       [kind](auto &b) {
					       b[MRC_WO_PROBE_KIND] = (u8)kind;
				       }),
			  MRC_WIRE_E_BAD_FIELD) << kind;
	EXPECT_EQ(parse_edited("probe_resp",
			       [](auto &b) { b[MRC_WO_PROBE_MIN_VER] = 0; }),
		  MRC_WIRE_E_BAD_FIELD);
	EXPECT_EQ(parse_edited("probe_resp",
			       [](auto &b) { b[MRC_WO_PROBE_MIN_VER] = 2; }),
		  MRC_WIRE_E_BAD_FIELD);
}

// Encoding never writes past the caller's buffer.
TEST(WireReject, NoSpace)
{
	for (const auto &s : wire_samples()) {
		SCOPED_TRACE(s.name);
		u32 need = mrc_wire_hdr_len(&s.pkt) + s.pkt.payload_len + 4;
		std::vector<u8> buf(need + 16, 0x5a);
		u32 len = 0;
		EXPECT_EQ(mrc_wire_encode(&s.pkt, buf.data(), need - 1, &len),
			  MRC_WIRE_E_NO_SPACE);
		for (u32 i = 0; i < buf.size(); i++)
			ASSERT_EQ(buf[i], 0x5a) << "wrote byte " << i;
		EXPECT_EQ(mrc_wire_encode_hdr(&s.pkt, buf.data(),
					      mrc_wire_hdr_len(&s.pkt) - 1, &len),
			  MRC_WIRE_E_NO_SPACE);
		ASSERT_EQ(mrc_wire_encode(&s.pkt, buf.data(), need, &len),
			  MRC_WIRE_OK);
		EXPECT_EQ(len, need);
		for (u32 i = need; i < buf.size(); i++)
			ASSERT_EQ(buf[i], 0x5a) << "wrote byte " << i;
	}
}

// [PKT-96] the largest packet is accepted; no prefix of a sample parses
// unless a valid ICRC and the whole header are there.
TEST(WireBoundary, Lengths)
{
	auto s = sample("send_first");
	std::vector<u8> big(MRC_WIRE_MAX_PKT_LEN - mrc_wire_hdr_len(&s.pkt) -
			    MRC_WIRE_ICRC_LEN, 7);
	s.pkt.payload = big.data();
	s.pkt.payload_len = (u32)big.size();
	s.pkt.send.total_len = 1u << 20;
	auto b = encode(s.pkt);
	ASSERT_EQ(b.size(), (size_t)MRC_WIRE_MAX_PKT_LEN);
	EXPECT_EQ(parse(b), MRC_WIRE_OK);
	s.pkt.payload_len++;
	EXPECT_EQ(mrc_wire_check(&s.pkt), MRC_WIRE_E_TOO_LONG);

	for (const auto &w : wire_samples()) {
		auto e = encode(w.pkt);
		for (u32 n = 0; n < e.size(); n++) {
			mrc_pkt out;
			// unsealed prefix in a right-sized heap buffer: ASan
			// catches any read beyond n
			std::vector<u8> c(e.begin(), e.begin() + n);
			EXPECT_NE(mrc_wire_parse(c.data(), n, &out), MRC_WIRE_OK)
				<< w.name << " " << n;
			// resealed: with its header cut, it cannot parse (a
			// shorter payload may well be a valid packet)
			if (n >= mrc_wire_hdr_len(&w.pkt) + MRC_WIRE_ICRC_LEN)
				continue;
			reseal(c);
			EXPECT_NE(mrc_wire_parse(c.data(), n, &out), MRC_WIRE_OK)
				<< w.name << " " << n;
		}
	}
}

// Random headers with a valid ICRC: whatever parses re-encodes to the same
// bytes, whatever is rejected has a known reason.
TEST(WireBoundary, RandomHeadersResealed)
{
	std::mt19937_64 rng(12345);
	auto samples = wire_samples();
	int ok = 0;
	for (int iter = 0; iter < 200000; iter++) {
		auto b = encode(samples[rng() % samples.size()].pkt);
		int nflips = 1 + rng() % 3;
		u32 hdr = std::min<u32>((u32)b.size() - 4, 100);
		for (int i = 0; i < nflips; i++)
			b[rng() % hdr] ^= (u8)(1u << (rng() % 8));
		reseal(b);
		mrc_pkt out;
		auto r = mrc_wire_parse(b.data(), (u32)b.size(), &out);
		ASSERT_LT((int)r, (int)MRC_WIRE_REASON_COUNT);
		ASSERT_NE(r, MRC_WIRE_E_BAD_CRC);
		if (r == MRC_WIRE_OK) {
			ok++;
			ASSERT_EQ(encode(out), b);
		}
	}
	EXPECT_GT(ok, 1000);
}

// [ENC-13] a bundle whose layout is wrong is dropped whole: its packets
// cannot be told apart
TEST(WireReject, PacketBundleLayout)
{
	std::vector<u8> a = encode(wire_samples()[0].pkt);
	std::vector<u8> b = encode(wire_samples()[1].pkt);
	u16 lens[3] = { (u16)a.size(), (u16)b.size(), (u16)a.size() };
	auto bundle = [&](u32 n) {
		std::vector<u8> d(mrc_wire_pbundle_hdr_len(n));
		EXPECT_EQ(mrc_wire_pbundle_encode_hdr(lens, n, d.data(),
						      (u32)d.size()),
			  MRC_WIRE_OK);
		for (u32 i = 0; i < n; i++) {
			const auto &p = i == 1 ? b : a;
			d.insert(d.end(), p.begin(), p.end());
		}
		return d;
	};
	auto split = [](const std::vector<u8> &d, u32 avail) {
		mrc_wire_pbundle out;
		return mrc_wire_pbundle_parse(d.data(), avail, (u32)d.size(),
					      &out);
	};
	auto ok2 = bundle(2), ok3 = bundle(3);
	ASSERT_EQ(split(ok2, (u32)ok2.size()), MRC_WIRE_OK);
	ASSERT_EQ(split(ok3, (u32)ok3.size()), MRC_WIRE_OK);

	auto d = ok2;
	d[0] = 2;
	EXPECT_EQ(split(d, (u32)d.size()), MRC_WIRE_E_BAD_VERSION);
	d = ok2;
	d[1] = MRC_PKT_ACK;
	EXPECT_EQ(split(d, (u32)d.size()), MRC_WIRE_E_BAD_TYPE);
	for (u8 n : { 0, 1, MRC_WIRE_PBUNDLE_MAX + 1, 255 }) {
		d = ok2;
		d[2] = n;
		EXPECT_EQ(split(d, (u32)d.size()), MRC_WIRE_E_BAD_LENGTH) << +n;
	}
	d = ok2;
	d[3] = 1;
	EXPECT_EQ(split(d, (u32)d.size()), MRC_WIRE_E_RESERVED);
	d = ok3;	// an odd count's padding
	d[mrc_wire_pbundle_hdr_len(3) - 1] = 1;
	EXPECT_EQ(split(d, (u32)d.size()), MRC_WIRE_E_RESERVED);
	// lengths: too small, past the end, not adding up
	d = ok2;
	d[4] = 0;
	d[5] = MRC_WIRE_MIN_PKT_LEN - 1;
	EXPECT_EQ(split(d, (u32)d.size()), MRC_WIRE_E_BAD_LENGTH);
	d = ok2;
	d[6] = 0xff;
	EXPECT_EQ(split(d, (u32)d.size()), MRC_WIRE_E_BAD_LENGTH);
	d = ok2;
	d.push_back(0);
	EXPECT_EQ(split(d, (u32)d.size()), MRC_WIRE_E_BAD_LENGTH);
	d = ok2;
	d.pop_back();
	EXPECT_EQ(split(d, (u32)d.size()), MRC_WIRE_E_BAD_LENGTH);
	// the table must be in the contiguous part; nothing read past it
	EXPECT_EQ(split(ok3, mrc_wire_pbundle_hdr_len(3) - 1),
		  MRC_WIRE_E_TRUNCATED);
	EXPECT_EQ(split(ok3, mrc_wire_pbundle_hdr_len(3)), MRC_WIRE_OK);
	EXPECT_EQ(split(ok2, 3), MRC_WIRE_E_TRUNCATED);
	d.assign(MRC_WIRE_MAX_PKT_LEN + 1, 0);
	EXPECT_EQ(split(d, 16), MRC_WIRE_E_TOO_LONG);
}
