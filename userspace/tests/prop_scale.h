// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// MRC_PROP_SCALE (default 1): how big the simulated runs of the tests are.
// make test-unit runs 1 in the normal build and a fraction under the
// sanitizers, where every simulated packet costs some 30 times more and
// what they look for (memory errors, undefined behaviour) shows in a
// smaller run as well as in a big one.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace mrctest {

inline double prop_scale()
{
	const char *s = getenv("MRC_PROP_SCALE");
	double v = s ? atof(s) : 1.0;

	return v > 0 ? v : 1.0;
}

// @n scaled, at least 1
inline uint64_t scaled(uint64_t n)
{
	uint64_t v = (uint64_t)(n * prop_scale());

	return v ? v : 1;
}

// How many seeds a test that averages over @n runs: a quarter of them
// (at least 1) under the sanitizers, which look for errors, not means.
inline int seeds(int n)
{
	return prop_scale() < 1 ? (n + 3) / 4 : n;
}

}  // namespace mrctest
