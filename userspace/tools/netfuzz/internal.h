// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// What the generator's parts share: the aim of one datagram, a packet
// being built, and the builders of build.cc, mutate.cc and bundle.cc.
#pragma once

#include <string>
#include <vector>

#include "gen.h"
#include "rng.h"

namespace mrc_netfuzz::detail {

// The choices of one datagram that all its packets share.
struct Aim {
	const Config *cfg = nullptr;
	const Target *t = nullptr;
	uint32_t qpn = 0;		// Near and Random resolved
	bool right_source = true;	// from the connections' peer's address
	bool allow_right = false;	// the right cookie may be used
};

// One packet: its description and its encoded bytes.
struct Pkt {
	mrc_pkt p{};
	std::vector<uint8_t> payload;
	std::vector<uint8_t> bytes;
	bool right = false;	// carries its target's right cookie or Q_Key
	bool other = false;	// carries the other direction's cookie
};

constexpr uint32_t kMadSize = 256;	// IB_MGMT_MAD_SIZE
constexpr uint32_t kMadHdr = 24;	// struct ib_mad_hdr
constexpr uint8_t kMadBaseVersion = 1;	// IB_MGMT_BASE_VERSION

bool is_ctrl(uint8_t type);
bool has_payload(uint8_t type);
// Smallest encoded valid packet of @type.
uint32_t min_len(uint8_t type);
// Flags [PKT-31] allows @type.
uint16_t allowed_flags(uint8_t type);

// p.p and p.payload into p.bytes with the core's encoder; a packet it
// refuses is a bug of the generator's, which aborts.
void encode(Pkt &p);
// Write the ICRC of a packet whose last 4 bytes are its trailer.
void seal(std::vector<uint8_t> &b);

// A valid packet of @type (1..MRC_PKT_TYPE_MAX) for @aim, at most @room
// bytes (>= min_len(type)); @big lets a payload exceed @room.
Pkt build(Rng &r, const Aim &aim, uint8_t type, uint32_t room, bool big);
// A valid SEND, PROBE or UD_SEND of exactly @len bytes (>= min_len + 8).
Pkt build_sized(Rng &r, const Aim &aim, uint8_t type, uint32_t len);
// Pick the cookie of p.p: right, the other direction's or wrong.
void set_cookie(Rng &r, const Aim &aim, Pkt &p);

// What mutate() may do to the packet.
enum Keep : unsigned {
	kKeepNone = 0,
	kKeepLen = 1,	// the length (a part of an ACK bundle)
	kKeepType = 2,	// the type byte (the first part of an ACK bundle)
	kNoHuge = 4,	// no datagram over 65507 bytes
	kKeepMin = 8,	// at least MRC_WIRE_MIN_PKT_LEN (in a packet bundle)
};

// The most bytes a nearly valid packet has over the valid one it came from
// (except "too-long").
constexpr uint32_t kExtraMax = 16;

// Nearly valid: one field of @p off. Returns the verdict a receiver's
// stateless checks must give (MRC_WIRE_OK when the field is one only
// the connection can judge: cookie, PSN, MSN, path, QPN) and appends the
// mutation's name to @what.
mrc_wire_reason mutate(Rng &r, const Aim &aim, Pkt &p, unsigned keep,
		       std::string &what);

// The names of every mutation, for the tests' coverage check.
std::vector<std::string> mutation_names();

const char *type_name(uint8_t type);

// The bundles of bundle.cc: each appends its bytes to d.bytes and its
// packets' meant verdicts to d.meant, and adds to d.what.
void ack_bundle(Rng &r, const Aim &aim, Datagram &d);
void packet_bundle(Rng &r, const Aim &aim, Datagram &d);
// A datagram of random bytes, some shaped like packets or bundles.
void random_datagram(Rng &r, const Aim &aim, Datagram &d);

}  // namespace mrc_netfuzz::detail
