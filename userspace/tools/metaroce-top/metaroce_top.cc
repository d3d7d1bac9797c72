// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// metaroce-top: per-path telemetry of metaroce connections.
//
// Loads bpf/path_telemetry.bpf.c (telemetry.cc), which attaches to the
// metaroce:mrc_path_ack and mrc_path_state tracepoints and keeps each
// path's newest numbers in an LRU map; every interval this prints one row
// per path heard from in the last --stale seconds, and every probing or
// failed path whatever its age (it gets no ACKs), with the age of its
// newest record; then the receiving ends of the peer's paths (rows that
// begin with "rx"), heard from in the last --stale seconds; then the state
// changes since the last table.
//
//   metaroce-top [-i SECONDS] [-n COUNT] [-s STALE_SECONDS] [-t SYSTEM] [-o KEY]
//                [-r | --json]
//
// -o (--sort) orders the table's rows worst first: tx (packets/s), bytes
// (payload bytes/s), srtt, maxrtt (recent max RTT), retx (declared lost
// per second), loss, mark, moves, age; rx (new bytes/s received) and dup
// (duplicates/s) order the receiving ends; path (the default) by device,
// QPN and path.
//
// A receiving end's row: the peer's path id, the port its data arrives
// from, new packets and their payload bytes, the bytes placed the first
// time (the rest were resends of data that had arrived after all),
// duplicates, late packets (into a hole), lost (PSNs jumped over and not
// filled late), CE marks, the window's span and holes, the newest ACK's
// delay, and new bytes and duplicates per second.
//
// -t names the trace system (default metaroce), for a renamed test build
// of the module whose events live elsewhere.
//
// --json: one-shot; reads the map after -i seconds, again after another -i
// seconds (the program hears of a path only from its next record), prints one JSON
// document (per connection a summary and its paths: state, ports, RTTs,
// windows, counters, loss and mark fractions, packet rates over the
// interval; and under "rx" the receiving ends' sums and paths) and exits.
// See README.md, "Telemetry".
//
// -r records instead of showing: one line per sending end and interval, every
// counter as it stands, stamped with the wall clock in microseconds (a
// shell's $EPOCHREALTIME in the same guest marks events on that clock),
// for a timeline drawn afterwards (selftests/bench/multipath):
//
//   S REAL_US DEV QPN PATH SPORT STATE SRTT_US CWND TX_PKTS ACKED_PKTS
//     LOST_PKTS LATE_PKTS RTO_FIRED CE LOSS_PM MARK_PM MOVES ACK_REAL_US ACKS
//
// ACK_REAL_US is when the path's newest ACK arrived (0: none seen), ACKS
// how many the program saw of the path.
//
// Needs root (BPF, tracefs) and the metaroce module loaded.

#include <getopt.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "figures.h"
#include "telemetry.h"

using namespace mrc_telem;

namespace {

volatile std::sig_atomic_t g_stop = 0;

void on_signal(int) { g_stop = 1; }

void usage() {
  std::fprintf(stderr,
               "usage: metaroce-top [-i SECONDS] [-n COUNT] [-s STALE_SECONDS] [-t SYSTEM] "
               "[-o KEY] [-r | --json]\n  -o, --sort KEY: %s\n",
               kSortKeys);
}

void wait_interval(double interval) {
  timespec ts{time_t(interval), long((interval - time_t(interval)) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !g_stop) {
  }
}

// -r: the record lines described at the top.
void print_record(const std::vector<PathFig> &paths, double stale) {
  // the BPF stamps (monotonic) on the wall clock, as of this sample
  const int64_t to_real = int64_t(real_ns()) - int64_t(mono_ns());
  const uint64_t real = real_ns();
  for (const PathFig &f : paths) {
    const mrc_path_rec &p = f.row.val.rec;
    if (f.row.rx() || f.age_s > stale) continue;
    const uint64_t ack_us = f.row.val.ack_ns ? (int64_t(f.row.val.ack_ns) + to_real) / 1000 : 0;
    std::printf(
        "S %llu %s %u %u %u %u %u %u %llu %llu %llu %llu %llu %u %u %u %u %llu %llu\n",
        (unsigned long long)(real / 1000), f.row.dev.c_str(), unsigned(f.row.qpn),
        unsigned(f.row.path), unsigned(p.sport), unsigned(p.state), unsigned(p.srtt_us),
        unsigned(p.cwnd), (unsigned long long)p.tx_pkts, (unsigned long long)p.acked_pkts,
        (unsigned long long)p.lost_pkts, (unsigned long long)p.late_pkts,
        (unsigned long long)p.rto_fired, unsigned(p.ce), unsigned(p.loss_pm),
        unsigned(p.mark_pm), unsigned(p.moves), (unsigned long long)ack_us,
        (unsigned long long)f.row.val.acks);
  }
}

void print_table(std::vector<PathFig> paths, double stale, const std::string &sort) {
  sort_paths(&paths, sort);
  std::printf(
      "%-8s %6s %4s %5s %-9s %6s %8s %8s %8s %8s %10s %8s %8s %8s %6s %8s %6s %5s %5s %5s %8s "
      "%10s %10s\n",
      "DEV", "QPN", "PATH", "SPORT", "STATE", "AGE_S", "SRTT_US", "MINRTT", "CWND", "INFLIGHT",
      "TX_PKTS", "TX_PPS", "RETX", "SPURIOUS", "RTO", "CE", "HINT", "MOVES", "LOSS%", "MARK%",
      "MAXRTT", "TX_BPS", "ACKED_BPS");
  unsigned shown = 0;
  for (const PathFig &f : paths) {
    if (f.row.rx() || !visible(f, stale)) continue;
    const mrc_path_rec &p = f.row.val.rec;
    std::printf(
        "%-8s %6u %4u %5u %-9s %6.1f %8u %8u %8u %8u %10llu %8.0f %8llu %8llu %6llu %8u %6u %5u "
        "%5.1f %5.1f %8u %10.0f %10.0f\n",
        f.row.dev.c_str(), unsigned(f.row.qpn), unsigned(f.row.path), unsigned(p.sport),
        state_name(p.state), f.age_s, unsigned(p.srtt_us), unsigned(p.min_rtt_us),
        unsigned(p.cwnd), unsigned(p.inflight), (unsigned long long)p.tx_pkts, f.tx_pps,
        (unsigned long long)p.lost_pkts, (unsigned long long)p.late_pkts,
        (unsigned long long)p.rto_fired, unsigned(p.ce), unsigned(p.rate_hint), unsigned(p.moves),
        p.loss_pm / 10.0, p.mark_pm / 10.0, unsigned(f.max_rtt_us), f.tx_Bps, f.acked_Bps);
    shown++;
  }
  std::printf("%-2s %-8s %6s %4s %5s %6s %10s %12s %12s %8s %6s %6s %8s %5s %5s %9s %10s %8s\n",
              "RX", "DEV", "QPN", "PATH", "SPORT", "AGE_S", "RX_PKTS", "RX_BYTES", "PLACED",
              "DUP", "LATE", "LOST", "CE", "SPAN", "HOLES", "ACKDLY_US", "RX_BPS", "DUP_PPS");
  unsigned rx = 0;
  for (const PathFig &f : paths) {
    if (!f.row.rx() || !visible(f, stale)) continue;
    const mrc_path_rx_rec &x = f.row.val.rx;
    std::printf(
        "%-2s %-8s %6u %4u %5u %6.1f %10llu %12llu %12llu %8llu %6llu %6llu %8u %5u %5u %9u %10.0f "
        "%8.0f\n",
        "rx", f.row.dev.c_str(), unsigned(f.row.qpn), unsigned(f.row.path), unsigned(x.peer_sport),
        f.age_s, (unsigned long long)x.rx_pkts, (unsigned long long)x.rx_bytes,
        (unsigned long long)x.placed_bytes, (unsigned long long)x.dup_pkts,
        (unsigned long long)x.late_pkts,
        (unsigned long long)(x.skipped > x.late_pkts ? x.skipped - x.late_pkts : 0),
        unsigned(x.ce), unsigned(x.span), unsigned(x.holes), unsigned(x.ack_delay_us), f.rx_Bps,
        f.rx_dup_pps);
    rx++;
  }
  std::printf("-- %u path(s), %u receiving\n", shown, rx);
}

void print_event(const mrc_telem_event &e) {
  const mrc_path_rec &p = e.rec;
  std::string dev(p.dev, strnlen(p.dev, MRC_TP_DEV_LEN));
  std::printf("event %s qpn %u path %u: %s -> %s, sport %u -> %u%s%s\n", dev.c_str(),
              unsigned(p.qpn), unsigned(p.path), state_name(p.was_state), state_name(p.state),
              unsigned(p.was_sport), unsigned(p.sport), p.state == 3 ? ", why " : "",
              p.state == 3 ? fail_name(p.fail_why) : "");
}

}  // namespace

int main(int argc, char **argv) {
  double interval = 1.0, stale = 10.0;
  long count = 0;  // 0: until interrupted
  std::string system = "metaroce";
  std::string sort = "path";
  bool record = false, json = false;
  static const option longopts[] = {{"json", no_argument, nullptr, 'j'},
                                    {"sort", required_argument, nullptr, 'o'},
                                    {"help", no_argument, nullptr, 'h'},
                                    {nullptr, 0, nullptr, 0}};
  int opt;
  while ((opt = getopt_long(argc, argv, "i:n:s:t:o:rh", longopts, nullptr)) != -1) {
    switch (opt) {
      case 'r': record = true; break;
      case 'j': json = true; break;
      case 'i': interval = std::atof(optarg); break;
      case 'n': count = std::atol(optarg); break;
      case 's': stale = std::atof(optarg); break;
      case 't': system = optarg; break;
      case 'o': sort = optarg; break;
      default: usage(); return opt == 'h' ? 0 : 2;
    }
  }
  if (interval <= 0 || stale <= 0 || count < 0 || (record && json) || optind != argc) {
    usage();
    return 2;
  }
  std::vector<PathFig> none;
  if (!sort_paths(&none, sort)) {
    std::fprintf(stderr, "metaroce-top: unknown sort key '%s' (keys: %s)\n", sort.c_str(),
                 kSortKeys);
    return 2;
  }

  Session s;
  Session::EventFn on_event;
  if (!record && !json) on_event = print_event;
  if (!s.open("metaroce-top", system, on_event)) return 1;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  Rates rates;
  if (json) {
    // the map starts empty: one interval to hear from the paths, one for rates
    wait_interval(interval);
    rates.sample(s.paths(), mono_ns());
    wait_interval(interval);
    const auto paths = rates.sample(s.paths(), mono_ns());
    std::vector<PathFig> shown;
    for (const PathFig &f : paths)
      if (visible(f, stale)) shown.push_back(f);
    std::fputs(to_json(by_connection(shown), real_ns(), s.events_lost()).c_str(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
  }
  for (long it = 0; !g_stop && (count == 0 || it < count); it++) {
    wait_interval(interval);
    if (g_stop) break;
    const auto paths = rates.sample(s.paths(), mono_ns());
    if (record) {
      print_record(paths, stale);
    } else {
      print_table(paths, stale, sort);
      s.drain_events();
    }
    std::fflush(stdout);
  }
  return 0;
}
