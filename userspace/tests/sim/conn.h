// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// A connection with the send rings of the paths it may open, which the core
// takes from its caller (mrc_conn_init()): every path id's by default, as a
// test may open any; a simulator of thousands of connections gives as few
// as its connections send on, as the kernel does.
#pragma once

#include <cstdint>
#include <memory>

extern "C" {
#include "core/conn.h"
}

namespace mrcsim {

struct Conn : mrc_conn {
	explicit Conn(uint32_t paths = MRC_MAX_PATHS)
		: ring_mem_(new mrc_path_ring[paths]), ring_count_(paths) {}
	bool init(const mrc_conn_cfg &cfg, uint64_t now)
	{
		return mrc_conn_init(this, &cfg, ring_mem_.get(), ring_count_, now);
	}

private:
	std::unique_ptr<mrc_path_ring[]> ring_mem_;
	uint32_t ring_count_;
};

} // namespace mrcsim
