// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// mrc-scale: run one data-centre scenario and print one key=value line.
#include "scenario.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void usage(FILE *out)
{
	scale::Scenario d;

	fprintf(out,
"usage: mrc-scale [--option value]...\n"
"A packet-level leaf-spine simulator whose metaroce endpoints run the\n"
"portable core (kernel/core). Prints one line of key=value results.\n"
"\n"
"  --transport mrc|roce|ideal   metaroce, RoCEv2-style (go-back-N, DCQCN),\n"
"                               ideal lossless spraying (default %s)\n"
"  --traffic ring|perm|a2a|incast  ring all-reduce, permutation,\n"
"                               all-to-all, N-to-1 (%s)\n"
"  --hosts N                    (%u)\n"
"  --per-leaf N                 hosts per leaf (%u)\n"
"  --spines N                   spines per plane; per-leaf:spines is the\n"
"                               oversubscription (%u)\n"
"  --planes N                   planes, one NIC per plane per host (%u)\n"
"  --gbps G                     every link (%g)\n"
"  --link-ns T                  per hop: propagation and switching (%llu)\n"
"  --buffer B                   bytes per switch output port (%u)\n"
"  --ecn KMIN[:KMAX[:PMAX]]     RED ECN marking, bytes (%u)\n"
"  --loss P                     per packet, on every leaf->host link, so\n"
"                               end to end (%g)\n"
"  --fail PLANE:LEAF:SPINE@NS   that link fails silently at NS\n"
"  --bytes B                    per host: perm sends it, ring all-reduces it\n"
"                               (%llu); suffixes k, M, G (binary)\n"
"  --msg B                      perm message size (%llu)\n"
"  --incast N                   incast senders (%u)\n"
"  --duration-ns T              incast run time (%llu)\n"
"  --paths N                    metaroce paths per connection (%u)\n"
"  --rto-init-ns T              metaroce: a path's first RTO (the core's\n"
"                               default: 5 ms, for software endpoints)\n"
"  --rto-min-ns T               metaroce: least RTO (default 2 ms)\n"
"  --ack-delay-ns T             metaroce: longest ACK hold (default 20 us)\n"
"  --conn-ai-paths              metaroce: [CC-5] the connection window grows\n"
"                               a segment a round per path, not one (off)\n"
"  --tail-dup K                 metaroce: [REL-25] copy the last K segments\n"
"                               at an idle message end (default 0: off)\n"
"  --init-window B              metaroce: a connection's first window,\n"
"                               shared by its paths (default 16 segments)\n"
"  --mss B                      payload per packet (%u)\n"
"  --roce-rto-ns T              RoCE timeout (%llu)\n"
"  --limit-ns T                 give up at this virtual time (%llu)\n"
"  --nic-fifo                   a host's ACKs wait behind its queued data\n"
"                               (default: the NIC sends them first)\n"
"  --no-shuffle                 ring in host order (neighbours share a leaf)\n"
"  --seed N                     (%llu)\n"
"  --flows                      each flow's counters on stderr at the end\n"
"  --help\n",
		d.tc.kind.c_str(), d.traffic.c_str(), d.fab.hosts, d.fab.per_leaf,
		d.fab.spines, d.fab.planes, d.fab.gbps, (unsigned long long)d.fab.link_ns,
		d.fab.buffer, d.fab.ecn_kmin, d.fab.loss, (unsigned long long)d.bytes,
		(unsigned long long)d.msg, d.incast, (unsigned long long)d.duration_ns,
		d.tc.paths, d.tc.mss, (unsigned long long)d.tc.roce_rto_ns,
		(unsigned long long)d.limit_ns, (unsigned long long)d.fab.seed);
}

uint64_t size_arg(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	switch (*end) {
	case 'k': case 'K': v *= 1024; break;
	case 'm': case 'M': v *= 1024 * 1024; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
	default: break;
	}
	return (uint64_t)v;
}

} // namespace

int main(int argc, char **argv)
{
	scale::Scenario sc;
	scale::FabricCfg &f = sc.fab;

	for (int i = 1; i < argc; i++) {
		std::string o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;

		if (o == "--help" || o == "-h") {
			usage(stdout);
			return 0;
		}
		if (o == "--flows") {
			sc.flows = stderr;
			continue;
		}
		if (o == "--nic-fifo") {
			f.nic_ctrl_first = false;
			continue;
		}
		if (o == "--conn-ai-paths") {
			sc.tc.mrc_conn_ai_paths = true;
			continue;
		}
		if (o == "--no-shuffle") {
			sc.ring_shuffle = false;
			continue;
		}
		if (!v) {
			fprintf(stderr, "mrc-scale: %s needs a value\n", o.c_str());
			return 2;
		}
		i++;
		if (o == "--transport") sc.tc.kind = v;
		else if (o == "--traffic") sc.traffic = v;
		else if (o == "--hosts") f.hosts = atoi(v);
		else if (o == "--per-leaf") f.per_leaf = atoi(v);
		else if (o == "--spines") f.spines = atoi(v);
		else if (o == "--planes") f.planes = atoi(v);
		else if (o == "--tail-dup") sc.tc.mrc_tail_dup = atoi(v);
		else if (o == "--gbps") f.gbps = atof(v);
		else if (o == "--link-ns") f.link_ns = size_arg(v);
		else if (o == "--buffer") f.buffer = (uint32_t)size_arg(v);
		else if (o == "--ecn") {
			double pmax = f.ecn_pmax;
			char a[32] = "", b[32] = "";

			int k = sscanf(v, "%31[^:]:%31[^:]:%lf", a, b, &pmax);
			f.ecn_kmin = (uint32_t)size_arg(a);
			f.ecn_kmax = k >= 2 ? (uint32_t)size_arg(b) : f.ecn_kmin;
			f.ecn_pmax = pmax;
		}
		else if (o == "--loss") f.loss = atof(v);
		else if (o == "--fail") {
			unsigned long long at = 0;

			if (sscanf(v, "%d:%d:%d@%llu", &f.fail_plane, &f.fail_leaf,
				   &f.fail_spine, &at) != 4) {
				fprintf(stderr, "mrc-scale: --fail PLANE:LEAF:SPINE@NS\n");
				return 2;
			}
			f.fail_at_ns = at;
		}
		else if (o == "--bytes") sc.bytes = size_arg(v);
		else if (o == "--msg") sc.msg = size_arg(v);
		else if (o == "--incast") sc.incast = atoi(v);
		else if (o == "--duration-ns") sc.duration_ns = size_arg(v);
		else if (o == "--paths") sc.tc.paths = atoi(v);
		else if (o == "--rto-init-ns") sc.tc.mrc_rto_init_ns = size_arg(v);
		else if (o == "--rto-min-ns") sc.tc.mrc_rto_min_ns = size_arg(v);
		else if (o == "--ack-delay-ns") sc.tc.mrc_ack_delay_ns = size_arg(v);
		else if (o == "--init-window") sc.tc.mrc_init_window = size_arg(v);
		else if (o == "--mss") sc.tc.mss = atoi(v);
		else if (o == "--roce-rto-ns") sc.tc.roce_rto_ns = size_arg(v);
		else if (o == "--limit-ns") sc.limit_ns = size_arg(v);
		else if (o == "--seed") f.seed = strtoull(v, nullptr, 0);
		else {
			fprintf(stderr, "mrc-scale: unknown option %s (--help)\n", o.c_str());
			return 2;
		}
	}
	if (!f.hosts || !f.per_leaf || !f.planes || !f.spines || f.hosts % f.per_leaf ||
	    f.planes > 255 || f.gbps <= 0 || !sc.msg || !sc.bytes) {
		fprintf(stderr, "mrc-scale: hosts must be a multiple of per-leaf; "
			"sizes, planes, spines and rates positive\n");
		return 2;
	}
	scale::Result r = scale::run_scenario(sc);

	printf("%s\n", scale::format_result(sc, r).c_str());
	return r.completed ? 0 : 1;
}
