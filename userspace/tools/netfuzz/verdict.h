// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// A receiver's stateless view of a datagram, as [PKT-99] describes it:
// how it splits the datagram (one packet, an ACK bundle, [ENC-9], or a
// packet bundle, [ENC-13]) and the verdict of each part's checks, with
// the core's own parser. The generator's tests hold its meant verdicts
// against it; the fuzzer counts from it the drops a receiver must make.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" {
#include "core/wire.h"
}

namespace mrc_netfuzz {

struct Part {
	uint32_t off = 0;	// in the datagram
	uint32_t len = 0;
	mrc_wire_reason reason = MRC_WIRE_OK;
	mrc_pkt pkt{};		// parsed: valid when reason is MRC_WIRE_OK
};

std::vector<Part> receive(const uint8_t *b, size_t len);

}  // namespace mrc_netfuzz
