// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// N-to-1 incast in virtual time; see incast.h.
#include "sim/conn.h"
#include "sim/incast.h"
#include "sim/loopback.h"
#include "sim/endpoint.h"

#include <algorithm>

namespace mrcsim {

static constexpr uint32_t kEncap = 14 + 20 + 8;
static constexpr uint32_t kMsg = 1024 * 1024;

Incast::Incast(const IncastCfg &cfg) : cfg_(cfg)
{
	mrc_conn_cfg cc;

	mrc_conn_cfg_default(&cc, cfg.npaths, cfg.mss);
	for (uint32_t i = 0; i < cfg.senders; i++) {
		a_.emplace_back(new mrcsim::Conn);
		b_.emplace_back(new mrcsim::Conn);
		cc.seed = cfg.seed * 1000 + 2 * i + 1;
		if (!a_.back()->init(cc, 0))
			fail("init");
		cc.seed++;
		if (!b_.back()->init(cc, 0))
			fail("init");
	}
	up_busy_.assign(cfg.senders, 0);
	next_ssn_.assign(cfg.senders, 0);
	st_.bytes_late.assign(cfg.senders, 0);
	mrc_cc_share_init(&share_, cfg.rate_hint ? (uint64_t)(cfg.rate_bpns * 1e9) : 0,
			  MRC_CC_SHARE_EPOCH_NS, 0);
}

Incast::~Incast() = default;

void Incast::fail(const std::string &what)
{
	if (st_.errors.size() < 20)
		st_.errors.push_back(what + " at t=" + std::to_string(now_));
}

void Incast::push(Ev e)
{
	e.order = order_++;
	q_.push(e);
}

// The hooks of one sender-receiver pair's drives.
class Incast::Io : public EndpointIo {
public:
	Io(Incast &in, uint32_t i) : in_(in), i_(i) {}
	void rx_done(const mrc_completion &c) override
	{
		if (c.ssn != in_.next_ssn_[i_]++ || c.len != kMsg)
			in_.fail("receiver completion out of order");
		in_.st_.msgs_rx++;
	}
	void ack_out(const mrc_ack_info &ack) override
	{
		Ev e = {};

		e.at = in_.now_ + 2 * in_.cfg_.delay_ns + 100;
		e.kind = ACK_AT_SENDER;
		e.who = i_;
		e.ack = ack;
		in_.push(e);
	}
	void tx_done(const mrc_completion &c) override
	{
		if (c.status != MRC_CONN_OK)
			in_.fail("sender completion error");
	}
	void post(mrc_conn *c) override
	{
		if (c == in_.a_[i_].get())
			while (mrc_conn_tx_post(c, 0, kMsg, 0, nullptr))
				;
	}
	void data_out(const mrc_tx_seg &seg) override
	{
		uint32_t bytes = kEncap + MRC_WIRE_DATA_OVERHEAD + seg.len;
		uint64_t start = std::max(in_.now_, in_.up_busy_[i_]);
		Ev e = {};

		in_.up_busy_[i_] = start + (uint64_t)(bytes / in_.cfg_.rate_bpns) + 1;
		e.at = in_.up_busy_[i_] + in_.cfg_.delay_ns;
		e.kind = AT_SWITCH;
		e.who = i_;
		e.seg = seg;
		in_.push(e);
	}

private:
	Incast &in_;
	uint32_t i_;
};

void Incast::pump(uint32_t i)
{
	mrc_conn *a = a_[i].get(), *b = b_[i].get();
	Io io(*this, i);

	drive(b, now_, &share_, io);
	drive(a, now_, &share_, io);
	if (a->error || b->error)
		fail("connection error");
}

void Incast::run()
{
	uint64_t half = cfg_.duration_ns / 2;

	for (uint32_t i = 0; i < cfg_.senders; i++)
		pump(i);
	while (st_.errors.empty()) {
		uint64_t t = q_.empty() ? ~0ull : q_.top().at;

		for (uint32_t i = 0; i < cfg_.senders; i++)
			t = std::min({t, mrc_conn_deadline(a_[i].get()),
				      mrc_conn_deadline(b_[i].get())});
		if (t == ~0ull || t > cfg_.duration_ns)
			break;
		now_ = std::max(now_, t);
		while (!q_.empty() && q_.top().at <= now_) {
			Ev e = q_.top();
			uint32_t bytes = kEncap + MRC_WIRE_DATA_OVERHEAD + e.seg.len;

			q_.pop();
			if (e.kind == AT_SWITCH) {
				uint64_t start = std::max(now_, down_busy_);
				uint64_t queued = (uint64_t)((start - now_) * cfg_.rate_bpns);

				down_busy_ = start + (uint64_t)(bytes / cfg_.rate_bpns) + 1;
				st_.max_queue = std::max(st_.max_queue, queued);
				if (now_ >= half)
					st_.max_queue_late = std::max(st_.max_queue_late, queued);
				e.ce = cfg_.ecn_bytes && queued > cfg_.ecn_bytes;
				st_.ce_marked += e.ce;
				e.at = down_busy_ + cfg_.delay_ns;
				e.kind = AT_RECEIVER;
				push(e);
				continue;
			}
			if (e.kind == ACK_AT_SENDER) {
				if (!mrc_conn_on_ack(a_[e.who].get(), now_, &e.ack))
					fail("ACK refused");
				pump(e.who);
				continue;
			}
			mrc_rx_seg s = rx_of(e.seg, e.ce);

			st_.data_pkts++;
			if (mrc_conn_rx_data(b_[e.who].get(), now_, &s, &share_) ==
			    MRC_RX_NEW) {
				st_.bytes_total += s.len;
				if (now_ >= half)
					st_.bytes_late[e.who] += s.len;
			}
			pump(e.who);
		}
		for (uint32_t i = 0; i < cfg_.senders; i++) {
			if (mrc_conn_deadline(a_[i].get()) <= now_ ||
			    mrc_conn_deadline(b_[i].get()) <= now_) {
				mrc_conn_on_timer(a_[i].get(), now_);
				mrc_conn_on_timer(b_[i].get(), now_);
				pump(i);
			}
		}
	}
}

} // namespace mrcsim
