// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The fuzzer's randomness: one generator per datagram, seeded from
// (run seed, datagram index) alone, so any datagram of a run can be
// rebuilt without the ones before it. SplitMix64, and ranges mapped by
// multiplication rather than through <random>'s distributions, whose
// results differ between standard libraries.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mrc_netfuzz {

class Rng {
public:
	Rng(uint64_t seed, uint64_t index)
		: s_(mix(seed) ^ mix(index * 0xd1342543de82ef95ull + 1)) {}

	uint64_t next()
	{
		s_ += 0x9e3779b97f4a7c15ull;
		return mix(s_);
	}

	uint32_t u32() { return static_cast<uint32_t>(next() >> 32); }

	// Uniform in [0, n); 0 when n is 0.
	uint32_t below(uint32_t n)
	{
		return static_cast<uint32_t>((next() >> 32) * n >> 32);
	}

	// Uniform in [lo, hi].
	uint32_t range(uint32_t lo, uint32_t hi)
	{
		return lo + static_cast<uint32_t>(((next() >> 32) *
			(static_cast<uint64_t>(hi) - lo + 1)) >> 32);
	}

	// True with probability num/den.
	bool chance(uint32_t num, uint32_t den) { return below(den) < num; }

	void fill(uint8_t *p, size_t n)
	{
		for (size_t i = 0; i < n; i++)
			p[i] = static_cast<uint8_t>(next() >> 56);
	}

	// A value that is often at an edge: 0, 1, a power of two or one off
	// it, the top of the range, or plain random.
	uint32_t edgy32()
	{
		switch (below(8)) {
		case 0: return 0;
		case 1: return 1 + below(4);
		case 2: return 1u << below(32);
		case 3: return (1u << below(32)) - 1;
		case 4: return 0xffffffffu - below(4);
		default: return u32();
		}
	}

	uint64_t edgy64()
	{
		switch (below(6)) {
		case 0: return 0;
		case 1: return ~0ull - below(16);
		case 2: return 1ull << below(64);
		default: return next();
		}
	}

private:
	static uint64_t mix(uint64_t z)
	{
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		return z ^ (z >> 31);
	}

	uint64_t s_;
};

}  // namespace mrc_netfuzz
