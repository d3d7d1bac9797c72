// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// A simulated network for two portable-core endpoints, in virtual time.
//
// Each direction has one egress link of a given rate with a FIFO queue
// (the bottleneck; marks ECN CE above a threshold), then per-route
// propagation delay. On top: random loss, duplication, reordering (extra
// delay for one packet), jitter, and route failures in time windows. A
// route is chosen by the path's UDP source port, so re-entropy moves a
// path off a failed route just as ECMP would.
//
// The checker records what the sender posted and verifies at the receiver
// that every segment is placed exactly once, that its identity matches
// the posting, and that completions come per stream in posting order with
// every byte placed; at the sender, that completions come in order.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "core/conn.h"
}
#include "sim/conn.h"
#include "sim/endpoint.h"

namespace mrcsim {

// A fabric of parallel links (LinkCfg::links > 0): each direction of each
// link has its own egress queue at rate_bpns x rate_scale, and a packet's
// link is a hash of its UDP source port and direction, as an ECMP router
// hashes the 5-tuple (so the two directions of one port take unrelated
// links, and the mapping differs per seed, as per boot in the bed).
struct FabricLink {
	double rate_scale = 1;
	double loss = 0;		// per packet, both directions
	double mark = 0;		// CE on data with this chance (a hot link)
};

// Link @link drops everything in the given directions in [from, to): a
// silent blackhole, carrier up, routes unchanged. With @planes set, it is
// plane @link that goes dark instead ([PATH-8]: path i sends on plane
// i % planes, its ACKs come back on it), whatever link a port hashes to:
// a dead NIC or its switch, which no new source port escapes.
struct Blackhole {
	uint32_t link;
	uint64_t from_ns, to_ns;
	bool data = true;		// A->B
	bool acks = true;		// B->A
	uint32_t planes = 0;
};

struct LinkCfg {
	double rate_bpns = 1.25;	// bytes per ns (1.25 = 10 Gbit/s)
	uint64_t delay_ns = 10000;	// one-way propagation
	uint64_t jitter_ns = 0;		// uniform extra delay (reorders if > gap)
	double loss = 0;		// per packet, data and ACKs
	bool acks_lossless = false;	// ... or data only (netem on one egress)
	double dup = 0;
	double reorder = 0;		// chance of reorder_ns extra delay
	uint64_t reorder_ns = 30000;
	uint32_t ecn_bytes = 0;		// mark CE above this queue depth; 0 = off
	uint32_t routes = 16;		// route = sport % routes
	uint64_t route_skew_ns = 0;	// route r is r x this slower
	int hot_route = -1;		// a congested route: marks CE on data
	double hot_mark = 0;		// with this probability
	bool rate_hint = true;		// receivers hint the link rate ([CC-10])
	uint32_t links = 0;		// 0: the one egress queue above
	std::vector<FabricLink> link;	// per link (missing: defaults)
	uint64_t bucket_ns = 0;		// timelines' resolution; 0: none
};

struct Outage {
	uint32_t route;
	uint64_t from_ns, to_ns;
};

struct Workload {
	uint32_t streams = 4;
	uint32_t min_len = 0;
	uint32_t max_len = 256 * 1024;
	uint32_t outstanding = 32;	// messages kept posted
	uint64_t messages = 1000;	// total to post
	// post the next @outstanding only when every earlier one completed:
	// perftest's bandwidth loop up to 8 KiB messages (one WR signalled
	// per min(100, tx_depth); larger ones are each signalled)
	bool batch = false;
	// perftest's READ loop: the receiver is the requester. It completes a
	// READ once all of its data is in (in order) and posts the next one,
	// whose request reaches the data's sender one link delay later.
	bool reads = false;
};

struct Stats {
	uint64_t data_pkts = 0, ack_pkts = 0, dropped = 0, duplicated = 0;
	uint64_t ce_marked = 0, reordered = 0, outage_drops = 0;
	uint64_t msgs_done_tx = 0, msgs_done_rx = 0, bytes_rx = 0;
	uint64_t rx_dup = 0, rx_new = 0, resends = 0, reentropies = 0;
	uint64_t tail_dups = 0;		// [REL-25] copies sent
	uint64_t end_ns = 0, max_pkt_len = 0;
	uint64_t inflight_sum = 0, inflight_samples = 0, blocked_conn = 0;
	uint64_t blackholed = 0, blackholed_data = 0, stalled = 0;
	uint64_t probes = 0, probes_answered = 0;	// [PATH-4] REQs b took, RESPs a took
	// fabric: new payload bytes placed per bucket, in all and per link
	// the data took; data packets sent per link
	std::vector<uint64_t> goodput;
	std::vector<std::vector<uint64_t>> link_goodput;
	std::vector<uint64_t> link_pkts;
	std::vector<std::string> errors;
};

// Link @link holds what it carries in one direction during [from, to)
// and delivers it, in order, at @to: a TCG guest whose vCPU was away
// (it forwards for its router and runs its endpoint) takes up the
// backlog of each of its NICs in turn, so after a stall of the whole
// guest its links' packets arrive link by link (stalls of every link
// with staggered ends), each link's late and the first ones early.
struct Stall {
	uint32_t link;
	uint64_t from_ns, to_ns;
	bool to_b = true;		// data A->B, or ACKs B->A
};

class Sim : private EndpointIo {
public:
	// @peer: B's configuration where it differs from A's (its paths,
	// say); its sequence numbers are A's mirrored either way.
	Sim(const mrc_conn_cfg &cfg, const LinkCfg &link, const Workload &wl,
	    uint64_t seed, const mrc_conn_cfg *peer = nullptr);
	~Sim();

	void add_outage(const Outage &o) { outages_.push_back(o); }
	void add_blackhole(const Blackhole &b) { holes_.push_back(b); }
	void add_stall(const Stall &s) { stalls_.push_back(s); }
	// Change link @l's impairments from now on (between run() calls).
	void set_link(uint32_t l, const FabricLink &f) { link_.link.at(l) = f; }
	// The fabric link a packet from @sport takes in direction @to_b.
	uint32_t link_of(uint16_t sport, bool to_b) const;
	void set_hot_route(int route, double mark)
	{
		link_.hot_route = route;
		link_.hot_mark = mark;
	}
	// Run until every message completed at both ends, an error is
	// found, or virtual time passes limit_ns. Returns true if all done.
	bool run(uint64_t limit_ns);
	const Stats &stats() const { return st_; }
	mrc_conn *sender() { return a_.get(); }
	mrc_conn *receiver() { return b_.get(); }

private:
	struct Pkt {
		uint64_t at;
		uint64_t order;
		bool to_b;		// data A->B, ACKs B->A
		bool is_ack;
		bool ce;
		uint8_t probe;		// [PATH-4] 1: a PROBE REQ (to b), 2: its RESP
		uint32_t probe_seq, tsval;
		uint16_t sport;		// of the datagram
		uint32_t link;		// fabric link it took
		mrc_tx_seg seg;
		mrc_ack_info ack;
	};
	struct Later {
		bool operator()(const Pkt &x, const Pkt &y) const
		{
			return x.at != y.at ? x.at > y.at : x.order > y.order;
		}
	};
	struct Posted {
		uint32_t stream, ssn, len;
		std::vector<uint8_t> placed;	// per segment
		bool rx_done = false, tx_done = false;
	};

	void transmit(bool to_b, uint16_t sport, uint32_t bytes, Pkt p);
	void deliver(const Pkt &p);
	void pump(uint64_t now);
	void rx_done(const mrc_completion &c) override;
	void ack_out(const mrc_ack_info &ack) override;
	void tx_done(const mrc_completion &c) override;
	void post(mrc_conn *c) override;
	void data_out(const mrc_tx_seg &seg) override;
	void probe_out(const mrc_probe_req &req, uint32_t tsval) override;
	void post_more();
	void fail(const std::string &what);
	bool route_down(uint16_t sport, uint64_t now) const;
	bool fabric_drops(uint32_t l, bool to_b, bool is_ack);
	bool plane_drops(const Pkt &p);
	void count(std::vector<uint64_t> &v, uint64_t bytes);
	double uniform() { return uni_(rng_); }

	mrc_conn_cfg cfg_;
	LinkCfg link_;
	Workload wl_;
	std::unique_ptr<mrcsim::Conn> a_, b_;
	mrc_cc_share share_b_{}, share_a_{};
	std::priority_queue<Pkt, std::vector<Pkt>, Later> q_;
	std::vector<Outage> outages_;
	std::vector<Blackhole> holes_;
	std::vector<Stall> stalls_;
	std::vector<uint64_t> link_busy_[2];	// fabric: per direction, per link
	uint64_t hash_seed_;
	uint64_t now_ = 0, order_ = 0;
	uint64_t busy_[2] = {0, 0};	// egress link free at (0: B->A, 1: A->B)
	std::vector<Posted> posted_;	// indexed by msn
	std::vector<uint32_t> next_rx_ssn_, next_tx_ssn_;
	uint64_t posted_count_ = 0;
	std::deque<uint64_t> read_req_at_;	// requests on their way (reads)
	uint64_t read_credits_ = 0;		// requests arrived (reads)
	std::mt19937_64 rng_;
	std::uniform_real_distribution<double> uni_{0.0, 1.0};
	Stats st_;
};

} // namespace mrcsim
