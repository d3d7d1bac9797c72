// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_ufuzz: a hostile, unprivileged process against metaroce's user rings
// (README.md next to this file). Modes:
//
//   mrc_ufuzz peer    -d DEV -g GID [-p PORT]
//   mrc_ufuzz fuzz    -d DEV -g GID [-p PORT] [--seed S] [--iterations N]
//                     [--time-limit SEC] [--wc-timeout MS] [--classes a,b]
//                     [--no-wrap] [-v] PEER
//   mrc_ufuzz churn   -d DEV -g GID [-p PORT] [--seed S] --cycles N PEER
//   mrc_ufuzz traffic -d DEV -g GID [-p PORT] [--seconds S] PEER
//   mrc_ufuzz verify  -d DEV -g GID [-p PORT] PEER
//
// fuzz prints the seed first, "UNEXPECTED seed=S op=N class=C: what" and a
// command line that repeats the run up to that operation for anything the
// kernel must not do, a table of what each class tried and what came back,
// "NO EVIDENCE" for a class whose garbage never drew a refusal, then the
// verified transfer on a new QP; exit status 0 only when all is well.

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../report.h"
#include "ufuzz.h"

const char *const mrc_tool::kName = "mrc_ufuzz";

namespace {

using namespace ufz;
using mrc_tool::die;

struct Args {
	std::string mode;
	const char *dev = nullptr;
	int gidx = 1;
	int port = 18760;
	uint64_t seed = 1;
	uint64_t iterations = 1000;
	uint64_t cycles = 300;
	int seconds = 60;
	int time_limit = 0;
	int wc_timeout = 30000;
	bool wrap = true;
	bool verbose = false;
	uint32_t classes = ~0u;
	const char *peer = nullptr;
};

[[noreturn]] void usage()
{
	fprintf(stderr,
		"usage: mrc_ufuzz peer|fuzz|churn|traffic|verify -d DEV [-g GID] [-p PORT]\n"
		"       [--seed S] [--iterations N] [--time-limit SEC] [--wc-timeout MS]\n"
		"       [--classes a,b,...] [--no-wrap] [--cycles N] [--seconds S] [-v] [PEER]\n");
	exit(2);
}

uint32_t parse_classes(const char *list)
{
	uint32_t mask = 0;
	std::string s(list);
	size_t at = 0;

	while (at <= s.size()) {
		size_t end = s.find(',', at);
		std::string name = s.substr(at, end == std::string::npos ? end : end - at);
		int c = 0;

		while (c < kClsCount && name != kClsName[c])
			c++;
		if (c == kClsCount)
			die("unknown class %s", name.c_str());
		mask |= 1u << c;
		if (end == std::string::npos)
			break;
		at = end + 1;
	}
	return mask;
}

Args parse(int argc, char **argv, std::string &cmdline)
{
	Args a;
	int i = 1;

	if (argc < 2)
		usage();
	a.mode = argv[i++];
	cmdline = std::string(argv[0]) + " " + a.mode;
	for (; i < argc; i++) {
		std::string o = argv[i];
		auto val = [&]() -> const char * {
			if (i + 1 >= argc)
				usage();
			return argv[++i];
		};

		if (o == "-d") {
			a.dev = val();
			cmdline += " -d " + std::string(a.dev);
		} else if (o == "-g") {
			a.gidx = atoi(val());
			cmdline += " -g " + std::to_string(a.gidx);
		} else if (o == "-p") {
			a.port = atoi(val());
			cmdline += " -p " + std::to_string(a.port);
		} else if (o == "--seed") {
			a.seed = strtoull(val(), nullptr, 0);
		} else if (o == "--iterations") {
			a.iterations = strtoull(val(), nullptr, 0);
		} else if (o == "--cycles") {
			a.cycles = strtoull(val(), nullptr, 0);
		} else if (o == "--seconds") {
			a.seconds = atoi(val());
		} else if (o == "--time-limit") {
			a.time_limit = atoi(val());
		} else if (o == "--wc-timeout") {
			a.wc_timeout = atoi(val());
			cmdline += " --wc-timeout " + std::to_string(a.wc_timeout);
		} else if (o == "--classes") {
			cmdline += " --classes " + std::string(argv[i + 1]);
			a.classes = parse_classes(val());
		} else if (o == "--no-wrap") {
			a.wrap = false;
			cmdline += " --no-wrap";
		} else if (o == "-v") {
			a.verbose = true;
		} else if (o[0] == '-' || a.peer) {
			usage();
		} else {
			a.peer = argv[i];
		}
	}
	if (!a.dev || (a.mode != "peer" && !a.peer))
		usage();
	if (a.peer)
		cmdline += std::string(" ") + a.peer;
	return a;
}

// How often each class is drawn, in enum Cls order (kWrap runs once, first).
constexpr unsigned kWeight[kClsCount] = {
	16,	// sq
	10,	// rq
	8,	// srq
	8,	// cq
	8,	// index
	0,	// wrap
	8,	// torn
	10,	// keys
	6,	// ah
	8,	// doorbell
	6,	// mmap
	6,	// destroy
	6,	// state
	6,	// mw
};

Cls draw(Rng &rng, uint32_t classes)
{
	unsigned total = 0;

	for (int c = 0; c < kClsCount; c++)
		total += classes & (1u << c) ? kWeight[c] : 0;
	if (!total)
		die("no class to draw from");
	unsigned r = static_cast<unsigned>(rng.below(total));

	for (int c = 0;; c++) {
		unsigned w = classes & (1u << c) ? kWeight[c] : 0;

		if (r < w)
			return static_cast<Cls>(c);
		r -= w;
	}
}

void run_op(Env &e, Pool &p, Cls c, Rng &rng)
{
	switch (c) {
	case kSq:
		return op_sq(e, p, rng);
	case kRq:
		return op_rq(e, p, rng);
	case kSrq:
		return op_srq(e, p, rng);
	case kCq:
		return op_cq(e, p, rng);
	case kIndex:
		return op_index(e, p, rng);
	case kWrap:
		return op_wrap(e, p, rng);
	case kTorn:
		return op_torn(e, p, rng);
	case kKeys:
		return op_keys(e, p, rng);
	case kAh:
		return op_ah(e, p, rng);
	case kDoorbell:
		return op_doorbell(e, p, rng);
	case kMmap:
		return op_mmap(e, p, rng);
	case kState:
		return op_state(e, p, rng);
	case kMw:
		return op_mw(e, p, rng);
	default:
		return op_destroy(e, p, rng);
	}
}

int fuzz(Env &e, const Args &a)
{
	Pool p;
	auto t0 = std::chrono::steady_clock::now();
	auto over = [&] {
		return a.time_limit &&
		       std::chrono::steady_clock::now() - t0 > std::chrono::seconds(a.time_limit);
	};
	uint64_t done = 0;

	printf("ufuzz: seed %llu, %llu iterations, time limit %d s, uid %u\n",
	       (unsigned long long)e.seed, (unsigned long long)a.iterations, a.time_limit,
	       getuid());
	fflush(stdout);
	pool_open(e, p);
	for (uint64_t i = 0; i < a.iterations && !over() && !e.dead; i++, done++) {
		Rng rng(e.seed, i);
		Cls c = i == 0 && a.wrap && (a.classes & 1u << kWrap) ? kWrap : draw(rng, a.classes);

		e.op = i;
		e.cls = c;
		if (e.verbose)
			printf("op %llu: %s\n", (unsigned long long)i, kClsName[c]);
		run_op(e, p, c, rng);
		drain_async(e, e.ctx, IBV_EVENT_DEVICE_FATAL);
	}
	pool_close(e, p);
	e.op = done;
	printf("ufuzz: %llu operations in %.1f s, %llu unexpected\n", (unsigned long long)done,
	       std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
	       (unsigned long long)e.unexpected);
	print_summary(e);
	bool evidence = check_evidence(e);
	bool verified = verify_transfer(e, "after fuzzing");

	return !e.unexpected && evidence && verified && !e.dead ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv)
{
	std::string cmdline;
	Args a = parse(argc, argv, cmdline);
	Env e;
	int rc;

	setvbuf(stdout, nullptr, _IOLBF, 0);
	if (a.mode == "peer")
		return peer_main(a.dev, a.gidx, a.port);
	e.seed = a.seed;
	e.wc_timeout_ms = a.wc_timeout;
	e.verbose = a.verbose;
	e.cmdline = cmdline;
	env_open(e, a.dev, a.gidx);
	peer_connect(e, a.peer, a.port);
	if (a.mode == "fuzz")
		rc = fuzz(e, a);
	else if (a.mode == "churn")
		rc = churn_main(e, a.cycles);
	else if (a.mode == "traffic")
		rc = traffic_main(e, a.seconds);
	else if (a.mode == "verify")
		rc = verify_transfer(e, "on a new QP") ? 0 : 1;
	else
		usage();
	if (e.dead)
		return rc;
	env_close(e);
	return rc || e.unexpected ? 1 : 0;
}
