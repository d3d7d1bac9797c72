// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// metaroce-top: per-path telemetry of metaroce connections.
//
// Loads bpf/path_telemetry.bpf.c (through its libbpf skeleton), which
// attaches to the metaroce:mrc_path_ack tracepoint and keeps each path's
// newest numbers in a map; every interval this prints one row per path
// heard from in the last --stale seconds.
//
//   metaroce-top [-i SECONDS] [-n COUNT] [-s STALE_SECONDS] [-t SYSTEM] [-r]
//
// -t names the trace system (default metaroce), for a renamed test build
// of the module whose events live elsewhere. -r records instead of
// showing: one line per path and interval, every counter as it stands,
// stamped with the wall clock in microseconds (a shell's $EPOCHREALTIME
// in the same guest marks events on that clock), for a timeline drawn
// afterwards (selftests/bench/multipath):
//
//   S REAL_US DEV QPN PATH SPORT STATE SRTT_US CWND TX_PKTS ACKED_PKTS
//     LOST_PKTS LATE_PKTS RTO_FIRED CE LOSS_PM MARK_PM MOVES ACK_REAL_US ACKS
//
// ACK_REAL_US is when the path's newest ACK arrived, ACKS how many the
// program saw of the path.
//
// Needs root (BPF, tracefs) and the metaroce module loaded.

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "path_telemetry.h"
#include "path_telemetry.skel.h"

namespace {

volatile std::sig_atomic_t g_stop = 0;

void on_signal(int) { g_stop = 1; }

const char *kTracefs = "/sys/kernel/tracing";

// Guests boot with a bare /sys: mount tracefs if nobody did.
void ensure_tracefs() {
  struct stat st;
  std::string events = std::string(kTracefs) + "/events";
  if (stat(events.c_str(), &st) == 0) return;
  if (mount("nodev", kTracefs, "tracefs", 0, nullptr) != 0)
    std::fprintf(stderr, "metaroce-top: mounting tracefs on %s: %s\n", kTracefs,
                 std::strerror(errno));
}

// The BPF program reads the record at fixed offsets derived from
// kernel/trace_fields.h; refuse to run if the kernel's layout differs
// (a module built from another version of the field list).
bool layout_matches(const std::string &system) {
  const std::string format =
      std::string(kTracefs) + "/events/" + system + "/mrc_path_ack/format";
  std::ifstream in(format);
  if (!in) {
    std::fprintf(stderr,
                 "metaroce-top: %s: not found (is the metaroce module loaded?)\n",
                 format.c_str());
    return false;
  }
  struct Want {
    const char *name;
    size_t off;
    size_t size;
  };
  const size_t h = 8;  // struct trace_entry
  const Want want[] = {
      {"dev", h + offsetof(mrc_path_ack_rec, dev), MRC_TP_DEV_LEN},
      {"tx_pkts", h + offsetof(mrc_path_ack_rec, tx_pkts), 8},
      {"qpn", h + offsetof(mrc_path_ack_rec, qpn), 4},
      {"rate_hint", h + offsetof(mrc_path_ack_rec, rate_hint), 4},
      {"moves", h + offsetof(mrc_path_ack_rec, moves), 4},
      {"mark_pm", h + offsetof(mrc_path_ack_rec, mark_pm), 2},
      {"sport", h + offsetof(mrc_path_ack_rec, sport), 2},
      {"state", h + offsetof(mrc_path_ack_rec, state), 1},
  };
  std::map<std::string, std::pair<size_t, size_t>> got;
  std::string line;
  while (std::getline(in, line)) {
    // "\tfield:u32 qpn;\toffset:32;\tsize:4;\tsigned:0;"
    auto f = line.find("field:"), o = line.find("offset:"), s = line.find("size:");
    if (f == std::string::npos || o == std::string::npos || s == std::string::npos) continue;
    std::string decl = line.substr(f + 6, line.find(';', f) - f - 6);
    auto br = decl.find('[');
    if (br != std::string::npos) decl.resize(br);
    std::string name = decl.substr(decl.find_last_of(' ') + 1);
    got[name] = {std::strtoul(line.c_str() + o + 7, nullptr, 10),
                 std::strtoul(line.c_str() + s + 5, nullptr, 10)};
  }
  for (const auto &w : want) {
    auto it = got.find(w.name);
    if (it == got.end() || it->second.first != w.off || it->second.second != w.size) {
      std::fprintf(stderr,
                   "metaroce-top: tracepoint field %s is not where this build "
                   "expects it (offset %zu size %zu)\n",
                   w.name, w.off, w.size);
      return false;
    }
  }
  return true;
}

const char *state_name(unsigned s) {
  switch (s) {
    case 0: return "probing";
    case 1: return "active";
    case 2: return "congested";
    case 3: return "failed";
    default: return "?";
  }
}

uint64_t clock_ns(clockid_t clk) {
  timespec ts;
  clock_gettime(clk, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// bpf_ktime_get_ns()'s clock
uint64_t mono_ns() { return clock_ns(CLOCK_MONOTONIC); }

struct Row {
  mrc_telem_key key;
  mrc_telem_val val;
};

std::vector<Row> read_map(int fd) {
  std::vector<Row> rows;
  mrc_telem_key key{}, next{};
  bool first = true;
  while (bpf_map_get_next_key(fd, first ? nullptr : &key, &next) == 0) {
    Row r{};
    r.key = next;
    if (bpf_map_lookup_elem(fd, &next, &r.val) == 0) rows.push_back(r);
    key = next;
    first = false;
  }
  std::sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
    int d = std::strncmp(a.key.dev, b.key.dev, MRC_TP_DEV_LEN);
    if (d) return d < 0;
    return std::tie(a.key.qpn, a.key.path) < std::tie(b.key.qpn, b.key.path);
  });
  return rows;
}

void usage() {
  std::fprintf(stderr,
               "usage: metaroce-top [-i SECONDS] [-n COUNT] [-s STALE_SECONDS] [-t SYSTEM] "
               "[-r]\n");
}

std::string dev_name(const mrc_telem_key &key) {
  return std::string(key.dev, strnlen(key.dev, MRC_TP_DEV_LEN));
}

// -r: the record lines described at the top, for paths heard from
// within @stale of @now.
void print_record(const std::vector<Row> &rows, uint64_t now, double stale) {
  // the ACKs' monotonic stamps on the wall clock, as of this sample
  const uint64_t real = clock_ns(CLOCK_REALTIME);
  const int64_t to_real = int64_t(real) - int64_t(mono_ns());
  for (const Row &r : rows) {
    const mrc_path_ack_rec &p = r.val.rec;
    if (now > r.val.ts_ns && double(now - r.val.ts_ns) > stale * 1e9) continue;
    std::printf(
        "S %llu %s %u %u %u %u %u %u %llu %llu %llu %llu %llu %u %u %u %u %llu %llu\n",
        (unsigned long long)(real / 1000), dev_name(r.key).c_str(), unsigned(r.key.qpn),
        unsigned(r.key.path), unsigned(p.sport), unsigned(p.state), unsigned(p.srtt_us),
        unsigned(p.cwnd), (unsigned long long)p.tx_pkts, (unsigned long long)p.acked_pkts,
        (unsigned long long)p.lost_pkts, (unsigned long long)p.late_pkts,
        (unsigned long long)p.rto_fired, unsigned(p.ce), unsigned(p.loss_pm),
        unsigned(p.mark_pm), unsigned(p.moves),
        (unsigned long long)((int64_t(r.val.ts_ns) + to_real) / 1000),
        (unsigned long long)r.val.acks);
  }
}

}  // namespace

int main(int argc, char **argv) {
  double interval = 1.0, stale = 10.0;
  long count = 0;  // 0: until interrupted
  std::string system = "metaroce";
  bool record = false;
  int opt;
  while ((opt = getopt(argc, argv, "i:n:s:t:rh")) != -1) {
    switch (opt) {
      case 'r': record = true; break;
      case 'i': interval = std::atof(optarg); break;
      case 'n': count = std::atol(optarg); break;
      case 's': stale = std::atof(optarg); break;
      case 't': system = optarg; break;
      default: usage(); return opt == 'h' ? 0 : 2;
    }
  }
  if (interval <= 0 || stale <= 0 || count < 0) {
    usage();
    return 2;
  }

  ensure_tracefs();
  if (!layout_matches(system)) return 1;

  path_telemetry *skel = path_telemetry::open_and_load();
  if (!skel) {
    std::fprintf(stderr, "metaroce-top: loading the BPF program failed: %s\n",
                 std::strerror(errno));
    return 1;
  }
  // attached by hand, not by the SEC() name, so that -t can move it;
  // destroy() releases the link stored in the skeleton
  skel->links.mrc_on_path_ack = bpf_program__attach_tracepoint(
      skel->progs.mrc_on_path_ack, system.c_str(), "mrc_path_ack");
  if (!skel->links.mrc_on_path_ack) {
    std::fprintf(stderr, "metaroce-top: attaching to %s:mrc_path_ack failed: %s\n",
                 system.c_str(), std::strerror(errno));
    path_telemetry::destroy(skel);
    return 1;
  }
  std::fprintf(stderr, "metaroce-top: attached to %s:mrc_path_ack\n", system.c_str());
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  const int fd = bpf_map__fd(skel->maps.mrc_paths);
  std::map<std::tuple<std::string, uint32_t, uint32_t>, uint64_t> prev_tx;
  for (long it = 0; !g_stop && (count == 0 || it < count); it++) {
    timespec ts{time_t(interval), long((interval - time_t(interval)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !g_stop) {
    }
    if (g_stop) break;
    const uint64_t now = mono_ns();
    if (record) {
      print_record(read_map(fd), now, stale);
      std::fflush(stdout);
      continue;
    }
    std::printf("%-8s %6s %4s %5s %-9s %8s %8s %8s %8s %10s %8s %8s %8s %6s %8s %6s %5s %5s %5s\n",
                "DEV", "QPN", "PATH", "SPORT", "STATE", "SRTT_US", "MINRTT", "CWND", "INFLIGHT",
                "TX_PKTS", "TX_PPS", "RETX", "SPURIOUS", "RTO", "CE", "HINT", "MOVES", "LOSS%", "MARK%");
    unsigned shown = 0;
    for (const Row &r : read_map(fd)) {
      const mrc_path_ack_rec &p = r.val.rec;
      if (now > r.val.ts_ns && double(now - r.val.ts_ns) > stale * 1e9) continue;
      std::string dev = dev_name(r.key);
      auto k = std::make_tuple(dev, r.key.qpn, r.key.path);
      auto pit = prev_tx.find(k);
      double pps = pit == prev_tx.end() ? 0.0 : double(p.tx_pkts - pit->second) / interval;
      prev_tx[k] = p.tx_pkts;
      std::printf(
          "%-8s %6u %4u %5u %-9s %8u %8u %8u %8u %10llu %8.0f %8llu %8llu %6llu %8u %6u %5u %5.1f "
          "%5.1f\n",
          dev.c_str(), unsigned(r.key.qpn), unsigned(r.key.path), unsigned(p.sport),
          state_name(p.state), unsigned(p.srtt_us), unsigned(p.min_rtt_us), unsigned(p.cwnd),
          unsigned(p.inflight), (unsigned long long)p.tx_pkts, pps, (unsigned long long)p.lost_pkts,
          (unsigned long long)p.late_pkts, (unsigned long long)p.rto_fired, unsigned(p.ce),
          unsigned(p.rate_hint), unsigned(p.moves), p.loss_pm / 10.0, p.mark_pm / 10.0);
      shown++;
    }
    std::printf("-- %u path(s)\n", shown);
    std::fflush(stdout);
  }
  path_telemetry::destroy(skel);
  return 0;
}
