// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Congestion control in an N-to-1 incast (sim/incast.h): the receiver's
// link stays busy, senders share it fairly, the ECN queue stays bounded,
// and every ACK carries the fair share ([CC-4], [CC-5], [CC-10]..[CC-12]).
#include <gtest/gtest.h>

#include <cstdio>

#include "sim/incast.h"

namespace {

struct Result {
	double util;		// payload bytes / link capacity, second half
	double jain;		// fairness of the senders' second-half bytes
	uint64_t max_queue, max_queue_late;
};

Result run(mrcsim::IncastCfg cfg)
{
	mrcsim::Incast sim(cfg);
	double sum = 0, sq = 0;

	sim.run();
	for (const std::string &e : sim.stats().errors)
		ADD_FAILURE() << e;
	for (uint64_t b : sim.stats().bytes_late) {
		sum += (double)b;
		sq += (double)b * (double)b;
	}
	Result r;
	r.util = sum / (cfg.rate_bpns * (double)(cfg.duration_ns / 2));
	r.jain = sq > 0 ? sum * sum / (cfg.senders * sq) : 0;
	r.max_queue = sim.stats().max_queue;
	r.max_queue_late = sim.stats().max_queue_late;
	printf("[          ] %u senders x %u paths, hint %s: link use %.1f%%, Jain %.3f, "
	       "queue max %llu KiB (%llu KiB in steady state), %llu CE\n",
	       cfg.senders, cfg.npaths, cfg.rate_hint ? "on" : "off", 100 * r.util,
	       r.jain, (unsigned long long)r.max_queue / 1024,
	       (unsigned long long)r.max_queue_late / 1024,
	       (unsigned long long)sim.stats().ce_marked);
	if (cfg.rate_hint)
		for (uint32_t i = 0; i < cfg.senders; i++)
			EXPECT_NEAR((double)sim.sender(i)->cc.hint_bps,
				    cfg.rate_bpns * 1e9 / cfg.senders,
				    cfg.rate_bpns * 1e9 / cfg.senders / 50 + 125000)
				<< "sender " << i << " hint";
	return r;
}

} // namespace

// [CC-10] [CC-11] [CC-12] eight senders: fair, full, shallow queue
TEST(CcIncast, EightSendersWithHint)
{
	mrcsim::IncastCfg cfg;
	Result r = run(cfg);

	EXPECT_GE(r.util, 0.85);
	EXPECT_GE(r.jain, 0.95);
	EXPECT_LE(r.max_queue_late, 4u * cfg.ecn_bytes);
}

// [CC-4] [CC-5] ECN alone (no hint) still keeps the queue bounded
TEST(CcIncast, EightSendersEcnOnly)
{
	mrcsim::IncastCfg cfg;

	cfg.rate_hint = false;
	Result r = run(cfg);
	EXPECT_GE(r.util, 0.85);
	EXPECT_GE(r.jain, 0.9);
	EXPECT_LE(r.max_queue_late, 6u * cfg.ecn_bytes);
}

// [CC-11] a larger incast converges too
TEST(CcIncast, ThirtyTwoSenders)
{
	mrcsim::IncastCfg cfg;

	cfg.senders = 32;
	cfg.npaths = 2;
	Result r = run(cfg);
	EXPECT_GE(r.util, 0.85);
	EXPECT_GE(r.jain, 0.9);
}
