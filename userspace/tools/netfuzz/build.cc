// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Valid packets of every type, written by the core's encoder: the fields
// a peer would send, at the edges of what the spec allows (empty and
// 2^31-byte messages, huge and zero windows, every flag a type may
// carry), aimed at one target with its right or a wrong cookie.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "internal.h"

namespace mrc_netfuzz::detail {

namespace {

constexpr uint16_t kSeqCommon = MRC_F_FIRST | MRC_F_LAST | MRC_F_ACK_REQ |
				MRC_F_RETX | MRC_F_BUNDLES;
constexpr uint16_t kFirstLast = MRC_F_FIRST | MRC_F_LAST;

bool sequenced(uint8_t type)
{
	return type >= MRC_PKT_SEND && type <= MRC_PKT_ATOMIC_RESP;
}

// Some of the flags any packet of its kind may carry.
uint16_t optional_flags(Rng &r, uint8_t type)
{
	uint16_t f = 0;

	if (type != MRC_PKT_UD_SEND && r.chance(1, 2))
		f |= MRC_F_BUNDLES;
	if (sequenced(type)) {
		if (r.chance(1, 4))
			f |= MRC_F_ACK_REQ;
		if (r.chance(1, 8))
			f |= MRC_F_RETX;
	}
	return f;
}

// An address that [va, va + 2^31) never wraps from.
uint64_t addr(Rng &r)
{
	switch (r.below(3)) {
	case 0:
		return static_cast<uint64_t>(r.below(1u << 20)) << 12;
	case 1:
		return 0;
	default:
		return r.next() >> 1;
	}
}

uint32_t small_or_edgy(Rng &r, uint32_t small)
{
	return r.chance(3, 4) ? r.below(small) : r.edgy32();
}

// One segment of a message of a random length: payload, offset and
// total, FIRST and LAST as [PKT-42] wants. @maxpay >= 1.
void segment(Rng &r, Pkt &k, uint32_t maxpay, uint32_t *offset,
	     uint32_t *total)
{
	uint32_t tot, pay = 0, off = 0;

	switch (r.below(4)) {
	case 0:
		tot = 0;
		break;
	case 1:
		tot = r.range(1, 4096);
		break;
	case 2:
		tot = r.range(1, 1u << 20);
		break;
	default:
		tot = r.range(1, MRC_WIRE_MAX_MSG_LEN);
		break;
	}
	if (tot)
		pay = r.range(1, std::min(tot, maxpay));
	if (tot > pay) {
		switch (r.below(3)) {
		case 0:
			off = 0;
			break;
		case 1:
			off = tot - pay;
			break;
		default:
			off = r.range(0, tot - pay);
			break;
		}
	}
	if (off == 0)
		k.p.flags |= MRC_F_FIRST;
	if (off + pay == tot)
		k.p.flags |= MRC_F_LAST;
	k.payload.resize(pay);
	r.fill(k.payload.data(), pay);
	*offset = off;
	*total = tot;
}

// A management datagram's 256 bytes, now and then with a header the MAD
// layer dispatches on (classes CM, SA, performance; CM attributes).
void mad(Rng &r, std::vector<uint8_t> &b)
{
	static const uint8_t classes[] = { 0x07, 0x03, 0x04, 0x81, 0x0a };
	static const uint8_t methods[] = { 0x01, 0x02, 0x03, 0x06, 0x07,
					   0x81, 0x86 };

	b.resize(kMadSize);
	r.fill(b.data(), b.size());
	if (r.chance(1, 4))
		return;
	b[0] = 1;				// base version
	b[1] = classes[r.below(sizeof(classes))];
	b[2] = static_cast<uint8_t>(r.range(1, 3));	// class version
	b[3] = methods[r.below(sizeof(methods))];
	b[4] = b[5] = 0;			// status
	if (b[1] == 0x07 && r.chance(3, 4)) {
		b[16] = 0;			// attribute id: REQ .. APR
		b[17] = static_cast<uint8_t>(r.range(0x10, 0x1a));
	}
}

void build_ext(Rng &r, const Aim &aim, Pkt &k, uint32_t maxpay)
{
	mrc_pkt &p = k.p;
	const Target &t = *aim.t;
	uint32_t off, tot, base = t.cookies ? t.sq_psn : r.u32() & 0xffffff;

	switch (p.type) {
	case MRC_PKT_SEND:
		segment(r, k, maxpay, &off, &tot);
		p.send.rsn = small_or_edgy(r, 64);
		p.send.offset = off;
		p.send.total_len = tot;
		if (p.flags & MRC_F_LAST) {
			if (r.chance(1, 3))
				p.flags |= r.chance(1, 2) ? MRC_F_IMM : MRC_F_INV;
			if (r.chance(1, 4))
				p.flags |= MRC_F_SOLICITED;
			p.imm = r.u32();
		}
		break;
	case MRC_PKT_WRITE:
		segment(r, k, maxpay, &off, &tot);
		p.write.va = addr(r);
		p.write.rkey = r.edgy32();
		p.write.offset = off;
		p.write.total_len = tot;
		if ((p.flags & MRC_F_LAST) && r.chance(1, 3)) {
			p.flags |= MRC_F_IMM;
			p.imm = r.u32();
			p.write.rsn = small_or_edgy(r, 64);
		}
		if ((p.flags & MRC_F_LAST) && r.chance(1, 4))
			p.flags |= MRC_F_SOLICITED;
		break;
	case MRC_PKT_READ_REQ:
		p.flags |= kFirstLast;
		p.read_req.va = addr(r);
		p.read_req.rkey = r.edgy32();
		p.read_req.len = r.chance(1, 8) ? 0 :
				 r.chance(1, 2) ? r.range(1, 1u << 20) :
				 r.range(1, MRC_WIRE_MAX_MSG_LEN);
		p.read_req.resp_tag = r.u32();
		break;
	case MRC_PKT_READ_RESP:
		segment(r, k, maxpay, &off, &tot);
		p.read_resp.resp_tag = small_or_edgy(r, 64);
		p.read_resp.offset = off;
		p.read_resp.total_len = tot;
		break;
	case MRC_PKT_ATOMIC:
		p.flags |= kFirstLast;
		p.atomic.op = r.chance(1, 2) ? MRC_ATOMIC_CMP_SWAP :
					       MRC_ATOMIC_FETCH_ADD;
		p.atomic.va = addr(r) & ~7ull;
		if (r.chance(1, 8))	// misaligned: for the responder to refuse
			p.atomic.va |= r.range(1, 7);
		p.atomic.swap_add = r.edgy64();
		if (p.atomic.op == MRC_ATOMIC_CMP_SWAP)
			p.atomic.compare = r.edgy64();
		p.atomic.rkey = r.edgy32();
		break;
	case MRC_PKT_ATOMIC_RESP:
		p.flags |= kFirstLast;
		p.atomic_resp.orig = r.edgy64();
		break;
	case MRC_PKT_ACK:
		if (r.chance(1, 4))
			p.flags |= MRC_F_CE_ECHO;
		p.ack.cum_psn = r.chance(3, 4) ? base + r.below(4096) : r.edgy32();
		p.ack.tsecr = r.u32();
		p.ack.ack_delay = r.edgy32();
		p.ack.ce_count = r.edgy32();
		p.ack.msn_ack = small_or_edgy(r, 256);
		p.ack.rsn_limit = small_or_edgy(r, 512);
		p.ack.rate_hint = r.edgy32();
		p.ack.rx_max = r.edgy32();
		for (auto &w : p.ack.sack)
			w = r.chance(1, 3) ? 0 : r.chance(1, 2) ? ~0ull : r.next();
		break;
	case MRC_PKT_NAK:
		p.nak.code = static_cast<uint8_t>(r.range(MRC_NAK_ACCESS,
							  MRC_NAK_CODE_MAX));
		p.nak.psn = r.chance(3, 4) ? base + r.below(4096) : r.edgy32();
		p.nak.msn = small_or_edgy(r, 256);
		if (p.nak.code == MRC_NAK_RNR)
			p.nak.arg = r.edgy32();
		break;
	case MRC_PKT_PROBE:
		p.probe.kind = r.chance(1, 2) ? MRC_PROBE_REQ : MRC_PROBE_RESP;
		p.probe.min_ver = static_cast<uint8_t>(r.range(1, 3));
		p.probe.max_ver = static_cast<uint8_t>(r.range(p.probe.min_ver, 255));
		p.probe.seq = r.u32();
		p.probe.caps = r.edgy32();
		if (p.probe.kind == MRC_PROBE_RESP) {
			p.probe.tsecr = r.u32();
			p.probe.echo_len = r.edgy32();
		}
		if (r.chance(1, 4)) {	// padding, zero or not ([PKT-75])
			k.payload.resize(r.range(0, maxpay));
			if (r.chance(1, 2))
				r.fill(k.payload.data(), k.payload.size());
		}
		break;
	case MRC_PKT_UD_SEND:
		p.flags |= kFirstLast;
		if (r.chance(1, 4)) {
			p.flags |= MRC_F_IMM;
			p.imm = r.u32();
		}
		if (r.chance(1, 4))
			p.flags |= MRC_F_SOLICITED;
		if (t.role == Role::Gsi || t.role == Role::Ud) {
			uint32_t good = t.role == Role::Gsi ? MRC_WIRE_GSI_QKEY : t.qkey;

			k.right = r.chance(3, 4);
			p.ud.qkey = k.right ? good : good ^ (1u << r.below(32));
		} else {
			p.ud.qkey = r.chance(1, 4) ? MRC_WIRE_GSI_QKEY : r.u32();
		}
		p.ud.src_qpn = r.below(1u << 24);
		if (t.role == Role::Gsi && r.chance(3, 4) && maxpay >= kMadSize) {
			mad(r, k.payload);
		} else {
			k.payload.resize(r.range(0, r.chance(3, 4) ?
						std::min(maxpay, 300u) : maxpay));
			r.fill(k.payload.data(), k.payload.size());
		}
		break;
	}
}

}  // namespace

bool is_ctrl(uint8_t type)
{
	return type == MRC_PKT_ACK || type == MRC_PKT_NAK ||
	       type == MRC_PKT_PROBE;
}

bool has_payload(uint8_t type)
{
	return type == MRC_PKT_SEND || type == MRC_PKT_WRITE ||
	       type == MRC_PKT_READ_RESP || type == MRC_PKT_PROBE ||
	       type == MRC_PKT_UD_SEND;
}

uint32_t min_len(uint8_t type)
{
	return MRC_WIRE_BASE_LEN + mrc_wire_ext_len(type) + MRC_WIRE_ICRC_LEN;
}

// [PKT-31]
uint16_t allowed_flags(uint8_t type)
{
	switch (type) {
	case MRC_PKT_SEND:
		return kSeqCommon | MRC_F_IMM | MRC_F_INV | MRC_F_SOLICITED;
	case MRC_PKT_WRITE:
		return kSeqCommon | MRC_F_IMM | MRC_F_SOLICITED;
	case MRC_PKT_READ_REQ:
	case MRC_PKT_READ_RESP:
	case MRC_PKT_ATOMIC:
	case MRC_PKT_ATOMIC_RESP:
		return kSeqCommon;
	case MRC_PKT_ACK:
		return MRC_F_CE_ECHO | MRC_F_BUNDLES;
	case MRC_PKT_NAK:
	case MRC_PKT_PROBE:
		return MRC_F_BUNDLES;
	case MRC_PKT_UD_SEND:
		return kFirstLast | MRC_F_IMM | MRC_F_SOLICITED;
	}
	return 0;
}

const char *type_name(uint8_t type)
{
	static const char *const names[] = {
		"type0", "SEND", "WRITE", "READ_REQ", "READ_RESP", "ATOMIC",
		"ATOMIC_RESP", "ACK", "NAK", "PROBE", "UD_SEND", "BUNDLE",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "type?";
}

void encode(Pkt &k)
{
	uint32_t need, len = 0;
	mrc_wire_reason r;

	k.p.payload = k.payload.empty() ? nullptr : k.payload.data();
	k.p.payload_len = static_cast<uint32_t>(k.payload.size());
	need = mrc_wire_hdr_len(&k.p) + k.p.payload_len + MRC_WIRE_ICRC_LEN;
	k.bytes.assign(need, 0);
	r = mrc_wire_encode(&k.p, k.bytes.data(), need, &len);
	if (r != MRC_WIRE_OK || len != need) {
		// a generator bug: meant valid, refused by the core
		fprintf(stderr, "netfuzz: the encoder refused a %s: %s\n",
			type_name(k.p.type), mrc_wire_reason_str(r));
		abort();
	}
}

void seal(std::vector<uint8_t> &b)
{
	if (b.size() >= MRC_WIRE_MIN_PKT_LEN)
		mrc_wire_seal(b.data(), static_cast<uint32_t>(b.size()) -
					MRC_WIRE_ICRC_LEN);
}

void set_cookie(Rng &r, const Aim &aim, Pkt &k)
{
	const Target &t = *aim.t;
	uint32_t good, other, c;

	k.other = false;
	if (k.p.type == MRC_PKT_UD_SEND)
		return;		// [PKT-87] zero; k.right is its Q_Key's
	k.right = false;
	if (!t.cookies) {
		k.p.cookie = r.chance(1, 4) ? r.below(1u << 24) : r.u32();
		return;
	}
	good = is_ctrl(k.p.type) ? t.sq_psn : t.rq_psn;
	other = is_ctrl(k.p.type) ? t.rq_psn : t.sq_psn;
	if (aim.allow_right && r.chance(1, 2)) {
		k.p.cookie = good;
		k.right = true;
		return;
	}
	if (aim.allow_right && !t.protect && r.chance(1, 8)) {
		k.p.cookie = other;
		k.right = other == good;
		k.other = !k.right;
		return;
	}
	do {
		c = r.chance(1, 2) ? good + 1 + r.below(16) : r.u32();
	} while (c == t.rq_psn || c == t.sq_psn);
	k.p.cookie = c;
}

Pkt build(Rng &r, const Aim &aim, uint8_t type, uint32_t room, bool big)
{
	// the largest header of the type, immediate included, and the ICRC
	uint32_t over = MRC_WIRE_BASE_LEN + mrc_wire_ext_len(type) +
			MRC_WIRE_IMM_LEN + MRC_WIRE_ICRC_LEN;
	uint32_t maxpay = room > over ? room - over : 1;
	Pkt k;

	if (big)
		maxpay = MRC_WIRE_MAX_PKT_LEN - over;
	k.p.type = type;
	k.p.dst_qpn = aim.qpn;
	k.p.tsval = r.u32();
	if (type != MRC_PKT_UD_SEND)
		k.p.path_id = static_cast<uint8_t>(r.below(aim.cfg->npaths));
	if (sequenced(type)) {
		const Target &t = *aim.t;
		uint32_t base = t.cookies ? t.rq_psn : r.u32() & 0xffffff;

		k.p.psn = base + r.below(4096);
		k.p.msn = r.below(256);
		k.p.ssn = k.p.msn;
		if (r.chance(1, 8)) {
			k.p.stream_id = static_cast<uint16_t>(r.below(4));
			k.p.ssn = r.below(256);
		}
	}
	k.p.flags = optional_flags(r, type);
	build_ext(r, aim, k, maxpay);
	set_cookie(r, aim, k);
	encode(k);
	return k;
}

Pkt build_sized(Rng &r, const Aim &aim, uint8_t type, uint32_t len)
{
	Pkt k = build(r, aim, type, len, false);
	uint32_t pay = len - mrc_wire_hdr_len(&k.p) - MRC_WIRE_ICRC_LEN;

	k.payload.resize(pay);
	if (type == MRC_PKT_SEND) {
		// the whole message in this one packet
		k.p.send.offset = 0;
		k.p.send.total_len = pay;
		k.p.flags |= MRC_F_FIRST | MRC_F_LAST;
	}
	encode(k);
	return k;
}

}  // namespace mrc_netfuzz::detail
