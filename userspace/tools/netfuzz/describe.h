// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Datagrams for humans: one line each, or every byte (--dump).
#pragma once

#include <cstdio>
#include <string>

#include "gen.h"

namespace mrc_netfuzz {

// "#index class to role:qpn from source:port vN, L bytes: what"
std::string describe(const Generator &g, const Datagram &d);

// describe(), each packet a receiver tells apart with its verdict and
// base header fields, then the bytes in hex, 16 a line.
void dump(FILE *f, const Generator &g, const Datagram &d);

}  // namespace mrc_netfuzz
