// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "figures.h"

#include <algorithm>
#include <ctime>
#include <tuple>

namespace mrc_telem {
namespace {

uint64_t clock_ns(clockid_t clk) {
  timespec ts;
  clock_gettime(clk, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

double age(uint64_t now, uint64_t at) {
  if (!at) return -1;
  return now > at ? double(now - at) / 1e9 : 0.0;
}

}  // namespace

const char *state_name(unsigned s) {
  switch (s) {
    case 0: return "probing";
    case 1: return "active";
    case 2: return "congested";
    case 3: return "failed";
    default: return "unknown";
  }
}

const char *fail_name(unsigned why) {
  switch (why) {
    case 0: return "none";
    case 1: return "rto";
    case 2: return "probe";
    case 3: return "silent";
    case 4: return "link";
    default: return "unknown";
  }
}

uint64_t mono_ns() { return clock_ns(CLOCK_MONOTONIC); }
uint64_t real_ns() { return clock_ns(CLOCK_REALTIME); }

uint32_t recent_max_rtt_us(const mrc_telem_val &v, uint64_t now_ns) {
  const uint64_t w = MRC_TELEM_RTT_WINDOW_NS;
  if (!v.rtt_win_ns || now_ns < v.rtt_win_ns) return std::max(v.rtt_max_us, v.rtt_prev_max_us);
  const uint64_t age = now_ns - v.rtt_win_ns;
  if (age >= 2 * w) return 0;
  // a window since: the current one is the last, the one before it gone
  if (age >= w) return v.rtt_max_us;
  return std::max(v.rtt_max_us, v.rtt_prev_max_us);
}

std::vector<PathFig> Rates::sample(const std::vector<PathRow> &rows, uint64_t now_ns) {
  std::vector<PathFig> out;
  decltype(prev_) next;
  for (const PathRow &r : rows) {
    PathFig f;
    f.row = r;
    const mrc_telem_val &v = r.val;
    f.age_s = age(now_ns, v.ts_ns);
    f.ack_age_s = age(now_ns, v.ack_ns);
    f.change_age_s = age(now_ns, v.change_ns);
    auto k = std::make_tuple(r.dev, r.qpn, r.side, r.path);
    Prev cur{now_ns, {}};
    if (r.rx()) {
      const uint64_t n[] = {v.rx.rx_pkts, v.rx.dup_pkts, v.rx.late_pkts, v.rx.rx_bytes,
                            v.rx.placed_bytes};
      std::copy(std::begin(n), std::end(n), cur.n);
    } else {
      f.max_rtt_us = recent_max_rtt_us(v, now_ns);
      const uint64_t n[] = {v.rec.tx_pkts, v.rec.acked_pkts, v.rec.lost_pkts, v.rec.tx_bytes,
                            v.rec.acked_bytes};
      std::copy(std::begin(n), std::end(n), cur.n);
    }
    auto it = prev_.find(k);
    // a counter that went back is a new QP of the same number: no rate
    if (it != prev_.end() && now_ns > it->second.at_ns &&
        std::equal(std::begin(cur.n), std::end(cur.n), std::begin(it->second.n),
                   [](uint64_t c, uint64_t p) { return c >= p; })) {
      const double dt = double(now_ns - it->second.at_ns) / 1e9;
      double d[5];
      for (int i = 0; i < 5; i++) d[i] = double(cur.n[i] - it->second.n[i]) / dt;
      f.rates = true;
      if (r.rx()) {
        f.rx_pps = d[0];
        f.rx_dup_pps = d[1];
        f.rx_late_pps = d[2];
        f.rx_Bps = d[3];
        f.rx_placed_Bps = d[4];
      } else {
        f.tx_pps = d[0];
        f.acked_pps = d[1];
        f.lost_pps = d[2];
        f.tx_Bps = d[3];
        f.acked_Bps = d[4];
      }
    }
    next[k] = cur;
    out.push_back(f);
  }
  prev_ = std::move(next);
  return out;
}

bool visible(const PathFig &f, double stale_s) {
  if (f.row.rx()) return f.age_s <= stale_s;
  const unsigned s = f.row.val.rec.state;
  return f.age_s <= stale_s || s == 0 /* probing */ || s == 3 /* failed */;
}

std::vector<ConnFig> by_connection(const std::vector<PathFig> &paths) {
  std::vector<ConnFig> conns;
  for (const PathFig &f : paths) {  // sorted by device, QP, side, path
    if (conns.empty() || conns.back().dev != f.row.dev || conns.back().qpn != f.row.qpn) {
      conns.emplace_back();
      conns.back().dev = f.row.dev;
      conns.back().qpn = f.row.qpn;
    }
    ConnFig &c = conns.back();
    if (f.row.rx()) {
      const mrc_path_rx_rec &x = f.row.val.rx;
      c.rx_pkts += x.rx_pkts;
      c.rx_bytes += x.rx_bytes;
      c.rx_placed_bytes += x.placed_bytes;
      c.rx_dup_pkts += x.dup_pkts;
      c.rx_dup_bytes += x.dup_bytes;
      c.rx_late_pkts += x.late_pkts;
      c.rx_skipped += x.skipped;
      c.rx_ce += x.ce;
      c.rx_pps += f.rx_pps;
      c.rx_dup_pps += f.rx_dup_pps;
      c.rx_Bps += f.rx_Bps;
      c.rx_placed_Bps += f.rx_placed_Bps;
      c.rx.push_back(f);
      continue;
    }
    const mrc_path_rec &p = f.row.val.rec;
    c.paths++;
    if (p.state < 4) c.by_state[p.state]++;
    // each record carries the connection's window: the newest is right
    if (f.row.val.ts_ns >= c.newest_ns) {
      c.newest_ns = f.row.val.ts_ns;
      c.conn_cwnd = p.conn_cwnd;
    }
    c.tx_pkts += p.tx_pkts;
    c.acked_pkts += p.acked_pkts;
    c.lost_pkts += p.lost_pkts;
    c.tx_bytes += p.tx_bytes;
    c.acked_bytes += p.acked_bytes;
    c.tx_pps += f.tx_pps;
    c.acked_pps += f.acked_pps;
    c.lost_pps += f.lost_pps;
    c.tx_Bps += f.tx_Bps;
    c.acked_Bps += f.acked_Bps;
    c.max_rtt_us = std::max(c.max_rtt_us, f.max_rtt_us);
    c.path.push_back(f);
  }
  return conns;
}

const char *const kSortKeys = "path, tx, bytes, srtt, maxrtt, retx, loss, mark, moves, age, rx, dup";

bool sort_paths(std::vector<PathFig> *paths, const std::string &key) {
  using Val = double (*)(const PathFig &);
  static const std::map<std::string, Val> keys = {
      {"path", nullptr},
      {"tx", [](const PathFig &f) { return f.tx_pps; }},
      {"bytes", [](const PathFig &f) { return f.tx_Bps; }},
      {"srtt", [](const PathFig &f) { return double(f.row.val.rec.srtt_us); }},
      {"maxrtt", [](const PathFig &f) { return double(f.max_rtt_us); }},
      {"retx", [](const PathFig &f) { return f.lost_pps; }},
      {"loss", [](const PathFig &f) { return double(f.row.val.rec.loss_pm); }},
      {"mark", [](const PathFig &f) { return double(f.row.val.rec.mark_pm); }},
      {"moves", [](const PathFig &f) { return double(f.row.val.rec.moves); }},
      {"age", [](const PathFig &f) { return f.age_s; }},
      {"rx", [](const PathFig &f) { return f.rx_Bps; }},
      {"dup", [](const PathFig &f) { return f.rx_dup_pps; }},
  };
  const auto it = keys.find(key);
  if (it == keys.end()) return false;
  const auto order = [](const PathFig &a, const PathFig &b) {
    return std::tie(a.row.dev, a.row.qpn, a.row.side, a.row.path) <
           std::tie(b.row.dev, b.row.qpn, b.row.side, b.row.path);
  };
  std::sort(paths->begin(), paths->end(), order);
  // a key of one side reads nothing of the other's record (a union)
  const bool rx_key = key == "rx" || key == "dup";
  const auto of = [rx_key, v = it->second](const PathFig &f) {
    return f.row.rx() == rx_key ? v(f) : 0.0;
  };
  if (it->second)
    std::stable_sort(paths->begin(), paths->end(),
                     [&of](const PathFig &a, const PathFig &b) { return of(a) > of(b); });
  return true;
}

}  // namespace mrc_telem
