// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "reference.h"

#include <cinttypes>

#include "verdict.h"

extern "C" {
#include "core/wire.h"
}

namespace mrc_pcap {

namespace {

// The expert info the dissector raises for a verdict ([PKT-99]).
const char *expert_of(mrc_wire_reason r)
{
	switch (r) {
	case MRC_WIRE_OK: return nullptr;
	case MRC_WIRE_E_TRUNCATED: return "metaroce.truncated";
	case MRC_WIRE_E_TOO_LONG: return "metaroce.too_long";
	case MRC_WIRE_E_BAD_VERSION: return "metaroce.bad_version";
	case MRC_WIRE_E_BAD_CRC: return "metaroce.icrc.bad";
	case MRC_WIRE_E_BAD_TYPE: return "metaroce.bad_type";
	case MRC_WIRE_E_BAD_HDR_LEN: return "metaroce.bad_hdr_len";
	case MRC_WIRE_E_RESERVED: return "metaroce.reserved_set";
	case MRC_WIRE_E_BAD_FLAGS: return "metaroce.bad_flags";
	case MRC_WIRE_E_BAD_LENGTH: return "metaroce.bad_length";
	case MRC_WIRE_E_BAD_OFFSET: return "metaroce.bad_offset";
	case MRC_WIRE_E_VA_OVERFLOW: return "metaroce.va_overflow";
	case MRC_WIRE_E_BAD_FIELD: return "metaroce.bad_field";
	case MRC_WIRE_E_NO_SPACE:
	case MRC_WIRE_REASON_COUNT: break;
	}
	return "metaroce.unknown_reason";
}

// Checksum status values, as Wireshark's own dissectors number them.
enum IcrcStatus : unsigned { kIcrcBad = 0, kIcrcGood = 1, kIcrcUnverified = 2 };

class Out {
public:
	explicit Out(FILE *f) : f_(f) {}
	void unit(bool subset) { fprintf(f_, "unit%s\n", subset ? " subset" : ""); }
	void v(const char *name, uint64_t val) { fprintf(f_, "%s %" PRIu64 "\n", name, val); }
	void any(const char *name) { fprintf(f_, "%s *\n", name); }
	void hex(const char *name, const uint8_t *p, size_t n)
	{
		fprintf(f_, "%s hex:", name);
		for (size_t i = 0; i < n; i++)
			fprintf(f_, "%02x", p[i]);
		fputc('\n', f_);
	}

private:
	FILE *f_;
};

// The base header's bytes, as the fields of [PKT-10] split them.
void base_fields(Out &o, const uint8_t *b, const mrc_pkt &p)
{
	static const struct {
		const char *name;
		uint16_t bit;
	} flags[] = {
		{ "metaroce.flags.first", MRC_F_FIRST },
		{ "metaroce.flags.last", MRC_F_LAST },
		{ "metaroce.flags.imm", MRC_F_IMM },
		{ "metaroce.flags.inv", MRC_F_INV },
		{ "metaroce.flags.solicited", MRC_F_SOLICITED },
		{ "metaroce.flags.ack_req", MRC_F_ACK_REQ },
		{ "metaroce.flags.retx", MRC_F_RETX },
		{ "metaroce.flags.ce_echo", MRC_F_CE_ECHO },
		{ "metaroce.flags.bundles", MRC_F_BUNDLES },
	};

	o.v("metaroce.version", b[MRC_WO_VERSION]);
	o.v("metaroce.type", p.type);
	o.v("metaroce.hdr_words", b[MRC_WO_HDR_WORDS]);
	o.v("metaroce.path_id", p.path_id);
	o.v("metaroce.flags", p.flags);
	for (const auto &fl : flags)
		o.v(fl.name, (p.flags & fl.bit) != 0);
	o.v("metaroce.flags.reserved", p.flags >> 9);
	o.v("metaroce.stream_id", p.stream_id);
	o.v("metaroce.dst_qpn.reserved", b[MRC_WO_DST_QPN]);
	o.v("metaroce.dst_qpn", p.dst_qpn & MRC_WIRE_QPN_MASK);
	o.v("metaroce.psn", p.psn);
	o.v("metaroce.msn", p.msn);
	o.v("metaroce.ssn", p.ssn);
	o.v("metaroce.tsval", p.tsval);
	o.v("metaroce.cookie", p.cookie);
}

// [PKT-61] the PSNs a SACK bitmap says arrived, modulo 2^32.
void sack_fields(Out &o, const mrc_pkt_ack &a)
{
	uint64_t n = 0;

	for (int w = 0; w < MRC_WIRE_SACK_WORDS; w++)
		o.v("metaroce.ack.sack", a.sack[w]);
	for (int w = 0; w < MRC_WIRE_SACK_WORDS; w++)
		for (int bit = 0; bit < 64; bit++)
			if (a.sack[w] >> bit & 1) {
				o.v("metaroce.ack.sack_psn", uint32_t(a.cum_psn + 1 + 64 * w + bit));
				n++;
			}
	o.v("metaroce.ack.sacked", n);
}

void ext_fields(Out &o, const uint8_t *b, const mrc_pkt &p)
{
	switch (p.type) {
	case MRC_PKT_SEND:
		o.v("metaroce.send.rsn", p.send.rsn);
		o.v("metaroce.send.offset", p.send.offset);
		o.v("metaroce.send.total_len", p.send.total_len);
		break;
	case MRC_PKT_WRITE:
		o.v("metaroce.write.va", p.write.va);
		o.v("metaroce.write.rkey", p.write.rkey);
		o.v("metaroce.write.offset", p.write.offset);
		o.v("metaroce.write.total_len", p.write.total_len);
		o.v("metaroce.write.rsn", p.write.rsn);
		break;
	case MRC_PKT_READ_REQ:
		o.v("metaroce.read_req.va", p.read_req.va);
		o.v("metaroce.read_req.rkey", p.read_req.rkey);
		o.v("metaroce.read_req.len", p.read_req.len);
		o.v("metaroce.read_req.resp_tag", p.read_req.resp_tag);
		break;
	case MRC_PKT_READ_RESP:
		o.v("metaroce.read_resp.resp_tag", p.read_resp.resp_tag);
		o.v("metaroce.read_resp.offset", p.read_resp.offset);
		o.v("metaroce.read_resp.total_len", p.read_resp.total_len);
		break;
	case MRC_PKT_ATOMIC:
		o.v("metaroce.atomic.va", p.atomic.va);
		o.v("metaroce.atomic.swap_add", p.atomic.swap_add);
		o.v("metaroce.atomic.compare", p.atomic.compare);
		o.v("metaroce.atomic.rkey", p.atomic.rkey);
		o.v("metaroce.atomic.op", p.atomic.op);
		o.v("metaroce.atomic.reserved", mrc_get_be32(b + MRC_WO_ATOMIC_OP) & 0xffffff);
		break;
	case MRC_PKT_ATOMIC_RESP:
		o.v("metaroce.atomic_resp.orig", p.atomic_resp.orig);
		break;
	case MRC_PKT_ACK:
		o.v("metaroce.ack.cum_psn", p.ack.cum_psn);
		o.v("metaroce.ack.tsecr", p.ack.tsecr);
		o.v("metaroce.ack.delay", p.ack.ack_delay);
		o.v("metaroce.ack.ce_count", p.ack.ce_count);
		o.v("metaroce.ack.msn_ack", p.ack.msn_ack);
		o.v("metaroce.ack.rsn_limit", p.ack.rsn_limit);
		o.v("metaroce.ack.rate_hint", p.ack.rate_hint);
		o.v("metaroce.ack.rx_max", p.ack.rx_max);
		sack_fields(o, p.ack);
		break;
	case MRC_PKT_NAK:
		o.v("metaroce.nak.code", p.nak.code);
		o.v("metaroce.nak.reserved", mrc_get_be32(b + MRC_WO_NAK_CODE) & 0xffffff);
		o.v("metaroce.nak.psn", p.nak.psn);
		o.v("metaroce.nak.msn", p.nak.msn);
		o.v("metaroce.nak.arg", p.nak.arg);
		break;
	case MRC_PKT_PROBE:
		o.v("metaroce.probe.kind", p.probe.kind);
		o.v("metaroce.probe.min_ver", p.probe.min_ver);
		o.v("metaroce.probe.max_ver", p.probe.max_ver);
		o.v("metaroce.probe.reserved", b[MRC_WO_PROBE_RSVD]);
		o.v("metaroce.probe.seq", p.probe.seq);
		o.v("metaroce.probe.tsecr", p.probe.tsecr);
		o.v("metaroce.probe.caps", p.probe.caps);
		o.v("metaroce.probe.caps.atomic", (p.probe.caps & MRC_CAP_ATOMIC) != 0);
		o.v("metaroce.probe.caps.rate_hint", (p.probe.caps & MRC_CAP_RATE_HINT) != 0);
		o.v("metaroce.probe.caps.multiplane", (p.probe.caps & MRC_CAP_MULTIPLANE) != 0);
		o.v("metaroce.probe.caps.reserved", p.probe.caps >> 3);
		o.v("metaroce.probe.echo_len", p.probe.echo_len);
		break;
	case MRC_PKT_UD_SEND:
		o.v("metaroce.ud.qkey", p.ud.qkey);
		o.v("metaroce.ud.src_qpn.reserved", b[MRC_WO_UD_SRC_QPN]);
		o.v("metaroce.ud.src_qpn", p.ud.src_qpn & MRC_WIRE_QPN_MASK);
		break;
	default:
		break;
	}
	if (p.flags & MRC_F_IMM)
		o.v("metaroce.imm", p.imm);
	else if (p.flags & MRC_F_INV)
		o.v("metaroce.inv_rkey", p.imm);
}

// The verdict and its expert info.
void verdict(Out &o, mrc_wire_reason r)
{
	const char *e = expert_of(r);

	o.v("metaroce.reason", r);
	if (e)
		o.any(e);
}

// [PKT-90] the hello in the private data of a CM REQ (after the IP CM
// header the RDMA CM puts first, IBA annex A11) or REP, in the MAD a
// valid UD_SEND carries to QP1: the InfiniBand dissector offers the
// dissector that private data.
void hello_unit(Out &o, const mrc_pkt &p)
{
	constexpr uint32_t kMadHdr = 24, kReqPrivate = 140, kRepPrivate = 36, kIpCmHdr = 36;
	constexpr uint16_t kCmReq = 0x0010, kCmRep = 0x0013;
	const uint8_t *m = p.payload;
	uint32_t at;
	uint16_t attr;
	mrc_hello h;
	mrc_wire_reason r;

	if (p.type != MRC_PKT_UD_SEND || p.dst_qpn != MRC_WIRE_GSI_QPN || !m ||
	    p.payload_len < 256 || p.ud.qkey != MRC_WIRE_GSI_QKEY || m[0] != 1 || m[1] != 0x07)
		return;
	attr = mrc_get_be16(m + 16);
	if (attr == kCmReq) {
		at = kMadHdr + kReqPrivate;
		// service ID 0x00000000_01PPxxxx: IP CM
		if (mrc_get_be32(m + kMadHdr + 8) == 0 && m[kMadHdr + 12] == 1)
			at += kIpCmHdr;
	} else if (attr == kCmRep) {
		at = kMadHdr + kRepPrivate;
	} else {
		return;
	}
	if (mrc_get_be32(m + at + MRC_WO_HELLO_MAGIC) != MRC_HELLO_MAGIC)
		return;
	r = mrc_hello_parse(m + at, MRC_HELLO_LEN, &h);
	m += at;
	o.unit(r != MRC_WIRE_OK);
	o.v("metaroce.hello.magic", MRC_HELLO_MAGIC);
	o.v("metaroce.hello.min_ver", m[MRC_WO_HELLO_MIN_VER]);
	o.v("metaroce.hello.max_ver", m[MRC_WO_HELLO_MAX_VER]);
	o.v("metaroce.hello.max_paths", m[MRC_WO_HELLO_MAX_PATHS]);
	o.v("metaroce.hello.seg_shift", m[MRC_WO_HELLO_SEG_SHIFT]);
	o.v("metaroce.hello.caps", mrc_get_be32(m + MRC_WO_HELLO_CAPS));
	if (r == MRC_WIRE_OK) {
		o.v("metaroce.hello.caps.atomic", (h.caps & MRC_CAP_ATOMIC) != 0);
		o.v("metaroce.hello.caps.rate_hint", (h.caps & MRC_CAP_RATE_HINT) != 0);
		o.v("metaroce.hello.caps.multiplane", (h.caps & MRC_CAP_MULTIPLANE) != 0);
		o.v("metaroce.hello.caps.reserved", h.caps >> 3);
		o.v("metaroce.hello.cookie", h.cookie);
		o.v("metaroce.hello.udp_port", h.udp_port);
		o.v("metaroce.hello.max_streams", h.max_streams);
		o.v("metaroce.hello.reserved", 0);
	}
	verdict(o, r);
}

// One packet of @plen bytes on the wire of which @avail were captured at
// @b, and the verdict a receiver that had all of it gives (@r, when
// @avail == @plen) or the bundle added (@bundle_r).
void packet_unit(Out &o, const uint8_t *b, uint32_t avail, uint32_t plen, int index,
		 mrc_wire_reason bundle_r)
{
	bool whole = avail >= plen;
	mrc_wire_reason r, hr = MRC_WIRE_E_TRUNCATED;
	mrc_pkt p{};
	bool hdr_captured = avail >= MRC_WIRE_BASE_LEN;

	if (hdr_captured) {
		mrc_pkt probe{};

		// the header length type and flags imply must be there too
		probe.type = b[MRC_WO_TYPE];
		probe.flags = mrc_get_be16(b + MRC_WO_FLAGS);
		if (mrc_wire_ext_len(probe.type) && avail < mrc_wire_hdr_len(&probe))
			hdr_captured = false;
	}
	if (whole) {
		r = mrc_wire_parse(b, plen, &p);
		// the fields of a packet whose only fault is its ICRC
		hr = r == MRC_WIRE_E_BAD_CRC ? mrc_wire_parse_hdr(b, plen, plen, &p) : r;
	} else if (hdr_captured) {
		r = hr = mrc_wire_parse_hdr(b, avail, plen, &p);
	} else {
		o.unit(true);
		if (index >= 0)
			o.v("metaroce.bundle.index", index);
		if (avail >= 1)
			o.v("metaroce.version", b[MRC_WO_VERSION]);
		return;
	}
	if (r == MRC_WIRE_OK)
		r = bundle_r;
	o.unit(hr != MRC_WIRE_OK);
	if (index >= 0)
		o.v("metaroce.bundle.index", index);
	if (hr != MRC_WIRE_OK) {
		o.v("metaroce.version", b[MRC_WO_VERSION]);
		verdict(o, r);
		return;
	}
	base_fields(o, b, p);
	ext_fields(o, b, p);
	o.v("metaroce.payload_len", p.payload_len);
	if (p.payload_len) {
		uint32_t got = avail - p.hdr_len;

		if (got > p.payload_len)
			got = p.payload_len;
		if (got)
			o.hex(p.type == MRC_PKT_PROBE ? "metaroce.probe.padding" : "metaroce.payload",
			      b + p.hdr_len, got);
	}
	if (whole) {
		o.v("metaroce.icrc", mrc_get_be32(b + plen - MRC_WIRE_ICRC_LEN));
		o.v("metaroce.icrc.computed", mrc_wire_icrc(b, plen - MRC_WIRE_ICRC_LEN));
		o.v("metaroce.icrc.status", r == MRC_WIRE_E_BAD_CRC ? kIcrcBad : kIcrcGood);
	} else {
		o.v("metaroce.icrc.status", kIcrcUnverified);
	}
	verdict(o, r);
	if (p.flags & MRC_F_RETX)
		o.any("metaroce.retx");
	if (p.type == MRC_PKT_NAK)
		o.any("metaroce.nak");
	if (whole && r == MRC_WIRE_OK)
		hello_unit(o, p);
}

// A packet's verdict without printing it: for the heuristic.
mrc_wire_reason packet_verdict(const uint8_t *b, uint32_t avail, uint32_t plen)
{
	mrc_pkt p;

	if (avail >= plen)
		return mrc_wire_parse(b, plen, &p);
	return mrc_wire_parse_hdr(b, avail, plen, &p);
}

uint32_t clamp_avail(uint32_t avail, uint32_t off, uint32_t len)
{
	if (avail <= off)
		return 0;
	return avail - off < len ? avail - off : len;
}

}  // namespace

bool claimed(const Datagram &d, const ClaimRules &rules)
{
	const uint8_t *b = d.udp.payload.data();
	uint32_t avail = uint32_t(d.udp.payload.size()), len = d.reported;
	mrc_wire_pbundle pb;
	uint32_t plen;

	// the dissector takes no datagram without captured bytes
	if (!avail)
		return false;
	if (d.udp.sport == rules.port || d.udp.dport == rules.port)
		return true;
	if (!rules.heuristic || avail < 2)
		return false;
	if (mrc_wire_is_pbundle(b, avail))
		return mrc_wire_pbundle_parse(b, avail, len, &pb) == MRC_WIRE_OK;
	plen = mrc_wire_bundle_count(b, len) > 1 ? MRC_WIRE_ACK_PKT_LEN : len;
	return packet_verdict(b, clamp_avail(avail, 0, plen), plen) == MRC_WIRE_OK;
}

void print_units(FILE *f, const Datagram &d)
{
	const uint8_t *b = d.udp.payload.data();
	uint32_t avail = uint32_t(d.udp.payload.size()), len = d.reported, n;
	Out o(f);

	fprintf(f, "frame %u\n", d.frame);
	if (avail >= 2 && mrc_wire_is_pbundle(b, avail)) {
		mrc_wire_pbundle pb;
		mrc_wire_reason r = mrc_wire_pbundle_parse(b, avail, len, &pb);
		bool first = true;
		uint32_t qpn = 0;

		if (r != MRC_WIRE_OK) {
			o.unit(true);
			// a table cut by the capture says nothing of the bundle
			if (r != MRC_WIRE_E_TRUNCATED || avail >= len) {
				o.v("metaroce.reason", r);
				o.any("metaroce.pbundle.bad");
			}
			return;
		}
		o.unit(false);
		o.v("metaroce.pbundle.version", b[MRC_WO_VERSION]);
		o.v("metaroce.pbundle.type", b[MRC_WO_TYPE]);
		o.v("metaroce.pbundle.count", pb.count);
		o.v("metaroce.pbundle.reserved", b[MRC_WO_PBUNDLE_RSVD]);
		for (uint32_t i = 0; i < pb.count; i++)
			o.v("metaroce.pbundle.len", pb.len[i]);
		if (pb.count % 2)
			o.v("metaroce.pbundle.padding", 0);
		for (uint32_t i = 0; i < pb.count; i++) {
			uint32_t a = clamp_avail(avail, pb.off[i], pb.len[i]);
			mrc_wire_reason br = MRC_WIRE_OK;
			mrc_pkt p;

			if (!a)
				break;
			// [ENC-13] as mrc_netfuzz::receive() judges a bundled packet
			if (packet_verdict(b + pb.off[i], a, pb.len[i]) == MRC_WIRE_OK) {
				if (a < pb.len[i])
					mrc_wire_parse_hdr(b + pb.off[i], a, pb.len[i], &p);
				else
					mrc_wire_parse(b + pb.off[i], a, &p);
				if (p.type == MRC_PKT_UD_SEND)
					br = MRC_WIRE_E_BAD_TYPE;
				else if (!first && p.dst_qpn != qpn)
					br = MRC_WIRE_E_BAD_FIELD;
				if (first && br == MRC_WIRE_OK) {
					first = false;
					qpn = p.dst_qpn;
				}
			}
			packet_unit(o, b + pb.off[i], a, pb.len[i], int(i), br);
		}
		return;
	}
	n = avail >= 2 ? mrc_wire_bundle_count(b, len) : 1;
	if (n == 1) {
		packet_unit(o, b, avail, len, -1, MRC_WIRE_OK);
		return;
	}
	o.unit(false);
	o.v("metaroce.ackbundle.count", n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t off = i * MRC_WIRE_ACK_PKT_LEN;
		uint32_t a = clamp_avail(avail, off, MRC_WIRE_ACK_PKT_LEN);
		mrc_wire_reason br = MRC_WIRE_OK;

		if (!a)
			break;
		// [ENC-9] only ACKs are bundled
		if (a >= MRC_WIRE_BASE_LEN && b[off + MRC_WO_TYPE] != MRC_PKT_ACK)
			br = MRC_WIRE_E_BAD_TYPE;
		packet_unit(o, b + off, a, MRC_WIRE_ACK_PKT_LEN, int(i), br);
	}
}

}  // namespace mrc_pcap
