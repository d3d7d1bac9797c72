// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// What the tools show of the map: per path its record plus ages and
// rates between two samples, per connection a summary; and the renderings
// of it (metaroce-top --json, metaroce-exporter's Prometheus text).
#ifndef MRC_FIGURES_H
#define MRC_FIGURES_H

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "telemetry.h"

namespace mrc_telem {

// A row's figures: the sending end's (row.side TX) or the receiving
// end's (RX: the rx_ rates; the TX ones stay 0, and the other way round).
struct PathFig {
  PathRow row;
  double age_s = 0;         // since the newest record (ACK or change)
  double ack_age_s = -1;    // since the newest ACK; -1: none seen
  double change_age_s = -1; // since the newest state change; -1: none seen
  bool rates = false;       // false: first sample, no rates yet
  double tx_pps = 0, acked_pps = 0, lost_pps = 0;
  double tx_Bps = 0, acked_Bps = 0;  // payload bytes per second
  uint32_t max_rtt_us = 0;           // recent_max_rtt_us() as of the sample
  double rx_pps = 0, rx_dup_pps = 0, rx_late_pps = 0;  // new, duplicate, late
  double rx_Bps = 0, rx_placed_Bps = 0;                // payload bytes per second
};

// The largest RTT sample of the last one to two windows
// (MRC_TELEM_RTT_WINDOW_NS) before @now_ns; 0: none that recent.
uint32_t recent_max_rtt_us(const mrc_telem_val &v, uint64_t now_ns);

struct ConnFig {
  std::string dev;
  uint32_t qpn = 0;
  uint32_t conn_cwnd = 0;
  uint64_t newest_ns = 0;  // the newest record of its paths
  unsigned paths = 0;
  unsigned by_state[4] = {};  // probing, active, congested, failed
  uint64_t tx_pkts = 0, acked_pkts = 0, lost_pkts = 0;
  uint64_t tx_bytes = 0, acked_bytes = 0;
  double tx_pps = 0, acked_pps = 0, lost_pps = 0;
  double tx_Bps = 0, acked_Bps = 0;
  uint32_t max_rtt_us = 0;  // the largest of its paths'
  std::vector<PathFig> path;
  // the receiving end: the peer's paths as this host receives them
  uint64_t rx_pkts = 0, rx_bytes = 0, rx_placed_bytes = 0, rx_dup_pkts = 0, rx_dup_bytes = 0;
  uint64_t rx_late_pkts = 0, rx_skipped = 0, rx_ce = 0;
  double rx_pps = 0, rx_dup_pps = 0, rx_Bps = 0, rx_placed_Bps = 0;
  std::vector<PathFig> rx;
};

// Turns successive map readings into figures; rates over the time since
// the previous reading of the same path.
class Rates {
 public:
  std::vector<PathFig> sample(const std::vector<PathRow> &rows, uint64_t now_ns);

 private:
  struct Prev {
    uint64_t at_ns;
    uint64_t n[5];  // counters(): the side's cumulative counters
  };
  std::map<std::tuple<std::string, uint32_t, uint32_t, uint32_t>, Prev> prev_;
};

// A path is current if it spoke within @stale_s; one whose newest state
// is probing or failed stays visible whatever its age: it gets no ACKs.
// A receiving end has no state: it shows while it builds ACKs.
bool visible(const PathFig &f, double stale_s);

// Per connection (device, QP) its sending ends in path, its receiving
// ends in rx.
std::vector<ConnFig> by_connection(const std::vector<PathFig> &paths);

// metaroce-top --sort: the keys, each ordering the worst (busiest,
// slowest, lossiest) path first; "path" keeps device, QPN, path order.
// rx and dup order the receiving ends (new bytes/s, duplicates/s), the
// others the sending ends; a row of the other side counts as 0.
// False (and @paths untouched) for an unknown key.
extern const char *const kSortKeys;
bool sort_paths(std::vector<PathFig> *paths, const std::string &key);

// metaroce-top --json: one document.
std::string to_json(const std::vector<ConnFig> &conns, uint64_t real_ns, uint64_t events_lost);

// One device's counters, name to value, from sysfs hw_counters.
struct DevCounters {
  std::string dev;
  std::vector<std::pair<std::string, uint64_t>> counters;
};

// The metaroce devices under @sysfs_ib (/sys/class/infiniband).
std::vector<DevCounters> read_dev_counters(const std::string &sysfs_ib);

// metaroce-exporter: the text exposition format, version 0.0.4.
std::string to_prom(const std::vector<ConnFig> &conns, const std::vector<DevCounters> &devs,
                    uint64_t events_lost);

}  // namespace mrc_telem

#endif  // MRC_FIGURES_H
