// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The network fuzzer's generator: datagram number i of a run is a pure
// function of the run's Config and i. It writes every packet with the
// protocol core's encoder (kernel/core/wire.h), so valid packets are
// exactly what a peer sends, and derives the rest from them: nearly
// valid ones (one field off, the reason a receiver must give known in
// advance), random ones, ACK bundles ([ENC-9]) and packet bundles
// ([ENC-13]) of all three.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "core/wire.h"
}

namespace mrc_netfuzz {

// What a destination QP number is on the target host.
enum class Role : uint8_t {
	None,	// QP 0: no such QP on a RoCE-like device
	Gsi,	// QP 1
	Rc,	// a live connected QP
	Ud,	// a live datagram QP
	Uc,	// a live UC QP, its cookies not given (use --rc to give them)
	Dead,	// destroyed: it may linger ([REL-21]) or be gone
	Near,	// any number of a range: live, lingering, gone or not yet used
	Random,	// a number far from any in use (kUnusedQpn and up)
};

// QPNs from here up are never in use on the target: a host hands out
// numbers from 16 upwards, and the bed's never come near.
constexpr uint32_t kUnusedQpn = 0x10000;

const char *role_name(Role r);

struct Target {
	Role role = Role::Random;
	uint32_t qpn = 0;	// Near: the lowest of the range
	uint32_t qpn_hi = 0;	// Near: the highest
	// Rc, Dead: the cookies of the connection without a hello ([PKT-16]):
	// data to the QP carries its rq_psn, ACKs, NAKs and PROBEs its sq_psn
	bool cookies = false;
	uint32_t rq_psn = 0;
	uint32_t sq_psn = 0;
	uint32_t qkey = 0;	// Ud
	// Rc: a connection whose traffic must survive: it never gets its
	// right cookie from the right source address
	bool protect = false;
};

struct Config {
	uint64_t seed = 1;
	std::vector<Target> targets;	// QP 0, QP 1 and random QPNs are added
	uint32_t sources = 1;		// source addresses; 0 is the peer's own
	bool v6 = false;		// the target also has an IPv6 address
	uint32_t ports = 32;		// distinct UDP source ports
	uint32_t npaths = 4;		// paths a connection accepts ([PKT-91])
	uint32_t max_len = 1452;	// largest datagram sent unfragmented
	bool big = true;		// now and then a fragmented one, to 65527
	// protected connections get their right cookie from a wrong source
	// address (for a receiver that checks sources, [SEC-3]); their peer
	// is at source address 0, over IPv4
	bool spoof_protected = false;
	uint16_t dport = MRC_WIRE_UDP_PORT;	// no source port equals it
};

enum class Class : uint8_t { Valid, Nearly, Random, AckBundle, PktBundle };

// What a receiver that follows [SEC-10] must do with a packet, and the
// drop counter it must count it in (rdma statistic: rx_drop_*).
enum class Fate : uint8_t {
	Malformed,	// refused by the stateless checks ([PKT-99]): malformed
	Oversize,	// a datagram over a MAD's 256 bytes for QP 1: malformed
	NoMad,		// one for QP 1 that ib_mad refuses (under a MAD header,
			// base version not 1): malformed where the receiver
			// filters them, else taken (and ib_mad logs it)
	NoQp,		// for QP 0 or a number far from any in use: no_qp
	QpType,		// a connection's packet for a datagram QP: qp_type
	QKey,		// a datagram for QP 1 with the wrong Q_Key: qkey
	Dropped,	// dropped; the counter depends on the QP's state (a
			// wrong source, cookie or QP type, or the QP gone)
	May,		// taken or dropped, as the receiver's state has it
};
constexpr int kFates = 8;

const char *fate_name(Fate f);

const char *class_name(Class c);

// A meant verdict that is some reason other than MRC_WIRE_OK, which one
// depending on bytes the generator does not choose.
constexpr mrc_wire_reason kAnyFailure = MRC_WIRE_REASON_COUNT;

struct Datagram {
	uint64_t index = 0;
	std::vector<uint8_t> bytes;
	Class cls = Class::Valid;
	uint32_t target = 0;	// into Generator::targets()
	uint32_t qpn = 0;	// the target's QPN chosen
	uint32_t source = 0;	// source address; 0: the right one
	bool v6 = false;
	uint16_t sport = 0;
	std::string what;	// what was made, for humans
	bool big = false;	// over Config::max_len on purpose: fragmented
	// one per packet a receiver tells apart in the datagram ([PKT-99]
	// step 0): the verdict of its stateless checks the generator meant,
	// MRC_WIRE_OK for a packet meant valid; empty for Class::Random
	std::vector<mrc_wire_reason> meant;
	// per packet, what the receiver must do with it
	std::vector<Fate> fates;
};

struct Part;	// verdict.h

class Generator {
public:
	explicit Generator(Config cfg);

	Datagram make(uint64_t index) const;

	const Config &config() const { return cfg_; }
	// cfg.targets, then QP 0, QP 1 and random numbers
	const std::vector<Target> &targets() const { return targets_; }
	// the source ports of the run, from its seed
	const std::vector<uint16_t> &ports() const { return ports_; }

private:
	void guard(Datagram &d, const std::vector<Part> &parts) const;
	Fate judge(const Part &p, bool right_source) const;
	void judge(Datagram &d, const std::vector<Part> &parts) const;

	Config cfg_;
	std::vector<Target> targets_;
	std::vector<uint16_t> ports_;
};

}  // namespace mrc_netfuzz
