-- SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
--
-- MetaRoCE v1 dissector for Wireshark and tshark (Lua, Wireshark 4.0+).
--
--   tshark -X lua_script:metaroce.lua -r capture.pcap
--   or copy this file into Wireshark's Lua plugin folder
--   (Help > About > Folders; ~/.local/lib/wireshark/plugins).
--
-- It takes UDP port 61791 (preference metaroce.udp_port) and, by a
-- strict heuristic, MetaRoCE on any other port. Every datagram is split
-- as a receiver splits it ([PKT-99] step 0: one packet, an ACK bundle,
-- [ENC-9], or a packet bundle, [ENC-13]), every packet is shown field
-- by field and validated in the order and with the verdicts of
-- mrc_wire_parse() (metaroce.reason, and an expert info per fault),
-- with its ICRC checked (CRC32C, [INT-1]). Management datagrams for QP1
-- go to Wireshark's InfiniBand dissector, which decodes the CM, and the
-- hello in CM private data ([PKT-90]) is decoded here.
--
-- The layout is Documentation/protocol/packets.rst and the constants
-- those of kernel/core/wire.h; userspace/tools/wireshark/test-dissector
-- holds what this file shows against the reference parser.

local mrc = Proto("metaroce", "MetaRoCE")

-- ---------------------------------------------------------------- wire.h

local WIRE_VERSION = 1
local DEFAULT_PORT = 61791
local BASE_LEN, IMM_LEN, ICRC_LEN = 32, 4, 4
local MIN_PKT_LEN, MAX_PKT_LEN = 36, 65507
local MAX_MSG_LEN = 0x80000000
local ACK_PKT_LEN, ACK_BUNDLE_MAX = 100, 8
local PBUNDLE_MIN, PBUNDLE_MAX = 2, 32
local GSI_QPN, GSI_QKEY = 1, 0x80010000
local TWO_32 = 4294967296	-- PSNs wrap

local T_SEND, T_WRITE, T_READ_REQ, T_READ_RESP = 1, 2, 3, 4
local T_ATOMIC, T_ATOMIC_RESP, T_ACK, T_NAK = 5, 6, 7, 8
local T_PROBE, T_UD_SEND, T_BUNDLE, T_HELLO = 9, 10, 11, 12

-- [PKT-21] extension length per type; nil: not a packet type
local EXT_LEN = { 12, 24, 20, 12, 32, 8, 64, 16, 20, 8, nil, 28 }

local F_FIRST, F_LAST, F_IMM, F_INV = 0x1, 0x2, 0x4, 0x8
local F_SOLICITED, F_ACK_REQ, F_RETX = 0x10, 0x20, 0x40
local F_CE_ECHO, F_BUNDLES = 0x80, 0x100
local F_DEFINED = 0x1ff
local F_SEQ_COMMON = F_FIRST + F_LAST + F_ACK_REQ + F_RETX + F_BUNDLES

-- [PKT-31] flags each type may carry
local ALLOWED = {
	[T_SEND] = F_SEQ_COMMON + F_IMM + F_INV + F_SOLICITED,
	[T_WRITE] = F_SEQ_COMMON + F_IMM + F_SOLICITED,
	[T_READ_REQ] = F_SEQ_COMMON,
	[T_READ_RESP] = F_SEQ_COMMON,
	[T_ATOMIC] = F_SEQ_COMMON,
	[T_ATOMIC_RESP] = F_SEQ_COMMON,
	[T_ACK] = F_CE_ECHO + F_BUNDLES,
	[T_NAK] = F_BUNDLES,
	[T_PROBE] = F_BUNDLES,
	[T_UD_SEND] = F_FIRST + F_LAST + F_IMM + F_SOLICITED,
	[T_HELLO] = F_BUNDLES,
}

-- enum mrc_wire_reason
local R_OK, R_TRUNCATED, R_TOO_LONG, R_BAD_VERSION = 0, 1, 2, 3
local R_BAD_CRC, R_BAD_TYPE, R_BAD_HDR_LEN, R_RESERVED = 4, 5, 6, 7
local R_BAD_FLAGS, R_BAD_LENGTH, R_BAD_OFFSET = 8, 9, 10
local R_VA_OVERFLOW, R_BAD_FIELD = 11, 12

local NAK_ACCESS, NAK_SEQ, NAK_RNR = 1, 5, 3
local PROBE_REQ, PROBE_RESP = 1, 2
local ATOMIC_CMP_SWAP, ATOMIC_FETCH_ADD = 1, 2
local HELLO_MAGIC, HELLO_LEN = 0x4d524345, 24

-- ------------------------------------------------------------ value strings

local type_names = {
	[0] = "invalid", [1] = "SEND", [2] = "WRITE", [3] = "READ_REQ",
	[4] = "READ_RESP", [5] = "ATOMIC", [6] = "ATOMIC_RESP", [7] = "ACK",
	[8] = "NAK", [9] = "PROBE", [10] = "UD_SEND", [11] = "BUNDLE",
	[12] = "HELLO",
}
local reason_names = {
	[0] = "ok", [1] = "truncated", [2] = "too long", [3] = "bad version",
	[4] = "bad ICRC", [5] = "bad packet type", [6] = "bad header length",
	[7] = "reserved bits set", [8] = "bad flags", [9] = "bad length",
	[10] = "offset beyond message", [11] = "address range wraps",
	[12] = "bad field value",
}
local nak_names = {
	[1] = "ACCESS", [2] = "INVALID_REQ", [3] = "RNR", [4] = "REMOTE_OP",
	[5] = "SEQ",
}
local probe_kinds = { [1] = "REQ", [2] = "RESP" }
local atomic_ops = { [1] = "CMP_SWAP", [2] = "FETCH_ADD" }
local icrc_status = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }
local ICRC_BAD, ICRC_GOOD, ICRC_UNVERIFIED = 0, 1, 2

-- ------------------------------------------------------------------ fields

local f = {}
local function field(key, pf)
	f[key] = pf
end
local U8, U16, U32, U64 = ProtoField.uint8, ProtoField.uint16, ProtoField.uint32, ProtoField.uint64
local DEC, HEX = base.DEC, base.HEX

field("version", U8("metaroce.version", "Version", DEC))
field("type", U8("metaroce.type", "Type", DEC, type_names))
field("hdr_words", U8("metaroce.hdr_words", "Header words", DEC))
field("path_id", U8("metaroce.path_id", "Path", DEC))
field("flags", U16("metaroce.flags", "Flags", HEX))
local flag_bits = {
	{ "first", "FIRST", F_FIRST }, { "last", "LAST", F_LAST },
	{ "imm", "IMM", F_IMM }, { "inv", "INV", F_INV },
	{ "solicited", "SOLICITED", F_SOLICITED }, { "ack_req", "ACK_REQ", F_ACK_REQ },
	{ "retx", "RETX", F_RETX }, { "ce_echo", "CE_ECHO", F_CE_ECHO },
	{ "bundles", "BUNDLES", F_BUNDLES },
}
for _, b in ipairs(flag_bits) do
	field("flag_" .. b[1], ProtoField.bool("metaroce.flags." .. b[1], b[2], 16, nil, b[3]))
end
field("flags_reserved", U16("metaroce.flags.reserved", "Reserved", HEX, nil, 0xfe00))
field("stream_id", U16("metaroce.stream_id", "Stream", DEC))
field("qpn_reserved", U32("metaroce.dst_qpn.reserved", "Reserved", HEX, nil, 0xff000000))
field("dst_qpn", U32("metaroce.dst_qpn", "Destination QP", HEX, nil, 0x00ffffff))
field("psn", U32("metaroce.psn", "PSN", DEC))
field("msn", U32("metaroce.msn", "MSN", DEC))
field("ssn", U32("metaroce.ssn", "SSN", DEC))
field("tsval", U32("metaroce.tsval", "Timestamp (tsval, ns)", DEC))
field("cookie", U32("metaroce.cookie", "Cookie", HEX))

field("send_rsn", U32("metaroce.send.rsn", "RSN", DEC))
field("send_offset", U32("metaroce.send.offset", "Offset", DEC))
field("send_total", U32("metaroce.send.total_len", "Message length", DEC))

field("write_va", U64("metaroce.write.va", "Virtual address", HEX))
field("write_rkey", U32("metaroce.write.rkey", "R_Key", HEX))
field("write_offset", U32("metaroce.write.offset", "Offset", DEC))
field("write_total", U32("metaroce.write.total_len", "Message length", DEC))
field("write_rsn", U32("metaroce.write.rsn", "RSN", DEC))

field("rreq_va", U64("metaroce.read_req.va", "Virtual address", HEX))
field("rreq_rkey", U32("metaroce.read_req.rkey", "R_Key", HEX))
field("rreq_len", U32("metaroce.read_req.len", "Length", DEC))
field("rreq_tag", U32("metaroce.read_req.resp_tag", "Response tag", HEX))

field("rresp_tag", U32("metaroce.read_resp.resp_tag", "Response tag", HEX))
field("rresp_offset", U32("metaroce.read_resp.offset", "Offset", DEC))
field("rresp_total", U32("metaroce.read_resp.total_len", "Read length", DEC))

field("atomic_va", U64("metaroce.atomic.va", "Virtual address", HEX))
field("atomic_swap_add", U64("metaroce.atomic.swap_add", "Swap value / addend", HEX))
field("atomic_compare", U64("metaroce.atomic.compare", "Compare value", HEX))
field("atomic_rkey", U32("metaroce.atomic.rkey", "R_Key", HEX))
field("atomic_op", U8("metaroce.atomic.op", "Operation", DEC, atomic_ops))
field("atomic_reserved", ProtoField.uint24("metaroce.atomic.reserved", "Reserved", HEX))

field("aresp_orig", U64("metaroce.atomic_resp.orig", "Original value", HEX))

field("ack_cum_psn", U32("metaroce.ack.cum_psn", "Cumulative PSN", DEC))
field("ack_tsecr", U32("metaroce.ack.tsecr", "Timestamp echo (tsecr)", DEC))
field("ack_delay", U32("metaroce.ack.delay", "ACK delay (ns)", DEC))
field("ack_ce_count", U32("metaroce.ack.ce_count", "CE count", DEC))
field("ack_msn", U32("metaroce.ack.msn_ack", "Messages complete before (msn_ack)", DEC))
field("ack_rsn_limit", U32("metaroce.ack.rsn_limit", "Receive credit limit (rsn_limit)", DEC))
field("ack_rate", U32("metaroce.ack.rate_hint", "Rate hint (Mbit/s)", DEC))
field("ack_rx_max", U32("metaroce.ack.rx_max", "Largest payload accepted (rx_max)", DEC))
field("ack_sack", U64("metaroce.ack.sack", "SACK word", HEX))
field("ack_sack_psn", U32("metaroce.ack.sack_psn", "SACKed PSN", DEC))
field("ack_sacked", U32("metaroce.ack.sacked", "PSNs SACKed", DEC))

field("nak_code", U8("metaroce.nak.code", "Code", DEC, nak_names))
field("nak_reserved", ProtoField.uint24("metaroce.nak.reserved", "Reserved", HEX))
field("nak_psn", U32("metaroce.nak.psn", "NAKed PSN", DEC))
field("nak_msn", U32("metaroce.nak.msn", "NAKed MSN", DEC))
field("nak_arg", U32("metaroce.nak.arg", "Argument (RNR: delay, us)", DEC))

field("probe_kind", U8("metaroce.probe.kind", "Kind", DEC, probe_kinds))
field("probe_min_ver", U8("metaroce.probe.min_ver", "Lowest version", DEC))
field("probe_max_ver", U8("metaroce.probe.max_ver", "Highest version", DEC))
field("probe_reserved", U8("metaroce.probe.reserved", "Reserved", HEX))
field("probe_seq", U32("metaroce.probe.seq", "Probe sequence", DEC))
field("probe_tsecr", U32("metaroce.probe.tsecr", "Timestamp echo (tsecr)", DEC))
field("probe_echo_len", U32("metaroce.probe.echo_len", "Echoed length", DEC))
field("probe_padding", ProtoField.bytes("metaroce.probe.padding", "Padding"))

-- [PKT-80] capability bits, in PROBEs and hellos
local function caps_fields(prefix, key)
	field(key, U32(prefix, "Capabilities", HEX))
	field(key .. "_atomic", ProtoField.bool(prefix .. ".atomic", "ATOMIC", 32, nil, 0x1))
	field(key .. "_rate_hint", ProtoField.bool(prefix .. ".rate_hint", "RATE_HINT", 32, nil, 0x2))
	field(key .. "_multiplane", ProtoField.bool(prefix .. ".multiplane", "MULTIPLANE", 32, nil, 0x4))
	field(key .. "_reserved", U32(prefix .. ".reserved", "Reserved", HEX, nil, 0xfffffff8))
end
caps_fields("metaroce.probe.caps", "probe_caps")

field("ud_qkey", U32("metaroce.ud.qkey", "Q_Key", HEX))
field("ud_src_reserved", U32("metaroce.ud.src_qpn.reserved", "Reserved", HEX, nil, 0xff000000))
field("ud_src_qpn", U32("metaroce.ud.src_qpn", "Source QP", HEX, nil, 0x00ffffff))

field("imm", U32("metaroce.imm", "Immediate data", HEX))
field("inv_rkey", U32("metaroce.inv_rkey", "R_Key to invalidate", HEX))
field("payload", ProtoField.bytes("metaroce.payload", "Payload"))
field("payload_len", U32("metaroce.payload_len", "Payload length", DEC))
field("icrc", U32("metaroce.icrc", "ICRC", HEX))
field("icrc_computed", U32("metaroce.icrc.computed", "Computed ICRC", HEX))
field("icrc_status", U8("metaroce.icrc.status", "ICRC status", DEC, icrc_status))
field("reason", U8("metaroce.reason", "Receiver's verdict", DEC, reason_names))

field("ackb_count", U8("metaroce.ackbundle.count", "ACKs in the bundle", DEC))
field("bundle_index", U8("metaroce.bundle.index", "Packet of the bundle", DEC))
field("pb_version", U8("metaroce.pbundle.version", "Version", DEC))
field("pb_type", U8("metaroce.pbundle.type", "Type", DEC, type_names))
field("pb_count", U8("metaroce.pbundle.count", "Packets", DEC))
field("pb_reserved", U8("metaroce.pbundle.reserved", "Reserved", HEX))
field("pb_len", U16("metaroce.pbundle.len", "Packet length", DEC))
field("pb_padding", U16("metaroce.pbundle.padding", "Padding", HEX))

field("hello_magic", U32("metaroce.hello.magic", "Magic", HEX))
field("hello_min_ver", U8("metaroce.hello.min_ver", "Lowest version", DEC))
field("hello_max_ver", U8("metaroce.hello.max_ver", "Highest version", DEC))
field("hello_max_paths", U8("metaroce.hello.max_paths", "Paths accepted", DEC))
field("hello_seg_shift", U8("metaroce.hello.seg_shift", "Segment size (log2)", DEC))
caps_fields("metaroce.hello.caps", "hello_caps")
field("hello_cookie", U32("metaroce.hello.cookie", "Cookie", HEX))
field("hello_udp_port", U16("metaroce.hello.udp_port", "UDP port", DEC))
field("hello_max_streams", U16("metaroce.hello.max_streams", "Streams accepted", DEC))
field("hello_reserved", U32("metaroce.hello.reserved", "Reserved", HEX))

do
	local list = {}
	for _, pf in pairs(f) do
		list[#list + 1] = pf
	end
	mrc.fields = list
end

-- ------------------------------------------------------------- expert info

local MAL, ERR = expert.group.MALFORMED, expert.severity.ERROR
local ex = {
	[R_TRUNCATED] = ProtoExpert.new("metaroce.truncated", "Truncated packet", MAL, ERR),
	[R_TOO_LONG] = ProtoExpert.new("metaroce.too_long", "Packet too long", MAL, ERR),
	[R_BAD_VERSION] = ProtoExpert.new("metaroce.bad_version", "Unknown version", MAL, ERR),
	[R_BAD_CRC] = ProtoExpert.new("metaroce.icrc.bad", "Bad ICRC", expert.group.CHECKSUM, ERR),
	[R_BAD_TYPE] = ProtoExpert.new("metaroce.bad_type", "Bad packet type", MAL, ERR),
	[R_BAD_HDR_LEN] = ProtoExpert.new("metaroce.bad_hdr_len", "hdr_words disagrees with type and flags", MAL, ERR),
	[R_RESERVED] = ProtoExpert.new("metaroce.reserved_set", "Reserved bits or zero fields set", MAL, ERR),
	[R_BAD_FLAGS] = ProtoExpert.new("metaroce.bad_flags", "Flags not allowed or inconsistent", MAL, ERR),
	[R_BAD_LENGTH] = ProtoExpert.new("metaroce.bad_length", "Bad length", MAL, ERR),
	[R_BAD_OFFSET] = ProtoExpert.new("metaroce.bad_offset", "Offset beyond the message", MAL, ERR),
	[R_VA_OVERFLOW] = ProtoExpert.new("metaroce.va_overflow", "Address range wraps", MAL, ERR),
	[R_BAD_FIELD] = ProtoExpert.new("metaroce.bad_field", "Bad field value", MAL, ERR),
}
local ex_pbundle = ProtoExpert.new("metaroce.pbundle.bad", "Packet bundle layout invalid: dropped whole", MAL, ERR)
local ex_retx = ProtoExpert.new("metaroce.retx", "Resent packet", expert.group.SEQUENCE, expert.severity.NOTE)
local ex_nak = ProtoExpert.new("metaroce.nak", "NAK", expert.group.RESPONSE_CODE, expert.severity.NOTE)
local ex_short = ProtoExpert.new("metaroce.short_capture", "Header cut short by the capture's snap length",
	expert.group.UNDECODED, expert.severity.NOTE)
do
	local list = { ex_pbundle, ex_retx, ex_nak, ex_short }
	for _, e in pairs(ex) do
		list[#list + 1] = e
	end
	mrc.experts = list
end

-- ------------------------------------------------------------- preferences

mrc.prefs.udp_port = Pref.uint("UDP port", DEFAULT_PORT,
	"UDP destination port of MetaRoCE (the module parameter udp_port)")
mrc.prefs.heuristic = Pref.bool("Find MetaRoCE on any UDP port", true,
	"Try the strict heuristic on UDP datagrams of other ports")
mrc.prefs.check_icrc = Pref.bool("Verify the ICRC", true,
	"Compute the CRC32C of every whole packet and compare it with its ICRC")
mrc.prefs.mad = Pref.bool("Decode QP1 datagrams as InfiniBand MADs", true,
	"Hand the payload of UD_SENDs for QP1 to the InfiniBand dissector (CM, SA...)")

-- ------------------------------------------------------------------ CRC32C

local band, bor, bxor, rshift, lshift = bit32.band, bit32.bor, bit32.bxor, bit32.rshift, bit32.lshift
local sbyte = string.byte

local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if band(c, 1) ~= 0 then
			c = bxor(rshift(c, 1), 0x82f63b78)
		else
			c = rshift(c, 1)
		end
	end
	crc_table[i] = c
end

-- [INT-1] CRC32C of the string s
local function crc32c(s)
	local c = 0xffffffff
	for i = 1, #s do
		c = bxor(rshift(c, 8), crc_table[band(bxor(c, sbyte(s, i)), 0xff)])
	end
	return bxor(c, 0xffffffff)
end

-- ------------------------------------------------------- the receiver's view

-- Big-endian readers of the Lua string s at the 0-based offset o.
local function be16(s, o)
	local a, b = sbyte(s, o + 1, o + 2)
	return a * 256 + b
end
local function be32(s, o)
	local a, b, c, d = sbyte(s, o + 1, o + 4)
	return ((a * 256 + b) * 256 + c) * 256 + d
end

local function has(flags, bit)
	return band(flags, bit) ~= 0
end

local function hdr_len_of(ptype, flags)
	return BASE_LEN + EXT_LEN[ptype] + ((has(flags, F_IMM) or has(flags, F_INV)) and IMM_LEN or 0)
end

-- [PKT-46] [va, va + len) wraps 2^64 (va as two 32-bit halves; len < 2^32)
local function va_wraps(hi, lo, len)
	return len > 0 and hi == 0xffffffff and lo + len - 1 > 0xffffffff
end

local function is_sequenced(t)
	return t >= T_SEND and t <= T_ATOMIC_RESP
end

local function carries_payload(t)
	return t == T_SEND or t == T_WRITE or t == T_READ_RESP or t == T_PROBE or t == T_UD_SEND or
	       t == T_HELLO
end

-- mrc_hello_parse(): the [PKT-90] record at offset o of s
local function hello_record(s, o)
	local minv, maxv, paths, seg = sbyte(s, o + 5, o + 8)
	if be32(s, o) ~= HELLO_MAGIC then
		return R_BAD_FIELD
	end
	if be32(s, o + 20) ~= 0 then
		return R_RESERVED
	end
	if minv == 0 or minv > maxv or paths == 0 or be16(s, o + 18) == 0 or seg < 8 or seg > 13 then
		return R_BAD_FIELD
	end
	return R_OK
end

-- [PKT-92] a HELLO's plane table (np entries of PLANE_LEN at o) and the
-- zero padding to the end of its n payload bytes
local PLANE_LEN, HELLO_PLANES_MAX = 20, 8
local function hello_planes(s, o, np, n)
	for k = 0, np - 1 do
		local e = o + k * PLANE_LEN
		local fam = sbyte(s, e + 1)
		if fam ~= 0 and fam ~= 4 and fam ~= 6 then
			return R_BAD_FIELD
		end
		if s:sub(e + 2, e + 4) ~= string.rep("\0", 3) then
			return R_RESERVED
		end
		local from = fam == 4 and 4 or 0
		if fam ~= 6 and s:sub(e + 5 + from, e + 20) ~= string.rep("\0", 16 - from) then
			return R_RESERVED
		end
	end
	local pad = s:sub(o + np * PLANE_LEN + 1, o + n)
	if pad ~= string.rep("\0", #pad) then
		return R_RESERVED
	end
	return R_OK
end

-- [PKT-41..44] one segment of a SEND, WRITE or READ_RESP message
local function check_segment(flags, offset, payload_len, total)
	local stop = offset + payload_len
	if total > MAX_MSG_LEN then
		return R_BAD_LENGTH
	end
	if stop > total then
		return R_BAD_OFFSET
	end
	if payload_len == 0 and total ~= 0 then
		return R_BAD_LENGTH
	end
	if has(flags, F_FIRST) ~= (offset == 0) or has(flags, F_LAST) ~= (stop == total) then
		return R_BAD_FLAGS
	end
	return R_OK
end

local FIRST_LAST = F_FIRST + F_LAST

local function check_ext(p, s)
	local t, fl = p.type, p.flags
	if t == T_SEND then
		return check_segment(fl, be32(s, 36), p.payload_len, be32(s, 40))
	elseif t == T_WRITE then
		local total = be32(s, 48)
		if be32(s, 52) ~= 0 and not has(fl, F_IMM) then
			return R_RESERVED
		end
		if va_wraps(be32(s, 32), be32(s, 36), total) then
			return R_VA_OVERFLOW
		end
		return check_segment(fl, be32(s, 44), p.payload_len, total)
	elseif t == T_READ_RESP then
		return check_segment(fl, be32(s, 36), p.payload_len, be32(s, 40))
	elseif t == T_READ_REQ then
		local len = be32(s, 44)
		if band(fl, FIRST_LAST) ~= FIRST_LAST then
			return R_BAD_FLAGS
		end
		if len > MAX_MSG_LEN then
			return R_BAD_LENGTH
		end
		if va_wraps(be32(s, 32), be32(s, 36), len) then
			return R_VA_OVERFLOW
		end
	elseif t == T_ATOMIC then
		local op = sbyte(s, 61)
		if band(fl, FIRST_LAST) ~= FIRST_LAST then
			return R_BAD_FLAGS
		end
		if op ~= ATOMIC_CMP_SWAP and op ~= ATOMIC_FETCH_ADD then
			return R_BAD_FIELD
		end
		if op == ATOMIC_FETCH_ADD and (be32(s, 48) ~= 0 or be32(s, 52) ~= 0) then
			return R_RESERVED
		end
		if va_wraps(be32(s, 32), be32(s, 36), 8) then
			return R_VA_OVERFLOW
		end
	elseif t == T_ATOMIC_RESP then
		if band(fl, FIRST_LAST) ~= FIRST_LAST then
			return R_BAD_FLAGS
		end
	elseif t == T_NAK then
		local code = sbyte(s, 33)
		if code < NAK_ACCESS or code > NAK_SEQ then
			return R_BAD_FIELD
		end
		if code ~= NAK_RNR and be32(s, 44) ~= 0 then
			return R_RESERVED
		end
	elseif t == T_PROBE then
		local kind, minv, maxv = sbyte(s, 33, 35)
		if kind ~= PROBE_REQ and kind ~= PROBE_RESP then
			return R_BAD_FIELD
		end
		if minv == 0 or minv > maxv then
			return R_BAD_FIELD
		end
		if kind == PROBE_REQ and (be32(s, 40) ~= 0 or be32(s, 48) ~= 0) then
			return R_RESERVED
		end
	elseif t == T_HELLO then
		-- mrc_check_hello()
		local kind, np = sbyte(s, 33, 34)
		if kind ~= 1 and kind ~= 2 then
			return R_BAD_FIELD
		end
		if np == 0 or np > HELLO_PLANES_MAX then
			return R_BAD_FIELD
		end
		if p.path_id ~= 0 then
			return R_RESERVED
		end
		if p.payload_len < np * PLANE_LEN or p.payload_len > HELLO_PLANES_MAX * PLANE_LEN then
			return R_BAD_LENGTH
		end
		-- the table is checked where it lies, so only when captured
		if #s - p.hdr_len < p.payload_len then
			return R_TRUNCATED
		end
		return hello_planes(s, p.hdr_len, np, p.payload_len)
	elseif t == T_UD_SEND then
		-- [PKT-87] one packet per message, no connection fields
		if band(fl, FIRST_LAST) ~= FIRST_LAST then
			return R_BAD_FLAGS
		end
		if p.path_id ~= 0 or p.cookie ~= 0 or sbyte(s, 37) ~= 0 then
			return R_RESERVED
		end
	end
	return R_OK
end

-- mrc_wire_check(): every rule that needs no more than the header
local function check(p, s)
	local fl, t = p.flags, p.type
	if band(fl, F_DEFINED) ~= fl then
		return R_RESERVED
	end
	if band(fl, ALLOWED[t]) ~= fl then
		return R_BAD_FLAGS
	end
	if has(fl, F_IMM) and has(fl, F_INV) then
		return R_BAD_FLAGS
	end
	if band(fl, F_IMM + F_INV + F_SOLICITED) ~= 0 and not has(fl, F_LAST) then
		return R_BAD_FLAGS
	end
	if sbyte(s, 9) ~= 0 then
		return R_RESERVED
	end
	if not is_sequenced(t) and (p.psn ~= 0 or p.msn ~= 0 or p.ssn ~= 0 or p.stream_id ~= 0) then
		return R_RESERVED
	end
	if p.payload_len > 0 and not carries_payload(t) then
		return R_BAD_LENGTH
	end
	if p.hdr_len + p.payload_len + ICRC_LEN > MAX_PKT_LEN then
		return R_TOO_LONG
	end
	return check_ext(p, s)
end

-- mrc_decode(): the header of a packet of plen bytes whose first #s are
-- in the string s (#s >= BASE_LEN), into p; the verdict
local function decode(s, plen, p)
	local t = sbyte(s, 2)
	local fl = be16(s, 4)
	p.type, p.flags = t, fl
	if not EXT_LEN[t] then
		return R_BAD_TYPE
	end
	if band(fl, F_DEFINED) ~= fl then
		return R_RESERVED
	end
	p.hdr_len = hdr_len_of(t, fl)
	if sbyte(s, 3) * 4 ~= p.hdr_len then
		return R_BAD_HDR_LEN
	end
	if p.hdr_len + ICRC_LEN > plen or p.hdr_len > #s then
		return R_TRUNCATED
	end
	p.path_id = sbyte(s, 4)
	p.stream_id = be16(s, 6)
	p.dst_qpn = band(be32(s, 8), 0xffffff)
	p.psn, p.msn, p.ssn = be32(s, 12), be32(s, 16), be32(s, 20)
	p.cookie = be32(s, 28)
	-- reserved bytes inside the extension ([PKT-12])
	if (t == T_ATOMIC or t == T_NAK) and band(be32(s, t == T_ATOMIC and 60 or 32), 0xffffff) ~= 0 then
		return R_RESERVED
	end
	if t == T_PROBE and sbyte(s, 36) ~= 0 then
		return R_RESERVED
	end
	if t == T_HELLO then
		if be16(s, 34) ~= 0 then
			return R_RESERVED
		end
		local hr = hello_record(s, 36)
		if hr ~= R_OK then
			return hr
		end
	end
	p.payload_len = plen - p.hdr_len - ICRC_LEN
	return check(p, s)
end

-- The verdict on the packet of plen bytes at off in tvb, of which avail
-- are captured: mrc_wire_parse() when it is all there (r), and
-- mrc_wire_parse_hdr() (hr), which skips the ICRC (as does r unless
-- icrc). p gets what was decoded, p.icrc and p.computed the trailer and
-- the CRC over the rest.
local function verdict(tvb, off, avail, plen, p, icrc)
	local s = tvb:raw(off, avail)
	local r
	if plen < MIN_PKT_LEN or avail < 1 then
		return R_TRUNCATED, R_TRUNCATED
	end
	if plen > MAX_PKT_LEN then
		return R_TOO_LONG, R_TOO_LONG
	end
	if sbyte(s, 1) ~= WIRE_VERSION then
		return R_BAD_VERSION, R_BAD_VERSION
	end
	if avail < BASE_LEN then
		return R_TRUNCATED, R_TRUNCATED
	end
	if avail >= plen and icrc then
		p.icrc = be32(s, plen - ICRC_LEN)
		p.computed = crc32c(s:sub(1, plen - ICRC_LEN))
		if p.icrc ~= p.computed then
			r = R_BAD_CRC
		end
	end
	local hr = decode(s, plen, p)
	return r or hr, hr
end

-- Is the header the type and flags imply all in the avail captured bytes?
local function header_captured(tvb, off, avail)
	if avail < BASE_LEN then
		return false
	end
	local t = tvb(off + 1, 1):uint()
	return not EXT_LEN[t] or avail >= hdr_len_of(t, tvb(off + 4, 2):uint())
end

-- [ENC-9] packets in a datagram of len bytes: n >= 2 for an ACK bundle
local function ack_bundle_count(tvb, len)
	if len <= ACK_PKT_LEN or len % ACK_PKT_LEN ~= 0 or len / ACK_PKT_LEN > ACK_BUNDLE_MAX or
	   tvb(1, 1):uint() ~= T_ACK then
		return 1
	end
	return len / ACK_PKT_LEN
end

local function pbundle_hdr_len(n)
	return 4 + 4 * math.floor((n + 1) / 2)
end

-- mrc_wire_pbundle_parse(): the verdict on a packet bundle's layout, and
-- its packets' offsets and lengths
local function pbundle_layout(tvb, avail, len)
	local offs, lens = {}, {}
	if len > MAX_PKT_LEN then
		return R_TOO_LONG
	end
	avail = math.min(avail, len)
	if avail < 4 then
		return R_TRUNCATED
	end
	local s = tvb:raw(0, math.min(avail, pbundle_hdr_len(PBUNDLE_MAX)))
	if sbyte(s, 1) ~= WIRE_VERSION then
		return R_BAD_VERSION
	end
	if sbyte(s, 2) ~= T_BUNDLE then
		return R_BAD_TYPE
	end
	local n = sbyte(s, 3)
	if n < PBUNDLE_MIN or n > PBUNDLE_MAX then
		return R_BAD_LENGTH
	end
	local off = pbundle_hdr_len(n)
	if avail < off then
		return R_TRUNCATED
	end
	if sbyte(s, 4) ~= 0 or (n % 2 == 1 and be16(s, 4 + 2 * n) ~= 0) then
		return R_RESERVED
	end
	for i = 0, n - 1 do
		local plen = be16(s, 4 + 2 * i)
		if plen < MIN_PKT_LEN or plen > len - off then
			return R_BAD_LENGTH
		end
		offs[i], lens[i] = off, plen
		off = off + plen
	end
	if off ~= len then
		return R_BAD_LENGTH
	end
	return R_OK, n, offs, lens
end

-- ------------------------------------------------------------------ display

local infiniband = Dissector.get("infiniband")

-- A UD_SEND's MAD (in the TvbRange mad), as the InfiniBand dissector
-- takes one: behind a local route header (IBA local, BTH next), a BTH
-- (UD SEND only, QP1) and a DETH, then ICRC and VCRC, zero: this packet
-- never crossed an InfiniBand link.
local function dissect_mad(mad, pinfo, tree, qkey, src_qpn)
	local words = (8 + 12 + 8 + mad:len() + ICRC_LEN) / 4
	local ba = ByteArray.new(string.format("0002ffff%04x0001" .. "6400ffff00000001" .. "00000000" .. "%08x00%06x",
		words, qkey, src_qpn))
	ba:append(mad:bytes())
	ba:append(ByteArray.new("000000000000"))
	-- it takes the columns and addresses over: they stay the datagram's
	local src, dst, sport, dport = pinfo.src, pinfo.dst, pinfo.src_port, pinfo.dst_port
	infiniband:call(ba:tvb("MAD (as InfiniBand)"), pinfo, tree)
	local what = tostring(pinfo.cols.info)
	pinfo.src, pinfo.dst, pinfo.src_port, pinfo.dst_port = src, dst, sport, dport
	return what
end

-- The ranges of a sorted list of PSNs, for people: "3-5 9".
local function ranges(psns)
	local out, i = {}, 1
	while i <= #psns do
		local j = i
		while j < #psns and psns[j + 1] == psns[j] + 1 do
			j = j + 1
		end
		out[#out + 1] = i == j and tostring(psns[i]) or (psns[i] .. "-" .. psns[j])
		i = j + 1
	end
	return table.concat(out, " ")
end

-- [PKT-61] the SACK words of an ACK at off, and the PSNs they cover
local function sack(tvb, t, off)
	local cum = tvb(off + 32, 4):uint()
	local psns = {}
	for w = 0, 3 do
		local r = tvb(off + 64 + 8 * w, 8)
		local item = t:add(f.ack_sack, r)
		local first = #psns
		local hi, lo = r(0, 4):uint(), r(4, 4):uint()
		for bit = 0, 63 do
			if band(bit < 32 and lo or hi, lshift(1, bit % 32)) ~= 0 then
				local psn = (cum + 1 + 64 * w + bit) % TWO_32
				psns[#psns + 1] = psn
				item:add(f.ack_sack_psn, r, psn):set_generated()
			end
		end
		item:append_text(string.format(" %d (PSNs %d..%d): %d received", w,
			(cum + 1 + 64 * w) % TWO_32, (cum + 64 * (w + 1)) % TWO_32, #psns - first))
	end
	t:add(f.ack_sacked, #psns):set_generated()
	return #psns > 0 and ranges(psns) or "none"
end

local function add_caps(t, r, key)
	local item = t:add(f[key], r)
	item:add(f[key .. "_atomic"], r)
	item:add(f[key .. "_rate_hint"], r)
	item:add(f[key .. "_multiplane"], r)
	item:add(f[key .. "_reserved"], r)
end

-- The extension of the packet at off (whole in the capture); a summary.
local function ext_fields(tvb, t, off, p)
	local function r(o, n)
		return tvb(off + o, n)
	end
	local ty = p.type
	if ty == T_SEND then
		t:add(f.send_rsn, r(32, 4))
		t:add(f.send_offset, r(36, 4))
		t:add(f.send_total, r(40, 4))
		return string.format("rsn=%d off=%d/%d", r(32, 4):uint(), r(36, 4):uint(), r(40, 4):uint())
	elseif ty == T_WRITE then
		t:add(f.write_va, r(32, 8))
		t:add(f.write_rkey, r(40, 4))
		t:add(f.write_offset, r(44, 4))
		t:add(f.write_total, r(48, 4))
		t:add(f.write_rsn, r(52, 4))
		return string.format("off=%d/%d", r(44, 4):uint(), r(48, 4):uint())
	elseif ty == T_READ_REQ then
		t:add(f.rreq_va, r(32, 8))
		t:add(f.rreq_rkey, r(40, 4))
		t:add(f.rreq_len, r(44, 4))
		t:add(f.rreq_tag, r(48, 4))
		return string.format("len=%d", r(44, 4):uint())
	elseif ty == T_READ_RESP then
		t:add(f.rresp_tag, r(32, 4))
		t:add(f.rresp_offset, r(36, 4))
		t:add(f.rresp_total, r(40, 4))
		return string.format("off=%d/%d", r(36, 4):uint(), r(40, 4):uint())
	elseif ty == T_ATOMIC then
		t:add(f.atomic_va, r(32, 8))
		t:add(f.atomic_swap_add, r(40, 8))
		t:add(f.atomic_compare, r(48, 8))
		t:add(f.atomic_rkey, r(56, 4))
		t:add(f.atomic_op, r(60, 1))
		t:add(f.atomic_reserved, r(61, 3))
		return atomic_ops[r(60, 1):uint()] or "?"
	elseif ty == T_ATOMIC_RESP then
		t:add(f.aresp_orig, r(32, 8))
		return ""
	elseif ty == T_ACK then
		t:add(f.ack_cum_psn, r(32, 4))
		t:add(f.ack_tsecr, r(36, 4))
		t:add(f.ack_delay, r(40, 4))
		t:add(f.ack_ce_count, r(44, 4))
		t:add(f.ack_msn, r(48, 4))
		t:add(f.ack_rsn_limit, r(52, 4))
		t:add(f.ack_rate, r(56, 4))
		t:add(f.ack_rx_max, r(60, 4))
		local sacked = sack(tvb, t, off)
		return string.format("cum=%d sack=%s", r(32, 4):uint(), sacked)
	elseif ty == T_NAK then
		t:add(f.nak_code, r(32, 1))
		t:add(f.nak_reserved, r(33, 3))
		t:add(f.nak_psn, r(36, 4))
		t:add(f.nak_msn, r(40, 4))
		t:add(f.nak_arg, r(44, 4))
		return string.format("%s psn=%d msn=%d", nak_names[r(32, 1):uint()] or "?", r(36, 4):uint(),
			r(40, 4):uint())
	elseif ty == T_PROBE then
		t:add(f.probe_kind, r(32, 1))
		t:add(f.probe_min_ver, r(33, 1))
		t:add(f.probe_max_ver, r(34, 1))
		t:add(f.probe_reserved, r(35, 1))
		t:add(f.probe_seq, r(36, 4))
		t:add(f.probe_tsecr, r(40, 4))
		add_caps(t, r(44, 4), "probe_caps")
		t:add(f.probe_echo_len, r(48, 4))
		return string.format("%s seq=%d", probe_kinds[r(32, 1):uint()] or "?", r(36, 4):uint())
	elseif ty == T_UD_SEND then
		t:add(f.ud_qkey, r(32, 4))
		t:add(f.ud_src_reserved, r(36, 4))
		t:add(f.ud_src_qpn, r(36, 4))
		return string.format("src_qp=0x%x", band(r(36, 4):uint(), 0xffffff))
	end
	return ""
end

local function flag_names(flags)
	local names = {}
	for _, b in ipairs(flag_bits) do
		if has(flags, b[3]) then
			names[#names + 1] = b[2]
		end
	end
	return table.concat(names, ",")
end

-- The base header fields of a packet at off that lie in its avail bytes.
local function base_fields(tvb, t, off, avail)
	local function fits(o, n)
		return o + n <= avail
	end
	local function r(o, n)
		return tvb(off + o, n)
	end
	if fits(0, 1) then t:add(f.version, r(0, 1)) end
	if fits(1, 1) then t:add(f.type, r(1, 1)) end
	if fits(2, 1) then
		t:add(f.hdr_words, r(2, 1)):append_text(string.format(" (%d bytes)", 4 * r(2, 1):uint()))
	end
	if fits(3, 1) then t:add(f.path_id, r(3, 1)) end
	if fits(4, 2) then
		local fl = r(4, 2)
		local item = t:add(f.flags, fl)
		local names = flag_names(fl:uint())
		if names ~= "" then
			item:append_text(" (" .. names .. ")")
		end
		for _, b in ipairs(flag_bits) do
			item:add(f["flag_" .. b[1]], fl)
		end
		item:add(f.flags_reserved, fl)
	end
	if fits(6, 2) then t:add(f.stream_id, r(6, 2)) end
	if fits(8, 4) then
		t:add(f.qpn_reserved, r(8, 4))
		t:add(f.dst_qpn, r(8, 4))
	end
	if fits(12, 4) then t:add(f.psn, r(12, 4)) end
	if fits(16, 4) then t:add(f.msn, r(16, 4)) end
	if fits(20, 4) then t:add(f.ssn, r(20, 4)) end
	if fits(24, 4) then t:add(f.tsval, r(24, 4)) end
	if fits(28, 4) then t:add(f.cookie, r(28, 4)) end
end

-- The verdict r (why: what a bundle rule said) and, when the ICRC
-- failed, hr, what the header's checks say.
local function add_verdict(item, r, hr, why)
	item:add(f.reason, r):set_generated()
	if r ~= R_OK and why then
		item:add_proto_expert_info(ex[r], why)
	elseif r ~= R_OK then
		item:add_proto_expert_info(ex[r])
	end
	-- what a packet with a bad ICRC would have failed for besides
	if hr ~= r and hr ~= R_OK then
		item:add_proto_expert_info(ex[hr])
	end
end

-- One packet: plen bytes at off in tvb, the index-th of a bundle (nil:
-- alone); rule(p) gives the verdict a bundle adds to a packet that is
-- valid on its own, and why. Returns p (p.ok: valid) and a summary for
-- the Info column.
local function dissect_packet(tvb, pinfo, tree, off, plen, index, rule)
	local avail = math.min(plen, tvb:len() - off)
	local item = tree:add(mrc, tvb(off, avail))
	local p = {}
	if index then
		item:add(f.bundle_index, index):set_generated()
	end
	local whole = avail >= plen
	if not whole and not header_captured(tvb, off, avail) then
		base_fields(tvb, item, off, avail)
		item:set_text(string.format("MetaRoCE, %d of %d bytes captured", avail, plen))
		item:add_proto_expert_info(ex_short)
		return p, "[cut]"
	end
	local r, hr = verdict(tvb, off, avail, plen, p, mrc.prefs.check_icrc)
	local why
	p.ok = r == R_OK
	if p.ok and rule then
		r, why = rule(p)
		p.ok = r == R_OK
	end
	local name = p.type and (type_names[p.type] or string.format("type %d", p.type)) or "packet"
	if hr ~= R_OK then
		-- a packet no receiver decodes: the fields it has, for people
		if r ~= R_BAD_VERSION then
			base_fields(tvb, item, off, avail)
		else
			item:add(f.version, tvb(off, 1))
		end
		add_verdict(item, r, hr)
		item:set_text(string.format("MetaRoCE %s, %s", name, reason_names[r]))
		return p, name .. " [" .. reason_names[r] .. "]"
	end
	base_fields(tvb, item, off, avail)
	local summary = ext_fields(tvb, item, off, p)
	if has(p.flags, F_IMM) then
		item:add(f.imm, tvb(off + p.hdr_len - IMM_LEN, IMM_LEN))
	elseif has(p.flags, F_INV) then
		item:add(f.inv_rkey, tvb(off + p.hdr_len - IMM_LEN, IMM_LEN))
	end
	item:add(f.payload_len, p.payload_len):set_generated()
	local got = math.min(p.payload_len, avail - p.hdr_len)
	if got > 0 then
		local pr = tvb(off + p.hdr_len, got)
		if p.type == T_PROBE then
			item:add(f.probe_padding, pr)
		else
			item:add(f.payload, pr)
			-- a MAD ib_mad would take (base version 1) of a datagram
			-- a receiver would take
			if p.type == T_UD_SEND and p.dst_qpn == GSI_QPN and p.ok and got == p.payload_len and
			   pr(0, 1):uint() == 1 and mrc.prefs.mad and infiniband and
			   tvb(off + 32, 4):uint() == GSI_QKEY then
				p.mad = dissect_mad(pr, pinfo, tree, GSI_QKEY, band(tvb(off + 36, 4):uint(), 0xffffff))
			end
		end
	end
	if whole and p.icrc then
		item:add(f.icrc, tvb(off + plen - ICRC_LEN, ICRC_LEN))
		item:add(f.icrc_computed, p.computed):set_generated()
		item:add(f.icrc_status, p.icrc == p.computed and ICRC_GOOD or ICRC_BAD):set_generated()
	else
		item:add(f.icrc_status, ICRC_UNVERIFIED):set_generated()
	end
	add_verdict(item, r, hr, why)
	if has(p.flags, F_RETX) then
		item:add_proto_expert_info(ex_retx)
	end
	if p.type == T_NAK then
		item:add_proto_expert_info(ex_nak, "NAK " .. (nak_names[tvb(off + 32, 1):uint()] or "?"))
	end
	local head = string.format("%s qp=0x%x", name, p.dst_qpn)
	if is_sequenced(p.type) then
		head = head .. string.format(" path=%d psn=%d msn=%d", p.path_id, p.psn, p.msn)
	elseif p.type ~= T_UD_SEND then
		head = head .. string.format(" path=%d", p.path_id)
	end
	if summary ~= "" then
		head = head .. " " .. summary
	end
	if p.payload_len > 0 and p.type ~= T_PROBE then
		head = head .. string.format(" len=%d", p.payload_len)
	end
	local fl = flag_names(band(p.flags, F_FIRST + F_LAST + F_IMM + F_INV + F_SOLICITED + F_ACK_REQ + F_RETX + F_CE_ECHO))
	if fl ~= "" then
		head = head .. " [" .. fl .. "]"
	end
	if r ~= R_OK then
		head = head .. " [" .. reason_names[r] .. "]"
	end
	item:set_text("MetaRoCE " .. head)
	if p.mad then
		head = head .. " MAD: " .. p.mad
	end
	return p, head
end

-- [ENC-13] a packet bundle: its header and table, then each packet
local function dissect_pbundle(tvb, pinfo, tree)
	local cap, len = tvb:len(), tvb:reported_len()
	local r, n, offs, lens = pbundle_layout(tvb, cap, len)
	local count = cap >= 3 and tvb(2, 1):uint() or 0
	local hlen = math.min(pbundle_hdr_len(count), cap)
	local item = tree:add(mrc, tvb(0, hlen))
	local function fits(o, l)
		return o + l <= cap
	end
	item:add(f.pb_version, tvb(0, 1))
	item:add(f.pb_type, tvb(1, 1))
	if fits(2, 1) then item:add(f.pb_count, tvb(2, 1)) end
	if fits(3, 1) then item:add(f.pb_reserved, tvb(3, 1)) end
	for i = 0, math.min(count, PBUNDLE_MAX) - 1 do
		if fits(4 + 2 * i, 2) then
			item:add(f.pb_len, tvb(4 + 2 * i, 2))
		end
	end
	if count % 2 == 1 and count <= PBUNDLE_MAX and fits(4 + 2 * count, 2) then
		item:add(f.pb_padding, tvb(4 + 2 * count, 2))
	end
	if r ~= R_OK then
		item:set_text(string.format("MetaRoCE packet bundle, %s", reason_names[r]))
		if r == R_TRUNCATED and cap < len then
			item:add_proto_expert_info(ex_short)
			return "Bundle [cut]"
		end
		item:add(f.reason, r):set_generated()
		item:add_proto_expert_info(ex_pbundle, "Packet bundle dropped whole: " .. reason_names[r])
		return "Bundle [" .. reason_names[r] .. "]"
	end
	item:set_text(string.format("MetaRoCE packet bundle, %d packets", n))
	-- [ENC-13] as a receiver judges a bundled packet that is valid alone
	local qpn
	local function rule(p)
		if p.type == T_UD_SEND then
			return R_BAD_TYPE, "A UD_SEND in a packet bundle"
		end
		if qpn and p.dst_qpn ~= qpn then
			return R_BAD_FIELD, string.format("For QP 0x%x in a bundle for QP 0x%x", p.dst_qpn, qpn)
		end
		qpn = qpn or p.dst_qpn
		return R_OK
	end
	local infos = {}
	for i = 0, n - 1 do
		if offs[i] >= cap then
			infos[#infos + 1] = string.format("%d more not captured", n - i)
			break
		end
		local _, info = dissect_packet(tvb, pinfo, tree, offs[i], lens[i], i, rule)
		infos[#infos + 1] = info
	end
	return string.format("Bundle of %d: %s", n, table.concat(infos, "; "))
end

local function dissect_ack_bundle(tvb, pinfo, tree, n)
	local cap = tvb:len()
	local item = tree:add(mrc, tvb(0, math.min(cap, n * ACK_PKT_LEN)))
	item:add(f.ackb_count, n):set_generated()
	item:set_text(string.format("MetaRoCE ACK bundle, %d ACKs", n))
	local function rule(p)
		if p.type ~= T_ACK then
			return R_BAD_TYPE, "Not an ACK in an ACK bundle"
		end
		return R_OK
	end
	local infos = {}
	for i = 0, n - 1 do
		local off = i * ACK_PKT_LEN
		if off >= cap then
			infos[#infos + 1] = string.format("%d more not captured", n - i)
			break
		end
		local _, info = dissect_packet(tvb, pinfo, tree, off, ACK_PKT_LEN, i, rule)
		infos[#infos + 1] = info
	end
	return string.format("ACK bundle of %d: %s", n, table.concat(infos, "; "))
end

function mrc.dissector(tvb, pinfo, tree)
	local cap, len = tvb:len(), tvb:reported_len()
	local info
	if cap == 0 then
		return 0
	end
	pinfo.cols.protocol = "MetaRoCE"
	if cap >= 2 and tvb(0, 1):uint() == WIRE_VERSION and tvb(1, 1):uint() == T_BUNDLE then
		info = dissect_pbundle(tvb, pinfo, tree)
	else
		local n = cap >= 2 and ack_bundle_count(tvb, len) or 1
		if n > 1 then
			info = dissect_ack_bundle(tvb, pinfo, tree, n)
		else
			local _
			_, info = dissect_packet(tvb, pinfo, tree, 0, len, nil, nil)
		end
	end
	pinfo.cols.protocol = "MetaRoCE"
	pinfo.cols.info = info
	return cap
end

-- A strict test: a valid packet bundle layout, or a first packet (a
-- datagram's or an ACK bundle's) that a receiver would take, its ICRC
-- checked when captured. Random bytes pass with odds below 2^-40.
local function heuristic(tvb, pinfo, tree)
	local cap, len = tvb:len(), tvb:reported_len()
	if not mrc.prefs.heuristic or cap < 2 or tvb(0, 1):uint() ~= WIRE_VERSION then
		return false
	end
	if tvb(1, 1):uint() == T_BUNDLE then
		if pbundle_layout(tvb, cap, len) ~= R_OK then
			return false
		end
	else
		local plen = ack_bundle_count(tvb, len) > 1 and ACK_PKT_LEN or len
		local avail = math.min(cap, plen)
		if avail < plen and not header_captured(tvb, 0, avail) then
			return false
		end
		if verdict(tvb, 0, avail, plen, {}, true) ~= R_OK then
			return false
		end
	end
	mrc.dissector(tvb, pinfo, tree)
	return true
end

-- ----------------------------------------------------- the hello ([PKT-90])

-- CM private data that starts with a hello (the InfiniBand dissector
-- offers the private data of every CM REQ and REP, after the IP CM
-- header of an RDMA CM REQ).
local hello = Proto("metaroce_hello", "MetaRoCE hello")
local function hello_heuristic(tvb, pinfo, tree)
	if tvb:len() < HELLO_LEN or tvb(0, 4):uint() ~= HELLO_MAGIC then
		return false
	end
	local item = tree:add(mrc, tvb(0, HELLO_LEN), "MetaRoCE hello")
	local function r(o, n)
		return tvb(o, n)
	end
	item:add(f.hello_magic, r(0, 4))
	item:add(f.hello_min_ver, r(4, 1))
	item:add(f.hello_max_ver, r(5, 1))
	item:add(f.hello_max_paths, r(6, 1))
	item:add(f.hello_seg_shift, r(7, 1)):append_text(string.format(" (%d bytes)", 2 ^ r(7, 1):uint()))
	add_caps(item, r(8, 4), "hello_caps")
	item:add(f.hello_cookie, r(12, 4))
	item:add(f.hello_udp_port, r(16, 2))
	item:add(f.hello_max_streams, r(18, 2))
	item:add(f.hello_reserved, r(20, 4))
	-- mrc_hello_parse(): a hello it refuses leaves the connection the
	-- defaults of no hello
	local minv, maxv, seg = r(4, 1):uint(), r(5, 1):uint(), r(7, 1):uint()
	local verdict_ = R_OK
	if r(20, 4):uint() ~= 0 then
		verdict_ = R_RESERVED
	elseif minv == 0 or minv > maxv or r(6, 1):uint() == 0 or r(18, 2):uint() == 0 or seg < 8 or seg > 13 then
		verdict_ = R_BAD_FIELD
	end
	item:add(f.reason, verdict_):set_generated()
	if verdict_ ~= R_OK then
		item:add_proto_expert_info(ex[verdict_], "Hello refused: the connection takes the defaults of none")
	end
	return true
end

-- --------------------------------------------------------------- registration

local udp_ports = DissectorTable.get("udp.port")
local registered_port = mrc.prefs.udp_port
udp_ports:add(registered_port, mrc)

function mrc.prefs_changed()
	if mrc.prefs.udp_port ~= registered_port then
		udp_ports:remove(registered_port, mrc)
		registered_port = mrc.prefs.udp_port
		udp_ports:add(registered_port, mrc)
	end
end

mrc:register_heuristic("udp", heuristic)
hello:register_heuristic("infiniband.mad.cm.private", hello_heuristic)
