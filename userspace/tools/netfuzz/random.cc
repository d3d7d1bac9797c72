// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Random datagrams: plain bytes, and bytes shaped just enough (version,
// type, header length, a live QPN, a valid ICRC) to get past the first
// checks and into the ones behind them.
#include <algorithm>

#include "internal.h"

namespace mrc_netfuzz::detail {

namespace {

// Random bytes behind a plausible base header of @type for @qpn.
void random_packet(Rng &r, const Aim &aim, uint8_t type, uint8_t *b,
		   uint32_t len)
{
	uint16_t flags;

	r.fill(b, len);
	if (len < MRC_WIRE_BASE_LEN)
		return;
	if (r.chance(7, 8))
		b[MRC_WO_VERSION] = MRC_WIRE_VERSION;
	b[MRC_WO_TYPE] = type;
	flags = mrc_get_be16(b + MRC_WO_FLAGS);
	if (r.chance(3, 4)) {
		flags &= 0x01ff;
		mrc_put_be16(b + MRC_WO_FLAGS, flags);
	}
	if (r.chance(3, 4))
		b[MRC_WO_HDR_WORDS] = static_cast<uint8_t>(
			(MRC_WIRE_BASE_LEN + mrc_wire_ext_len(type) +
			 ((flags & (MRC_F_IMM | MRC_F_INV)) ? MRC_WIRE_IMM_LEN : 0)) / 4);
	if (r.chance(3, 4))
		mrc_put_be32(b + MRC_WO_DST_QPN, aim.qpn);
	if (len >= MRC_WIRE_MIN_PKT_LEN && r.chance(3, 4))
		mrc_wire_seal(b, len - MRC_WIRE_ICRC_LEN);
}

void random_ack_bundle(Rng &r, const Aim &aim, Datagram &d)
{
	uint32_t n = r.range(2, MRC_WIRE_BUNDLE_MAX);

	d.bytes.resize(n * MRC_WIRE_ACK_PKT_LEN);
	for (uint32_t i = 0; i < n; i++)
		random_packet(r, aim, MRC_PKT_ACK,
			      &d.bytes[i * MRC_WIRE_ACK_PKT_LEN],
			      MRC_WIRE_ACK_PKT_LEN);
	d.what = "random ack-bundle of " + std::to_string(n);
}

void random_packet_bundle(Rng &r, const Aim &aim, Datagram &d)
{
	uint32_t n = r.range(MRC_WIRE_PBUNDLE_MIN, MRC_WIRE_PBUNDLE_MAX);
	uint32_t room = aim.cfg->max_len - mrc_wire_pbundle_hdr_len(n), off;
	std::vector<uint16_t> lens(n);

	for (auto &l : lens) {
		l = static_cast<uint16_t>(r.range(MRC_WIRE_MIN_PKT_LEN,
			std::max<uint32_t>(MRC_WIRE_MIN_PKT_LEN, room / n)));
		if (r.chance(1, 64))
			l = static_cast<uint16_t>(r.below(MRC_WIRE_MIN_PKT_LEN));
	}
	off = mrc_wire_pbundle_hdr_len(n);
	d.bytes.resize(off);
	if (mrc_wire_pbundle_encode_hdr(lens.data(), n, d.bytes.data(), off) !=
	    MRC_WIRE_OK) {
		// a length under the minimum: the table as it is
		d.bytes[MRC_WO_VERSION] = MRC_WIRE_VERSION;
		d.bytes[MRC_WO_TYPE] = MRC_PKT_BUNDLE;
		d.bytes[MRC_WO_PBUNDLE_COUNT] = static_cast<uint8_t>(n);
		d.bytes[MRC_WO_PBUNDLE_RSVD] = 0;
		for (uint32_t i = 0; i < n; i++)
			mrc_put_be16(&d.bytes[MRC_WO_PBUNDLE_LENS + 2 * i], lens[i]);
		if (n % 2)
			mrc_put_be16(&d.bytes[MRC_WO_PBUNDLE_LENS + 2 * n], 0);
	}
	for (uint32_t i = 0; i < n; i++) {
		d.bytes.resize(off + lens[i]);
		random_packet(r, aim, static_cast<uint8_t>(r.range(1, MRC_PKT_TYPE_MAX)),
			      &d.bytes[off], lens[i]);
		off += lens[i];
	}
	if (r.chance(1, 8))	// one random byte in the header or table
		d.bytes[r.below(mrc_wire_pbundle_hdr_len(n))] = static_cast<uint8_t>(r.u32());
	d.what = "random packet-bundle of " + std::to_string(n);
}

}  // namespace

void random_datagram(Rng &r, const Aim &aim, Datagram &d)
{
	uint32_t max = aim.cfg->max_len;

	switch (r.below(5)) {
	case 0:
		d.bytes.resize(r.chance(1, 4) ? r.below(128) : r.range(0, max));
		r.fill(d.bytes.data(), d.bytes.size());
		d.what = "random bytes";
		break;
	case 1: {
		uint8_t t = static_cast<uint8_t>(r.range(1, MRC_PKT_TYPE_MAX));

		d.bytes.resize(r.chance(1, 2) ? r.range(MRC_WIRE_MIN_PKT_LEN, 128) :
			       r.range(MRC_WIRE_MIN_PKT_LEN, max));
		random_packet(r, aim, t, d.bytes.data(),
			      static_cast<uint32_t>(d.bytes.size()));
		d.what = std::string("random ") + type_name(t);
		break;
	}
	case 2: {
		// a valid packet with a few bytes made random
		uint8_t t = static_cast<uint8_t>(r.range(1, MRC_PKT_TYPE_MAX));
		Pkt k = build(r, aim, t, max, false);
		uint32_t n = r.range(1, 8);

		d.bytes = k.bytes;
		for (uint32_t i = 0; i < n; i++)
			d.bytes[r.below(static_cast<uint32_t>(d.bytes.size()))] =
				static_cast<uint8_t>(r.u32());
		if (r.chance(3, 4))
			seal(d.bytes);
		d.what = std::string("random bytes over ") + type_name(t);
		break;
	}
	case 3:
		random_ack_bundle(r, aim, d);
		break;
	default:
		random_packet_bundle(r, aim, d);
		break;
	}
}

}  // namespace mrc_netfuzz::detail
