// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Small runs of every scenario of the data-centre simulator (userspace/sim,
// issue 35), metaroce driven through the real core: every byte delivered
// once (the flows check each segment and fail the run otherwise),
// completions in order, no connection error, and coarse targets against
// the ideal bound measured in the same fabric. Plus the simulator's own
// parts: its event order and the flows' checks themselves.
#include <gtest/gtest.h>

#include <random>

#include "event_queue.h"
#include "prop_scale.h"
#include "scenario.h"

namespace {

using scale::Result;
using scale::Scenario;

// 16 hosts in 4 leaves, 4 spines and 2 planes per host: every leaf uplink
// carries several flows' paths.
Scenario small(const char *transport, const char *traffic)
{
	Scenario sc;

	sc.fab.hosts = 16;
	sc.fab.per_leaf = 4;
	sc.fab.spines = 4;
	sc.fab.planes = 2;
	sc.tc.kind = transport;
	// path timers for a NIC in a data centre: the core's defaults (5 ms
	// first RTO, 2 ms floor) are for software endpoints, and one RTO
	// would be most of a run here
	sc.tc.mrc_rto_init_ns = 200000;
	sc.tc.mrc_rto_min_ns = 100000;
	sc.traffic = traffic;
	sc.bytes = 8 << 20;
	sc.msg = 256 << 10;
	sc.incast = 8;
	sc.duration_ns = 3000000;
	sc.limit_ns = 200000000;
	return sc;
}

Result run(const Scenario &sc)
{
	Result r = scale::run_scenario(sc);

	printf("%s\n", scale::format_result(sc, r).c_str());
	return r;
}

void expect_clean(const Result &r)
{
	EXPECT_TRUE(r.completed) << r.error;
	EXPECT_EQ(r.error, "");
}

TEST(ScaleSim, EventsPopInTimeThenPushOrder)
{
	scale::EventQueue q;
	std::mt19937_64 rng(5);
	uint64_t now = 0, seq = 0, last_t = 0, last_seq = 0;
	size_t n = 0;

	// near and far events (beyond the calendar's span), pushed while popping
	for (int i = 0; i < 2000; i++)
		q.push({now + rng() % 200000, seq++, 1, 0, 0});
	scale::Ev e;
	while (q.pop(e)) {
		ASSERT_TRUE(e.t > last_t || (e.t == last_t && e.seq > last_seq) || n == 0)
			<< "event " << e.seq << " at " << e.t << " after " << last_seq
			<< " at " << last_t;
		last_t = e.t;
		last_seq = e.seq;
		now = e.t;
		n++;
		if (seq < 20000)
			for (int k = 0; k < 2; k++)
				q.push({now + (rng() % 3 ? rng() % 3000 : rng() % 2000000), seq++, 1, 0, 0});
	}
	EXPECT_EQ(n, seq);
}

// A flow that completes messages out of order must fail the run: the
// checks every scenario relies on can fire.
TEST(ScaleSim, FlowChecksCatchDisorder)
{
	struct Bad : scale::Flow {
		using Flow::Flow;
		void post(uint64_t len) override { lens_.push_back(len); msgs_posted++; }
		void recv(scale::Pkt &) override {}
		void timer(uint32_t) override { rx_complete(1, lens_[1]); }
	};
	scale::FabricCfg f;
	scale::Net net(f);
	auto bad = std::make_unique<Bad>(net, 0, 0, 1);

	bad->post(100);
	bad->post(100);
	net.add(std::move(bad));
	net.at(10, 0, 0);
	EXPECT_FALSE(net.run(1000, [] { return false; }));
	ASSERT_FALSE(net.errors().empty());
	EXPECT_NE(net.errors()[0].find("expected 0"), std::string::npos) << net.errors()[0];
}

TEST(ScaleSim, RingAllReduceNearTheBound)
{
	Result ideal = run(small("ideal", "ring"));
	Result mrc = run(small("mrc", "ring"));
	Result roce = run(small("roce", "ring"));

	expect_clean(ideal);
	expect_clean(mrc);
	expect_clean(roce);
	EXPECT_EQ(mrc.bytes_rx, ideal.bytes_rx);
	EXPECT_EQ(roce.bytes_rx, ideal.bytes_rx);
	// measured 0.70 of the bound (16 hosts, 2 planes): a coarse floor
	EXPECT_GE(mrc.tput, 0.4 * ideal.tput);
}

TEST(ScaleSim, PermutationUnderLoss)
{
	for (double loss : {0.01, 0.1}) {
		Scenario sc = small("mrc", "perm");

		sc.fab.loss = loss;
		Result r = run(sc);

		expect_clean(r);
		EXPECT_GT(r.net.drops_loss, 0u);
		EXPECT_EQ(r.bytes_rx, (uint64_t)sc.fab.hosts * sc.bytes);
	}
	// go-back-N recovers too (slowly): the baseline is a transport
	Scenario sc = small("roce", "perm");

	sc.fab.loss = 0.01;
	expect_clean(run(sc));
}

TEST(ScaleSim, SpineLinkFailsMidCollective)
{
	Scenario sc = small("mrc", "ring");
	Result healthy = run(sc);

	sc.fab.fail_plane = 0;
	sc.fab.fail_leaf = 1;
	sc.fab.fail_spine = 2;
	sc.fab.fail_at_ns = healthy.sim_ns / 4;
	Result failed = run(sc);

	expect_clean(failed);
	EXPECT_GT(failed.net.drops_failed, 0u) << "the failed link carried nothing";
	// measured 0.83 of the healthy run
	EXPECT_GE(failed.tput, 0.6 * healthy.tput);
}

// [REL-25] A ring step waits for its last byte, and at 1% loss most steps
// lose a packet in their last round trip: copies of each step's tail make
// the repair proactive. Measured over seeds 1-4 (16 hosts, 2 planes, 30
// steps of 512 KiB, 1% loss): without copies 0.738 of the lossless run,
// with the last 32 segments copied 0.806, and 1.08x the lossy throughput.
TEST(ScaleSim, TailCopiesKeepARingsThroughputUnderLoss)
{
	double clean = 0, lossy = 0, copied = 0, copied_clean = 0;
	// under the sanitizers one seed and the lossy runs only (seed 1:
	// 1.10x); they look for memory errors in the copies' bookkeeping
	bool full = mrctest::prop_scale() >= 1;
	int n = mrctest::seeds(4);

	for (int seed = 1; seed <= n; seed++) {
		Scenario sc = small("mrc", "ring");

		sc.fab.seed = seed;
		for (uint32_t k : {0u, 32u}) {
			sc.tc.mrc_tail_dup = k;
			for (double loss : {0.0, 0.01}) {
				if (!full && !loss)
					continue;
				sc.fab.loss = loss;
				Result r = run(sc);

				expect_clean(r);
				(k ? (loss ? copied : copied_clean) : (loss ? lossy : clean)) += r.tput;
			}
		}
	}
	EXPECT_GE(copied, 1.04 * lossy);
	if (!full)
		return;
	EXPECT_GE(copied / copied_clean, 0.78) << "without copies " << lossy / clean;
	EXPECT_GE(copied_clean, 0.95 * clean) << "the copies cost the lossless run";
}

TEST(ScaleSim, IncastIsFair)
{
	Result ideal = run(small("ideal", "incast"));
	Result mrc = run(small("mrc", "incast"));

	expect_clean(mrc);
	EXPECT_GE(ideal.jain, 0.99);
	// measured Jain 0.90 and 0.78 of the receiver's capacity (issue 35's
	// target is Jain >= 0.95: make bench-scale reports it)
	EXPECT_GE(mrc.jain, 0.75);
	EXPECT_GE(mrc.tput, 0.6);
}

// [CC-5] conn_ai_paths: a connection whose window grows a segment a round
// per path, as its paths' windows do, regrows from an incast's cuts in
// rounds, not in hundreds. Measured, seeds 1-3 (8 senders of 2 planes x 32
// paths into one host): 0.81 of the receiver's capacity at Jain 0.94-0.96
// with one segment a round, 0.90-0.93 at Jain 0.975-0.99 with the knob.
TEST(ScaleSim, ConnWindowGrowingWithItsPathsFillsAnIncast)
{
	double one = 0, per_path = 0;
	int n = mrctest::seeds(3);

	for (int seed = 1; seed <= n; seed++) {
		Scenario sc = small("mrc", "incast");

		sc.fab.seed = seed;
		Result a = run(sc);
		sc.tc.mrc_conn_ai_paths = true;
		Result b = run(sc);

		expect_clean(a);
		expect_clean(b);
		EXPECT_GE(b.jain, 0.97) << "seed " << seed;
		one += a.tput;
		per_path += b.tput;
	}
	EXPECT_GE(per_path, 1.05 * one);
}

} // namespace
