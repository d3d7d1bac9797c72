// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The ICRC: CRC32C known answers, incremental use, and detection of every
// single-bit error in every sample packet ([INT-1] .. [INT-5]).
#include <gtest/gtest.h>

#include <random>

#include "wire_samples.h"

using namespace mrc_test;

// [INT-1] CRC32C (Castagnoli), reflected, init and xorout 0xffffffff:
// the check value and the iSCSI test vectors of RFC 3720 B.4.
TEST(WireIcrc, KnownAnswers)
{
	EXPECT_EQ(mrc_wire_icrc("123456789", 9), 0xe3069283u);
	std::vector<u8> v(32, 0);
	EXPECT_EQ(mrc_wire_icrc(v.data(), 32), 0x8a9136aau);
	std::fill(v.begin(), v.end(), 0xff);
	EXPECT_EQ(mrc_wire_icrc(v.data(), 32), 0x62a8ab43u);
	for (int i = 0; i < 32; i++)
		v[i] = (u8)i;
	EXPECT_EQ(mrc_wire_icrc(v.data(), 32), 0x46dd794eu);
	for (int i = 0; i < 32; i++)
		v[i] = (u8)(31 - i);
	EXPECT_EQ(mrc_wire_icrc(v.data(), 32), 0x113fdb5cu);
	EXPECT_EQ(mrc_wire_icrc(nullptr, 0), 0u);
}

// [INT-6] the running form over fragments equals the one-shot form, at
// every split point and alignment (the kernel feeds skb fragments).
TEST(WireIcrc, IncrementalEqualsOneShot)
{
	auto data = pattern(1000, 3);
	u32 whole = mrc_wire_icrc(data.data(), (u32)data.size());
	for (u32 split = 0; split <= 64; split++) {
		for (u32 split2 = split; split2 <= split + 17; split2++) {
			u32 st = MRC_WIRE_ICRC_SEED;
			st = mrc_wire_icrc_update(st, data.data(), split);
			st = mrc_wire_icrc_update(st, data.data() + split,
						  split2 - split);
			st = mrc_wire_icrc_update(st, data.data() + split2,
						  (u32)data.size() - split2);
			ASSERT_EQ(mrc_wire_icrc_final(st), whole)
				<< split << " " << split2;
		}
	}
}

// [INT-2] the trailer is the big-endian CRC of everything before it.
TEST(WireIcrc, TrailerIsBigEndianCrcOfBody)
{
	for (const auto &s : wire_samples()) {
		auto b = encode(s.pkt);
		u32 body = (u32)b.size() - 4;
		EXPECT_EQ(mrc_get_be32(b.data() + body),
			  mrc_wire_icrc(b.data(), body)) << s.name;
	}
}

// [INT-1] the dispatched CRC (hardware where the CPU has it) and the
// portable table-driven one are the same function, at every length and
// alignment.
TEST(WireIcrc, HardwareEqualsPortable)
{
	std::mt19937 rng(11);
	std::vector<u8> data(5000 + 8);
	for (auto &b : data)
		b = (u8)rng();
	for (u32 align = 0; align < 8; align++)
		for (u32 len = 0; len < 300; len++)
			ASSERT_EQ(mrc_wire_icrc_update(0x12345678, data.data() + align,
						       len),
				  mrc_wire_icrc_update_portable(
					  0x12345678, data.data() + align, len))
				<< align << " " << len;
	// around the 3 x 256-byte interleaved blocks of the x86 path
	for (u32 len : {767u, 768u, 769u, 1535u, 1536u, 1537u, 4095u, 4096u,
			4999u})
		for (u32 align = 0; align < 8; align++)
			EXPECT_EQ(mrc_wire_icrc_update(~0u, data.data() + align,
						       len),
				  mrc_wire_icrc_update_portable(
					  ~0u, data.data() + align, len))
				<< len << " " << align;
	EXPECT_EQ(~mrc_wire_icrc_update_portable(~0u, "123456789", 9),
		  0xe3069283u);
}

// The implementation choice changes speed only: the CPU path on request,
// the dispatcher with the instruction turned off, all give one answer.
TEST(WireIcrc, ChoiceKeepsTheFunction)
{
	std::mt19937 rng(12);
	std::vector<u8> data(1100);
	for (auto &b : data)
		b = (u8)rng();
	u32 want = mrc_wire_icrc_update_portable(~0u, data.data(), 1100);
	EXPECT_EQ(mrc_wire_icrc_update_cpu(~0u, data.data(), 1100), want);
	mrc_wire_icrc_use_cpu(false);
	EXPECT_EQ(mrc_wire_icrc_update(~0u, data.data(), 1100), want);
	mrc_wire_icrc_use_cpu(true);
	EXPECT_EQ(mrc_wire_icrc_update(~0u, data.data(), 1100), want);
}

// [INT-3] [INT-5] any single-bit error anywhere in any sample packet is
// caught: the ICRC check fails (or, for the version byte, which is read
// first, the version check).
TEST(WireIcrc, EverySingleBitFlipDetected)
{
	long flips = 0;
	for (const auto &s : wire_samples()) {
		auto b = encode(s.pkt);
		for (size_t i = 0; i < b.size(); i++) {
			for (int bit = 0; bit < 8; bit++) {
				b[i] ^= (u8)(1 << bit);
				mrc_pkt out;
				auto r = mrc_wire_parse(b.data(), (u32)b.size(),
							&out);
				b[i] ^= (u8)(1 << bit);
				if (i == MRC_WO_VERSION)
					ASSERT_EQ(r, MRC_WIRE_E_BAD_VERSION);
				else
					ASSERT_EQ(r, MRC_WIRE_E_BAD_CRC)
						<< s.name << " byte " << i
						<< " bit " << bit;
				flips++;
			}
		}
	}
	EXPECT_GT(flips, 100000);
}

// CRC32C detects all bursts up to 32 bits; check random 2..32-bit bursts.
TEST(WireIcrc, BurstErrorsDetected)
{
	std::mt19937 rng(7);
	auto b = encode(wire_samples()[1].pkt);
	for (int iter = 0; iter < 20000; iter++) {
		auto c = b;
		u32 len = 2 + rng() % 31;
		u32 start = rng() % (u32)(c.size() * 8 - len);
		// first and last bit of the burst always flip
		for (u32 k = 0; k < len; k++)
			if (k == 0 || k == len - 1 || (rng() & 1))
				c[(start + k) / 8] ^= (u8)(1 << ((start + k) % 8));
		mrc_pkt out;
		ASSERT_NE(mrc_wire_parse(c.data(), (u32)c.size(), &out),
			  MRC_WIRE_OK);
	}
}
