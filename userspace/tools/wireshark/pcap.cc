// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "pcap.h"

#include <cstring>

namespace mrc_pcap {

namespace {

constexpr uint32_t kMagicUs = 0xa1b2c3d4;
constexpr uint32_t kMagicNs = 0xa1b23c4d;
constexpr uint32_t kLinkEthernet = 1;
constexpr uint32_t kSnapMax = 262144;
constexpr uint16_t kEthIpv4 = 0x0800;
constexpr uint16_t kEthIpv6 = 0x86dd;
constexpr uint16_t kEthVlan = 0x8100;
constexpr uint8_t kIpUdp = 17;
// 2026-01-01 00:00:00 UTC: frame i is stamped i milliseconds later
constexpr uint32_t kEpoch = 1767225600;

void put16(std::vector<uint8_t> &b, uint16_t v)
{
	b.push_back(v >> 8);
	b.push_back(v & 0xff);
}

void put32le(FILE *f, uint32_t v, bool *err)
{
	uint8_t b[4] = { uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24) };

	if (fwrite(b, 1, 4, f) != 4)
		*err = true;
}

uint16_t get16(const uint8_t *p)
{
	return uint16_t(p[0] << 8 | p[1]);
}

// The ones' complement sum of RFC 1071, not yet folded.
uint32_t sum16(const uint8_t *p, size_t n, uint32_t s = 0)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += uint32_t(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += uint32_t(p[n - 1] << 8);
	return s;
}

uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return uint16_t(~s);
}

std::vector<uint8_t> udp_segment(const Udp &d)
{
	std::vector<uint8_t> u;
	size_t alen = d.v6 ? 16 : 4;
	uint32_t len = uint32_t(8 + d.payload.size());
	uint32_t s;
	uint16_t c;

	put16(u, d.sport);
	put16(u, d.dport);
	put16(u, uint16_t(len));
	put16(u, 0);
	u.insert(u.end(), d.payload.begin(), d.payload.end());
	// the pseudo-header: addresses, protocol, length
	s = sum16(d.src, alen) + sum16(d.dst, alen) + kIpUdp + (len & 0xffff) + (len >> 16);
	c = fold(sum16(u.data(), u.size(), s));
	c = c ? c : 0xffff;
	u[6] = uint8_t(c >> 8);
	u[7] = uint8_t(c);
	return u;
}

std::vector<uint8_t> frame_of(const Udp &d, uint16_t ip_id)
{
	static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x02 };
	std::vector<uint8_t> f, u = udp_segment(d);
	bool to_b = d.dst[d.v6 ? 15 : 3] != 1;

	f.insert(f.end(), to_b ? mac_b : mac_a, (to_b ? mac_b : mac_a) + 6);
	f.insert(f.end(), to_b ? mac_a : mac_b, (to_b ? mac_a : mac_b) + 6);
	put16(f, d.v6 ? kEthIpv6 : kEthIpv4);
	if (d.v6) {
		uint32_t w = 6u << 28 | uint32_t(d.tos) << 20;

		put16(f, uint16_t(w >> 16));
		put16(f, uint16_t(w));
		put16(f, uint16_t(u.size()));
		f.push_back(kIpUdp);
		f.push_back(64);
		f.insert(f.end(), d.src, d.src + 16);
		f.insert(f.end(), d.dst, d.dst + 16);
	} else {
		size_t at = f.size();
		uint16_t c;

		f.push_back(0x45);
		f.push_back(d.tos);
		put16(f, uint16_t(20 + u.size()));
		put16(f, ip_id);
		put16(f, 0x4000);	// DF ([ENC-8])
		f.push_back(64);
		f.push_back(kIpUdp);
		put16(f, 0);
		f.insert(f.end(), d.src, d.src + 4);
		f.insert(f.end(), d.dst, d.dst + 4);
		c = fold(sum16(f.data() + at, 20));
		f[at + 10] = uint8_t(c >> 8);
		f[at + 11] = uint8_t(c);
	}
	f.insert(f.end(), u.begin(), u.end());
	return f;
}

}  // namespace

Writer::Writer(const std::string &path)
{
	f_ = fopen(path.c_str(), "wb");
	if (!f_)
		return;
	put32le(f_, kMagicUs, &err_);
	put32le(f_, 2 | 4u << 16, &err_);	// version 2.4
	put32le(f_, 0, &err_);			// thiszone
	put32le(f_, 0, &err_);			// sigfigs
	put32le(f_, kSnapMax, &err_);
	put32le(f_, kLinkEthernet, &err_);
}

Writer::~Writer()
{
	close();
}

void Writer::record(const uint8_t *frame, uint32_t cap, uint32_t orig_len)
{
	if (!f_)
		return;
	n_++;
	put32le(f_, kEpoch + n_ / 1000, &err_);
	put32le(f_, (n_ % 1000) * 1000, &err_);
	put32le(f_, cap, &err_);
	put32le(f_, orig_len, &err_);
	if (fwrite(frame, 1, cap, f_) != cap)
		err_ = true;
}

void Writer::add(const Udp &d, uint32_t snap)
{
	std::vector<uint8_t> f = frame_of(d, uint16_t(n_ + 1));
	uint32_t len = uint32_t(f.size());

	record(f.data(), snap && snap < len ? snap : len, len);
}

void Writer::add_record(const std::vector<uint8_t> &cap, uint32_t orig_len)
{
	record(cap.data(), uint32_t(cap.size()), orig_len);
}

bool Writer::close()
{
	if (f_ && fclose(f_))
		err_ = true;
	f_ = nullptr;
	return !err_;
}

namespace {

struct File {
	FILE *f;
	explicit File(const std::string &p) : f(fopen(p.c_str(), "rb")) {}
	~File()
	{
		if (f)
			fclose(f);
	}
};

uint32_t le32(const uint8_t *p, bool swap)
{
	uint32_t v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
		     uint32_t(p[3]) << 24;

	return swap ? __builtin_bswap32(v) : v;
}

// The UDP datagram in @f (@cap captured bytes of a frame), if it is one.
bool parse_frame(const uint8_t *f, size_t cap, Datagram *out)
{
	size_t at = 14, ip, l4;
	uint16_t type;
	uint32_t ulen;

	if (cap < at)
		return false;
	type = get16(f + 12);
	while (type == kEthVlan && cap >= at + 4) {
		type = get16(f + at + 2);
		at += 4;
	}
	ip = at;
	if (type == kEthIpv4) {
		size_t ihl;

		if (cap < ip + 20 || f[ip] >> 4 != 4)
			return false;
		ihl = size_t(f[ip] & 0xf) * 4;
		// fragments: neither the first (MF) nor the others
		if (f[ip + 9] != kIpUdp || ihl < 20 || (get16(f + ip + 6) & 0x3fff))
			return false;
		out->udp.v6 = false;
		out->udp.tos = f[ip + 1];
		memcpy(out->udp.src, f + ip + 12, 4);
		memcpy(out->udp.dst, f + ip + 16, 4);
		l4 = ip + ihl;
	} else if (type == kEthIpv6) {
		if (cap < ip + 40 || f[ip] >> 4 != 6 || f[ip + 6] != kIpUdp)
			return false;
		out->udp.v6 = true;
		out->udp.tos = uint8_t(get16(f + ip) >> 4);
		memcpy(out->udp.src, f + ip + 8, 16);
		memcpy(out->udp.dst, f + ip + 24, 16);
		l4 = ip + 40;
	} else {
		return false;
	}
	if (cap < l4 + 8)
		return false;
	out->udp.sport = get16(f + l4);
	out->udp.dport = get16(f + l4 + 2);
	ulen = get16(f + l4 + 4);
	if (ulen < 8)
		return false;
	out->reported = ulen - 8;
	cap -= l4 + 8;
	out->udp.payload.assign(f + l4 + 8, f + l4 + 8 + (cap < out->reported ? cap : out->reported));
	return true;
}

}  // namespace

std::vector<Datagram> read_udp(const std::string &path, std::string *err)
{
	std::vector<Datagram> out;
	std::vector<uint8_t> buf;
	uint8_t hdr[24], rec[16];
	File file(path);
	uint32_t magic, frame = 0;
	bool swap;

	if (!file.f || fread(hdr, 1, 24, file.f) != 24) {
		*err = path + ": cannot read a pcap header";
		return {};
	}
	magic = le32(hdr, false);
	swap = magic == __builtin_bswap32(kMagicUs) || magic == __builtin_bswap32(kMagicNs);
	magic = le32(hdr, swap);
	if ((magic != kMagicUs && magic != kMagicNs) || le32(hdr + 20, swap) != kLinkEthernet) {
		*err = path + ": not a classic pcap of Ethernet frames";
		return {};
	}
	while (fread(rec, 1, 16, file.f) == 16) {
		uint32_t cap = le32(rec + 8, swap);
		Datagram d;

		if (cap > kSnapMax) {
			*err = path + ": a record is too long";
			return {};
		}
		buf.resize(cap);
		if (fread(buf.data(), 1, cap, file.f) != cap) {
			*err = path + ": truncated record";
			return {};
		}
		d.frame = ++frame;
		if (parse_frame(buf.data(), cap, &d)) {
			d.record = buf;
			d.orig_len = le32(rec + 12, swap);
			out.push_back(std::move(d));
		}
	}
	return out;
}

}  // namespace mrc_pcap
