/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE v1 wire format: the one place that knows the bytes.
 *
 * Specification: Documentation/protocol/packets.rst (layouts, [PKT-n]),
 * encapsulation.rst ([ENC-n]) and integrity.rst ([INT-n]). Every constant
 * a packet's bytes depend on is defined here; the kernel glue, the bpf
 * programs, the provider and the tools include this header instead of
 * restating offsets.
 *
 * A MetaRoCE packet is the payload of a UDP datagram:
 *
 *   | base header (32) | extension (per type) | [imm (4)] | payload | ICRC (4) |
 *
 * All multi-byte fields are big-endian. Every field sits at an offset that
 * is a multiple of its size, counted from the start of the base header.
 */
#ifndef MRC_CORE_WIRE_H
#define MRC_CORE_WIRE_H

#include "compat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- encapsulation ([ENC-*], encapsulation.rst) ---- */

#define MRC_WIRE_VERSION		1
#define MRC_WIRE_UDP_PORT		61791	/* default destination port */
#define MRC_WIRE_SPORT_MIN		49152	/* path entropy: UDP source port range */
#define MRC_WIRE_SPORT_MAX		65535
#define MRC_WIRE_DSCP_DATA		26	/* default DSCP of sequenced packets */
#define MRC_WIRE_DSCP_CTRL		48	/* default DSCP of ACK, NAK, PROBE */
#define MRC_WIRE_ECN_ECT0		0x2	/* IP ECN codepoints */
#define MRC_WIRE_ECN_CE			0x3

#define MRC_WIRE_ETH_LEN		14
#define MRC_WIRE_VLAN_LEN		4
#define MRC_WIRE_IPV4_LEN		20
#define MRC_WIRE_IPV6_LEN		40
#define MRC_WIRE_UDP_LEN		8

/* ---- lengths ---- */

#define MRC_WIRE_BASE_LEN		32
#define MRC_WIRE_IMM_LEN		4
#define MRC_WIRE_ICRC_LEN		4

#define MRC_WIRE_SEND_LEN		12
#define MRC_WIRE_WRITE_LEN		24
#define MRC_WIRE_READ_REQ_LEN		20
#define MRC_WIRE_READ_RESP_LEN		12
#define MRC_WIRE_ATOMIC_LEN		32
#define MRC_WIRE_ATOMIC_RESP_LEN	8
#define MRC_WIRE_ACK_LEN		64
#define MRC_WIRE_NAK_LEN		16
#define MRC_WIRE_PROBE_LEN		20
#define MRC_WIRE_UD_SEND_LEN		8
#define MRC_WIRE_HELLO_PKT_LEN		28	/* HELLO's extension */
#define MRC_WIRE_PLANE_LEN		20	/* a plane table entry */
#define MRC_WIRE_HELLO_PLANES_MAX	8
#define MRC_WIRE_HELLO_TABLE_MAX	(MRC_WIRE_PLANE_LEN * MRC_WIRE_HELLO_PLANES_MAX)
/* the largest HELLO, what an OFFER is padded to ([PKT-94]) */
#define MRC_WIRE_HELLO_MAX_LEN		(MRC_WIRE_BASE_LEN + MRC_WIRE_HELLO_PKT_LEN + \
					 MRC_WIRE_HELLO_TABLE_MAX + MRC_WIRE_ICRC_LEN)

/*
 * Worst-case bytes a payload-carrying packet adds inside the UDP payload:
 * base + WRITE extension + immediate + ICRC. The kernel subtracts this and
 * the IP/UDP headers from the path MTU to size segments ([ENC-20]).
 */
#define MRC_WIRE_DATA_OVERHEAD	(MRC_WIRE_BASE_LEN + MRC_WIRE_WRITE_LEN + \
				 MRC_WIRE_IMM_LEN + MRC_WIRE_ICRC_LEN)
/* Largest header of any type (ACK). */
#define MRC_WIRE_MAX_HDR_LEN	(MRC_WIRE_BASE_LEN + MRC_WIRE_ACK_LEN)
/* [ENC-9] an ACK on the wire, and the most of them one datagram bundles */
#define MRC_WIRE_ACK_PKT_LEN	(MRC_WIRE_BASE_LEN + MRC_WIRE_ACK_LEN + \
				 MRC_WIRE_ICRC_LEN)
#define MRC_WIRE_BUNDLE_MAX	8
/*
 * [ENC-13] a packet bundle: 4 bytes (version, type BUNDLE, count, 0), then
 * count be16 packet lengths padded to 4 bytes, then the packets
 */
#define MRC_WIRE_PBUNDLE_MIN	2
#define MRC_WIRE_PBUNDLE_MAX	32
#define MRC_WO_PBUNDLE_COUNT	2	/* u8 */
#define MRC_WO_PBUNDLE_RSVD	3	/* u8, zero */
#define MRC_WO_PBUNDLE_LENS	4	/* be16 per packet */
/* the header of the largest bundle: mrc_wire_pbundle_hdr_len(MAX) */
#define MRC_WIRE_PBUNDLE_HDR_MAX (MRC_WO_PBUNDLE_LENS + 2 * MRC_WIRE_PBUNDLE_MAX)
MRC_STATIC_ASSERT(MRC_WIRE_PBUNDLE_MAX % 2 == 0, "no padding in HDR_MAX");
/* Smallest valid packet: a base header and the ICRC. */
#define MRC_WIRE_MIN_PKT_LEN	(MRC_WIRE_BASE_LEN + MRC_WIRE_ICRC_LEN)
/* Largest UDP payload over IPv4 (65535 - 20 - 8); also the IPv6 limit we use. */
#define MRC_WIRE_MAX_PKT_LEN	65507
/* Largest message (as InfiniBand): 2^31 bytes. */
#define MRC_WIRE_MAX_MSG_LEN	0x80000000u
#define MRC_WIRE_QPN_MASK	0x00ffffffu

/* ---- base header offsets ([PKT-10]) ---- */

#define MRC_WO_VERSION		0	/* u8 */
#define MRC_WO_TYPE		1	/* u8 */
#define MRC_WO_HDR_WORDS	2	/* u8: header length / 4, incl. imm */
#define MRC_WO_PATH_ID		3	/* u8 */
#define MRC_WO_FLAGS		4	/* be16 */
#define MRC_WO_STREAM_ID	6	/* be16 */
#define MRC_WO_DST_QPN		8	/* be32, top 8 bits zero */
#define MRC_WO_PSN		12	/* be32 */
#define MRC_WO_MSN		16	/* be32 */
#define MRC_WO_SSN		20	/* be32 */
#define MRC_WO_TSVAL		24	/* be32 */
#define MRC_WO_COOKIE		28	/* be32 */

/* Extension offsets, counted from the start of the base header. */
#define MRC_WO_SEND_RSN		32	/* be32 */
#define MRC_WO_SEND_OFFSET	36	/* be32 */
#define MRC_WO_SEND_TOTAL	40	/* be32 */

#define MRC_WO_WRITE_VA		32	/* be64 */
#define MRC_WO_WRITE_RKEY	40	/* be32 */
#define MRC_WO_WRITE_OFFSET	44	/* be32 */
#define MRC_WO_WRITE_TOTAL	48	/* be32 */
#define MRC_WO_WRITE_RSN	52	/* be32, with MRC_F_IMM only, else zero */

#define MRC_WO_RREQ_VA		32	/* be64 */
#define MRC_WO_RREQ_RKEY	40	/* be32 */
#define MRC_WO_RREQ_LEN		44	/* be32 */
#define MRC_WO_RREQ_TAG		48	/* be32 */

#define MRC_WO_RRESP_TAG	32	/* be32 */
#define MRC_WO_RRESP_OFFSET	36	/* be32 */
#define MRC_WO_RRESP_TOTAL	40	/* be32 */

#define MRC_WO_ATOMIC_VA	32	/* be64 */
#define MRC_WO_ATOMIC_SWAP_ADD	40	/* be64 */
#define MRC_WO_ATOMIC_COMPARE	48	/* be64 */
#define MRC_WO_ATOMIC_RKEY	56	/* be32 */
#define MRC_WO_ATOMIC_OP	60	/* u8, then 3 reserved bytes */

#define MRC_WO_ARESP_ORIG	32	/* be64 */

#define MRC_WO_ACK_CUM_PSN	32	/* be32 */
#define MRC_WO_ACK_TSECR	36	/* be32 */
#define MRC_WO_ACK_DELAY	40	/* be32 */
#define MRC_WO_ACK_CE_COUNT	44	/* be32 */
#define MRC_WO_ACK_MSN		48	/* be32 */
#define MRC_WO_ACK_RSN_LIMIT	52	/* be32 */
#define MRC_WO_ACK_RATE		56	/* be32 */
#define MRC_WO_ACK_RX_MAX	60	/* be32 */
#define MRC_WO_ACK_SACK		64	/* 4 x be64 */

#define MRC_WO_NAK_CODE		32	/* u8, then 3 reserved bytes */
#define MRC_WO_NAK_PSN		36	/* be32 */
#define MRC_WO_NAK_MSN		40	/* be32 */
#define MRC_WO_NAK_ARG		44	/* be32 */

#define MRC_WO_PROBE_KIND	32	/* u8 */
#define MRC_WO_PROBE_MIN_VER	33	/* u8 */
#define MRC_WO_PROBE_MAX_VER	34	/* u8 */
#define MRC_WO_PROBE_RSVD	35	/* u8, zero */
#define MRC_WO_PROBE_SEQ	36	/* be32 */
#define MRC_WO_PROBE_TSECR	40	/* be32 */
#define MRC_WO_PROBE_CAPS	44	/* be32 */
#define MRC_WO_PROBE_ECHO_LEN	48	/* be32 */

#define MRC_WO_HELLO_KIND	32	/* u8: enum mrc_hello_kind */
#define MRC_WO_HELLO_NPLANES	33	/* u8 */
#define MRC_WO_HELLO_PKT_RSVD	34	/* be16, zero */
#define MRC_WO_HELLO_RECORD	36	/* the [PKT-90] record */
/* a plane table entry, in the payload ([PKT-92]) */
#define MRC_WO_PLANE_FAMILY	0	/* u8: 0, 4 or 6 */
#define MRC_WO_PLANE_RSVD	1	/* 3 bytes, zero */
#define MRC_WO_PLANE_ADDR	4	/* 16 bytes */

#define MRC_WO_UD_QKEY		32	/* be32 */
#define MRC_WO_UD_SRC_QPN	36	/* be32, top 8 bits zero */

/* ---- packet types ([PKT-20]) ---- */

enum mrc_pkt_type {
	MRC_PKT_SEND		= 1,
	MRC_PKT_WRITE		= 2,
	MRC_PKT_READ_REQ	= 3,
	MRC_PKT_READ_RESP	= 4,
	MRC_PKT_ATOMIC		= 5,
	MRC_PKT_ATOMIC_RESP	= 6,
	MRC_PKT_ACK		= 7,
	MRC_PKT_NAK		= 8,
	MRC_PKT_PROBE		= 9,
	MRC_PKT_UD_SEND		= 10,	/* datagram, unreliable ([PKT-85]) */
	MRC_PKT_TYPE_MAX	= MRC_PKT_UD_SEND,
	/* not a packet: the header of a packet bundle ([ENC-13]) */
	MRC_PKT_BUNDLE		= 11,
	MRC_PKT_HELLO		= 12,	/* negotiation in band ([PKT-92]) */
	MRC_PKT_TYPE_LAST	= MRC_PKT_HELLO,
};

/* ---- base flags ([PKT-30]) ---- */

#define MRC_F_FIRST		0x0001	/* first packet of a message (offset 0) */
#define MRC_F_LAST		0x0002	/* last packet of a message */
#define MRC_F_IMM		0x0004	/* immediate data follows the extension */
#define MRC_F_INV		0x0008	/* SEND with invalidate: imm is an rkey */
#define MRC_F_SOLICITED		0x0010	/* solicited event at the responder */
#define MRC_F_ACK_REQ		0x0020	/* please acknowledge this path now */
#define MRC_F_RETX		0x0040	/* retransmission (informational) */
#define MRC_F_CE_ECHO		0x0080	/* ACK: the acked packet arrived CE */
#define MRC_F_BUNDLES		0x0100	/* the sender takes ACK bundles ([ENC-9]) */

/* ---- enumerated fields ---- */

enum mrc_atomic_op {
	MRC_ATOMIC_CMP_SWAP	= 1,
	MRC_ATOMIC_FETCH_ADD	= 2,
};

enum mrc_nak_code {
	MRC_NAK_ACCESS		= 1,	/* remote access error (rkey, bounds, rights) */
	MRC_NAK_INVALID_REQ	= 2,	/* request the responder cannot execute */
	MRC_NAK_RNR		= 3,	/* receiver not ready; arg = delay in us */
	MRC_NAK_REMOTE_OP	= 4,	/* responder internal or QP error */
	MRC_NAK_SEQ		= 5,	/* sequence outside the receiver's window */
	MRC_NAK_CODE_MAX	= MRC_NAK_SEQ,
};

enum mrc_probe_kind {
	MRC_PROBE_REQ		= 1,
	MRC_PROBE_RESP		= 2,
};

enum mrc_hello_kind {
	MRC_HELLO_OFFER		= 1,	/* resent until answered */
	MRC_HELLO_ANSWER	= 2,	/* never answered */
};

/* Capability bits ([PKT-80]); negotiated as the AND of both sides. */
#define MRC_CAP_ATOMIC		0x00000001u	/* responder executes atomics */
#define MRC_CAP_RATE_HINT	0x00000002u	/* receiver fills ACK rate hints */
#define MRC_CAP_MULTIPLANE	0x00000004u	/* paths may use several netdevs */
#define MRC_CAP_BUNDLES		0x00000008u	/* takes ACK and packet bundles */

/* [PKT-86] the Q_Key of the GSI QP (QP1), as InfiniBand's. */
#define MRC_WIRE_GSI_QKEY	0x80010000u
#define MRC_WIRE_GSI_QPN	1

/* Number of PSNs the ACK bitmap covers beyond the cumulative point. */
#define MRC_WIRE_SACK_BITS	256
#define MRC_WIRE_SACK_WORDS	(MRC_WIRE_SACK_BITS / 64)

/* ---- parsed packet (host byte order) ---- */

struct mrc_pkt_send {
	u32 rsn;		/* receive sequence number: which posted receive */
	u32 offset;		/* of this payload in the message */
	u32 total_len;		/* of the message */
};

struct mrc_pkt_write {
	u64 va;			/* remote address of message byte 0 */
	u32 rkey;
	u32 offset;
	u32 total_len;
	u32 rsn;		/* with MRC_F_IMM: the receive it consumes */
};

struct mrc_pkt_read_req {
	u64 va;
	u32 rkey;
	u32 len;
	u32 resp_tag;		/* requester's sink, echoed in responses */
};

struct mrc_pkt_read_resp {
	u32 resp_tag;
	u32 offset;		/* into the read */
	u32 total_len;		/* == the request's len */
};

struct mrc_pkt_atomic {
	u64 va;
	u64 swap_add;		/* swap value (CMP_SWAP) or addend (FETCH_ADD) */
	u64 compare;		/* CMP_SWAP only; zero for FETCH_ADD */
	u32 rkey;
	u8 op;			/* enum mrc_atomic_op */
};

struct mrc_pkt_atomic_resp {
	u64 orig;		/* value at va before the operation */
};

struct mrc_pkt_ack {
	u32 cum_psn;		/* every PSN before this one was received */
	u32 tsecr;		/* tsval of the packet this ACK answers */
	u32 ack_delay;		/* ns between that arrival and this ACK */
	u32 ce_count;		/* CE-marked packets received on the path, mod 2^32 */
	u32 msn_ack;		/* every message before this MSN completed */
	u32 rsn_limit;		/* receives posted: SENDs with rsn < this fit */
	u32 rate_hint;		/* fair-share rate, Mbit/s; 0 = no hint */
	u32 rx_max;		/* payload bytes per packet I accept ([REL-15]) */
	/* bit b of word w: PSN cum_psn + 1 + 64 * w + b was received */
	u64 sack[MRC_WIRE_SACK_WORDS];
};

struct mrc_pkt_nak {
	u8 code;		/* enum mrc_nak_code */
	u32 psn;		/* the NAKed packet's PSN on the base path_id */
	u32 msn;		/* its message */
	u32 arg;		/* RNR: delay in microseconds; else 0 */
};

struct mrc_pkt_probe {
	u8 kind;		/* enum mrc_probe_kind */
	u8 min_ver;
	u8 max_ver;
	u32 seq;
	u32 tsecr;		/* RESP: tsval of the request */
	u32 caps;
	u32 echo_len;		/* RESP: packet length of the request */
};

/* The connection-setup record ([PKT-90]), in CM private data or a HELLO. */
struct mrc_hello {
	u8 min_ver;
	u8 max_ver;
	u8 max_paths;		/* paths this side will accept, >= 1 */
	u8 seg_shift;
	u32 caps;
	u32 cookie;		/* put this in every packet sent to me */
	u16 udp_port;		/* my destination port */
	u16 max_streams;	/* streams this side will accept, >= 1 */
};

/*
 * HELLO ([PKT-92]): the plane table is the payload, read and written with
 * mrc_wire_plane_get() / mrc_wire_plane_put().
 */
struct mrc_pkt_hello {
	u8 kind;		/* enum mrc_hello_kind */
	u8 nplanes;		/* table entries, 1..MRC_WIRE_HELLO_PLANES_MAX */
	struct mrc_hello rec;
};

/* A plane's address as a HELLO carries it: family 0 (none), 4 or 6. */
struct mrc_plane_addr {
	u8 family;
	u8 addr[16];		/* IPv4: the first 4 bytes, the rest zero */
};

struct mrc_pkt_ud_send {
	u32 qkey;		/* checked against the receiving QP's Q_Key */
	u32 src_qpn;		/* the sending QP (24 bits) */
};

struct mrc_pkt {
	u8 type;		/* enum mrc_pkt_type */
	u8 path_id;
	u16 flags;		/* MRC_F_* */
	u16 stream_id;
	u32 dst_qpn;
	u32 psn;		/* per-path sequence; 0 for ACK/NAK/PROBE */
	u32 msn;		/* per-connection message sequence */
	u32 ssn;		/* per-stream message sequence */
	u32 tsval;		/* sender's clock, ns mod 2^32 */
	u32 cookie;		/* receiver-chosen connection cookie */
	u32 imm;		/* valid when flags & (MRC_F_IMM | MRC_F_INV) */
	u32 hdr_len;		/* parse: bytes before the payload */
	u32 payload_len;
	const u8 *payload;	/* parse: points into the parsed buffer */
	union {
		struct mrc_pkt_send send;
		struct mrc_pkt_write write;
		struct mrc_pkt_read_req read_req;
		struct mrc_pkt_read_resp read_resp;
		struct mrc_pkt_atomic atomic;
		struct mrc_pkt_atomic_resp atomic_resp;
		struct mrc_pkt_ack ack;
		struct mrc_pkt_nak nak;
		struct mrc_pkt_probe probe;
		struct mrc_pkt_ud_send ud;
		struct mrc_pkt_hello hello;
	};
};

/* ---- results ---- */

enum mrc_wire_reason {
	MRC_WIRE_OK = 0,
	MRC_WIRE_E_TRUNCATED,		/* shorter than its headers + ICRC */
	MRC_WIRE_E_TOO_LONG,		/* longer than MRC_WIRE_MAX_PKT_LEN */
	MRC_WIRE_E_BAD_VERSION,
	MRC_WIRE_E_BAD_CRC,
	MRC_WIRE_E_BAD_TYPE,
	MRC_WIRE_E_BAD_HDR_LEN,		/* hdr_words disagrees with type+flags */
	MRC_WIRE_E_RESERVED,		/* reserved bit or field not zero */
	MRC_WIRE_E_BAD_FLAGS,		/* flag not allowed or inconsistent */
	MRC_WIRE_E_BAD_LENGTH,		/* length field or payload size invalid */
	MRC_WIRE_E_BAD_OFFSET,		/* offset + payload beyond total length */
	MRC_WIRE_E_VA_OVERFLOW,		/* va + length wraps 2^64 */
	MRC_WIRE_E_BAD_FIELD,		/* unknown op, NAK code, probe kind... */
	MRC_WIRE_E_NO_SPACE,		/* encode: caller buffer too small */
	MRC_WIRE_REASON_COUNT
};

const char *mrc_wire_reason_str(enum mrc_wire_reason r);

/* Extension length of a type (without imm); 0 for an unknown type. */
u32 mrc_wire_ext_len(u8 type);

/* Header length (base + extension + imm) the packet will have. */
u32 mrc_wire_hdr_len(const struct mrc_pkt *pkt);

/*
 * Check a packet description against every rule the parser enforces,
 * without touching bytes. Encoders call it so they never emit what a
 * receiver would reject.
 */
enum mrc_wire_reason mrc_wire_check(const struct mrc_pkt *pkt);

/*
 * Write the headers (base, extension, imm) of @pkt into @buf, which has
 * @cap bytes; @pkt->payload_len must already hold the payload size.
 * On success *@hdr_len is the number of bytes written.
 */
enum mrc_wire_reason mrc_wire_encode_hdr(const struct mrc_pkt *pkt, u8 *buf,
					 u32 cap, u32 *hdr_len);

/*
 * Whole packet into one buffer: headers, @pkt->payload (payload_len
 * bytes, may be NULL when 0) and the ICRC. *@len = bytes written.
 */
enum mrc_wire_reason mrc_wire_encode(const struct mrc_pkt *pkt, u8 *buf,
				     u32 cap, u32 *len);

/*
 * [PKT-46] [PKT-50] True when [va, va + len) wraps past 2^64: no packet
 * may name such a target (MRC_WIRE_E_VA_OVERFLOW), nor a requester send
 * one ([OPS-35]).
 */
static inline bool mrc_wire_va_wraps(u64 va, u64 len)
{
	return len && va > ~(u64)0 - (len - 1);
}

/*
 * [ENC-9] Packets in the datagram @buf of @len bytes: n >= 2 when it is an
 * ACK bundle, packet i then being the MRC_WIRE_ACK_PKT_LEN bytes at
 * i * MRC_WIRE_ACK_PKT_LEN, each to be parsed on its own and dropped
 * unless it is an ACK; else 1, the whole datagram. Reads buf[1] only.
 */
u32 mrc_wire_bundle_count(const u8 *buf, u32 len);

/* [ENC-13] a packet bundle's layout: packet i is len[i] bytes at off[i] */
struct mrc_wire_pbundle {
	u32 count;
	u32 hdr_len;		/* header and length table */
	u16 off[MRC_WIRE_PBUNDLE_MAX];
	u16 len[MRC_WIRE_PBUNDLE_MAX];
};

/* Bytes of a bundle's header and length table for @count packets. */
static inline u32 mrc_wire_pbundle_hdr_len(u32 count)
{
	return MRC_WO_PBUNDLE_LENS + 4 * ((count + 1) / 2);
}

/*
 * May a bundle of @n packets and @bytes take one more of @len within
 * @room bytes? (@n 1, @bytes @len: could two such packets share one?)
 */
static inline bool mrc_wire_pbundle_fits(u32 n, u32 bytes, u32 len, u32 room)
{
	return n < MRC_WIRE_PBUNDLE_MAX &&
	       mrc_wire_pbundle_hdr_len(n + 1) + bytes + len <= room;
}

/* Is the datagram at @buf (@avail >= 2 bytes contiguous) a packet bundle? */
static inline bool mrc_wire_is_pbundle(const u8 *buf, u32 avail)
{
	return avail >= 2 && buf[MRC_WO_VERSION] == MRC_WIRE_VERSION &&
	       buf[MRC_WO_TYPE] == MRC_PKT_BUNDLE;
}

/*
 * Split the bundle datagram of @len bytes, of which @avail are contiguous
 * at @buf (the header and table must be), into @out. Validates the
 * layout only: every packet is then parsed on its own ([PKT-99]).
 */
enum mrc_wire_reason mrc_wire_pbundle_parse(const u8 *buf, u32 avail,
					    u32 len,
					    struct mrc_wire_pbundle *out);

/*
 * Write the header and table of a bundle of @count packets of the
 * lengths @lens at @buf (@cap bytes); the packets follow at
 * mrc_wire_pbundle_hdr_len(@count).
 */
enum mrc_wire_reason mrc_wire_pbundle_encode_hdr(const u16 *lens, u32 count,
						 u8 *buf, u32 cap);

/*
 * Parse and validate a whole packet (the UDP payload, @len bytes).
 * Never reads outside buf[0..len). On success @out->payload points into
 * @buf. On failure @out's contents are unspecified.
 */
enum mrc_wire_reason mrc_wire_parse(const u8 *buf, u32 len,
				    struct mrc_pkt *out);

/*
 * As mrc_wire_parse(), for a packet of @pkt_len bytes of which only the
 * first @avail are contiguous at @buf (e.g. a non-linear skb): validates
 * everything but the ICRC, which the caller checks with mrc_wire_icrc_*()
 * over the fragments. @out->payload is NULL when the payload is not
 * entirely within @avail bytes.
 */
enum mrc_wire_reason mrc_wire_parse_hdr(const u8 *buf, u32 avail, u32 pkt_len,
					struct mrc_pkt *out);

/* ---- ICRC: CRC32C of the packet up to the trailer ([INT-1..]) ---- */

#define MRC_WIRE_ICRC_SEED	0xffffffffu

/* Running state: start with MRC_WIRE_ICRC_SEED, feed bytes in order. */
u32 mrc_wire_icrc_update(u32 state, const void *data, u32 len);

/* The same, always in portable C (reference for tests). */
u32 mrc_wire_icrc_update_portable(u32 state, const void *data, u32 len);

/*
 * The same with the CPU's CRC32C instruction; false if there is none.
 * mrc_wire_icrc_update() uses it unless told otherwise here: an emulated
 * CPU (QEMU TCG) runs the instruction bit by bit, slower than the tables,
 * so the module times both once and keeps the faster.
 */
bool mrc_wire_icrc_cpu_available(void);
u32 mrc_wire_icrc_update_cpu(u32 state, const void *data, u32 len);
void mrc_wire_icrc_use_cpu(bool use);

/* The value carried in the trailer for a finished running state. */
static inline u32 mrc_wire_icrc_final(u32 state)
{
	return ~state;
}

/* ICRC of a contiguous packet body (everything before the trailer). */
static inline u32 mrc_wire_icrc(const void *data, u32 len)
{
	return mrc_wire_icrc_final(mrc_wire_icrc_update(MRC_WIRE_ICRC_SEED,
							data, len));
}

/* Write the trailer of a contiguous packet whose body is @body_len bytes. */
static inline void mrc_wire_seal(u8 *buf, u32 body_len)
{
	mrc_put_be32(buf + body_len, mrc_wire_icrc(buf, body_len));
}

/* ---- connection setup: CM private data ([PKT-90]) ---- */

#define MRC_HELLO_MAGIC		0x4d524345u	/* "MRCE" */
#define MRC_HELLO_LEN		24

#define MRC_WO_HELLO_MAGIC	0	/* be32 */
#define MRC_WO_HELLO_MIN_VER	4	/* u8 */
#define MRC_WO_HELLO_MAX_VER	5	/* u8 */
#define MRC_WO_HELLO_MAX_PATHS	6	/* u8 */
#define MRC_WO_HELLO_SEG_SHIFT	7	/* u8: log2 of the largest segment */
#define MRC_WO_HELLO_CAPS	8	/* be32 */
#define MRC_WO_HELLO_COOKIE	12	/* be32 */
#define MRC_WO_HELLO_UDP_PORT	16	/* be16 */
#define MRC_WO_HELLO_MAX_STREAMS 18	/* be16 */
#define MRC_WO_HELLO_RSVD	20	/* be32, zero */

#define MRC_HELLO_SEG_SHIFT_MIN	8	/* 256 bytes */
#define MRC_HELLO_SEG_SHIFT_MAX	13	/* 8192 bytes */

enum mrc_wire_reason mrc_hello_encode(const struct mrc_hello *h, u8 *buf,
				      u32 cap);
enum mrc_wire_reason mrc_hello_parse(const u8 *buf, u32 len,
				     struct mrc_hello *out);

/*
 * [PKT-92] entry @k of a HELLO's plane table at @table (the payload, @k
 * below nplanes, already validated by the parse). No checks.
 */
void mrc_wire_plane_get(const u8 *table, u32 k, struct mrc_plane_addr *out);
/* Write entry @k; false (nothing written) for a family other than 0/4/6. */
bool mrc_wire_plane_put(u8 *table, u32 k, const struct mrc_plane_addr *a);

MRC_STATIC_ASSERT(MRC_WIRE_DATA_OVERHEAD == 64, "data overhead is 64 bytes");
MRC_STATIC_ASSERT(MRC_WIRE_BASE_LEN + MRC_WIRE_ACK_LEN ==
		  MRC_WO_ACK_SACK + 8 * MRC_WIRE_SACK_WORDS, "ACK layout");
MRC_STATIC_ASSERT((MRC_WIRE_MAX_HDR_LEN + MRC_WIRE_IMM_LEN) / 4 <= 255,
		  "hdr_words fits a byte");

#ifdef __cplusplus
}
#endif

#endif /* MRC_CORE_WIRE_H */
