// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE v1 header encode, parse and validation.
 *
 * One rule set, two directions: mrc_wire_check() holds every semantic rule
 * of Documentation/protocol/packets.rst, the parser runs it on what it
 * decoded and the encoder on what it is asked to write, so whatever we
 * emit, we (and every conforming receiver) accept. The parser reads only
 * within the lengths it is given, allocates nothing and keeps no state.
 */
#include "wire.h"

#define MRC_F_DEFINED	(MRC_F_FIRST | MRC_F_LAST | MRC_F_IMM | MRC_F_INV | \
			 MRC_F_SOLICITED | MRC_F_ACK_REQ | MRC_F_RETX | \
			 MRC_F_CE_ECHO | MRC_F_BUNDLES)
#define MRC_F_SEQ_COMMON (MRC_F_FIRST | MRC_F_LAST | MRC_F_ACK_REQ | MRC_F_RETX | \
			  MRC_F_BUNDLES)

/* [PKT-21] extension length per type; 0 marks an unknown type. */
static const u8 mrc_ext_len[MRC_PKT_TYPE_LAST + 1] = {
	[MRC_PKT_SEND]		= MRC_WIRE_SEND_LEN,
	[MRC_PKT_WRITE]		= MRC_WIRE_WRITE_LEN,
	[MRC_PKT_READ_REQ]	= MRC_WIRE_READ_REQ_LEN,
	[MRC_PKT_READ_RESP]	= MRC_WIRE_READ_RESP_LEN,
	[MRC_PKT_ATOMIC]	= MRC_WIRE_ATOMIC_LEN,
	[MRC_PKT_ATOMIC_RESP]	= MRC_WIRE_ATOMIC_RESP_LEN,
	[MRC_PKT_ACK]		= MRC_WIRE_ACK_LEN,
	[MRC_PKT_NAK]		= MRC_WIRE_NAK_LEN,
	[MRC_PKT_PROBE]		= MRC_WIRE_PROBE_LEN,
	[MRC_PKT_UD_SEND]	= MRC_WIRE_UD_SEND_LEN,
	[MRC_PKT_HELLO]		= MRC_WIRE_HELLO_PKT_LEN,
};

/* [PKT-31] flags each type may carry. */
static const u16 mrc_allowed_flags[MRC_PKT_TYPE_LAST + 1] = {
	[MRC_PKT_SEND]		= MRC_F_SEQ_COMMON | MRC_F_IMM | MRC_F_INV |
				  MRC_F_SOLICITED,
	[MRC_PKT_WRITE]		= MRC_F_SEQ_COMMON | MRC_F_IMM | MRC_F_SOLICITED,
	[MRC_PKT_READ_REQ]	= MRC_F_SEQ_COMMON,
	[MRC_PKT_READ_RESP]	= MRC_F_SEQ_COMMON,
	[MRC_PKT_ATOMIC]	= MRC_F_SEQ_COMMON,
	[MRC_PKT_ATOMIC_RESP]	= MRC_F_SEQ_COMMON,
	[MRC_PKT_ACK]		= MRC_F_CE_ECHO | MRC_F_BUNDLES,
	[MRC_PKT_NAK]		= MRC_F_BUNDLES,
	[MRC_PKT_PROBE]		= MRC_F_BUNDLES,
	[MRC_PKT_UD_SEND]	= MRC_F_FIRST | MRC_F_LAST | MRC_F_IMM |
				  MRC_F_SOLICITED,
	[MRC_PKT_HELLO]		= MRC_F_BUNDLES,
};

static const char * const mrc_reason_names[MRC_WIRE_REASON_COUNT] = {
	[MRC_WIRE_OK]			= "ok",
	[MRC_WIRE_E_TRUNCATED]		= "truncated",
	[MRC_WIRE_E_TOO_LONG]		= "too long",
	[MRC_WIRE_E_BAD_VERSION]	= "bad version",
	[MRC_WIRE_E_BAD_CRC]		= "bad ICRC",
	[MRC_WIRE_E_BAD_TYPE]		= "bad packet type",
	[MRC_WIRE_E_BAD_HDR_LEN]	= "bad header length",
	[MRC_WIRE_E_RESERVED]		= "reserved bits set",
	[MRC_WIRE_E_BAD_FLAGS]		= "bad flags",
	[MRC_WIRE_E_BAD_LENGTH]		= "bad length",
	[MRC_WIRE_E_BAD_OFFSET]		= "offset beyond message",
	[MRC_WIRE_E_VA_OVERFLOW]	= "address range wraps",
	[MRC_WIRE_E_BAD_FIELD]		= "bad field value",
	[MRC_WIRE_E_NO_SPACE]		= "buffer too small",
};

const char *mrc_wire_reason_str(enum mrc_wire_reason r)
{
	if ((unsigned int)r >= MRC_WIRE_REASON_COUNT)
		return "unknown";
	return mrc_reason_names[r];
}

u32 mrc_wire_ext_len(u8 type)
{
	return type <= MRC_PKT_TYPE_LAST ? mrc_ext_len[type] : 0;
}

static bool mrc_has_imm(u16 flags)
{
	return flags & (MRC_F_IMM | MRC_F_INV);
}

u32 mrc_wire_hdr_len(const struct mrc_pkt *pkt)
{
	return MRC_WIRE_BASE_LEN + mrc_wire_ext_len(pkt->type) +
	       (mrc_has_imm(pkt->flags) ? MRC_WIRE_IMM_LEN : 0);
}

static bool mrc_is_sequenced(u8 type)
{
	return type >= MRC_PKT_SEND && type <= MRC_PKT_ATOMIC_RESP;
}

static bool mrc_carries_payload(u8 type)
{
	return type == MRC_PKT_SEND || type == MRC_PKT_WRITE ||
	       type == MRC_PKT_READ_RESP || type == MRC_PKT_PROBE ||
	       type == MRC_PKT_UD_SEND || type == MRC_PKT_HELLO;
}

/* Reserved bytes inside an extension must be zero ([PKT-12]). */
static bool mrc_zero(const u8 *p, u32 n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* [PKT-90] the record's values, whichever way it travels. */
static bool mrc_hello_valid(const struct mrc_hello *h)
{
	return h->min_ver && h->min_ver <= h->max_ver && h->max_paths &&
	       h->max_streams && h->seg_shift >= MRC_HELLO_SEG_SHIFT_MIN &&
	       h->seg_shift <= MRC_HELLO_SEG_SHIFT_MAX;
}

/* [PKT-92] a HELLO's plane table and the padding after it. */
static enum mrc_wire_reason mrc_check_planes(const struct mrc_pkt *pkt)
{
	const u8 *t = pkt->payload;
	u32 k, table = pkt->hello.nplanes * MRC_WIRE_PLANE_LEN;

	for (k = 0; k < pkt->hello.nplanes; k++) {
		const u8 *e = t + k * MRC_WIRE_PLANE_LEN;
		u8 fam = e[MRC_WO_PLANE_FAMILY];

		if (fam != 0 && fam != 4 && fam != 6)
			return MRC_WIRE_E_BAD_FIELD;
		if (!mrc_zero(e + MRC_WO_PLANE_RSVD, 3))
			return MRC_WIRE_E_RESERVED;
		/* no address, or an IPv4 one: the rest is zero */
		if (fam != 6 && !mrc_zero(e + MRC_WO_PLANE_ADDR + (fam ? 4 : 0),
					  fam ? 12 : 16))
			return MRC_WIRE_E_RESERVED;
	}
	return mrc_zero(t + table, pkt->payload_len - table) ?
	       MRC_WIRE_OK : MRC_WIRE_E_RESERVED;
}

static enum mrc_wire_reason mrc_check_hello(const struct mrc_pkt *pkt)
{
	const struct mrc_pkt_hello *h = &pkt->hello;

	if (h->kind != MRC_HELLO_OFFER && h->kind != MRC_HELLO_ANSWER)
		return MRC_WIRE_E_BAD_FIELD;
	if (!h->nplanes || h->nplanes > MRC_WIRE_HELLO_PLANES_MAX)
		return MRC_WIRE_E_BAD_FIELD;
	if (pkt->path_id)
		return MRC_WIRE_E_RESERVED;
	if (pkt->payload_len < h->nplanes * MRC_WIRE_PLANE_LEN ||
	    pkt->payload_len > MRC_WIRE_HELLO_TABLE_MAX)
		return MRC_WIRE_E_BAD_LENGTH;
	if (!mrc_hello_valid(&h->rec))
		return MRC_WIRE_E_BAD_FIELD;
	/* the table is checked where it lies: never left in fragments */
	if (!pkt->payload)
		return MRC_WIRE_E_TRUNCATED;
	return mrc_check_planes(pkt);
}

/* [PKT-40..44] one segment of a SEND, WRITE or READ_RESP message. */
static enum mrc_wire_reason mrc_check_segment(u16 flags, u32 offset,
					      u32 payload_len, u32 total_len)
{
	u64 end = (u64)offset + payload_len;
	bool first = offset == 0, last = end == total_len;

	if (total_len > MRC_WIRE_MAX_MSG_LEN)
		return MRC_WIRE_E_BAD_LENGTH;
	if (end > total_len)
		return MRC_WIRE_E_BAD_OFFSET;
	if (!payload_len && total_len)
		return MRC_WIRE_E_BAD_LENGTH;
	if (!!(flags & MRC_F_FIRST) != first || !!(flags & MRC_F_LAST) != last)
		return MRC_WIRE_E_BAD_FLAGS;
	return MRC_WIRE_OK;
}

static enum mrc_wire_reason mrc_check_ext(const struct mrc_pkt *pkt)
{
	const u16 first_last = MRC_F_FIRST | MRC_F_LAST;

	switch (pkt->type) {
	case MRC_PKT_SEND:
		return mrc_check_segment(pkt->flags, pkt->send.offset,
					 pkt->payload_len, pkt->send.total_len);
	case MRC_PKT_WRITE:
		/* [PKT-47] only a WRITE with immediate consumes a receive */
		if (pkt->write.rsn && !(pkt->flags & MRC_F_IMM))
			return MRC_WIRE_E_RESERVED;
		if (mrc_wire_va_wraps(pkt->write.va, pkt->write.total_len))
			return MRC_WIRE_E_VA_OVERFLOW;
		return mrc_check_segment(pkt->flags, pkt->write.offset,
					 pkt->payload_len, pkt->write.total_len);
	case MRC_PKT_READ_RESP:
		return mrc_check_segment(pkt->flags, pkt->read_resp.offset,
					 pkt->payload_len,
					 pkt->read_resp.total_len);
	case MRC_PKT_READ_REQ:
		if ((pkt->flags & first_last) != first_last)
			return MRC_WIRE_E_BAD_FLAGS;
		if (pkt->read_req.len > MRC_WIRE_MAX_MSG_LEN)
			return MRC_WIRE_E_BAD_LENGTH;
		if (mrc_wire_va_wraps(pkt->read_req.va, pkt->read_req.len))
			return MRC_WIRE_E_VA_OVERFLOW;
		return MRC_WIRE_OK;
	case MRC_PKT_ATOMIC:
		if ((pkt->flags & first_last) != first_last)
			return MRC_WIRE_E_BAD_FLAGS;
		if (pkt->atomic.op != MRC_ATOMIC_CMP_SWAP &&
		    pkt->atomic.op != MRC_ATOMIC_FETCH_ADD)
			return MRC_WIRE_E_BAD_FIELD;
		if (pkt->atomic.op == MRC_ATOMIC_FETCH_ADD &&
		    pkt->atomic.compare)
			return MRC_WIRE_E_RESERVED;
		if (mrc_wire_va_wraps(pkt->atomic.va, sizeof(u64)))
			return MRC_WIRE_E_VA_OVERFLOW;
		return MRC_WIRE_OK;
	case MRC_PKT_ATOMIC_RESP:
		if ((pkt->flags & first_last) != first_last)
			return MRC_WIRE_E_BAD_FLAGS;
		return MRC_WIRE_OK;
	case MRC_PKT_ACK:
		return MRC_WIRE_OK;
	case MRC_PKT_NAK:
		if (pkt->nak.code < MRC_NAK_ACCESS ||
		    pkt->nak.code > MRC_NAK_CODE_MAX)
			return MRC_WIRE_E_BAD_FIELD;
		if (pkt->nak.code != MRC_NAK_RNR && pkt->nak.arg)
			return MRC_WIRE_E_RESERVED;
		return MRC_WIRE_OK;
	case MRC_PKT_PROBE:
		if (pkt->probe.kind != MRC_PROBE_REQ &&
		    pkt->probe.kind != MRC_PROBE_RESP)
			return MRC_WIRE_E_BAD_FIELD;
		if (!pkt->probe.min_ver ||
		    pkt->probe.min_ver > pkt->probe.max_ver)
			return MRC_WIRE_E_BAD_FIELD;
		if (pkt->probe.kind == MRC_PROBE_REQ &&
		    (pkt->probe.tsecr || pkt->probe.echo_len))
			return MRC_WIRE_E_RESERVED;
		return MRC_WIRE_OK;
	case MRC_PKT_HELLO:
		return mrc_check_hello(pkt);
	case MRC_PKT_UD_SEND:
		/* [PKT-87] one packet per message, no connection fields */
		if ((pkt->flags & first_last) != first_last)
			return MRC_WIRE_E_BAD_FLAGS;
		if (pkt->path_id || pkt->cookie ||
		    (pkt->ud.src_qpn & ~MRC_WIRE_QPN_MASK))
			return MRC_WIRE_E_RESERVED;
		return MRC_WIRE_OK;
	}
	return MRC_WIRE_E_BAD_TYPE;
}

u32 mrc_wire_bundle_count(const u8 *buf, u32 len)
{
	/* a lone ACK has no payload: anything longer is a bundle or invalid */
	if (len <= MRC_WIRE_ACK_PKT_LEN || len % MRC_WIRE_ACK_PKT_LEN ||
	    len / MRC_WIRE_ACK_PKT_LEN > MRC_WIRE_BUNDLE_MAX ||
	    buf[MRC_WO_TYPE] != MRC_PKT_ACK)
		return 1;
	return len / MRC_WIRE_ACK_PKT_LEN;
}

enum mrc_wire_reason mrc_wire_pbundle_parse(const u8 *buf, u32 avail,
					    u32 len,
					    struct mrc_wire_pbundle *out)
{
	u32 i, n, off;

	if (len > MRC_WIRE_MAX_PKT_LEN)
		return MRC_WIRE_E_TOO_LONG;
	if (avail > len)
		avail = len;
	if (avail < MRC_WO_PBUNDLE_LENS)
		return MRC_WIRE_E_TRUNCATED;
	if (buf[MRC_WO_VERSION] != MRC_WIRE_VERSION)
		return MRC_WIRE_E_BAD_VERSION;
	if (buf[MRC_WO_TYPE] != MRC_PKT_BUNDLE)
		return MRC_WIRE_E_BAD_TYPE;
	n = buf[MRC_WO_PBUNDLE_COUNT];
	if (n < MRC_WIRE_PBUNDLE_MIN || n > MRC_WIRE_PBUNDLE_MAX)
		return MRC_WIRE_E_BAD_LENGTH;
	off = mrc_wire_pbundle_hdr_len(n);
	if (avail < off)
		return MRC_WIRE_E_TRUNCATED;
	/* the reserved byte and an odd count's padding */
	if (buf[MRC_WO_PBUNDLE_RSVD] || (n % 2 && mrc_get_be16(buf + MRC_WO_PBUNDLE_LENS + 2 * n)))
		return MRC_WIRE_E_RESERVED;
	out->count = n;
	out->hdr_len = off;
	for (i = 0; i < n; i++) {
		u32 plen = mrc_get_be16(buf + MRC_WO_PBUNDLE_LENS + 2 * i);

		if (plen < MRC_WIRE_MIN_PKT_LEN || plen > len - off)
			return MRC_WIRE_E_BAD_LENGTH;
		out->off[i] = (u16)off;
		out->len[i] = (u16)plen;
		off += plen;
	}
	/* nothing may follow the last packet */
	return off == len ? MRC_WIRE_OK : MRC_WIRE_E_BAD_LENGTH;
}

enum mrc_wire_reason mrc_wire_pbundle_encode_hdr(const u16 *lens, u32 count,
						 u8 *buf, u32 cap)
{
	u32 i, hlen = mrc_wire_pbundle_hdr_len(count), total;

	if (count < MRC_WIRE_PBUNDLE_MIN || count > MRC_WIRE_PBUNDLE_MAX)
		return MRC_WIRE_E_BAD_LENGTH;
	if (cap < hlen)
		return MRC_WIRE_E_NO_SPACE;
	total = hlen;
	for (i = 0; i < count; i++) {
		if (lens[i] < MRC_WIRE_MIN_PKT_LEN)
			return MRC_WIRE_E_BAD_LENGTH;
		total += lens[i];
	}
	if (total > MRC_WIRE_MAX_PKT_LEN)
		return MRC_WIRE_E_TOO_LONG;
	buf[MRC_WO_VERSION] = MRC_WIRE_VERSION;
	buf[MRC_WO_TYPE] = MRC_PKT_BUNDLE;
	buf[MRC_WO_PBUNDLE_COUNT] = (u8)count;
	buf[MRC_WO_PBUNDLE_RSVD] = 0;
	for (i = 0; i < count; i++)
		mrc_put_be16(buf + MRC_WO_PBUNDLE_LENS + 2 * i, lens[i]);
	if (count % 2)
		mrc_put_be16(buf + MRC_WO_PBUNDLE_LENS + 2 * count, 0);
	return MRC_WIRE_OK;
}

enum mrc_wire_reason mrc_wire_check(const struct mrc_pkt *pkt)
{
	u16 flags = pkt->flags;
	u64 total;

	if (!mrc_wire_ext_len(pkt->type))
		return MRC_WIRE_E_BAD_TYPE;
	if (flags & ~MRC_F_DEFINED)
		return MRC_WIRE_E_RESERVED;
	if (flags & ~mrc_allowed_flags[pkt->type])
		return MRC_WIRE_E_BAD_FLAGS;
	if ((flags & MRC_F_IMM) && (flags & MRC_F_INV))
		return MRC_WIRE_E_BAD_FLAGS;
	if ((flags & (MRC_F_IMM | MRC_F_INV | MRC_F_SOLICITED)) &&
	    !(flags & MRC_F_LAST))
		return MRC_WIRE_E_BAD_FLAGS;
	if (pkt->dst_qpn & ~MRC_WIRE_QPN_MASK)
		return MRC_WIRE_E_RESERVED;
	if (!mrc_is_sequenced(pkt->type) &&
	    (pkt->psn || pkt->msn || pkt->ssn || pkt->stream_id))
		return MRC_WIRE_E_RESERVED;
	if (pkt->payload_len && !mrc_carries_payload(pkt->type))
		return MRC_WIRE_E_BAD_LENGTH;
	total = (u64)mrc_wire_hdr_len(pkt) + pkt->payload_len +
		MRC_WIRE_ICRC_LEN;
	if (total > MRC_WIRE_MAX_PKT_LEN)
		return MRC_WIRE_E_TOO_LONG;
	return mrc_check_ext(pkt);
}

static void mrc_put_ext(const struct mrc_pkt *pkt, u8 *b)
{
	int i;

	switch (pkt->type) {
	case MRC_PKT_SEND:
		mrc_put_be32(b + MRC_WO_SEND_RSN, pkt->send.rsn);
		mrc_put_be32(b + MRC_WO_SEND_OFFSET, pkt->send.offset);
		mrc_put_be32(b + MRC_WO_SEND_TOTAL, pkt->send.total_len);
		break;
	case MRC_PKT_WRITE:
		mrc_put_be64(b + MRC_WO_WRITE_VA, pkt->write.va);
		mrc_put_be32(b + MRC_WO_WRITE_RKEY, pkt->write.rkey);
		mrc_put_be32(b + MRC_WO_WRITE_OFFSET, pkt->write.offset);
		mrc_put_be32(b + MRC_WO_WRITE_TOTAL, pkt->write.total_len);
		mrc_put_be32(b + MRC_WO_WRITE_RSN, pkt->write.rsn);
		break;
	case MRC_PKT_READ_REQ:
		mrc_put_be64(b + MRC_WO_RREQ_VA, pkt->read_req.va);
		mrc_put_be32(b + MRC_WO_RREQ_RKEY, pkt->read_req.rkey);
		mrc_put_be32(b + MRC_WO_RREQ_LEN, pkt->read_req.len);
		mrc_put_be32(b + MRC_WO_RREQ_TAG, pkt->read_req.resp_tag);
		break;
	case MRC_PKT_READ_RESP:
		mrc_put_be32(b + MRC_WO_RRESP_TAG, pkt->read_resp.resp_tag);
		mrc_put_be32(b + MRC_WO_RRESP_OFFSET, pkt->read_resp.offset);
		mrc_put_be32(b + MRC_WO_RRESP_TOTAL, pkt->read_resp.total_len);
		break;
	case MRC_PKT_ATOMIC:
		mrc_put_be64(b + MRC_WO_ATOMIC_VA, pkt->atomic.va);
		mrc_put_be64(b + MRC_WO_ATOMIC_SWAP_ADD, pkt->atomic.swap_add);
		mrc_put_be64(b + MRC_WO_ATOMIC_COMPARE, pkt->atomic.compare);
		mrc_put_be32(b + MRC_WO_ATOMIC_RKEY, pkt->atomic.rkey);
		b[MRC_WO_ATOMIC_OP] = pkt->atomic.op;
		break;
	case MRC_PKT_ATOMIC_RESP:
		mrc_put_be64(b + MRC_WO_ARESP_ORIG, pkt->atomic_resp.orig);
		break;
	case MRC_PKT_ACK:
		mrc_put_be32(b + MRC_WO_ACK_CUM_PSN, pkt->ack.cum_psn);
		mrc_put_be32(b + MRC_WO_ACK_TSECR, pkt->ack.tsecr);
		mrc_put_be32(b + MRC_WO_ACK_DELAY, pkt->ack.ack_delay);
		mrc_put_be32(b + MRC_WO_ACK_CE_COUNT, pkt->ack.ce_count);
		mrc_put_be32(b + MRC_WO_ACK_MSN, pkt->ack.msn_ack);
		mrc_put_be32(b + MRC_WO_ACK_RSN_LIMIT, pkt->ack.rsn_limit);
		mrc_put_be32(b + MRC_WO_ACK_RATE, pkt->ack.rate_hint);
		mrc_put_be32(b + MRC_WO_ACK_RX_MAX, pkt->ack.rx_max);
		for (i = 0; i < MRC_WIRE_SACK_WORDS; i++)
			mrc_put_be64(b + MRC_WO_ACK_SACK + 8 * i,
				     pkt->ack.sack[i]);
		break;
	case MRC_PKT_NAK:
		b[MRC_WO_NAK_CODE] = pkt->nak.code;
		mrc_put_be32(b + MRC_WO_NAK_PSN, pkt->nak.psn);
		mrc_put_be32(b + MRC_WO_NAK_MSN, pkt->nak.msn);
		mrc_put_be32(b + MRC_WO_NAK_ARG, pkt->nak.arg);
		break;
	case MRC_PKT_PROBE:
		b[MRC_WO_PROBE_KIND] = pkt->probe.kind;
		b[MRC_WO_PROBE_MIN_VER] = pkt->probe.min_ver;
		b[MRC_WO_PROBE_MAX_VER] = pkt->probe.max_ver;
		mrc_put_be32(b + MRC_WO_PROBE_SEQ, pkt->probe.seq);
		mrc_put_be32(b + MRC_WO_PROBE_TSECR, pkt->probe.tsecr);
		mrc_put_be32(b + MRC_WO_PROBE_CAPS, pkt->probe.caps);
		mrc_put_be32(b + MRC_WO_PROBE_ECHO_LEN, pkt->probe.echo_len);
		break;
	case MRC_PKT_UD_SEND:
		mrc_put_be32(b + MRC_WO_UD_QKEY, pkt->ud.qkey);
		mrc_put_be32(b + MRC_WO_UD_SRC_QPN, pkt->ud.src_qpn);
		break;
	case MRC_PKT_HELLO:
		b[MRC_WO_HELLO_KIND] = pkt->hello.kind;
		b[MRC_WO_HELLO_NPLANES] = pkt->hello.nplanes;
		/* checked by mrc_wire_check(): cannot fail */
		mrc_hello_encode(&pkt->hello.rec, b + MRC_WO_HELLO_RECORD,
				 MRC_HELLO_LEN);
		break;
	}
}

/* Write the headers of an already checked packet; returns their length. */
static u32 mrc_put_hdr(const struct mrc_pkt *pkt, u8 *buf)
{
	u32 len = mrc_wire_hdr_len(pkt);

	/* [PKT-12] reserved bytes are zero: clear, then fill the fields. */
	memset(buf, 0, len);
	buf[MRC_WO_VERSION] = MRC_WIRE_VERSION;
	buf[MRC_WO_TYPE] = pkt->type;
	buf[MRC_WO_HDR_WORDS] = (u8)(len / 4);
	buf[MRC_WO_PATH_ID] = pkt->path_id;
	mrc_put_be16(buf + MRC_WO_FLAGS, pkt->flags);
	mrc_put_be16(buf + MRC_WO_STREAM_ID, pkt->stream_id);
	mrc_put_be32(buf + MRC_WO_DST_QPN, pkt->dst_qpn);
	mrc_put_be32(buf + MRC_WO_PSN, pkt->psn);
	mrc_put_be32(buf + MRC_WO_MSN, pkt->msn);
	mrc_put_be32(buf + MRC_WO_SSN, pkt->ssn);
	mrc_put_be32(buf + MRC_WO_TSVAL, pkt->tsval);
	mrc_put_be32(buf + MRC_WO_COOKIE, pkt->cookie);
	mrc_put_ext(pkt, buf);
	if (mrc_has_imm(pkt->flags))
		mrc_put_be32(buf + len - MRC_WIRE_IMM_LEN, pkt->imm);
	return len;
}

enum mrc_wire_reason mrc_wire_encode_hdr(const struct mrc_pkt *pkt, u8 *buf,
					 u32 cap, u32 *hdr_len)
{
	enum mrc_wire_reason r = mrc_wire_check(pkt);

	if (r != MRC_WIRE_OK)
		return r;
	if (cap < mrc_wire_hdr_len(pkt))
		return MRC_WIRE_E_NO_SPACE;
	*hdr_len = mrc_put_hdr(pkt, buf);
	return MRC_WIRE_OK;
}

enum mrc_wire_reason mrc_wire_encode(const struct mrc_pkt *pkt, u8 *buf,
				     u32 cap, u32 *len)
{
	enum mrc_wire_reason r = mrc_wire_check(pkt);
	u32 hdr_len, body;

	if (r != MRC_WIRE_OK)
		return r;
	/* mrc_wire_check() bounded the total by MRC_WIRE_MAX_PKT_LEN. */
	body = mrc_wire_hdr_len(pkt) + pkt->payload_len;
	if (cap < body + MRC_WIRE_ICRC_LEN)
		return MRC_WIRE_E_NO_SPACE;
	hdr_len = mrc_put_hdr(pkt, buf);
	if (pkt->payload_len)
		memcpy(buf + hdr_len, pkt->payload, pkt->payload_len);
	mrc_wire_seal(buf, body);
	*len = body + MRC_WIRE_ICRC_LEN;
	return MRC_WIRE_OK;
}

static enum mrc_wire_reason mrc_get_ext(struct mrc_pkt *pkt, const u8 *b)
{
	int i;

	switch (pkt->type) {
	case MRC_PKT_SEND:
		pkt->send.rsn = mrc_get_be32(b + MRC_WO_SEND_RSN);
		pkt->send.offset = mrc_get_be32(b + MRC_WO_SEND_OFFSET);
		pkt->send.total_len = mrc_get_be32(b + MRC_WO_SEND_TOTAL);
		break;
	case MRC_PKT_WRITE:
		pkt->write.va = mrc_get_be64(b + MRC_WO_WRITE_VA);
		pkt->write.rkey = mrc_get_be32(b + MRC_WO_WRITE_RKEY);
		pkt->write.offset = mrc_get_be32(b + MRC_WO_WRITE_OFFSET);
		pkt->write.total_len = mrc_get_be32(b + MRC_WO_WRITE_TOTAL);
		pkt->write.rsn = mrc_get_be32(b + MRC_WO_WRITE_RSN);
		break;
	case MRC_PKT_READ_REQ:
		pkt->read_req.va = mrc_get_be64(b + MRC_WO_RREQ_VA);
		pkt->read_req.rkey = mrc_get_be32(b + MRC_WO_RREQ_RKEY);
		pkt->read_req.len = mrc_get_be32(b + MRC_WO_RREQ_LEN);
		pkt->read_req.resp_tag = mrc_get_be32(b + MRC_WO_RREQ_TAG);
		break;
	case MRC_PKT_READ_RESP:
		pkt->read_resp.resp_tag = mrc_get_be32(b + MRC_WO_RRESP_TAG);
		pkt->read_resp.offset = mrc_get_be32(b + MRC_WO_RRESP_OFFSET);
		pkt->read_resp.total_len = mrc_get_be32(b + MRC_WO_RRESP_TOTAL);
		break;
	case MRC_PKT_ATOMIC:
		pkt->atomic.va = mrc_get_be64(b + MRC_WO_ATOMIC_VA);
		pkt->atomic.swap_add = mrc_get_be64(b + MRC_WO_ATOMIC_SWAP_ADD);
		pkt->atomic.compare = mrc_get_be64(b + MRC_WO_ATOMIC_COMPARE);
		pkt->atomic.rkey = mrc_get_be32(b + MRC_WO_ATOMIC_RKEY);
		pkt->atomic.op = b[MRC_WO_ATOMIC_OP];
		if (!mrc_zero(b + MRC_WO_ATOMIC_OP + 1, 3))
			return MRC_WIRE_E_RESERVED;
		break;
	case MRC_PKT_ATOMIC_RESP:
		pkt->atomic_resp.orig = mrc_get_be64(b + MRC_WO_ARESP_ORIG);
		break;
	case MRC_PKT_ACK:
		pkt->ack.cum_psn = mrc_get_be32(b + MRC_WO_ACK_CUM_PSN);
		pkt->ack.tsecr = mrc_get_be32(b + MRC_WO_ACK_TSECR);
		pkt->ack.ack_delay = mrc_get_be32(b + MRC_WO_ACK_DELAY);
		pkt->ack.ce_count = mrc_get_be32(b + MRC_WO_ACK_CE_COUNT);
		pkt->ack.msn_ack = mrc_get_be32(b + MRC_WO_ACK_MSN);
		pkt->ack.rsn_limit = mrc_get_be32(b + MRC_WO_ACK_RSN_LIMIT);
		pkt->ack.rate_hint = mrc_get_be32(b + MRC_WO_ACK_RATE);
		pkt->ack.rx_max = mrc_get_be32(b + MRC_WO_ACK_RX_MAX);
		for (i = 0; i < MRC_WIRE_SACK_WORDS; i++)
			pkt->ack.sack[i] =
				mrc_get_be64(b + MRC_WO_ACK_SACK + 8 * i);
		break;
	case MRC_PKT_NAK:
		pkt->nak.code = b[MRC_WO_NAK_CODE];
		if (!mrc_zero(b + MRC_WO_NAK_CODE + 1, 3))
			return MRC_WIRE_E_RESERVED;
		pkt->nak.psn = mrc_get_be32(b + MRC_WO_NAK_PSN);
		pkt->nak.msn = mrc_get_be32(b + MRC_WO_NAK_MSN);
		pkt->nak.arg = mrc_get_be32(b + MRC_WO_NAK_ARG);
		break;
	case MRC_PKT_PROBE:
		pkt->probe.kind = b[MRC_WO_PROBE_KIND];
		pkt->probe.min_ver = b[MRC_WO_PROBE_MIN_VER];
		pkt->probe.max_ver = b[MRC_WO_PROBE_MAX_VER];
		if (b[MRC_WO_PROBE_RSVD])
			return MRC_WIRE_E_RESERVED;
		pkt->probe.seq = mrc_get_be32(b + MRC_WO_PROBE_SEQ);
		pkt->probe.tsecr = mrc_get_be32(b + MRC_WO_PROBE_TSECR);
		pkt->probe.caps = mrc_get_be32(b + MRC_WO_PROBE_CAPS);
		pkt->probe.echo_len = mrc_get_be32(b + MRC_WO_PROBE_ECHO_LEN);
		break;
	case MRC_PKT_UD_SEND:
		pkt->ud.qkey = mrc_get_be32(b + MRC_WO_UD_QKEY);
		pkt->ud.src_qpn = mrc_get_be32(b + MRC_WO_UD_SRC_QPN);
		break;
	case MRC_PKT_HELLO:
		pkt->hello.kind = b[MRC_WO_HELLO_KIND];
		pkt->hello.nplanes = b[MRC_WO_HELLO_NPLANES];
		if (mrc_get_be16(b + MRC_WO_HELLO_PKT_RSVD))
			return MRC_WIRE_E_RESERVED;
		return mrc_hello_parse(b + MRC_WO_HELLO_RECORD, MRC_HELLO_LEN,
				       &pkt->hello.rec);
	}
	return MRC_WIRE_OK;
}

/* Outer checks shared by both parse entry points ([PKT-11], [PKT-13]). */
static enum mrc_wire_reason mrc_check_outer(const u8 *buf, u32 avail,
					    u32 pkt_len)
{
	if (pkt_len < MRC_WIRE_MIN_PKT_LEN || avail < 1)
		return MRC_WIRE_E_TRUNCATED;
	if (pkt_len > MRC_WIRE_MAX_PKT_LEN)
		return MRC_WIRE_E_TOO_LONG;
	if (buf[MRC_WO_VERSION] != MRC_WIRE_VERSION)
		return MRC_WIRE_E_BAD_VERSION;
	return MRC_WIRE_OK;
}

/* Decode and validate the headers; the ICRC has been dealt with. */
static enum mrc_wire_reason mrc_decode(const u8 *buf, u32 avail, u32 pkt_len,
				       struct mrc_pkt *out)
{
	enum mrc_wire_reason r;
	u32 hdr_len, ext_len;

	if (avail < MRC_WIRE_BASE_LEN)
		return MRC_WIRE_E_TRUNCATED;
	memset(out, 0, sizeof(*out));
	out->type = buf[MRC_WO_TYPE];
	ext_len = mrc_wire_ext_len(out->type);
	if (!ext_len)
		return MRC_WIRE_E_BAD_TYPE;
	out->flags = mrc_get_be16(buf + MRC_WO_FLAGS);
	if (out->flags & ~MRC_F_DEFINED)
		return MRC_WIRE_E_RESERVED;

	/* [PKT-11] the header length is implied by type and flags. */
	hdr_len = (u32)buf[MRC_WO_HDR_WORDS] * 4;
	if (hdr_len != mrc_wire_hdr_len(out))
		return MRC_WIRE_E_BAD_HDR_LEN;
	if (hdr_len + MRC_WIRE_ICRC_LEN > pkt_len || hdr_len > avail)
		return MRC_WIRE_E_TRUNCATED;

	out->path_id = buf[MRC_WO_PATH_ID];
	out->stream_id = mrc_get_be16(buf + MRC_WO_STREAM_ID);
	out->dst_qpn = mrc_get_be32(buf + MRC_WO_DST_QPN);
	out->psn = mrc_get_be32(buf + MRC_WO_PSN);
	out->msn = mrc_get_be32(buf + MRC_WO_MSN);
	out->ssn = mrc_get_be32(buf + MRC_WO_SSN);
	out->tsval = mrc_get_be32(buf + MRC_WO_TSVAL);
	out->cookie = mrc_get_be32(buf + MRC_WO_COOKIE);
	out->imm = mrc_has_imm(out->flags) ?
		   mrc_get_be32(buf + hdr_len - MRC_WIRE_IMM_LEN) : 0;
	r = mrc_get_ext(out, buf);
	if (r != MRC_WIRE_OK)
		return r;

	out->hdr_len = hdr_len;
	out->payload_len = pkt_len - hdr_len - MRC_WIRE_ICRC_LEN;
	out->payload = out->payload_len <= avail - hdr_len ?
		       buf + hdr_len : NULL;
	return mrc_wire_check(out);
}

enum mrc_wire_reason mrc_wire_parse(const u8 *buf, u32 len,
				    struct mrc_pkt *out)
{
	enum mrc_wire_reason r = mrc_check_outer(buf, len, len);
	u32 body;

	if (r != MRC_WIRE_OK)
		return r;
	body = len - MRC_WIRE_ICRC_LEN;
	/* [INT-5] integrity first: a corrupted header explains nothing. */
	if (mrc_wire_icrc(buf, body) != mrc_get_be32(buf + body))
		return MRC_WIRE_E_BAD_CRC;
	return mrc_decode(buf, len, len, out);
}

enum mrc_wire_reason mrc_wire_parse_hdr(const u8 *buf, u32 avail, u32 pkt_len,
					struct mrc_pkt *out)
{
	enum mrc_wire_reason r = mrc_check_outer(buf, avail, pkt_len);

	if (r != MRC_WIRE_OK)
		return r;
	if (avail > pkt_len)
		avail = pkt_len;
	return mrc_decode(buf, avail, pkt_len, out);
}

enum mrc_wire_reason mrc_hello_encode(const struct mrc_hello *h, u8 *buf,
				      u32 cap)
{
	if (!mrc_hello_valid(h))
		return MRC_WIRE_E_BAD_FIELD;
	if (cap < MRC_HELLO_LEN)
		return MRC_WIRE_E_NO_SPACE;
	memset(buf, 0, MRC_HELLO_LEN);
	mrc_put_be32(buf + MRC_WO_HELLO_MAGIC, MRC_HELLO_MAGIC);
	buf[MRC_WO_HELLO_MIN_VER] = h->min_ver;
	buf[MRC_WO_HELLO_MAX_VER] = h->max_ver;
	buf[MRC_WO_HELLO_MAX_PATHS] = h->max_paths;
	buf[MRC_WO_HELLO_SEG_SHIFT] = h->seg_shift;
	mrc_put_be32(buf + MRC_WO_HELLO_CAPS, h->caps);
	mrc_put_be32(buf + MRC_WO_HELLO_COOKIE, h->cookie);
	mrc_put_be16(buf + MRC_WO_HELLO_UDP_PORT, h->udp_port);
	mrc_put_be16(buf + MRC_WO_HELLO_MAX_STREAMS, h->max_streams);
	return MRC_WIRE_OK;
}

enum mrc_wire_reason mrc_hello_parse(const u8 *buf, u32 len,
				     struct mrc_hello *out)
{
	if (len < MRC_HELLO_LEN)
		return MRC_WIRE_E_TRUNCATED;
	if (mrc_get_be32(buf + MRC_WO_HELLO_MAGIC) != MRC_HELLO_MAGIC)
		return MRC_WIRE_E_BAD_FIELD;
	if (!mrc_zero(buf + MRC_WO_HELLO_RSVD,
		      MRC_HELLO_LEN - MRC_WO_HELLO_RSVD))
		return MRC_WIRE_E_RESERVED;
	out->min_ver = buf[MRC_WO_HELLO_MIN_VER];
	out->max_ver = buf[MRC_WO_HELLO_MAX_VER];
	out->max_paths = buf[MRC_WO_HELLO_MAX_PATHS];
	out->seg_shift = buf[MRC_WO_HELLO_SEG_SHIFT];
	out->caps = mrc_get_be32(buf + MRC_WO_HELLO_CAPS);
	out->cookie = mrc_get_be32(buf + MRC_WO_HELLO_COOKIE);
	out->udp_port = mrc_get_be16(buf + MRC_WO_HELLO_UDP_PORT);
	out->max_streams = mrc_get_be16(buf + MRC_WO_HELLO_MAX_STREAMS);
	return mrc_hello_valid(out) ? MRC_WIRE_OK : MRC_WIRE_E_BAD_FIELD;
}

void mrc_wire_plane_get(const u8 *table, u32 k, struct mrc_plane_addr *out)
{
	const u8 *e = table + k * MRC_WIRE_PLANE_LEN;

	out->family = e[MRC_WO_PLANE_FAMILY];
	memcpy(out->addr, e + MRC_WO_PLANE_ADDR, sizeof(out->addr));
}

bool mrc_wire_plane_put(u8 *table, u32 k, const struct mrc_plane_addr *a)
{
	u8 *e = table + k * MRC_WIRE_PLANE_LEN;

	if (a->family != 0 && a->family != 4 && a->family != 6)
		return false;
	memset(e, 0, MRC_WIRE_PLANE_LEN);
	e[MRC_WO_PLANE_FAMILY] = a->family;
	/* what the family does not use stays zero ([PKT-92]) */
	if (a->family)
		memcpy(e + MRC_WO_PLANE_ADDR, a->addr, a->family == 4 ? 4 : 16);
	return true;
}
