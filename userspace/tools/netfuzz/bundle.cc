// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// ACK bundles ([ENC-9]) and packet bundles ([ENC-13]) of valid, nearly
// valid and out-of-place packets, and bundles whose layout is off: a
// count, a length, the padding, the tail.
#include <algorithm>

#include "internal.h"

namespace mrc_netfuzz::detail {

namespace {

void append(Datagram &d, const std::vector<uint8_t> &b)
{
	d.bytes.insert(d.bytes.end(), b.begin(), b.end());
}

// A datagram that is no bundle after all is one packet: its verdict.
mrc_wire_reason as_one_packet(const Datagram &d)
{
	return d.bytes[MRC_WO_VERSION] != MRC_WIRE_VERSION ?
	       MRC_WIRE_E_BAD_VERSION : MRC_WIRE_E_BAD_CRC;
}

// The receiver's rule for a packet bundle's parts ([ENC-13], as
// verdict.cc): a UD_SEND, and a packet for another QP than the first
// valid one, are dropped.
struct FirstQpn {
	bool seen = false;
	uint32_t qpn = 0;

	mrc_wire_reason judge(mrc_wire_reason why, const Pkt &k)
	{
		if (why != MRC_WIRE_OK)
			return why;
		if (k.p.type == MRC_PKT_UD_SEND)
			return MRC_WIRE_E_BAD_TYPE;
		if (seen && k.p.dst_qpn != qpn)
			return MRC_WIRE_E_BAD_FIELD;
		seen = true;
		qpn = k.p.dst_qpn;
		return MRC_WIRE_OK;
	}
};

// A type whose smallest valid packet, with some payload, fits @room.
uint8_t fitting_type(Rng &r, uint32_t room, bool ud)
{
	uint8_t t;

	do
		t = static_cast<uint8_t>(r.range(1, MRC_PKT_TYPE_MAX));
	while (min_len(t) + 8 > room || (t == MRC_PKT_UD_SEND) != ud);
	return t;
}

// The layout of a packet bundle made wrong; its one verdict.
mrc_wire_reason bad_layout(Rng &r, Datagram &d, uint32_t n, std::string &what)
{
	auto &b = d.bytes;
	uint32_t hlen = mrc_wire_pbundle_hdr_len(n);
	uint32_t j = r.below(n), at = MRC_WO_PBUNDLE_LENS + 2 * j;

	for (;;) {
		switch (r.below(11)) {
		case 0:
			what = "count-low";
			b[MRC_WO_PBUNDLE_COUNT] = static_cast<uint8_t>(r.below(2));
			return MRC_WIRE_E_BAD_LENGTH;
		case 1:
			what = "count-high";
			b[MRC_WO_PBUNDLE_COUNT] = static_cast<uint8_t>(r.range(33, 255));
			return MRC_WIRE_E_BAD_LENGTH;
		case 2:
			what = "count-off";
			b[MRC_WO_PBUNDLE_COUNT] = static_cast<uint8_t>(
				n == MRC_WIRE_PBUNDLE_MAX || r.chance(1, 2) ? n - 1 : n + 1);
			return kAnyFailure;
		case 3:
			what = "reserved";
			b[MRC_WO_PBUNDLE_RSVD] = static_cast<uint8_t>(r.range(1, 255));
			return MRC_WIRE_E_RESERVED;
		case 4:
			if (n % 2 == 0)
				continue;
			what = "padding";
			mrc_put_be16(&b[MRC_WO_PBUNDLE_LENS + 2 * n],
				     static_cast<uint16_t>(r.range(1, 0xffff)));
			return MRC_WIRE_E_RESERVED;
		case 5:
			what = "length-short";
			mrc_put_be16(&b[at], static_cast<uint16_t>(r.below(MRC_WIRE_MIN_PKT_LEN)));
			return MRC_WIRE_E_BAD_LENGTH;
		case 6: {
			uint16_t v = mrc_get_be16(&b[at]);

			what = "length-sum";
			v = static_cast<uint16_t>(r.chance(1, 2) ? v + r.range(1, 32) :
						  v - r.range(1, 32));
			mrc_put_be16(&b[at], v);
			return MRC_WIRE_E_BAD_LENGTH;
		}
		case 7: {
			size_t tail = r.range(1, 64);

			what = "trailing";
			b.resize(b.size() + tail);
			r.fill(&b[b.size() - tail], tail);
			return MRC_WIRE_E_BAD_LENGTH;
		}
		case 8:
			what = "table-cut";
			b.resize(r.below(hlen));
			return MRC_WIRE_E_TRUNCATED;
		case 9:
			what = "version";
			b[MRC_WO_VERSION] = static_cast<uint8_t>(r.chance(1, 2) ? 0 : r.range(2, 255));
			return MRC_WIRE_E_BAD_VERSION;
		default:
			what = "packets-cut";
			b.resize(r.range(hlen + 1, static_cast<uint32_t>(b.size()) - 1));
			return MRC_WIRE_E_BAD_LENGTH;
		}
	}
}

}  // namespace

void ack_bundle(Rng &r, const Aim &aim, Datagram &d)
{
	uint32_t shape = r.below(10);
	// shape 0: one ACK more than a bundle holds; 1: a ragged tail
	uint32_t n = shape == 0 ? MRC_WIRE_BUNDLE_MAX + 1 :
		     r.range(2, MRC_WIRE_BUNDLE_MAX);

	d.what = "ack-bundle";
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = r.below(20);
		mrc_wire_reason why = MRC_WIRE_OK;
		std::string m = "ok";
		Pkt k;

		if (i > 0 && c >= 17) {
			// a valid packet of the size of an ACK, but no ACK
			static const uint8_t types[] = {
				MRC_PKT_SEND, MRC_PKT_PROBE, MRC_PKT_UD_SEND,
			};
			uint8_t t = types[r.below(sizeof(types))];

			k = build_sized(r, aim, t, MRC_WIRE_ACK_PKT_LEN);
			why = MRC_WIRE_E_BAD_TYPE;
			m = type_name(t);
		} else {
			k = build(r, aim, MRC_PKT_ACK, MRC_WIRE_ACK_PKT_LEN, false);
			if (c >= 12) {
				m.clear();
				why = mutate(r, aim, k, kKeepLen | kNoHuge |
					     (i ? 0u : unsigned{kKeepType}), m);
			}
		}
		append(d, k.bytes);
		d.meant.push_back(why);
		d.what += " " + m;
	}
	if (shape == 1) {
		size_t tail = r.range(1, MRC_WIRE_ACK_PKT_LEN - 1);

		d.bytes.resize(d.bytes.size() + tail);
		r.fill(&d.bytes[d.bytes.size() - tail], tail);
		d.what += " +tail";
	}
	if (shape <= 1) {
		d.meant = { as_one_packet(d) };
		d.what += n > MRC_WIRE_BUNDLE_MAX ? " (9 ACKs: one packet)" :
						    " (one packet)";
	}
}

void packet_bundle(Rng &r, const Aim &aim, Datagram &d)
{
	// room for a tail of up to 64 bytes (bad_layout())
	uint32_t budget = aim.cfg->max_len - 64, n, per;
	std::vector<uint16_t> lens;
	std::vector<uint8_t> body;
	FirstQpn first;
	std::string m;

	if (aim.cfg->big && r.chance(1, 64)) {
		budget = MRC_WIRE_MAX_PKT_LEN - 64;	// fragmented
		d.big = true;
	}
	n = r.range(MRC_WIRE_PBUNDLE_MIN, MRC_WIRE_PBUNDLE_MAX);
	while (n > MRC_WIRE_PBUNDLE_MIN &&
	       (budget - mrc_wire_pbundle_hdr_len(n)) / n < 64 + kExtraMax)
		n--;
	// each packet, nearly valid ones with their extra bytes, in its share
	per = (budget - mrc_wire_pbundle_hdr_len(n)) / n - kExtraMax;
	d.what = "packet-bundle";
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = r.below(20);
		mrc_wire_reason why = MRC_WIRE_OK;
		Pkt k;

		m = "ok";
		if (c < 2) {
			k = build(r, aim, fitting_type(r, per, true), per, false);
			m = "UD_SEND";
		} else if (c < 3) {
			Aim other = aim;

			other.qpn = (aim.qpn + r.range(1, 8)) & MRC_WIRE_QPN_MASK;
			k = build(r, other, fitting_type(r, per, false), per, false);
			m = "other-qpn";
		} else {
			k = build(r, aim, fitting_type(r, per, false), per, false);
			if (c >= 14) {
				m.clear();
				why = mutate(r, aim, k, kNoHuge | kKeepMin, m);
			}
		}
		why = first.judge(why, k);
		d.meant.push_back(why);
		d.what += std::string(" ") + type_name(k.p.type) + ":" + m;
		lens.push_back(static_cast<uint16_t>(k.bytes.size()));
		body.insert(body.end(), k.bytes.begin(), k.bytes.end());
	}
	d.bytes.resize(mrc_wire_pbundle_hdr_len(n));
	mrc_wire_pbundle_encode_hdr(lens.data(), n, d.bytes.data(),
				    static_cast<uint32_t>(d.bytes.size()));
	append(d, body);
	if (r.chance(1, 4)) {
		d.meant = { bad_layout(r, d, n, m) };
		d.what += " layout:" + m;
	}
}

}  // namespace mrc_netfuzz::detail
