// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "verdict.h"

namespace mrc_netfuzz {

namespace {

Part parse(const uint8_t *b, uint32_t off, uint32_t len)
{
	Part p;

	p.off = off;
	p.len = len;
	p.reason = mrc_wire_parse(b + off, len, &p.pkt);
	return p;
}

// [ENC-13]: the layout first; then each packet on its own, a datagram
// dropped, and one for another QP than the first valid packet's too.
std::vector<Part> packet_bundle(const uint8_t *b, uint32_t len)
{
	std::vector<Part> parts;
	mrc_wire_pbundle pb;
	bool first = true;
	uint32_t qpn = 0;
	mrc_wire_reason r = mrc_wire_pbundle_parse(b, len, len, &pb);

	if (r != MRC_WIRE_OK) {
		Part whole;

		whole.len = len;
		whole.reason = r;
		return { whole };
	}
	for (uint32_t i = 0; i < pb.count; i++) {
		Part p = parse(b, pb.off[i], pb.len[i]);

		if (p.reason == MRC_WIRE_OK && p.pkt.type == MRC_PKT_UD_SEND)
			p.reason = MRC_WIRE_E_BAD_TYPE;
		else if (p.reason == MRC_WIRE_OK && !first && p.pkt.dst_qpn != qpn)
			p.reason = MRC_WIRE_E_BAD_FIELD;
		if (p.reason == MRC_WIRE_OK && first) {
			first = false;
			qpn = p.pkt.dst_qpn;
		}
		parts.push_back(p);
	}
	return parts;
}

}  // namespace

std::vector<Part> receive(const uint8_t *b, size_t size)
{
	uint32_t len = size > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(size);
	std::vector<Part> parts;
	uint32_t n;

	if (mrc_wire_is_pbundle(b, len))
		return packet_bundle(b, len);
	n = len ? mrc_wire_bundle_count(b, len) : 1;
	if (n == 1)
		return { parse(b, 0, len) };
	for (uint32_t i = 0; i < n; i++) {
		Part p = parse(b, i * MRC_WIRE_ACK_PKT_LEN, MRC_WIRE_ACK_PKT_LEN);

		// [ENC-9] only ACKs are bundled
		if (p.reason == MRC_WIRE_OK && p.pkt.type != MRC_PKT_ACK)
			p.reason = MRC_WIRE_E_BAD_TYPE;
		parts.push_back(p);
	}
	return parts;
}

}  // namespace mrc_netfuzz
