// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The telemetry tools' figures and renderings, without BPF: rates between
// samples, which paths show, the JSON document (parsed by python3) and
// the Prometheus page (checked by promtool from Debian's prometheus).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "figures.h"

using namespace mrc_telem;

namespace {

// A row of @side named @dev, @qpn, @path (the key and the record alike),
// seen at @ts_ns.
template <typename Rec>
PathRow named(Rec &rec, uint32_t side, const char *dev, uint32_t qpn, uint32_t path,
              uint64_t ts_ns) {
  PathRow r;
  r.dev = dev;
  r.qpn = qpn;
  r.path = path;
  r.side = side;
  std::memcpy(rec.dev, dev, std::min(std::strlen(dev), sizeof(rec.dev)));
  rec.qpn = qpn;
  rec.path = uint8_t(path);
  r.val.ts_ns = ts_ns;
  r.val.ack_ns = ts_ns;
  return r;
}

PathRow row(const char *dev, uint32_t qpn, uint32_t path, uint8_t state, uint64_t tx,
            uint64_t ts_ns) {
  mrc_path_rec rec{};
  PathRow r = named(rec, MRC_TELEM_TX, dev, qpn, path, ts_ns);
  r.val.rec = rec;
  r.val.rec.state = state;
  r.val.rec.tx_pkts = tx;
  r.val.rec.acked_pkts = tx / 2;
  r.val.rec.lost_pkts = tx / 10;
  r.val.rec.tx_bytes = tx * 1000;
  r.val.rec.acked_bytes = tx * 500;
  r.val.rec.srtt_us = 120;
  r.val.rec.cwnd = 30000;
  r.val.rec.conn_cwnd = 60000;
  r.val.rec.loss_pm = 25;
  r.val.rec.mark_pm = 500;
  r.val.rec.sport = uint16_t(50000 + path);
  r.val.acks = 3;
  return r;
}

// The receiving end of the peer's path @path: @rx new packets of 1000 B.
PathRow rx_row(const char *dev, uint32_t qpn, uint32_t path, uint64_t rx, uint64_t ts_ns) {
  mrc_path_rx_rec rec{};
  PathRow r = named(rec, MRC_TELEM_RX, dev, qpn, path, ts_ns);
  r.val.rx = rec;
  r.val.rx.rx_pkts = rx;
  r.val.rx.rx_bytes = rx * 1000;
  r.val.rx.placed_bytes = rx * 900;
  r.val.rx.dup_pkts = rx / 10;
  r.val.rx.dup_bytes = rx * 100;
  r.val.rx.late_pkts = rx / 20;
  r.val.rx.skipped = rx / 5;
  r.val.rx.ce = uint32_t(rx / 4);
  r.val.rx.span = 3;
  r.val.rx.holes = 1;
  r.val.rx.peer_sport = uint16_t(60000 + path);
  r.val.acks = 5;
  return r;
}

const uint64_t kSec = 1000000000ull;

// Runs @cmd with @input on its stdin; its exit status, its output in @out.
int run(const std::string &cmd, const std::string &input, std::string *out) {
  char in_path[] = "/tmp/mrc-telem-in-XXXXXX";
  const int fd = mkstemp(in_path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, input.data(), input.size()), ssize_t(input.size()));
  close(fd);
  std::string full = cmd + " < " + in_path + " 2>&1";
  FILE *p = popen(full.c_str(), "r");
  char buf[4096];
  size_t n;
  out->clear();
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
  const int st = pclose(p);
  unlink(in_path);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

TEST(TelemFigures, RatesBetweenSamples) {
  Rates r;
  auto first = r.sample({row("mrc0", 17, 0, 1, 1000, 5 * kSec)}, 6 * kSec);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_FALSE(first[0].rates);
  EXPECT_DOUBLE_EQ(first[0].age_s, 1.0);
  auto second = r.sample({row("mrc0", 17, 0, 1, 3000, 7 * kSec)}, 8 * kSec);
  ASSERT_TRUE(second[0].rates);
  EXPECT_DOUBLE_EQ(second[0].tx_pps, 1000.0);
  EXPECT_DOUBLE_EQ(second[0].acked_pps, 500.0);
  EXPECT_DOUBLE_EQ(second[0].lost_pps, 100.0);
  EXPECT_DOUBLE_EQ(second[0].tx_Bps, 1e6);
  EXPECT_DOUBLE_EQ(second[0].acked_Bps, 5e5);
  // a counter going back is a new QP with the same number: no rate
  auto third = r.sample({row("mrc0", 17, 0, 1, 10, 9 * kSec)}, 10 * kSec);
  EXPECT_FALSE(third[0].rates);
}

// The BPF program keeps the largest sample per window (1 s) and of the
// window before; what is recent depends on when the tool looks.
TEST(TelemFigures, RecentMaxRtt) {
  mrc_telem_val v{};
  v.rtt_win_ns = 10 * kSec;
  v.rtt_max_us = 300;
  v.rtt_prev_max_us = 500;
  EXPECT_EQ(recent_max_rtt_us(v, 10 * kSec + kSec / 2), 500u);  // both windows recent
  EXPECT_EQ(recent_max_rtt_us(v, 11 * kSec + kSec / 5), 300u);  // the older one is gone
  EXPECT_EQ(recent_max_rtt_us(v, 12 * kSec), 0u);               // no sample for 2 s
  v.rtt_win_ns = 0;                                             // never folded
  v.rtt_max_us = v.rtt_prev_max_us = 0;
  EXPECT_EQ(recent_max_rtt_us(v, 12 * kSec), 0u);
  Rates r;
  auto a = row("mrc0", 17, 0, 1, 100, kSec), b = row("mrc0", 17, 1, 1, 100, kSec);
  a.val.rtt_win_ns = b.val.rtt_win_ns = kSec;
  a.val.rtt_max_us = 700;
  b.val.rtt_max_us = 900;
  const auto conns = by_connection(r.sample({a, b}, kSec + kSec / 2));
  ASSERT_EQ(conns.size(), 1u);
  EXPECT_EQ(conns[0].path[0].max_rtt_us, 700u);
  EXPECT_EQ(conns[0].max_rtt_us, 900u);
}

// A failed or probing path gets no ACKs: it must not drop out of the view
// with age, while a quiet active path does.
TEST(TelemFigures, FailedAndProbingPathsStayVisible) {
  Rates r;
  auto f = r.sample({row("mrc0", 17, 0, 1, 10, 1 * kSec), row("mrc0", 17, 1, 3, 10, 1 * kSec),
                     row("mrc0", 17, 2, 0, 10, 1 * kSec), row("mrc0", 17, 3, 2, 10, 1 * kSec)},
                    100 * kSec);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_FALSE(visible(f[0], 10));  // active, quiet for 99 s
  EXPECT_TRUE(visible(f[1], 10));   // failed
  EXPECT_TRUE(visible(f[2], 10));   // probing
  EXPECT_FALSE(visible(f[3], 10));  // congested, quiet
  EXPECT_TRUE(visible(f[0], 100));
}

TEST(TelemFigures, ConnectionSummary) {
  Rates r;
  auto paths = r.sample({row("mrc0", 17, 0, 1, 100, kSec), row("mrc0", 17, 1, 3, 50, kSec),
                         row("mrc0", 18, 0, 0, 7, kSec), row("mrc1", 17, 0, 1, 1, kSec)},
                        2 * kSec);
  auto conns = by_connection(paths);
  ASSERT_EQ(conns.size(), 3u);
  EXPECT_EQ(conns[0].paths, 2u);
  EXPECT_EQ(conns[0].tx_pkts, 150u);
  EXPECT_EQ(conns[0].tx_bytes, 150000u);
  EXPECT_EQ(conns[0].acked_bytes, 75000u);
  EXPECT_EQ(conns[0].by_state[1], 1u);
  EXPECT_EQ(conns[0].by_state[3], 1u);
  EXPECT_EQ(conns[0].conn_cwnd, 60000u);
  EXPECT_EQ(conns[1].qpn, 18u);
  EXPECT_EQ(conns[2].dev, "mrc1");
}

// A host that sends and receives on one QP has both ends of a path id:
// separate rows, rates and sums, whatever their counters.
TEST(TelemFigures, ReceivingEndsApart) {
  Rates r;
  r.sample({row("mrc0", 17, 0, 1, 100, kSec), rx_row("mrc0", 17, 0, 1000, kSec)}, kSec);
  auto paths = r.sample({row("mrc0", 17, 0, 1, 300, 2 * kSec), rx_row("mrc0", 17, 0, 3000, 2 * kSec),
                         rx_row("mrc0", 17, 1, 40, 2 * kSec)},
                        3 * kSec);
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_FALSE(paths[0].row.rx());
  EXPECT_DOUBLE_EQ(paths[0].tx_pps, 100.0);  // over the 2 s between samples
  EXPECT_DOUBLE_EQ(paths[0].rx_pps, 0.0);
  ASSERT_TRUE(paths[1].row.rx());
  ASSERT_TRUE(paths[1].rates);
  EXPECT_DOUBLE_EQ(paths[1].rx_pps, 1000.0);
  EXPECT_DOUBLE_EQ(paths[1].rx_Bps, 1e6);
  EXPECT_DOUBLE_EQ(paths[1].rx_placed_Bps, 9e5);
  EXPECT_DOUBLE_EQ(paths[1].rx_dup_pps, 100.0);
  EXPECT_DOUBLE_EQ(paths[1].tx_pps, 0.0);
  EXPECT_FALSE(paths[2].rates);  // first seen
  auto conns = by_connection(paths);
  ASSERT_EQ(conns.size(), 1u);
  EXPECT_EQ(conns[0].paths, 1u);
  EXPECT_EQ(conns[0].tx_pkts, 300u);
  ASSERT_EQ(conns[0].rx.size(), 2u);
  EXPECT_EQ(conns[0].rx_pkts, 3040u);
  EXPECT_EQ(conns[0].rx_bytes, 3040000u);
  EXPECT_EQ(conns[0].rx_placed_bytes, 3040u * 900);
  EXPECT_EQ(conns[0].rx_dup_pkts, 304u);
  EXPECT_EQ(conns[0].rx_ce, 760u);
  EXPECT_DOUBLE_EQ(conns[0].rx_pps, 1000.0);
  // a receiving end has no state: only its age hides it
  EXPECT_TRUE(visible(paths[1], 10));
  EXPECT_FALSE(visible(paths[1], 0.5));
  // rx orders the receiving ends; the sending end reads as 0 under it
  auto p = paths;
  ASSERT_TRUE(sort_paths(&p, "rx"));
  EXPECT_TRUE(p[0].row.rx());
  EXPECT_EQ(p[0].row.path, 0u);
  ASSERT_TRUE(sort_paths(&p, "tx"));
  EXPECT_FALSE(p[0].row.rx());
}

// --sort: worst first by the key, ties (and "path") in device, QPN, path
// order; an unknown key is refused and leaves the rows alone.
TEST(TelemFigures, SortKeys) {
  Rates r;
  auto a = row("mrc1", 17, 0, 1, 100, kSec), b = row("mrc0", 18, 1, 1, 100, kSec),
       c = row("mrc0", 17, 2, 1, 100, kSec), d = row("mrc0", 17, 1, 1, 100, kSec);
  b.val.rec.srtt_us = 900;
  c.val.rec.srtt_us = 300;
  d.val.rec.mark_pm = 990;
  r.sample({a, b, c, d}, kSec);
  a.val.rec.tx_pkts = 5100;  // 5000 pps; the others 100 .. 400
  b.val.rec.tx_pkts = 200;
  c.val.rec.tx_pkts = 500;
  d.val.rec.tx_pkts = 300;
  const auto paths = r.sample({a, b, c, d}, 2 * kSec);
  const auto order = [&](const char *key) {
    auto p = paths;
    std::string o;
    EXPECT_TRUE(sort_paths(&p, key)) << key;
    for (const PathFig &f : p) o += f.row.dev + "/" + std::to_string(f.row.qpn) + "/" +
                                   std::to_string(f.row.path) + " ";
    return o;
  };
  EXPECT_EQ(order("path"), "mrc0/17/1 mrc0/17/2 mrc0/18/1 mrc1/17/0 ");
  EXPECT_EQ(order("tx"), "mrc1/17/0 mrc0/17/2 mrc0/17/1 mrc0/18/1 ");
  EXPECT_EQ(order("srtt"), "mrc0/18/1 mrc0/17/2 mrc0/17/1 mrc1/17/0 ");
  EXPECT_EQ(order("mark"), "mrc0/17/1 mrc0/17/2 mrc0/18/1 mrc1/17/0 ");
  auto p = paths;
  EXPECT_FALSE(sort_paths(&p, "bogus"));
  EXPECT_EQ(p[0].row.dev, "mrc1");
}

TEST(TelemRender, JsonParses) {
  Rates r;
  r.sample({row("mrc0", 17, 0, 1, 100, kSec)}, 2 * kSec);
  auto paths = r.sample({row("mrc0", 17, 0, 1, 300, 2 * kSec), row("mrc0", 17, 1, 3, 50, kSec),
                         row("we\"ird\\", 3, 0, 1, 1, kSec)},
                        3 * kSec);
  const std::string doc = to_json(by_connection(paths), 1234567890123ull, 2);
  std::string out;
  const int rc = run(
      "python3 -c 'import json,sys; d=json.load(sys.stdin); c=d[\"connections\"];"
      "print(len(c), c[0][\"dev\"], c[0][\"qpn\"], c[0][\"path\"][1][\"state\"],"
      "c[0][\"path\"][0][\"tx_pps\"], c[0][\"path\"][0][\"mark_frac\"], d[\"events_lost\"],"
      "c[1][\"dev\"], \"tx_pps\" in c[0][\"path\"][1], c[0][\"path\"][0][\"tx_bytes_ps\"],"
      "c[0][\"path\"][0][\"acked_bytes\"], c[0][\"tx_bytes\"])'",
      doc, &out);
  ASSERT_EQ(rc, 0) << out << doc;
  EXPECT_EQ(out, "2 mrc0 17 failed 200 0.5 2 we\"ird\\ False 200000 150000 350000\n") << doc;
  EXPECT_NE(doc.find("we\\\"ird\\\\"), std::string::npos) << doc;
}

TEST(TelemRender, JsonReceivingEnds) {
  Rates r;
  r.sample({rx_row("mrc0", 17, 2, 100, kSec)}, 2 * kSec);
  auto paths = r.sample({row("mrc0", 17, 0, 1, 300, 2 * kSec), rx_row("mrc0", 17, 2, 300, 2 * kSec)},
                        3 * kSec);
  const std::string doc = to_json(by_connection(paths), 1, 0);
  std::string out;
  const int rc = run(
      "python3 -c 'import json,sys; d=json.load(sys.stdin); c=d[\"connections\"][0];"
      "x=c[\"rx\"]; p=x[\"path\"][0];"
      "print(c[\"tx_pkts\"], x[\"paths\"], x[\"rx_bytes\"], x[\"placed_bytes\"], p[\"path\"],"
      "p[\"sport\"], p[\"dup_pkts\"], p[\"late_pkts\"], p[\"skipped_pkts\"], p[\"ce\"],"
      "p[\"span\"], p[\"holes\"], p[\"rx_pps\"], p[\"rx_bytes_ps\"])'",
      doc, &out);
  ASSERT_EQ(rc, 0) << out << doc;
  EXPECT_EQ(out, "300 1 300000 270000 2 60002 30 15 60 75 3 1 200 200000\n") << doc;
}

TEST(TelemRender, PromtoolAcceptsThePage) {
  // a fake /sys/class/infiniband: one metaroce device, one other
  char dir[] = "/tmp/mrc-telem-sysfs-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string d = dir;
  ASSERT_EQ(system(("mkdir -p " + d + "/mrc0/ports/1/hw_counters " + d +
                    "/mlx5_0/ports/1/hw_counters && echo metaroce > " + d +
                    "/mrc0/node_desc && echo other > " + d + "/mlx5_0/node_desc && echo 42 > " +
                    d + "/mrc0/ports/1/hw_counters/tx_packets && echo 7 > " + d +
                    "/mrc0/ports/1/hw_counters/path_fails && echo 10 > " + d +
                    "/mrc0/ports/1/hw_counters/lifespan && echo 9 > " + d +
                    "/mlx5_0/ports/1/hw_counters/tx_packets")
                       .c_str()),
            0);
  auto devs = read_dev_counters(d);
  ASSERT_EQ(devs.size(), 1u);
  EXPECT_EQ(devs[0].dev, "mrc0");
  ASSERT_EQ(devs[0].counters.size(), 2u);  // lifespan is a setting, not a counter

  Rates r;
  auto paths = r.sample({row("mrc0", 17, 0, 1, 300, 2 * kSec), row("mrc0", 17, 1, 3, 50, kSec),
                         rx_row("mrc0", 17, 0, 40, 2 * kSec)},
                        3 * kSec);
  const std::string page = to_prom(by_connection(paths), devs, 0);
  // the receiving end of path 0 beside its sending end, not mixed in
  EXPECT_NE(page.find("metaroce_path_rx_bytes_total{dev=\"mrc0\",qpn=\"17\",path=\"0\"} 40000\n"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("metaroce_path_rx_placed_bytes_total{dev=\"mrc0\",qpn=\"17\",path=\"0\"} 36000\n"),
            std::string::npos);
  EXPECT_NE(page.find("metaroce_path_rx_ce_marks{dev=\"mrc0\",qpn=\"17\",path=\"0\"} 10\n"),
            std::string::npos);
  EXPECT_EQ(page.find("metaroce_path_rx_packets_total{dev=\"mrc0\",qpn=\"17\",path=\"1\"}"),
            std::string::npos);
  EXPECT_NE(page.find("metaroce_path_state{dev=\"mrc0\",qpn=\"17\",path=\"1\",state=\"failed\"} 1\n"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("metaroce_path_sent_packets_total{dev=\"mrc0\",qpn=\"17\",path=\"0\"} 300\n"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("metaroce_path_mark_ratio{dev=\"mrc0\",qpn=\"17\",path=\"0\"} 0.5\n"),
            std::string::npos);
  EXPECT_NE(page.find("metaroce_path_sent_bytes_total{dev=\"mrc0\",qpn=\"17\",path=\"0\"} 300000\n"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("metaroce_path_acked_bytes_total{dev=\"mrc0\",qpn=\"17\",path=\"0\"} 150000\n"),
            std::string::npos);
  EXPECT_NE(page.find("metaroce_path_recent_max_rtt_seconds{dev=\"mrc0\",qpn=\"17\",path=\"0\"} 0\n"),
            std::string::npos);
  EXPECT_NE(page.find("metaroce_device_tx_packets_total{dev=\"mrc0\"} 42\n"), std::string::npos);
  EXPECT_NE(page.find("metaroce_device_path_fails_total{dev=\"mrc0\"} 7\n"), std::string::npos);
  EXPECT_EQ(page.find("mlx5_0"), std::string::npos);
  std::string out;
  EXPECT_EQ(run("promtool check metrics", page, &out), 0) << out << page;
  EXPECT_EQ(out.find("lint"), std::string::npos) << out;
  system(("rm -rf " + d).c_str());
}
