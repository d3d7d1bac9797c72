// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// libFuzzer target for the encoder side of the wire format.
//
// The input is read as a packet description (struct mrc_pkt fields, then
// payload bytes; see wire_fuzz_input.h). Properties:
//  - mrc_wire_encode() and mrc_wire_encode_hdr() never write outside the
//    buffer they are given, whatever the description says;
//  - whatever the encoder accepts, the parser accepts, and the parsed
//    packet encodes to the same bytes ("we never emit what we reject");
//  - the encoder accepts exactly what mrc_wire_check() accepts.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz/wire_fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mrc_pkt p;
	std::vector<u8> payload;
	if (!mrc_fuzz::pkt_from_bytes(data, size, &p, &payload))
		return 0;

	auto check = mrc_wire_check(&p);
	u32 need = mrc_wire_hdr_len(&p) + p.payload_len + MRC_WIRE_ICRC_LEN;
	std::vector<u8> buf(need);
	u32 len = 0;
	auto r = mrc_wire_encode(&p, buf.data(), (u32)buf.size(), &len);
	if (r != check)
		abort();
	if (r != MRC_WIRE_OK)
		return 0;
	if (len != need)
		abort();

	// one byte short: refused, nothing written past the end (ASan)
	std::vector<u8> small(need - 1);
	if (mrc_wire_encode(&p, small.data(), (u32)small.size(), &len) !=
	    MRC_WIRE_E_NO_SPACE)
		abort();

	mrc_pkt out;
	if (mrc_wire_parse(buf.data(), need, &out) != MRC_WIRE_OK)
		abort();
	std::vector<u8> again(need);
	if (mrc_wire_encode(&out, again.data(), need, &len) != MRC_WIRE_OK ||
	    len != need || memcmp(again.data(), buf.data(), need))
		abort();
	return 0;
}
