// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Per-packet cost of the wire layer: header encode, full encode (payload
// copy + ICRC), full parse (ICRC + validation), header-only parse, ACK
// encode+parse, and the ICRC alone per byte.
#include <benchmark/benchmark.h>

#include "wire_samples.h"

using namespace mrc_test;

namespace {

mrc_pkt write_pkt(std::vector<u8> &payload, u32 len)
{
	payload = pattern(len);
	mrc_pkt p = blank(MRC_PKT_WRITE);
	sequenced(p, 1, 2, 3, 0);
	p.flags = 0;
	p.write = {0x7f0000000000ull, 0x1234, 4096, 1u << 20, 0};
	p.payload = payload.data();
	p.payload_len = len;
	return p;
}

void BM_EncodeHdr(benchmark::State &st)
{
	std::vector<u8> pl;
	mrc_pkt p = write_pkt(pl, 4096);
	u8 buf[128];
	u32 len;
	for (auto _ : st) {
		p.psn++;
		benchmark::DoNotOptimize(mrc_wire_encode_hdr(&p, buf, sizeof(buf),
							     &len));
		benchmark::ClobberMemory();
	}
}
BENCHMARK(BM_EncodeHdr);

void BM_ParseHdr(benchmark::State &st)
{
	std::vector<u8> pl;
	auto b = encode(write_pkt(pl, 4096));
	mrc_pkt out;
	for (auto _ : st) {
		benchmark::DoNotOptimize(mrc_wire_parse_hdr(b.data(), 64,
							    (u32)b.size(), &out));
		benchmark::ClobberMemory();
	}
}
BENCHMARK(BM_ParseHdr);

// Whole data packet: encode (copy + ICRC) then parse (ICRC + checks).
void BM_EncodeParse(benchmark::State &st)
{
	std::vector<u8> pl;
	mrc_pkt p = write_pkt(pl, (u32)st.range(0));
	std::vector<u8> buf(p.payload_len + 128);
	mrc_pkt out;
	u32 len;
	for (auto _ : st) {
		p.psn++;
		mrc_wire_encode(&p, buf.data(), (u32)buf.size(), &len);
		benchmark::DoNotOptimize(mrc_wire_parse(buf.data(), len, &out));
		benchmark::ClobberMemory();
	}
	st.SetBytesProcessed(st.iterations() * st.range(0));
}
BENCHMARK(BM_EncodeParse)->Arg(64)->Arg(256)->Arg(1024)->Arg(4096)->Arg(8192);

void BM_Parse(benchmark::State &st)
{
	std::vector<u8> pl;
	auto b = encode(write_pkt(pl, (u32)st.range(0)));
	mrc_pkt out;
	for (auto _ : st) {
		benchmark::DoNotOptimize(mrc_wire_parse(b.data(), (u32)b.size(),
							&out));
		benchmark::ClobberMemory();
	}
	st.SetBytesProcessed(st.iterations() * st.range(0));
}
BENCHMARK(BM_Parse)->Arg(64)->Arg(4096);

void BM_AckEncodeParse(benchmark::State &st)
{
	mrc_pkt p = wire_samples()[0].pkt;
	for (auto &s : wire_samples())
		if (s.name == "ack_sack")
			p = s.pkt;
	u8 buf[128];
	mrc_pkt out;
	u32 len;
	for (auto _ : st) {
		p.ack.cum_psn++;
		mrc_wire_encode(&p, buf, sizeof(buf), &len);
		benchmark::DoNotOptimize(mrc_wire_parse(buf, len, &out));
		benchmark::ClobberMemory();
	}
}
BENCHMARK(BM_AckEncodeParse);

void BM_Icrc(benchmark::State &st)
{
	auto b = pattern((size_t)st.range(0));
	for (auto _ : st)
		benchmark::DoNotOptimize(mrc_wire_icrc(b.data(), (u32)b.size()));
	st.SetBytesProcessed(st.iterations() * st.range(0));
}
BENCHMARK(BM_Icrc)->Arg(64)->Arg(4096);

void BM_IcrcPortable(benchmark::State &st)
{
	auto b = pattern((size_t)st.range(0));
	for (auto _ : st)
		benchmark::DoNotOptimize(mrc_wire_icrc_update_portable(
			~0u, b.data(), (u32)b.size()));
	st.SetBytesProcessed(st.iterations() * st.range(0));
}
BENCHMARK(BM_IcrcPortable)->Arg(64)->Arg(4096);

} // namespace
