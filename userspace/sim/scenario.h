// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// One simulated experiment: a fabric, a transport and a traffic pattern,
// run to completion, with the invariants the flows check and the numbers
// the bench reports.
//   perm    every host sends @bytes to another (a random derangement), in
//           messages of @msg; throughput = bytes / time / host capacity
//   ring    ring all-reduce of @bytes per host over a random host order:
//           2(N-1) steps of bytes/N, each sent when the previous step's
//           chunk arrived; bus bandwidth = bytes 2(N-1)/N / time
// throughput: the bytes a host received / time / its capacity (a run cut
// short at limit_ns: so far)
//   a2a     all-to-all: every host sends @bytes/N to each other host, on a
//           connection per pair (N(N-1) of them), in messages of @msg;
//           throughput = bytes received / time / host capacity
//   incast  @incast senders into host 0 for @duration_ns; Jain fairness of
//           the second half and when the shares converged (in base RTTs)
#pragma once

#include "net.h"
#include "transports.h"

#include <cstdio>
#include <string>

namespace scale {

struct Scenario {
	FabricCfg fab;
	TransportCfg tc;
	std::string traffic = "ring";
	uint64_t bytes = 64ull << 20;
	uint64_t msg = 1 << 20;
	uint32_t incast = 16;
	uint64_t duration_ns = 4000000;
	uint64_t limit_ns = 2000000000;	// virtual time
	bool ring_shuffle = true;
	FILE *flows = nullptr;		// one line per flow at the end, if set
};

struct Result {
	bool completed = false;		// every message, no error
	std::string error;
	uint64_t sim_ns = 0;		// completion time (incast: duration)
	double wall_s = 0, cpu_s = 0;	// cpu: this process, user + system
	double tput = 0;		// of the hosts' capacity (planes x rate)
	double jain = 0, converge_rtts = -1;
	uint64_t bytes_rx = 0;
	NetStats net;
	std::string counters;		// the transport's, summed over flows
};

Result run_scenario(const Scenario &sc);
// One line of key=value pairs: the scenario's knobs, then the result.
std::string format_result(const Scenario &sc, const Result &r);

} // namespace scale
