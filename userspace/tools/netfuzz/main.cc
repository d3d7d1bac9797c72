// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_netfuzz: sends valid, nearly valid and random MetaRoCE datagrams,
// ACK and packet bundles among them, to one host's MetaRoCE port, from
// the peer's and from other source addresses and many source ports, at
// QP 0, QP 1, random QPNs and the QPs it is told of. Every datagram is
// a function of (--seed, its index), so any of them can be shown again
// (--dump) and any range sent again (--start, --count).
//
//   mrc_netfuzz --dst ADDR [--dst6 ADDR6] --src ADDR [--src ADDR]...
//               [--src6 ADDR6]... [--seed S] [--count N] [--start I]
//               [--rate PPS] [--time-limit SECONDS] [targets] [options]
//   mrc_netfuzz ... --dump I[-J]      print datagrams I..J, send nothing
//
// Targets: --rc QPN:RQ_PSN:SQ_PSN[:protect] (a connected QP and the
// starting PSNs its connection's cookies are, [PKT-16]; "protect": never
// its right cookie from the right source), --ud QPN:QKEY, --uc QPN, --dead
// QPN[:RQ_PSN:SQ_PSN] (destroyed, maybe lingering), --near LO-HI (any
// QPN of the range). QP 0, QP 1 and random QPNs are always targets.
// --nice N sets the fuzzer's scheduling priority.
// The first --src (and --src6) is the address the QPs' peer uses; the
// others are wrong sources. Destinations must be on the bed's links
// (10.0.0.0/16, fd00::/16), and a run is bounded by --count and
// --time-limit (default 600 s).
//
// Output: the command that reproduces the run, "at #I" every --progress
// datagrams, and a summary whose last line, "netfuzz-counts: ...", gives
// the packets sent and how many of them the receiver must drop.

#include <getopt.h>
#include <sys/resource.h>
#include <time.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "describe.h"
#include "gen.h"
#include "sender.h"

namespace {

using namespace mrc_netfuzz;

constexpr uint64_t kMaxCount = 100000000;
constexpr double kMaxSeconds = 4 * 3600;

[[noreturn]] void usage_error(const std::string &why)
{
	fprintf(stderr, "mrc_netfuzz: %s (see the comment at the top of main.cc)\n",
		why.c_str());
	exit(2);
}

uint64_t number(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		usage_error(std::string("bad ") + what + ": " + s);
	return v;
}

std::vector<std::string> split(const std::string &s, char sep)
{
	std::vector<std::string> v;
	size_t at = 0, next;

	while ((next = s.find(sep, at)) != std::string::npos) {
		v.push_back(s.substr(at, next - at));
		at = next + 1;
	}
	v.push_back(s.substr(at));
	return v;
}

uint32_t qpn_of(const std::string &s)
{
	uint64_t v = number(s.c_str(), "QPN");

	if (v > MRC_WIRE_QPN_MASK)
		usage_error("QPN over 24 bits: " + s);
	return static_cast<uint32_t>(v);
}

Target rc_target(const std::string &arg, Role role)
{
	auto f = split(arg, ':');
	Target t;

	t.role = role;
	t.qpn = qpn_of(f[0]);
	if (f.size() >= 3) {
		t.cookies = true;
		t.rq_psn = static_cast<uint32_t>(number(f[1].c_str(), "PSN"));
		t.sq_psn = static_cast<uint32_t>(number(f[2].c_str(), "PSN"));
	} else if (role == Role::Rc || f.size() != 1) {
		usage_error("want QPN:RQ_PSN:SQ_PSN, not " + arg);
	}
	if (f.size() == 4 && f[3] == "protect" && role == Role::Rc)
		t.protect = true;
	else if (f.size() > 3)
		usage_error("bad target " + arg);
	return t;
}

struct Options {
	Config cfg;
	Endpoints ep;
	uint64_t start = 0, count = 1000;
	double rate = 0, limit = 600;
	uint64_t progress = 1000;
	bool dump = false, verbose = false;
	uint64_t dump_from = 0, dump_to = 0;
	std::string argv;
};

Options parse(int argc, char **argv)
{
	enum { O_DST = 256, O_DST6, O_SRC, O_SRC6, O_PORT, O_SEED, O_COUNT,
	       O_START, O_RATE, O_LIMIT, O_RC, O_UD, O_UC, O_DEAD, O_NEAR, O_NPATHS,
	       O_PORTS, O_MAXLEN, O_NOBIG, O_SPOOF, O_DUMP, O_PROGRESS,
	       O_VERBOSE, O_NICE };
	static const option opts[] = {
		{ "dst", required_argument, nullptr, O_DST },
		{ "dst6", required_argument, nullptr, O_DST6 },
		{ "src", required_argument, nullptr, O_SRC },
		{ "src6", required_argument, nullptr, O_SRC6 },
		{ "port", required_argument, nullptr, O_PORT },
		{ "seed", required_argument, nullptr, O_SEED },
		{ "count", required_argument, nullptr, O_COUNT },
		{ "start", required_argument, nullptr, O_START },
		{ "rate", required_argument, nullptr, O_RATE },
		{ "time-limit", required_argument, nullptr, O_LIMIT },
		{ "rc", required_argument, nullptr, O_RC },
		{ "ud", required_argument, nullptr, O_UD },
		{ "uc", required_argument, nullptr, O_UC },
		{ "dead", required_argument, nullptr, O_DEAD },
		{ "near", required_argument, nullptr, O_NEAR },
		{ "npaths", required_argument, nullptr, O_NPATHS },
		{ "ports", required_argument, nullptr, O_PORTS },
		{ "max-len", required_argument, nullptr, O_MAXLEN },
		{ "no-big", no_argument, nullptr, O_NOBIG },
		{ "spoof-protected", no_argument, nullptr, O_SPOOF },
		{ "dump", required_argument, nullptr, O_DUMP },
		{ "progress", required_argument, nullptr, O_PROGRESS },
		{ "verbose", no_argument, nullptr, O_VERBOSE },
		{ "nice", required_argument, nullptr, O_NICE },
		{ nullptr, 0, nullptr, 0 },
	};
	std::vector<std::string> src4, src6;
	std::string dst4, dst6, err;
	bool seeded = false;
	Options o;
	int c;

	for (int i = 0; i < argc; i++)
		o.argv += (i ? " " : "") + std::string(argv[i]);
	while ((c = getopt_long(argc, argv, "", opts, nullptr)) != -1) {
		std::string a = optarg ? optarg : "";

		switch (c) {
		case O_DST: dst4 = a; break;
		case O_DST6: dst6 = a; break;
		case O_SRC: src4.push_back(a); break;
		case O_SRC6: src6.push_back(a); break;
		case O_PORT: o.ep.dport = static_cast<uint16_t>(number(optarg, "port")); break;
		case O_SEED: o.cfg.seed = number(optarg, "seed"); seeded = true; break;
		case O_COUNT: o.count = number(optarg, "count"); break;
		case O_START: o.start = number(optarg, "start"); break;
		case O_RATE: o.rate = strtod(optarg, nullptr); break;
		case O_LIMIT: o.limit = strtod(optarg, nullptr); break;
		case O_RC: o.cfg.targets.push_back(rc_target(a, Role::Rc)); break;
		case O_DEAD: o.cfg.targets.push_back(rc_target(a, Role::Dead)); break;
		case O_UC: {
			Target t;

			t.role = Role::Uc;
			t.qpn = qpn_of(a);
			o.cfg.targets.push_back(t);
			break;
		}
		case O_UD: {
			auto f = split(a, ':');
			Target t;

			if (f.size() != 2)
				usage_error("want --ud QPN:QKEY, not " + a);
			t.role = Role::Ud;
			t.qpn = qpn_of(f[0]);
			t.qkey = static_cast<uint32_t>(number(f[1].c_str(), "Q_Key"));
			o.cfg.targets.push_back(t);
			break;
		}
		case O_NEAR: {
			auto f = split(a, '-');
			Target t;

			if (f.size() != 2)
				usage_error("want --near LO-HI, not " + a);
			t.role = Role::Near;
			t.qpn = qpn_of(f[0]);
			t.qpn_hi = qpn_of(f[1]);
			o.cfg.targets.push_back(t);
			break;
		}
		case O_NPATHS: o.cfg.npaths = static_cast<uint32_t>(number(optarg, "npaths")); break;
		case O_PORTS: o.cfg.ports = static_cast<uint32_t>(number(optarg, "ports")); break;
		case O_MAXLEN: o.cfg.max_len = static_cast<uint32_t>(number(optarg, "max-len")); break;
		case O_NOBIG: o.cfg.big = false; break;
		case O_SPOOF: o.cfg.spoof_protected = true; break;
		case O_DUMP: {
			auto f = split(a, '-');

			o.dump = true;
			o.dump_from = number(f[0].c_str(), "dump index");
			o.dump_to = f.size() > 1 ? number(f[1].c_str(), "dump index") :
						   o.dump_from;
			break;
		}
		case O_PROGRESS: o.progress = number(optarg, "progress"); break;
		case O_VERBOSE: o.verbose = true; break;
		case O_NICE:
			// ahead of (or behind) the guest's other work, which has no nice(1)
			if (setpriority(PRIO_PROCESS, 0, atoi(optarg)))
				usage_error(std::string("--nice: ") + strerror(errno));
			break;
		default: usage_error("unknown option");
		}
	}
	if (optind != argc)
		usage_error(std::string("unexpected argument ") + argv[optind]);
	if (!seeded)
		usage_error("--seed is required: a run must be reproducible");
	if (!o.count || o.count > kMaxCount)
		usage_error("--count must be 1.." + std::to_string(kMaxCount));
	if (!(o.limit > 0) || o.limit > kMaxSeconds)
		usage_error("--time-limit must be in (0, 14400] s");
	if (o.rate < 0)
		usage_error("--rate must not be negative");
	if (src4.empty())
		usage_error("--src is required");
	if (!dst6.empty() && src6.size() != src4.size())
		usage_error("give as many --src6 as --src");
	o.cfg.sources = static_cast<uint32_t>(src4.size());
	o.cfg.v6 = !dst6.empty();
	o.cfg.dport = o.ep.dport;
	// addresses are checked in a dump too: the same command sends
	if (!bed_addr4(dst4, &o.ep.dst4, &err))
		usage_error("--dst " + err);
	if (o.cfg.v6 && !bed_addr6(dst6, &o.ep.dst6, &err))
		usage_error("--dst6 " + err);
	o.ep.has6 = o.cfg.v6;
	for (auto &s : src4) {
		in_addr a;

		if (!addr4(s, &a))
			usage_error("--src " + s + ": not an IPv4 address");
		o.ep.src4.push_back(a);
	}
	for (auto &s : src6) {
		in6_addr a;

		if (!addr6(s, &a))
			usage_error("--src6 " + s + ": not an IPv6 address");
		o.ep.src6.push_back(a);
	}
	return o;
}

double now_s()
{
	timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9;
}

void sleep_until(double t)
{
	timespec ts;

	ts.tv_sec = static_cast<time_t>(t);
	ts.tv_nsec = static_cast<long>((t - static_cast<double>(ts.tv_sec)) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR)
		;
}

// An emulated CPU (QEMU TCG, the bed) runs the CRC32C instruction bit by
// bit, slower than the tables; as the module does, time both and keep the
// faster (every datagram's ICRCs are computed two or three times).
void pick_icrc()
{
	static uint8_t buf[16384];
	double t[2];

	if (!mrc_wire_icrc_cpu_available())
		return;
	for (int cpu = 0; cpu < 2; cpu++) {
		double t0 = now_s();

		for (int i = 0; i < 4; i++)
			buf[i] = static_cast<uint8_t>(cpu ? mrc_wire_icrc_update_cpu(~0u, buf, sizeof(buf)) :
				 mrc_wire_icrc_update_portable(~0u, buf, sizeof(buf)));
		t[cpu] = now_s() - t0;
	}
	mrc_wire_icrc_use_cpu(t[1] <= t[0]);
}

struct Tally {
	uint64_t datagrams = 0, packets = 0;
	uint64_t cls[5] = {};
	uint64_t fates[kFates] = {};

	void add(const Datagram &d)
	{
		datagrams++;
		cls[static_cast<int>(d.cls)]++;
		packets += d.fates.size();
		for (Fate f : d.fates)
			fates[static_cast<int>(f)]++;
	}

	uint64_t of(Fate f) const { return fates[static_cast<int>(f)]; }
};

}  // namespace

int main(int argc, char **argv)
{
	Options o = parse(argc, argv);

	pick_icrc();
	Generator g(o.cfg);
	Tally tally;
	std::string err;
	double t0, limit_at;
	uint64_t i, end = o.start + o.count;

	if (o.dump) {
		for (i = o.dump_from; i <= o.dump_to; i++)
			dump(stdout, g, g.make(i));
		return 0;
	}
	printf("netfuzz: seed %" PRIu64 ", datagrams #%" PRIu64 "..#%" PRIu64
	       ", %zu targets, %zu source ports\n", o.cfg.seed, o.start, end - 1,
	       g.targets().size(), g.ports().size());
	for (size_t k = 0; k < g.targets().size(); k++) {
		const Target &t = g.targets()[k];

		printf("netfuzz: target %zu: %s qpn %u", k, role_name(t.role), t.qpn);
		if (t.role == Role::Near)
			printf("-%u", t.qpn_hi);
		if (t.cookies)
			printf(" rq_psn 0x%x sq_psn 0x%x", t.rq_psn, t.sq_psn);
		if (t.role == Role::Ud)
			printf(" qkey 0x%x", t.qkey);
		printf("%s\n", t.protect ? " (protected)" : "");
	}
	printf("netfuzz: reproduce: %s\n", o.argv.c_str());
	fflush(stdout);

	Sender tx(o.ep);
	t0 = now_s();
	limit_at = t0 + o.limit;
	for (i = o.start; i < end; i++) {
		Datagram d = g.make(i);

		if (o.rate > 0)
			sleep_until(t0 + static_cast<double>(i - o.start) / o.rate);
		if (now_s() > limit_at) {
			printf("netfuzz: time limit of %.0f s reached\n", o.limit);
			break;
		}
		if (o.verbose)
			printf("%s\n", describe(g, d).c_str());
		if (!tx.send(d, &err)) {
			printf("netfuzz: FAILED to send #%" PRIu64 " (seed %" PRIu64 "): %s\n"
			       "netfuzz: see it with: %s --dump %" PRIu64 "\n",
			       i, o.cfg.seed, err.c_str(), o.argv.c_str(), i);
			return 1;
		}
		tally.add(d);
		if (o.progress && (i - o.start + 1) % o.progress == 0) {
			printf("netfuzz: at #%" PRIu64 "\n", i);
			fflush(stdout);
		}
	}

	double dt = now_s() - t0;
	printf("netfuzz: sent %" PRIu64 " datagrams (%" PRIu64 " packets) in %.1f s, %.0f/s:"
	       " %" PRIu64 " valid, %" PRIu64 " nearly valid, %" PRIu64 " random, %" PRIu64
	       " ACK bundles, %" PRIu64 " packet bundles\n",
	       tally.datagrams, tally.packets, dt, dt > 0 ? tally.datagrams / dt : 0.0,
	       tally.cls[0], tally.cls[1], tally.cls[2], tally.cls[3], tally.cls[4]);
	// what the receiver's drop counters must have grown by, at least
	// (rx_drop_malformed: by malformed, plus no_mad where the receiver
	// filters what is no MAD, and nothing else)
	printf("netfuzz-counts: seed=%" PRIu64 " next=%" PRIu64 " datagrams=%" PRIu64
	       " packets=%" PRIu64 " malformed=%" PRIu64 " no_mad=%" PRIu64 " no_qp=%" PRIu64
	       " qp_type=%" PRIu64 " qkey=%" PRIu64 " dropped=%" PRIu64 " may=%" PRIu64 "\n",
	       o.cfg.seed, i, tally.datagrams, tally.packets,
	       tally.of(Fate::Malformed) + tally.of(Fate::Oversize), tally.of(Fate::NoMad),
	       tally.of(Fate::NoQp), tally.of(Fate::QpType), tally.of(Fate::QKey),
	       tally.packets - tally.of(Fate::May) - tally.of(Fate::NoMad),
	       tally.of(Fate::May));
	return 0;
}
