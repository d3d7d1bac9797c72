// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// metaroce-top --json. Names are fixed identifiers and the device name is
// escaped, so the document is valid whatever a device is called.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "figures.h"

namespace mrc_telem {
namespace {

class Out {
 public:
  std::string s;
  void raw(const char *t) { s += t; }
  void key(const char *k) {
    comma();
    s += '"';
    s += k;
    s += "\":";
  }
  void str(const char *k, const std::string &v) {
    key(k);
    s += '"';
    for (unsigned char ch : v) {
      if (ch == '"' || ch == '\\') {
        s += '\\';
        s += char(ch);
      } else if (ch < 0x20 || ch >= 0x7f) {
        char b[8];
        std::snprintf(b, sizeof(b), "\\u%04x", ch);
        s += b;
      } else {
        s += char(ch);
      }
    }
    s += '"';
  }
  void u(const char *k, uint64_t v) {
    key(k);
    s += std::to_string(v);
  }
  void d(const char *k, double v) {
    key(k);
    char b[32];
    std::snprintf(b, sizeof(b), "%.6g", v);
    s += b;
  }
  void open(const char *k, char br) {
    if (k) key(k); else comma();
    s += br;
    first_ = true;
  }
  void close(char br) {
    s += br;
    first_ = false;
  }

 private:
  bool first_ = true;
  void comma() {
    if (!first_) s += ',';
    first_ = false;
  }
};

void path_json(Out &o, const PathFig &f) {
  const mrc_path_rec &p = f.row.val.rec;
  o.open(nullptr, '{');
  o.u("path", f.row.path);
  o.str("state", state_name(p.state));
  o.d("age_s", f.age_s);
  o.d("ack_age_s", f.ack_age_s);
  o.d("change_age_s", f.change_age_s);
  o.u("changes", f.row.val.changes);
  o.str("fail_why", fail_name(p.fail_why));
  o.u("sport", p.sport);
  o.u("srtt_us", p.srtt_us);
  o.u("min_rtt_us", p.min_rtt_us);
  o.u("max_rtt_us", f.max_rtt_us);
  o.u("rtt_us", p.rtt_us);
  o.u("rto_us", p.rto_us);
  o.u("cwnd", p.cwnd);
  o.u("inflight", p.inflight);
  o.u("tx_pkts", p.tx_pkts);
  o.u("acked_pkts", p.acked_pkts);
  o.u("lost_pkts", p.lost_pkts);
  o.u("late_pkts", p.late_pkts);
  o.u("tx_bytes", p.tx_bytes);
  o.u("acked_bytes", p.acked_bytes);
  o.u("rto_fired", p.rto_fired);
  o.u("ce", p.ce);
  o.u("moves", p.moves);
  o.u("rate_hint_mbps", p.rate_hint);
  o.d("loss_frac", p.loss_pm / 1000.0);
  o.d("mark_frac", p.mark_pm / 1000.0);
  if (f.rates) {
    o.d("tx_pps", f.tx_pps);
    o.d("acked_pps", f.acked_pps);
    o.d("lost_pps", f.lost_pps);
    o.d("tx_bytes_ps", f.tx_Bps);
    o.d("acked_bytes_ps", f.acked_Bps);
  }
  o.close('}');
}

// The receiving end of the peer's path of this id.
void rx_path_json(Out &o, const PathFig &f) {
  const mrc_path_rx_rec &x = f.row.val.rx;
  o.open(nullptr, '{');
  o.u("path", f.row.path);
  o.d("age_s", f.age_s);
  o.u("acks_seen", f.row.val.acks);
  o.u("sport", x.peer_sport);
  o.u("ack_sport", x.ack_sport);
  o.u("rx_pkts", x.rx_pkts);
  o.u("rx_bytes", x.rx_bytes);
  o.u("placed_bytes", x.placed_bytes);
  o.u("dup_pkts", x.dup_pkts);
  o.u("dup_bytes", x.dup_bytes);
  o.u("late_pkts", x.late_pkts);
  o.u("skipped_pkts", x.skipped);
  o.u("slides", x.slides);
  o.u("oow_pkts", x.oow);
  o.u("acks", x.acks);
  o.u("ce", x.ce);
  o.u("span", x.span);
  o.u("holes", x.holes);
  o.u("ack_delay_us", x.ack_delay_us);
  o.u("rate_hint_mbps", x.rate_hint);
  if (f.rates) {
    o.d("rx_pps", f.rx_pps);
    o.d("dup_pps", f.rx_dup_pps);
    o.d("late_pps", f.rx_late_pps);
    o.d("rx_bytes_ps", f.rx_Bps);
    o.d("placed_bytes_ps", f.rx_placed_Bps);
  }
  o.close('}');
}

}  // namespace

std::string to_json(const std::vector<ConnFig> &conns, uint64_t real_ns, uint64_t events_lost) {
  Out o;
  o.open(nullptr, '{');
  o.u("time_us", real_ns / 1000);
  o.u("events_lost", events_lost);
  o.open("connections", '[');
  for (const ConnFig &c : conns) {
    o.open(nullptr, '{');
    o.str("dev", c.dev);
    o.u("qpn", c.qpn);
    o.u("conn_cwnd", c.conn_cwnd);
    o.u("paths", c.paths);
    for (unsigned s = 0; s < 4; s++) {
      std::string k = std::string("paths_") + state_name(s);
      o.u(k.c_str(), c.by_state[s]);
    }
    o.u("tx_pkts", c.tx_pkts);
    o.u("acked_pkts", c.acked_pkts);
    o.u("lost_pkts", c.lost_pkts);
    o.u("tx_bytes", c.tx_bytes);
    o.u("acked_bytes", c.acked_bytes);
    o.u("max_rtt_us", c.max_rtt_us);
    o.d("tx_pps", c.tx_pps);
    o.d("acked_pps", c.acked_pps);
    o.d("lost_pps", c.lost_pps);
    o.d("tx_bytes_ps", c.tx_Bps);
    o.d("acked_bytes_ps", c.acked_Bps);
    o.open("path", '[');
    for (const PathFig &f : c.path) path_json(o, f);
    o.close(']');
    o.open("rx", '{');
    o.u("paths", c.rx.size());
    o.u("rx_pkts", c.rx_pkts);
    o.u("rx_bytes", c.rx_bytes);
    o.u("placed_bytes", c.rx_placed_bytes);
    o.u("dup_pkts", c.rx_dup_pkts);
    o.u("dup_bytes", c.rx_dup_bytes);
    o.u("late_pkts", c.rx_late_pkts);
    o.u("skipped_pkts", c.rx_skipped);
    o.u("ce", c.rx_ce);
    o.d("rx_pps", c.rx_pps);
    o.d("dup_pps", c.rx_dup_pps);
    o.d("rx_bytes_ps", c.rx_Bps);
    o.d("placed_bytes_ps", c.rx_placed_Bps);
    o.open("path", '[');
    for (const PathFig &f : c.rx) rx_path_json(o, f);
    o.close(']');
    o.close('}');
    o.close('}');
  }
  o.close(']');
  o.close('}');
  o.s += '\n';
  return o.s;
}

}  // namespace mrc_telem
