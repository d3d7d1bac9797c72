// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Classic pcap files (what tcpdump -w writes) of Ethernet frames that
// carry UDP over IPv4 or IPv6: written with fixed timestamps, so a file
// is a function of its datagrams, and read back to the UDP payloads.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mrc_pcap {

// A UDP datagram and the frame around it.
struct Udp {
	bool v6 = false;
	uint8_t src[16] = {};	// IPv4: the first 4 bytes
	uint8_t dst[16] = {};
	uint16_t sport = 0;
	uint16_t dport = 0;
	uint8_t tos = 0;	// DSCP << 2 | ECN
	std::vector<uint8_t> payload;
};

// Writes frames of UDP datagrams; snap < payload size records only the
// first snap bytes of the frame (as tcpdump -s does).
class Writer {
public:
	explicit Writer(const std::string &path);
	~Writer();
	Writer(const Writer &) = delete;
	Writer &operator=(const Writer &) = delete;

	bool ok() const { return f_ != nullptr && !err_; }
	void add(const Udp &d, uint32_t snap = 0);
	// a frame as a capture recorded it: @cap bytes of @orig_len
	void add_record(const std::vector<uint8_t> &cap, uint32_t orig_len);
	bool close();

private:
	void record(const uint8_t *frame, uint32_t cap, uint32_t orig_len);

	FILE *f_ = nullptr;
	bool err_ = false;
	uint32_t n_ = 0;
};

// One UDP datagram read from a capture: what was captured of its payload
// and the length the UDP header says it had.
struct Datagram {
	uint32_t frame = 0;	// 1-based, as tshark numbers frames
	Udp udp;		// payload: the captured bytes only
	uint32_t reported = 0;	// payload bytes on the wire
	std::vector<uint8_t> record;	// the frame's captured bytes
	uint32_t orig_len = 0;		// and its length on the wire
};

// Every UDP datagram of an Ethernet pcap that is not an IP fragment.
// Empty with *err set when the file cannot be read.
std::vector<Datagram> read_udp(const std::string &path, std::string *err);

}  // namespace mrc_pcap
