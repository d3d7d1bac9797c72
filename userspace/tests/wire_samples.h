// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Valid example packets of every type and variant, shared by the wire
// tests, the benchmark and the fuzz corpus generator.
#pragma once

#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "core/wire.h"
}

namespace mrc_test {

// pkt.payload points into payload, also in copies.
struct WireSample {
	std::string name;
	mrc_pkt pkt;
	std::vector<u8> payload;

	WireSample() = default;
	WireSample(std::string n, const mrc_pkt &p, std::vector<u8> pl)
		: name(std::move(n)), pkt(p), payload(std::move(pl))
	{
		repoint();
	}
	WireSample(const WireSample &o)
		: name(o.name), pkt(o.pkt), payload(o.payload)
	{
		repoint();
	}
	WireSample &operator=(const WireSample &o)
	{
		name = o.name;
		pkt = o.pkt;
		payload = o.payload;
		repoint();
		return *this;
	}
	void repoint()
	{
		pkt.payload = payload.empty() ? nullptr : payload.data();
		pkt.payload_len = (u32)payload.size();
	}
};

inline mrc_pkt blank(u8 type)
{
	mrc_pkt p;
	std::memset(&p, 0, sizeof(p));
	p.type = type;
	p.path_id = 3;
	p.dst_qpn = 0x00abcdef;
	p.tsval = 0x11223344;
	p.cookie = 0xc0ffee01;
	return p;
}

inline void sequenced(mrc_pkt &p, u32 psn, u32 msn, u32 ssn, u16 stream)
{
	p.psn = psn;
	p.msn = msn;
	p.ssn = ssn;
	p.stream_id = stream;
}

inline std::vector<u8> pattern(size_t n, u8 seed = 1)
{
	std::vector<u8> v(n);
	for (size_t i = 0; i < n; i++)
		v[i] = (u8)(seed + i * 31);
	return v;
}

// Every sample is valid: mrc_wire_check() returns MRC_WIRE_OK for each.
inline std::vector<WireSample> wire_samples()
{
	std::vector<WireSample> s;
	auto add = [&](std::string name, mrc_pkt p, std::vector<u8> pl) {
		s.emplace_back(std::move(name), p, std::move(pl));
	};

	mrc_pkt p = blank(MRC_PKT_SEND);
	sequenced(p, 100, 7, 3, 1);
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.send = {5, 0, 64};
	add("send_only", p, pattern(64));

	p.flags = MRC_F_FIRST;
	p.send = {5, 0, 10000};
	add("send_first", p, pattern(4096));
	p.flags = 0;
	p.send = {5, 4096, 10000};
	add("send_middle", p, pattern(4096, 9));
	p.flags = MRC_F_LAST | MRC_F_IMM | MRC_F_SOLICITED;
	p.send = {5, 8192, 10000};
	p.imm = 0xdeadbeef;
	add("send_last_imm", p, pattern(10000 - 8192, 4));
	p.flags = MRC_F_FIRST | MRC_F_LAST | MRC_F_INV | MRC_F_ACK_REQ |
		  MRC_F_RETX;
	p.send = {6, 0, 1};
	p.imm = 0x1234;
	add("send_inv", p, pattern(1));
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.send = {7, 0, 0};
	p.imm = 0;
	add("send_empty", p, {});

	p = blank(MRC_PKT_WRITE);
	sequenced(p, 0xfffffff0, 0xffffffff, 9, 0xffff);
	p.flags = MRC_F_FIRST;
	p.write = {0x00007f0012345000ull, 0x4321, 0, 8192, 0};
	add("write_first", p, pattern(4096, 2));
	p.flags = MRC_F_LAST | MRC_F_IMM;
	p.write = {0x00007f0012345000ull, 0x4321, 4096, 8192, 12};
	p.imm = 0xa5a5a5a5;
	add("write_last_imm", p, pattern(4096, 3));
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.write = {~0ull, 0x1, 0, 1, 0};
	p.imm = 0;
	add("write_top_byte", p, pattern(1));

	p = blank(MRC_PKT_READ_REQ);
	sequenced(p, 55, 8, 4, 2);
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.read_req = {0x1000, 0x77, 1u << 20, 0x99};
	add("read_req", p, {});
	p.read_req = {0, 0x77, 0, 0x9a};
	add("read_req_empty", p, {});

	p = blank(MRC_PKT_READ_RESP);
	sequenced(p, 12, 8, 4, 2);
	p.flags = MRC_F_FIRST;
	p.read_resp = {0x99, 0, 1u << 20};
	add("read_resp_first", p, pattern(4096, 5));
	p.flags = MRC_F_LAST | MRC_F_ACK_REQ;
	p.read_resp = {0x99, (1u << 20) - 1024, 1u << 20};
	add("read_resp_last", p, pattern(1024, 6));

	p = blank(MRC_PKT_ATOMIC);
	sequenced(p, 77, 9, 5, 2);
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.atomic = {0x2000, 0x1111222233334444ull, 0x5555666677778888ull,
		    0x88, MRC_ATOMIC_CMP_SWAP};
	add("atomic_cmp_swap", p, {});
	p.atomic = {0x2008, 5, 0, 0x88, MRC_ATOMIC_FETCH_ADD};
	add("atomic_fetch_add", p, {});

	p = blank(MRC_PKT_ATOMIC_RESP);
	sequenced(p, 13, 9, 5, 2);
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.atomic_resp = {0x0123456789abcdefull};
	add("atomic_resp", p, {});

	p = blank(MRC_PKT_ACK);
	p.flags = MRC_F_CE_ECHO;
	p.ack.cum_psn = 1000;
	p.ack.tsecr = 0x55667788;
	p.ack.ack_delay = 2500;
	p.ack.ce_count = 17;
	p.ack.msn_ack = 42;
	p.ack.rsn_limit = 128;
	p.ack.rate_hint = 25000;
	p.ack.sack[0] = 0x8000000000000005ull;
	p.ack.sack[1] = 0;
	p.ack.sack[2] = 0x00ff00ff00ff00ffull;
	p.ack.sack[3] = 0x8000000000000000ull;
	add("ack_sack", p, {});
	p = blank(MRC_PKT_ACK);
	p.ack.cum_psn = 0;
	add("ack_plain", p, {});

	for (u8 code = MRC_NAK_ACCESS; code <= MRC_NAK_CODE_MAX; code++) {
		p = blank(MRC_PKT_NAK);
		p.nak.code = code;
		p.nak.psn = 4000 + code;
		p.nak.msn = 70 + code;
		p.nak.arg = code == MRC_NAK_RNR ? 640 : 0;
		add("nak_" + std::to_string(code), p, {});
	}

	p = blank(MRC_PKT_PROBE);
	p.probe = {MRC_PROBE_REQ, 1, 1, 31, 0, MRC_CAP_ATOMIC, 0};
	add("probe_req", p, {});
	p.probe = {MRC_PROBE_REQ, 1, 1, 32, 0, MRC_CAP_ATOMIC, 0};
	add("probe_req_pmtu", p, std::vector<u8>(1400, 0));
	p.probe = {MRC_PROBE_RESP, 1, 1, 32, 0x11223344,
		   MRC_CAP_ATOMIC | MRC_CAP_RATE_HINT, 1456};
	add("probe_resp", p, {});

	// [PKT-85] datagrams: no connection fields, Q_Key + source QPN
	p = blank(MRC_PKT_UD_SEND);
	p.path_id = 0;
	p.cookie = 0;
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.dst_qpn = MRC_WIRE_GSI_QPN;
	p.ud = {MRC_WIRE_GSI_QKEY, 1};
	add("ud_gsi_mad", p, pattern(256, 0x37));
	p.dst_qpn = 0x000123;
	p.flags = MRC_F_FIRST | MRC_F_LAST | MRC_F_IMM | MRC_F_SOLICITED;
	p.imm = 0xdeadbeef;
	p.ud = {0x11111111, 0x00fedcba};
	add("ud_send_imm", p, pattern(1024, 5));
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.imm = 0;
	add("ud_send_empty", p, {});

	for (auto &w : s)
		w.repoint();
	return s;
}

inline std::vector<u8> encode(const mrc_pkt &p)
{
	std::vector<u8> buf(mrc_wire_hdr_len(&p) + p.payload_len +
			    MRC_WIRE_ICRC_LEN);
	u32 len = 0;
	if (mrc_wire_encode(&p, buf.data(), (u32)buf.size(), &len) !=
	    MRC_WIRE_OK)
		return {};
	buf.resize(len);
	return buf;
}

// Recompute the ICRC after a test has edited header bytes.
inline void reseal(std::vector<u8> &b)
{
	if (b.size() >= MRC_WIRE_ICRC_LEN)
		mrc_wire_seal(b.data(), (u32)(b.size() - MRC_WIRE_ICRC_LEN));
}

} // namespace mrc_test
