// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "telemetry.h"

#include <sys/mount.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <tuple>
#include <utility>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "path_telemetry.skel.h"

namespace mrc_telem {
namespace {

const char *kTracefs = "/sys/kernel/tracing";

// Guests boot with a bare /sys: mount tracefs if nobody did.
void ensure_tracefs(const char *tool) {
  struct stat st;
  std::string events = std::string(kTracefs) + "/events";
  if (stat(events.c_str(), &st) == 0) return;
  if (mount("nodev", kTracefs, "tracefs", 0, nullptr) != 0)
    std::fprintf(stderr, "%s: mounting tracefs on %s: %s\n", tool, kTracefs,
                 std::strerror(errno));
}

// The BPF programs read the record at fixed offsets derived from
// kernel/trace_fields.h; refuse to run if the kernel's layout differs
// (a module built from another version of the field list).
struct Want {
  const char *name;
  size_t off;
  size_t size;
};

const size_t kHdr = 8;  // struct trace_entry
#define MRC_WANT(rec, f) {#f, kHdr + offsetof(rec, f), sizeof(rec::f)}

const Want kWantPath[] = {
    MRC_WANT(mrc_path_rec, dev),         MRC_WANT(mrc_path_rec, tx_pkts),
    MRC_WANT(mrc_path_rec, tx_bytes),    MRC_WANT(mrc_path_rec, acked_bytes),
    MRC_WANT(mrc_path_rec, qpn),         MRC_WANT(mrc_path_rec, rate_hint),
    MRC_WANT(mrc_path_rec, moves),       MRC_WANT(mrc_path_rec, rtt_us),
    MRC_WANT(mrc_path_rec, rtt_samples), MRC_WANT(mrc_path_rec, mark_pm),
    MRC_WANT(mrc_path_rec, sport),       MRC_WANT(mrc_path_rec, state),
    MRC_WANT(mrc_path_rec, was_state),   MRC_WANT(mrc_path_rec, fail_why),
    MRC_WANT(mrc_path_rec, was_sport),
};

const Want kWantRx[] = {
    MRC_WANT(mrc_path_rx_rec, dev),        MRC_WANT(mrc_path_rx_rec, rx_pkts),
    MRC_WANT(mrc_path_rx_rec, rx_bytes),   MRC_WANT(mrc_path_rx_rec, placed_bytes),
    MRC_WANT(mrc_path_rx_rec, acks),       MRC_WANT(mrc_path_rx_rec, qpn),
    MRC_WANT(mrc_path_rx_rec, ce),         MRC_WANT(mrc_path_rx_rec, rate_hint),
    MRC_WANT(mrc_path_rx_rec, span),       MRC_WANT(mrc_path_rx_rec, ack_sport),
    MRC_WANT(mrc_path_rx_rec, path),       MRC_WANT(mrc_path_rx_rec, why),
};

template <size_t N>
bool layout_matches(const char *tool, const std::string &system, const char *event,
                    const Want (&want)[N]) {
  const std::string format = std::string(kTracefs) + "/events/" + system + "/" + event + "/format";
  std::ifstream in(format);
  if (!in) {
    std::fprintf(stderr, "%s: %s: not found (is the metaroce module loaded?)\n", tool,
                 format.c_str());
    return false;
  }
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
                   "%s: %s field %s is not where this build expects it (offset %zu size %zu)\n",
                   tool, event, w.name, w.off, w.size);
      return false;
    }
  }
  return true;
}

int on_ring(void *ctx, void *data, size_t size) {
  if (size < sizeof(mrc_telem_event)) return 0;
  mrc_telem_event e;
  std::memcpy(&e, data, sizeof(e));
  (*static_cast<Session::EventFn *>(ctx))(e);
  return 0;
}

}  // namespace

Session::~Session() {
  if (rb_) ring_buffer__free(rb_);
  if (skel_) path_telemetry::destroy(skel_);
}

bool Session::open(const char *tool, const std::string &system, EventFn on_event) {
  ensure_tracefs(tool);
  if (!layout_matches(tool, system, "mrc_path_ack", kWantPath) ||
      !layout_matches(tool, system, "mrc_path_state", kWantPath) ||
      !layout_matches(tool, system, "mrc_path_rx", kWantRx))
    return false;
  skel_ = path_telemetry::open_and_load();
  if (!skel_) {
    std::fprintf(stderr, "%s: loading the BPF program failed: %s\n", tool, std::strerror(errno));
    return false;
  }
  // attached by hand, not by the SEC() names, so that a test build's
  // renamed trace system works; destroy() releases the stored links
  struct {
    bpf_program *prog;
    bpf_link **link;
    const char *event;
  } att[] = {
      {skel_->progs.mrc_on_path_ack, &skel_->links.mrc_on_path_ack, "mrc_path_ack"},
      {skel_->progs.mrc_on_path_state, &skel_->links.mrc_on_path_state, "mrc_path_state"},
      {skel_->progs.mrc_on_path_rx, &skel_->links.mrc_on_path_rx, "mrc_path_rx"},
  };
  for (auto &a : att) {
    *a.link = bpf_program__attach_tracepoint(a.prog, system.c_str(), a.event);
    if (!*a.link) {
      std::fprintf(stderr, "%s: attaching to %s:%s failed: %s\n", tool, system.c_str(), a.event,
                   std::strerror(errno));
      return false;
    }
  }
  on_event_ = std::move(on_event);
  if (on_event_) {
    rb_ = ring_buffer__new(bpf_map__fd(skel_->maps.mrc_events), on_ring, &on_event_, nullptr);
    if (!rb_) {
      std::fprintf(stderr, "%s: the event ring buffer: %s\n", tool, std::strerror(errno));
      return false;
    }
  }
  std::fprintf(stderr, "%s: attached to %s:mrc_path_ack, mrc_path_state and mrc_path_rx\n",
               tool, system.c_str());
  return true;
}

std::vector<PathRow> Session::paths() const {
  std::vector<PathRow> rows;
  const int fd = bpf_map__fd(skel_->maps.mrc_paths);
  mrc_telem_key key{}, next{};
  bool first = true;
  // an LRU map may drop the key just visited: a walk then restarts at the
  // first key, so bound it by the map's size
  for (unsigned n = 0; n < MRC_TELEM_MAX_PATHS &&
                       bpf_map_get_next_key(fd, first ? nullptr : &key, &next) == 0;
       n++) {
    PathRow r;
    r.dev.assign(next.dev, strnlen(next.dev, MRC_TP_DEV_LEN));
    r.qpn = next.qpn;
    r.path = next.path;
    r.side = next.side;
    if (bpf_map_lookup_elem(fd, &next, &r.val) == 0) rows.push_back(r);
    key = next;
    first = false;
  }
  std::sort(rows.begin(), rows.end(), [](const PathRow &a, const PathRow &b) {
    return std::tie(a.dev, a.qpn, a.side, a.path) < std::tie(b.dev, b.qpn, b.side, b.path);
  });
  rows.erase(std::unique(rows.begin(), rows.end(),
                         [](const PathRow &a, const PathRow &b) {
                           return std::tie(a.dev, a.qpn, a.side, a.path) ==
                                  std::tie(b.dev, b.qpn, b.side, b.path);
                         }),
             rows.end());
  return rows;
}

int Session::drain_events() { return rb_ ? ring_buffer__consume(rb_) : 0; }

uint64_t Session::events_lost() const { return skel_->bss->mrc_events_lost; }

}  // namespace mrc_telem
