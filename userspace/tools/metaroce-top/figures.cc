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
    auto k = std::make_tuple(r.dev, r.qpn, r.path);
    f.max_rtt_us = recent_max_rtt_us(v, now_ns);
    const Prev cur{now_ns,          v.rec.tx_pkts,  v.rec.acked_pkts,
                   v.rec.lost_pkts, v.rec.tx_bytes, v.rec.acked_bytes};
    auto it = prev_.find(k);
    // a counter that went back is a new QP of the same number: no rate
    if (it != prev_.end() && now_ns > it->second.at_ns && cur.tx >= it->second.tx &&
        cur.acked >= it->second.acked && cur.lost >= it->second.lost &&
        cur.tx_bytes >= it->second.tx_bytes && cur.acked_bytes >= it->second.acked_bytes) {
      const double dt = double(now_ns - it->second.at_ns) / 1e9;
      f.rates = true;
      f.tx_pps = double(cur.tx - it->second.tx) / dt;
      f.acked_pps = double(cur.acked - it->second.acked) / dt;
      f.lost_pps = double(cur.lost - it->second.lost) / dt;
      f.tx_Bps = double(cur.tx_bytes - it->second.tx_bytes) / dt;
      f.acked_Bps = double(cur.acked_bytes - it->second.acked_bytes) / dt;
    }
    next[k] = cur;
    out.push_back(f);
  }
  prev_ = std::move(next);
  return out;
}

bool visible(const PathFig &f, double stale_s) {
  const unsigned s = f.row.val.rec.state;
  return f.age_s <= stale_s || s == 0 /* probing */ || s == 3 /* failed */;
}

std::vector<ConnFig> by_connection(const std::vector<PathFig> &paths) {
  std::vector<ConnFig> conns;
  for (const PathFig &f : paths) {  // sorted by device, QP, path
    if (conns.empty() || conns.back().dev != f.row.dev || conns.back().qpn != f.row.qpn) {
      conns.emplace_back();
      conns.back().dev = f.row.dev;
      conns.back().qpn = f.row.qpn;
    }
    ConnFig &c = conns.back();
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

const char *const kSortKeys = "path, tx, bytes, srtt, maxrtt, retx, loss, mark, moves, age";

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
  };
  const auto it = keys.find(key);
  if (it == keys.end()) return false;
  const auto order = [](const PathFig &a, const PathFig &b) {
    return std::tie(a.row.dev, a.row.qpn, a.row.path) < std::tie(b.row.dev, b.row.qpn, b.row.path);
  };
  std::sort(paths->begin(), paths->end(), order);
  if (const Val v = it->second)
    std::stable_sort(paths->begin(), paths->end(),
                     [v](const PathFig &a, const PathFig &b) { return v(a) > v(b); });
  return true;
}

}  // namespace mrc_telem
