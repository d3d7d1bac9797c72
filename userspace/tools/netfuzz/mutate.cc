// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Nearly valid packets: a valid packet with one field off, and the
// verdict [PKT-99] says a receiver must give it. Two kinds: fields the
// stateless checks judge (version, type, header length, flags, lengths,
// offsets, reserved bits, ICRC; the verdict is their reason) and fields
// only the connection can judge (cookie, PSN, MSN, path, QPN: the packet
// parses, MRC_WIRE_OK, and the connection must cope).
#include <algorithm>
#include <cstring>

#include "internal.h"

namespace mrc_netfuzz::detail {

namespace {

constexpr uint16_t kDefined = 0x01ff;	// flag bits 0-8 ([PKT-30])

struct Mut {
	Rng &r;
	const Aim &aim;
	Pkt &k;
	unsigned keep;

	std::vector<uint8_t> &b() { return k.bytes; }
	uint8_t type() const { return k.p.type; }
	uint32_t hdr() const { return mrc_wire_hdr_len(&k.p); }
	uint16_t flags() { return mrc_get_be16(k.bytes.data() + MRC_WO_FLAGS); }
	void set_flags(uint16_t f) { mrc_put_be16(k.bytes.data() + MRC_WO_FLAGS, f); }
	void put32(uint32_t off, uint32_t v) { mrc_put_be32(k.bytes.data() + off, v); }
	void put64(uint32_t off, uint64_t v) { mrc_put_be64(k.bytes.data() + off, v); }
	// re-encode after changing the description: still a valid packet
	bool reencode()
	{
		encode(k);
		return true;
	}
};

bool segmented(uint8_t type)
{
	return type == MRC_PKT_SEND || type == MRC_PKT_WRITE ||
	       type == MRC_PKT_READ_RESP;
}

bool unsequenced(uint8_t type)
{
	return is_ctrl(type) || type == MRC_PKT_UD_SEND;
}

// Offsets of a segment's offset and total length fields.
uint32_t total_off(uint8_t type)
{
	return type == MRC_PKT_SEND ? MRC_WO_SEND_TOTAL :
	       type == MRC_PKT_WRITE ? MRC_WO_WRITE_TOTAL : MRC_WO_RRESP_TOTAL;
}

uint32_t seg_end(const mrc_pkt &p)
{
	uint32_t off = p.type == MRC_PKT_SEND ? p.send.offset :
		       p.type == MRC_PKT_WRITE ? p.write.offset :
		       p.read_resp.offset;
	return off + p.payload_len;
}

// ---- fields the connection judges: the packet stays valid ----

bool cookie_off(Mut &m)
{
	const Target &t = *m.aim.t;
	uint32_t c;

	if (m.type() == MRC_PKT_UD_SEND)
		return false;
	do {
		c = t.cookies ? (is_ctrl(m.type()) ? t.sq_psn : t.rq_psn) +
				1 + m.r.below(255) : m.r.u32();
	} while (t.cookies && (c == t.rq_psn || c == t.sq_psn));
	m.k.p.cookie = c;
	m.k.right = m.k.other = false;
	return m.reencode();
}

// The right cookie where the target may get it, so that only the
// sequence number is off.
void right_cookie(Mut &m)
{
	const Target &t = *m.aim.t;

	if (!m.aim.allow_right || !t.cookies)
		return;
	m.k.p.cookie = is_ctrl(m.type()) ? t.sq_psn : t.rq_psn;
	m.k.right = true;
	m.k.other = false;
}

bool psn_off(Mut &m)
{
	if (unsequenced(m.type()))
		return false;
	right_cookie(m);
	m.k.p.psn += m.r.chance(1, 2) ? 0x80000000u + m.r.below(1u << 30) :
					0u - 1 - m.r.below(1u << 16);
	return m.reencode();
}

bool msn_off(Mut &m)
{
	if (unsequenced(m.type()))
		return false;
	right_cookie(m);
	m.k.p.msn += m.r.range(1u << 10, 0xffffffffu);
	if (m.r.chance(1, 2))
		m.k.p.ssn = m.r.u32();
	return m.reencode();
}

bool path_off(Mut &m)
{
	if (m.type() == MRC_PKT_UD_SEND)
		return false;
	right_cookie(m);
	m.k.p.path_id = static_cast<uint8_t>(m.r.range(m.aim.cfg->npaths, 255));
	return m.reencode();
}

bool qpn_off(Mut &m)
{
	m.k.p.dst_qpn = (m.aim.qpn + (m.r.chance(1, 2) ? 1 : -1)) & MRC_WIRE_QPN_MASK;
	if (m.r.chance(1, 2))
		m.k.p.dst_qpn = m.aim.qpn ^ (1u << m.r.below(24));
	return m.reencode();
}

bool qkey_off(Mut &m)
{
	if (m.type() != MRC_PKT_UD_SEND)
		return false;
	m.k.p.ud.qkey ^= 1u << m.r.below(32);
	m.k.right = false;
	return m.reencode();
}

// ---- fields the stateless checks judge ----

bool version(Mut &m)
{
	m.b()[MRC_WO_VERSION] = m.r.chance(1, 2) ? 0 :
				static_cast<uint8_t>(m.r.range(2, 255));
	return true;
}

bool type_unknown(Mut &m)
{
	if (m.keep & kKeepType)
		return false;
	// 0, or past the last type: 11 would make the datagram a packet
	// bundle, 12 a HELLO
	m.b()[MRC_WO_TYPE] = m.r.chance(1, 4) ? 0 :
			     static_cast<uint8_t>(m.r.range(MRC_PKT_TYPE_LAST + 1, 255));
	return true;
}

bool type_other(Mut &m)
{
	size_t len = m.b().size();
	uint8_t t;

	if (m.keep & kKeepType)
		return false;
	t = static_cast<uint8_t>(m.r.range(1, MRC_PKT_TYPE_MAX));
	if (mrc_wire_ext_len(t) == mrc_wire_ext_len(m.type()))
		return false;
	// an ACK of 100 k bytes would read as an ACK bundle ([ENC-9])
	if (t == MRC_PKT_ACK && len > MRC_WIRE_ACK_PKT_LEN &&
	    len % MRC_WIRE_ACK_PKT_LEN == 0)
		return false;
	m.b()[MRC_WO_TYPE] = t;
	return true;
}

bool hdr_words(Mut &m)
{
	uint8_t w = static_cast<uint8_t>(m.hdr() / 4), v;

	do {
		v = m.r.chance(1, 2) ? static_cast<uint8_t>(w + m.r.range(1, 3)) :
				       static_cast<uint8_t>(m.r.below(256));
	} while (v == w);
	m.b()[MRC_WO_HDR_WORDS] = v;
	return true;
}

bool flag_reserved(Mut &m)
{
	m.set_flags(m.flags() | static_cast<uint16_t>(1u << m.r.range(9, 15)));
	return true;
}

bool flag_not_allowed(Mut &m)
{
	// IMM and INV would change the header length first
	uint16_t bad = kDefined & ~allowed_flags(m.type()) &
		       ~(MRC_F_IMM | MRC_F_INV);
	uint16_t pick;

	if (!bad)
		return false;
	do
		pick = static_cast<uint16_t>(1u << m.r.below(9));
	while (!(pick & bad));
	m.set_flags(m.flags() | pick);
	return true;
}

bool first_last(Mut &m)
{
	if (is_ctrl(m.type()))
		return false;
	if (segmented(m.type()))
		m.set_flags(m.flags() ^ (m.r.chance(1, 2) ? MRC_F_FIRST : MRC_F_LAST));
	else	// single-packet messages clear one of the two
		m.set_flags(m.flags() & ~(m.r.chance(1, 2) ? MRC_F_FIRST : MRC_F_LAST));
	return true;
}

bool imm_and_inv(Mut &m)
{
	if (m.type() != MRC_PKT_SEND || !(m.flags() & (MRC_F_IMM | MRC_F_INV)))
		return false;
	m.set_flags(m.flags() | MRC_F_IMM | MRC_F_INV);
	return true;
}

bool qpn_reserved(Mut &m)
{
	m.b()[MRC_WO_DST_QPN] = static_cast<uint8_t>(m.r.range(1, 255));
	return true;
}

bool seq_on_unsequenced(Mut &m)
{
	static const uint32_t fields[] = { MRC_WO_PSN, MRC_WO_MSN, MRC_WO_SSN };

	if (!unsequenced(m.type()))
		return false;
	if (m.r.chance(1, 4))
		mrc_put_be16(m.b().data() + MRC_WO_STREAM_ID,
			     static_cast<uint16_t>(m.r.range(1, 0xffff)));
	else
		m.put32(fields[m.r.below(3)], m.r.range(1, 0xffffffffu));
	return true;
}

bool payload_extra(Mut &m)
{
	// at most kExtraMax: an ACK never grows to 100 k bytes ([ENC-9])
	size_t n = m.r.range(1, kExtraMax);

	if ((m.keep & kKeepLen) || has_payload(m.type()))
		return false;
	m.b().insert(m.b().end() - MRC_WIRE_ICRC_LEN, n, 0);
	m.r.fill(m.b().data() + m.b().size() - MRC_WIRE_ICRC_LEN - n, n);
	return true;
}

bool total_short(Mut &m)
{
	uint32_t end;

	if (!segmented(m.type()))
		return false;
	end = seg_end(m.k.p);
	if (!end)
		return false;
	m.put32(total_off(m.type()), m.r.below(end));
	return true;
}

bool total_huge(Mut &m)
{
	uint32_t v = m.r.range(MRC_WIRE_MAX_MSG_LEN + 1, 0xffffffffu);

	if (segmented(m.type()))
		m.put32(total_off(m.type()), v);
	else if (m.type() == MRC_PKT_READ_REQ)
		m.put32(MRC_WO_RREQ_LEN, v);
	else
		return false;
	return true;
}

bool empty_segment(Mut &m)
{
	size_t pay = m.k.p.payload_len;

	if ((m.keep & kKeepLen) || !segmented(m.type()) || !pay)
		return false;
	m.b().erase(m.b().begin() + m.hdr(), m.b().begin() + m.hdr() + pay);
	return true;
}

bool va_wrap(Mut &m)
{
	uint32_t len;

	switch (m.type()) {
	case MRC_PKT_WRITE:
		len = m.k.p.write.total_len;
		if (len < 2)
			return false;
		m.put64(MRC_WO_WRITE_VA, ~0ull - m.r.below(len - 1));
		return true;
	case MRC_PKT_READ_REQ:
		len = m.k.p.read_req.len;
		if (len < 2) {
			len = m.r.range(2, MRC_WIRE_MAX_MSG_LEN);
			m.put32(MRC_WO_RREQ_LEN, len);
		}
		m.put64(MRC_WO_RREQ_VA, ~0ull - m.r.below(len - 1));
		return true;
	case MRC_PKT_ATOMIC:
		m.put64(MRC_WO_ATOMIC_VA, ~0ull - m.r.below(7));
		return true;
	}
	return false;
}

bool write_rsn(Mut &m)
{
	if (m.type() != MRC_PKT_WRITE || (m.flags() & MRC_F_IMM))
		return false;
	m.put32(MRC_WO_WRITE_RSN, m.r.range(1, 0xffffffffu));
	return true;
}

bool fetch_add_compare(Mut &m)
{
	if (m.type() != MRC_PKT_ATOMIC)
		return false;
	m.b()[MRC_WO_ATOMIC_OP] = MRC_ATOMIC_FETCH_ADD;
	m.put64(MRC_WO_ATOMIC_COMPARE, m.r.next() | 1);
	return true;
}

bool atomic_op(Mut &m)
{
	if (m.type() != MRC_PKT_ATOMIC)
		return false;
	m.b()[MRC_WO_ATOMIC_OP] = m.r.chance(1, 4) ? 0 :
				  static_cast<uint8_t>(m.r.range(3, 255));
	return true;
}

bool ext_reserved(Mut &m)
{
	switch (m.type()) {
	case MRC_PKT_ATOMIC:
		m.b()[MRC_WO_ATOMIC_OP + m.r.range(1, 3)] = static_cast<uint8_t>(m.r.range(1, 255));
		return true;
	case MRC_PKT_NAK:
		m.b()[MRC_WO_NAK_CODE + m.r.range(1, 3)] = static_cast<uint8_t>(m.r.range(1, 255));
		return true;
	case MRC_PKT_PROBE:
		m.b()[MRC_WO_PROBE_RSVD] = static_cast<uint8_t>(m.r.range(1, 255));
		return true;
	}
	return false;
}

bool nak_code(Mut &m)
{
	if (m.type() != MRC_PKT_NAK)
		return false;
	m.b()[MRC_WO_NAK_CODE] = m.r.chance(1, 4) ? 0 :
				 static_cast<uint8_t>(m.r.range(MRC_NAK_CODE_MAX + 1, 255));
	return true;
}

bool nak_arg(Mut &m)
{
	if (m.type() != MRC_PKT_NAK)
		return false;
	if (m.b()[MRC_WO_NAK_CODE] == MRC_NAK_RNR)
		m.b()[MRC_WO_NAK_CODE] = MRC_NAK_SEQ;
	m.put32(MRC_WO_NAK_ARG, m.r.range(1, 0xffffffffu));
	return true;
}

bool probe_kind(Mut &m)
{
	if (m.type() != MRC_PKT_PROBE)
		return false;
	m.b()[MRC_WO_PROBE_KIND] = m.r.chance(1, 4) ? 0 :
				   static_cast<uint8_t>(m.r.range(3, 255));
	return true;
}

bool probe_version(Mut &m)
{
	uint8_t *b = m.b().data();

	if (m.type() != MRC_PKT_PROBE)
		return false;
	if (m.r.chance(1, 2)) {
		b[MRC_WO_PROBE_MIN_VER] = 0;
	} else {
		b[MRC_WO_PROBE_MIN_VER] = static_cast<uint8_t>(m.r.range(2, 255));
		b[MRC_WO_PROBE_MAX_VER] = static_cast<uint8_t>(m.r.below(b[MRC_WO_PROBE_MIN_VER]));
	}
	return true;
}

bool probe_echo(Mut &m)
{
	if (m.type() != MRC_PKT_PROBE)
		return false;
	m.b()[MRC_WO_PROBE_KIND] = MRC_PROBE_REQ;
	m.put32(m.r.chance(1, 2) ? MRC_WO_PROBE_TSECR : MRC_WO_PROBE_ECHO_LEN,
		m.r.range(1, 0xffffffffu));
	return true;
}

bool ud_connection(Mut &m)
{
	if (m.type() != MRC_PKT_UD_SEND)
		return false;
	switch (m.r.below(3)) {
	case 0:
		m.b()[MRC_WO_PATH_ID] = static_cast<uint8_t>(m.r.range(1, 255));
		break;
	case 1:
		m.put32(MRC_WO_COOKIE, m.r.range(1, 0xffffffffu));
		break;
	default:
		m.b()[MRC_WO_UD_SRC_QPN] = static_cast<uint8_t>(m.r.range(1, 255));
		break;
	}
	return true;
}

bool truncate(Mut &m)
{
	// in a packet bundle, a length under the minimum is the bundle's
	// fault ([ENC-13]), not the packet's
	uint32_t lo = (m.keep & kKeepMin) ? MRC_WIRE_MIN_PKT_LEN : 0;

	if (m.keep & kKeepLen)
		return false;
	m.b().resize(!lo && m.r.chance(1, 4) ? m.r.below(MRC_WIRE_MIN_PKT_LEN) :
		     m.r.range(lo, m.hdr() + MRC_WIRE_ICRC_LEN - 1));
	return true;
}

bool too_long(Mut &m)
{
	if (m.keep & (kKeepLen | kNoHuge))
		return false;
	// only over IPv6: 65507 is the most an IPv4 datagram carries
	m.b().resize(m.r.range(MRC_WIRE_MAX_PKT_LEN + 1, 65535 - 8), 0);
	return true;
}

bool icrc(Mut &m)
{
	m.b()[m.b().size() - 1 - m.r.below(MRC_WIRE_ICRC_LEN)] ^=
		static_cast<uint8_t>(1u << m.r.below(8));
	return true;
}

bool corrupt(Mut &m)
{
	// not bytes 0 and 1: version and type are read before the ICRC
	size_t at = m.r.range(2, static_cast<uint32_t>(m.b().size()) -
				 MRC_WIRE_ICRC_LEN - 1);

	m.b()[at] ^= static_cast<uint8_t>(1u << m.r.below(8));
	return true;
}

struct Mutation {
	const char *name;
	mrc_wire_reason reason;
	uint32_t weight;
	bool reseal;		// write the ICRC again afterwards
	bool (*apply)(Mut &);
};

const Mutation kMutations[] = {
	{ "cookie-off", MRC_WIRE_OK, 6, false, cookie_off },
	{ "psn-off", MRC_WIRE_OK, 4, false, psn_off },
	{ "msn-off", MRC_WIRE_OK, 3, false, msn_off },
	{ "path-off", MRC_WIRE_OK, 3, false, path_off },
	{ "qpn-off", MRC_WIRE_OK, 3, false, qpn_off },
	{ "qkey-off", MRC_WIRE_OK, 3, false, qkey_off },
	{ "version", MRC_WIRE_E_BAD_VERSION, 3, true, version },
	{ "type-unknown", MRC_WIRE_E_BAD_TYPE, 3, true, type_unknown },
	{ "type-other", MRC_WIRE_E_BAD_HDR_LEN, 3, true, type_other },
	{ "hdr-words", MRC_WIRE_E_BAD_HDR_LEN, 3, true, hdr_words },
	{ "flag-reserved", MRC_WIRE_E_RESERVED, 3, true, flag_reserved },
	{ "flag-not-allowed", MRC_WIRE_E_BAD_FLAGS, 3, true, flag_not_allowed },
	{ "first-last", MRC_WIRE_E_BAD_FLAGS, 3, true, first_last },
	{ "imm-and-inv", MRC_WIRE_E_BAD_FLAGS, 3, true, imm_and_inv },
	{ "qpn-reserved", MRC_WIRE_E_RESERVED, 3, true, qpn_reserved },
	{ "seq-unsequenced", MRC_WIRE_E_RESERVED, 3, true, seq_on_unsequenced },
	{ "payload-extra", MRC_WIRE_E_BAD_LENGTH, 3, true, payload_extra },
	{ "total-short", MRC_WIRE_E_BAD_OFFSET, 3, true, total_short },
	{ "total-huge", MRC_WIRE_E_BAD_LENGTH, 3, true, total_huge },
	{ "empty-segment", MRC_WIRE_E_BAD_LENGTH, 3, true, empty_segment },
	{ "va-wrap", MRC_WIRE_E_VA_OVERFLOW, 3, true, va_wrap },
	{ "write-rsn", MRC_WIRE_E_RESERVED, 3, true, write_rsn },
	{ "fetch-add-compare", MRC_WIRE_E_RESERVED, 3, true, fetch_add_compare },
	{ "atomic-op", MRC_WIRE_E_BAD_FIELD, 3, true, atomic_op },
	{ "ext-reserved", MRC_WIRE_E_RESERVED, 3, true, ext_reserved },
	{ "nak-code", MRC_WIRE_E_BAD_FIELD, 3, true, nak_code },
	{ "nak-arg", MRC_WIRE_E_RESERVED, 3, true, nak_arg },
	{ "probe-kind", MRC_WIRE_E_BAD_FIELD, 3, true, probe_kind },
	{ "probe-version", MRC_WIRE_E_BAD_FIELD, 3, true, probe_version },
	{ "probe-echo", MRC_WIRE_E_RESERVED, 3, true, probe_echo },
	{ "ud-connection", MRC_WIRE_E_RESERVED, 3, true, ud_connection },
	{ "truncate", MRC_WIRE_E_TRUNCATED, 3, true, truncate },
	{ "too-long", MRC_WIRE_E_TOO_LONG, 1, true, too_long },
	{ "icrc", MRC_WIRE_E_BAD_CRC, 3, false, icrc },
	{ "corrupt", MRC_WIRE_E_BAD_CRC, 3, false, corrupt },
};

uint32_t total_weight()
{
	uint32_t w = 0;

	for (const auto &m : kMutations)
		w += m.weight;
	return w;
}

}  // namespace

mrc_wire_reason mutate(Rng &r, const Aim &aim, Pkt &k, unsigned keep,
		       std::string &what)
{
	static const uint32_t total = total_weight();
	Mut m{ r, aim, k, keep };

	// draw until one applies to this type; "icrc" always does
	for (int tries = 0;; tries++) {
		const Mutation *mu = &kMutations[0];
		uint32_t w = r.below(total);

		for (const auto &c : kMutations) {
			if (w < c.weight) {
				mu = &c;
				break;
			}
			w -= c.weight;
		}
		if (tries >= 64)
			mu = &kMutations[sizeof(kMutations) / sizeof(kMutations[0]) - 2];
		if (!mu->apply(m))
			continue;
		if (mu->reseal)
			seal(k.bytes);
		what += mu->name;
		return mu->reason;
	}
}

std::vector<std::string> mutation_names()
{
	std::vector<std::string> v;

	for (const auto &m : kMutations)
		v.emplace_back(m.name);
	return v;
}

}  // namespace mrc_netfuzz::detail
