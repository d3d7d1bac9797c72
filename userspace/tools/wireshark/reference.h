// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// What the dissector (metaroce.lua) must show for a capture, computed
// with the protocol core's own parser (mrc_wire_parse() and the split
// of mrc_netfuzz::receive()): for each frame the dissector claims, one
// unit per protocol item it adds (a bundle's header, then each packet),
// each a list of "field value" lines. check-dissector holds tshark's
// PDML against it.
//
//   frame N
//   unit [subset]          subset: the dissector may show more fields
//   metaroce.type 2        an integer, "hex:..." bytes, or "*" any value
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "pcap.h"

namespace mrc_pcap {

struct ClaimRules {
	uint16_t port = 61791;	// the dissector's port preference
	bool heuristic = true;	// the UDP heuristic is enabled
};

// Would the dissector claim this datagram, and through which rule?
bool claimed(const Datagram &d, const ClaimRules &rules);

// The units of one datagram, printed to @f.
void print_units(FILE *f, const Datagram &d);

}  // namespace mrc_pcap
