// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Simulated channel between two portable-core endpoints; see sim.h.
#include "sim/conn.h"
#include "sim/sim.h"
#include "sim/loopback.h"
#include "sim/endpoint.h"

#include <algorithm>
#include <cstdio>

namespace mrcsim {

// Ethernet + IPv4 + UDP around every MetaRoCE packet.
static constexpr uint32_t kEncap = 14 + 20 + 8;
static constexpr uint32_t kAckBytes = kEncap + MRC_WIRE_BASE_LEN + MRC_WIRE_ACK_LEN +
				      MRC_WIRE_ICRC_LEN;
static constexpr uint32_t kProbeBytes = kEncap + MRC_WIRE_BASE_LEN +
					MRC_WIRE_PROBE_LEN + MRC_WIRE_ICRC_LEN;

Sim::Sim(const mrc_conn_cfg &cfg, const LinkCfg &link, const Workload &wl,
	 uint64_t seed, const mrc_conn_cfg *peer)
	: cfg_(cfg), link_(link), wl_(wl), a_(new mrcsim::Conn), b_(new mrcsim::Conn),
	  rng_(seed)
{
	mrc_conn_cfg ca = cfg;

	ca.seed = seed * 2 + 1;
	mrc_conn_cfg cb = peer_cfg(ca, peer ? *peer : ca, seed * 2 + 2);
	if (!a_->init(ca, 0) || !b_->init(cb, 0))
		fail("mrc_conn_init refused the configuration");
	uint64_t capacity = link.rate_hint ?
		(uint64_t)(link.rate_bpns * 1e9 * std::max(link.links, 1u)) : 0;

	mrc_cc_share_init(&share_b_, capacity, MRC_CC_SHARE_EPOCH_NS, 0);
	mrc_cc_share_init(&share_a_, capacity, MRC_CC_SHARE_EPOCH_NS, 0);
	next_rx_ssn_.assign(cfg.nstreams, 0);
	next_tx_ssn_.assign(cfg.nstreams, 0);
	hash_seed_ = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	if (link_.links) {
		link_.link.resize(link_.links);
		link_busy_[0].assign(link_.links, 0);
		link_busy_[1].assign(link_.links, 0);
		st_.link_pkts.assign(link_.links, 0);
		st_.link_goodput.resize(link_.links);
	}
}

Sim::~Sim() = default;

void Sim::fail(const std::string &what)
{
	char buf[64];

	snprintf(buf, sizeof(buf), " (t=%llu ns)", (unsigned long long)now_);
	if (st_.errors.size() < 20)
		st_.errors.push_back(what + buf);
}

bool Sim::route_down(uint16_t sport, uint64_t now) const
{
	uint32_t r = sport % link_.routes;

	for (const Outage &o : outages_)
		if (o.route == r && now >= o.from_ns && now < o.to_ns)
			return true;
	return false;
}

uint32_t Sim::link_of(uint16_t sport, bool to_b) const
{
	// splitmix64 of the port and direction: a router's 5-tuple hash
	uint64_t x = hash_seed_ + (uint64_t)sport * 2 + to_b;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return link_.links ? (uint32_t)(x % link_.links) : 0;
}

bool Sim::plane_drops(const Pkt &p)
{
	uint32_t id = p.is_ack ? p.ack.path_id : p.seg.path_id;

	for (const Blackhole &h : holes_)
		if (h.planes && id % h.planes == h.link && now_ >= h.from_ns &&
		    now_ < h.to_ns && (p.to_b ? h.data : h.acks)) {
			st_.blackholed++;
			st_.blackholed_data += p.to_b && !p.probe;
			return true;
		}
	return false;
}

bool Sim::fabric_drops(uint32_t l, bool to_b, bool is_ack)
{
	for (const Blackhole &h : holes_)
		if (!h.planes && h.link == l && now_ >= h.from_ns && now_ < h.to_ns &&
		    (to_b ? h.data : h.acks)) {
			st_.blackholed++;
			return true;
		}
	if (link_.link[l].loss > 0 && !(is_ack && link_.acks_lossless) &&
	    uniform() < link_.link[l].loss) {
		st_.dropped++;
		return true;
	}
	return false;
}

void Sim::count(std::vector<uint64_t> &v, uint64_t bytes)
{
	uint64_t b = now_ / link_.bucket_ns;

	if (v.size() <= b)
		v.resize(b + 1, 0);
	v[b] += bytes;
}

void Sim::transmit(bool to_b, uint16_t sport, uint32_t bytes, Pkt p)
{
	uint32_t l = link_of(sport, to_b);
	uint64_t &busy = link_.links ? link_busy_[to_b ? 1 : 0][l] :
				       busy_[to_b ? 1 : 0];
	double rate = link_.rate_bpns * (link_.links ? link_.link[l].rate_scale : 1);
	uint64_t start = std::max(now_, busy);
	uint64_t depart = start + (uint64_t)(bytes / rate) + 1;
	uint64_t queued = (uint64_t)((start - now_) * rate);

	busy = depart;
	p.to_b = to_b;
	p.sport = sport;
	p.link = l;
	p.ce = !p.is_ack && link_.ecn_bytes && queued > link_.ecn_bytes;
	if (link_.links) {
		if (!p.is_ack && !p.probe) {
			st_.link_pkts[l]++;
			if (link_.link[l].mark > 0 && uniform() < link_.link[l].mark)
				p.ce = true;
		}
		if (fabric_drops(l, to_b, p.is_ack))
			return;
	}
	if (plane_drops(p))
		return;
	if (!p.is_ack && link_.hot_route >= 0 &&
	    sport % link_.routes == (uint32_t)link_.hot_route &&
	    uniform() < link_.hot_mark)
		p.ce = true;
	st_.ce_marked += p.ce;
	if (route_down(sport, now_)) {
		st_.outage_drops++;
		return;
	}
	if (link_.loss > 0 && !(p.is_ack && link_.acks_lossless) &&
	    uniform() < link_.loss) {
		st_.dropped++;
		return;
	}
	p.at = depart + link_.delay_ns + sport % link_.routes * link_.route_skew_ns;
	if (link_.jitter_ns)
		p.at += (uint64_t)(uniform() * link_.jitter_ns);
	if (link_.reorder > 0 && uniform() < link_.reorder) {
		p.at += link_.reorder_ns;
		st_.reordered++;
	}
	for (const Stall &s : stalls_)
		if (link_.links && s.link == l && s.to_b == to_b &&
		    p.at >= s.from_ns && p.at < s.to_ns) {
			p.at = s.to_ns;
			st_.stalled++;
		}
	p.order = order_++;
	q_.push(p);
	if (link_.dup > 0 && uniform() < link_.dup) {
		p.at += 1 + (uint64_t)(uniform() * 2000);
		p.order = order_++;
		q_.push(p);
		st_.duplicated++;
	}
}

void Sim::post_more()
{
	mrc_conn *a = a_.get();

	uint64_t done = st_.msgs_done_tx;

	if (wl_.reads) {
		while (!read_req_at_.empty() && read_req_at_.front() <= now_) {
			read_req_at_.pop_front();
			read_credits_++;
		}
		done = read_credits_;
	}
	if (wl_.batch && posted_count_ != done)
		return;
	while (posted_count_ < wl_.messages &&
	       posted_count_ - done < wl_.outstanding) {
		uint32_t span = wl_.max_len - wl_.min_len + 1;
		uint32_t len = wl_.min_len + (uint32_t)(rng_() % span);
		uint32_t stream = (uint32_t)(rng_() % cfg_.nstreams);
		uint32_t msn;

		if (!mrc_conn_tx_post(a, stream, len, posted_count_, &msn))
			break;
		if (msn - cfg_.tx_msn != posted_count_)
			fail("MSN not assigned in posting order");
		if (wl_.reads)	// a's messages answer READ requests
			mrc_conn_tx_response(a, msn);
		Posted p;
		p.stream = stream;
		p.ssn = a->txm[msn % MRC_CONN_MSGS].ssn;
		p.len = len;
		p.placed.assign(mrc_conn_nsegs(len, cfg_.mss), 0);
		posted_.push_back(std::move(p));
		posted_count_++;
	}
}

void Sim::deliver(const Pkt &p)
{
	if (p.probe == 1) {
		// [PKT-76] b answers on the same path id, as the module does
		Pkt r = {};

		r.is_ack = true;
		r.probe = 2;
		r.ack.path_id = p.seg.path_id;
		r.probe_seq = p.probe_seq;
		r.tsval = p.tsval;
		st_.probes++;
		mrc_conn_rx_probe_route(b_.get(), p.seg.path_id, p.sport);
		transmit(false, mrc_conn_ack_sport(b_.get(), p.seg.path_id),
			 kProbeBytes, r);
		return;
	}
	if (p.probe == 2) {
		st_.probes_answered += mrc_conn_on_probe_resp(a_.get(), now_,
							      p.ack.path_id,
							      p.probe_seq, p.tsval);
		return;
	}
	if (p.is_ack) {
		if (!mrc_conn_on_ack(a_.get(), now_, &p.ack))
			fail("sender refused a valid ACK");
		return;
	}
	st_.data_pkts++;
	mrc_rx_seg s = rx_of(p.seg, p.ce);

	s.sport = p.sport;
	switch (mrc_conn_rx_data(b_.get(), now_, &s, &share_b_)) {
	case MRC_RX_NEW: {
		uint64_t i = (uint32_t)(s.msn - cfg_.tx_msn);

		st_.rx_new++;
		if (i >= posted_.size()) {
			fail("placed a segment of a message never posted");
			return;
		}
		Posted &m = posted_[i];
		if (m.stream != s.stream || m.ssn != s.ssn || m.len != s.total_len)
			fail("segment identity differs from its posting");
		// [ENC-25] a packet may carry several segments; an honest
		// sender resends packets as they were, so each is new here
		uint32_t first = s.offset / cfg_.mss;
		uint32_t n = mrc_conn_nsegs(s.len, cfg_.mss);
		for (uint32_t idx = first; idx < first + n; idx++)
			if (idx >= m.placed.size() || m.placed[idx]++)
				fail("segment placed twice (msn " +
				     std::to_string(s.msn) + " seg " +
				     std::to_string(idx) + ")");
		st_.bytes_rx += s.len;
		if (link_.bucket_ns) {
			count(st_.goodput, s.len);
			if (link_.links)
				count(st_.link_goodput[p.link], s.len);
		}
		st_.max_pkt_len = std::max<uint64_t>(st_.max_pkt_len, s.len);
		break;
	}
	case MRC_RX_DUP:
		st_.rx_dup++;
		break;
	case MRC_RX_DROP:
		break;
	case MRC_RX_INVALID:
		fail("receiver flagged a protocol violation");
		break;
	}
	// the receiver's map of paths owing ACKs is what the paths say
	for (uint32_t i = 0; i < MRC_MAX_PATHS; i++)
		if ((b_->rx_pending >> i & 1) != (b_->path[i].rx.pending != 0))
			fail("rx_pending disagrees with path " + std::to_string(i));
}

void Sim::rx_done(const mrc_completion &c)
{
	uint64_t i = (uint32_t)(c.msn - cfg_.tx_msn);

	if (i >= posted_.size()) {
		fail("receiver completed an unknown message");
		return;
	}
	Posted &m = posted_[i];
	if (m.rx_done || c.stream != m.stream || c.ssn != m.ssn || c.len != m.len)
		fail("receiver completion does not match the posting");
	if (c.ssn != next_rx_ssn_[c.stream]++)
		fail("receiver completion out of order on its stream");
	for (uint8_t n : m.placed)
		if (n != 1)
			fail("completed message with a segment placed " +
			     std::to_string(n) + " times");
	m.rx_done = true;
	st_.msgs_done_rx++;
	if (wl_.reads)
		read_req_at_.push_back(now_ + link_.delay_ns);
}

void Sim::ack_out(const mrc_ack_info &ack)
{
	Pkt p = {};

	p.is_ack = true;
	p.ack = ack;
	st_.ack_pkts++;
	transmit(false, ack.sport, kAckBytes, p);
}

void Sim::tx_done(const mrc_completion &c)
{
	if (c.status != MRC_CONN_OK) {
		fail("sender completion with error " + std::to_string(c.status));
		return;
	}
	if (c.cookie >= posted_.size() || posted_[c.cookie].tx_done) {
		fail("sender completed a message twice or never posted");
		return;
	}
	Posted &m = posted_[c.cookie];
	if (c.stream != m.stream || c.ssn != next_tx_ssn_[c.stream]++)
		fail("sender completion out of order on its stream");
	if (!m.rx_done)
		fail("sender completed before the receiver placed everything");
	m.tx_done = true;
	st_.msgs_done_tx++;
}

void Sim::post(mrc_conn *c)
{
	if (c == a_.get())
		post_more();
}

void Sim::data_out(const mrc_tx_seg &seg)
{
	Pkt p = {};

	p.seg = seg;
	transmit(true, seg.sport, kEncap + MRC_WIRE_DATA_OVERHEAD + seg.len, p);
}

void Sim::probe_out(const mrc_probe_req &req, uint32_t tsval)
{
	Pkt p = {};

	p.probe = 1;
	p.seg.path_id = req.path_id;
	p.probe_seq = req.seq;
	p.tsval = tsval;
	transmit(true, req.sport, kProbeBytes, p);
}

void Sim::pump(uint64_t now)
{
	mrc_conn *a = a_.get(), *b = b_.get();

	// b only receives and a only sends: their drives in this order are
	// the order a kernel with both ends would run
	drive(b, now, &share_b_, *this);
	drive(a, now, &share_a_, *this);
	st_.inflight_sum += mrc_conn_inflight(a);
	st_.inflight_samples++;
	st_.blocked_conn += mrc_conn_inflight(a) + cfg_.mss > mrc_cc_conn_window(&a->cc, &cfg_.cc);
	if (a->error)
		fail("sender connection error " + std::to_string(a->error));
	if (b->error)
		fail("receiver connection error " + std::to_string(b->error));
}

bool Sim::run(uint64_t limit_ns)
{
	auto done = [&] {
		return posted_count_ == wl_.messages &&
		       st_.msgs_done_tx == wl_.messages &&
		       st_.msgs_done_rx == wl_.messages;
	};

	pump(now_);
	while (!done() && st_.errors.empty()) {
		uint64_t t = std::min(mrc_conn_deadline(a_.get()),
				      mrc_conn_deadline(b_.get()));

		if (!q_.empty())
			t = std::min(t, q_.top().at);
		if (!read_req_at_.empty())
			t = std::min(t, read_req_at_.front());
		if (t == ~0ull) {
			fail("stalled: nothing in flight and no timer armed");
			break;
		}
		if (t > limit_ns)
			break;
		now_ = std::max(now_, t);
		while (!q_.empty() && q_.top().at <= now_) {
			Pkt p = q_.top();

			q_.pop();
			deliver(p);
		}
		mrc_conn_on_timer(a_.get(), now_);
		mrc_conn_on_timer(b_.get(), now_);
		pump(now_);
	}
	st_.end_ns = now_;
	st_.resends = a_->stats.tx_resends;
	st_.tail_dups = a_->stats.tx_dups;
	for (uint32_t i = 0; i < cfg_.npaths; i++)
		st_.reentropies += a_->path[i].reentropies;
	return done() && st_.errors.empty();
}

} // namespace mrcsim
