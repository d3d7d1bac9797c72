// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// metaroce-exporter's page: Prometheus text exposition format 0.0.4, one
// family per figure (HELP, TYPE, then its samples), labels dev, qpn, path.
// Rates are left to PromQL's rate() over the counters.
#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include "figures.h"

namespace mrc_telem {
namespace {

// Label values are escaped as the format asks: backslash, quote, newline.
std::string esc(const std::string &v) {
  std::string o;
  for (char ch : v) {
    if (ch == '\\' || ch == '"') o += '\\';
    if (ch == '\n') {
      o += "\\n";
      continue;
    }
    o += ch;
  }
  return o;
}

std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof(b), "%.9g", v);
  return b;
}

class Page {
 public:
  std::string s;

  void family(const char *name, const char *type, const char *help) {
    s += "# HELP ";
    s += name;
    s += ' ';
    s += help;
    s += "\n# TYPE ";
    s += name;
    s += ' ';
    s += type;
    s += '\n';
  }
  void sample(const char *name, const std::string &labels, const std::string &value) {
    s += name;
    s += '{';
    s += labels;
    s += "} ";
    s += value;
    s += '\n';
  }
};

std::string conn_labels(const ConnFig &c) {
  return "dev=\"" + esc(c.dev) + "\",qpn=\"" + std::to_string(c.qpn) + "\"";
}

std::string path_labels(const PathFig &f) {
  return "dev=\"" + esc(f.row.dev) + "\",qpn=\"" + std::to_string(f.row.qpn) + "\",path=\"" +
         std::to_string(f.row.path) + "\"";
}

struct PathFamily {
  const char *name;
  const char *type;
  const char *help;
  std::function<double(const PathFig &)> get;
};

const PathFamily kPathFamilies[] = {
    {"metaroce_path_source_port", "gauge", "UDP source port of the path's current route",
     [](const PathFig &f) { return double(f.row.val.rec.sport); }},
    {"metaroce_path_srtt_seconds", "gauge", "smoothed RTT of the path (0: no sample yet)",
     [](const PathFig &f) { return f.row.val.rec.srtt_us / 1e6; }},
    {"metaroce_path_min_rtt_seconds", "gauge", "smallest RTT seen on the path's route",
     [](const PathFig &f) { return f.row.val.rec.min_rtt_us / 1e6; }},
    {"metaroce_path_rtt_seconds", "gauge", "the path's newest RTT sample (0: none yet)",
     [](const PathFig &f) { return f.row.val.rec.rtt_us / 1e6; }},
    {"metaroce_path_recent_max_rtt_seconds", "gauge",
     "largest RTT sample of the path in the last 1 to 2 s (0: none)",
     [](const PathFig &f) { return f.max_rtt_us / 1e6; }},
    {"metaroce_path_rto_seconds", "gauge", "retransmission timeout of the path",
     [](const PathFig &f) { return f.row.val.rec.rto_us / 1e6; }},
    {"metaroce_path_cwnd_bytes", "gauge", "congestion window of the path",
     [](const PathFig &f) { return double(f.row.val.rec.cwnd); }},
    {"metaroce_path_inflight_bytes", "gauge", "bytes in flight on the path",
     [](const PathFig &f) { return double(f.row.val.rec.inflight); }},
    {"metaroce_path_sent_packets_total", "counter", "packets sent on the path, resends included",
     [](const PathFig &f) { return double(f.row.val.rec.tx_pkts); }},
    {"metaroce_path_acked_packets_total", "counter", "packets of the path acknowledged",
     [](const PathFig &f) { return double(f.row.val.rec.acked_pkts); }},
    {"metaroce_path_sent_bytes_total", "counter", "payload bytes sent on the path, resends included",
     [](const PathFig &f) { return double(f.row.val.rec.tx_bytes); }},
    {"metaroce_path_acked_bytes_total", "counter", "payload bytes of the path acknowledged",
     [](const PathFig &f) { return double(f.row.val.rec.acked_bytes); }},
    {"metaroce_path_lost_packets_total", "counter", "packets of the path declared lost (each resent)",
     [](const PathFig &f) { return double(f.row.val.rec.lost_pkts); }},
    {"metaroce_path_late_packets_total", "counter", "packets declared lost and acknowledged after all",
     [](const PathFig &f) { return double(f.row.val.rec.late_pkts); }},
    {"metaroce_path_rto_total", "counter", "retransmission timeouts of the path",
     [](const PathFig &f) { return double(f.row.val.rec.rto_fired); }},
    {"metaroce_path_ce_marks", "gauge", "CE marks the peer saw on the path, modulo 2^32",
     [](const PathFig &f) { return double(f.row.val.rec.ce); }},
    {"metaroce_path_moves_total", "counter", "new source ports of the path: failures and slow routes",
     [](const PathFig &f) { return double(f.row.val.rec.moves); }},
    {"metaroce_path_loss_ratio", "gauge", "fraction of the path's packets lost, averaged",
     [](const PathFig &f) { return f.row.val.rec.loss_pm / 1000.0; }},
    {"metaroce_path_mark_ratio", "gauge", "fraction of the path's packets CE-marked, averaged",
     [](const PathFig &f) { return f.row.val.rec.mark_pm / 1000.0; }},
    {"metaroce_path_rate_hint_bytes_per_second", "gauge", "the receiver's rate hint (0: none)",
     [](const PathFig &f) { return f.row.val.rec.rate_hint * 1e6 / 8; }},
    {"metaroce_path_record_age_seconds", "gauge", "time since the path's newest ACK or change",
     [](const PathFig &f) { return f.age_s; }},
    {"metaroce_path_state_changes_total", "counter", "state or port changes seen since the exporter started",
     [](const PathFig &f) { return double(f.row.val.changes); }},
};

// The receiving ends: label path is the peer's path id.
const PathFamily kRxFamilies[] = {
    {"metaroce_path_rx_source_port", "gauge", "UDP source port the peer's path arrives from (0: unknown)",
     [](const PathFig &f) { return double(f.row.val.rx.peer_sport); }},
    {"metaroce_path_rx_packets_total", "counter", "new packets (PSNs) received on the path",
     [](const PathFig &f) { return double(f.row.val.rx.rx_pkts); }},
    {"metaroce_path_rx_bytes_total", "counter", "payload bytes of the new packets received on the path",
     [](const PathFig &f) { return double(f.row.val.rx.rx_bytes); }},
    {"metaroce_path_rx_placed_bytes_total", "counter",
     "payload bytes the path placed for the first time (the rest: spurious resends)",
     [](const PathFig &f) { return double(f.row.val.rx.placed_bytes); }},
    {"metaroce_path_rx_duplicate_packets_total", "counter", "packets received again on the path",
     [](const PathFig &f) { return double(f.row.val.rx.dup_pkts); }},
    {"metaroce_path_rx_duplicate_bytes_total", "counter", "payload bytes of the duplicate packets",
     [](const PathFig &f) { return double(f.row.val.rx.dup_bytes); }},
    {"metaroce_path_rx_late_packets_total", "counter", "new packets that arrived out of order, into a hole",
     [](const PathFig &f) { return double(f.row.val.rx.late_pkts); }},
    {"metaroce_path_rx_skipped_packets_total", "counter",
     "packets jumped over by a newer one; minus the late ones: lost on the way",
     [](const PathFig &f) { return double(f.row.val.rx.skipped); }},
    {"metaroce_path_rx_window_slides_total", "counter", "holes the receive window gave up on",
     [](const PathFig &f) { return double(f.row.val.rx.slides); }},
    {"metaroce_path_rx_out_of_window_packets_total", "counter", "packets refused as too far ahead",
     [](const PathFig &f) { return double(f.row.val.rx.oow); }},
    {"metaroce_path_rx_acks_total", "counter", "ACKs built for the path",
     [](const PathFig &f) { return double(f.row.val.rx.acks); }},
    {"metaroce_path_rx_ce_marks", "gauge", "CE-marked packets received on the path, modulo 2^32",
     [](const PathFig &f) { return double(f.row.val.rx.ce); }},
    {"metaroce_path_rx_window_span_packets", "gauge", "PSNs from the receive window's base to the newest",
     [](const PathFig &f) { return double(f.row.val.rx.span); }},
    {"metaroce_path_rx_window_holes_packets", "gauge", "of the window's span, the packets missing",
     [](const PathFig &f) { return double(f.row.val.rx.holes); }},
    {"metaroce_path_rx_ack_delay_seconds", "gauge", "how long the newest ACK held the packet it answers",
     [](const PathFig &f) { return f.row.val.rx.ack_delay_us / 1e6; }},
    {"metaroce_path_rx_record_age_seconds", "gauge", "time since the path's newest ACK was built",
     [](const PathFig &f) { return f.age_s; }},
};

// sysfs counter names are the driver's own; anything else is dropped
bool metric_safe(const std::string &n) {
  if (n.empty() || std::isdigit((unsigned char)n[0])) return false;
  for (char ch : n)
    if (!std::isalnum((unsigned char)ch) && ch != '_') return false;
  return true;
}

}  // namespace

std::vector<DevCounters> read_dev_counters(const std::string &sysfs_ib) {
  std::vector<DevCounters> out;
  DIR *d = opendir(sysfs_ib.c_str());
  if (!d) return out;
  while (dirent *e = readdir(d)) {
    const std::string dev = e->d_name;
    if (dev[0] == '.') continue;
    std::ifstream desc(sysfs_ib + "/" + dev + "/node_desc");
    std::string what;
    if (!std::getline(desc, what) || what.rfind("metaroce", 0) != 0) continue;
    DevCounters dc;
    dc.dev = dev;
    const std::string hw = sysfs_ib + "/" + dev + "/ports/1/hw_counters";
    if (DIR *h = opendir(hw.c_str())) {
      while (dirent *c = readdir(h)) {
        const std::string name = c->d_name;
        if (!metric_safe(name) || name == "lifespan") continue;
        std::ifstream in(hw + "/" + name);
        unsigned long long v;
        if (in >> v) dc.counters.emplace_back(name, v);
      }
      closedir(h);
    }
    std::sort(dc.counters.begin(), dc.counters.end());
    out.push_back(std::move(dc));
  }
  closedir(d);
  std::sort(out.begin(), out.end(),
            [](const DevCounters &a, const DevCounters &b) { return a.dev < b.dev; });
  return out;
}

std::string to_prom(const std::vector<ConnFig> &conns, const std::vector<DevCounters> &devs,
                    uint64_t events_lost) {
  Page pg;
  pg.family("metaroce_path_state", "gauge",
            "1 for the path's current state (probing, active, congested, failed)");
  for (const ConnFig &c : conns)
    for (const PathFig &f : c.path)
      for (unsigned s = 0; s < 4; s++)
        pg.sample("metaroce_path_state", path_labels(f) + ",state=\"" + state_name(s) + "\"",
                  f.row.val.rec.state == s ? "1" : "0");
  for (const PathFamily &fam : kPathFamilies) {
    pg.family(fam.name, fam.type, fam.help);
    for (const ConnFig &c : conns)
      for (const PathFig &f : c.path) pg.sample(fam.name, path_labels(f), num(fam.get(f)));
  }
  for (const PathFamily &fam : kRxFamilies) {
    pg.family(fam.name, fam.type, fam.help);
    for (const ConnFig &c : conns)
      for (const PathFig &f : c.rx) pg.sample(fam.name, path_labels(f), num(fam.get(f)));
  }
  pg.family("metaroce_conn_cwnd_bytes", "gauge", "congestion window of the connection");
  for (const ConnFig &c : conns) pg.sample("metaroce_conn_cwnd_bytes", conn_labels(c), num(c.conn_cwnd));
  pg.family("metaroce_conn_paths", "gauge", "paths of the connection in the telemetry");
  for (const ConnFig &c : conns) pg.sample("metaroce_conn_paths", conn_labels(c), num(c.paths));

  // one family per device counter: each has its own meaning
  std::vector<std::string> names;
  for (const DevCounters &d : devs)
    for (const auto &[n, v] : d.counters) names.push_back(n);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string &n : names) {
    const std::string fam = "metaroce_device_" + n + "_total";
    pg.family(fam.c_str(), "counter", ("device counter " + n + " (rdma statistic show link)").c_str());
    for (const DevCounters &d : devs)
      for (const auto &[cn, v] : d.counters)
        if (cn == n) pg.sample(fam.c_str(), "dev=\"" + esc(d.dev) + "\"", std::to_string(v));
  }
  pg.family("metaroce_telemetry_events_lost_total", "counter",
            "state-change events the BPF ring buffer had no room for");
  pg.s += "metaroce_telemetry_events_lost_total " + std::to_string(events_lost) + "\n";
  return pg.s;
}

}  // namespace mrc_telem
