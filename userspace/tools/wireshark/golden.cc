// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "golden.h"

#include "wire_samples.h"

namespace mrc_pcap {

namespace {

using mrc_test::blank;
using mrc_test::encode;
using mrc_test::pattern;
using mrc_test::reseal;
using Bytes = std::vector<uint8_t>;

constexpr uint16_t kPort = MRC_WIRE_UDP_PORT;

bool sequenced(uint8_t type)
{
	return type >= MRC_PKT_SEND && type <= MRC_PKT_ATOMIC_RESP;
}

// A datagram from guest a (10.0.0.1, fd00::1) to b, or back, as the bed
// addresses them; DSCP and ECN as [ENC-10] and [ENC-15] say.
Udp udp(const Bytes &payload, bool to_b = true, bool v6 = false, uint8_t type = 0)
{
	Udp u;

	u.v6 = v6;
	if (v6) {
		u.src[0] = u.dst[0] = 0xfd;
		u.src[15] = to_b ? 1 : 2;
		u.dst[15] = to_b ? 2 : 1;
	} else {
		u.src[0] = u.dst[0] = 10;
		u.src[3] = to_b ? 1 : 2;
		u.dst[3] = to_b ? 2 : 1;
	}
	u.sport = 49152 + 0x2a;
	u.dport = kPort;
	u.tos = uint8_t((sequenced(type) ? MRC_WIRE_DSCP_DATA : MRC_WIRE_DSCP_CTRL) << 2 |
			MRC_WIRE_ECN_ECT0);
	u.payload = payload;
	return u;
}

Bytes cat(const std::vector<Bytes> &parts)
{
	Bytes b;

	for (const auto &p : parts)
		b.insert(b.end(), p.begin(), p.end());
	return b;
}

// [ENC-13] a packet bundle of @pkts with a valid header and table.
Bytes pbundle(const std::vector<Bytes> &pkts)
{
	std::vector<u16> lens;
	Bytes b;

	for (const auto &p : pkts)
		lens.push_back(u16(p.size()));
	b.resize(mrc_wire_pbundle_hdr_len(u32(pkts.size())));
	mrc_wire_pbundle_encode_hdr(lens.data(), u32(lens.size()), b.data(), u32(b.size()));
	return cat({ b, cat(pkts) });
}

mrc_pkt ack(uint8_t path, uint32_t cum_psn, uint64_t sack0)
{
	mrc_pkt p = blank(MRC_PKT_ACK);

	p.path_id = path;
	p.flags = MRC_F_BUNDLES;
	p.ack.cum_psn = cum_psn;
	p.ack.tsecr = 0x01020304u + path;
	p.ack.ack_delay = 1000u * path;
	p.ack.msn_ack = 9;
	p.ack.rsn_limit = 64;
	p.ack.rate_hint = 10000;
	p.ack.rx_max = 8192;
	p.ack.sack[0] = sack0;
	return p;
}

mrc_pkt write(uint32_t psn, uint32_t len, uint32_t qpn = 0x00abcdef)
{
	mrc_pkt p = blank(MRC_PKT_WRITE);

	mrc_test::sequenced(p, psn, 20 + psn, 20 + psn, 0);
	p.dst_qpn = qpn;
	p.flags = MRC_F_FIRST | MRC_F_LAST | MRC_F_BUNDLES;
	p.write = { 0x00007f0000100000ull + 64 * psn, 0x1234, 0, len, 0 };
	return p;
}

Bytes with_payload(mrc_pkt p, const Bytes &pl)
{
	p.payload = pl.data();
	p.payload_len = u32(pl.size());
	return encode(p);
}

Bytes write_bytes(uint32_t psn, uint32_t len, uint32_t qpn = 0x00abcdef)
{
	return with_payload(write(psn, len, qpn), pattern(len, uint8_t(psn)));
}

// A packet edited after encoding, its ICRC made right again.
template <typename F>
Bytes edited(Bytes b, F edit)
{
	edit(b);
	reseal(b);
	return b;
}

// A bundle's header edited: the packets keep their ICRCs.
template <typename F>
Bytes tweaked(Bytes b, F edit)
{
	edit(b);
	return b;
}

void put32(Bytes &b, size_t at, uint32_t v)
{
	mrc_put_be32(b.data() + at, v);
}

// [PKT-85] a management datagram (a MAD) for the GSI QP carrying a CM
// message (IBA 12.6) whose private data starts with the IP CM header
// (IBA annex A11) and then holds @private_data: what the RDMA CM sends.
Bytes cm_mad(uint16_t attr, uint32_t comm_id, const Bytes &private_data)
{
	Bytes m(256, 0);
	size_t pd;

	m[0] = 1;		// base version
	m[1] = 0x07;		// class: communication management
	m[2] = 2;		// class version
	m[3] = 0x03;		// method: send
	put32(m, 8, 0x00000000);	// transaction id
	put32(m, 12, 0x12340000u | attr);
	m[16] = uint8_t(attr >> 8);
	m[17] = uint8_t(attr);
	put32(m, 24, comm_id);	// local communication id
	if (attr == 0x0010) {	// REQ
		// service id: IP CM, TCP port space, port 18740
		put32(m, 24 + 8, 0);
		put32(m, 24 + 12, 0x01064934);
		put32(m, 24 + 28, 0);			// local Q_Key
		put32(m, 24 + 32, 0x00001101);		// local QPN 0x11, resp. res. 1
		put32(m, 24 + 36, 0x00000001);		// initiator depth 1
		put32(m, 24 + 40, 0x000000b8);		// timeouts, RC
		put32(m, 24 + 44, 0x00abc0d7);		// starting PSN, timeout, retries
		m[24 + 48] = 0xff;			// P_Key 0xffff
		m[24 + 49] = 0xff;
		m[24 + 50] = 0x37;			// MTU 1024, RNR retry 7
		m[24 + 51] = 0xf0;			// max CM retries 15
		pd = 24 + 140;
		// IP CM header: version 0, IPv4, source port, addresses
		m[pd] = 0x00;
		m[pd + 1] = 0x40;
		m[pd + 2] = 0xc0;
		m[pd + 3] = 0x01;
		m[pd + 4 + 12] = 10;
		m[pd + 4 + 15] = 1;
		m[pd + 20 + 12] = 10;
		m[pd + 20 + 15] = 2;
		pd += 36;
	} else {		// REP: private data at 36 of the message
		put32(m, 24 + 4, comm_id + 1);		// remote communication id
		put32(m, 24 + 12, 0x00001200);		// local QPN 0x12
		put32(m, 24 + 20, 0x00def000);		// starting PSN
		pd = 24 + 36;
	}
	std::copy(private_data.begin(), private_data.end(), m.begin() + long(pd));
	return m;
}

Bytes hello(uint32_t cookie)
{
	mrc_hello h = { 1, 1, 4, 12, MRC_CAP_ATOMIC | MRC_CAP_RATE_HINT, cookie,
			MRC_WIRE_UDP_PORT, 1 };
	Bytes b(MRC_HELLO_LEN);

	mrc_hello_encode(&h, b.data(), u32(b.size()));
	return b;
}

Bytes gsi(const Bytes &mad)
{
	mrc_pkt p = blank(MRC_PKT_UD_SEND);

	p.path_id = 0;
	p.cookie = 0;
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.dst_qpn = MRC_WIRE_GSI_QPN;
	p.ud = { MRC_WIRE_GSI_QKEY, MRC_WIRE_GSI_QPN };
	return with_payload(p, mad);
}

class Frames {
public:
	void add(std::string name, Udp u, uint32_t snap = 0)
	{
		v.push_back({ std::move(name), std::move(u), snap });
	}
	std::vector<GoldenFrame> v;
};

void samples(Frames &f)
{
	int i = 0;

	for (const auto &s : mrc_test::wire_samples()) {
		// responses travel back; every third datagram over IPv6
		bool back = s.pkt.type == MRC_PKT_READ_RESP || s.pkt.type == MRC_PKT_ATOMIC_RESP ||
			    s.pkt.type == MRC_PKT_ACK || s.pkt.type == MRC_PKT_NAK;

		f.add("sample " + s.name, udp(encode(s.pkt), !back, i++ % 3 == 2, s.pkt.type));
	}
}

void bundles(Frames &f)
{
	std::vector<Bytes> acks;

	for (uint8_t path = 0; path < MRC_WIRE_BUNDLE_MAX; path++)
		acks.push_back(encode(ack(path, 100 + 7 * path, 0x5ull << path)));
	f.add("ACK bundle of 3 ([ENC-9])",
	      udp(cat({ acks[0], acks[1], acks[2] }), false, false, MRC_PKT_ACK));
	f.add("ACK bundle of 8, over IPv6", udp(cat(acks), false, true, MRC_PKT_ACK));
	f.add("packet bundle of 3 (odd count: padding, [ENC-13]): 2 WRITEs and an ACK",
	      udp(pbundle({ write_bytes(1, 64), write_bytes(2, 100), acks[3] }), true, false,
		  MRC_PKT_WRITE));
	{
		mrc_pkt r = blank(MRC_PKT_READ_REQ);
		mrc_pkt a = blank(MRC_PKT_ATOMIC);

		mrc_test::sequenced(r, 30, 40, 40, 0);
		r.flags = MRC_F_FIRST | MRC_F_LAST | MRC_F_BUNDLES | MRC_F_ACK_REQ;
		r.read_req = { 0x7f0000200000ull, 0x55, 65536, 3 };
		mrc_test::sequenced(a, 31, 41, 41, 0);
		a.flags = MRC_F_FIRST | MRC_F_LAST | MRC_F_BUNDLES;
		a.atomic = { 0x7f0000300008ull, 1, 0, 0x56, MRC_ATOMIC_FETCH_ADD };
		f.add("packet bundle of 2: a READ_REQ and an ATOMIC",
		      udp(pbundle({ encode(r), encode(a) }), true, false, MRC_PKT_READ_REQ));
	}
	{
		std::vector<Bytes> w;

		for (uint32_t psn = 0; psn < MRC_WIRE_PBUNDLE_MAX; psn++)
			w.push_back(write_bytes(200 + psn, 1));
		f.add("packet bundle of 32 one-byte WRITEs",
		      udp(pbundle(w), true, true, MRC_PKT_WRITE));
	}
}

// One datagram for every verdict of [PKT-99] and every bundle rule.
void verdicts(Frames &f)
{
	Bytes w = write_bytes(5, 256), s;
	mrc_pkt p;

	s = w;
	s[200] ^= 0x01;
	f.add("bad ICRC: a WRITE with one payload bit flipped", udp(s));
	s = encode(ack(1, 50, 0xff));
	s[MRC_WO_ACK_CUM_PSN + 3] ^= 0x80;
	f.add("bad ICRC: an ACK with a header bit flipped", udp(s, false, false, MRC_PKT_ACK));
	f.add("too short for any packet: 20 bytes ([PKT-13])", udp(Bytes(w.begin(), w.begin() + 20)));
	f.add("truncated: a WRITE cut inside its extension, ICRC remade",
	      udp(edited(Bytes(w.begin(), w.begin() + 52), [](Bytes &) {})));
	f.add("truncated on the way: a WRITE missing its last 10 bytes",
	      udp(Bytes(w.begin(), w.end() - 10)));
	// the largest WRITE, one byte longer: over IPv6, where UDP carries it
	s = write_bytes(6, MRC_WIRE_MAX_PKT_LEN - 60);
	s.insert(s.end() - 4, 0x77);
	put32(s, MRC_WO_WRITE_TOTAL, MRC_WIRE_MAX_PKT_LEN - 59);
	reseal(s);
	f.add("too long: 65508 bytes over IPv6 (captured: 300)", udp(s, true, true), 300);
	f.add("bad version: 2", udp(edited(w, [](Bytes &b) { b[MRC_WO_VERSION] = 2; })));
	f.add("bad type: 13", udp(edited(w, [](Bytes &b) { b[MRC_WO_TYPE] = 13; })));
	f.add("bad type: 0", udp(edited(w, [](Bytes &b) { b[MRC_WO_TYPE] = 0; })));
	f.add("reserved flag bit 9", udp(edited(w, [](Bytes &b) { b[MRC_WO_FLAGS] |= 0x02; })));
	f.add("bad hdr_words", udp(edited(w, [](Bytes &b) { b[MRC_WO_HDR_WORDS]++; })));
	f.add("reserved QPN bits", udp(edited(w, [](Bytes &b) { b[MRC_WO_DST_QPN] = 1; })));
	p = blank(MRC_PKT_NAK);
	p.nak = { MRC_NAK_SEQ, 7, 8, 0 };
	f.add("reserved byte of a NAK", udp(edited(encode(p), [](Bytes &b) {
		b[MRC_WO_NAK_CODE + 2] = 1; }), false, false, MRC_PKT_NAK));
	f.add("bad NAK code 9", udp(edited(encode(p), [](Bytes &b) {
		b[MRC_WO_NAK_CODE] = 9; }), false, false, MRC_PKT_NAK));
	f.add("RNR argument on a NAK SEQ", udp(edited(encode(p), [](Bytes &b) {
		put32(b, MRC_WO_NAK_ARG, 5); }), false, false, MRC_PKT_NAK));
	f.add("an ACK with a PSN ([PKT-15])", udp(edited(encode(ack(0, 1, 0)), [](Bytes &b) {
		put32(b, MRC_WO_PSN, 3); }), false, false, MRC_PKT_ACK));
	f.add("bad flags: an ACK with FIRST", udp(edited(encode(ack(0, 1, 0)), [](Bytes &b) {
		b[MRC_WO_FLAGS + 1] |= MRC_F_FIRST; }), false, false, MRC_PKT_ACK));
	f.add("bad flags: LAST without offset + length = total",
	      udp(edited(w, [](Bytes &b) { put32(b, MRC_WO_WRITE_TOTAL, 1000); })));
	f.add("bad offset: beyond the message", udp(edited(w, [](Bytes &b) {
		put32(b, MRC_WO_WRITE_OFFSET, 10); })));
	f.add("address range wraps", udp(edited(w, [](Bytes &b) {
		put32(b, MRC_WO_WRITE_VA, 0xffffffff);
		put32(b, MRC_WO_WRITE_VA + 4, 0xffffff80); })));
	p = blank(MRC_PKT_READ_REQ);
	mrc_test::sequenced(p, 1, 1, 1, 0);
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.read_req = { 0x1000, 1, 64, 2 };
	f.add("bad length: a READ_REQ with payload",
	      udp(edited(encode(p), [](Bytes &b) { b.insert(b.end() - 4, 4, 0xee); })));
	p = blank(MRC_PKT_ATOMIC);
	mrc_test::sequenced(p, 2, 2, 2, 0);
	p.flags = MRC_F_FIRST | MRC_F_LAST;
	p.atomic = { 0x2000, 1, 0, 3, MRC_ATOMIC_CMP_SWAP };
	f.add("bad field: atomic op 3", udp(edited(encode(p), [](Bytes &b) {
		b[MRC_WO_ATOMIC_OP] = 3; })));
}

void bundle_verdicts(Frames &f)
{
	Bytes a0 = encode(ack(0, 10, 1)), a1 = encode(ack(1, 20, 3)), bad = a1, nak;
	mrc_pkt p = blank(MRC_PKT_NAK), q = blank(MRC_PKT_PROBE);

	bad[MRC_WO_ACK_RX_MAX] ^= 1;
	f.add("ACK bundle whose second ACK has a bad ICRC",
	      udp(cat({ a0, bad, encode(ack(2, 30, 7)) }), false, false, MRC_PKT_ACK));
	// a PROBE padded to an ACK's 100 bytes: the only kind that fits
	q.probe = { MRC_PROBE_REQ, 1, 1, 9, 0, 0, 0 };
	f.add("ACK bundle holding a PROBE padded to 100 bytes (BAD_TYPE)",
	      udp(cat({ a0, with_payload(q, Bytes(MRC_WIRE_ACK_PKT_LEN - 56, 0)) }), false, false,
		  MRC_PKT_ACK));
	p.flags = MRC_F_BUNDLES;
	p.nak = { MRC_NAK_RNR, 11, 12, 640 };
	nak = encode(p);
	f.add("packet bundle: a NAK, a UD_SEND (BAD_TYPE), a WRITE for another QP (BAD_FIELD)",
	      udp(pbundle({ nak, gsi(Bytes(256, 0)), write_bytes(9, 10, 0x42) }), false, false,
		  MRC_PKT_NAK));
	{
		Bytes w = write_bytes(10, 30);

		w[50] ^= 4;
		f.add("packet bundle whose first WRITE has a bad ICRC",
		      udp(pbundle({ w, write_bytes(11, 30) })));
	}
	Bytes good = pbundle({ a0, a1 });
	f.add("packet bundle of count 1 (BAD_LENGTH)", udp(tweaked(good, [](Bytes &b) {
		b[MRC_WO_PBUNDLE_COUNT] = 1; }), false));
	f.add("packet bundle whose lengths do not add up", udp(tweaked(good, [](Bytes &b) {
		b[MRC_WO_PBUNDLE_LENS + 1]--; }), false));
	f.add("packet bundle with its reserved byte set", udp(tweaked(good, [](Bytes &b) {
		b[MRC_WO_PBUNDLE_RSVD] = 1; }), false));
	f.add("packet bundle of 3 with non-zero padding", udp(tweaked(pbundle({ a0, a1, a0 }),
		[](Bytes &b) { b[MRC_WO_PBUNDLE_LENS + 7] = 1; }), false));
}

// Frames the capture cut short (tcpdump -s): the ICRC cannot be checked.
void snapped(Frames &f)
{
	std::vector<Bytes> w;

	f.add("a 4 KiB WRITE captured to 128 bytes", udp(write_bytes(40, 4096)), 128);
	for (uint32_t psn = 0; psn < 5; psn++)
		w.push_back(write_bytes(300 + psn, 40));
	f.add("packet bundle of 5 captured to 200 bytes", udp(pbundle(w)), 200);
	w.clear();
	for (uint8_t path = 0; path < 6; path++)
		w.push_back(encode(ack(path, 3, 1)));
	f.add("ACK bundle of 6 captured to 300 bytes", udp(cat(w), false), 300);
	f.add("a 4 KiB WRITE captured to 60 bytes (inside the base header)",
	      udp(write_bytes(41, 4096)), 60);
}

// The heuristic: MetaRoCE on another port is found, foreign traffic is not.
void other_ports(Frames &f)
{
	Udp u = udp(write_bytes(60, 32));
	Bytes junk = pattern(80, 3);

	u.dport = 50001;
	f.add("MetaRoCE WRITE on UDP port 50001 (found by the heuristic)", u);
	u = udp(cat({ encode(ack(0, 5, 0)), encode(ack(1, 5, 0)) }), false);
	u.dport = 50003;
	f.add("ACK bundle on UDP port 50003 (heuristic)", u);
	u = udp(pbundle({ write_bytes(61, 8), write_bytes(62, 8) }));
	u.dport = 50005;
	f.add("packet bundle on UDP port 50005 (heuristic)", u);
	u = udp(edited(write_bytes(63, 32), [](Bytes &b) { b[MRC_WO_HDR_WORDS] = 0; }));
	u.dport = 50002;
	f.add("not MetaRoCE: version 1, type WRITE, bad hdr_words, port 50002", u);
	junk[0] = 1;
	junk[1] = 1;
	u = udp(junk);
	u.dport = 50004;
	f.add("not MetaRoCE: random bytes after 01 01, port 50004", u);
	u = udp(write_bytes(64, 32));
	u.payload[u.payload.size() - 1] ^= 1;
	u.dport = 50006;
	f.add("not MetaRoCE by heuristic: a WRITE with a bad ICRC on port 50006", u);
	// RoCEv2 (IBA annex A17): BTH of an RC SEND ONLY, then payload and ICRC
	u = udp(cat({ { 0x04, 0x40, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x00, 0x00, 0x01 },
		      pattern(16), { 0, 0, 0, 0 } }));
	u.dport = 4791;
	f.add("RoCEv2 on 4791: for Wireshark's InfiniBand dissector", u);
}

void management(Frames &f)
{
	f.add("CM REQ MAD on the GSI QP, hello in the private data ([PKT-90])",
	      udp(gsi(cm_mad(0x0010, 0x1001, hello(0x5eed0001)))));
	f.add("CM REP MAD on the GSI QP, hello in the private data",
	      udp(gsi(cm_mad(0x0013, 0x2002, hello(0x5eed0002))), false));
}

// [PKT-92] HELLOs: an OFFER of an IPv4 plane, a plane without an address
// and an IPv6 plane, padded as sent; an ANSWER of one plane; and three a
// receiver refuses (a bad family, padding not zero, a table too short).
void hellos(Frames &f)
{
	mrc_pkt p = blank(MRC_PKT_HELLO);
	Bytes table(MRC_WIRE_HELLO_TABLE_MAX, 0);
	mrc_plane_addr v4 = { 4, { 10, 0, 1, 1 } }, none = { 0, {} };
	mrc_plane_addr v6 = { 6, { 0xfd, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } };

	p.path_id = 0;
	p.flags = MRC_F_BUNDLES;
	p.hello.kind = MRC_HELLO_OFFER;
	p.hello.nplanes = 3;
	p.hello.rec = { 1, 1, 8, 12, MRC_CAP_ATOMIC | MRC_CAP_RATE_HINT | MRC_CAP_MULTIPLANE,
			0x5eed0003, MRC_WIRE_UDP_PORT, 1 };
	mrc_wire_plane_put(table.data(), 0, &v4);
	mrc_wire_plane_put(table.data(), 1, &none);
	mrc_wire_plane_put(table.data(), 2, &v6);
	Bytes offer = with_payload(p, table);
	f.add("HELLO OFFER: IPv4, no address, IPv6, padded ([PKT-92])", udp(offer));
	p.hello.kind = MRC_HELLO_ANSWER;
	p.hello.nplanes = 1;
	f.add("HELLO ANSWER of one plane", udp(with_payload(p, Bytes(table.begin(),
		table.begin() + MRC_WIRE_PLANE_LEN)), false));
	const uint32_t t = MRC_WIRE_BASE_LEN + MRC_WIRE_HELLO_PKT_LEN;
	f.add("HELLO with plane family 5 (BAD_FIELD)",
	      udp(edited(offer, [](Bytes &b) { b[t + MRC_WIRE_PLANE_LEN] = 5; })));
	f.add("HELLO whose padding is not zero (RESERVED)",
	      udp(edited(offer, [](Bytes &b) { b[t + 3 * MRC_WIRE_PLANE_LEN + 7] = 1; })));
	f.add("HELLO of 3 planes with a table of one (BAD_LENGTH)",
	      udp(edited(with_payload(p, Bytes(table.begin(), table.begin() + MRC_WIRE_PLANE_LEN)),
			 [](Bytes &b) { b[MRC_WO_HELLO_NPLANES] = 3; })));
}

}  // namespace

std::vector<GoldenFrame> golden_frames()
{
	Frames f;

	samples(f);
	hellos(f);
	bundles(f);
	verdicts(f);
	bundle_verdicts(f);
	snapped(f);
	other_ports(f);
	management(f);
	return f.v;
}

}  // namespace mrc_pcap
