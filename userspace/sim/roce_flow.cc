// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// A RoCEv2-style reliable connection (the baseline metaroce replaces): one
// route per QP (its NIC plane and UDP source port by hash, so ECMP pins
// it), go-back-N (the receiver accepts only the next PSN, NAKs the first
// gap once, the sender rewinds; a timeout rewinds too), and DCQCN-like
// rate control: a receiver seeing CE sends at most one CNP per 50 us; the
// sender cuts its rate by alpha/2, then recovers in 55 us periods (five
// fast-recovery halvings toward the target, then additive increase).
#include "transports.h"

#include <algorithm>
#include <cmath>

namespace scale {
namespace {

constexpr uint32_t kBth = 12 + 4;		// BTH + ICRC
constexpr uint32_t kCtrlBytes = kEncap + kBth + 4;	// + AETH
constexpr uint64_t kCnpGapNs = 50000;
constexpr uint64_t kPeriodNs = 55000;
constexpr double kG = 1.0 / 256;
constexpr uint32_t kAckEvery = 16;
constexpr uint64_t kMaxOut = 1024;		// PSNs outstanding (the NIC's limit)
enum { T_SEND, T_TICK };

class RoceFlow : public Flow {
public:
	RoceFlow(Net &net, const TransportCfg &tc, uint32_t id, uint32_t src, uint32_t dst)
		: Flow(net, id, src, dst), tc_(tc)
	{
		uint64_t h = net.rand();

		plane_ = (uint8_t)(h % net.cfg().planes);
		sport_ = (uint16_t)(49152 + (h >> 16) % 16384);
		line_ = net.bytes_per_ns();
		rc_ = rt_ = line_;
	}

	void post(uint64_t len) override
	{
		uint64_t first = msg_end_.empty() ? 0 : msg_end_.back();

		lens_.push_back(len);
		msg_end_.push_back(first + (len + tc_.mss - 1) / tc_.mss);
		msgs_posted++;
		bytes_posted += len;
		if (!ticking_) {
			ticking_ = true;
			last_progress_ = net_.now();
			net_.at(net_.now() + kPeriodNs, id_, T_TICK);
		}
		send();
	}

	void recv(Pkt &p) override
	{
		switch (p.kind) {
		case ROCE_DATA:
			rx_data(p);
			break;
		case ROCE_CNP:
			cnps_++;
			rt_ = rc_;
			rc_ = std::max(rc_ * (1 - alpha_ / 2), line_ / 1000);
			alpha_ = (1 - kG) * alpha_ + kG;
			stage_ = 0;
			cnp_at_ = net_.now();
			break;
		default:	// ACK or NAK
			acked(p.r.psn);
			if (p.kind == ROCE_NAK && p.r.psn < nxt_) {
				naks_++;
				resent_ += nxt_ - p.r.psn;
				nxt_ = p.r.psn;	// go back N
			}
			send();
			break;
		}
	}

	void timer(uint32_t which) override
	{
		if (which == T_SEND) {
			send_armed_ = false;
			send();
			return;
		}
		tick();
	}

	std::string counters() const override
	{
		return "resends=" + std::to_string(resent_) + " naks=" + std::to_string(naks_) +
		       " timeouts=" + std::to_string(timeouts_) + " cnps=" + std::to_string(cnps_);
	}

private:
	uint64_t end() const { return msg_end_.empty() ? 0 : msg_end_.back(); }

	uint32_t len_of(uint64_t psn, uint64_t *msg) const
	{
		uint64_t m = std::upper_bound(msg_end_.begin(), msg_end_.end(), psn) -
			     msg_end_.begin();
		uint64_t first = m ? msg_end_[m - 1] : 0;
		uint64_t off = (psn - first) * tc_.mss;

		*msg = m;
		return (uint32_t)std::min<uint64_t>(tc_.mss, lens_[m] - off);
	}

	void send()
	{
		if (!error.empty() || send_armed_)
			return;
		while (nxt_ < end() && nxt_ - una_ < kMaxOut) {
			if (net_.now() < next_tx_) {
				send_armed_ = true;
				net_.at(next_tx_, id_, T_SEND);
				return;
			}
			uint64_t m;
			Pkt &p = net_.alloc();

			p.kind = ROCE_DATA;
			p.flow = id_;
			p.src = src_;
			p.dst = dst_;
			p.plane = plane_;
			p.sport = sport_;
			p.r.psn = nxt_;
			p.r.len = len_of(nxt_, &m);
			p.bytes = kEncap + kBth + p.r.len;
			next_tx_ = std::max(next_tx_, net_.now()) + (uint64_t)(p.bytes / rc_);
			nxt_++;
			net_.send(p);
		}
	}

	void acked(uint64_t psn)
	{
		if (psn <= una_)
			return;
		una_ = std::min(psn, end());
		nxt_ = std::max(nxt_, una_);
		last_progress_ = net_.now();
		retries_ = 0;
		while (msgs_tx < msgs_rx && msg_end_[msgs_tx] <= una_)
			tx_complete(msgs_tx);
	}

	void tick()
	{
		uint64_t now = net_.now();

		if (now - cnp_at_ >= kPeriodNs)
			alpha_ *= 1 - kG;
		if (now - cnp_at_ >= kPeriodNs && rc_ < line_) {
			stage_++;
			if (stage_ > 5)	// additive, then hyper increase
				rt_ = std::min(line_, rt_ + line_ * (stage_ > 10 ? 0.05 : 0.005));
			rc_ = std::min(line_, (rt_ + rc_) / 2);
		}
		if (una_ < nxt_ && now - last_progress_ >= tc_.roce_rto_ns) {
			timeouts_++;
			if (++retries_ > tc_.roce_retries) {
				error = "QP retry count exceeded";
				net_.progress();
				ticking_ = false;
				return;
			}
			resent_ += nxt_ - una_;
			nxt_ = una_;
			last_progress_ = now;
			send();
		}
		if (una_ < end()) {
			net_.at(now + kPeriodNs, id_, T_TICK);
		} else {
			ticking_ = false;
		}
	}

	void ctrl(PktKind kind, uint64_t psn)
	{
		Pkt &p = net_.alloc();

		p.kind = kind;
		p.flow = id_;
		p.src = dst_;
		p.dst = src_;
		p.plane = plane_;
		p.sport = sport_;
		p.r.psn = psn;
		p.bytes = kCtrlBytes;
		net_.send(p);
	}

	void rx_data(const Pkt &p)
	{
		uint64_t now = net_.now();

		if (p.ce && (!cnp_sent_ || now - cnp_tx_at_ >= kCnpGapNs)) {
			cnp_sent_ = true;
			cnp_tx_at_ = now;
			ctrl(ROCE_CNP, 0);
		}
		if (p.r.psn > epsn_) {
			if (!nak_sent_) {
				nak_sent_ = true;
				ctrl(ROCE_NAK, epsn_);
			}
			return;
		}
		if (p.r.psn < epsn_) {	// a duplicate: say where we are
			ctrl(ROCE_ACK, epsn_);
			return;
		}
		uint64_t m;
		uint32_t len = len_of(p.r.psn, &m);

		if (len != p.r.len)
			net_.fail("roce flow " + std::to_string(id_) + ": length mismatch");
		epsn_++;
		nak_sent_ = false;
		bytes_rx += len;
		if (epsn_ == msg_end_[m]) {
			rx_complete(m, lens_[m]);
			since_ack_ = 0;
			ctrl(ROCE_ACK, epsn_);
		} else if (++since_ack_ >= kAckEvery) {
			since_ack_ = 0;
			ctrl(ROCE_ACK, epsn_);
		}
	}

	TransportCfg tc_;
	uint8_t plane_;
	uint16_t sport_;
	double line_, rc_, rt_, alpha_ = 1;
	uint32_t stage_ = 0, retries_ = 0;
	uint64_t una_ = 0, nxt_ = 0, next_tx_ = 0, last_progress_ = 0, cnp_at_ = 0;
	bool send_armed_ = false, ticking_ = false;
	std::vector<uint64_t> msg_end_;		// first PSN after each message
	// receiver
	uint64_t epsn_ = 0, cnp_tx_at_ = 0;
	uint32_t since_ack_ = 0;
	bool nak_sent_ = false, cnp_sent_ = false;
	uint64_t resent_ = 0, naks_ = 0, timeouts_ = 0, cnps_ = 0;
};

} // namespace

std::unique_ptr<Flow> make_roce_flow(Net &net, const TransportCfg &tc, uint32_t id,
				     uint32_t src, uint32_t dst)
{
	return std::make_unique<RoceFlow>(net, tc, id, src, dst);
}

} // namespace scale
