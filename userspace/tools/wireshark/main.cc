// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_pcap: captures for the Wireshark dissector (metaroce.lua) and what
// it must show in them, from the protocol core's encoder and parser.
//
//   mrc_pcap golden OUT.pcap          the synthetic golden capture; its
//                                     legend (frame: what) on stdout
//   mrc_pcap fuzz OUT.pcap [--seed S] [--count N] [--snap B]
//                                     N datagrams of the network fuzzer's
//                                     generator (valid, nearly valid,
//                                     random, bundles), to port 61791;
//                                     each frame captured to B bytes
//   mrc_pcap expect IN.pcap [--port P] [--no-heuristic]
//                                     per frame the dissector claims (by
//                                     port P, default 61791, or by the
//                                     heuristic), the fields it must show
//                                     (reference.h)
//   mrc_pcap sample IN.pcap OUT.pcap [--per-kind N] [--port P]
//                                     the first N (default 20) MetaRoCE
//                                     datagrams of each kind (bundle
//                                     kind; else packet type, resent or
//                                     not, or a MAD), as captured: a
//                                     small golden capture of bed traffic

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "gen.h"
#include "golden.h"
#include "pcap.h"
#include "reference.h"

namespace {

using namespace mrc_pcap;

[[noreturn]] void usage(const char *why)
{
	fprintf(stderr, "mrc_pcap: %s (see the comment at the top of main.cc)\n", why);
	exit(2);
}

uint64_t number(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		usage("bad number");
	return v;
}

int golden(const char *out)
{
	Writer w(out);
	uint32_t n = 0;

	for (const auto &f : golden_frames()) {
		w.add(f.udp, f.snap);
		printf("%u: %s\n", ++n, f.name.c_str());
	}
	if (!w.close()) {
		perror(out);
		return 1;
	}
	return 0;
}

int fuzz(const char *out, uint64_t seed, uint64_t count, uint32_t snap)
{
	mrc_netfuzz::Config cfg;
	Writer w(out);

	cfg.seed = seed;
	cfg.big = false;	// one frame each: no IP fragments
	cfg.v6 = true;
	mrc_netfuzz::Generator g(cfg);
	for (uint64_t i = 0; i < count; i++) {
		mrc_netfuzz::Datagram d = g.make(i);
		Udp u;

		u.v6 = d.v6;
		u.src[0] = u.dst[0] = u.v6 ? 0xfd : 10;
		u.src[u.v6 ? 15 : 3] = uint8_t(1 + d.source);
		u.dst[u.v6 ? 15 : 3] = 200;
		// source ports no other dissector registers (the generator's
		// may be any): the test is about the packets
		u.sport = uint16_t(49200 + i % 500);
		u.dport = MRC_WIRE_UDP_PORT;
		u.payload = d.bytes;
		w.add(u, snap);
	}
	if (!w.close()) {
		perror(out);
		return 1;
	}
	return 0;
}

std::vector<Datagram> read_or_die(const char *in)
{
	std::string err;
	std::vector<Datagram> v = read_udp(in, &err);

	if (!err.empty()) {
		fprintf(stderr, "mrc_pcap: %s\n", err.c_str());
		exit(1);
	}
	return v;
}

int expect(const char *in, const ClaimRules &rules)
{
	for (const auto &d : read_or_die(in))
		if (claimed(d, rules))
			print_units(stdout, d);
	return 0;
}
// What a datagram is, for sample.
std::string kind_of(const Datagram &d)
{
	static const char *const names[] = {
		"invalid", "SEND", "WRITE", "READ_REQ", "READ_RESP", "ATOMIC",
		"ATOMIC_RESP", "ACK", "NAK", "PROBE", "UD_SEND",
	};
	const uint8_t *b = d.udp.payload.data();
	uint32_t avail = uint32_t(d.udp.payload.size());
	std::string k;
	mrc_pkt p;

	if (avail >= 2 && mrc_wire_is_pbundle(b, avail))
		return "packet bundle";
	if (avail >= 2 && mrc_wire_bundle_count(b, d.reported) > 1)
		return "ACK bundle";
	if (mrc_wire_parse_hdr(b, avail, d.reported, &p) != MRC_WIRE_OK)
		return "other";
	if (p.type == MRC_PKT_UD_SEND && p.dst_qpn == MRC_WIRE_GSI_QPN)
		return "MAD";
	k = names[p.type];
	return p.flags & MRC_F_RETX ? k + " RETX" : k;
}

int sample(const char *in, const char *out, const ClaimRules &rules, uint64_t per_kind)
{
	std::map<std::string, uint64_t> seen;
	Writer w(out);

	for (const auto &d : read_or_die(in))
		if (claimed(d, rules) && ++seen[kind_of(d)] <= per_kind)
			w.add_record(d.record, d.orig_len);
	for (const auto &[kind, n] : seen)
		printf("%s: %" PRIu64 " of %" PRIu64 "\n", kind.c_str(), n < per_kind ? n : per_kind, n);
	if (!w.close()) {
		perror(out);
		return 1;
	}
	return 0;
}

}  // namespace

int main(int argc, char **argv)
{
	ClaimRules rules;
	uint64_t seed = 1, count = 2000, per_kind = 20, snap = 0;
	std::string cmd, file, out;

	if (argc < 3)
		usage("need a command and a file");
	cmd = argv[1];
	file = argv[2];
	for (int i = 3; i < argc; i++) {
		std::string a = argv[i];

		if (a[0] != '-' && out.empty())
			out = a;
		else if (a == "--per-kind" && i + 1 < argc)
			per_kind = number(argv[++i]);
		else if (a == "--seed" && i + 1 < argc)
			seed = number(argv[++i]);
		else if (a == "--snap" && i + 1 < argc)
			snap = number(argv[++i]);
		else if (a == "--count" && i + 1 < argc)
			count = number(argv[++i]);
		else if (a == "--port" && i + 1 < argc)
			rules.port = uint16_t(number(argv[++i]));
		else if (a == "--no-heuristic")
			rules.heuristic = false;
		else
			usage("unknown option");
	}
	if (cmd == "golden")
		return golden(file.c_str());
	if (cmd == "fuzz")
		return fuzz(file.c_str(), seed, count, uint32_t(snap));
	if (cmd == "expect")
		return expect(file.c_str(), rules);
	if (cmd == "sample" && !out.empty())
		return sample(file.c_str(), out.c_str(), rules, per_kind);
	usage("unknown command");
}
