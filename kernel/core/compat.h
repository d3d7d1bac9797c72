/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The portable core's only view of its environment.
 *
 * Everything in kernel/core/ is built twice: into metaroce.ko and into the
 * userspace tests, fuzzers and simulator. Core files include this header
 * and nothing else from outside the core, so the set of things the core may
 * use is exactly what is defined here: fixed-width types, memcpy/memset,
 * big-endian loads and stores at any alignment, branch hints and a
 * compile-time assertion. No allocation, no locks, no clocks, no I/O.
 * In the kernel, what differs between kernel versions comes from the
 * module's one compat header, ../kcompat.h.
 */
#ifndef MRC_CORE_COMPAT_H
#define MRC_CORE_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/string.h>
#include <linux/compiler.h>
#include <linux/build_bug.h>
/* the unaligned accessors, wherever this kernel keeps them */
#include "../kcompat.h"

#define MRC_STATIC_ASSERT(cond, msg) static_assert(cond, msg)

#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
/* The SSE4.2 crc32 instruction is integer-only: no FPU state to save. */
#define mrc_cpu_has_crc32c() boot_cpu_has(X86_FEATURE_XMM4_2)
#endif

static inline u16 mrc_get_be16(const u8 *p)
{
	return get_unaligned_be16(p);
}

static inline u32 mrc_get_be32(const u8 *p)
{
	return get_unaligned_be32(p);
}

static inline u64 mrc_get_be64(const u8 *p)
{
	return get_unaligned_be64(p);
}

static inline void mrc_put_be16(u8 *p, u16 v)
{
	put_unaligned_be16(v, p);
}

static inline void mrc_put_be32(u8 *p, u32 v)
{
	put_unaligned_be32(v, p);
}

static inline void mrc_put_be64(u8 *p, u64 v)
{
	put_unaligned_be64(v, p);
}

#else /* userspace: tests, fuzzers, simulator */

#include <assert.h>
#include <stddef.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* The compiler's own names, so no <stdint.h> spelling leaks into the core. */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT8_TYPE__ s8;
typedef __INT16_TYPE__ s16;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

/* C11 <assert.h> and C++ both spell it static_assert. */
#define MRC_STATIC_ASSERT(cond, msg) static_assert(cond, msg)

#ifdef __x86_64__
#define mrc_cpu_has_crc32c() __builtin_cpu_supports("sse4.2")
#endif

/*
 * Byte at a time: correct at any alignment and on any host byte order;
 * gcc and clang turn each of these into a single load/store plus bswap.
 */
static inline u16 mrc_get_be16(const u8 *p)
{
	return (u16)((u16)p[0] << 8 | p[1]);
}

static inline u32 mrc_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 mrc_get_be64(const u8 *p)
{
	return (u64)mrc_get_be32(p) << 32 | mrc_get_be32(p + 4);
}

static inline void mrc_put_be16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static inline void mrc_put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static inline void mrc_put_be64(u8 *p, u64 v)
{
	mrc_put_be32(p, (u32)(v >> 32));
	mrc_put_be32(p + 4, (u32)v);
}

#endif /* __KERNEL__ */

#define MRC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline u32 mrc_min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

static inline u32 mrc_max_u32(u32 a, u32 b)
{
	return a > b ? a : b;
}

static inline u64 mrc_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static inline u64 mrc_max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

/*
 * Serial-number arithmetic (RFC 1982) for 32-bit wrapping sequence spaces
 * (PSN, MSN, SSN, RSN): a is before b when the signed distance is negative.
 */
static inline bool mrc_seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline bool mrc_seq_after(u32 a, u32 b)
{
	return (s32)(b - a) < 0;
}

#endif /* MRC_CORE_COMPAT_H */
