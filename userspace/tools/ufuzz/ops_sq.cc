// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Send rings: garbage slots, bogus producer indices and kernel-owned
// header words, AH numbers the process may not use, and indices that run
// across 2^32.

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "ufuzz.h"

namespace ufz {

void op_sq(Env &e, Pool &p, Rng &rng)
{
	FQp &q = rng.pct(50) ? p.rc : p.ud;
	std::vector<Posted> posted;

	e.cls = kSq;
	e.t().ops++;
	if (!fqp_arm(e, q))
		return;
	uint32_t base = q.sq.mine(), n = 1 + static_cast<uint32_t>(rng.below(16));

	for (uint32_t i = 0; i < n; i++) {
		uint8_t *slot = q.sq.slot(base + i);
		uint64_t id = tag(e, i);
		bool must = false;

		if (rng.pct(25))
			slot_good_send(e, q, slot, id, rng);
		else
			must = slot_send_garbage(e, q, slot, id, rng);
		posted.push_back({id, must, describe_send(slot)});
	}
	q.sq.publish(base + n);
	if (!finish_sends(e, q, posted))
		fqp_renew(e, q);
}

// A producer index that would put more than the ring holds in it.
static uint32_t bogus_index(Rng &rng, uint32_t base, uint32_t num)
{
	uint32_t v;

	switch (rng.below(6)) {
	case 0:
		v = base - 1 - static_cast<uint32_t>(rng.below(num));	// backwards
		break;
	case 1:
		v = base + num + 1 + static_cast<uint32_t>(rng.below(1u << 20));
		break;
	case 2:
		v = base + 0x80000000u;
		break;
	case 3:
		v = base + num + 1;	// one past full
		break;
	case 4:
		v = base - 0x80000000u + 1;
		break;
	default:
		v = rng.u32();
		break;
	}
	return v - base > num ? v : base + num + 1;
}

void op_index(Env &e, Pool &p, Rng &rng)
{
	FQp &q = rng.pct(50) ? p.rc : p.ud;
	std::vector<Posted> posted;
	std::vector<ibv_wc> wcs;

	e.cls = kIndex;
	e.t().ops++;
	if (!fqp_arm(e, q))
		return;
	Ring &r = q.sq;
	uint32_t base = r.mine(), num = r.r.num, k = 1 + static_cast<uint32_t>(rng.below(8));

	if (r.consumer() != base) {
		unexpected(e, "SQ at rest has consumer %u, producer %u", r.consumer(), base);
		fqp_renew(e, q);
		return;
	}
	for (uint32_t i = 0; i < k; i++) {
		slot_good_send(e, q, r.slot(base + i), tag(e, i), rng);
		posted.push_back({tag(e, i), false, describe_send(r.slot(base + i))});
	}
	uint32_t bogus = bogus_index(rng, base, num);

	r.poke_producer(bogus);
	ring_sq(q);
	poll_for(e, q.cq, wcs, 20);
	if (wcs.empty() && r.consumer() == base) {
		e.t().ignored++;
	} else {
		unexpected(e, "producer %#x with the kernel at %#x (%u slots) was acted on: %zu "
			   "completions, consumer now %#x", bogus, base, num, wcs.size(),
			   r.consumer());
		tally_wcs(e, wcs);
		fqp_renew(e, q);
		return;
	}
	// the words the kernel owns; it must neither trust nor need them
	if (rng.pct(50)) {
		metaroce_queue_hdr *h = r.r.hdr;

		h->consumer = rng.u32();
		h->flags = rng.u32();
		rng.bytes(h->pad0, sizeof(h->pad0));
		rng.bytes(h->pad1, sizeof(h->pad1));
		ring_sq(q);
		h->consumer = base;
	}
	r.publish(base + k);
	if (!finish_sends(e, q, posted, wcs)) {
		fqp_renew(e, q);
		return;
	}
	if (q.type != IBV_QPT_UD)
		return;
	// datagrams to a good AH cannot fail
	for (const ibv_wc &w : wcs)
		if (w.status != IBV_WC_SUCCESS)
			unexpected(e, "a good UD SEND after a bogus index: %s",
				   ibv_wc_status_str(w.status));
}

void op_ah(Env &e, Pool &p, Rng &rng)
{
	FQp &q = p.ud;
	std::vector<Posted> posted;
	std::vector<ibv_wc> wcs;
	uint32_t bad[] = {e.stale_ah, ufz_ah_num(e.ah_pd2), ufz_ah_num(e.ah_ctx2), 0, 0xffffffffu,
			  ufz_ah_num(e.ah) + 1 + static_cast<uint32_t>(rng.below(1000))};

	e.cls = kAh;
	e.t().ops++;
	if (!fqp_arm(e, q))
		return;
	uint32_t base = q.sq.mine(), i = 0;

	if (rng.pct(50)) {
		slot_good_send(e, q, q.sq.slot(base), tag(e, i), rng);
		posted.push_back({tag(e, i), false, describe_send(q.sq.slot(base))});
		i++;
	}
	uint8_t *slot = q.sq.slot(base + i);
	uint64_t bad_id = tag(e, i);

	slot_good_send(e, q, slot, bad_id, rng);
	reinterpret_cast<metaroce_send_wqe *>(slot)->wr.ud.ah_num = rng.pick(bad);
	posted.push_back({bad_id, true, describe_send(slot)});
	q.sq.publish(base + i + 1);
	if (!finish_sends(e, q, posted, wcs)) {
		fqp_renew(e, q);
		return;
	}
	// the uAPI's promise for an AH number the QP may not use
	for (const ibv_wc &w : wcs) {
		bool want_ok = w.wr_id != bad_id && w.wr_id != tag(e, 0xffff);

		if (w.wr_id == bad_id && w.status != IBV_WC_LOC_QP_OP_ERR)
			unexpected(e, "AH number %u: %s, not LOC_QP_OP_ERR",
				   reinterpret_cast<metaroce_send_wqe *>(slot)->wr.ud.ah_num,
				   ibv_wc_status_str(w.status));
		if (want_ok && w.status != IBV_WC_SUCCESS)
			unexpected(e, "a good SEND before a bad AH: %s", ibv_wc_status_str(w.status));
	}
}

// The indices of a send and a receive ring run to just below 2^32 by
// RESET, which makes the kernel catch up with the producer index (at most
// a ring ahead); then WQEs are posted across the wrap and must behave.
void op_wrap(Env &e, Pool &p, Rng &rng)
{
	(void)p;
	FQp q;
	std::vector<Posted> posted, recvs;
	std::vector<ibv_wc> wcs;
	constexpr uint32_t kDepth = 16384;	// the largest ring: fewest RESETs
	constexpr uint32_t kCross = 64;		// WQEs posted across the wrap
	ibv_qp_attr a{};
	auto t0 = std::chrono::steady_clock::now();
	uint32_t resets = 0;

	e.cls = kWrap;
	e.t().ops++;
	fqp_create(e, q, IBV_QPT_UD, nullptr, 0, kDepth);
	uint32_t num = q.sq.r.num, target = 0u - kCross / 2;

	a.qp_state = IBV_QPS_RESET;
	for (uint32_t at = q.sq.consumer(); at != target; resets++) {
		uint32_t step = target - at < num ? target - at : num;

		q.sq.publish(at + step);
		q.rq.publish(at + step);
		if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE)) {
			unexpected(e, "modify_qp RESET at %#x: %s", at, strerror(errno));
			break;
		}
		if (q.sq.consumer() != at + step || q.rq.consumer() != at + step) {
			unexpected(e, "RESET with producers at %#x left consumers at %#x/%#x",
				   at + step, q.sq.consumer(), q.rq.consumer());
			break;
		}
		at += step;
	}
	printf("wrap: %u RESETs in %.1f s took the rings to %#x\n", resets,
	       std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
	       q.sq.consumer());
	if (q.sq.consumer() == target && fqp_arm(e, q, true)) {
		uint32_t base = q.sq.mine();

		for (uint32_t i = 0; i < kCross; i++) {
			uint8_t *slot = q.rq.slot(base + i);

			slot_good_recv(e, slot, tag(e, 0x8000 + i), 512u << 10, 4096);
			recvs.push_back({tag(e, 0x8000 + i), false, describe_recv(slot)});
		}
		q.rq.publish(base + kCross);
		for (uint32_t i = 0; i < kCross - 1; i++) {
			slot_good_send(e, q, q.sq.slot(base + i), tag(e, i), rng);
			posted.push_back({tag(e, i), false, "a good UD SEND"});
		}
		q.sq.publish(base + kCross - 1);
		if (finish_sends(e, q, posted, wcs)) {
			for (const ibv_wc &w : wcs)
				if (w.status != IBV_WC_SUCCESS)
					unexpected(e, "a good UD SEND across 2^32: %s",
						   ibv_wc_status_str(w.status));
		}
		// receives across 2^32: all flushed, in order
		wcs.clear();
		a.qp_state = IBV_QPS_ERR;
		if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE))
			unexpected(e, "modify_qp ERR: %s", strerror(errno));
		poll_for(e, q.cq, wcs, e.wc_timeout_ms, recvs.size());
		check_wcs(e, recvs, wcs, true);
	}
	fqp_destroy(e, q);
}

}  // namespace ufz
