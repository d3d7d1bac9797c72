// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The transports the data-centre simulator compares, each one Flow:
//   mrc    metaroce: the portable core (kernel/core), driven as the kernel
//          drives it (tests/sim/endpoint.h); path i on plane i % planes
//   roce   RoCEv2-style: one path per QP (plane and source port by hash),
//          go-back-N, DCQCN-like rate control (CNPs, alpha, timers)
//   ideal  the bound: per-packet spraying over every live link and plane,
//          never dropped, a fixed window of two BDPs
#pragma once

#include "net.h"

#include <memory>
#include <string>

namespace scale {

struct TransportCfg {
	std::string kind = "mrc";
	uint32_t mss = 4096;		// payload per packet
	uint32_t paths = MRC_MAX_PATHS;	// mrc: paths per connection
	uint64_t mrc_rto_init_ns = 0;	// mrc: first RTO of a path; 0: the core's default
	uint64_t mrc_rto_min_ns = 0;	// mrc: least RTO; 0: the core's default
	uint64_t mrc_ack_delay_ns = 0;	// mrc: longest ACK hold; 0: the core's default
	uint32_t mrc_tail_dup = 0;	// mrc: [REL-25] tail segments sent twice
	uint32_t mrc_init_window = 0;	// mrc: a connection's first window; 0: the core's
	bool mrc_conn_ai_paths = false;	// mrc: [CC-5] the window grows a segment per path
	uint64_t roce_rto_ns = 500000;	// roce: timeout (generous for a NIC)
	uint32_t roce_retries = 7;	// ... before the QP goes to error
};

// A flow of @kind from @src to @dst; @rx_share: the receiving host's
// rate-hint state (mrc).
std::unique_ptr<Flow> make_flow(Net &net, const TransportCfg &tc, uint32_t id,
				uint32_t src, uint32_t dst, mrc_cc_share *rx_share);

// one per transport, for make_flow()
std::unique_ptr<Flow> make_mrc_flow(Net &net, const TransportCfg &tc, uint32_t id,
				    uint32_t src, uint32_t dst, mrc_cc_share *rx_share);
std::unique_ptr<Flow> make_roce_flow(Net &net, const TransportCfg &tc, uint32_t id,
				     uint32_t src, uint32_t dst);
std::unique_ptr<Flow> make_ideal_flow(Net &net, const TransportCfg &tc, uint32_t id,
				      uint32_t src, uint32_t dst);

} // namespace scale
