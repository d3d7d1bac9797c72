// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The leaf-spine fabric and its event loop; see net.h.
#include "net.h"

#include <algorithm>
#include <cstring>

namespace scale {

void Flow::rx_complete(uint64_t msg, uint64_t len)
{
	if (msg != msgs_rx)
		net_.fail("flow " + std::to_string(id_) + ": message " +
			  std::to_string(msg) + " completed, expected " +
			  std::to_string(msgs_rx));
	else if (msg >= lens_.size() || lens_[msg] != len)
		net_.fail("flow " + std::to_string(id_) + ": message " +
			  std::to_string(msg) + " completed with a wrong length");
	msgs_rx++;
	net_.progress();
	last_rx_ns = net_.now();
	if (on_rx_msg)
		on_rx_msg(*this, msg);
}

void Flow::tx_complete(uint64_t msg)
{
	if (msg != msgs_tx || msg >= msgs_rx)
		net_.fail("flow " + std::to_string(id_) + ": sender completed message " +
			  std::to_string(msg) + " out of order or before its receiver");
	msgs_tx++;
	net_.progress();
}

Net::Net(const FabricCfg &cfg) : cfg_(cfg), rng_(cfg.seed)
{
	H_ = cfg.hosts;
	L_ = (cfg.hosts + cfg.per_leaf - 1) / cfg.per_leaf;
	S_ = std::max(cfg.spines, 1u);
	pp_ = 2 * H_ + 2 * L_ * S_;
	rate_ = cfg.gbps / 8;
	ns_per_byte_ = 1 / rate_;
	ports_.resize((size_t)pp_ * cfg.planes);
	for (uint32_t p = 0; p < cfg.planes; p++) {
		for (uint32_t h = 0; h < H_; h++) {
			// the host's NIC queue: the transport's windows bound it
			ports_[port_down(p, h)].buffer = cfg.buffer;
			ports_[port_down(p, h)].loss = cfg.loss;
		}
		for (uint32_t i = 2 * H_; i < pp_; i++)
			ports_[p * pp_ + i].buffer = cfg.buffer;
	}
	if (cfg.fail_plane >= 0 && (uint32_t)cfg.fail_plane < cfg.planes &&
	    (uint32_t)cfg.fail_leaf < L_ && (uint32_t)cfg.fail_spine < S_) {
		for (uint32_t i : {port_lup(cfg.fail_plane, cfg.fail_leaf, cfg.fail_spine),
				   port_sdown(cfg.fail_plane, cfg.fail_spine, cfg.fail_leaf)}) {
			ports_[i].failed = true;
			ports_[i].fail_at = cfg.fail_at_ns;
		}
	}
	hash_seed_ = cfg.seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
}

Net::~Net() = default;

uint64_t Net::base_owd_ns(uint32_t bytes) const
{
	return 4 * (cfg_.link_ns + (uint64_t)(bytes * ns_per_byte_) + 1);
}

Flow &Net::add(std::unique_ptr<Flow> f)
{
	flows_.push_back(std::move(f));
	return *flows_.back();
}

void Net::fail(const std::string &what)
{
	progress_ = true;
	if (errors_.size() < 20)
		errors_.push_back(what + " (t=" + std::to_string(now_) + " ns)");
}

Pkt &Net::alloc()
{
	uint32_t i;

	if (free_.empty()) {
		if (npkts_ % kChunk == 0)
			chunks_.emplace_back(new Pkt[kChunk]);
		i = npkts_++;
	} else {
		i = free_.back();
		free_.pop_back();
	}
	Pkt &p = pkt(i);
	memset(&p, 0, sizeof(p));
	p.self = i;
	return p;
}

void Net::push(uint64_t t, uint32_t kind, uint32_t id, uint32_t which)
{
	q_.push({t, seq_++, kind, id, which});
}

void Net::at(uint64_t t, uint32_t f, uint32_t which)
{
	push(std::max(t, now_), 1, f, which);
}

void Net::send(Pkt &p)
{
	if (p.kind == MRC_DATA || p.kind == ROCE_DATA || p.kind == IDEAL_DATA)
		st_.data_pkts++;
	else
		st_.ctrl_pkts++;
	enqueue(port_up(p.plane, p.src), p.self, 0);
}

uint32_t Net::pick_spine(const Pkt &p, uint32_t leaf)
{
	// splitmix64 of the 5-tuple (addresses, ports, UDP) and the switch
	uint64_t x = hash_seed_ ^ ((uint64_t)p.src << 40 | (uint64_t)p.dst << 16 | p.sport);

	x += 0x9e3779b97f4a7c15ull * (leaf + 1);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	uint32_t s = (uint32_t)(x % S_);

	if (p.lossless) {
		// the ideal transport routes around a dead link, spreading
		// what it carried over every live spine (a fixed detour would
		// make a hot spot and understate the remaining capacity)
		uint32_t dl = leaf_of(p.dst);
		auto live = [&](uint32_t t) {
			return !dead(ports_[port_lup(p.plane, leaf, t)]) &&
			       !dead(ports_[port_sdown(p.plane, t, dl)]);
		};

		if (live(s))
			return s;
		for (uint32_t k = 0; k < 4 * S_; k++) {
			uint32_t t = (uint32_t)(rand() % S_);

			if (live(t))
				return t;
		}
	}
	return s;
}

void Net::enqueue(uint32_t port, uint32_t pi, uint8_t stage)
{
	Pkt &p = pkt(pi);
	Port &q = ports_[port];

	p.stage = stage;
	if (dead(q) && !p.lossless) {
		st_.drops_failed++;
		release(pi);
		return;
	}
	bool data = p.kind == MRC_DATA || p.kind == ROCE_DATA || p.kind == IDEAL_DATA;
	uint64_t ser = (uint64_t)(p.bytes * ns_per_byte_) + 1;

	if (!stage && !data && cfg_.nic_ctrl_first) {
		// a NIC sends ACKs, NAKs and CNPs ahead of its queued data:
		// they go now and delay what waits by their own length
		q.busy = std::max(now_, q.busy) + ser;
		q.tx_bytes += p.bytes;
		st_.hops++;
		push(now_ + ser + cfg_.link_ns, 0, pi, 0);
		return;
	}
	uint64_t start = std::max(now_, q.busy);
	uint64_t queued = (uint64_t)((start - now_) * rate_);

	if (!p.lossless) {
		if (queued + p.bytes > q.buffer) {
			st_.drops_buffer++;
			release(pi);
			return;
		}
		if (q.loss > 0 && uniform() < q.loss) {
			st_.drops_loss++;
			release(pi);
			return;
		}
	}
	if (stage) {
		st_.max_queue = std::max(st_.max_queue, queued);
		if (queued > cfg_.ecn_kmin && data) {
			double pr = queued >= cfg_.ecn_kmax ? cfg_.ecn_pmax :
				cfg_.ecn_pmax * (queued - cfg_.ecn_kmin) /
				(double)(cfg_.ecn_kmax - cfg_.ecn_kmin);

			if (pr >= 1 || uniform() < pr) {
				st_.ce_marked += !p.ce;
				p.ce = true;
			}
		}
	}
	q.busy = start + ser;
	q.tx_bytes += p.bytes;
	st_.hops++;
	push(q.busy + cfg_.link_ns, 0, pi, 0);
}

void Net::arrive(uint32_t pi)
{
	Pkt &p = pkt(pi);
	uint32_t dl = leaf_of(p.dst);

	switch (p.stage) {
	case 0: {		// at the source's leaf
		uint32_t sl = leaf_of(p.src);

		if (sl == dl) {
			enqueue(port_down(p.plane, p.dst), pi, 3);
			return;
		}
		p.spine = pick_spine(p, sl);
		enqueue(port_lup(p.plane, sl, p.spine), pi, 1);
		return;
	}
	case 1:			// at a spine
		enqueue(port_sdown(p.plane, p.spine, dl), pi, 2);
		return;
	case 2:			// at the destination's leaf
		enqueue(port_down(p.plane, p.dst), pi, 3);
		return;
	default:		// at the host
		flows_[p.flow]->recv(p);
		release(pi);
		return;
	}
}

bool Net::run(uint64_t limit_ns, const std::function<bool()> &done)
{
	Ev e;

	for (;;) {
		if (progress_) {
			progress_ = false;
			if (done())
				return true;
		}
		if (!errors_.empty())
			return false;
		if (!q_.pop(e)) {
			fail("stalled: nothing in flight and no timer armed");
			return false;
		}
		if (e.t > limit_ns) {
			q_.push(e);
			return false;
		}
		now_ = e.t;
		st_.events++;
		// the packet is cold (the pool is megabytes): fetch the next
		// one's while this one is handled
		if (const Ev *n = q_.peek_near(); n && n->kind == 0)
			__builtin_prefetch(&pkt(n->id));
		if (e.kind == 0)
			arrive(e.id);
		else
			flows_[e.id]->timer(e.which);
	}
}

} // namespace scale
