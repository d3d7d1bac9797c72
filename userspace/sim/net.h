// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// A packet-level data-centre network in virtual time (in the style of
// htsim): a two-tier Clos (leaf-spine) per plane, P planes, one NIC per
// plane per host. Every directed link is an output port with a rate, a
// propagation delay, a finite drop-tail buffer, ECN marking (RED between
// kmin and kmax) and random loss. A port is a FIFO, so its queue is just
// the time it is busy until: a packet costs one event per hop, and packets
// and events come from pools (no heap traffic per packet).
//
// Switches pick the spine by a hash of the 5-tuple (the UDP source port
// chooses the path, as on real switches), seeded per leaf. A failed link
// drops everything silently (carrier up, routes unchanged), except for the
// ideal transport, which knows the live links (the bound).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "event_queue.h"

extern "C" {
#include "core/conn.h"
}

namespace scale {

struct FabricCfg {
	uint32_t hosts = 64;
	uint32_t per_leaf = 8;		// hosts per leaf (per plane)
	uint32_t spines = 8;		// per plane; oversubscription per_leaf:spines
	uint32_t planes = 8;
	double gbps = 100;		// every link
	uint64_t link_ns = 1000;	// propagation + switching, per hop
	uint32_t buffer = 512 * 1024;	// per switch output port, bytes
	uint32_t ecn_kmin = 64 * 1024;	// mark above kmin with a chance rising
	uint32_t ecn_kmax = 64 * 1024;	// ... to pmax at kmax (kmin=kmax: a step)
	double ecn_pmax = 1;
	double loss = 0;		// per packet on every leaf->host link
	// a failed leaf<->spine link (both directions), from fail_at_ns on
	int fail_plane = -1, fail_leaf = 0, fail_spine = 0;
	uint64_t fail_at_ns = 0;
	// a host's NIC sends control packets (ACK, NAK, CNP) before its
	// queued data, as NICs answer in hardware: else a window of data in
	// the host queue holds up the ACKs of what the host receives
	bool nic_ctrl_first = true;
	uint64_t seed = 1;
};

enum PktKind : uint8_t {
	MRC_DATA, MRC_ACK,
	ROCE_DATA, ROCE_ACK, ROCE_NAK, ROCE_CNP,
	IDEAL_DATA, IDEAL_ACK,
};

struct RoceHdr {
	uint64_t psn;		// data: its PSN; ACK/NAK: the next expected
	uint32_t len;
};

struct IdealHdr {
	uint64_t msg;		// ACK: messages the receiver completed
	uint64_t total;		// ACK: payload bytes it received
	uint32_t len;
};

struct Pkt {
	PktKind kind;
	uint8_t stage;		// 0 host->leaf, 1 leaf->spine, 2 spine->leaf, 3 leaf->host
	uint8_t plane;
	bool ce;
	bool lossless;		// the ideal transport's: never dropped
	uint16_t sport;
	uint32_t spine;
	uint32_t flow;
	uint32_t src, dst;	// hosts, in this packet's direction
	uint32_t bytes;		// on the wire
	uint32_t self;		// its index in the pool
	union {
		mrc_tx_seg seg;
		mrc_ack_info ack;
		RoceHdr r;
		IdealHdr i;
	};
};

class Net;

// One transport connection in one direction (src sends, dst receives).
class Flow {
public:
	Flow(Net &net, uint32_t id, uint32_t src, uint32_t dst)
		: net_(net), id_(id), src_(src), dst_(dst) {}
	virtual ~Flow() = default;
	// Append a message of @len bytes (>= 1).
	virtual void post(uint64_t len) = 0;
	// A packet of this flow reached its destination host.
	virtual void recv(Pkt &p) = 0;
	// Timer @which (a transport's own numbering) fell due.
	virtual void timer(uint32_t which) = 0;
	// The transport's own counters, for the report.
	virtual std::string counters() const { return {}; }

	uint32_t id() const { return id_; }
	uint32_t src() const { return src_; }
	uint32_t dst() const { return dst_; }
	uint64_t msgs_posted = 0, msgs_rx = 0, msgs_tx = 0;
	uint64_t bytes_posted = 0, bytes_rx = 0;	// new payload placed
	uint64_t last_rx_ns = 0;			// its latest completion
	std::string error;		// the connection failed (it stops)
	// the receiver completed message @msg (0, 1, ... in posting order)
	std::function<void(Flow &, uint64_t msg)> on_rx_msg;

protected:
	// A receiver completion: checks order and length, counts, calls back.
	void rx_complete(uint64_t msg, uint64_t len);
	void tx_complete(uint64_t msg);
	Net &net_;
	uint32_t id_, src_, dst_;
	std::vector<uint64_t> lens_;	// of every posted message
};

struct NetStats {
	uint64_t hops = 0, events = 0;
	uint64_t drops_buffer = 0, drops_loss = 0, drops_failed = 0;
	uint64_t ce_marked = 0, data_pkts = 0, ctrl_pkts = 0;
	uint64_t max_queue = 0;		// bytes, any switch port
};

class Net {
public:
	explicit Net(const FabricCfg &cfg);
	~Net();

	const FabricCfg &cfg() const { return cfg_; }
	uint64_t now() const { return now_; }
	double bytes_per_ns() const { return rate_; }
	// one-way delay of an empty fabric between hosts in different leaves
	uint64_t base_owd_ns(uint32_t bytes) const;

	Flow &add(std::unique_ptr<Flow> f);
	Flow &flow(uint32_t i) { return *flows_[i]; }
	uint32_t nflows() const { return (uint32_t)flows_.size(); }

	// A packet from the pool, zeroed; send() hands it back to the net.
	Pkt &alloc();
	// Put @p (alloc()ed, src/dst/plane/sport/bytes/kind set) on its
	// host's NIC for its plane.
	void send(Pkt &p);
	// Run flow @f's timer(@which) at @at.
	void at(uint64_t at, uint32_t f, uint32_t which);
	// Run until @done() or virtual time @limit_ns; false if the limit hit.
	bool run(uint64_t limit_ns, const std::function<bool()> &done);
	void fail(const std::string &what);
	// a flow completed a message or failed: run() asks done() again
	void progress() { progress_ = true; }
	double uniform() { return uni_(rng_); }
	uint64_t rand() { return rng_(); }

	const NetStats &stats() const { return st_; }
	const std::vector<std::string> &errors() const { return errors_; }
	uint32_t leaf_of(uint32_t host) const { return host / cfg_.per_leaf; }

private:
	struct Port {
		uint64_t busy = 0;	// free from
		uint32_t buffer = ~0u;
		double loss = 0;
		bool failed = false;
		uint64_t fail_at = 0;
		uint64_t tx_bytes = 0;
	};
	uint32_t port_up(uint32_t p, uint32_t h) const { return p * pp_ + h; }
	uint32_t port_down(uint32_t p, uint32_t h) const { return p * pp_ + H_ + h; }
	uint32_t port_lup(uint32_t p, uint32_t l, uint32_t s) const
	{
		return p * pp_ + 2 * H_ + l * S_ + s;
	}
	uint32_t port_sdown(uint32_t p, uint32_t s, uint32_t l) const
	{
		return p * pp_ + 2 * H_ + L_ * S_ + s * L_ + l;
	}
	bool dead(const Port &q) const { return q.failed && now_ >= q.fail_at; }
	uint32_t pick_spine(const Pkt &p, uint32_t leaf);
	void enqueue(uint32_t port, uint32_t pi, uint8_t stage);
	void arrive(uint32_t pi);
	void push(uint64_t t, uint32_t kind, uint32_t id, uint32_t which);
	void release(uint32_t pi) { free_.push_back(pi); }

	FabricCfg cfg_;
	uint32_t H_, L_, S_, pp_;
	double rate_, ns_per_byte_;
	uint64_t now_ = 0, seq_ = 0;
	std::vector<Port> ports_;
	// the packet pool: chunks that never move, indices recycled LIFO
	static constexpr uint32_t kChunk = 4096;
	Pkt &pkt(uint32_t i) { return chunks_[i / kChunk][i % kChunk]; }
	std::vector<std::unique_ptr<Pkt[]>> chunks_;
	uint32_t npkts_ = 0;
	std::vector<uint32_t> free_;
	EventQueue q_;
	bool progress_ = true;	// a flow completed something: ask done()
	std::vector<std::unique_ptr<Flow>> flows_;
	std::vector<std::string> errors_;
	std::mt19937_64 rng_;
	std::uniform_real_distribution<double> uni_{0.0, 1.0};
	uint64_t hash_seed_;
	NetStats st_;
};

// Ethernet + IPv4 + UDP around every datagram.
constexpr uint32_t kEncap = 14 + 20 + 8;

} // namespace scale
