// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// What a receiver's parser would hand mrc_conn_rx_data() for a segment a
// sender's mrc_conn_tx_next() produced, without encoding bytes: for the
// simulators, tests, fuzzers and benchmarks that connect two cores directly.
#pragma once

extern "C" {
#include "core/conn.h"
}

namespace mrcsim {

inline mrc_rx_seg rx_of(const mrc_tx_seg &t, bool ce = false)
{
	mrc_rx_seg s = {};

	s.psn = t.psn;
	s.msn = t.msn;
	s.ssn = t.ssn;
	s.tsval = t.tsval;
	s.offset = t.offset;
	s.len = t.len;
	s.total_len = t.total_len;
	s.stream = t.stream;
	s.flags = t.flags;
	s.path_id = t.path_id;
	s.ce = ce;
	return s;
}

} // namespace mrcsim
