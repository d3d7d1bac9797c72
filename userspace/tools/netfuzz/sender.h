// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Puts datagrams on the wire: one UDP socket per (family, source
// address, source port), opened when first used. Destinations are
// limited to the test bed's links (10.0.0.0/16, fd00::/16): the fuzzer
// must never aim at anything else.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gen.h"

namespace mrc_netfuzz {

struct Endpoints {
	in_addr dst4{};
	bool has6 = false;
	in6_addr dst6{};
	std::vector<in_addr> src4;	// [0] is the peer's own address
	std::vector<in6_addr> src6;
	uint16_t dport = MRC_WIRE_UDP_PORT;
};

// Parse @s into @a; false (and why in @err) if it is no address of the
// bed's links.
bool bed_addr4(const std::string &s, in_addr *a, std::string *err);
bool bed_addr6(const std::string &s, in6_addr *a, std::string *err);
// Any local address (sources).
bool addr4(const std::string &s, in_addr *a);
bool addr6(const std::string &s, in6_addr *a);

class Sender {
public:
	explicit Sender(const Endpoints &e) : e_(e) {}
	~Sender();
	Sender(const Sender &) = delete;
	Sender &operator=(const Sender &) = delete;

	// Send @d, waiting out a full queue; false, with a message in
	// @err, if it cannot be sent at all.
	bool send(const Datagram &d, std::string *err);

private:
	bool setup(int fd, bool v6, uint32_t source, uint16_t sport);
	int sock(bool v6, uint32_t source, uint16_t sport, std::string *err);

	Endpoints e_;
	std::map<uint64_t, int> socks_;
};

}  // namespace mrc_netfuzz
