// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Property tests: two core endpoints through the simulated channel
// (sim/sim.h) with random loss, duplication, reordering, jitter and route
// failures. Every run checks exactly-once placement of every segment,
// identity against the posting, and in-order completion per stream at both
// ends ([REL-15], [REL-19]); the goodput runs check [CC-7]'s promise.
//
// MRC_PROP_SCALE (default 1) scales the number of messages: make test-unit
// runs 1 in the normal build and a smaller scale under the sanitizers;
// make test-long runs a large one.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "prop_scale.h"
#include "sim/sim.h"

namespace {

using mrctest::scaled;

mrc_conn_cfg make_cfg(uint32_t npaths, uint32_t nstreams, uint32_t mss)
{
	mrc_conn_cfg cfg;

	mrc_conn_cfg_default(&cfg, npaths, mss);
	cfg.nstreams = nstreams;
	cfg.tx_isn = 0xfffff000u;	// wrap the PSN space early
	cfg.rx_isn = 0xfffff000u;
	cfg.tx_msn = 0xffffffc0u;	// and the MSN space
	cfg.rx_msn = 0xffffffc0u;
	cfg.retry_limit = 30;		// the chaos runs are harsher than any fabric
	return cfg;
}

void expect_clean(mrcsim::Sim &sim, bool ok, const char *what)
{
	const mrcsim::Stats &st = sim.stats();

	for (const std::string &e : st.errors)
		ADD_FAILURE() << what << ": " << e;
	EXPECT_TRUE(ok) << what << ": not finished, tx " << st.msgs_done_tx
			<< " rx " << st.msgs_done_rx << " at t=" << st.end_ns;
	// telemetry's byte counters: what was acked was sent, and data
	// delivered was acked on some path
	uint64_t acked = 0;

	for (const mrc_conn *c : { sim.sender(), sim.receiver() })
		for (uint32_t i = 0; i < MRC_MAX_PATHS; i++) {
			const mrc_path_tx &t = c->path[i].tx;

			EXPECT_LE(t.acked_bytes, t.sent_bytes) << what << " path " << i;
			acked += t.acked_bytes;
		}
	if (st.bytes_rx)
		EXPECT_GT(acked, 0u) << what;
	::testing::Test::RecordProperty(std::string(what) + "_data_pkts",
		       std::to_string(st.data_pkts));
}

struct Chaos {
	double loss, dup, reorder;
	uint64_t jitter_ns;
	uint32_t npaths, nstreams, mss, max_len;
	uint64_t messages;
	bool outages;
	uint32_t pkt_segs = 1;	// [ENC-25] segments per packet at most
	uint32_t tail_dup = 0;	// [REL-25] segments copied at an idle end
};

uint64_t run_chaos(const Chaos &c, uint64_t seed, const char *name,
		   uint64_t *max_pkt_len = nullptr, uint64_t *tail_dups = nullptr)
{
	mrcsim::LinkCfg link;
	mrcsim::Workload wl;

	link.loss = c.loss;
	link.dup = c.dup;
	link.reorder = c.reorder;
	link.jitter_ns = c.jitter_ns;
	wl.streams = c.nstreams;
	wl.max_len = c.max_len;
	wl.messages = scaled(c.messages);
	wl.outstanding = 48;
	mrc_conn_cfg cfg = make_cfg(c.npaths, c.nstreams, c.mss);
	cfg.pkt_max = c.pkt_segs * c.mss;
	cfg.tail_dup = c.tail_dup;
	mrcsim::Sim sim(cfg, link, wl, seed);
	if (c.outages) {
		// routes come and go; some paths must re-entropy to finish
		for (uint32_t r = 0; r < 16; r += 3)
			sim.add_outage({r, 200000 + r * 100000, 200000 + r * 100000 + 30000000});
	}
	bool ok = sim.run(600ull * 1000000000);
	expect_clean(sim, ok, name);
	if (max_pkt_len)
		*max_pkt_len = sim.stats().max_pkt_len;
	if (tail_dups)
		*tail_dups = sim.stats().tail_dups;
	return sim.stats().data_pkts;
}

} // namespace

// [REL-4] [REL-8] [REL-15] [REL-19] no impairment: baseline of the checks.
TEST(ConnProperty, CleanChannelManyStreams)
{
	uint64_t pkts = 0;

	for (uint64_t seed = 1; seed <= 2; seed++)
		pkts += run_chaos({0, 0, 0, 0, 4, 8, 1024, 64 * 1024, 3000, false},
				  seed, "clean");
	printf("[          ] clean: %llu data packets\n", (unsigned long long)pkts);
}

// [REL-5] [REL-6] [REL-8] [REL-9] [REL-10] [REL-15] loss, duplication,
// reordering and jitter together, on several seeds.
TEST(ConnProperty, LossDupReorderJitter)
{
	uint64_t pkts = 0;

	for (uint64_t seed = 10; seed < 16; seed++)
		pkts += run_chaos({0.05, 0.02, 0.02, 4000, 4, 8, 1024, 64 * 1024, 3000, false},
				  seed, "chaos");
	printf("[          ] chaos: %llu data packets\n", (unsigned long long)pkts);
}

// [ENC-25] [REL-15] the same with packets of up to 4 segments: segments
// are still placed exactly once, whatever is lost, repeated or reordered.
TEST(ConnProperty, MultiSegmentPackets)
{
	uint64_t pkts = 0, largest = 0;

	for (uint64_t seed = 30; seed < 33; seed++) {
		pkts += run_chaos({0.05, 0.02, 0.02, 4000, 4, 8, 1024, 64 * 1024,
				   3000, false, 4},
				  seed, "multiseg", &largest);
		// the receiver's ACKs let the sender fill packets
		EXPECT_EQ(largest, 4096u) << "seed " << seed;
	}
	printf("[          ] multiseg: %llu data packets\n",
	       (unsigned long long)pkts);
}

// [REL-25] [ENC-25] [REL-15] tail copies under loss, duplication and
// reordering, with multi-segment packets and routes that go dark: a
// segment that two copies, a resend and the network's duplicates may each
// deliver is still placed once, and completions stay in order.
TEST(ConnProperty, TailCopiesUnderChaos)
{
	uint64_t pkts = 0;

	for (uint64_t seed = 40; seed < 43; seed++) {
		uint64_t copies = 0;
		Chaos c = {0.05, 0.02, 0.02, 4000, 4, 8, 1024, 64 * 1024, 3000,
			   seed == 42, seed == 41 ? 4u : 1u};

		c.tail_dup = 16;
		pkts += run_chaos(c, seed, "taildup", nullptr, &copies);
		EXPECT_GT(copies, 0u) << "seed " << seed;
	}
	printf("[          ] taildup: %llu data packets\n", (unsigned long long)pkts);
}

// [REL-5] heavy loss: 30%, correct however slow.
TEST(ConnProperty, ThirtyPercentLoss)
{
	uint64_t pkts = run_chaos({0.30, 0.01, 0.01, 1000, 4, 4, 1024, 16 * 1024, 600, false},
				  21, "loss30");

	printf("[          ] loss30: %llu data packets\n", (unsigned long long)pkts);
}

// [PATH-5] [PATH-7] routes fail for 30 ms at a time: failed paths take new
// source ports and the connection finishes.
TEST(ConnProperty, RouteOutagesReentropy)
{
	mrcsim::LinkCfg link;
	mrcsim::Workload wl;

	link.loss = 0.01;
	wl.messages = scaled(4000);
	wl.max_len = 64 * 1024;
	mrc_conn_cfg cfg = make_cfg(4, 4, 1024);
	mrcsim::Sim sim(cfg, link, wl, 77);
	// every route but one is down for a while: paths that land on them fail
	for (uint32_t r = 0; r < 15; r++)
		sim.add_outage({r, 1000000, 40000000});
	bool ok = sim.run(600ull * 1000000000);

	expect_clean(sim, ok, "outage");
	EXPECT_GT(sim.stats().reentropies, 0u);
	printf("[          ] outage: %llu data packets, %llu re-entropies\n",
	       (unsigned long long)sim.stats().data_pkts,
	       (unsigned long long)sim.stats().reentropies);
}

// [REL-15] empty and one-byte messages, one path, one stream.
TEST(ConnProperty, TinyMessagesOnePath)
{
	run_chaos({0.05, 0.05, 0.05, 2000, 1, 1, 256, 300, 3000, false}, 5, "tiny");
}

namespace {

// Goodput (bytes per ns) of one connection moving @wl over @link with
// @npaths paths and @mss-byte segments.
double goodput(mrcsim::LinkCfg link, mrcsim::Workload wl, uint32_t npaths,
	       uint32_t mss, uint64_t seed)
{
	mrc_conn_cfg cfg = make_cfg(npaths, wl.streams, mss);
	cfg.retry_limit = 7;
	mrcsim::Sim sim(cfg, link, wl, seed);
	bool ok = sim.run(600ull * 1000000000);
	expect_clean(sim, ok, "goodput");
	if (getenv("MRC_PROP_VERBOSE")) {
		mrc_conn *a = sim.sender();

		printf("loss %.2f: t=%llu resends=%llu acks=%llu\n", link.loss,
		       (unsigned long long)sim.stats().end_ns,
		       (unsigned long long)a->stats.tx_resends,
		       (unsigned long long)a->stats.acks_rcvd);
		for (uint32_t i = 0; i < npaths; i++) {
			const mrc_path *p = &a->path[i];

			printf("  path %u: pto fired %llu lost_pto %llu reorder %u\n", i,
			       (unsigned long long)p->tx.pto_fired,
			       (unsigned long long)p->tx.lost_pto, p->tx.reorder);
			printf("  path %u: sent %llu gap %llu rto %llu late %llu fired %llu cwnd %u ssth %u ecn- %llu loss- %llu loss_pm %u srtt %llu min %llu state %u\n",
			       i, (unsigned long long)p->tx.sent_pkts,
			       (unsigned long long)p->tx.lost_gap,
			       (unsigned long long)p->tx.lost_rto,
			       (unsigned long long)p->tx.late_acks,
			       (unsigned long long)p->tx.rto_fired, p->cc.cwnd,
			       p->cc.ssthresh,
			       (unsigned long long)p->cc.decreases_ecn,
			       (unsigned long long)p->cc.decreases_loss,
			       p->cc.loss_pm,
			       (unsigned long long)p->tx.srtt_ns,
			       (unsigned long long)p->tx.min_rtt_ns, p->state);
		}
		printf("  avg inflight %llu blocked %llu/%llu\n",
		       (unsigned long long)(sim.stats().inflight_sum / sim.stats().inflight_samples),
		       (unsigned long long)sim.stats().blocked_conn,
		       (unsigned long long)sim.stats().inflight_samples);
		printf("  conn cwnd %u dec %llu hint %llu\n", a->cc.cwnd,
		       (unsigned long long)a->cc.decreases,
		       (unsigned long long)a->cc.hint_bps);
	}
	return (double)sim.stats().bytes_rx / (double)sim.stats().end_ns;
}

// A 10 Gbit/s link, 10 us each way, 1 MiB messages of 4 KiB segments.
double goodput_10g(double loss, uint32_t npaths, uint64_t seed)
{
	mrcsim::LinkCfg link;
	mrcsim::Workload wl;

	link.loss = loss;
	link.ecn_bytes = 200 * 1024;
	wl.streams = 2;
	wl.min_len = wl.max_len = 1024 * 1024;
	wl.outstanding = 8;
	wl.messages = scaled(120);
	return goodput(link, wl, npaths, 4096, seed);
}

// Issue 6's targets: >= 0.95 of lossless goodput at 1% loss, >= 0.80 at
// 10%; @run(loss, seed) measures one case, @what names it.
void expect_loss_targets(const std::function<double(double, uint64_t)> &run,
			 const std::string &what)
{
	double base = run(0, 3);
	double g1 = run(0.01, 4);
	double g10 = run(0.10, 5);

	printf("[          ] %s: lossless %.4f B/ns, 1%% loss %.3f, 10%% loss %.3f\n",
	       what.c_str(), base, g1 / base, g10 / base);
	EXPECT_GE(g1 / base, 0.95) << what << ", 1% loss";
	EXPECT_GE(g10 / base, 0.80) << what << ", 10% loss";
}

} // namespace

// [CC-7] random loss does not collapse the window: >= 95% of lossless
// goodput at 1% loss and >= 80% at 10% (issue 6's targets), in simulation.
TEST(ConnProperty, GoodputUnderRandomLoss)
{
	for (uint32_t npaths : {1u, 4u}) {
		expect_loss_targets([npaths](double loss, uint64_t seed) {
			return goodput_10g(loss, npaths, seed);
		}, std::to_string(npaths) + " path(s)");
	}
}

// [REL-8] [REL-9] reordering inside a path (netem-style): after the first
// spurious resends the path tolerates the displacement it saw, so goodput
// stays near lossless and resends stay rare.
TEST(ConnProperty, InPathReorderAdapts)
{
	for (uint32_t npaths : {1u, 4u}) {
		mrcsim::LinkCfg link;
		mrcsim::Workload wl;

		link.reorder = 0.02;
		link.reorder_ns = 30000;
		wl.streams = 2;
		wl.min_len = wl.max_len = 1024 * 1024;
		wl.outstanding = 8;
		wl.messages = scaled(120);
		mrcsim::Sim sim(make_cfg(npaths, 2, 4096), link, wl, 9);
		bool ok = sim.run(60ull * 1000000000);
		expect_clean(sim, ok, "reorder");
		double gp = (double)sim.stats().bytes_rx / (double)sim.stats().end_ns;
		double resent = (double)sim.stats().resends / (double)sim.stats().data_pkts;

		printf("[          ] in-path reorder 2%% x 30 us, %u path(s): %.3f GB/s, %.2f%% resent, %llu reordered\n",
		       npaths, gp, 100 * resent,
		       (unsigned long long)sim.stats().reordered);
		EXPECT_GE(gp, 0.95 * 1.218);
		EXPECT_LE(resent, 0.01);
	}
}

// [REL-22] routes of different base delays: a packet of a slow path is
// overtaken by later ones of a fast path, by up to the difference of
// their delays, which the rule waits out (skew), also after a request's
// answer (the request's own path is the reference); at 1% loss the tails
// it finds are real. Before the skew was taken from the request's path
// and paths without an RTT sample were left alone, 3 of 3 and 15 of 17
// were not.
TEST(ConnProperty, SkewedRoutesAreNotLoss)
{
	for (double loss : {0.0, 0.01}) {
		mrcsim::LinkCfg link;
		mrcsim::Workload wl;

		link.loss = loss;
		link.acks_lossless = true;	// a lost ACK makes any rule wrong
		link.route_skew_ns = 20000;	// up to 300 us over a 10 us route
		wl.streams = 2;
		wl.min_len = wl.max_len = 256 * 1024;
		wl.outstanding = 8;
		wl.batch = true;
		wl.messages = 800;	// fewer may see no tail lost at all
		mrc_conn_cfg cfg = make_cfg(4, 2, 4096);
		// fixed routes: [PATH-10] would move paths off the slow ones,
		// and a new route's delay is unknown to [REL-22] until sampled
		cfg.sched.repath_rounds = 0;
		mrcsim::Sim sim(cfg, link, wl, 13);
		bool ok = sim.run(60ull * 1000000000);
		expect_clean(sim, ok, "skew");

		uint64_t found = 0, late = 0, lost = 0;
		for (uint32_t i = 0; i < 4; i++) {
			const mrc_path_tx &tx = sim.sender()->path[i].tx;

			found += tx.lost_rack;
			late += tx.late_rack;
			lost += mrc_path_tx_lost(&tx);
		}
		printf("[          ] skewed routes, %.0f%% loss: %llu declared lost (%llu by [REL-22], %llu of those late), %llu dropped\n",
		       100 * loss, (unsigned long long)lost,
		       (unsigned long long)found, (unsigned long long)late,
		       (unsigned long long)sim.stats().dropped);
		EXPECT_EQ(late, 0u) << loss;
		if (!loss)
			EXPECT_EQ(found, 0u);
		else
			EXPECT_GT(found, 0u);
	}
}

// [CC-4] [CC-5] [PATH-5] [PATH-6] a route that marks ECN (a hot link on
// one ECMP route): the path on it is trimmed and marked congested, the
// others take its traffic, the connection window is not cut for it, and
// goodput stays at the link rate.
TEST(ConnProperty, HotRouteSteersTraffic)
{
	mrcsim::LinkCfg link;
	mrcsim::Workload wl;

	wl.streams = 2;
	wl.min_len = wl.max_len = 1024 * 1024;
	wl.outstanding = 8;
	wl.messages = scaled(120);
	mrcsim::Sim sim(make_cfg(4, 2, 4096), link, wl, 11);
	uint32_t hot = sim.sender()->path[0].sport % link.routes;

	for (uint32_t i = 1; i < 4; i++)
		ASSERT_NE(sim.sender()->path[i].sport % link.routes, hot)
			<< "pick another seed: two paths share the hot route";
	sim.set_hot_route((int)hot, 0.3);
	bool ok = sim.run(60ull * 1000000000);
	expect_clean(sim, ok, "hot");

	const mrc_conn *a = sim.sender();
	uint64_t total = 0;
	for (uint32_t i = 0; i < 4; i++)
		total += a->path[i].tx.sent_pkts;
	// the route marks 30% of what it carries, and nothing else marks;
	// its path may also move off it ([PATH-10])
	double share = (double)sim.stats().ce_marked / 0.3 / (double)total;
	double gp = (double)sim.stats().bytes_rx / (double)sim.stats().end_ns;

	printf("[          ] hot route (30%% CE): it carried %.1f%% of packets, goodput %.3f GB/s, conn cuts %llu, its path moved %llu times\n",
	       100 * share, gp, (unsigned long long)a->cc.decreases,
	       (unsigned long long)a->path[0].repaths);
	EXPECT_LT(share, 0.10);
	EXPECT_GE(gp, 0.95 * 1.218);
	EXPECT_EQ(a->cc.decreases, 0u);
}

namespace {

// The bed's operating point (selftests/bench, perftest -t 40): 4 paths,
// 8 KiB segments, ~75 MB/s, ~0.6 ms round trip, 40 messages posted and
// completed in order, loss on data and ACKs alike.
double bed_goodput(double loss, uint32_t len, uint64_t seed)
{
	mrcsim::LinkCfg link;
	mrcsim::Workload wl;

	link.loss = loss;
	link.rate_bpns = 0.075;
	link.delay_ns = 300000;
	wl.streams = 1;
	wl.min_len = wl.max_len = len;
	wl.outstanding = 40;
	wl.messages = scaled(len > 65536 ? 600 : 4000);
	return goodput(link, wl, 4, 8192, seed);
}

} // namespace

namespace {

struct BatchRun {
	double goodput;		// bytes per ns
	uint64_t rto;		// retransmission timeouts, all paths
	uint64_t rack;		// losses found by [REL-22]
	uint64_t late;		// ... that were not
};

// The bed's link as the kernel's connections see it: no speed reported
// (no rate hint), loss on data only (netem on the data sender's egress).
mrcsim::LinkCfg bed_link(double loss, double rate_bpns)
{
	mrcsim::LinkCfg link;

	link.loss = loss;
	link.rate_bpns = rate_bpns;
	link.delay_ns = 1000000;
	link.rate_hint = false;
	link.acks_lossless = true;
	return link;
}

// The kernel's settings for software endpoints (xport.c): 30 ms delay
// target, 20 ms rto_min, ACKs every 32 packets or 4 ms, req_spacing 8.
mrc_conn_cfg bed_cfg()
{
	mrc_conn_cfg cfg = make_cfg(4, 1, 8192);

	cfg.retry_limit = 7;
	cfg.cc.delay_target_ns = 30000000;
	cfg.path.rto_min_ns = 20000000;
	cfg.path.rto_init_ns = 100000000;
	cfg.path.ack_delay_ns = 4000000;
	cfg.path.ack_every = 32;
	cfg.path.req_spacing = 8;
	return cfg;
}

// An application that posts a batch (40 x 64 KiB or 10 x 1 MiB) and waits
// for all of it, as perftest's bandwidth loop does with messages up to
// 8 KiB (one signalled WR per min(100, tx_depth); above 8 KiB perftest
// signals every WR and the window slides, GoodputAtTheBedsOperatingPoint),
// over bed_link() and bed_cfg(). The batch's whole data queues at the
// bottleneck, so a hole near its end is what the application waits for.
BatchRun bed_batch(double loss, uint32_t len, uint64_t seed, bool tails)
{
	mrcsim::LinkCfg link = bed_link(loss, 0.070);
	mrcsim::Workload wl;

	wl.streams = 1;
	wl.min_len = wl.max_len = len;
	wl.outstanding = len > 65536 ? 10 : 40;
	wl.batch = true;
	// not scaled: fewer batches leave the fractions to a few RTOs
	wl.messages = len > 65536 ? 600 : 4000;
	mrc_conn_cfg cfg = bed_cfg();
	cfg.rack = tails;
	cfg.ack_resends = tails;
	mrcsim::Sim sim(cfg, link, wl, seed);
	bool ok = sim.run(600ull * 1000000000);
	expect_clean(sim, ok, "batch");

	BatchRun r = {(double)sim.stats().bytes_rx / (double)sim.stats().end_ns,
		      0, 0, 0};
	for (uint32_t i = 0; i < 4; i++) {
		const mrc_path_tx &tx = sim.sender()->path[i].tx;

		r.rto += tx.rto_fired;
		r.rack += tx.lost_rack;
		r.late += tx.late_rack;
	}
	return r;
}

} // namespace

// [REL-22] [REL-14] where an application waits for whole batches, the
// tails of the paths decide: without the rule and the resends' requests a
// lost tail waits for an RTO and a filled hole for a held ACK. When this
// test was added (4 paths, 8 KiB segments, mean of 3 seeds): 64 KiB
// messages kept 0.88 / 0.53 of lossless at 1% / 10% loss without them and
// 0.98 / 0.72 with them; 1 MiB messages 0.96 / 0.79 and 0.98 / 0.85. The
// 64 KiB batches at 10% stay below issue 6's 0.80 here: a lost resend at
// a batch's end still waits for its RTO.
TEST(ConnProperty, BatchesAtTheBedsSettings)
{
	for (uint32_t len : {65536u, 1048576u}) {
		double f1 = 0, f10 = 0, old1 = 0, old10 = 0;
		uint64_t rto = 0, old_rto = 0, found = 0, late = 0;
		const int seeds = 3;

		// a few seeds: one RTO more or less moves a single run's fraction
		for (int sd = 0; sd < seeds; sd++) {
			double base = bed_batch(0, len, 3 + sd, true).goodput;
			BatchRun g1 = bed_batch(0.01, len, 10 + sd, true);
			BatchRun g10 = bed_batch(0.10, len, 20 + sd, true);
			BatchRun o1 = bed_batch(0.01, len, 10 + sd, false);
			BatchRun o10 = bed_batch(0.10, len, 20 + sd, false);

			f1 += g1.goodput / base / seeds;
			f10 += g10.goodput / base / seeds;
			old1 += o1.goodput / base / seeds;
			old10 += o10.goodput / base / seeds;
			rto += g1.rto + g10.rto;
			old_rto += o1.rto + o10.rto;
			found += g1.rack + g10.rack;
			late += g1.late + g10.late;
		}
		printf("[          ] %u B batches, mean of %d seeds: 1%% loss %.3f (%.3f without), 10%% loss %.3f (%.3f); RTOs %llu (%llu), tails found %llu, late %llu\n",
		       len, seeds, f1, old1, f10, old10,
		       (unsigned long long)rto, (unsigned long long)old_rto,
		       (unsigned long long)found, (unsigned long long)late);
		EXPECT_GE(f1, 0.95) << len;
		EXPECT_GE(f10, len > 65536 ? 0.80 : 0.65) << len;
		EXPECT_GT(f10, old10 * 1.05) << len;
		EXPECT_LT(rto, old_rto / 2) << len;
		EXPECT_GT(found, 0u) << len;
		// in a FIFO channel nothing found by the rule arrives later
		EXPECT_EQ(late, 0u) << len;
	}
}

// Issue 6's targets where bench-loss measures them: what the protocol
// keeps at 1% and 10% loss with 64 KiB and 1 MiB messages, with no guest
// CPU or link cost in the way. When this test was added: 0.99 / 0.89 for
// both sizes, while bench-loss measured write 64 KiB at 0.81 / 0.68: the
// rest of that gap lies in the bed (its sender sent 26% fewer datagrams
// at 10% loss), not in the protocol's recovery.
TEST(ConnProperty, GoodputAtTheBedsOperatingPoint)
{
	for (uint32_t len : { 65536u, 1048576u })
		expect_loss_targets([len](double loss, uint64_t seed) {
			return bed_goodput(loss, len, seed);
		}, std::to_string(len) + " B messages");
}

namespace {

// perftest's READ loop as the bed runs ib_read_bw (-t 40 x 64 KiB, every
// WR signalled: the window slides) over the kernel's settings for
// software endpoints: the requester completes a READ
// when its data is in, in verbs order, and its next request reaches the
// responder one link delay later.
double bed_reads(double loss, uint64_t seed, uint32_t keep_home,
		  uint32_t keep_home_resp)
{
	mrcsim::LinkCfg link = bed_link(loss, 0.090);
	mrcsim::Workload wl;

	wl.streams = 1;
	wl.min_len = wl.max_len = 65536;
	wl.outstanding = 40;
	wl.messages = 4000;
	wl.reads = true;
	mrc_conn_cfg cfg = bed_cfg();
	cfg.cc.keep_home = keep_home;
	cfg.cc.keep_home_resp = keep_home_resp;
	mrcsim::Sim sim(cfg, link, wl, seed);
	bool ok = sim.run(600ull * 1000000000);
	expect_clean(sim, ok, "reads");
	return (double)sim.stats().bytes_rx / (double)sim.stats().end_ns;
}

// bed_reads() lossless, and the shares of it kept at 1% and 10% loss,
// means over three seeds
struct ReadShares {
	double base = 0, f1 = 0, f10 = 0;
};

ReadShares read_shares(uint32_t keep_home, uint32_t keep_home_resp)
{
	const int seeds = 3;
	ReadShares r;

	for (int sd = 0; sd < seeds; sd++) {
		double b = bed_reads(0, 3 + sd, keep_home, keep_home_resp);

		r.base += b / seeds;
		r.f1 += bed_reads(0.01, 10 + sd, keep_home, keep_home_resp) /
			b / seeds;
		r.f10 += bed_reads(0.10, 20 + sd, keep_home, keep_home_resp) /
			 b / seeds;
	}
	return r;
}

} // namespace

// [CC-13] a posted window of READs deeper than the delay target's queue:
// without the rule the responder put all of it in the network, each hole's
// resend queued behind it, and the link ran dry before it arrived. When
// this test was added (mean of 3 seeds): 0.948 / 0.860 of lossless at 1% /
// 10% loss without the rule, 0.992 / 0.899 with it, lossless 88.3 and
// 87.7 MB/s.
TEST(ConnProperty, ReadWindowKeepsHalfAtHome)
{
	ReadShares r = read_shares(2, 2), off = read_shares(0, 0);

	printf("[          ] 64 KiB READs, mean of 3 seeds: lossless %.1f MB/s (%.1f without), 1%% loss %.3f (%.3f), 10%% loss %.3f (%.3f)\n",
	       r.base * 1000, off.base * 1000, r.f1, off.f1, r.f10, off.f10);
	EXPECT_GE(r.f1, 0.97);
	EXPECT_GE(r.f10, 0.88);
	EXPECT_GT(r.f1, off.f1 + 0.02);
	EXPECT_GT(r.f10, off.f10 + 0.02);
	EXPECT_GT(r.base, off.base * 0.98);
}

// [CC-13] a responder's backlog keeps a third at home (keep_home_resp 3):
// it is refilled only a round trip after the requester completed, so the
// link runs dry sooner behind a hole than a sender's does
TEST(ConnProperty, ResponsesKeepMoreAtHome)
{
	ReadShares r = read_shares(2, 3), half = read_shares(2, 2);

	printf("[          ] 64 KiB READs, mean of 3 seeds, responses keep 1/3 (1/2): lossless %.1f MB/s (%.1f), 1%% loss %.3f (%.3f), 10%% loss %.3f (%.3f)\n",
	       r.base * 1000, half.base * 1000, r.f1, half.f1, r.f10, half.f10);
	// not worse: 0.002 is the spread of 3 seeds at 10% loss
	EXPECT_GE(r.f1, half.f1 - 0.002);
	EXPECT_GE(r.f10, half.f10 - 0.002);
	EXPECT_GT(r.base, half.base * 0.98);
}
