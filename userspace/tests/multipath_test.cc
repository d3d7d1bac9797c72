// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Path steering on a fabric of parallel ECMP links ([PATH-5], [PATH-6],
// [PATH-7], [PATH-10], [PATH-11]): one connection, 4 paths, 4 links of
// rate R each, the links the bottleneck. Every byte is checked by the
// simulator (placed once, completed in order); these tests check where
// the bytes went and how fast the connection got them there around an
// event, against the targets of issue 31.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <set>

#include "prop_scale.h"
#include "sim/conn.h"
#include "sim/sim.h"

namespace {

using mrcsim::Blackhole;
using mrcsim::FabricLink;
using mrcsim::LinkCfg;
using mrcsim::Sim;
using mrcsim::Workload;

constexpr uint32_t kLinks = 4;
constexpr uint32_t kMss = 4096;
constexpr double kRate = 1.25;			// bytes/ns per link: 10 Gbit/s
constexpr uint64_t kBucket = 100000;		// 100 us
constexpr uint64_t kUs = 1000, kMs = 1000000;

mrc_conn_cfg conn_cfg(uint32_t repath_rounds = 4)
{
	mrc_conn_cfg c;

	mrc_conn_cfg_default(&c, 4, kMss);
	c.nstreams = 4;
	c.sched.repath_rounds = repath_rounds;
	return c;
}

// The timers as the module sets them for TCG guests (xport.c)
void module_timers(mrc_conn_cfg &c)
{
	c.path.rto_min_ns = 20 * kMs;
	c.path.rto_init_ns = 100 * kMs;
	c.cc.delay_target_ns = 30 * kMs;
}

LinkCfg fabric()
{
	LinkCfg l;

	l.rate_bpns = kRate;
	l.delay_ns = 5 * kUs;
	l.ecn_bytes = 40000;
	l.links = kLinks;
	l.bucket_ns = kBucket;
	return l;
}

Workload stream()
{
	Workload w;

	w.min_len = 256 * 1024;
	w.max_len = 1024 * 1024;
	w.outstanding = 32;
	w.messages = 1u << 30;		// the run's time limit ends it
	return w;
}

// Goodput over [from, to), as a fraction of @links links' capacity.
double share_of(const std::vector<uint64_t> &v, uint64_t from, uint64_t to,
		double links)
{
	uint64_t bytes = 0;

	for (uint64_t b = from / kBucket; b < to / kBucket && b < v.size(); b++)
		bytes += v[b];
	return (double)bytes / ((double)(to - from) * kRate * links);
}

// How long after @at the first window of 200 RTTs (2 ms) starts that
// holds at least @frac of @links links' capacity; and (@worst) the least
// such window until @until.
uint64_t recovered_after(const std::vector<uint64_t> &v, uint64_t at,
			 uint64_t until, double frac, double links,
			 double *worst)
{
	uint64_t back = until - at;

	*worst = 1e9;
	for (uint64_t s = at; s + 2 * kMs <= until; s += kBucket) {
		double g = share_of(v, s, s + 2 * kMs, links);

		if (g >= frac && back == until - at)
			back = s - at;
		*worst = std::min(*worst, g);
	}
	return back;
}

void run(Sim &sim, uint64_t until)
{
	sim.run(until);
	ASSERT_TRUE(sim.stats().errors.empty()) << sim.stats().errors.front();
	ASSERT_GT(sim.stats().msgs_done_tx, 0u);
}

// A link the connection uses: path 0's data (or its ACKs) hash onto it.
uint32_t used_link(Sim &sim, bool data = true)
{
	return data ? sim.link_of(sim.sender()->path[0].sport, true) :
		      sim.link_of(mrc_conn_ack_sport(sim.receiver(), 0), false);
}

uint64_t pkts_on(const Sim &sim, uint32_t l)
{
	return sim.stats().link_pkts[l];
}

// [PATH-10] 4 paths hashed onto 4 links at random leave a link idle in
// 9 runs of 10 (4!/4^4 cover all); moving a path whose route is shared
// finds the idle one.
TEST(Multipath, OneConnectionFillsEveryLink)
{
	double sum = 0, sum_off = 0, worst = 1;
	const int seeds = mrctest::seeds(8);

	for (int seed = 1; seed <= seeds; seed++) {
		Sim on(conn_cfg(), fabric(), stream(), seed);
		Sim off(conn_cfg(0), fabric(), stream(), seed);

		run(on, 40 * kMs);
		run(off, 40 * kMs);
		double g = share_of(on.stats().goodput, 20 * kMs, 40 * kMs, kLinks);
		double g_off = share_of(off.stats().goodput, 20 * kMs, 40 * kMs,
					kLinks);
		uint64_t repaths = 0;
		for (uint32_t i = 0; i < 4; i++)
			repaths += on.sender()->path[i].repaths;
		printf("  seed %d: %.3f of 4R (%llu repaths), without [PATH-10] %.3f\n",
		       seed, g, (unsigned long long)repaths, g_off);
		sum += g;
		sum_off += g_off;
		worst = std::min(worst, g);
	}
	printf("  mean %.3f of 4R, without [PATH-10] %.3f\n", sum / seeds,
	       sum_off / seeds);
	EXPECT_GE(sum / seeds, 0.9);
	EXPECT_GE(worst, 0.8);
	EXPECT_LT(sum_off / seeds, sum / seeds - 0.05);
}

// [PATH-5] a link that silently drops everything: its paths fail within
// a few RTTs and move ([PATH-7]); the rest carry the connection; after
// the repair the link is used again. Per seed: when the first 200-RTT
// window holding >= 0.7 of what is left starts (0: the one that starts
// with the blackhole already does), and the least such window.
void blackhole(bool data, bool acks, const char *what)
{
	const int seeds = mrctest::seeds(4);
	double during_sum = 0, after_sum = 0;

	for (int seed = 1; seed <= seeds; seed++) {
		Sim sim(conn_cfg(), fabric(), stream(), seed);

		run(sim, 20 * kMs);
		uint32_t l = used_link(sim, data);
		sim.add_blackhole({l, 20 * kMs, 60 * kMs, data, acks});
		run(sim, 60 * kMs);
		uint64_t before = pkts_on(sim, l);
		run(sim, 100 * kMs);

		const auto &st = sim.stats();
		uint64_t rtt = sim.sender()->path[0].tx.min_rtt_ns;
		double worst;
		uint64_t back = recovered_after(st.goodput, 20 * kMs, 60 * kMs,
						0.7, kLinks - 1, &worst);
		double during = share_of(st.goodput, 20 * kMs, 60 * kMs, kLinks - 1);
		double after = share_of(st.goodput, 80 * kMs, 100 * kMs, kLinks);
		uint64_t fails = 0;

		for (uint32_t i = 0; i < 4; i++)
			fails += sim.sender()->path[i].fails_silent +
				 sim.sender()->path[i].reentropies;
		printf("  %s blackhole, seed %d, link %u: >= 0.7 of 3R after %.2f ms "
		       "(%llu RTTs of %.1f us), least %.2f; %.3f of 3R during, "
		       "%.3f of 4R after; %llu path failures, %llu packets dropped\n",
		       what, seed, l, back / 1e6,
		       (unsigned long long)(back / std::max<uint64_t>(rtt, 1)),
		       rtt / 1e3, worst, during, after, (unsigned long long)fails,
		       (unsigned long long)st.blackholed);
		EXPECT_GT(st.blackholed, 0u);
		// what the device counts (path_fails, path_moves) saw it too
		EXPECT_GT(sim.sender()->stats.path_fails, 0u);
		EXPECT_GE(sim.sender()->stats.path_moves, sim.sender()->stats.path_fails / 2);
		// issue 31: within 100 ms of bed time, some 30 of its RTTs; a
		// connection whose every ACK route died hears nothing at all
		// and waits for its RTO, 2 ms here (200 RTTs)
		EXPECT_LE(back, 3 * sim.sender()->cfg.path.rto_min_ns);
		// back in use: data crossed the link after the repair
		EXPECT_GT(pkts_on(sim, l), before);
		during_sum += during;
		after_sum += after;
	}
	EXPECT_GE(during_sum / seeds, 0.8);
	EXPECT_GE(after_sum / seeds, 0.9);
}

TEST(Multipath, BlackholeBothWays) { blackhole(true, true, "two-way"); }
TEST(Multipath, BlackholeData) { blackhole(true, false, "data"); }

// [PATH-11] only the way back died: the ACKs of the paths whose ports
// hash onto it vanish. The sender sees what a dead route looks like and
// moves the path; the ACKs, which follow the data's port, move with it.
TEST(Multipath, BlackholeAcks) { blackhole(false, true, "ACK-only"); }

// [REL-12] [PATH-8] half the links go dark at once, both ways, as a dead
// plane takes half the paths (two that leave path 0's route alive: with
// every route dark the peer is silent, and the limit applies): the
// timeouts of segments sent into the dark are the routes', not the
// peer's (the other paths keep answering), so no segment exhausts the retry limit, writes or READs, however many times
// it lands on a dying path before the scheduler gives up on it. (At
// these RTTs the other paths' deliveries find a lost probe ([REL-22])
// before its timer does; DeadPlaneStreamGoesOn has the bed's timers.)
TEST(Multipath, DarkHalfNeverExhaustsRetries)
{
	for (bool reads : {false, true}) {
		for (int seed = 1; seed <= 4; seed++) {
			mrc_conn_cfg c = conn_cfg();
			Workload w = stream();

			c.retry_limit = 2;	// the fewest timeouts to survive
			w.reads = reads;
			Sim sim(c, fabric(), w, seed);
			run(sim, 10 * kMs);
			// two links that path 0's data and ACKs avoid: some
			// path keeps answering, as the rule presumes
			uint32_t d = sim.link_of(sim.sender()->path[0].sport, true);
			uint32_t a = sim.link_of(mrc_conn_ack_sport(sim.receiver(), 0),
						 false);
			for (uint32_t l = 0, n = 0; l < kLinks && n < 2; l++) {
				if (l == d || l == a)
					continue;
				sim.add_blackhole({l, 10 * kMs, 60 * kMs, true, true});
				n++;
			}
			uint64_t done = sim.stats().msgs_done_tx;
			run(sim, 80 * kMs);
			EXPECT_EQ(sim.sender()->error, 0u) << "seed " << seed << (reads ? " reads" : "");
			EXPECT_EQ(sim.receiver()->error, 0u) << "seed " << seed << (reads ? " reads" : "");
			EXPECT_GT(sim.stats().msgs_done_tx, done + 10);
			printf("  %s, seed %d: %llu messages done across the outage, %llu blackholed\n",
			       reads ? "reads" : "writes", seed,
			       (unsigned long long)(sim.stats().msgs_done_tx - done),
			       (unsigned long long)sim.stats().blackholed);
		}
	}
}

// [PATH-4] [PATH-8] plane 1 of 2 dies for a second, both ways, at the
// bed's timing (4 ms RTT, 20 ms RTO floor, 100 ms first RTO) under
// mrc_verbs_check's stream (rounds of 64 WRITEs, each waited for; a
// lost packet with nothing behind it waits for its timer): no new port
// escapes a dead plane, so its paths fail, rest, probe and fail again
// all along. The stream goes on over plane 0 in every 100 ms of the
// outage, and plane 1 carries data again once it is back. A resend that
// rode each probe into the dark took least 0.165 of the link against
// 0.36 before the outage (reads, seed 3); on the bed, with slower
// timers, nothing moved for 20 s (52-planes step 3).
struct DarkPlane {
	double least = 1e9, mean_min = 1e9;	// of the share before, any run
	uint64_t data_into_dark = 0;		// after the first 100 ms, all runs
};

DarkPlane dead_plane(bool probe_reqs, double least_min, double mean_min,
		     uint64_t idle_max_ms)
{
	const uint64_t bucket = kMs, from = 200 * kMs, to = 1200 * kMs;
	const double rate = 0.05;	// bytes/ns
	DarkPlane r;

	for (bool reads : {false, true}) {
		for (int seed = 1; seed <= 3; seed++) {
			mrc_conn_cfg c = conn_cfg();

			c.probe_reqs = probe_reqs;
			Workload w = stream();
			LinkCfg l;

			// mrc_verbs_check -V: rounds of 4 KiB WRITEs, each round
			// waited for
			w.min_len = w.max_len = 4096;
			w.outstanding = 64;
			w.batch = true;

			module_timers(c);
			l.rate_bpns = rate;
			l.delay_ns = 2 * kMs;
			l.ecn_bytes = 100000;
			l.bucket_ns = bucket;
			w.reads = reads;
			Sim sim(c, l, w, seed);
			Blackhole plane1{1, from, to};

			plane1.planes = 2;
			sim.add_blackhole(plane1);
			run(sim, from + 100 * kMs);
			uint64_t dark0 = sim.stats().blackholed_data;
			run(sim, to);
			r.data_into_dark += sim.stats().blackholed_data - dark0;
			uint64_t acked1 = sim.sender()->path[1].tx.acked_pkts +
					  sim.sender()->path[3].tx.acked_pkts;
			run(sim, to + 500 * kMs);

			// the link's share delivered in each 100 ms from @t0 to @t1
			auto shares = [&](uint64_t t0, uint64_t t1) {
				const auto &g = sim.stats().goodput;
				std::vector<double> v;

				for (uint64_t t = t0; t < t1; t += 100 * kMs) {
					uint64_t bytes = 0;

					for (uint64_t b = t / bucket;
					     b < (t + 100 * kMs) / bucket && b < g.size(); b++)
						bytes += g[b];
					v.push_back(bytes / (100.0 * kMs * rate));
				}
				return v;
			};
			std::vector<double> before = shares(from - 100 * kMs, from);
			std::vector<double> dark = shares(from, to);
			double least = *std::min_element(dark.begin(), dark.end());
			double mean = std::accumulate(dark.begin(), dark.end(), 0.0) / dark.size();
			uint64_t after = sim.sender()->path[1].tx.acked_pkts +
					 sim.sender()->path[3].tx.acked_pkts - acked1;
			// the longest time nothing was delivered
			uint64_t idle = 0, run_ms = 0;
			for (uint64_t b = from / bucket; b < to / bucket; b++) {
				bool none = b >= sim.stats().goodput.size() ||
					    !sim.stats().goodput[b];
				run_ms = none ? run_ms + 1 : 0;
				idle = std::max(idle, run_ms);
			}
			printf("  %s, seed %d: %.3f of the link before; plane 1 dark 1 s: "
			       "least %.3f, mean %.3f per 100 ms, nothing delivered "
			       "for %llu ms at most; %llu packets acked on plane 1 in "
			       "the 500 ms after; %llu path failures; %llu data "
			       "packets into the dark after its first 100 ms\n",
			       reads ? "reads" : "writes", seed, before[0], least, mean,
			       (unsigned long long)idle,
			       (unsigned long long)after,
			       (unsigned long long)sim.sender()->stats.path_fails,
			       (unsigned long long)(sim.stats().blackholed_data - dark0));
			r.least = std::min(r.least, least / before[0]);
			r.mean_min = std::min(r.mean_min, mean / before[0]);
			EXPECT_EQ(sim.sender()->error, 0u);
			EXPECT_EQ(sim.receiver()->error, 0u);
			EXPECT_GE(least, least_min * before[0]) << (reads ? "reads" : "writes") << " seed " << seed;
			EXPECT_GE(mean, mean_min * before[0]) << (reads ? "reads" : "writes") << " seed " << seed;
			EXPECT_GT(after, 100u) << (reads ? "reads" : "writes") << " seed " << seed;
			EXPECT_LE(idle, idle_max_ms) << (reads ? "reads" : "writes") << " seed " << seed;
		}
	}
	return r;
}

TEST(Multipath, DeadPlaneStreamGoesOn)
{
	// the longest stall: a probe's timeout, not a hold
	DarkPlane r = dead_plane(false, 0.5, 0.8, 100);

	printf("  data probes: least %.3f, mean %.3f of before (worst run); "
	       "%llu data packets into the dark\n", r.least, r.mean_min,
	       (unsigned long long)r.data_into_dark);
}

// [PATH-4] the same with PROBE REQs proving plane 1's failed paths while
// plane 0 carries the stream: once they have failed, no data goes into
// the dark (41 packets with data probes), so no message waits for a lost
// probe to be found: the longest stall of the READ runs fell from 19 ms to
// 8 (4 ms RTT). The means stay within the runs' spread (0.326 against
// 0.330 of the link over the six runs; the write runs' worst 0.78 of
// before against 0.85, the READ runs' 0.90 against 0.87).
TEST(Multipath, DeadPlaneProbeReqsCostNoData)
{
	DarkPlane r = dead_plane(true, 0.5, 0.75, 10);

	printf("  PROBE REQs: least %.3f, mean %.3f of before (worst run); "
	       "%llu data packets into the dark\n", r.least, r.mean_min,
	       (unsigned long long)r.data_into_dark);
	EXPECT_EQ(r.data_into_dark, 0u);
}

// One link changed to @f 5 ms in; over 4 seeds, what it carried in the
// last 20 ms as a fraction of R, and all links as a fraction of 4R.
void impaired(const FabricLink &f, const char *what, double *on_link,
	      double *total)
{
	const int seeds = 4;

	*on_link = *total = 0;
	for (int seed = 1; seed <= seeds; seed++) {
		Sim sim(conn_cfg(), fabric(), stream(), seed);

		run(sim, 5 * kMs);
		uint32_t l = used_link(sim);
		sim.set_link(l, f);
		run(sim, 40 * kMs);
		const auto &st = sim.stats();
		double x = share_of(st.link_goodput[l], 20 * kMs, 40 * kMs, 1);
		double all = share_of(st.goodput, 20 * kMs, 40 * kMs, kLinks);

		printf("  seed %d: link %u %s carries %.3f of R; all %.3f of 4R\n",
		       seed, l, what, x, all);
		*on_link += x / seeds;
		*total += all / seeds;
	}
}

// [PATH-6] a lossy link carries less than a clean one, and the
// connection keeps the others full. Issue 31's bench target (at 5%):
// >= 0.9 of the others' capacity plus what the lossy one carries.
TEST(Multipath, LossyLinkCarriesLess)
{
	double lossy, total;

	impaired(FabricLink{1, 0.05, 0}, "at 5% loss", &lossy, &total);
	EXPECT_LT(lossy, 0.95);
	EXPECT_GE(total * kLinks, 0.9 * (kLinks - 1 + lossy));
	impaired(FabricLink{1, 0.2, 0}, "at 20% loss", &lossy, &total);
	EXPECT_LT(lossy, 0.5);
	EXPECT_GE(total * kLinks, 0.85 * (kLinks - 1 + lossy));
}

// [PATH-6], [PATH-10] a link marked by traffic that is not ours: our
// share on it shrinks, the total stays near what the others offer.
TEST(Multipath, MarkedLinkCarriesLess)
{
	double hot, total;

	impaired(FabricLink{1, 0, 0.3}, "marking 30%", &hot, &total);
	EXPECT_LT(hot, 0.5);
	// 0.9 in the bed, where a competing flow takes its share of the link;
	// these marks fall at random whatever our load, so every path that
	// moves there is cut at once
	EXPECT_GE(total * kLinks, 0.85 * (kLinks - 1 + hot));
}

} // namespace

namespace {

// The bed's regime (bench-multipath, cell a): 4 links of 10 Mbit/s,
// jumbo frames (8 KiB packets of two segments), a 3 ms base round trip,
// a RED-like queue marking from 14 ms of backlog, perftest's 64 KiB
// writes, the module's timers. A path carries one or two packets per
// round trip here: [PATH-10] judged only paths that carried 4 segments a
// round and never engaged in the bed (0.38 of 4R there; 0.78 here, three
// seeds of 8 near 0.4). Now it judges while data waits for a window:
// 0.93, the worst seed 0.73 (it spends a second finding the last idle
// link, its early moves landing on shared ones).
TEST(Multipath, SlowLinksJumboFrames)
{
	const double rate = 0.00125;		// 10 Mbit/s
	const uint64_t bucket = 10 * kMs;
	double sum = 0, sum_off = 0, worst = 1;
	// all 8 even under the sanitizers (1.5 s there): the mean of the
	// first two is 0.85, seed 1 being one of the slow finders
	const int seeds = 8;

	for (int seed = 1; seed <= seeds; seed++) {
		double g[2];

		for (int on = 0; on < 2; on++) {
			mrc_conn_cfg c = conn_cfg(on ? 4 : 0);
			LinkCfg l;
			Workload w;

			c.pkt_max = 2 * kMss;
			module_timers(c);
			l.rate_bpns = rate;
			l.delay_ns = 1500 * kUs;
			l.ecn_bytes = 17500;
			l.links = kLinks;
			l.bucket_ns = bucket;
			w.min_len = w.max_len = 64 * 1024;
			w.outstanding = 128;
			w.messages = 1u << 30;
			Sim sim(c, l, w, seed);
			run(sim, 6000 * kMs);
			uint64_t bytes = 0;
			const auto &v = sim.stats().goodput;
			for (uint64_t b = 2000 * kMs / bucket; b < v.size(); b++)
				bytes += v[b];
			g[on] = bytes / (4000.0 * kMs * rate * kLinks);
			if (on) {
				uint64_t repaths = 0;
				for (uint32_t i = 0; i < 4; i++)
					repaths += sim.sender()->path[i].repaths;
				printf("  seed %d: %.3f of 4R (%llu repaths, srtt %.1f ms)",
				       seed, g[on], (unsigned long long)repaths,
				       sim.sender()->path[0].tx.srtt_ns / 1e6);
			}
		}
		printf(", without [PATH-10] %.3f\n", g[0]);
		sum += g[1];
		sum_off += g[0];
		worst = std::min(worst, g[1]);
	}
	printf("  mean %.3f of 4R, without [PATH-10] %.3f\n", sum / seeds,
	       sum_off / seeds);
	EXPECT_GE(sum / seeds, 0.9);
	EXPECT_GE(worst, 0.7);
}

} // namespace

namespace {

// [PATH-1] each side picks its own number of paths and takes the peer's,
// up to 8: a host set to 8 and one left at 4 (or 1) interoperate, every
// byte checked by the simulator, and the one with fewer paths
// acknowledges every path of the other.
TEST(Multipath, PeersWithDifferentPathCounts)
{
	const uint32_t pairs[][2] = { { 8, 4 }, { 4, 8 }, { 8, 1 }, { 1, 8 } };

	for (const auto &pr : pairs) {
		mrc_conn_cfg a = conn_cfg(), b;

		mrc_conn_cfg_default(&a, pr[0], kMss);
		a.nstreams = 4;
		b = a;
		b.npaths = pr[1];
		Sim sim(a, fabric(), stream(), 1, &b);

		run(sim, 20 * kMs);
		double g = share_of(sim.stats().goodput, 10 * kMs, 20 * kMs, kLinks);
		uint32_t used = 0;

		for (uint32_t l = 0; l < kLinks; l++)
			used += pkts_on(sim, l) > 0;
		printf("  %u paths to a peer of %u: %.3f of 4R, %u links used, "
		       "the peer heard %u paths\n",
		       pr[0], pr[1], g, used, sim.receiver()->rx_npaths);
		// run() checked that no completion failed ([PATH-1] used to
		// fail the connection: a path id over the receiver's count)
		EXPECT_EQ(sim.receiver()->rx_npaths, std::max(pr[0], pr[1]));
		EXPECT_GT(g, pr[0] == 1 ? 0.5 / kLinks : 0.6);
	}
}


// [PATH-1] a sender starts on at most 8 paths and opens the rest when the
// peer's HELLO says it takes them: the new paths start at the initial PSN
// (else the receiver would drop their packets as out of window), each on a
// port of its own, and carry data and ACKs at once; paths never close.
TEST(Multipath, PathsOpenWhenThePeerSaysSo)
{
	mrc_conn_cfg a = conn_cfg();

	mrc_conn_cfg_default(&a, MRC_PATHS_UNANNOUNCED, kMss);
	a.nstreams = 4;
	Sim sim(a, fabric(), stream(), 1);
	mrc_conn *c = sim.sender();

	run(sim, 10 * kMs);
	for (uint32_t i = MRC_PATHS_UNANNOUNCED; i < MRC_MAX_PATHS; i++)
		ASSERT_EQ(c->path[i].tx.sent_pkts, 0u) << "path " << i;
	EXPECT_FALSE(mrc_conn_open_paths(c, MRC_PATHS_UNANNOUNCED, 10 * kMs));
	EXPECT_FALSE(mrc_conn_open_paths(c, 2, 10 * kMs));
	EXPECT_TRUE(mrc_conn_open_paths(c, MRC_MAX_PATHS + 5, 10 * kMs));
	EXPECT_EQ(c->cfg.npaths, (uint32_t)MRC_MAX_PATHS);
	EXPECT_FALSE(mrc_conn_open_paths(c, MRC_MAX_PATHS, 10 * kMs));
	run(sim, 30 * kMs);

	std::set<uint16_t> ports;
	for (uint32_t i = 0; i < MRC_MAX_PATHS; i++) {
		EXPECT_GT(c->path[i].tx.acked_pkts, 0u) << "path " << i;
		ports.insert(c->path[i].sport);
	}
	EXPECT_EQ(ports.size(), (size_t)MRC_MAX_PATHS);
	EXPECT_EQ(sim.receiver()->rx_npaths, (uint32_t)MRC_MAX_PATHS);
	double g = share_of(sim.stats().goodput, 20 * kMs, 30 * kMs, kLinks);
	printf("  32 paths after the first 10 ms: %.3f of 4R\n", g);
	EXPECT_GT(g, 0.6);
}

// [PATH-1] the send rings are the caller's, one per path it may open (the
// kernel gives npaths of them): a connection never opens a path without
// one, and a configuration asking for more paths than rings is refused
TEST(Multipath, PathsOpenOnlyAsFarAsTheRings)
{
	mrc_conn_cfg cfg = conn_cfg();
	mrcsim::Conn c(6);

	mrc_conn_cfg_default(&cfg, 8, kMss);
	EXPECT_FALSE(c.init(cfg, 0));
	mrc_conn_cfg_default(&cfg, 4, kMss);
	ASSERT_TRUE(c.init(cfg, 0));
	EXPECT_TRUE(mrc_conn_open_paths(&c, MRC_MAX_PATHS, kMs));
	EXPECT_EQ(c.cfg.npaths, 6u);
	EXPECT_FALSE(mrc_conn_open_paths(&c, 7, kMs));
	for (uint32_t i = 0; i < 6; i++)
		EXPECT_EQ(c.path[i].tx.ring, &c.rings[i]) << "path " << i;
	EXPECT_EQ(c.path[6].tx.ring, nullptr);
}

} // namespace

namespace {

// bench-multipath's cell (a) at the bed's settings (RATE=5, MTU 1500): 4
// links of R = 5 Mbit/s, 1024-byte segments, a 2 ms base round trip, a
// RED queue marking from 14 ms of backlog (8750 bytes), perftest's 64 KiB
// writes, the module's timers; @hint: the receivers hint 4R ([CC-10]),
// else (cell a0) none, and the paths' queues run deeper.
struct BedRun {
	double share;		// goodput over 4R, 2-10 s
	uint64_t moves, sent, lost, late, fails;
	uint64_t found;		// a link black-holed: when its last path failed or moved
	double loss_shown;	// of the paths' 50 ms samples, 2-10 s: loss average above 0
};

// The TCG guests' swings: every 250 ms on average guest b's vCPU is away
// for 5-30 ms, and then takes up its four links' backlogs one after the
// other within 3 ms, in an order of its own each time.
void guest_swings(Sim &sim, int seed, uint64_t until)
{
	std::mt19937_64 rng(seed * 7 + 3);
	std::exponential_distribution<double> gap(1.0 / (250.0 * kMs));
	std::uniform_int_distribution<uint64_t> away(5 * kMs, 30 * kMs);
	std::uniform_int_distribution<uint64_t> turn(0, 3 * kMs);

	for (uint64_t t = (uint64_t)gap(rng); t < until; t += (uint64_t)gap(rng)) {
		uint64_t end = t + away(rng);

		for (uint32_t l = 0; l < kLinks; l++)
			sim.add_stall({l, t, end + turn(rng)});
		t = end + 3 * kMs;
	}
}

BedRun bed_cell_a(int seed, bool hint, bool swings = false, bool hole = false,
		  const FabricLink *ev = nullptr, double *ev_carried = nullptr)
{
	const double rate = 0.000625;		// 5 Mbit/s
	const uint64_t bucket = 10 * kMs;
	mrc_conn_cfg c;
	LinkCfg l;
	Workload w;
	BedRun r{};

	mrc_conn_cfg_default(&c, 4, 1024);
	c.nstreams = 4;
	module_timers(c);
	l.rate_bpns = rate;
	l.delay_ns = 1000 * kUs;
	l.ecn_bytes = 8750;
	l.links = kLinks;
	l.bucket_ns = bucket;
	l.rate_hint = hint;
	w.min_len = w.max_len = 64 * 1024;
	w.outstanding = 128;
	w.messages = 1u << 30;
	Sim sim(c, l, w, seed);
	if (swings)
		guest_swings(sim, seed, 10000 * kMs);
	uint32_t evl = 0;
	if (ev) {
		run(sim, 2000 * kMs);
		evl = used_link(sim);
		sim.set_link(evl, *ev);
	}
	if (hole) {
		run(sim, 5000 * kMs);
		uint32_t hl = used_link(sim);
		std::vector<uint32_t> dead;

		sim.add_blackhole({hl, 5000 * kMs, 7000 * kMs});
		for (uint32_t i = 0; i < 4; i++)
			if (sim.link_of(sim.sender()->path[i].sport, true) == hl ||
			    sim.link_of(mrc_conn_ack_sport(sim.receiver(), i),
					false) == hl)
				dead.push_back(i);
		// when the last path through the hole failed or moved
		for (uint64_t t = 5000 * kMs; !dead.empty() && t < 6000 * kMs;) {
			t += kMs / 4;
			run(sim, t);
			for (size_t k = 0; k < dead.size(); k++) {
				const mrc_path &p = sim.sender()->path[dead[k]];

				if (p.state == MRC_PATH_FAILED ||
				    (sim.link_of(p.sport, true) != hl &&
				     sim.link_of(mrc_conn_ack_sport(sim.receiver(),
								    dead[k]),
						 false) != hl))
					dead.erase(dead.begin() + k--);
			}
			r.found = t - 5000 * kMs;
		}
	}
	uint64_t samples = 0, shown = 0;
	for (uint64_t t = 2000 * kMs; t < 10000 * kMs; t += 50 * kMs) {
		run(sim, t);
		for (uint32_t i = 0; i < 4; i++, samples++)
			shown += sim.sender()->path[i].cc.loss_pm > 0;
	}
	r.loss_shown = (double)shown / samples;
	run(sim, 10000 * kMs);
	uint64_t bytes = 0;
	const auto &v = sim.stats().goodput;
	for (uint64_t b = 2000 * kMs / bucket; b < v.size(); b++)
		bytes += v[b];
	r.share = bytes / (8000.0 * kMs * rate * kLinks);
	if (ev_carried) {
		const auto &lv = sim.stats().link_goodput[evl];

		bytes = 0;
		for (uint64_t b = 2000 * kMs / bucket; b < lv.size(); b++)
			bytes += lv[b];
		*ev_carried = bytes / (8000.0 * kMs * rate);
	}
	for (uint32_t i = 0; i < 4; i++) {
		const mrc_path &p = sim.sender()->path[i];

		r.moves += p.repaths + p.reentropies;
		r.sent += p.tx.sent_pkts;
		r.lost += p.tx.lost_gap + p.tx.lost_rack + p.tx.lost_rto +
			  p.tx.lost_pto + p.tx.lost_fail;
		r.late += p.tx.late_acks;
	}
	r.fails = sim.sender()->stats.path_fails;
	return r;
}

// Issue 31, cell (a): what the core does with the bed's fabric when only
// the links hold it back. With the hint it fills what the links carry (the
// payload's share of the simulated wire caps goodput near 0.90 of 4R:
// 0.894 over 4 seeds) with 2-14 port moves in 10 s, not the bed's 177,
// and 0.43% of its packets resent spuriously ([REL-22] on links whose
// queues differ by more than its window). So the bed's 0.52 is not the
// steering's nor the window's: see selftests/results/multipath.md. Without
// the hint ([CC-12] off, cell a0) the queues run deeper, 3.2% of the
// packets are resent spuriously, paths move 27-40 times and goodput
// falls to 0.69.
TEST(Multipath, BedCellA)
{
	const int seeds = mrctest::seeds(4);

	for (bool hint : { true, false }) {
		double sum = 0;
		uint64_t late = 0, sent = 0;

		for (int seed = 1; seed <= seeds; seed++) {
			BedRun r = bed_cell_a(seed, hint);

			printf("  %s, seed %d: %.3f of 4R, %llu port moves, %llu "
			       "of %llu declared lost, %llu of them arrived after all\n",
			       hint ? "hint 4R" : "no hint", seed, r.share,
			       (unsigned long long)r.moves, (unsigned long long)r.lost,
			       (unsigned long long)r.sent, (unsigned long long)r.late);
			sum += r.share;
			late += r.late;
			sent += r.sent;
			EXPECT_LE(r.moves, hint ? 20u : 50u) << "seed " << seed;
		}
		printf("  %s: mean %.3f of 4R, %.3f%% spurious resends\n",
		       hint ? "hint 4R" : "no hint", sum / seeds, 100.0 * late / sent);
		EXPECT_GE(sum / seeds, hint ? 0.85 : 0.6);
	}
}

// [PATH-5] the bed's cell (a) with the guests' swings (guest_swings()):
// every loss declared on a stalled link arrives after all, and before
// the late ACKs' round trips stretched the silence that fails a path,
// the timeouts and [REL-22] failed 43-57 paths in each 10 s (the bed:
// 26-36), which moved and left links idle: 0.615 of 4R, 77 port moves.
// A dead link is still found: black-holed at 5 s both ways, its paths
// fail or move within 41-96 ms (28-76 before; 61-67 while a timeout that
// was short of the late round trip backed off in full), inside the
// issue's 100 ms. [CC-14]: every loss here arrives late, so no path's
// loss average shows any (it did in 51-85% of the bed's samples).
TEST(Multipath, BedCellASwings)
{
	const int seeds = mrctest::seeds(4);
	double sum = 0;
	uint64_t fails = 0, moves = 0, late = 0, lost = 0;

	for (int seed = 1; seed <= seeds; seed++) {
		BedRun r = bed_cell_a(seed, true, true);
		BedRun h = bed_cell_a(seed, true, true, true);

		printf("  seed %d: %.3f of 4R, %llu path failures, %llu port moves, "
		       "%llu of %llu declared lost, %llu of them arrived after all; "
		       "a loss average above 0 in %.0f%% of the samples; "
		       "a link black-holed: its paths failed within %.1f ms\n",
		       seed, r.share, (unsigned long long)r.fails,
		       (unsigned long long)r.moves, (unsigned long long)r.lost,
		       (unsigned long long)r.sent, (unsigned long long)r.late,
		       100 * r.loss_shown, h.found / 1e6);
		// [CC-7] every loss here arrives late: none stays in the average
		EXPECT_LT(r.loss_shown, 0.05) << "seed " << seed;
		sum += r.share;
		fails += r.fails;
		moves += r.moves;
		late += r.late;
		lost += r.lost;
		EXPECT_LE(r.fails, 10u) << "seed " << seed;
		EXPECT_LT(h.found, 100 * kMs) << "seed " << seed;
	}
	printf("  mean %.3f of 4R, %.1f path failures, %.1f moves per run, "
	       "%llu of %llu losses spurious\n", sum / seeds, (double)fails / seeds,
	       (double)moves / seeds, (unsigned long long)late,
	       (unsigned long long)lost);
	EXPECT_GE(sum / seeds, 0.75);
}

// Cells (b) and (c) of bench-multipath with the guests' swings, the
// event on the link path 0's data takes from 2 s on: (b) 5% loss both
// ways, against 3R plus what the lossy link still carried; (c) a
// competing flow, modelled as the 3 Mbit/s it takes of the link's 5,
// against 4R less that. Before late ACKs held off [PATH-5] (main), the
// swings failed 55 and 45 paths in 10 s: (b) 0.678 of its target,
// (c) 0.576. In (c) [PATH-10] moved paths onto and off the slow link
// 41.5 times per run (0.713 of the target) while late losses and loss
// averages that never decayed below 8 per mille pressed every path;
// with [CC-14] 26 (0.787).
TEST(Multipath, BedCellsBCSwings)
{
	const int seeds = mrctest::seeds(4);

	for (bool cross : { false, true }) {
		double sum = 0, on = 0;
		uint64_t fails = 0, moves = 0;

		for (int seed = 1; seed <= seeds; seed++) {
			FabricLink f;
			double carried;

			if (cross)
				f.rate_scale = 0.4;
			else
				f.loss = 0.05;
			BedRun r = bed_cell_a(seed, true, true, false, &f, &carried);
			printf("  %s, seed %d: %.3f of 4R, the link %.3f of R for "
			       "us, %llu path failures, %llu port moves\n",
			       cross ? "competing flow" : "5% loss", seed, r.share,
			       carried, (unsigned long long)r.fails,
			       (unsigned long long)r.moves);
			sum += r.share * kLinks;
			on += carried;
			fails += r.fails;
			moves += r.moves;
		}
		double target = cross ? kLinks - 0.6 : kLinks - 1 + on / seeds;
		printf("  %s: %.3f of its target (mean %.2f R, the link %.2f R), "
		       "%.1f path failures, %.1f port moves\n",
		       cross ? "competing flow" : "5% loss", sum / seeds / target,
		       sum / seeds, on / seeds, (double)fails / seeds,
		       (double)moves / seeds);
		EXPECT_LE(fails, (cross ? 12u : 10u) * seeds);
		EXPECT_GE(sum / seeds / target, cross ? 0.74 : 0.8);
		// [PATH-10] presses on real losses and marks only: before,
		// 41.5 moves and 0.713 of the target
		if (cross)
			EXPECT_LT((double)moves / seeds, 35);
	}
}

} // namespace
