// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// metaroce in the data-centre simulator: two ends of one connection of
// the portable core, driven through tests/sim/endpoint.h.
#include "transports.h"

#include "sim/conn.h"
#include "sim/endpoint.h"
#include "sim/loopback.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <unordered_map>

namespace scale {
namespace {

constexpr uint32_t kAckBytes = kEncap + MRC_WIRE_BASE_LEN + MRC_WIRE_ACK_LEN +
			       MRC_WIRE_ICRC_LEN;

class MrcFlow : public Flow, private mrcsim::EndpointIo {
public:
	MrcFlow(Net &net, const TransportCfg &tc, uint32_t id, uint32_t src,
		uint32_t dst, mrc_cc_share *rx_share)
		: Flow(net, id, src, dst),
		  // rings for the paths they send on only: 4032 connections
		  // of an all-to-all would hold 400 MiB of rings for 32 ids
		  a_(new mrcsim::Conn(tc.paths)), b_(new mrcsim::Conn(tc.paths)),
		  share_(rx_share)
	{
		mrc_conn_cfg ca;

		mrc_conn_cfg_default(&ca, tc.paths, tc.mss);
		if (tc.mrc_rto_init_ns)
			ca.path.rto_init_ns = tc.mrc_rto_init_ns;
		if (tc.mrc_rto_min_ns)
			ca.path.rto_min_ns = tc.mrc_rto_min_ns;
		if (tc.mrc_ack_delay_ns)
			ca.path.ack_delay_ns = tc.mrc_ack_delay_ns;
		ca.tail_dup = tc.mrc_tail_dup;
		ca.cc.conn_ai_paths = tc.mrc_conn_ai_paths;
		if (tc.mrc_init_window) {
			// a NIC that knows its line rate may start at one BDP
			ca.cc.conn_init_cwnd = std::max(tc.mrc_init_window, 2 * tc.mss);
			ca.cc.init_cwnd = std::max(ca.cc.conn_init_cwnd / tc.paths,
						   ca.cc.min_cwnd);
		}
		ca.seed = net.cfg().seed * 1000003 + 2 * id + 1;
		ca.tx_isn = (uint32_t)net.rand();
		ca.rx_isn = (uint32_t)net.rand();
		ca.tx_msn = (uint32_t)net.rand();
		ca.rx_msn = (uint32_t)net.rand();
		cfg_ = ca;
		mrc_conn_cfg cb = mrcsim::peer_cfg(ca, ca, ca.seed + 1);

		if (!a_->init(ca, 0) || !b_->init(cb, 0))
			net.fail("mrc_conn_init refused the configuration");
		mrc_cc_share_init(&own_share_, 0, MRC_CC_SHARE_EPOCH_NS, 0);
	}

	void post(uint64_t len) override
	{
		lens_.push_back(len);
		if (trace_)
			posted_at_.push_back(net_.now());
		pending_.push_back(len);
		msgs_posted++;
		bytes_posted += len;
		run(0);
	}

	void recv(Pkt &p) override
	{
		if (p.kind == MRC_ACK) {
			snap();
			if (!mrc_conn_on_ack(a_.get(), net_.now(), &p.ack))
				net_.fail("flow " + std::to_string(id_) + ": sender refused an ACK");
			run(0);
			return;
		}
		mrc_rx_seg s = mrcsim::rx_of(p.seg, p.ce);

		s.sport = p.sport;
		switch (mrc_conn_rx_data(b_.get(), net_.now(), &s, share_)) {
		case MRC_RX_NEW:
			place(s);
			break;
		case MRC_RX_INVALID:
			net_.fail("flow " + std::to_string(id_) + ": protocol violation");
			break;
		default:
			dups_++;
			break;
		}
		run(1);
	}

	void timer(uint32_t side) override
	{
		if (net_.now() != armed_[side])
			return;		// superseded by an earlier deadline
		armed_[side] = ~0ull;
		if (!side)
			snap();
		mrc_conn_on_timer(side ? b_.get() : a_.get(), net_.now());
		run(side);
	}

	std::string counters() const override
	{
		uint64_t reent = 0;

		for (uint32_t i = 0; i < cfg_.npaths; i++)
			reent += a_->path[i].reentropies;
		std::string t;

		if (trace_) {
			uint64_t l[4], pto = 0, ans = 0, late = 0, later = 0;

			loss_sums(l);
			for (uint32_t i = 0; i < cfg_.npaths; i++) {
				const mrc_path_tx &x = a_->path[i].tx;

				pto += x.pto_fired;
				ans += x.pto_answer;
				late += x.late_acks;
				later += x.late_rack;
			}
			const char *nm[5] = {"gap", "rack", "pto", "rto", "other"};
			for (int k = 0; k < 4; k++)
				t += std::string(" lost_") + nm[k] + "=" + std::to_string(l[k]);
			for (int k = 0; k < 5; k++)
				t += std::string(" rs_") + nm[k] + "_n=" + std::to_string(rs_n_[k]) +
				     " rs_" + nm[k] + "_ns=" + std::to_string(rs_ns_[k]);
			t += " pto_fired=" + std::to_string(pto) + " pto_answer=" + std::to_string(ans) +
			     " late=" + std::to_string(late) + " late_rack=" + std::to_string(later) +
			     " tail_n=" + std::to_string(tail_n_) + " tail_ns=" + std::to_string(tail_ns_) +
			     " send_ns=" + std::to_string(send_ns_) +
			     " win=" + std::to_string(win_) + " pwin=" + std::to_string(pwin_) +
			     " cdec=" + std::to_string(a_->cc.decreases) + " drains=" + std::to_string(a_->cc.drains) +
			     " tail_loss_n=" + std::to_string(tail_loss_n_) +
			     " tail_loss_ns=" + std::to_string(tail_loss_ns_);
		}
		return "resends=" + std::to_string(a_->stats.tx_resends) + t +
		       " tail_dups=" + std::to_string(a_->stats.tx_dups) +
		       " dups=" + std::to_string(dups_) +
		       " path_fails=" + std::to_string(a_->stats.path_fails) +
		       " reentropies=" + std::to_string(reent);
	}

private:
	// One drive of end @side (0: sender, 1: receiver), then its timer.
	void run(int side)
	{
		mrc_conn *c = side ? b_.get() : a_.get();

		mrcsim::drive(c, net_.now(), side ? share_ : &own_share_, *this);
		if (c->error && error.empty())
			net_.fail("flow " + std::to_string(id_) + ": connection error " +
				  std::to_string(c->error));
		uint64_t d = mrc_conn_deadline(c);

		if (d != ~0ull && d < armed_[side]) {
			armed_[side] = std::max(d, net_.now());
			net_.at(armed_[side], id_, side);
		}
	}

	// packets declared lost by a gap, [REL-22], a PTO, an RTO
	void loss_sums(uint64_t l[4]) const
	{
		l[0] = l[1] = l[2] = l[3] = 0;
		for (uint32_t i = 0; i < cfg_.npaths; i++) {
			const mrc_path_tx &x = a_->path[i].tx;

			l[0] += x.lost_gap;
			l[1] += x.lost_rack;
			l[2] += x.lost_pto;
			l[3] += x.lost_rto;
		}
	}

	// MRC_SCALE_TRACE: which rule declared the losses the next resends repair
	void snap()
	{
		if (!trace_)
			return;
		uint64_t l[4];

		loss_sums(l);
		if (snap_set_)
			for (int k = 0; k < 4; k++)
				if (l[k] != snap_[k])
					cause_ = k;
		for (int k = 0; k < 4; k++)
			snap_[k] = l[k];
		snap_set_ = true;
	}

	uint64_t msg_of(uint32_t msn) const { return (uint32_t)(msn - cfg_.tx_msn); }

	// Every segment is placed once, into the message it was posted in.
	void place(const mrc_rx_seg &s)
	{
		uint64_t m = msg_of(s.msn);

		if (m >= lens_.size() || s.total_len != lens_[m]) {
			net_.fail("flow " + std::to_string(id_) + ": segment of an unknown message");
			return;
		}
		if (placed_.size() <= m - placed_base_)
			placed_.resize(m - placed_base_ + 1);
		std::vector<uint8_t> &v = placed_[m - placed_base_];

		if (v.empty())
			v.assign(mrc_conn_nsegs(s.total_len, cfg_.mss), 0);
		uint32_t first = s.offset / cfg_.mss;
		uint32_t n = mrc_conn_nsegs(s.len, cfg_.mss);

		for (uint32_t i = first; i < first + n; i++)
			if (i >= v.size() || v[i]++)
				net_.fail("flow " + std::to_string(id_) + ": segment placed twice");
		bytes_rx += s.len;
	}

	void rx_done(const mrc_completion &c) override
	{
		uint64_t m = msg_of(c.msn);

		if (m < placed_base_ || m - placed_base_ >= placed_.size()) {
			net_.fail("flow " + std::to_string(id_) + ": completed a message never placed");
			return;
		}
		for (uint8_t n : placed_[m - placed_base_])
			if (n != 1)
				net_.fail("flow " + std::to_string(id_) +
					  ": completed a message with a segment missing");
		if (trace_) {
			auto it = last_fresh_.find(c.msn);

			if (it != last_fresh_.end()) {
				uint64_t d = net_.now() - it->second;

				tail_n_++;
				tail_ns_ += d;
				if (lossy_.count(c.msn)) {
					tail_loss_n_++;
					tail_loss_ns_ += d;
				}
				last_fresh_.erase(it);
			}
		}
		rx_complete(m, c.len);
		while (!placed_.empty() && placed_base_ < msgs_rx) {
			placed_.pop_front();
			placed_base_++;
		}
	}

	void ack_out(const mrc_ack_info &ack) override
	{
		Pkt &p = net_.alloc();

		p.kind = MRC_ACK;
		p.flow = id_;
		p.src = dst_;
		p.dst = src_;
		p.plane = ack.path_id % net_.cfg().planes;
		p.sport = ack.sport;
		p.bytes = kAckBytes;
		p.ack = ack;
		net_.send(p);
	}

	void tx_done(const mrc_completion &c) override
	{
		if (c.status != MRC_CONN_OK) {
			net_.fail("flow " + std::to_string(id_) + ": completion error " +
				  std::to_string(c.status));
			return;
		}
		if (c.cookie != msgs_tx)
			net_.fail("flow " + std::to_string(id_) + ": cookie out of order");
		tx_complete(c.cookie);
	}

	void post(mrc_conn *c) override
	{
		if (c != a_.get())
			return;
		while (!pending_.empty() &&
		       mrc_conn_tx_post(c, 0, (uint32_t)pending_.front(), next_cookie_, nullptr)) {
			pending_.pop_front();
			next_cookie_++;
		}
	}

	void data_out(const mrc_tx_seg &seg) override
	{
		Pkt &p = net_.alloc();

		p.kind = MRC_DATA;
		p.flow = id_;
		p.src = src_;
		p.dst = dst_;
		p.plane = seg.path_id % net_.cfg().planes;
		p.sport = seg.sport;
		p.bytes = kEncap + MRC_WIRE_DATA_OVERHEAD + seg.len;
		p.seg = seg;
		if (trace_) {
			uint64_t key = (uint64_t)seg.msn << 32 | seg.offset;

			if (seg.flags & MRC_F_RETX) {
				auto it = first_sent_.find(key);

				snap();
				if (it != first_sent_.end()) {
					rs_n_[cause_]++;
					rs_ns_[cause_] += net_.now() - it->second;
				}
				lossy_.insert({seg.msn, 1});
			} else {
				first_sent_[key] = net_.now();
				if (seg.offset + seg.len == seg.total_len) {
					last_fresh_[seg.msn] = net_.now();
					send_ns_ += net_.now() - posted_at_[msg_of(seg.msn)];
					win_ += mrc_cc_conn_window(&a_->cc, &cfg_.cc);
					for (uint32_t i = 0; i < cfg_.npaths; i++)
						pwin_ += a_->path[i].cc.cwnd;
				}
			}
		}
		net_.send(p);
	}

	std::unique_ptr<mrcsim::Conn> a_, b_;
	mrc_conn_cfg cfg_;
	mrc_cc_share *share_;
	mrc_cc_share own_share_;	// the sender's device (receives no data)
	std::deque<uint64_t> pending_;	// posted by the application, not yet by the core
	uint64_t next_cookie_ = 0, dups_ = 0;
	uint64_t armed_[2] = {~0ull, ~0ull};
	std::deque<std::vector<uint8_t>> placed_;	// per message, per segment
	uint64_t placed_base_ = 0;
	// MRC_SCALE_TRACE set: where a message's time goes, in counters() (the
	// notes' breakdown): post to its last new segment (send_ns), that to
	// its completion (tail_*), resends by the rule that found the loss
	// (rs_*: count and time since the segment's first send)
	bool trace_ = getenv("MRC_SCALE_TRACE") != nullptr;
	bool snap_set_ = false;
	uint64_t snap_[4] = {};
	int cause_ = 4;
	uint64_t rs_n_[5] = {}, rs_ns_[5] = {};
	std::vector<uint64_t> posted_at_;
	uint64_t send_ns_ = 0, win_ = 0, pwin_ = 0;
	uint64_t tail_n_ = 0, tail_ns_ = 0, tail_loss_n_ = 0, tail_loss_ns_ = 0;
	std::unordered_map<uint64_t, uint64_t> first_sent_;
	std::unordered_map<uint32_t, uint64_t> last_fresh_, lossy_;
};

} // namespace

std::unique_ptr<Flow> make_mrc_flow(Net &net, const TransportCfg &tc, uint32_t id,
				    uint32_t src, uint32_t dst, mrc_cc_share *rx_share)
{
	return std::make_unique<MrcFlow>(net, tc, id, src, dst, rx_share);
}

} // namespace scale
