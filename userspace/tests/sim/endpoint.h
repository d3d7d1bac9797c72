// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// How the kernel drives one end of a connection, for every simulator: after
// any input (a datagram, a timer, a post) it reports the receiver's
// completions, sends the ACKs that fell due, reports the sender's
// completions, lets the application post, then sends what the windows
// allow. One copy of that order, shared by sim.cc, incast.cc and the
// data-centre simulator (userspace/sim).
#pragma once

#include <cstdint>

extern "C" {
#include "core/conn.h"
}

namespace mrcsim {

// What a drive hands back; every hook is optional.
class EndpointIo {
public:
	virtual ~EndpointIo() = default;
	virtual void rx_done(const mrc_completion &) {}
	virtual void ack_out(const mrc_ack_info &) {}
	virtual void tx_done(const mrc_completion &) {}
	virtual void post(mrc_conn *) {}
	virtual void data_out(const mrc_tx_seg &) {}
	// [PATH-4] a PROBE REQ (only with cfg.probe_reqs), sent at @tsval
	virtual void probe_out(const mrc_probe_req &, uint32_t /* tsval */) {}
};

// One drive of @c at @now; @share is the receiving device's rate-hint state.
void drive(mrc_conn *c, uint64_t now, mrc_cc_share *share, EndpointIo &io);

// The configuration of the far end of a connection configured by @near:
// @far's own settings (its paths, ...), with its receive side meeting our
// send side and the other way round.
mrc_conn_cfg peer_cfg(const mrc_conn_cfg &near, const mrc_conn_cfg &far, uint64_t seed);

} // namespace mrcsim
