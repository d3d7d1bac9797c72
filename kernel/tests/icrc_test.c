// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the ICRC (core/icrc.c) against the kernel's own CRC32C.
 *
 * The core carries two implementations (slicing-by-8 C and, on x86-64
 * with SSE4.2, the crc32 instruction). Both must compute exactly the
 * function lib/crc32.c calls __crc32c_le(), at every length, alignment
 * and split, or two peers would reject each other's packets.
 */
#include <kunit/test.h>
#include <linux/crc32.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "../core/wire.h"

#define MRC_T_MAX	600

static void mrc_icrc_known_answers(struct kunit *test)
{
	static const u8 zeros[32];
	static const char digits[] = "123456789";
	u32 st;

	/* The CRC-32C check value (RFC 3720, B.4 test vectors). */
	KUNIT_EXPECT_EQ(test, mrc_wire_icrc(digits, 9), 0xe3069283u);
	KUNIT_EXPECT_EQ(test, mrc_wire_icrc(zeros, 32), 0x8a9136aau);
	KUNIT_EXPECT_EQ(test, mrc_wire_icrc(digits, 0), 0u);
	st = mrc_wire_icrc_update_portable(MRC_WIRE_ICRC_SEED, digits, 9);
	KUNIT_EXPECT_EQ(test, mrc_wire_icrc_final(st), 0xe3069283u);
}

/* Every length and start alignment: fast path == portable == kernel. */
static void mrc_icrc_matches_kernel_crc32c(struct kunit *test)
{
	u8 *buf = kunit_kmalloc(test, MRC_T_MAX + 8, GFP_KERNEL);
	const u32 seed = MRC_WIRE_ICRC_SEED;
	struct rnd_state rnd;
	u32 len, off;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	prandom_seed_state(&rnd, 42);
	prandom_bytes_state(&rnd, buf, MRC_T_MAX + 8);
	for (off = 0; off < 8; off++)
		for (len = 0; len <= MRC_T_MAX; len++) {
			u32 want = __crc32c_le(~0u, buf + off, len);
			u32 fast = mrc_wire_icrc_update(seed, buf + off, len);
			u32 slow = mrc_wire_icrc_update_portable(seed,
								 buf + off,
								 len);

			KUNIT_ASSERT_EQ_MSG(test, fast, want,
					    "len %u offset %u", len, off);
			KUNIT_ASSERT_EQ_MSG(test, slow, want,
					    "len %u offset %u", len, off);
		}
}

/* Fed in pieces (skb fragments) the running state gives the same CRC. */
static void mrc_icrc_incremental_any_split(struct kunit *test)
{
	u8 *buf = kunit_kmalloc(test, MRC_T_MAX, GFP_KERNEL);
	struct rnd_state rnd;
	u32 whole, a, b;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	prandom_seed_state(&rnd, 7);
	prandom_bytes_state(&rnd, buf, MRC_T_MAX);
	whole = mrc_wire_icrc(buf, MRC_T_MAX);
	for (a = 0; a <= MRC_T_MAX; a += 13)
		for (b = a; b <= MRC_T_MAX; b += 29) {
			u32 st = MRC_WIRE_ICRC_SEED;

			st = mrc_wire_icrc_update(st, buf, a);
			st = mrc_wire_icrc_update(st, buf + a, b - a);
			st = mrc_wire_icrc_update(st, buf + b, MRC_T_MAX - b);
			KUNIT_ASSERT_EQ_MSG(test, mrc_wire_icrc_final(st), whole,
					    "split at %u and %u", a, b);
		}
}

/* A sealed packet verifies; any change to the body breaks it. */
static void mrc_icrc_seal_detects_changes(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 64 + MRC_WIRE_ICRC_LEN, GFP_KERNEL);
	u32 i, sealed;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	for (i = 0; i < 64; i++)
		buf[i] = i;
	mrc_wire_seal(buf, 64);
	sealed = get_unaligned_be32(buf + 64);
	KUNIT_EXPECT_EQ(test, sealed, mrc_wire_icrc(buf, 64));
	/* swapping two different bytes changes the CRC */
	swap(buf[10], buf[11]);
	KUNIT_EXPECT_NE(test, mrc_wire_icrc(buf, 64), sealed);
	swap(buf[10], buf[11]);
	/* so does a 32-bit burst anywhere */
	for (i = 0; i + 4 <= 64; i++) {
		put_unaligned_be32(get_unaligned_be32(buf + i) ^ 0xffffffffu,
				   buf + i);
		KUNIT_EXPECT_NE(test, mrc_wire_icrc(buf, 64), sealed);
		put_unaligned_be32(get_unaligned_be32(buf + i) ^ 0xffffffffu,
				   buf + i);
	}
	KUNIT_EXPECT_EQ(test, mrc_wire_icrc(buf, 64), sealed);
}

static struct kunit_case mrc_icrc_cases[] = {
	KUNIT_CASE(mrc_icrc_known_answers),
	KUNIT_CASE(mrc_icrc_matches_kernel_crc32c),
	KUNIT_CASE(mrc_icrc_incremental_any_split),
	KUNIT_CASE(mrc_icrc_seal_detects_changes),
	{}
};

static struct kunit_suite mrc_icrc_suite = {
	.name = "metaroce_icrc",
	.test_cases = mrc_icrc_cases,
};

kunit_test_suite(mrc_icrc_suite);
