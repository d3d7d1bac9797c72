// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The BPF side of the telemetry tools (metaroce-top, metaroce-exporter):
// load bpf/path_telemetry.bpf.c, attach it to the module's tracepoints,
// read its path map and drain its ring buffer of state changes.
#ifndef MRC_TELEMETRY_H
#define MRC_TELEMETRY_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "path_telemetry.h"

struct path_telemetry;  // the libbpf skeleton
struct ring_buffer;

namespace mrc_telem {

// One row of the map: a path of a QP of a device, its sending end (TX:
// val.rec) or its receiving end (RX: val.rx, the peer's path of that id).
struct PathRow {
  std::string dev;
  uint32_t qpn = 0;
  uint32_t path = 0;
  uint32_t side = MRC_TELEM_TX;
  mrc_telem_val val{};
  bool rx() const { return side == MRC_TELEM_RX; }
};

const char *state_name(unsigned state);
const char *fail_name(unsigned why);

// CLOCK_MONOTONIC, bpf_ktime_get_ns()'s clock, and the wall clock
uint64_t mono_ns();
uint64_t real_ns();

class Session {
 public:
  using EventFn = std::function<void(const mrc_telem_event &)>;

  Session() = default;
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  // Mounts tracefs if needed, checks the record layout against this build,
  // loads and attaches; on failure prints why (as @tool) and returns false.
  bool open(const char *tool, const std::string &system, EventFn on_event);

  // Sorted by device, QP, side, path.
  std::vector<PathRow> paths() const;
  // Calls the event callback for each change queued since; the number.
  int drain_events();
  uint64_t events_lost() const;

 private:
  path_telemetry *skel_ = nullptr;
  ring_buffer *rb_ = nullptr;
  EventFn on_event_;
};

}  // namespace mrc_telem

#endif  // MRC_TELEMETRY_H
