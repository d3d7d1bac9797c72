// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Incast in virtual time: N sender connections, each on its own uplink,
// into one receiver whose downlink is the shared bottleneck (a FIFO that
// marks ECN CE above a threshold). The receiver's connections share one
// rate-hint state (struct mrc_cc_share), as on one device. ACKs return
// uncongested. Used by cc_incast_test.cc ([CC-4], [CC-5], [CC-10..12]).
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "sim/conn.h"

extern "C" {
#include "core/conn.h"
}

namespace mrcsim {

struct IncastCfg {
	uint32_t senders = 8;
	uint32_t npaths = 4;
	uint32_t mss = 4096;
	double rate_bpns = 1.25;	// every link: 10 Gbit/s
	uint64_t delay_ns = 5000;	// each hop, each way
	uint32_t ecn_bytes = 100 * 1024;
	bool rate_hint = true;
	uint64_t duration_ns = 50000000;
	uint64_t seed = 1;
};

struct IncastStats {
	std::vector<uint64_t> bytes_late;	// per sender, second half of the run
	uint64_t bytes_total = 0;
	uint64_t max_queue = 0;			// bytes, whole run
	uint64_t max_queue_late = 0;		// bytes, second half
	uint64_t ce_marked = 0;
	uint64_t data_pkts = 0;
	uint64_t msgs_rx = 0;
	std::vector<std::string> errors;
};

class Incast {
public:
	explicit Incast(const IncastCfg &cfg);
	~Incast();
	void run();
	const IncastStats &stats() const { return st_; }
	const mrc_conn *sender(uint32_t i) const { return a_[i].get(); }

private:
	enum Kind { AT_SWITCH, AT_RECEIVER, ACK_AT_SENDER };
	struct Ev {
		uint64_t at, order;
		Kind kind;
		uint32_t who;
		bool ce;
		mrc_tx_seg seg;
		mrc_ack_info ack;
	};
	struct Later {
		bool operator()(const Ev &x, const Ev &y) const
		{
			return x.at != y.at ? x.at > y.at : x.order > y.order;
		}
	};

	class Io;
	friend class Io;

	void pump(uint32_t i);
	void push(Ev e);
	void fail(const std::string &what);

	IncastCfg cfg_;
	std::vector<std::unique_ptr<mrcsim::Conn>> a_, b_;
	std::vector<uint64_t> up_busy_;
	std::vector<uint32_t> next_ssn_;
	uint64_t down_busy_ = 0, now_ = 0, order_ = 0;
	mrc_cc_share share_{};
	std::priority_queue<Ev, std::vector<Ev>, Later> q_;
	IncastStats st_;
};

} // namespace mrcsim
