// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The synthetic golden capture: one datagram of every packet type and
// variant of the reference encoder's samples, both kinds of bundles,
// one datagram for every verdict of [PKT-99], packets cut by the
// capture's snap length, MetaRoCE on other ports (for the heuristic)
// and foreign traffic the dissector must leave alone.
#pragma once

#include <string>
#include <vector>

#include "pcap.h"

namespace mrc_pcap {

struct GoldenFrame {
	std::string name;	// what the frame shows, for the legend
	Udp udp;
	uint32_t snap = 0;	// bytes of the frame captured; 0: all
};

std::vector<GoldenFrame> golden_frames();

}  // namespace mrc_pcap
