// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// libFuzzer target for the MetaRoCE wire parser (and the CM hello parser).
//
// Properties checked on every input:
//  - mrc_wire_parse() never reads outside the input (ASan) nor hits UB;
//  - a packet that parses re-encodes to exactly the same bytes;
//  - mrc_wire_parse_hdr() agrees with mrc_wire_parse() on headers;
//  - a hello that parses re-encodes to the same 24 bytes;
//  - an ACK bundle ([ENC-9]) splits into whole ACK-sized packets only;
//  - a packet bundle ([ENC-13]) that splits covers the datagram exactly
//    with packets in order, each then parsed on its own.
// Most random inputs fail the ICRC, which would hide the structure checks
// from the fuzzer, so when the first byte is even the harness drops it and
// seals the rest with a correct ICRC before parsing. (A real packet starts
// with version 1, odd, and is parsed as it is.)
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "core/wire.h"
}

static void check_packet(const u8 *buf, u32 len)
{
	mrc_pkt pkt, hdr;
	if (mrc_wire_parse(buf, len, &pkt) != MRC_WIRE_OK) {
		// without the ICRC, parse_hdr may accept; it must not crash
		(void)mrc_wire_parse_hdr(buf, len, len, &hdr);
		if (len > 40)
			(void)mrc_wire_parse_hdr(buf, 40, len, &hdr);
		return;
	}
	if (pkt.payload_len && !pkt.payload)
		abort();
	std::vector<u8> out(len);
	u32 out_len = 0;
	if (mrc_wire_encode(&pkt, out.data(), len, &out_len) != MRC_WIRE_OK)
		abort();
	if (out_len != len || memcmp(out.data(), buf, len))
		abort();

	if (mrc_wire_parse_hdr(buf, pkt.hdr_len, len, &hdr) != MRC_WIRE_OK)
		abort();
	if (hdr.type != pkt.type || hdr.flags != pkt.flags ||
	    hdr.psn != pkt.psn || hdr.payload_len != pkt.payload_len ||
	    hdr.hdr_len != pkt.hdr_len)
		abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MRC_WIRE_MAX_PKT_LEN + 1)
		return 0;

	// [ENC-9] a bundle's ACKs, each on its own
	u32 n = mrc_wire_bundle_count(data, (u32)size);
	if (n > 1) {
		if (n > MRC_WIRE_BUNDLE_MAX || n * MRC_WIRE_ACK_PKT_LEN != size)
			abort();
		for (u32 i = 0; i < n; i++)
			check_packet(data + i * MRC_WIRE_ACK_PKT_LEN,
				     MRC_WIRE_ACK_PKT_LEN);
	}

	// [ENC-13] a packet bundle's packets, each on its own
	mrc_wire_pbundle pb;
	if (mrc_wire_pbundle_parse(data, (u32)size, (u32)size, &pb) ==
	    MRC_WIRE_OK) {
		u32 end = pb.hdr_len;
		if (pb.count < MRC_WIRE_PBUNDLE_MIN ||
		    pb.count > MRC_WIRE_PBUNDLE_MAX ||
		    pb.hdr_len != mrc_wire_pbundle_hdr_len(pb.count))
			abort();
		for (u32 i = 0; i < pb.count; i++) {
			if (pb.off[i] != end || pb.len[i] < MRC_WIRE_MIN_PKT_LEN)
				abort();
			check_packet(data + pb.off[i], pb.len[i]);
			end += pb.len[i];
		}
		if (end != size)
			abort();
		std::vector<u8> hdr(pb.hdr_len);
		if (mrc_wire_pbundle_encode_hdr(pb.len, pb.count, hdr.data(),
						pb.hdr_len) != MRC_WIRE_OK ||
		    memcmp(hdr.data(), data, pb.hdr_len))
			abort();
	}

	if (size >= 1 && !(data[0] & 1)) {
		std::vector<u8> b(data + 1, data + size);
		if (b.size() >= MRC_WIRE_ICRC_LEN)
			mrc_wire_seal(b.data(), (u32)b.size() - MRC_WIRE_ICRC_LEN);
		check_packet(b.data(), (u32)b.size());
	} else {
		check_packet(data, (u32)size);
	}

	mrc_hello h;
	if (mrc_hello_parse(data, (u32)size, &h) == MRC_WIRE_OK) {
		u8 out[MRC_HELLO_LEN];
		if (mrc_hello_encode(&h, out, sizeof(out)) != MRC_WIRE_OK ||
		    memcmp(out, data, MRC_HELLO_LEN))
			abort();
	}
	return 0;
}
