// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Completion rings: the process owns only the consumer index; the kernel
// reads it (and nothing else) to know how full the ring is. Garbage
// there must end in completions or in the CQ's overflow (IBV_EVENT_CQ_ERR),
// garbage in the producer index and the slots must not matter at all.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ufuzz.h"

namespace ufz {

namespace {

using Clock = std::chrono::steady_clock;

void set_consumer(Ring &c, uint32_t v)
{
	__atomic_store_n(&c.r.hdr->consumer, v, __ATOMIC_RELEASE);
}

// @k signaled datagrams to the peer, through the raw ring.
void post_sends(Env &e, FQp &q, uint32_t k, Rng &rng, std::vector<Posted> &posted)
{
	uint32_t base = q.sq.mine();

	for (uint32_t i = 0; i < k; i++) {
		slot_good_send(e, q, q.sq.slot(base + i), tag(e, i), rng);
		posted.push_back({tag(e, i), false, "a good UD SEND"});
	}
	q.sq.publish(base + k);
	ring_sq(q);
}

// Completions or the CQ's end: @k completions, or true once CQ_ERR came.
bool wait_outcome(Env &e, FQp &q, uint32_t k, std::vector<ibv_wc> &wcs)
{
	auto end = Clock::now() + std::chrono::milliseconds(e.wc_timeout_ms);

	while (Clock::now() < end) {
		if (drain_async(e, e.ctx, IBV_EVENT_CQ_ERR))
			return true;
		poll_for(e, q.cq, wcs, 1, k);
		if (wcs.size() >= k)
			return false;
	}
	unexpected(e, "neither %u completions (%zu came) nor CQ_ERR in %d ms", k, wcs.size(),
		   e.wc_timeout_ms);
	return false;
}

}  // namespace

void op_cq(Env &e, Pool &p, Rng &rng)
{
	FQp &q = p.cqq;
	Ring c;
	std::vector<Posted> posted;
	std::vector<ibv_wc> wcs;
	std::atomic<bool> stop{false};
	std::thread flipper;

	e.cls = kCq;
	e.t().ops++;
	if (!fqp_arm(e, q))
		return;
	ufz_cq_ring(q.cq, &c.r);
	uint32_t num = c.r.num, prod = c.producer(), mine = c.mine();
	uint32_t k = 1 + static_cast<uint32_t>(rng.below(num / 2));
	bool may_overflow = true, overflowed;

	if (mine != prod) {
		unexpected(e, "CQ at rest: provider at %u, kernel at %u", mine, prod);
		fqp_renew(e, q);
		return;
	}
	switch (rng.below(6)) {
	case 0:	// from the future: ignored, the old value stands
		// (the value it last read: arming makes that the current one,
		// else garbage in a row leaves the kernel's view ever older)
		if (ibv_req_notify_cq(q.cq, 0))
			note_errno(e, errno);
		set_consumer(c, prod + num + 1 + static_cast<uint32_t>(rng.below(1u << 30)));
		may_overflow = false;
		break;
	case 1:	// the ring looks full: the next completion overflows it
		set_consumer(c, prod - num);
		k = 1;
		break;
	case 2:	// the kernel's words: its producer index and the slots
		rng.bytes(c.r.slots, static_cast<size_t>(num) * c.r.slot_size);
		c.poke_producer(rng.u32());
		may_overflow = false;
		break;
	case 3:
		set_consumer(c, rng.u32());
		break;
	case 4:	// torn: the index changes while the kernel completes
		flipper = std::thread([&c, &stop, prod, num, seed = rng.next()] {
			Rng r(seed);

			while (!stop.load(std::memory_order_relaxed))
				set_consumer(c, r.pick({prod + num + 7, prod - num, prod, r.u32()}));
		});
		break;
	default:	// arming reads the index too
		set_consumer(c, rng.pct(50) ? prod - num : rng.u32());
		if (ibv_req_notify_cq(q.cq, rng.pct(50)))
			note_errno(e, errno);
		set_consumer(c, mine);
		may_overflow = false;
		break;
	}
	post_sends(e, q, k, rng, posted);
	overflowed = wait_outcome(e, q, k, wcs);
	if (flipper.joinable()) {
		stop = true;
		flipper.join();
	}
	if (overflowed) {
		if (!may_overflow)
			unexpected(e, "CQ_ERR after a consumer index the kernel must ignore");
		tally_wcs(e, wcs);
		fqp_renew(e, q);	// a CQ in error stays so
		return;
	}
	set_consumer(c, c.mine());
	check_wcs(e, posted, wcs, wcs.size() >= k);
	for (const ibv_wc &w : wcs)
		if (w.status != IBV_WC_SUCCESS)
			unexpected(e, "a good UD SEND: %s", ibv_wc_status_str(w.status));
}

}  // namespace ufz
