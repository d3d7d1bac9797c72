// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Torn writes: a second thread rewrites the fields the kernel checks
// (counts, lengths, flags, keys, opcodes) and the producer index while the
// first publishes, rings and flushes, so that the kernel reads slots as
// they change under it. A kernel that read a field twice (checked one
// value, used another) would copy past a slot or a buffer; the log and
// KASAN tell. Here: every completion names a WQE that was posted, once,
// in order, and the rings keep working. The race is real only with two
// CPUs (bed up --smp 2); on one, the kernel's copy of a slot cannot be
// interrupted by the flipper, which then only rewrites slots between the
// kernel's looks (RC rings are pulled from softirq, at any moment).

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "ufuzz.h"

namespace ufz {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kWin = 8;	// slots rewritten at a time

void store32(void *p, uint32_t v)
{
	__atomic_store_n(static_cast<uint32_t *>(p), v, __ATOMIC_RELAXED);
}

// The second thread: flips words of slots [base, base + kWin) of @r and,
// now and then, the producer index to a bogus value or back to one the
// first thread had published (never beyond it: the kernel may only ever
// have seen indices the first thread can account for).
struct Flipper {
	Ring &r;
	bool send;
	uint32_t good_lkey, max_inline;
	std::atomic<uint32_t> base{0}, published{0};
	std::atomic<bool> stop{false}, index_ok{true};
	std::atomic<uint64_t> loops{0};
	std::thread t;

	Flipper(Ring &ring, bool is_send, uint32_t lkey, uint32_t inl)
		: r(ring), send(is_send), good_lkey(lkey), max_inline(inl)
	{
	}

	void run(uint64_t seed)
	{
		t = std::thread([this, seed] { loop(seed); });
	}

	void finish()
	{
		stop = true;
		t.join();
	}

	// No more producer indices from the flipper: once it has gone round
	// twice, none it chose before is still to be stored.
	void hold_index()
	{
		index_ok = false;
		for (uint64_t n = loops; loops < n + 2;)
			usleep(10);
	}

	void loop(uint64_t seed)
	{
		Rng g(seed);

		while (!stop.load(std::memory_order_relaxed)) {
			uint32_t b = base.load(std::memory_order_relaxed);
			uint8_t *slot = r.slot(b + static_cast<uint32_t>(g.below(kWin)));

			if (g.below(16) == 0) {
				uint32_t p = published.load(std::memory_order_relaxed);

				if (index_ok)
					r.poke_producer(g.pct(50) ? p + r.r.num + 1 + g.u32() % 1024 :
								    b + static_cast<uint32_t>(g.below(p - b + 1)));
			} else if (send) {
				flip_send(g, reinterpret_cast<metaroce_send_wqe *>(slot));
			} else {
				flip_recv(g, reinterpret_cast<metaroce_recv_wqe *>(slot));
			}
			loops++;
		}
	}

	void flip_send(Rng &g, metaroce_send_wqe *w)
	{
		auto *s = reinterpret_cast<metaroce_sge *>(w + 1);

		switch (g.below(7)) {
		case 0:
			store32(&w->num_sge, g.pick({1u, kMaxSge, kMaxSge + 1, 0xffffffffu, 0u}));
			break;
		case 1:
			store32(&w->send_flags,
				g.pick({uint32_t{IBV_SEND_SIGNALED},
					uint32_t{IBV_SEND_SIGNALED | IBV_SEND_INLINE}, 0xffffffffu,
					uint32_t{IBV_SEND_INLINE}}));
			break;
		case 2:
			store32(&w->length, g.pick({8u, max_inline, max_inline + 1, 0xffffffffu}));
			break;
		case 3:
			store32(&w->opcode, g.pick({uint32_t{IBV_WR_SEND}, uint32_t{IBV_WR_RDMA_WRITE},
						    0x55u, uint32_t{IBV_WR_ATOMIC_FETCH_AND_ADD}}));
			break;
		case 4:
			store32(&s[g.below(kMaxSge)].length, g.pick({8u, 0xffffffffu, 0x80000000u}));
			break;
		case 5:
			store32(&s[g.below(kMaxSge)].lkey, g.pct(50) ? good_lkey : g.u32());
			break;
		default:
			store32(&w->wr.ud.ah_num, g.u32());
			break;
		}
	}

	void flip_recv(Rng &g, metaroce_recv_wqe *w)
	{
		auto *s = reinterpret_cast<metaroce_sge *>(w + 1);

		switch (g.below(3)) {
		case 0:
			store32(&w->num_sge, g.pick({1u, kMaxSge, kMaxSge + 1, 0xffffffffu, 0u}));
			break;
		case 1:
			store32(&s[g.below(kMaxSge)].length, g.pick({4096u, 0xffffffffu, 0u}));
			break;
		default:
			store32(&s[g.below(kMaxSge)].lkey, g.pct(50) ? good_lkey : g.u32());
			break;
		}
	}
};

void torn_sq(Env &e, FQp &q, Rng &rng)
{
	std::vector<Posted> posted;
	std::vector<ibv_wc> wcs;
	Flipper f(q.sq, true, e.mr->lkey, q.max_inline);
	uint32_t rounds = 4 + static_cast<uint32_t>(rng.below(16)), n = 0;

	if (!fqp_arm(e, q))
		return;
	f.base = q.sq.mine();
	f.published = q.sq.mine();
	f.run(rng.next());
	for (uint32_t round = 0; round < rounds; round++) {
		uint32_t base = q.sq.mine();
		auto end = Clock::now() + std::chrono::milliseconds(500);

		for (uint32_t i = 0; i < kWin; i++, n++) {
			slot_good_send(e, q, q.sq.slot(base + i), tag(e, n), rng);
			posted.push_back({tag(e, n), false, "a slot rewritten while read"});
		}
		f.base = base;
		f.published = base + kWin;
		// on one CPU the flipper runs only while this thread sleeps
		usleep(static_cast<useconds_t>(rng.below(200)));
		q.sq.publish(base + kWin);
		ring_sq(q);
		// the next window only once the kernel is done with this one
		while (q.sq.consumer() != base + kWin && Clock::now() < end) {
			poll_for(e, q.cq, wcs, 1);
			q.sq.publish(base + kWin);
			ring_sq(q);
		}
		if (q.sq.consumer() != base + kWin)
			break;
	}
	f.finish();
	q.sq.publish(q.sq.mine());
	if (!finish_sends(e, q, posted, wcs))
		fqp_renew(e, q);
}

void torn_rq(Env &e, FQp &q, Rng &rng)
{
	Flipper f(q.rq, false, e.mr->lkey, 0);
	uint32_t rounds = 4 + static_cast<uint32_t>(rng.below(12)), n = 0;
	ibv_qp_attr err{};

	err.qp_state = IBV_QPS_ERR;
	f.run(rng.next());
	for (uint32_t round = 0; round < rounds; round++) {
		std::vector<Posted> posted;
		std::vector<ibv_wc> wcs;

		if (!fqp_reset(e, q) || !fqp_init(e, q))
			break;
		drain_cq(e, q.cq, wcs);
		wcs.clear();
		uint32_t base = q.rq.mine();

		for (uint32_t i = 0; i < kWin; i++, n++) {
			slot_good_recv(e, q.rq.slot(base + i), tag(e, n), 512u << 10, 4096);
			posted.push_back({tag(e, n), false, "a slot rewritten while flushed"});
		}
		f.base = base;
		f.published = base + kWin;
		f.index_ok = true;
		usleep(static_cast<useconds_t>(rng.below(200)));
		q.rq.publish(base + kWin);
		if (ibv_modify_qp(q.qp, &err, IBV_QP_STATE)) {
			unexpected(e, "modify_qp ERR: %s", strerror(errno));
			break;
		}
		// the flush may have seen an older index: what came since
		f.hold_index();
		q.rq.publish(base + kWin);
		ring_rq(q);
		poll_for(e, q.cq, wcs, e.wc_timeout_ms, kWin);
		check_wcs(e, posted, wcs, true);
	}
	f.finish();
}

void torn_srq(Env &e, Rng &rng)
{
	Ring r;
	ibv_srq_attr a{};
	uint32_t n = 0;

	ufz_srq_ring(e.srq, &r.r);
	Flipper f(r, false, e.mr->lkey, 0);
	uint32_t base = r.mine(), out = base - r.consumer();

	if (out + kWin > r.r.num)
		return;
	f.base = base;
	f.published = base;
	f.run(rng.next());
	for (uint32_t i = 0; i < kWin; i++, n++) {
		slot_good_recv(e, r.slot(base + i), tag(e, n), 512u << 10, 4096);
		e.srq_posted.push_back({tag(e, n), false, "a slot rewritten while pulled"});
	}
	f.published = base + kWin;
	for (int round = 0; round < 64; round++) {
		r.publish(base + kWin);
		a.srq_limit = static_cast<uint32_t>(rng.below(out + kWin));
		if (ibv_modify_srq(e.srq, &a, IBV_SRQ_LIMIT))
			note_errno(e, errno);
	}
	f.finish();
	r.publish(base + kWin);
	if (ibv_modify_srq(e.srq, &a, IBV_SRQ_LIMIT))
		note_errno(e, errno);
}

}  // namespace

void op_torn(Env &e, Pool &p, Rng &rng)
{
	e.cls = kTorn;
	e.t().ops++;
	switch (rng.below(5)) {
	case 0:
	case 1:
		torn_sq(e, rng.pct(50) ? p.rc : p.ud, rng);
		break;
	case 2:
	case 3:
		torn_rq(e, rng.pct(50) ? p.rc : p.ud, rng);
		break;
	default:
		torn_srq(e, rng);
		break;
	}
}

}  // namespace ufz
