// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The simulator's event queue: a calendar (timing wheel) of 1 ns buckets
// spanning 65 us (a hop and the deepest queue), and a heap for events
// further out (timeouts). Every event in a bucket has the same time, and events are
// pushed in sequence order, so a bucket is a FIFO: push appends, pop reads
// on. A hop lands a few microseconds ahead, so both cost O(1) instead of a
// heap's log2(events in flight) cache misses (64 hosts x 8 planes at
// 100 Gbit/s make about ten hops per simulated ns). Buckets keep their
// capacity: no allocation per event once warm.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace scale {

struct Ev {
	uint64_t t, seq;
	uint32_t kind;		// 0: a packet arrives, 1: a timer
	uint32_t id;		// packet index; timer: flow
	uint32_t which;
	bool operator<(const Ev &o) const	// the far heap: earliest on top
	{
		return t != o.t ? t > o.t : seq > o.seq;
	}
};

class EventQueue {
public:
	EventQueue() : b_(kBuckets) {}

	// @e.seq must grow with every push; @e.t not before the last pop.
	void push(const Ev &e)
	{
		uint64_t t = std::max(e.t, cur_);

		if (t - cur_ < kBuckets) {
			b_[t & kMask].push_back(e);
			n_++;
		} else {
			far_.push_back(e);
			std::push_heap(far_.begin(), far_.end());
		}
	}

	// The earliest event, removed; false if none.
	bool pop(Ev &e)
	{
		for (;;) {
			if (!n_) {
				if (far_.empty())
					return false;
				b_[cur_ & kMask].clear();
				head_ = 0;
				cur_ = far_.front().t;
				migrate();
				continue;
			}
			std::vector<Ev> &v = b_[cur_ & kMask];

			if (head_ < v.size()) {
				e = v[head_++];
				n_--;
				return true;
			}
			v.clear();
			head_ = 0;
			cur_++;
			migrate();
		}
	}

	// The next event if it is due at the current time (for a prefetch).
	const Ev *peek_near() const
	{
		const std::vector<Ev> &v = b_[cur_ & kMask];

		return head_ < v.size() ? &v[head_] : nullptr;
	}

	bool empty() const { return !n_ && far_.empty(); }

private:
	static constexpr uint64_t kBuckets = 1 << 16;
	static constexpr uint64_t kMask = kBuckets - 1;

	// far events move in before anything else is pushed for their time
	void migrate()
	{
		while (!far_.empty() && far_.front().t - cur_ < kBuckets) {
			Ev e = far_.front();

			std::pop_heap(far_.begin(), far_.end());
			far_.pop_back();
			b_[e.t & kMask].push_back(e);
			n_++;
		}
	}

	std::vector<std::vector<Ev>> b_;
	std::vector<Ev> far_;
	uint64_t cur_ = 0;	// the time being served
	size_t head_ = 0;	// next event in its bucket
	uint64_t n_ = 0;	// events in the buckets
};

} // namespace scale
