// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The ideal lossless transport, the bound: it sprays every packet over a
// plane in turn and a random source port (so a random live spine), nothing
// drops it, and it keeps two BDPs of its host's capacity in flight; its
// headers are RoCE's and it acknowledges every 16 packets.
#include "transports.h"

#include <algorithm>

namespace scale {
namespace {

constexpr uint32_t kHdr = 12 + 4;	// as RoCE's: BTH + ICRC
constexpr uint32_t kAckBytes = kEncap + kHdr + 4;
constexpr uint32_t kAckEvery = 16;

class IdealFlow : public Flow {
public:
	IdealFlow(Net &net, const TransportCfg &tc, uint32_t id, uint32_t src, uint32_t dst)
		: Flow(net, id, src, dst), mss_(tc.mss)
	{
		const FabricCfg &f = net.cfg();
		double rtt = 2.0 * net.base_owd_ns(mss_ + kEncap + kHdr);

		window_ = (uint64_t)(2 * rtt * net.bytes_per_ns() * f.planes);
		window_ = std::max<uint64_t>(window_, 4 * mss_);
	}

	void post(uint64_t len) override
	{
		lens_.push_back(len);
		got_.push_back(0);
		msgs_posted++;
		bytes_posted += len;
		send();
	}

	void recv(Pkt &p) override
	{
		if (p.kind == IDEAL_ACK) {
			acked_ = std::max(acked_, p.i.total);
			while (msgs_tx < p.i.msg)
				tx_complete(msgs_tx);
			send();
			return;
		}
		uint64_t done = msgs_rx;

		got_[p.i.msg] += p.i.len;
		bytes_rx += p.i.len;
		while (msgs_rx < msgs_posted && got_[msgs_rx] == lens_[msgs_rx])
			rx_complete(msgs_rx, lens_[msgs_rx]);
		// ACK every kAckEvery packets and at every message's end
		if (++unacked_ < kAckEvery && msgs_rx == done)
			return;
		unacked_ = 0;
		Pkt &a = net_.alloc();

		a.kind = IDEAL_ACK;
		a.lossless = true;
		a.flow = id_;
		a.src = dst_;
		a.dst = src_;
		a.plane = p.plane;
		a.sport = (uint16_t)net_.rand();
		a.i.msg = msgs_rx;
		a.i.total = bytes_rx;
		a.bytes = kAckBytes;
		net_.send(a);
	}

	void timer(uint32_t) override {}

private:
	void send()
	{
		while (msg_ < lens_.size() && sent_ - acked_ + mss_ <= window_) {
			uint32_t len = (uint32_t)std::min<uint64_t>(mss_, lens_[msg_] - off_);
			Pkt &p = net_.alloc();

			p.kind = IDEAL_DATA;
			p.lossless = true;
			p.flow = id_;
			p.src = src_;
			p.dst = dst_;
			p.plane = (uint8_t)(rr_++ % net_.cfg().planes);
			p.sport = (uint16_t)net_.rand();
			p.i.msg = msg_;
			p.i.len = len;
			p.bytes = kEncap + kHdr + len;
			sent_ += len;
			off_ += len;
			if (off_ == lens_[msg_]) {
				msg_++;
				off_ = 0;
			}
			net_.send(p);
		}
	}

	uint32_t mss_;
	uint64_t window_, sent_ = 0, acked_ = 0, msg_ = 0, off_ = 0, rr_ = 0;
	uint32_t unacked_ = 0;
	std::vector<uint64_t> got_;
};

} // namespace

std::unique_ptr<Flow> make_ideal_flow(Net &net, const TransportCfg &tc, uint32_t id,
				      uint32_t src, uint32_t dst)
{
	return std::make_unique<IdealFlow>(net, tc, id, src, dst);
}

} // namespace scale
