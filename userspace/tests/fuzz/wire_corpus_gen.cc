// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Writes the seed corpora of the wire fuzzers. wire_parse: every sample
// packet as is, the same behind a 0x00 mode byte (the harness reseals
// those), a packet bundle of three and a CM hello. wire_encode: every sample as the description
// wire_encode_fuzz reads. Usage: wire_corpus_gen CORPUS_ROOT (writes
// CORPUS_ROOT/wire_parse and CORPUS_ROOT/wire_encode, which must exist).
// Build by hand if no CMake target builds it (from the repository root):
//   gcc -c kernel/core/wire.c kernel/core/icrc.c
//   g++ -std=c++20 -Iuserspace/tests -Ikernel
//       userspace/tests/fuzz/wire_corpus_gen.cc wire.o icrc.o
#include <cstdio>
#include <string>

#include "fuzz/wire_fuzz_input.h"
#include "wire_samples.h"

static bool put(const std::string &path, const u8 *b, size_t n)
{
	FILE *f = fopen(path.c_str(), "wb");
	if (!f)
		return false;
	bool ok = fwrite(b, 1, n, f) == n;
	return fclose(f) == 0 && ok;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_ROOT\n", argv[0]);
		return 2;
	}
	std::string dir = std::string(argv[1]) + "/wire_parse";
	std::string enc = std::string(argv[1]) + "/wire_encode";
	int n = 0;
	for (const auto &s : mrc_test::wire_samples()) {
		auto b = mrc_test::encode(s.pkt);
		if (b.empty() || !put(dir + "/" + s.name, b.data(), b.size()))
			return 1;
		b.insert(b.begin(), 0);
		if (!put(dir + "/" + s.name + ".reseal", b.data(), b.size()))
			return 1;
		auto d = mrc_fuzz::pkt_to_bytes(s.pkt);
		if (!put(enc + "/" + s.name, d.data(), d.size()))
			return 1;
		n += 3;
	}
	// [ENC-13] a packet bundle of the first three samples
	std::vector<u8> pb(mrc_wire_pbundle_hdr_len(3));
	u16 lens[3];
	for (u32 i = 0; i < 3; i++) {
		auto b = mrc_test::encode(mrc_test::wire_samples()[i].pkt);
		lens[i] = (u16)b.size();
		pb.insert(pb.end(), b.begin(), b.end());
	}
	if (mrc_wire_pbundle_encode_hdr(lens, 3, pb.data(), (u32)pb.size()) !=
		    MRC_WIRE_OK ||
	    !put(dir + "/bundle", pb.data(), pb.size()))
		return 1;
	n++;
	mrc_hello h = {1, 1, 16, 12, MRC_CAP_ATOMIC, 0x1234abcd,
		       MRC_WIRE_UDP_PORT, 8};
	u8 hb[MRC_HELLO_LEN];
	if (mrc_hello_encode(&h, hb, sizeof(hb)) != MRC_WIRE_OK ||
	    !put(dir + "/hello", hb, sizeof(hb)))
		return 1;
	printf("%d seeds in %s/{wire_parse,wire_encode}\n", n + 1, argv[1]);
	return 0;
}
