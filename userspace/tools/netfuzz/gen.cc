// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Datagram i of a run: its target, source address and port, and its
// class (valid, nearly valid, random, ACK bundle, packet bundle) drawn
// from Rng(seed, i), the packets from build.cc, mutate.cc, bundle.cc and
// random.cc; last, the guard that keeps protected connections' cookies
// away from the right source.
#include <algorithm>

#include "gen.h"
#include "internal.h"
#include "verdict.h"

namespace mrc_netfuzz {

using detail::Aim;
using detail::Pkt;

const char *role_name(Role r)
{
	switch (r) {
	case Role::None: return "qp0";
	case Role::Gsi: return "gsi";
	case Role::Rc: return "rc";
	case Role::Ud: return "ud";
	case Role::Uc: return "uc";
	case Role::Dead: return "dead";
	case Role::Near: return "near";
	case Role::Random: return "random";
	}
	return "?";
}

const char *fate_name(Fate f)
{
	static const char *const names[kFates] = {
		"malformed", "oversize", "no_mad", "no_qp", "qp_type", "qkey",
		"dropped", "may",
	};

	return names[static_cast<int>(f)];
}

const char *class_name(Class c)
{
	switch (c) {
	case Class::Valid: return "valid";
	case Class::Nearly: return "nearly";
	case Class::Random: return "random";
	case Class::AckBundle: return "ack-bundle";
	case Class::PktBundle: return "packet-bundle";
	}
	return "?";
}

namespace {

// Ports from the seed: most in the range senders use ([ENC-3]), some
// anywhere, for a receiver must take any.
std::vector<uint16_t> pick_ports(const Config &cfg)
{
	Rng r(cfg.seed, ~0ull);
	std::vector<uint16_t> v;

	while (v.size() < std::max(cfg.ports, 1u)) {
		uint16_t p = static_cast<uint16_t>(r.chance(3, 4) ?
			r.range(MRC_WIRE_SPORT_MIN, MRC_WIRE_SPORT_MAX) :
			r.range(1024, MRC_WIRE_SPORT_MIN - 1));

		if (p != cfg.dport && std::find(v.begin(), v.end(), p) == v.end())
			v.push_back(p);
	}
	return v;
}

uint32_t pick_qpn(Rng &r, const Target &t)
{
	switch (t.role) {
	case Role::None:
		return 0;
	case Role::Gsi:
		return MRC_WIRE_GSI_QPN;
	case Role::Near:
		return r.range(t.qpn, std::max(t.qpn, t.qpn_hi));
	case Role::Random:
		return r.range(kUnusedQpn, MRC_WIRE_QPN_MASK);
	default:
		return t.qpn;
	}
}

}  // namespace

Generator::Generator(Config cfg) : cfg_(std::move(cfg))
{
	Target t;

	targets_ = cfg_.targets;
	t.role = Role::None;
	targets_.push_back(t);
	t.role = Role::Gsi;
	t.qpn = MRC_WIRE_GSI_QPN;
	targets_.push_back(t);
	t.role = Role::Random;
	t.qpn = 0;
	targets_.push_back(t);
	ports_ = pick_ports(cfg_);
	cfg_.max_len = std::clamp(cfg_.max_len, 512u, static_cast<uint32_t>(MRC_WIRE_MAX_PKT_LEN));
	cfg_.npaths = std::clamp(cfg_.npaths, 1u, 255u);
}

// [PKT-16] A protected connection never sees one of its cookies from the
// right source address, however the bytes came about (random ones too).
void Generator::guard(Datagram &d, const std::vector<Part> &parts) const
{
	if (cfg_.spoof_protected && (d.source != 0 || d.v6))
		return;
	for (const Part &p : parts) {
		uint8_t *b = d.bytes.data() + p.off;
		bool sealed;
		uint32_t qpn, cookie;

		if (p.len < MRC_WIRE_BASE_LEN || b[MRC_WO_TYPE] == MRC_PKT_UD_SEND)
			continue;
		qpn = mrc_get_be32(b + MRC_WO_DST_QPN);
		cookie = mrc_get_be32(b + MRC_WO_COOKIE);
		for (const Target &t : targets_) {
			if (!t.protect || t.qpn != qpn ||
			    (cookie != t.rq_psn && cookie != t.sq_psn))
				continue;
			sealed = p.len >= MRC_WIRE_MIN_PKT_LEN &&
				 mrc_wire_icrc(b, p.len - MRC_WIRE_ICRC_LEN) ==
				 mrc_get_be32(b + p.len - MRC_WIRE_ICRC_LEN);
			do
				cookie ^= 0x80000000u >> (cookie & 31);
			while (cookie == t.rq_psn || cookie == t.sq_psn);
			mrc_put_be32(b + MRC_WO_COOKIE, cookie);
			if (sealed)
				mrc_wire_seal(b, p.len - MRC_WIRE_ICRC_LEN);
			d.what += " (cookie guarded)";
		}
	}
}

// [SEC-10] What the receiver must do with each packet, from its bytes,
// the QPs the run knows and where it came from: the generator's intent
// plays no part, so random packets are judged as well as meant ones.
Fate Generator::judge(const Part &p, bool right_source) const
{
	const mrc_pkt &k = p.pkt;
	bool ud = k.type == MRC_PKT_UD_SEND;

	if (p.reason != MRC_WIRE_OK)
		return Fate::Malformed;
	if (k.dst_qpn == 0 || k.dst_qpn >= kUnusedQpn)
		return Fate::NoQp;
	if (k.dst_qpn == MRC_WIRE_GSI_QPN) {
		// [PKT-86] datagrams with QP 1's Q_Key and at most a MAD
		if (!ud)
			return Fate::QpType;
		if (k.ud.qkey != MRC_WIRE_GSI_QKEY)
			return Fate::QKey;
		if (k.payload_len > detail::kMadSize)
			return Fate::Oversize;
		return k.payload_len < detail::kMadHdr ||
		       k.payload[0] != detail::kMadBaseVersion ? Fate::NoMad : Fate::May;
	}
	for (const Target &t : cfg_.targets) {
		bool ctrl = detail::is_ctrl(k.type);

		if (t.qpn != k.dst_qpn || t.role == Role::Near)
			continue;
		// a QP may be gone by now: dropped, but why is its state's
		// [SEC-10] a UC connection as RC's, but no cookie of its
		// is known here: nothing can match one
		if (t.role == Role::Uc)
			return Fate::Dropped;
		if (t.role == Role::Ud)
			return !ud || k.ud.qkey != t.qkey ? Fate::Dropped : Fate::May;
		// [SEC-3] the peer's address; [PKT-16] the cookie (data with
		// the other direction's may make a connection follow its peer)
		if (ud || !right_source || !t.cookies)
			return Fate::Dropped;
		if (t.role == Role::Dead)
			return !ctrl && k.cookie == t.rq_psn ? Fate::May : Fate::Dropped;
		if (ctrl ? k.cookie == t.sq_psn :
			   k.cookie == t.rq_psn || k.cookie == t.sq_psn)
			return Fate::May;
		return Fate::Dropped;
	}
	return Fate::May;
}

void Generator::judge(Datagram &d, const std::vector<Part> &parts) const
{
	for (const Part &p : parts)
		d.fates.push_back(judge(p, d.source == 0 && !d.v6));
}

Datagram Generator::make(uint64_t index) const
{
	Rng r(cfg_.seed, index);
	Datagram d;
	Aim aim;
	unsigned keep = 0;
	uint32_t pick;

	d.index = index;
	d.target = r.below(static_cast<uint32_t>(targets_.size()));
	if (cfg_.sources > 1 && r.chance(1, 4))
		d.source = r.range(1, cfg_.sources - 1);
	d.v6 = cfg_.v6 && r.chance(1, 4);
	d.sport = ports_[r.below(static_cast<uint32_t>(ports_.size()))];

	const Target &t = targets_[d.target];
	aim.cfg = &cfg_;
	aim.t = &t;
	aim.qpn = pick_qpn(r, t);
	d.qpn = aim.qpn;
	// the connections' peer is at the first IPv4 source address
	aim.right_source = d.source == 0 && !d.v6;
	aim.allow_right = (t.role == Role::Rc || t.role == Role::Dead) &&
			  (!t.protect || (cfg_.spoof_protected && !aim.right_source));
	if (!d.v6 || !cfg_.big)
		keep |= detail::kNoHuge;

	pick = r.below(100);
	if (pick < 25) {
		uint8_t type = static_cast<uint8_t>(r.range(1, MRC_PKT_TYPE_MAX));
		bool big = cfg_.big && detail::has_payload(type) && r.chance(1, 64);
		Pkt k = detail::build(r, aim, type, cfg_.max_len, big);

		d.cls = Class::Valid;
		d.big = big;
		d.bytes = k.bytes;
		d.meant = { MRC_WIRE_OK };
		d.what = std::string("valid ") + detail::type_name(type) +
			 (k.right ? " right" : k.other ? " other" : " wrong") +
			 (type == MRC_PKT_UD_SEND ? "-qkey" : "-cookie") +
			 (big ? " big" : "");
	} else if (pick < 60) {
		uint8_t type = static_cast<uint8_t>(r.range(1, MRC_PKT_TYPE_MAX));
		Pkt k = detail::build(r, aim, type, cfg_.max_len, false);
		std::string m;
		mrc_wire_reason why = detail::mutate(r, aim, k, keep, m);

		d.cls = Class::Nearly;
		d.big = m == "too-long";
		d.bytes = k.bytes;
		d.meant = { why };
		d.what = std::string("nearly ") + detail::type_name(type) + " " + m;
	} else if (pick < 75) {
		d.cls = Class::Random;
		detail::random_datagram(r, aim, d);
	} else if (pick < 85) {
		d.cls = Class::AckBundle;
		detail::ack_bundle(r, aim, d);
	} else {
		d.cls = Class::PktBundle;
		detail::packet_bundle(r, aim, d);
	}
	// the guard changes no verdict: it reseals what was sealed
	std::vector<Part> parts = receive(d.bytes.data(), d.bytes.size());
	guard(d, parts);
	judge(d, parts);
	return d;
}

}  // namespace mrc_netfuzz
