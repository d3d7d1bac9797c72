// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Traffic patterns and their measures; see scenario.h.
#include "scenario.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <map>
#include <numeric>
#include <sstream>

namespace scale {
namespace {

double jain(const std::vector<double> &x)
{
	double s = 0, q = 0;

	for (double v : x) {
		s += v;
		q += v * v;
	}
	return q > 0 ? s * s / (x.size() * q) : 0;
}

// Samples the incast senders' delivered bytes every @period_ns: a flow
// that sends nothing, for its timer.
class Probe : public Flow {
public:
	Probe(Net &net, uint32_t id, uint32_t nsenders, uint64_t period_ns)
		: Flow(net, id, 0, 0), n_(nsenders), period_(period_ns) {}
	void post(uint64_t) override {}
	void recv(Pkt &) override {}
	void timer(uint32_t) override
	{
		std::vector<uint64_t> s(n_);

		for (uint32_t i = 0; i < n_; i++)
			s[i] = net_.flow(i).bytes_rx;
		samples.push_back(std::move(s));
		net_.at(net_.now() + period_, id_, 0);
	}
	std::vector<std::vector<uint64_t>> samples;

private:
	uint32_t n_;
	uint64_t period_;
};

void print_flows(FILE *out, Net &net, uint32_t nflows)
{
	for (uint32_t i = 0; out && i < nflows; i++) {
		Flow &fl = net.flow(i);

		fprintf(out, "flow=%u src=%u dst=%u bytes_rx=%llu msgs_rx=%llu msgs_tx=%llu last_rx_us=%.1f %s%s%s\n",
			i, fl.src(), fl.dst(), (unsigned long long)fl.bytes_rx,
			(unsigned long long)fl.msgs_rx, (unsigned long long)fl.msgs_tx,
			fl.last_rx_ns / 1e3,
			fl.counters().c_str(), fl.error.empty() ? "" : " error=",
			fl.error.c_str());
	}
}

// "k=1 j=2" summed over flows, key by key.
std::string sum_counters(Net &net, uint32_t nflows)
{
	std::map<std::string, uint64_t> sum;

	for (uint32_t i = 0; i < nflows; i++) {
		std::istringstream in(net.flow(i).counters());
		std::string kv;

		while (in >> kv) {
			size_t eq = kv.find('=');

			if (eq != std::string::npos)
				sum[kv.substr(0, eq)] += std::stoull(kv.substr(eq + 1));
		}
	}
	std::string out;
	for (auto &[k, v] : sum)
		out += (out.empty() ? "" : " ") + k + "=" + std::to_string(v);
	return out;
}

} // namespace

Result run_scenario(const Scenario &sc)
{
	Result r;
	Net net(sc.fab);
	const FabricCfg &f = sc.fab;
	uint32_t n = f.hosts;
	std::vector<mrc_cc_share> shares(n);
	std::mt19937_64 rng(f.seed * 7919 + 17);
	uint64_t target = 0;		// messages per flow
	auto t0 = std::chrono::steady_clock::now();
	std::clock_t c0 = std::clock();

	for (mrc_cc_share &s : shares)
		mrc_cc_share_init(&s, (uint64_t)(net.bytes_per_ns() * 1e9 * f.planes),
				  MRC_CC_SHARE_EPOCH_NS, 0);
	auto add = [&](uint32_t src, uint32_t dst) -> Flow & {
		auto fl = make_flow(net, sc.tc, net.nflows(), src, dst, &shares[dst]);

		if (!fl) {
			r.error = "unknown transport " + sc.tc.kind;
			fl = make_flow(net, TransportCfg{}, net.nflows(), src, dst, &shares[dst]);
		}
		return net.add(std::move(fl));
	};

	if (sc.traffic == "perm") {
		std::vector<uint32_t> to(n);

		std::iota(to.begin(), to.end(), 0);
		do
			std::shuffle(to.begin(), to.end(), rng);
		while (n > 1 && [&] {
			for (uint32_t i = 0; i < n; i++)
				if (to[i] == i)
					return true;
			return false;
		}());
		target = (sc.bytes + sc.msg - 1) / sc.msg;
		for (uint32_t i = 0; i < n; i++)
			add(i, to[i]);
		for (uint32_t i = 0; i < n; i++)
			for (uint64_t m = 0; m < target; m++)
				net.flow(i).post(std::min(sc.msg, sc.bytes - m * sc.msg));
	} else if (sc.traffic == "ring") {
		std::vector<uint32_t> order(n);

		std::iota(order.begin(), order.end(), 0);
		if (sc.ring_shuffle)
			std::shuffle(order.begin(), order.end(), rng);
		target = 2 * (n - 1);
		uint64_t chunk = std::max<uint64_t>(sc.bytes / n, 1);

		for (uint32_t k = 0; k < n; k++)
			add(order[k], order[(k + 1) % n]);
		for (uint32_t k = 0; k < n; k++) {
			// step s+1 of the next rank needs this rank's step s
			net.flow(k).on_rx_msg = [&net, n, chunk, target](Flow &fl, uint64_t m) {
				if (m + 1 < target)
					net.flow((fl.id() + 1) % n).post(chunk);
			};
		}
		for (uint32_t k = 0; k < n; k++)
			net.flow(k).post(chunk);
	} else if (sc.traffic == "a2a") {
		uint64_t chunk = std::max<uint64_t>(sc.bytes / n, 1);

		// each pair a connection of its own, as NCCL's all-to-all has
		target = (chunk + sc.msg - 1) / sc.msg;
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t k = 1; k < n; k++)
				add(i, (i + k) % n);
		for (uint32_t i = 0; i < net.nflows(); i++)
			for (uint64_t m = 0; m < target; m++)
				net.flow(i).post(std::min(sc.msg, chunk - m * sc.msg));
	} else if (sc.traffic == "incast") {
		uint32_t senders = std::min(sc.incast, n - 1);
		double rtt = 2.0 * net.base_owd_ns(sc.tc.mss + 100);
		uint64_t period = (uint64_t)(10 * rtt);

		for (uint32_t i = 0; i < senders; i++) {
			Flow &fl = add(1 + i, 0);

			fl.on_rx_msg = [](Flow &x, uint64_t) { x.post(1 << 20); };
			for (int k = 0; k < 4; k++)
				fl.post(1 << 20);
		}
		auto probe = std::make_unique<Probe>(net, senders, senders, period);
		Probe *pr = probe.get();

		net.add(std::move(probe));
		net.at(period, senders, 0);
		net.run(sc.duration_ns, [&] { return !r.error.empty(); });
		r.sim_ns = sc.duration_ns;
		r.completed = net.errors().empty() && r.error.empty();
		// fairness and throughput over the second half
		const auto &s = pr->samples;
		if (s.size() >= 4) {
			const auto &mid = s[s.size() / 2], &last = s.back();
			std::vector<double> x(senders);
			double tot = 0;

			for (uint32_t i = 0; i < senders; i++) {
				x[i] = (double)(last[i] - mid[i]);
				tot += x[i];
			}
			r.jain = jain(x);
			r.tput = tot / ((s.size() - 1 - s.size() / 2) * period) /
				 (net.bytes_per_ns() * f.planes);
			// converged: every later period's shares are fair
			size_t conv = s.size();
			for (size_t k = s.size() - 1; k >= 1; k--) {
				for (uint32_t i = 0; i < senders; i++)
					x[i] = (double)(s[k][i] - s[k - 1][i]);
				if (jain(x) < 0.95)
					break;
				conv = k - 1;
			}
			r.converge_rtts = conv < s.size() - 1 ? (conv + 1) * period / rtt : -1;
		}
		for (uint32_t i = 0; i < senders; i++)
			r.bytes_rx += net.flow(i).bytes_rx;
		if (!net.errors().empty())
			r.error = net.errors().front();
		for (uint32_t i = 0; i < senders; i++)
			if (!net.flow(i).error.empty() && r.error.empty())
				r.error = net.flow(i).error;
		r.net = net.stats();
		r.counters = sum_counters(net, senders);
		print_flows(sc.flows, net, senders);
		r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		r.cpu_s = (double)(std::clock() - c0) / CLOCKS_PER_SEC;
		return r;
	} else {
		r.error = "unknown traffic " + sc.traffic;
		return r;
	}

	uint32_t nf = net.nflows();
	auto done = [&] {
		bool all = true;

		for (uint32_t i = 0; i < nf; i++) {
			Flow &fl = net.flow(i);

			if (!fl.error.empty())
				return true;
			all = all && fl.msgs_rx == target && fl.msgs_tx == target;
		}
		return all;
	};
	bool fin = r.error.empty() && net.run(sc.limit_ns, done);
	uint64_t posted = 0;

	for (uint32_t i = 0; i < nf; i++) {
		Flow &fl = net.flow(i);

		r.sim_ns = std::max(r.sim_ns, fl.last_rx_ns);
		r.bytes_rx += fl.bytes_rx;
		posted += fl.bytes_posted;
		if (!fl.error.empty() && r.error.empty())
			r.error = "flow " + std::to_string(i) + ": " + fl.error;
		if (fin && fl.bytes_rx != fl.bytes_posted)
			net.fail("flow " + std::to_string(i) + ": bytes placed " +
				 std::to_string(fl.bytes_rx) + " of " +
				 std::to_string(fl.bytes_posted));
	}
	if (!net.errors().empty() && r.error.empty())
		r.error = net.errors().front();
	if (!fin && r.error.empty())
		r.error = "time limit";
	r.completed = fin && r.error.empty();
	if (!r.completed)
		r.sim_ns = net.now();
	// what a host took in per unit of its capacity: for a run cut short,
	// what it got so far
	if (r.sim_ns)
		r.tput = (double)r.bytes_rx / n /
			 (net.bytes_per_ns() * f.planes * r.sim_ns);
	r.net = net.stats();
	r.counters = sum_counters(net, nf);
	print_flows(sc.flows, net, nf);
	r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	r.cpu_s = (double)(std::clock() - c0) / CLOCKS_PER_SEC;
	(void)posted;
	return r;
}

std::string format_result(const Scenario &sc, const Result &r)
{
	char buf[1024];
	const FabricCfg &f = sc.fab;

	snprintf(buf, sizeof(buf),
		 "transport=%s traffic=%s hosts=%u per_leaf=%u spines=%u planes=%u gbps=%g "
		 "loss=%g fail=%d bytes=%llu seed=%llu completed=%d time_us=%.1f tput=%.4f "
		 "jain=%.4f converge_rtts=%.1f hops=%llu wall_s=%.3f cpu_s=%.3f hops_per_cpu_s=%.0f "
		 "drops_buffer=%llu drops_loss=%llu drops_failed=%llu ce=%llu max_queue=%llu",
		 sc.tc.kind.c_str(), sc.traffic.c_str(), f.hosts, f.per_leaf, f.spines,
		 f.planes, f.gbps, f.loss, f.fail_plane >= 0, (unsigned long long)sc.bytes,
		 (unsigned long long)f.seed, r.completed, r.sim_ns / 1e3, r.tput, r.jain,
		 r.converge_rtts, (unsigned long long)r.net.hops, r.wall_s, r.cpu_s,
		 r.cpu_s > 0 ? r.net.hops / r.cpu_s : 0,
		 (unsigned long long)r.net.drops_buffer, (unsigned long long)r.net.drops_loss,
		 (unsigned long long)r.net.drops_failed, (unsigned long long)r.net.ce_marked,
		 (unsigned long long)r.net.max_queue);
	std::string s = buf;

	if (!r.counters.empty())
		s += " " + r.counters;
	if (!r.error.empty()) {
		std::string e = r.error;

		std::replace(e.begin(), e.end(), ' ', '_');
		s += " error=" + e;
	}
	return s;
}

} // namespace scale
