// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The data the verbs tools move: byte i of the stream named seed depends
// on both, so misplaced, shifted or stale data all show; FNV-1a sums let
// two hosts compare what went over.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mrc_tool {

inline uint8_t pattern(uint64_t seed, uint64_t i)
{
	uint64_t x = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (i >> 3) * 0xbf58476d1ce4e5b9ull;

	x ^= x >> 31;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 29;
	return static_cast<uint8_t>(x >> ((i & 7) * 8));
}

inline void fill(uint8_t *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern(seed, i);
}

// Offset of the first wrong byte, or -1.
inline long check(const uint8_t *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern(seed, i))
			return static_cast<long>(i);
	return -1;
}

inline uint64_t fnv1a(const uint8_t *p, size_t len, uint64_t h = 0xcbf29ce484222325ull)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

}  // namespace mrc_tool
