// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Unit tests of the per-path, congestion, scheduler and connection rules
// (Documentation/protocol/reliability.rst, paths.rst, congestion.rst).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "sim/conn.h"
#include "sim/loopback.h"

extern "C" {
#include "core/conn.h"
}

namespace {

struct Tx {
	mrc_path_cfg cfg;
	mrc_path_tx tx;
	mrc_path_ring ring;
	uint32_t acked[MRC_PATH_WND], lost[MRC_PATH_WND];
	mrc_path_events ev = {acked, lost, 0, 0, 0, 0, 0};

	explicit Tx(uint32_t isn = 0)
	{
		mrc_path_cfg_default(&cfg);
		mrc_path_tx_init(&tx, &cfg, isn, &ring);
	}
	uint32_t send(uint64_t now, uint32_t cookie)
	{
		return mrc_path_tx_send(&tx, &cfg, now, cookie, 1000);
	}
	mrc_path_ack_result ack(uint64_t now, uint32_t cum,
				std::vector<uint32_t> sacked = {}, uint64_t rtt = 0)
	{
		mrc_sack s = {};

		s.cum = cum;
		for (uint32_t p : sacked) {
			uint32_t i = p - cum - 1;

			s.bits[i / 64] |= 1ull << (i % 64);
		}
		return mrc_path_tx_on_ack(&tx, &cfg, now, &s, rtt, &ev);
	}
};

} // namespace

// [REL-1] every send takes the next PSN, across the 2^32 wrap
TEST(PathTx, PsnPerSendAndWrap)
{
	Tx t(0xfffffffeu);

	EXPECT_EQ(t.send(0, 1), 0xfffffffeu);
	EXPECT_EQ(t.send(0, 2), 0xffffffffu);
	EXPECT_EQ(t.send(0, 3), 0u);
	EXPECT_EQ(t.tx.inflight_pkts, 3u);
}

// [REL-4] cumulative point and bitmap acknowledge; [REL-8] a gap is loss
TEST(PathTx, SackAndGapLoss)
{
	Tx t;

	for (uint32_t i = 0; i < 6; i++)
		t.send(0, 100 + i);
	// PSN 0 received (cum 1), 1 missing, 2 and 4 received
	ASSERT_EQ(t.ack(10, 1, {2, 4}), MRC_ACK_OK);
	EXPECT_EQ(t.ev.n_acked, 3u);
	ASSERT_EQ(t.ev.n_lost, 2u);	// 1 and 3 trail PSN 4
	EXPECT_EQ(t.ev.lost[0], 101u);
	EXPECT_EQ(t.ev.lost[1], 103u);
	EXPECT_EQ(t.tx.inflight_pkts, 1u);	// only 5
	EXPECT_EQ(t.tx.snd_una, 5u);
}

// [REL-8] reorder_pkts > 1 tolerates that much reordering inside a path
TEST(PathTx, ReorderThreshold)
{
	Tx t;

	t.cfg.reorder_pkts = 3;
	mrc_path_tx_init(&t.tx, &t.cfg, 0, &t.ring);
	for (uint32_t i = 0; i < 6; i++)
		t.send(0, i);
	t.ack(10, 0, {1, 2});
	EXPECT_EQ(t.ev.n_lost, 0u);
	t.ack(11, 0, {1, 2, 3});
	EXPECT_EQ(t.ev.n_lost, 1u);
}

// [REL-7] an ACK of a PSN never sent is refused and changes nothing
TEST(PathTx, InvalidAckIgnored)
{
	Tx t;

	t.send(0, 1);
	t.send(0, 2);
	EXPECT_EQ(t.ack(10, 3), MRC_ACK_INVALID);
	EXPECT_EQ(t.ack(10, 0, {2}), MRC_ACK_INVALID);
	EXPECT_EQ(t.tx.inflight_pkts, 2u);
}

// [REL-9] a lost packet acknowledged later is a late ack, reported again
TEST(PathTx, LateAckOfLostPacket)
{
	Tx t;

	for (uint32_t i = 0; i < 4; i++)
		t.send(0, 10 + i);
	t.ack(10, 1, {3});		// 0 and 3 received: 1 and 2 lost
	ASSERT_EQ(t.ev.n_lost, 2u);
	t.ack(20, 1, {2, 3});		// 2 arrived after all
	EXPECT_EQ(t.ev.n_late, 1u);
	ASSERT_EQ(t.ev.n_acked, 1u);
	EXPECT_EQ(t.ev.acked[0], 12u);
	// cum passing lost PSN 1: the receiver cannot have abandoned it
	// (nothing 257 after it was sent), so it arrived late too
	t.ack(30, 4);
	EXPECT_EQ(t.ev.n_late, 1u);
	ASSERT_EQ(t.ev.n_acked, 1u);
	EXPECT_EQ(t.ev.acked[0], 11u);
	// [REL-8] the path now tolerates the displacement it saw
	EXPECT_GE(t.tx.reorder, 2u);
}

// [CC-14] a late ACK reports the bytes whose loss fed the loss average: a
// gap's or a probe timeout's, not an RTO's (which feeds none), and none
// sent on a route the path has since left
TEST(PathTx, LateBytesOnlyWhatTheAverageCounted)
{
	{
		Tx t;

		for (uint32_t i = 0; i < 4; i++)
			t.send(0, 10 + i);
		t.ack(10, 1, {3});	// 1 and 2 lost to the gap
		ASSERT_EQ(t.ev.lost_bytes, 2000u);
		t.ack(20, 1, {2, 3});
		EXPECT_EQ(t.ev.n_late, 1u);
		EXPECT_EQ(t.ev.late_bytes, 1000u);
	}
	{
		Tx t;

		t.send(0, 1);
		uint64_t rto = t.tx.rto_deadline;
		ASSERT_EQ(mrc_path_tx_on_timer(&t.tx, &t.cfg, rto, &t.ev),
			  MRC_TIMER_RTO);
		t.ack(rto + 10, 1);
		EXPECT_EQ(t.ev.n_late, 1u);
		EXPECT_EQ(t.ev.late_bytes, 0u);
	}
	{
		Tx t;

		t.send(0, 1);
		t.ack(20000, 1, {}, 20000);
		t.send(30000, 2);
		uint64_t pto = t.tx.pto_deadline;
		ASSERT_EQ(mrc_path_tx_on_timer(&t.tx, &t.cfg, pto, &t.ev),
			  MRC_TIMER_PTO);
		t.ack(pto + 2, 2, {}, 20000);
		EXPECT_EQ(t.ev.n_late, 1u);
		EXPECT_EQ(t.ev.late_bytes, 1000u);
	}
	{
		Tx t;

		for (uint32_t i = 0; i < 4; i++)
			t.send(0, 10 + i);
		t.ack(10, 1, {3});
		// lost on the old route, late on the new one: not its loss
		mrc_path_tx_reset_rtt(&t.tx, &t.cfg);
		t.ack(20, 4);
		EXPECT_EQ(t.ev.n_late, 2u);
		EXPECT_EQ(t.ev.late_bytes, 0u);
	}
}

// [REL-4] while a hole stays open every ACK repeats the bits above it;
// the sender looks at each received PSN once, not once per ACK, and the
// repeats change nothing
TEST(PathTx, RepeatedSackBitsLookedAtOnce)
{
	Tx t;
	std::vector<uint32_t> got;

	t.cfg.reorder_pkts = 255;	// keep the hole in flight
	mrc_path_tx_init(&t.tx, &t.cfg, 0, &t.ring);
	for (uint32_t i = 0; i < 200; i++)
		t.send(0, i);
	// PSN 0 missing; 1..199 arrive, an ACK every 8
	uint32_t acked = 0;
	for (uint32_t p = 1; p < 200; p++) {
		got.push_back(p);
		if (p % 8 && p != 199)
			continue;
		ASSERT_EQ(t.ack(p, 0, got), MRC_ACK_OK);
		acked += t.ev.n_acked;
	}
	EXPECT_EQ(acked, 199u);
	EXPECT_EQ(t.tx.sack_walked, 199u);	// once per PSN, not ~25 times
	ASSERT_EQ(t.ack(300, 0, got), MRC_ACK_OK);
	EXPECT_EQ(t.ev.n_acked, 0u);
	EXPECT_EQ(t.tx.sack_walked, 199u);
	EXPECT_EQ(t.tx.inflight_pkts, 1u);
	// the hole filled: cum passes everything
	ASSERT_EQ(t.ack(301, 200), MRC_ACK_OK);
	ASSERT_EQ(t.ev.n_acked, 1u);
	EXPECT_EQ(t.ev.acked[0], 0u);
	EXPECT_EQ(t.tx.inflight_pkts, 0u);
}

// The acked map mirrors the slots across PSN reuse and the 2^32 wrap:
// random sends, repeated and stale ACKs, timers and late arrivals,
// checked after every step
TEST(PathTx, AckedMapMirrorsSlots)
{
	for (uint32_t isn : {0u, 0xffffff00u}) {
		Tx t(isn);
		std::mt19937_64 rng(isn + 7);
		std::vector<uint8_t> rcvd;	// by PSN - isn
		uint64_t now = 0;

		for (int step = 0; step < 20000; step++) {
			now += 1000;
			uint32_t op = rng() % 8;

			if (op < 4 && t.tx.snd_nxt - t.tx.snd_una < MRC_PATH_WND) {
				uint32_t psn = t.send(now, step);

				rcvd.resize(psn - isn + 1, 0);
				if (rng() % 10)	// 10% lost
					rcvd[psn - isn] = 1;
			} else if (op < 7 && !rcvd.empty()) {
				// an ACK as the receiver would send it, maybe stale
				uint32_t end = (uint32_t)rcvd.size();
				uint32_t upto = end - (uint32_t)(rng() % std::min(end, 40u));
				uint32_t cum = 0;
				while (cum < upto && rcvd[cum])
					cum++;
				// [REL-5] the receiver's window slides past old holes
				if (upto - cum > MRC_SACK_BITS)
					cum = upto - MRC_SACK_BITS;
				std::vector<uint32_t> sacked;
				for (uint32_t i = cum + 1; i < upto; i++)
					if (rcvd[i])
						sacked.push_back(isn + i);
				t.ack(now, isn + cum, sacked);
			} else {
				mrc_path_tx_on_timer(&t.tx, &t.cfg, now + 1000000000, &t.ev);
				// now and then a packet given up arrives after all
				if (!rcvd.empty() && rng() % 4 == 0)
					rcvd[rng() % rcvd.size()] = 1;
			}
			for (uint32_t k = 0; k < MRC_PATH_WND; k++) {
				uint32_t psn = t.tx.snd_nxt - MRC_PATH_WND + k;
				bool bit = t.ring.acked_map[psn % MRC_PATH_WND / 64] >>
					   (psn % 64) & 1;

				ASSERT_EQ(bit, t.ring.slot[psn % MRC_PATH_WND].state ==
						       MRC_SLOT_ACKED)
					<< "step " << step << " psn " << psn;
			}
		}
		EXPECT_GT(t.tx.acked_pkts, 1000u);
		EXPECT_GT(t.tx.late_acks, 0u);	// lost, then acked: LOST -> ACKED
	}
}

// [REL-5] a cum that may come from a slide says nothing about lost PSNs
TEST(PathTx, SlidCumTellsNothing)
{
	Tx t;

	t.send(0, 1);			// PSN 0
	t.send(0, 2);			// PSN 1
	t.ack(10, 0, {1});		// PSN 0 lost
	ASSERT_EQ(t.ev.n_lost, 1u);
	// the window is full with 2..257; the receiver gets 257 > cum + 256,
	// slides past the hole at 0 and ends up with everything up to 257
	for (uint32_t i = 2; i < 258; i++)
		t.send(20, i);
	EXPECT_EQ(mrc_path_tx_room(&t.tx), 0u);
	t.ack(30, 258);
	EXPECT_EQ(t.ev.n_acked, 256u);
	EXPECT_EQ(t.ev.n_late, 0u);
}

// [REL-3] [REL-10] RFC 6298 estimator and backoff, [REL-11] reset on progress
TEST(PathTx, RtoEstimatorAndBackoff)
{
	Tx t;

	t.cfg.rto_min_ns = 1000;
	t.send(0, 1);
	EXPECT_EQ(t.tx.rto_deadline, t.cfg.rto_init_ns);
	t.ack(100000, 1, {}, 100000);
	EXPECT_EQ(t.tx.srtt_ns, 100000u);
	EXPECT_EQ(t.tx.rttvar_ns, 50000u);
	EXPECT_EQ(t.tx.rto_ns, 300000u);	// srtt + 4 rttvar
	t.send(200000, 2);
	uint64_t rto = t.tx.rto_ns;
	EXPECT_EQ(mrc_path_tx_on_timer(&t.tx, &t.cfg, 200000 + rto, &t.ev),
		  MRC_TIMER_RTO);
	EXPECT_EQ(t.ev.n_lost, 1u);
	EXPECT_EQ(t.tx.rto_ns, 2 * rto);
	EXPECT_EQ(t.tx.retries, 1u);
	t.send(900000, 3);
	t.ack(950000, 3, {}, 50000);
	EXPECT_EQ(t.tx.retries, 0u);
	EXPECT_LT(t.tx.rto_ns, 2 * rto);
}

// [REL-10] the probe timeout fires before the RTO and does not back off
TEST(PathTx, ProbeTimeout)
{
	Tx t;

	t.send(0, 1);
	t.ack(20000, 1, {}, 20000);
	t.send(30000, 2);
	uint64_t pto = t.tx.pto_deadline;
	ASSERT_NE(pto, 0u);
	EXPECT_LT(pto, t.tx.rto_deadline);
	uint64_t rto = t.tx.rto_ns;
	EXPECT_EQ(mrc_path_tx_on_timer(&t.tx, &t.cfg, pto, &t.ev), MRC_TIMER_PTO);
	EXPECT_EQ(t.ev.n_lost, 1u);
	EXPECT_EQ(t.tx.rto_ns, rto);
	EXPECT_EQ(t.tx.retries, 0u);
	EXPECT_NE(t.tx.rto_deadline, 0u);	// still watching for silence
	// [REL-8] its false alarm (the ACK was late) is not reordering
	t.send(pto + 1, 3);
	t.ack(pto + 2, 3, {}, 20000);
	EXPECT_EQ(t.tx.late_acks, 1u);
	EXPECT_EQ(t.tx.reorder, 1u);
}

// [REL-10] a PTO with several packets in flight resends only the newest
// (a probe); an RTO presumes all of them lost
TEST(PathTx, ProbeResendsOnlyTheNewest)
{
	Tx t;

	t.send(0, 1);
	t.ack(20000, 1, {}, 20000);
	for (uint32_t c = 10; c < 14; c++)
		t.send(30000, c);
	ASSERT_EQ(mrc_path_tx_on_timer(&t.tx, &t.cfg, t.tx.pto_deadline, &t.ev),
		  MRC_TIMER_PTO);
	ASSERT_EQ(t.ev.n_lost, 1u);
	EXPECT_EQ(t.ev.lost[0], 13u);
	EXPECT_EQ(t.tx.inflight_pkts, 3u);
	ASSERT_EQ(mrc_path_tx_on_timer(&t.tx, &t.cfg, t.tx.rto_deadline, &t.ev),
		  MRC_TIMER_RTO);
	EXPECT_EQ(t.ev.n_lost, 3u);
	EXPECT_EQ(t.tx.inflight_pkts, 0u);
}

// [REL-5] receiver window: in order, holes, duplicates, forced slide
TEST(PathRx, WindowAndSlide)
{
	mrc_path_rx rx;
	mrc_path_cfg cfg;
	mrc_sack s;
	uint32_t ce, tsecr, delay;

	mrc_path_cfg_default(&cfg);
	mrc_path_rx_init(&rx, 1000);
	EXPECT_EQ(mrc_path_rx_check(&rx, 1000), MRC_RX_PSN_NEW);
	mrc_path_rx_accept(&rx, 0, 1000, false, 0, false);
	mrc_path_rx_accept(&rx, 0, 1002, false, 0, false);
	EXPECT_EQ(mrc_path_rx_check(&rx, 1002), MRC_RX_PSN_DUP);
	EXPECT_EQ(mrc_path_rx_check(&rx, 999), MRC_RX_PSN_DUP);
	EXPECT_EQ(rx.cum, 1001u);
	EXPECT_TRUE(mrc_path_rx_ack_due(&rx, &cfg, 0));	// [REL-13] hole
	mrc_path_rx_build_ack(&rx, 0, &s, &ce, &tsecr, &delay);
	EXPECT_EQ(s.cum, 1001u);
	EXPECT_EQ(s.bits[0], 1ull);	// PSN 1002 = cum + 1 + 0
	// the sender moved 300 past the hole: slide
	mrc_path_rx_accept(&rx, 0, 1300, false, 0, false);
	EXPECT_EQ(rx.cum, 1300u - 256);
	EXPECT_EQ(rx.slides, 1u);
	EXPECT_EQ(rx.rx_skipped, 1u + (1300 - 1003));	// 1001, 1003..1299
	EXPECT_EQ(rx.rx_late, 0u);
	EXPECT_EQ(mrc_path_rx_check(&rx, 1001), MRC_RX_PSN_DUP);
	EXPECT_EQ(mrc_path_rx_check(&rx, 1000 + MRC_PATH_MAX_JUMP * 2), MRC_RX_PSN_OOW);
}

// telemetry: a PSN jumped over is a hole; one that fills it came late
TEST(PathRx, LateAndSkipped)
{
	mrc_path_rx rx;

	mrc_path_rx_init(&rx, 0);
	mrc_path_rx_accept(&rx, 0, 0, false, 0, false);
	mrc_path_rx_accept(&rx, 0, 3, false, 0, false);	// 1, 2 skipped
	EXPECT_EQ(rx.rx_skipped, 2u);
	mrc_path_rx_accept(&rx, 0, 2, false, 0, false);	// late
	mrc_path_rx_accept(&rx, 0, 4, false, 0, false);
	EXPECT_EQ(rx.rx_skipped, 2u);
	EXPECT_EQ(rx.rx_late, 1u);
	EXPECT_EQ(rx.rx_new, 4u);
	EXPECT_EQ(rx.cum, 1u);		// PSN 1 still missing
	EXPECT_EQ(rx.next, 5u);
}

// [REL-13] coalescing: every ack_every packets or after ack_delay
TEST(PathRx, AckCoalescing)
{
	mrc_path_rx rx;
	mrc_path_cfg cfg;

	mrc_path_cfg_default(&cfg);
	mrc_path_rx_init(&rx, 0);
	mrc_path_rx_accept(&rx, 100, 0, false, 0, false);
	EXPECT_FALSE(mrc_path_rx_ack_due(&rx, &cfg, 100));
	EXPECT_TRUE(mrc_path_rx_ack_due(&rx, &cfg, 100 + cfg.ack_delay_ns));
	for (uint32_t p = 1; p < cfg.ack_every; p++)
		mrc_path_rx_accept(&rx, 100, p, false, 0, false);
	EXPECT_TRUE(mrc_path_rx_ack_due(&rx, &cfg, 100));
}

// [CC-4] DCTCP decrease at the end of a marked round; [CC-7] loss alone no
TEST(CC, EcnCutsLossDoesNot)
{
	mrc_cc_cfg cfg;
	mrc_cc_path p;
	mrc_cc_conn c;

	mrc_cc_cfg_default(&cfg, 4096);
	mrc_cc_path_init(&p, &cfg, 0);
	mrc_cc_conn_init(&c, &cfg, 0);
	uint32_t w0 = p.cwnd;
	// a round with 10% random loss and no marks: no decrease
	mrc_cc_on_loss(&p, 4096);
	mrc_cc_on_ack(&p, &c, &cfg, 1, 50000, 9 * 4096, 0, 20000, 20000, 0);
	EXPECT_GE(p.cwnd, w0);
	EXPECT_EQ(p.decreases_loss, 0u);
	// a marked round: cwnd (1 - alpha/2) with alpha near 1
	uint32_t w1 = p.cwnd;
	mrc_cc_on_ack(&p, &c, &cfg, 1, 100000, 4096, 4096, 20000, 20000, 0);
	EXPECT_EQ(p.decreases_ecn, 1u);
	EXPECT_LT(p.cwnd, w1 * 6 / 10);
	EXPECT_TRUE(p.congested);
}

namespace {

// One path's congestion state fed round by round: @lost bytes declared
// lost, then an ACK of @acked bytes (@marked of them) one round later.
struct CcRounds {
	mrc_cc_cfg cfg;
	mrc_cc_path p;
	mrc_cc_conn c;
	uint64_t now = 0;
	static constexpr uint64_t round = 20000;

	CcRounds()
	{
		mrc_cc_cfg_default(&cfg, 4096);
		mrc_cc_path_init(&p, &cfg, 0);
		mrc_cc_conn_init(&c, &cfg, 0);
	}
	void next(uint32_t lost, uint32_t acked, uint32_t marked = 0)
	{
		if (lost)
			mrc_cc_on_loss(&p, lost);
		now += round;
		mrc_cc_on_ack(&p, &c, &cfg, 1, now, acked, marked,
			      acked ? round : 0, round, 0);
	}
};

} // namespace

// [CC-5] in congestion avoidance the connection window grows one segment
// per window acknowledged, or with conn_ai_paths one per path acked in the
// round before
TEST(CC, ConnWindowGrowsWithItsPaths)
{
	for (uint32_t per_path : {0u, 1u}) {
		mrc_cc_cfg cfg;
		mrc_cc_path p[8];
		mrc_cc_conn c;
		const uint64_t round = 20000;
		uint64_t now = 0;

		mrc_cc_cfg_default(&cfg, 4096);
		cfg.conn_ai_paths = per_path;
		mrc_cc_conn_init(&c, &cfg, 0);
		for (auto &x : p)
			mrc_cc_path_init(&x, &cfg, 0);
		c.cwnd = c.ssthresh = 64 * 4096;	// congestion avoidance
		for (int r = 0; r < 11; r++) {
			uint32_t w = c.cwnd;

			now += round;
			// each path acks an eighth of the window, unmarked
			for (uint32_t i = 0; i < 8; i++)
				mrc_cc_on_ack(&p[i], &c, &cfg, 1u << i, now + i,
					      w / 8, 0, round, round, c.cwnd);
			if (!r)
				continue;	// the first round counts the paths
			EXPECT_EQ(c.cwnd - w, (per_path ? 8 : 1) * 4096u)
				<< "conn_ai_paths " << per_path << ", round " << r;
		}
	}
}

// [CC-14] a loss acknowledged after all leaves the loss average: out of
// its round's count while the round runs, out of the average once it
// ended; and a loss cut that only late losses made is undone
TEST(CC, LateLossesLeaveTheAverage)
{
	CcRounds t;
	mrc_cc_path &p = t.p;

	// late within its round: the round counts no loss
	mrc_cc_on_loss(&p, 4096);
	mrc_cc_on_late(&p, &t.cfg, 4096);
	t.next(0, 9 * 4096);
	EXPECT_EQ(p.loss_pm, 0u);
	// late after its round ended: the average gives back its weight
	t.next(4096, 9 * 4096);
	ASSERT_EQ(p.loss_pm, 12u);	// 100 per mille at gain 1/8
	mrc_cc_on_late(&p, &t.cfg, 4096);
	EXPECT_EQ(p.loss_pm, 0u);
	// a real loss stays: one of two taken back leaves about half
	t.next(2 * 4096, 8 * 4096);
	ASSERT_EQ(p.loss_pm, 25u);
	mrc_cc_on_late(&p, &t.cfg, 4096);
	EXPECT_EQ(p.loss_pm, 13u);
	// rounds that lose everything push the average past loss_tol: cuts
	uint32_t w0 = p.cwnd, s0 = p.ssthresh;
	while (!p.decreases_loss)
		t.next(8 * 4096, 0);
	EXPECT_LT(p.cwnd, w0);
	// every one of them arrives after all: the cut is undone
	mrc_cc_on_late(&p, &t.cfg, 8 * 4096);
	EXPECT_EQ(p.cwnd, w0);
	EXPECT_EQ(p.ssthresh, s0);
	EXPECT_EQ(p.undos_loss, 1u);
	EXPECT_LE(p.loss_pm, t.cfg.loss_tol_pm);
}

// [CC-14] the loss and mark averages of a route that stopped losing and
// marking fall to 0 (rounded down they stuck at up to 7 per mille, and
// [PATH-10] read the route as pressing its path for good)
TEST(CC, AveragesFallToZero)
{
	CcRounds t;

	t.next(4096, 4096, 4096);
	ASSERT_GT(t.p.loss_pm, 0u);
	ASSERT_GT(t.p.mark_pm, 0u);
	for (int r = 0; r < 200; r++)
		t.next(0, 4096);
	EXPECT_EQ(t.p.loss_pm, 0u);
	EXPECT_EQ(t.p.mark_pm, 0u);
}

// [CC-6] a round whose least RTT sample is inflated counts as marked
TEST(CC, StandingDelayReadAsMarks)
{
	mrc_cc_cfg cfg;
	mrc_cc_path p;
	mrc_cc_conn c;

	mrc_cc_cfg_default(&cfg, 4096);
	mrc_cc_path_init(&p, &cfg, 0);
	mrc_cc_conn_init(&c, &cfg, 0);
	// rounds of 20 us (the srtt); the base RTT is 20 us, the limit 220 us
	mrc_cc_on_ack(&p, &c, &cfg, 1, 1000, 4096, 0, 20000, 20000, 0);
	// a high sample in a round that also saw the base: jitter
	mrc_cc_on_ack(&p, &c, &cfg, 1, 30000, 4096, 0, 20000 + 500000, 20000, 0);
	EXPECT_EQ(p.decreases_ecn, 0u);
	// a round whose least sample is 420 us stood on a queue
	mrc_cc_on_ack(&p, &c, &cfg, 1, 40000, 4096, 0, 20000 + 500000, 20000, 0);
	mrc_cc_on_ack(&p, &c, &cfg, 1, 60000, 4096, 0, 20000 + 400000, 20000, 0);
	EXPECT_EQ(p.decreases_ecn, 1u);
	EXPECT_TRUE(p.congested);
	// one sample back at the base: the next round is clean
	mrc_cc_on_ack(&p, &c, &cfg, 1, 70000, 4096, 0, 20000 + 500000, 20000, 0);
	mrc_cc_on_ack(&p, &c, &cfg, 1, 75000, 4096, 0, 20000, 20000, 0);
	mrc_cc_on_ack(&p, &c, &cfg, 1, 90000, 4096, 0, 20000 + 500000, 20000, 0);
	EXPECT_EQ(p.decreases_ecn, 1u);
	EXPECT_FALSE(p.congested);
}

// A connection of @npaths paths over one bottleneck, driven round by round:
// each round puts the windows in flight (capped by the connection's) and
// every segment's ACK carries the RTT that @rtt_of gives for the total.
struct CcModel {
	static constexpr uint32_t kMss = 8192;
	mrc_cc_cfg cfg;
	std::vector<mrc_cc_path> p;
	mrc_cc_conn c;
	uint64_t now = 1;
	uint64_t cuts = 0;	// path decreases in the rounds run so far
	uint64_t max_rtt = 0;	// the highest round RTT since reset

	CcModel(uint32_t epoch_rounds, uint32_t npaths = 1) : p(npaths)
	{
		mrc_cc_cfg_default(&cfg, kMss);
		cfg.delay_target_ns = 10000000;	// 10 ms, the bed's floor
		cfg.base_epoch_rounds = epoch_rounds;
		for (auto &path : p)
			mrc_cc_path_init(&path, &cfg, now);
		mrc_cc_conn_init(&c, &cfg, now);
		c.npaths = npaths;
	}
	uint32_t inflight() const
	{
		uint32_t sum = 0;

		for (const auto &path : p)
			sum += path.cwnd;
		return std::min(sum, mrc_cc_conn_window(&c, &cfg));
	}
	template <typename F> void rounds(int n, F rtt_of)
	{
		for (int r = 0; r < n; r++) {
			uint32_t w = inflight(), sum = 0;
			uint64_t rtt = rtt_of(w);

			for (const auto &path : p)
				sum += path.cwnd;
			for (uint32_t i = 0; i < p.size(); i++) {
				uint64_t before = p[i].decreases_ecn;
				uint32_t share = (uint32_t)((uint64_t)w *
							    p[i].cwnd / sum);
				uint32_t k = std::max(share / kMss, 1u);

				for (uint32_t j = 0; j < k; j++) {
					now += rtt / k / p.size() + 1;
					mrc_cc_on_ack(&p[i], &c, &cfg, 1u << i,
						      now, kMss, 0, rtt, rtt, w);
				}
				cuts += p[i].decreases_ecn - before;
			}
			max_rtt = std::max(max_rtt, rtt);
		}
	}
};

// [CC-6] a delay no cut drains (the host's scheduling, not a queue) raises
// the base within two epochs: the cuts stop and the window regrows. With
// the all-time least sample as the base it starves for good.
TEST(CC, BaseFollowsADelayNoCutDrains)
{
	const uint64_t base = 2000000, host = 11000000;	// 2 ms, then +11 ms

	for (uint32_t epoch : {32u, 0u}) {
		CcModel m(epoch);

		m.rounds(100, [&](uint32_t) { return base; });
		ASSERT_EQ(m.cuts, 0u);
		m.rounds(100, [&](uint32_t) { return base + host; });
		uint64_t cuts_early = m.cuts;
		uint32_t w_mid = m.p[0].cwnd;

		m.rounds(200, [&](uint32_t) { return base + host; });
		if (epoch) {
			EXPECT_GT(cuts_early, 0u);
			EXPECT_EQ(m.cuts, cuts_early) << "cuts after two epochs";
			EXPECT_GT(m.p[0].cwnd, w_mid + 16 * CcModel::kMss);
		} else {
			EXPECT_GT(m.cuts, cuts_early + 100);
			EXPECT_EQ(m.p[0].cwnd, m.cfg.min_cwnd);
		}
	}
}

// [CC-6] a queue of our own, on one path or shared by four: the RTT grows
// with what is in flight past the BDP. DCTCP's cuts alone never empty it,
// but the drain rounds do, so the base stays and the queue stays near the
// target; without the drains the base climbed a target higher (24.6 ms).
TEST(CC, OwnQueueDoesNotLiftTheBase)
{
	const uint64_t base = 2000000, rate = 30;	// 30 bytes/us
	const uint64_t bdp = base / 1000 * rate;
	auto rtt_of = [&](uint32_t w) {
		return base + (w > bdp ? (w - bdp) * 1000 / rate : 0);
	};

	for (uint32_t npaths : {1u, 4u}) {
		CcModel m(32, npaths);

		m.rounds(300, rtt_of);	// slow start overshoots first
		m.max_rtt = 0;
		m.rounds(3000, rtt_of);
		EXPECT_GT(m.cuts, 10u);
		EXPECT_GT(m.c.drains, 3000u / 32 / 2);
		EXPECT_LE(m.max_rtt, 2 * base + m.cfg.delay_target_ns + base / 2)
			<< npaths << " paths";
		for (const auto &path : m.p)
			EXPECT_LE(path.base_prev_ns, base + base / 8);
		// the window sits between the BDP and the allowed queue
		EXPECT_GT(m.inflight(), bdp);
	}
}

// [CC-10] [CC-11] the receiver's share divides capacity by active senders
TEST(CC, RateHintShare)
{
	mrc_cc_share s;
	uint32_t seen[4] = {};

	mrc_cc_share_init(&s, 1250000000ull, 100000, 0);	// 10 Gbit/s
	mrc_cc_share_note(&s, &seen[0], 10);
	EXPECT_EQ(mrc_cc_share_hint(&s, 10), 10000u);
	for (int i = 1; i < 4; i++)
		mrc_cc_share_note(&s, &seen[i], 20);
	EXPECT_EQ(mrc_cc_share_hint(&s, 20), 2500u);
	// next epoch: the previous count still applies
	mrc_cc_share_note(&s, &seen[0], 150000);
	EXPECT_EQ(mrc_cc_share_hint(&s, 150000), 2500u);
	// a whole idle epoch forgets
	EXPECT_EQ(mrc_cc_share_hint(&s, 1000000), 10000u);
}

// [CC-12] the hint caps the connection window at 2 BDP + 2 S
TEST(CC, HintCapsConnectionWindow)
{
	mrc_cc_cfg cfg;
	mrc_cc_conn c;

	mrc_cc_cfg_default(&cfg, 4096);
	mrc_cc_conn_init(&c, &cfg, 0);
	c.min_rtt_ns = 100000;
	mrc_cc_on_hint(&c, 1000);	// 1 Gbit/s = 125 MB/s: BDP 12.5 KB
	uint32_t w = mrc_cc_conn_window(&c, &cfg);
	EXPECT_NEAR(w, 2 * 12500 + 2 * 4096, 200);
}

// [CC-13] in flight: one BDP at the delivered rate (its round trip:
// min_rtt and the receiver's ACK hold) and 1/keep_home of the backlog
// above it, never below the initial connection window; off: no cap
TEST(CC, HomeCapSendsAShareOfTheBacklogAboveOneBdp)
{
	mrc_cc_cfg cfg;
	mrc_cc_conn c;

	mrc_cc_cfg_default(&cfg, 8192);
	EXPECT_EQ(cfg.keep_home, 2u);
	EXPECT_EQ(cfg.keep_home_resp, 3u);
	mrc_cc_conn_init(&c, &cfg, 0);
	// nothing delivered yet: no BDP
	EXPECT_EQ(mrc_cc_conn_home_cap(&c, &cfg, 2621440, 0, cfg.keep_home), 1310720u);
	EXPECT_EQ(mrc_cc_conn_home_cap(&c, &cfg, 65536, 0, cfg.keep_home), cfg.conn_init_cwnd);
	// a round of 10 ms that delivered 1 MB: 100 MB/s; base 2 ms: 200 KB
	c.min_rtt_ns = 2000000;
	c.r_acked = 1000000;
	c.round_start = 0;
	mrc_cc_path p;
	mrc_cc_path_init(&p, &cfg, 0);
	mrc_cc_on_ack(&p, &c, &cfg, 1, 10000000, 0, 0, 0, 10000000, 0);
	EXPECT_EQ(c.rate, 100000000u);
	EXPECT_EQ(mrc_cc_conn_home_cap(&c, &cfg, 2621440, 0, cfg.keep_home),
		  (2621440u + 200000u) / 2);
	// the larger of the last two rounds: one slow round does not shrink it
	c.r_acked = 100000;
	mrc_cc_on_ack(&p, &c, &cfg, 1, 30000000, 0, 0, 0, 10000000, 0);
	EXPECT_EQ(c.rate, 5000000u);
	EXPECT_EQ(mrc_cc_conn_home_cap(&c, &cfg, 2621440, 0, cfg.keep_home),
		  (2621440u + 200000u) / 2);
	// the receiver's ACK hold counts in the round trip: 4 ms more, 400 KB
	EXPECT_EQ(mrc_cc_conn_home_cap(&c, &cfg, 2621440, 4000000, cfg.keep_home),
		  (2621440u + 600000u) / 2);
	// keep_home 3: a third of what is above one BDP goes
	cfg.keep_home = 3;
	EXPECT_EQ(mrc_cc_conn_home_cap(&c, &cfg, 2621440, 4000000, cfg.keep_home),
		  600000u + (2621440u - 600000u) / 3);
	cfg.keep_home = 1;
	EXPECT_EQ(mrc_cc_conn_home_cap(&c, &cfg, 2621440, 0, cfg.keep_home), 0xffffffffu);
}

// [PATH-11] ACKs leave on the port the path's newest accepted packet came
// from; a packet the path refuses moves nothing
TEST(Sched, AcksFollowTheDataPort)
{
	std::unique_ptr<mrcsim::Conn> a(new mrcsim::Conn), b(new mrcsim::Conn);
	mrc_conn_cfg cfg;
	mrc_tx_seg seg;
	mrc_ack_info ack;
	uint32_t msn;

	mrc_conn_cfg_default(&cfg, 2, 1024);
	ASSERT_TRUE(a->init(cfg, 0));
	ASSERT_TRUE(b->init(cfg, 0));
	// before any packet: b's own path's port
	EXPECT_EQ(mrc_conn_ack_sport(b.get(), 0), b->path[0].sport);
	ASSERT_TRUE(mrc_conn_tx_post(a.get(), 0, 3000, 1, &msn));
	ASSERT_TRUE(mrc_conn_tx_next(a.get(), 10, &seg));
	mrc_rx_seg r = mrcsim::rx_of(seg);
	r.sport = 50001;
	ASSERT_EQ(mrc_conn_rx_data(b.get(), 20, &r, nullptr), MRC_RX_NEW);
	EXPECT_EQ(mrc_conn_ack_sport(b.get(), seg.path_id), 50001);
	// implausibly far ahead ([REL-5]): dropped, the port stays
	mrc_rx_seg far = r;
	far.psn += MRC_PATH_MAX_JUMP + 1;
	far.sport = 50002;
	EXPECT_EQ(mrc_conn_rx_data(b.get(), 30, &far, nullptr), MRC_RX_DROP);
	EXPECT_EQ(mrc_conn_ack_sport(b.get(), seg.path_id), 50001);
	ASSERT_TRUE(mrc_conn_ack_next(b.get(), 1000000000, nullptr, &ack));
	EXPECT_EQ(ack.sport, mrc_conn_ack_sport(b.get(), ack.path_id));
}

// [PATH-5] [PATH-7] timeouts fail a path; after the hold it gets a new port
TEST(Sched, FailAndReentropy)
{
	std::unique_ptr<mrcsim::Conn> c(new mrcsim::Conn);
	mrc_conn_cfg cfg;

	mrc_conn_cfg_default(&cfg, 2, 1024);
	ASSERT_TRUE(c->init(cfg, 0));
	EXPECT_NE(c->path[0].sport, c->path[1].sport);	// [PATH-3]
	mrc_path *p = &c->path[0];
	p->tx.retries = cfg.sched.fail_rtos;
	mrc_sched_on_rto(p, 1, 0, &cfg.sched, cfg.path.rto_min_ns, 5);
	EXPECT_EQ(p->state, MRC_PATH_FAILED);
	// [PATH-6] a failed path is skipped
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(mrc_sched_pick(&c->sched, c->path, 2, 1024, true, 0), 1);
	uint16_t old = p->sport;
	EXPECT_EQ(mrc_sched_maintain(&c->sched, &cfg.sched, c->path, 2, &cfg.path,
				     &cfg.cc, 5 + mrc_sched_fail_hold(&cfg.sched, c->path,
									  2, p)), 1u);
	EXPECT_EQ(p->state, MRC_PATH_PROBING);
	EXPECT_NE(p->sport, old);
	// [PATH-4] a packet that may not probe does not while path 1 is in use ...
	EXPECT_EQ(mrc_sched_pick(&c->sched, c->path, 2, 1024, false, 0), 1);
	// ... but with no path in use, it does
	c->path[1].state = MRC_PATH_FAILED;
	EXPECT_EQ(mrc_sched_pick(&c->sched, c->path, 2, 1024, false, 0), 0);
	c->path[1].state = MRC_PATH_ACTIVE;
	c->path[1].tx.inflight_pkts = 0;
	// a probing path with nothing in flight goes first, once
	c->path[0].tx.inflight_pkts = 0;
	EXPECT_EQ(mrc_sched_pick(&c->sched, c->path, 2, 1024, true, 0), 0);
}

// [PATH-5] late is not silent: once a loss of any path of the connection
// was acknowledged after all, 30 ms after the ACK's packet left, neither
// a timeout nor [REL-22]'s losses fail a path silent for less than that;
// silent as long, they do. A timeout short of it is due again then (at
// the RTO floor at least), not a whole backoff later.
TEST(Sched, LateLossesHoldOffFailure)
{
	std::unique_ptr<mrcsim::Conn> c(new mrcsim::Conn);
	mrc_conn_cfg cfg;
	const uint64_t ms = 1000000;

	mrc_conn_cfg_default(&cfg, 2, 1024);
	ASSERT_TRUE(c->init(cfg, 0));
	for (mrc_path &p : c->path) {
		p.tx.srtt_ns = 2 * ms;
		p.tx.last_ack_ns = 100 * ms;
	}
	c->path[1].tx.late_rtt_ns = 30 * ms;
	EXPECT_EQ(mrc_sched_late_rtt(c->path, 2), 30 * ms);
	mrc_path *p = &c->path[0];
	p->tx.retries = cfg.sched.fail_rtos;
	p->tx.rto_ns = 40 * ms;		// backed off
	mrc_sched_on_rto(c->path, 2, 0, &cfg.sched, cfg.path.rto_min_ns,
			 129 * ms);
	EXPECT_EQ(p->state, MRC_PATH_ACTIVE);
	// due again when the silence reaches 30 ms, 1 ms on (or at the
	// floor, 2 ms, which is later), not 40 ms on
	EXPECT_EQ(p->tx.rto_ns, cfg.path.rto_min_ns);
	EXPECT_FALSE(mrc_sched_on_lost(c->path, 2, 0, &cfg.sched,
				       cfg.sched.fail_lost, 129 * ms));
	EXPECT_EQ(p->state, MRC_PATH_ACTIVE);
	EXPECT_TRUE(mrc_sched_on_lost(c->path, 2, 0, &cfg.sched, 1, 130 * ms));
	EXPECT_EQ(p->fail_why, MRC_FAIL_SILENT);
	// the other path's timeout, as long silent, fails it too
	c->path[1].tx.retries = cfg.sched.fail_rtos;
	mrc_sched_on_rto(c->path, 2, 1, &cfg.sched, cfg.path.rto_min_ns,
			 130 * ms);
	EXPECT_EQ(c->path[1].fail_why, MRC_FAIL_RTO);
	// without late losses two RTTs of silence are enough
	for (mrc_path &q : c->path) {
		q.state = MRC_PATH_ACTIVE;
		q.tx.late_rtt_ns = 0;
		q.lost_streak = 0;
	}
	EXPECT_TRUE(mrc_sched_on_lost(c->path, 2, 0, &cfg.sched,
				      cfg.sched.fail_lost, 104 * ms));
}

// [PATH-10] a path that delivers less than the others moves only while
// its route presses it (marks, losses, a queue): one held back by what no
// route changes (the hosts' CPUs) stays. Rounds are fed by hand: path 0
// delivers a third of the others' rate in every round, the connection
// streams (data waits for a window) and delivers far below the hint.
TEST(Sched, MovesOnlyWhereARoutePresses)
{
	for (int press = 0; press < 4; press++) {
		std::unique_ptr<mrcsim::Conn> c(new mrcsim::Conn);
		mrc_conn_cfg cfg;
		const uint64_t rtt = 2000000, hint = 100000000;
		uint64_t now = rtt;

		mrc_conn_cfg_default(&cfg, 4, 1024);
		ASSERT_TRUE(c->init(cfg, 0));
		for (uint32_t i = 0; i < 4; i++) {
			mrc_path *p = &c->path[i];

			p->state = MRC_PATH_ACTIVE;
			p->tx.srtt_ns = rtt;
			p->cc.rate = i ? 3000000 : 1000000;
		}
		mrc_path *slow = &c->path[0];
		// 0: nothing; 1: marks; 2: losses; 3: a queue ([CC-6])
		slow->cc.mark_pm = press == 1 ? 50 : 0;
		slow->cc.loss_pm = press == 2 ? 20 : 0;
		slow->cc.congested = press == 3;
		const uint16_t port = slow->sport;
		for (uint32_t r = 1; r <= 8 * cfg.sched.repath_rounds; r++) {
			now += rtt;
			c->sched.limited_at = now;
			for (uint32_t i = 0; i < 4; i++) {
				c->path[i].cc.rounds = r;
				mrc_sched_on_ack(&c->sched, &cfg.sched, c->path, 4, i,
						 &cfg.path, &cfg.cc, hint, now);
			}
		}
		if (press) {
			EXPECT_GE(slow->repaths, 1u) << "press " << press;
			EXPECT_NE(slow->sport, port) << "press " << press;
		} else {
			EXPECT_EQ(slow->repaths, 0u);
			EXPECT_EQ(slow->sport, port);
			for (uint32_t i = 1; i < 4; i++)
				EXPECT_EQ(c->path[i].repaths, 0u) << "path " << i;
		}
	}
}

// [PATH-6] equal paths share packets evenly, in bursts of cfg.burst
TEST(Sched, SprayEvenlyInBursts)
{
	for (uint32_t burst : {1u, 4u, 8u}) {
		std::unique_ptr<mrcsim::Conn> c(new mrcsim::Conn);
		mrc_conn_cfg cfg;
		uint32_t count[4] = {};
		int prev = -1;
		uint32_t run = 0;

		mrc_conn_cfg_default(&cfg, 4, 1024);
		cfg.sched.burst = burst;
		ASSERT_TRUE(c->init(cfg, 0));
		for (uint32_t i = 0; i < 100 * 4 * burst; i++) {
			int p = mrc_sched_pick(&c->sched, c->path, 4, 1024, true, 0);

			ASSERT_GE(p, 0);
			count[p]++;
			run = p == prev ? run + 1 : 1;
			EXPECT_LE(run, burst) << "burst " << burst;
			if (p != prev && prev >= 0)	// a burst ends only when full
				EXPECT_EQ(i % burst, 0u) << "burst " << burst;
			prev = p;
		}
		for (uint32_t n : count)
			EXPECT_EQ(n, 100 * burst) << "burst " << burst;
	}
}

// [PATH-6] with burst_bytes a burst is what one bundle carries ([ENC-13]):
// small packets fill it, packets too large to share one are sprayed singly
TEST(Sched, BurstBytesBoundABurst)
{
	const uint32_t room = 8952;	// a 9000-byte MTU's datagram
	struct Case {
		uint32_t len, want_run;
	} cases[] = {
		{ 64, 32 },	// the packet limit first
		{ 4096, 2 },	// 2 * 4160 fit, 3 do not
		{ 8192, 1 },	// one 8 KiB packet per datagram
	};
	for (const Case &k : cases) {
		std::unique_ptr<mrcsim::Conn> c(new mrcsim::Conn);
		mrc_conn_cfg cfg;
		int prev = -1;
		uint32_t run = 0, longest = 0;

		mrc_conn_cfg_default(&cfg, 4, 4096);
		cfg.sched.burst = 32;
		cfg.sched.burst_bytes = room;
		ASSERT_TRUE(c->init(cfg, 0));
		for (uint32_t i = 0; i < 4 * 32 * 4; i++) {
			int p = mrc_sched_pick(&c->sched, c->path, 4, k.len, true, 0);

			ASSERT_GE(p, 0);
			run = p == prev ? run + 1 : 1;
			longest = run > longest ? run : longest;
			EXPECT_LE(run * (k.len + MRC_WIRE_DATA_OVERHEAD),
				  k.want_run == 1 ? k.len + MRC_WIRE_DATA_OVERHEAD
						  : room) << k.len;
			prev = p;
		}
		EXPECT_EQ(longest, k.want_run) << k.len;
	}
}

// [PATH-6] a burst ends early when its path's window is full, and yields
// to a probing path ([PATH-4])
TEST(Sched, BurstYields)
{
	std::unique_ptr<mrcsim::Conn> c(new mrcsim::Conn);
	mrc_conn_cfg cfg;

	mrc_conn_cfg_default(&cfg, 2, 1024);
	cfg.sched.burst = 8;
	ASSERT_TRUE(c->init(cfg, 0));
	for (mrc_path &p : c->path)
		p.state = MRC_PATH_ACTIVE;
	int first = mrc_sched_pick(&c->sched, c->path, 2, 1024, true, 0);
	ASSERT_GE(first, 0);
	EXPECT_EQ(mrc_sched_pick(&c->sched, c->path, 2, 1024, true, 0), first);
	// the window of the burst's path is full: the other path takes over
	mrc_path *p = &c->path[first];
	p->tx.inflight_pkts = 1;
	p->tx.inflight_bytes = p->cc.cwnd;
	EXPECT_EQ(mrc_sched_pick(&c->sched, c->path, 2, 1024, true, 0), 1 - first);
	p->tx.inflight_pkts = 0;
	p->tx.inflight_bytes = 0;
	// a probing path with nothing in flight interrupts a burst
	p->state = MRC_PATH_PROBING;
	EXPECT_EQ(mrc_sched_pick(&c->sched, c->path, 2, 1024, true, 0), first);
}

// [PATH-9] packets half an RTT or more apart stay on one path; packets
// back to back are sprayed; a path that lost, is congested or waits for
// a probe does not hold sparse traffic
TEST(Sched, SparseTrafficStaysOnOnePath)
{
	std::unique_ptr<mrcsim::Conn> c(new mrcsim::Conn);
	mrc_conn_cfg cfg;
	const uint64_t rtt = 100000;	// 100 us
	uint64_t now = 1000000;

	mrc_conn_cfg_default(&cfg, 4, 1024);
	ASSERT_TRUE(c->init(cfg, 0));
	for (mrc_path &p : c->path) {
		p.state = MRC_PATH_ACTIVE;
		p.tx.srtt_ns = rtt;
	}
	int first = mrc_sched_pick(&c->sched, c->path, 4, 1024, true, now);
	ASSERT_GE(first, 0);
	for (int i = 0; i < 20; i++) {
		now += rtt / 2;
		EXPECT_EQ(mrc_sched_pick(&c->sched, c->path, 4, 1024, true, now), first);
	}
	// a stream: back to back, every path gets its share
	uint32_t count[4] = {};
	for (int i = 0; i < 40; i++)
		count[mrc_sched_pick(&c->sched, c->path, 4, 1024, true, ++now)]++;
	for (uint32_t n : count)
		EXPECT_GE(n, 8u);
	// sparse again: whichever path took the last packet keeps the next
	now += rtt;
	int last = mrc_sched_pick(&c->sched, c->path, 4, 1024, true, now);
	now += rtt;
	EXPECT_EQ(mrc_sched_pick(&c->sched, c->path, 4, 1024, true, now), last);
	// ... unless it timed out
	c->path[last].tx.retries = 1;
	now += rtt;
	int next = mrc_sched_pick(&c->sched, c->path, 4, 1024, true, now);
	EXPECT_NE(next, last);
	c->path[last].tx.retries = 0;
	// ... or is congested
	c->path[next].state = MRC_PATH_CONGESTED;
	now += rtt;
	int after = mrc_sched_pick(&c->sched, c->path, 4, 1024, true, now);
	EXPECT_NE(after, next);
	c->path[next].state = MRC_PATH_ACTIVE;
	// ... or a probing path waits for its first packet
	int probe = (after + 1) % 4;
	c->path[probe].state = MRC_PATH_PROBING;
	now += rtt;
	EXPECT_EQ(mrc_sched_pick(&c->sched, c->path, 4, 1024, true, now), probe);
}

namespace {

struct Pair {
	std::unique_ptr<mrcsim::Conn> a{new mrcsim::Conn}, b{new mrcsim::Conn};
	mrc_conn_cfg cfg;

	Pair(uint32_t npaths = 2, uint32_t mss = 1024)
	{
		mrc_conn_cfg_default(&cfg, npaths, mss);
		cfg.nstreams = 2;
		a->init(cfg, 0);
		b->init(cfg, 0);
	}
	static mrc_rx_seg rx_of(const mrc_tx_seg &t) { return mrcsim::rx_of(t); }
};

} // namespace

// [REL-15] exact segmentation; a resend is placed once; [REL-19] order
TEST(Conn, SegmentsResendExactlyOnceAndOrder)
{
	Pair p;
	mrc_tx_seg t[8];
	mrc_completion done;
	uint32_t msn;

	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 2500, 7, &msn));
	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 0, 8, nullptr));
	int n = 0;
	while (n < 8 && mrc_conn_tx_next(p.a.get(), 1000, &t[n]))
		n++;
	ASSERT_EQ(n, 4);	// 1024 + 1024 + 452, then the empty message
	EXPECT_EQ(t[0].flags & (MRC_F_FIRST | MRC_F_LAST), MRC_F_FIRST);
	EXPECT_EQ(t[2].len, 452u);
	EXPECT_TRUE(t[2].flags & MRC_F_LAST);
	EXPECT_EQ(t[3].len, 0u);
	// the empty message completes first but is reported after msn 0
	mrc_rx_seg s3 = Pair::rx_of(t[3]);
	EXPECT_EQ(mrc_conn_rx_data(p.b.get(), 1100, &s3, nullptr), MRC_RX_NEW);
	EXPECT_FALSE(mrc_conn_rx_poll(p.b.get(), &done));
	for (int i : {2, 0, 1}) {
		mrc_rx_seg s = Pair::rx_of(t[i]);
		EXPECT_EQ(mrc_conn_rx_data(p.b.get(), 1100, &s, nullptr), MRC_RX_NEW);
	}
	// the same segment again under a new PSN: a duplicate ([REL-9])
	mrc_rx_seg again = Pair::rx_of(t[1]);
	again.psn += 100;
	EXPECT_EQ(mrc_conn_rx_data(p.b.get(), 1200, &again, nullptr), MRC_RX_DUP);
	ASSERT_TRUE(mrc_conn_rx_poll(p.b.get(), &done));
	EXPECT_EQ(done.msn, msn);
	EXPECT_EQ(done.len, 2500u);
	ASSERT_TRUE(mrc_conn_rx_poll(p.b.get(), &done));
	EXPECT_EQ(done.len, 0u);
}

// [REL-17] inconsistent identity or bad segmentation is a violation
TEST(Conn, ProtocolViolations)
{
	Pair p;
	mrc_rx_seg s = {};

	s.total_len = 4096;
	s.offset = 100;		// not a multiple of mss
	s.len = 1024;
	EXPECT_EQ(mrc_conn_rx_data(p.b.get(), 0, &s, nullptr), MRC_RX_INVALID);
	EXPECT_EQ(p.b->error, MRC_CONN_E_PROTO);

	Pair q;
	s = {};
	s.total_len = 4096;
	s.len = 1024;
	EXPECT_EQ(mrc_conn_rx_data(q.b.get(), 0, &s, nullptr), MRC_RX_NEW);
	s.psn = 1;
	s.offset = 1024;
	s.total_len = 8192;	// disagrees with the first segment
	EXPECT_EQ(mrc_conn_rx_data(q.b.get(), 0, &s, nullptr), MRC_RX_INVALID);

	Pair r;
	s = {};
	s.msn = MRC_CONN_MSGS;	// [REL-18] beyond the message window
	EXPECT_EQ(mrc_conn_rx_data(r.b.get(), 0, &s, nullptr), MRC_RX_INVALID);

	// [PATH-1] every path id below MRC_MAX_PATHS is taken, none above
	Pair t;
	s = {};
	s.total_len = 4096;
	s.len = 4096;
	s.path_id = MRC_MAX_PATHS - 1;
	EXPECT_EQ(mrc_conn_rx_data(t.b.get(), 0, &s, nullptr), MRC_RX_NEW);
	EXPECT_EQ(t.b->rx_npaths, (uint32_t)MRC_MAX_PATHS);
	Pair u;
	s.path_id = MRC_MAX_PATHS;
	EXPECT_EQ(mrc_conn_rx_data(u.b.get(), 0, &s, nullptr), MRC_RX_INVALID);
}

// [PATH-8] the link of path 1's plane goes down here: the path fails at
// once, what it had in flight goes again on the others (not after its
// silence), it stays failed while its link is down, however long, and
// moves as soon as the link is back; when the last link goes the timeouts
// decide as on any dead route (nothing waits forever for a link), and a
// connection on one plane loses no path to its link.
TEST(Conn, PlaneLinkDownResendsItsFlightAtOnce)
{
	Pair p(4);
	const uint64_t ms = 1000000;
	uint64_t now = 1000;
	std::vector<mrc_tx_seg> sent;
	mrc_tx_seg t;
	mrc_ack_info ack;

	// deliver everything sent and give a the ACKs
	auto exchange = [&](bool drop_path1) {
		for (const mrc_tx_seg &x : sent) {
			if (drop_path1 && x.path_id == 1)
				continue;
			mrc_rx_seg r = Pair::rx_of(x);
			mrc_conn_rx_data(p.b.get(), now, &r, nullptr);
		}
		sent.clear();
		now += ms;
		while (mrc_conn_ack_next(p.b.get(), now, nullptr, &ack))
			mrc_conn_on_ack(p.a.get(), now, &ack);
	};
	// every path proven
	int msgs = 0;
	for (int i = 0; i < 16; i++) {
		bool all = true;

		for (uint32_t k = 0; k < 4; k++)
			all &= p.a->path[k].state == MRC_PATH_ACTIVE;
		if (all)
			break;
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 4096, 1, nullptr));
		msgs++;
		while (mrc_conn_tx_next(p.a.get(), now, &t))
			sent.push_back(t);
		exchange(false);
	}
	for (uint32_t k = 0; k < 4; k++)
		ASSERT_EQ(p.a->path[k].state, MRC_PATH_ACTIVE) << "path " << k;
	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 32768, 2, nullptr));
	msgs++;
	while (mrc_conn_tx_next(p.a.get(), now, &t))
		sent.push_back(t);
	std::set<uint32_t> on1;
	for (const mrc_tx_seg &x : sent)
		if (x.path_id == 1)
			on1.insert(x.offset);
	ASSERT_FALSE(on1.empty());

	mrc_conn_link(p.a.get(), 1u << 1, false, now);
	const mrc_path &p1 = p.a->path[1];
	EXPECT_EQ(p1.state, MRC_PATH_FAILED);
	EXPECT_EQ(p1.fail_why, MRC_FAIL_LINK);
	EXPECT_EQ(p1.tx.inflight_pkts, 0u);
	EXPECT_EQ(p.a->stats.path_fails, 1u);
	EXPECT_EQ(p.a->stats.path_link_downs, 1u);
	// its flight goes again at once, on the other paths
	std::set<uint32_t> again;
	while (mrc_conn_tx_next(p.a.get(), now, &t)) {
		EXPECT_NE(t.path_id, 1u);
		if (t.flags & MRC_F_RETX)
			again.insert(t.offset);
		sent.push_back(t);
	}
	EXPECT_EQ(again, on1);
	// the message completes without path 1 ...
	exchange(true);
	for (int i = 0; i < 64 && !p.a->error; i++) {
		while (mrc_conn_tx_next(p.a.get(), now, &t))
			sent.push_back(t);
		exchange(true);
	}
	mrc_completion done;
	int completed = 0;
	while (mrc_conn_tx_poll(p.a.get(), &done)) {
		EXPECT_EQ(done.status, MRC_CONN_OK);
		completed++;
	}
	EXPECT_EQ(completed, msgs);
	// ... and path 1 waits for its link, however long
	now += 10000 * ms;
	mrc_conn_on_timer(p.a.get(), now);
	EXPECT_EQ(p1.state, MRC_PATH_FAILED);
	EXPECT_GT(mrc_conn_deadline(p.a.get()), now);
	uint16_t port = p1.sport;
	mrc_conn_link(p.a.get(), 1u << 1, true, now);
	EXPECT_LE(mrc_conn_deadline(p.a.get()), now);
	mrc_conn_on_timer(p.a.get(), now);
	EXPECT_EQ(p1.state, MRC_PATH_PROBING);
	EXPECT_NE(p1.sport, port);
	// plane 1 (paths 1, 3) down, then plane 0 (paths 0, 2): the first
	// fails its paths; the second, the last link, changes nothing but
	// the marks, the timeouts decide as on any dead route, and no path
	// waits for a link
	p.a->path[3].state = MRC_PATH_FAILED;	// failed already: kept so
	uint64_t fails = p.a->stats.path_fails;
	uint64_t downs = p.a->stats.path_link_downs;
	mrc_conn_link(p.a.get(), 1u << 1 | 1u << 3, false, now);
	EXPECT_EQ(p.a->path[1].state, MRC_PATH_FAILED);
	EXPECT_EQ(p.a->path[3].state, MRC_PATH_FAILED);
	EXPECT_EQ(p.a->path[3].fail_why, MRC_FAIL_LINK);
	EXPECT_EQ(p.a->stats.path_fails, fails + 1);
	EXPECT_EQ(p.a->stats.path_link_downs, downs + 2);
	mrc_conn_link(p.a.get(), 1u << 0 | 1u << 2, false, now);
	EXPECT_EQ(p.a->path[0].state, MRC_PATH_ACTIVE);
	EXPECT_EQ(p.a->path[2].state, MRC_PATH_ACTIVE);
	EXPECT_TRUE(p.a->path[0].link_down && p.a->path[2].link_down);
	EXPECT_LT(mrc_conn_deadline(p.a.get()), now + 10000 * ms);
	mrc_conn_on_timer(p.a.get(), now + 10000 * ms);
	EXPECT_EQ(p.a->path[1].state, MRC_PATH_PROBING);
	EXPECT_EQ(p.a->path[3].state, MRC_PATH_PROBING);
	// a connection on one plane, its link down at once: nothing fails
	Pair q(4);
	mrc_conn_link(q.a.get(), 0xf, false, now);
	for (uint32_t k = 0; k < 4; k++)
		EXPECT_EQ(q.a->path[k].state, MRC_PATH_ACTIVE) << "path " << k;
	EXPECT_EQ(q.a->stats.path_fails, 0u);
}

// [REL-26] the window is full and nothing has been delivered for two
// round trips of the slowest route in use (a plane dark, its paths not
// failed yet: nothing sent later can reveal their packets): the oldest
// segment goes again at once, whatever the window, on the route whose
// ACK came last; once per segment, one per such wait; not before the
// wait, and not with the rule off, nor when the route that answered last
// has packets out too (every route silent: the peer is, not a route).
TEST(Conn, StalledWindowCopiesItsOldestSegment)
{
	enum { ROUTE_SILENT, PEER_SILENT, OFF };

	for (int mode : {ROUTE_SILENT, PEER_SILENT, OFF}) {
		bool on = mode != OFF;
		Pair p(2);
		const uint64_t ms = 1000000;
		uint64_t now = 1000;
		mrc_tx_seg t;
		mrc_ack_info ack;

		p.a->cfg.stall_copy = on;
		// warm up: both paths timed, 4 ms round trips
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 4096, 1, nullptr));
		std::vector<mrc_tx_seg> sent;
		while (mrc_conn_tx_next(p.a.get(), now, &t))
			sent.push_back(t);
		for (const mrc_tx_seg &x : sent) {
			mrc_rx_seg r = Pair::rx_of(x);
			mrc_conn_rx_data(p.b.get(), now + 2 * ms, &r, nullptr);
		}
		now += 4 * ms;
		while (mrc_conn_ack_next(p.b.get(), now, nullptr, &ack))
			mrc_conn_on_ack(p.a.get(), now, &ack);
		ASSERT_GT(p.a->path[0].tx.srtt_ns, 0u);
		ASSERT_GT(p.a->path[1].tx.srtt_ns, 0u);
		mrc_completion done;
		while (mrc_conn_tx_poll(p.a.get(), &done))
			;
		// a small window fills; nothing of it comes back. Path 1's
		// ACK came last; the window's packets are all on path 0 (path
		// 1 out of use while it fills), or on both
		p.a->cc.cwnd = 4096;
		p.a->path[1].tx.last_ack_ns = now + 1;
		if (mode != PEER_SILENT)
			p.a->path[1].state = MRC_PATH_FAILED;
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 65536, 2, nullptr));
		sent.clear();
		while (mrc_conn_tx_next(p.a.get(), now, &t))
			sent.push_back(t);
		p.a->path[1].state = MRC_PATH_ACTIVE;
		ASSERT_EQ(sent.size(), 4u);
		if (mode == PEER_SILENT)
			ASSERT_GT(p.a->path[1].tx.inflight_pkts, 0u);
		else
			ASSERT_EQ(p.a->path[1].tx.inflight_pkts, 0u);
		uint64_t wait = 2 * std::max(p.a->path[0].tx.srtt_ns,
					     p.a->path[1].tx.srtt_ns) +
				p.a->cfg.path.ack_delay_ns;
		if (on)
			EXPECT_LE(mrc_conn_deadline(p.a.get()), now + wait);
		// not before the wait
		mrc_conn_on_timer(p.a.get(), now + wait / 2);
		EXPECT_FALSE(mrc_conn_tx_next(p.a.get(), now + wait / 2, &t));
		now = p.a->rack_seen + wait;
		mrc_conn_on_timer(p.a.get(), now);
		if (mode != ROUTE_SILENT) {
			EXPECT_FALSE(mrc_conn_tx_next(p.a.get(), now, &t)) << "mode " << mode;
			EXPECT_EQ(p.a->stats.tx_stall_copies, 0u) << "mode " << mode;
			continue;
		}
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), now, &t));
		EXPECT_EQ(t.offset, sent[0].offset);
		EXPECT_EQ(t.msn, sent[0].msn);
		EXPECT_TRUE(t.flags & MRC_F_RETX);
		EXPECT_EQ(t.path_id, 1u);
		EXPECT_EQ(p.a->stats.tx_stall_copies, 1u);
		// one per wait: nothing more now, and the timer is a wait away
		EXPECT_FALSE(mrc_conn_tx_next(p.a.get(), now, &t));
		EXPECT_GT(mrc_conn_deadline(p.a.get()), now);
		// the copy fills the hole: delivered and acknowledged, it is
		// the newest delivery, and the window moves on
		mrc_rx_seg r = Pair::rx_of(t);
		EXPECT_EQ(mrc_conn_rx_data(p.b.get(), now + ms, &r, nullptr), MRC_RX_NEW);
		now += 2 * ms;
		while (mrc_conn_ack_next(p.b.get(), now, nullptr, &ack))
			mrc_conn_on_ack(p.a.get(), now, &ack);
		EXPECT_EQ(p.a->rack_seen, now);
		EXPECT_EQ(p.a->rack_path, 1u);
	}
}

// [ENC-25] one segment per packet until the peer's ACK says it takes more;
// then whole segments per packet, as many as both ends take
TEST(Conn, MultiSegmentPacketsFollowPeerAck)
{
	Pair p(1);
	mrc_tx_seg t;
	mrc_ack_info ack;
	uint32_t n = 0;

	p.a->cfg.pkt_max = 4096;
	p.b->cfg.pkt_max = 3072;	// b's MTU carries 3 segments
	EXPECT_EQ(mrc_conn_pbundle_room(p.a.get()), 0u);	// [ENC-13] no ACK yet
	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 10000, 1, nullptr));
	ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 10, &t));
	EXPECT_EQ(t.len, 1024u);
	mrc_rx_seg s = Pair::rx_of(t);
	ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 20, &s, nullptr), MRC_RX_NEW);
	mrc_path_rx_ack_now(&p.b->path[0].rx, MRC_ACK_WHY_MSG);
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), 30, nullptr, &ack));
	EXPECT_EQ(ack.rx_max, 3072u);
	ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 40, &ack));
	uint32_t off = 1024;
	while (mrc_conn_tx_next(p.a.get(), 50, &t)) {
		EXPECT_EQ(t.offset, off);
		EXPECT_EQ(t.len, std::min(3072u, 10000 - off));
		s = Pair::rx_of(t);
		EXPECT_EQ(mrc_conn_rx_data(p.b.get(), 60, &s, nullptr), MRC_RX_NEW);
		off += t.len;
		n++;
	}
	EXPECT_EQ(off, 10000u);
	EXPECT_EQ(n, 3u);	// 3072 + 3072 + 2832
	mrc_completion done;
	ASSERT_TRUE(mrc_conn_rx_poll(p.b.get(), &done));
	EXPECT_EQ(done.len, 10000u);

	// an ACK that says less (or nothing) goes back to one segment
	ack.rx_max = 0;
	mrc_conn_on_ack(p.a.get(), 70, &ack);
	EXPECT_EQ(p.a->tx_pkt, 1024u);
	ack.rx_max = 2500;	// not a multiple of the segment size
	mrc_conn_on_ack(p.a.get(), 80, &ack);
	EXPECT_EQ(p.a->tx_pkt, 2048u);
	EXPECT_EQ(p.a->peer_rx_max, 2500u);	// as said: bundles use it all

	// a receiver advertises what its MTU carries, not rounded to segments
	p.b->cfg.rx_max = 3300;
	mrc_path_rx_ack_now(&p.b->path[0].rx, MRC_ACK_WHY_MSG);
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), 90, nullptr, &ack));
	EXPECT_EQ(ack.rx_max, 3300u);
	mrc_conn_on_ack(p.a.get(), 100, &ack);
	EXPECT_EQ(p.a->tx_pkt, 3072u);
	EXPECT_EQ(p.a->peer_rx_max, 3300u);
	// [ENC-13] a bundle: what both MTUs carry, plus a packet's overhead
	EXPECT_EQ(mrc_conn_pbundle_room(p.a.get()),
		  3300u + MRC_WIRE_DATA_OVERHEAD);
	p.a->cfg.rx_max = 2000;		// our own MTU carries less
	EXPECT_EQ(mrc_conn_pbundle_room(p.a.get()),
		  2000u + MRC_WIRE_DATA_OVERHEAD);
}

// [ENC-25] [REL-15] each segment of a multi-segment packet is placed once;
// [REL-17] shapes that are not whole segments are violations
TEST(Conn, MultiSegmentShapes)
{
	Pair p(1);
	mrc_rx_seg s = {};
	uint32_t psn = 0;
	auto rx = [&](uint32_t off, uint32_t len) {
		s.psn = psn++;
		s.offset = off;
		s.len = len;
		return mrc_conn_rx_data(p.b.get(), 0, &s, nullptr);
	};

	s.total_len = 6000;
	EXPECT_EQ(rx(1024, 2048), MRC_RX_NEW);	// segments 1, 2
	EXPECT_EQ(rx(2048, 1024), MRC_RX_DUP);	// 2 again
	EXPECT_EQ(rx(2048, 2048), MRC_RX_NEW);	// 3 is new; 2 rewritten
	EXPECT_EQ(rx(4096, 1904), MRC_RX_NEW);	// 4, 5: the rest, one packet
	EXPECT_EQ(rx(1024, 4976), MRC_RX_DUP);	// all placed before
	mrc_completion done;
	EXPECT_FALSE(mrc_conn_rx_poll(p.b.get(), &done));
	EXPECT_EQ(rx(0, 1024), MRC_RX_NEW);
	ASSERT_TRUE(mrc_conn_rx_poll(p.b.get(), &done));
	EXPECT_EQ(done.len, 6000u);
	EXPECT_EQ(p.b->stats.rx_new, 4u);
	// telemetry: each new PSN's payload; of it, each byte placed once
	const mrc_path_rx &r = p.b->path[0].rx;
	EXPECT_EQ(r.new_bytes, 2048u + 1024 + 2048 + 1904 + 4976 + 1024);
	EXPECT_EQ(r.placed_bytes, 6000u);
	EXPECT_EQ(r.dup_bytes, 0u);
	psn = 0;
	EXPECT_EQ(rx(0, 1024), MRC_RX_DUP);	// the network's copy
	EXPECT_EQ(r.rx_dup, 1u);
	EXPECT_EQ(r.dup_bytes, 1024u);
	EXPECT_EQ(r.placed_bytes, 6000u);

	for (uint32_t bad_len : {1500u, 3000u, 0u, 6001u}) {
		Pair q(1);
		mrc_rx_seg b = {};

		b.total_len = 6000;
		b.len = bad_len;	// not whole segments, nor the rest
		EXPECT_EQ(mrc_conn_rx_data(q.b.get(), 0, &b, nullptr),
			  MRC_RX_INVALID) << bad_len;
	}
}

// [REL-12] timeouts exhaust the retries; completions flush with the error
TEST(Conn, RetryExceeded)
{
	Pair p(1);
	mrc_tx_seg t;
	mrc_completion done;
	uint64_t now = 0;

	p.a->cfg.retry_limit = 2;
	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 1, 100, 42, nullptr));
	for (int i = 0; i < 20 && !p.a->error; i++) {
		while (mrc_conn_tx_next(p.a.get(), now, &t))
			;
		now = mrc_conn_deadline(p.a.get());
		ASSERT_NE(now, ~0ull);
		mrc_conn_on_timer(p.a.get(), now);
	}
	EXPECT_EQ(p.a->error, MRC_CONN_E_RETRY);
	ASSERT_TRUE(mrc_conn_tx_poll(p.a.get(), &done));
	EXPECT_EQ(done.cookie, 42u);
	EXPECT_EQ(done.status, MRC_CONN_E_RETRY);
	EXPECT_FALSE(mrc_conn_tx_next(p.a.get(), now, &t));
}

// [PATH-4] a segment lost on a probe does not probe again while another
// path is in use: a dead plane's paths come back to try each time their
// hold ends, and a probe sends first, so the one segment everything
// waited behind went into the dark again and again (52-planes: the
// stream stopped for as long as plane 1 was down). New data still
// probes; with no path in use, resends probe too, and every timeout
// counts ([REL-12], RetryExceeded).
TEST(Conn, ProbedSegmentsDoNotProbeAgain)
{
	Pair p(2, 1024);
	mrc_tx_seg t;
	uint64_t now = 0;
	int probes = 0, resends = 0;

	p.a->cfg.retry_limit = 2;
	for (int i = 0; i < 8; i++)
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 100, i, nullptr));
	for (int i = 0; i < 6 && !p.a->error; i++) {
		// path 1's route is dead; it comes back to try
		p.a->path[1].state = MRC_PATH_PROBING;
		p.a->path[1].state_since = now;
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), now, &t));
		if (i) {
			// what path 1's last probe carried goes on path 0
			EXPECT_EQ(t.path_id, 0u) << "round " << i;
			EXPECT_TRUE(t.flags & MRC_F_RETX);
			resends++;
			ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), now, &t));
		}
		// new data probes path 1
		EXPECT_EQ(t.path_id, 1u) << "round " << i;
		EXPECT_FALSE(t.flags & MRC_F_RETX);
		probes++;
		// path 0 delivers: an ACK of all it carried
		mrc_ack_info ack = {};
		ack.path_id = 0;
		ack.sack.cum = p.a->path[0].tx.snd_nxt;
		ack.msn_ack = p.a->peer_msn_ack;
		ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), now + 1, &ack));
		now = mrc_path_tx_deadline(&p.a->path[1].tx);
		ASSERT_NE(now, 0u);
		mrc_conn_on_timer(p.a.get(), now);
		EXPECT_EQ(p.a->path[1].state, MRC_PATH_FAILED);
	}
	EXPECT_EQ(p.a->error, 0u);
	EXPECT_EQ(probes, 6);
	EXPECT_EQ(resends, 5);
}

// [REL-10] a path not yet timed takes the first timed path's round trip:
// its RTO falls from rto_init towards the lender's, and a PTO is armed, so
// a tail lost on it is found in a few round trips, not at rto_init (a
// connection over many paths sends only a few packets on each). A probing
// path borrows nothing: its silence must fail it.
TEST(Conn, UntimedPathsBorrowTheFirstRoundTrip)
{
	Pair p(4, 1024);
	mrc_tx_seg t, first[4];
	uint64_t now = 1000, rtt = 20000;
	bool seen[4] = {};

	p.a->path[3].state = MRC_PATH_PROBING;
	for (int i = 0; i < 16; i++)
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 1024, i, nullptr));
	while (mrc_conn_tx_next(p.a.get(), now, &t))
		if (!seen[t.path_id]) {
			seen[t.path_id] = true;
			first[t.path_id] = t;
		}
	for (uint32_t i = 0; i < 4; i++) {
		ASSERT_TRUE(seen[i]) << "path " << i;
		EXPECT_EQ(p.a->path[i].tx.pto_deadline, 0u) << "path " << i;
	}
	mrc_ack_info ack = {};
	ack.path_id = 0;
	ack.sack.cum = first[0].psn + 1;
	ack.tsecr = first[0].tsval;
	ack.msn_ack = p.a->peer_msn_ack;
	now += rtt;
	ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), now, &ack));
	const mrc_path_tx &lender = p.a->path[0].tx;
	ASSERT_EQ(lender.srtt_ns, rtt);
	for (uint32_t i = 1; i < 3; i++) {
		const mrc_path_tx &tx = p.a->path[i].tx;

		EXPECT_EQ(tx.srtt_ns, 0u) << "its own estimate waits for a sample";
		EXPECT_EQ(tx.lent_srtt_ns, rtt);
		EXPECT_EQ(tx.rto_ns, std::max(lender.rto_ns, p.cfg.path.rto_min_ns));
		EXPECT_LT(tx.rto_ns, p.cfg.path.rto_init_ns);
		ASSERT_NE(tx.pto_deadline, 0u) << "path " << i;
		EXPECT_LE(tx.pto_deadline, now + 2 * rtt + 4 * rtt / 2 +
					   p.cfg.path.ack_delay_ns);
	}
	EXPECT_EQ(p.a->path[3].tx.lent_srtt_ns, 0u);
	EXPECT_EQ(p.a->path[3].tx.pto_deadline, 0u);

	// path 1's tail: its PTO resends the newest, and no path fails
	now = p.a->path[1].tx.pto_deadline;
	mrc_conn_on_timer(p.a.get(), now);
	EXPECT_EQ(p.a->path[1].tx.lost_pto, 1u);
	EXPECT_EQ(p.a->path[1].state, MRC_PATH_ACTIVE);
	ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), now, &t));
	EXPECT_TRUE(t.flags & MRC_F_RETX);
	EXPECT_EQ(p.a->error, 0u);
}

// [REL-10] on a path not timed yet, a PTO probes the newest packet in
// flight and, if more remain, the next PTO, twice as late, the next
// newest: a tail of several lost packets, which [REL-22] leaves to the
// timers there, is resent one by one long before the RTO. A timed path's
// PTO probes once; its older packets are [REL-22]'s.
TEST(Conn, PtoProbesAnUntimedTailOneByOne)
{
	Pair p(2, 1024);
	mrc_conn *a = p.a.get();
	mrc_tx_seg t;
	uint64_t now = 1000, rtt = 20000;

	// one packet there and back times its path, x; the other, y, borrows
	ASSERT_TRUE(mrc_conn_tx_post(a, 0, 1024, 1, nullptr));
	ASSERT_TRUE(mrc_conn_tx_next(a, now, &t));
	const uint32_t x = t.path_id, y = 1 - x;
	mrc_ack_info ack = {};
	ack.path_id = (uint8_t)x;
	ack.sack.cum = t.psn + 1;
	ack.tsecr = t.tsval;
	ack.msn_ack = a->peer_msn_ack;
	now += rtt;
	ASSERT_TRUE(mrc_conn_on_ack(a, now, &ack));
	ASSERT_EQ(a->path[y].tx.lent_srtt_ns, rtt);
	// a burst over both paths, all lost
	for (int i = 0; i < 8; i++)
		ASSERT_TRUE(mrc_conn_tx_post(a, 0, 1024, 2 + i, nullptr));
	while (mrc_conn_tx_next(a, now, &t))
		;
	const mrc_path_tx &ty = a->path[y].tx, &tx = a->path[x].tx;
	const uint32_t tail = ty.inflight_pkts;
	ASSERT_GE(tail, 2u);
	ASSERT_GE(tx.inflight_pkts, 2u);
	uint64_t rto_at = ty.rto_deadline, prev = now, wait = 0;

	// the timed path's PTO (due first: it is timed on ACK progress)
	ASSERT_NE(tx.pto_deadline, 0u);
	ASSERT_LT(tx.pto_deadline, ty.pto_deadline);
	mrc_conn_on_timer(a, tx.pto_deadline);
	EXPECT_EQ(tx.lost_pto, 1u);
	EXPECT_GE(tx.inflight_pkts, 1u);
	EXPECT_EQ(tx.pto_deadline, 0u) << "a timed path's PTO probes once";
	for (uint32_t k = 1; k <= tail; k++) {
		uint64_t at = ty.pto_deadline;

		ASSERT_NE(at, 0u) << "PTO " << k;
		ASSERT_LT(at, rto_at) << "PTO " << k;
		EXPECT_GE(at - prev, 2 * wait) << "PTO " << k;
		wait = at - prev;
		prev = at;
		mrc_conn_on_timer(a, at);
		EXPECT_EQ(ty.lost_pto, (uint64_t)k);
		EXPECT_EQ(ty.rto_fired, 0u);
		// resends leave (on x); they are lost too
		while (mrc_conn_tx_next(a, at, &t))
			EXPECT_TRUE(t.flags & MRC_F_RETX);
	}
	EXPECT_EQ(a->error, 0u);
}

// [PATH-4] with PROBE REQs, a failed path's new route is proven by a REQ
// while another path carries the data: no data goes to it until the RESP
// (the right path and sequence; others are ignored) makes it active; an
// unanswered REQ fails it again at the path's RTO. A path that probes
// without having failed (moved to explore) still probes with data.
TEST(Conn, ProbeReqsProveFailedRoutes)
{
	Pair p(2, 1024);
	mrc_conn *a = p.a.get();
	mrc_probe_req req;
	mrc_tx_seg t;
	uint64_t now = 1000;

	a->cfg.probe_reqs = true;
	a->sched.probe_reqs = true;
	for (int i = 0; i < 8; i++)
		ASSERT_TRUE(mrc_conn_tx_post(a, 0, 1024, i, nullptr));
	// path 1 failed once and came back to probe on a new port
	a->path[1].state = MRC_PATH_PROBING;
	a->path[1].fails = 1;
	for (int i = 0; i < 8 && mrc_conn_tx_next(a, now, &t); i++)
		EXPECT_EQ(t.path_id, 0u) << "data on the path to prove";
	ASSERT_TRUE(mrc_conn_probe_next(a, now, &req));
	EXPECT_EQ(req.path_id, 1u);
	EXPECT_EQ(req.sport, a->path[1].sport);
	EXPECT_FALSE(mrc_conn_probe_next(a, now, &req)) << "one REQ at a time";
	uint64_t due = a->path[1].probe_due;
	EXPECT_EQ(due, now + a->path[1].tx.rto_ns);
	EXPECT_LE(mrc_conn_deadline(a), due);
	// path 0 delivers all it carried: it stays in use
	mrc_ack_info ack = {};
	ack.path_id = 0;
	ack.sack.cum = a->path[0].tx.snd_nxt;
	ack.msn_ack = a->peer_msn_ack;
	ASSERT_TRUE(mrc_conn_on_ack(a, now + 100, &ack));

	// an answer to another question changes nothing
	EXPECT_FALSE(mrc_conn_on_probe_resp(a, now + 10, 1, req.seq + 1, (uint32_t)now));
	EXPECT_FALSE(mrc_conn_on_probe_resp(a, now + 10, 0, req.seq, (uint32_t)now));
	EXPECT_FALSE(mrc_conn_on_probe_resp(a, now + 10, 7, req.seq, (uint32_t)now));
	EXPECT_EQ(a->path[1].state, MRC_PATH_PROBING);
	// unanswered: failed again at its RTO
	mrc_conn_on_timer(a, due);
	EXPECT_EQ(a->path[1].state, MRC_PATH_FAILED);
	EXPECT_EQ(a->path[1].fail_why, MRC_FAIL_PROBE);
	EXPECT_FALSE(a->path[1].probe_out);

	// back to probing; this REQ is answered: active, timed, no error
	a->path[1].state = MRC_PATH_PROBING;
	now = due + 1000;
	ASSERT_TRUE(mrc_conn_probe_next(a, now, &req));
	EXPECT_TRUE(mrc_conn_on_probe_resp(a, now + 30000, 1, req.seq, (uint32_t)now));
	EXPECT_EQ(a->path[1].state, MRC_PATH_ACTIVE);
	EXPECT_EQ(a->path[1].tx.srtt_ns, 30000u);
	EXPECT_EQ(a->path[1].probes_answered, 1u);
	EXPECT_FALSE(mrc_conn_on_probe_resp(a, now + 40000, 1, req.seq, (uint32_t)now))
		<< "a RESP twice";

	// a path moved while working probes with data, as before
	a->path[0].state = MRC_PATH_PROBING;
	a->path[0].fails = 0;
	EXPECT_FALSE(mrc_conn_probe_next(a, now, &req));
	EXPECT_EQ(a->error, 0u);
}

// [REL-18] the sender waits for the peer's msn_ack before message 64
TEST(Conn, PeerMessageWindow)
{
	Pair p(1, 1024);
	mrc_tx_seg t;
	mrc_completion done;
	uint64_t now = 0;
	uint32_t sent = 0;

	for (int i = 0; i < MRC_CONN_MSGS; i++)
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 0, i, nullptr));
	EXPECT_FALSE(mrc_conn_tx_post(p.a.get(), 0, 0, 99, nullptr));
	while (mrc_conn_tx_next(p.a.get(), now, &t))
		sent++;
	EXPECT_EQ(sent, (uint32_t)MRC_CONN_MSGS);
	// complete them all at the sender without the peer's msn_ack moving
	mrc_ack_info ack = {};
	ack.sack.cum = p.a->path[0].tx.snd_nxt;
	ack.msn_ack = 0;
	ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 10, &ack));
	while (mrc_conn_tx_poll(p.a.get(), &done))
		;
	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 0, 100, nullptr));
	EXPECT_FALSE(mrc_conn_tx_next(p.a.get(), 20, &t));
	ack.msn_ack = 1;
	ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 30, &ack));
	EXPECT_TRUE(mrc_conn_tx_next(p.a.get(), 40, &t));
}

// [REL-14] the packet that fills the path's congestion window asks for an
// ACK; the ones before it (mid-window, mid-message) do not
TEST(Conn, AckRequestedWhenWindowFills)
{
	Pair p(1, 1024);
	mrc_tx_seg t;
	uint32_t n = 0, req_at = 0, reqs = 0;

	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 1024 * 1024, 1, nullptr));
	const uint32_t wnd = p.a->path[0].cc.cwnd / 1024;
	while (mrc_conn_tx_next(p.a.get(), 0, &t)) {
		n++;
		if (t.flags & MRC_F_ACK_REQ) {
			reqs++;
			req_at = n;
		}
	}
	ASSERT_GT(wnd, 2u);
	EXPECT_EQ(n, wnd);		// the window stops the sender
	EXPECT_EQ(reqs, 1u);		// exactly one request...
	EXPECT_EQ(req_at, wnd);		// ...on the packet that filled it
}

// [REL-13] a message complete at the receiver is acknowledged at once on
// every path that carried part of it, not after ack_delay
TEST(Conn, CompleteMessageAckedOnEveryPath)
{
	Pair p(4, 1024);
	mrc_tx_seg t[4];
	mrc_ack_info ack;
	uint32_t paths = 0;

	p.a->sched.burst = 1;	// one packet per path
	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 4096, 1, nullptr));
	for (auto &s : t)
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 0, &s));
	// the first three: no ACK falls due before ack_delay
	for (int i = 0; i < 3; i++) {
		mrc_rx_seg s = Pair::rx_of(t[i]);
		ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 10, &s, nullptr), MRC_RX_NEW);
		EXPECT_NE(t[i].path_id, t[3].path_id);
	}
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 20, nullptr, &ack));
	mrc_rx_seg last = Pair::rx_of(t[3]);
	ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 30, &last, nullptr), MRC_RX_NEW);
	while (mrc_conn_ack_next(p.b.get(), 40, nullptr, &ack))
		paths |= 1u << ack.path_id;
	EXPECT_EQ(paths, 0xfu);
}

// [REL-8] [REL-9] a segment declared lost, then acknowledged late while
// it waited for its resend: the stale entry is skipped and new data goes at
// once. Nothing is in flight, so no ACK or timer would call again.
TEST(Conn, StaleResendEntryDoesNotBlockNewData)
{
	Pair p(1, 1024);
	mrc_tx_seg t[8], next;
	mrc_ack_info ack;

	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 8192, 1, nullptr));
	for (auto &s : t)
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 0, &s));
	for (int i = 1; i < 8; i++) {
		mrc_rx_seg s = Pair::rx_of(t[i]);
		ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 10, &s, nullptr), MRC_RX_NEW);
	}
	while (mrc_conn_ack_next(p.b.get(), 20, nullptr, &ack))
		ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 30, &ack));
	ASSERT_NE(p.a->rq_head, p.a->rq_tail) << "the gap was not a loss";
	// the original arrives after all and is acknowledged before the resend
	mrc_rx_seg late = Pair::rx_of(t[0]);
	ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 40, &late, nullptr), MRC_RX_NEW);
	while (mrc_conn_ack_next(p.b.get(), 50, nullptr, &ack))
		ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 60, &ack));
	ASSERT_EQ(mrc_conn_inflight(p.a.get()), 0u);
	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 1, 1024, 2, nullptr));
	ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 70, &next));
	EXPECT_FALSE(next.flags & MRC_F_RETX);
	EXPECT_EQ(next.total_len, 1024u);
	EXPECT_EQ(p.a->rq_head, p.a->rq_tail);
}

// [CC-13] with windows that would take a whole posted batch, new bytes
// stop at half of it; what the ACKs free and the losses they reveal go
// out, the resends first ([REL-8]); without the rule, everything goes
// (keep_home 2, the default: half stays home)
TEST(Conn, HalfTheBacklogStaysHome)
{
	for (bool keep : {true, false}) {
		Pair p(4, 8192);
		std::vector<mrc_tx_seg> sent;
		mrc_tx_seg t;
		mrc_ack_info ack;

		p.a->cfg.cc.keep_home = keep ? 2 : 0;
		p.a->cc.cwnd = 64u << 20;
		for (uint32_t i = 0; i < 4; i++)
			p.a->path[i].cc.cwnd = 16u << 20;
		for (int m = 0; m < 40; m++)
			ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 65536, m, nullptr));
		ASSERT_EQ(p.a->tx_unsent, 40u * 65536);
		while (mrc_conn_tx_next(p.a.get(), 0, &t))
			sent.push_back(t);
		uint32_t half = 40 * 65536 / 2;
		EXPECT_EQ(mrc_conn_inflight(p.a.get()), keep ? half : 2 * half);
		EXPECT_EQ(p.a->tx_unsent, keep ? half : 0u) << keep;
		if (!keep)
			continue;
		// the first packet is lost, the next 32 arrive
		for (size_t i = 1; i <= 32; i++) {
			mrc_rx_seg s = Pair::rx_of(sent[i]);
			ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 100, &s, nullptr),
				  MRC_RX_NEW);
		}
		while (mrc_conn_ack_next(p.b.get(), 100, nullptr, &ack))
			ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 200, &ack));
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 300, &t));
		EXPECT_TRUE(t.flags & MRC_F_RETX);
		EXPECT_EQ(t.msn, sent[0].msn);
		EXPECT_EQ(t.offset, 0u);
		// 33 packets left the network, 17 may follow: the backlog is now
		// 40 x 64 KiB - 32 x 8 KiB, half of it in flight
		int fresh = 0;
		while (mrc_conn_tx_next(p.a.get(), 300, &t))
			fresh++;
		EXPECT_EQ(fresh, 16);
		EXPECT_EQ(mrc_conn_inflight(p.a.get()), (40 * 65536 - 32 * 8192) / 2);
	}
}

// [REL-22] the last packet of a path, lost: no later packet of its path
// reveals it, but a later one of another path does, acknowledged: once
// the reordering window has passed if it was a request, which the
// receiver answers with every path's ACK ([REL-13]); else once ack_delay
// has passed too, the longest the receiver holds an ACK. [REL-14] the
// resend asks for an ACK; [REL-9] when the original turns up after all,
// the reordering window widens.
TEST(Conn, TailLossFoundByLaterDeliveryOnAnotherPath)
{
	enum { REQUEST, DELIVERY, OFF };

	for (int mode : {REQUEST, DELIVERY, OFF}) {
		Pair p(2, 1024);
		mrc_tx_seg t[4], re;
		mrc_ack_info ack;
		const uint64_t rtt = 20000, gap = 2000, arrive = 100000;
		const uint64_t acked_at = 200000;
		uint64_t sent_at = arrive;

		p.a->cfg.rack = mode != OFF;
		p.a->sched.burst = 1;	// one packet per path in turn
		// first both paths see the same round trip: no skew
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 2048, 0, nullptr));
		for (int i = 0; i < 2; i++) {
			ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 0, &re));
			mrc_rx_seg s = Pair::rx_of(re);
			ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 0, &s, nullptr),
				  MRC_RX_NEW);
		}
		while (mrc_conn_ack_next(p.b.get(), 0, nullptr, &ack))
			ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), rtt, &ack));
		ASSERT_EQ(p.a->path[0].tx.min_rtt_ns, rtt);
		ASSERT_EQ(p.a->path[1].tx.min_rtt_ns, rtt);

		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 4096, 1, nullptr));
		for (int i = 0; i < 4; i++)
			ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), rtt + i * gap,
						     &t[i]));
		ASSERT_EQ(t[2].path_id, t[0].path_id);
		ASSERT_NE(t[3].path_id, t[2].path_id);
		ASSERT_TRUE(t[3].flags & MRC_F_ACK_REQ);
		if (mode == DELIVERY) {	// as if more had followed it
			t[3].flags &= ~MRC_F_ACK_REQ;
			p.a->path[t[3].path_id].tx.req_set = false;
		}
		// t[2], its path's last packet, is lost; the rest arrive
		for (int i : {0, 1, 3}) {
			mrc_rx_seg s = Pair::rx_of(t[i]);
			ASSERT_EQ(mrc_conn_rx_data(p.b.get(), arrive, &s, nullptr),
				  MRC_RX_NEW);
		}
		if (mode == DELIVERY) {
			// nothing asked: both ACKs wait ack_delay
			EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), arrive, nullptr,
						       &ack));
			sent_at += p.cfg.path.ack_delay_ns;
		}
		uint32_t paths = 0;
		while (mrc_conn_ack_next(p.b.get(), sent_at, nullptr, &ack)) {
			paths |= 1u << ack.path_id;
			ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), acked_at, &ack));
		}
		EXPECT_EQ(paths, 3u) << "an ACK of each path, at once";
		EXPECT_FALSE(mrc_conn_tx_next(p.a.get(), acked_at, &re));
		if (mode == OFF) {
			// only the timers are left, much later
			EXPECT_GT(mrc_conn_deadline(p.a.get()),
				  2 * acked_at + p.cfg.path.ack_delay_ns);
			continue;
		}
		uint64_t due = mrc_conn_deadline(p.a.get());
		// the reordering window, and for an unasked delivery the
		// receiver's ACK hold
		EXPECT_EQ(due, acked_at + rtt / 4 +
			  (mode == DELIVERY ? p.cfg.path.ack_delay_ns : 0));
		mrc_conn_on_timer(p.a.get(), due - 1);
		EXPECT_FALSE(mrc_conn_tx_next(p.a.get(), due - 1, &re));
		mrc_conn_on_timer(p.a.get(), due);
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), due, &re));
		EXPECT_EQ(re.offset, t[2].offset);
		EXPECT_TRUE(re.flags & MRC_F_RETX);
		EXPECT_TRUE(re.flags & MRC_F_ACK_REQ);
		EXPECT_EQ(p.a->path[t[2].path_id].tx.lost_rack, 1u);
		EXPECT_EQ(p.a->path[t[0].path_id].tx.late_acks, 0u);
		// the original was only late: the window widens
		mrc_rx_seg late = Pair::rx_of(t[2]);
		ASSERT_EQ(mrc_conn_rx_data(p.b.get(), due + 1000, &late, nullptr),
			  MRC_RX_NEW);
		while (mrc_conn_ack_next(p.b.get(), due + 1000 +
					 p.cfg.path.ack_delay_ns, nullptr, &ack))
			ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), due + 50000, &ack));
		EXPECT_EQ(p.a->path[t[2].path_id].tx.late_acks, 1u);
		EXPECT_EQ(p.a->rack_mult, 2u);
	}
}

// [REL-25] an idle sender's last segments go twice, once each, only while
// nothing else waits; either copy completes the message
TEST(Conn, TailDupCopiesAnIdleTailOnce)
{
	for (uint32_t k : {0u, 2u}) {
		Pair p(2, 1024);
		mrc_tx_seg t[4], d[2], x;
		mrc_completion done;
		mrc_ack_info ack;

		p.a->cfg.tail_dup = k;
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 4096, 1, nullptr));
		for (auto &s : t)
			ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 1000, &s));
		ASSERT_TRUE(t[3].flags & MRC_F_LAST);
		if (!k) {
			EXPECT_FALSE(mrc_conn_tx_next(p.a.get(), 1000, &x));
			EXPECT_EQ(p.a->stats.tx_dups, 0u);
			continue;
		}
		// new data goes first: a sender that keeps sending never copies
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 1024, 2, nullptr));
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 1000, &x));
		EXPECT_FALSE(x.flags & MRC_F_RETX);
		EXPECT_EQ(x.total_len, 1024u);
		// that message's end is the tail now: it and the one before
		for (auto &s : d)
			ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 1100, &s));
		EXPECT_EQ(d[0].msn, t[3].msn);
		EXPECT_EQ(d[0].offset, t[3].offset);
		EXPECT_EQ(d[1].msn, x.msn);
		for (auto &s : d) {
			EXPECT_TRUE(s.flags & MRC_F_RETX);
			EXPECT_TRUE(s.flags & MRC_F_ACK_REQ);
		}
		EXPECT_NE(d[0].psn, t[3].psn);
		EXPECT_FALSE(mrc_conn_tx_next(p.a.get(), 1200, &x)) << "once";
		EXPECT_EQ(p.a->stats.tx_dups, 2u);
		EXPECT_EQ(p.a->stats.tx_resends, 0u);

		// t[3] is lost: its copy completes the first message
		for (int i : {0, 1, 2}) {
			mrc_rx_seg s = Pair::rx_of(t[i]);
			ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 2000, &s, nullptr),
				  MRC_RX_NEW);
		}
		EXPECT_FALSE(mrc_conn_rx_poll(p.b.get(), &done));
		mrc_rx_seg s = Pair::rx_of(d[0]);
		ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 2100, &s, nullptr), MRC_RX_NEW);
		ASSERT_TRUE(mrc_conn_rx_poll(p.b.get(), &done));
		EXPECT_EQ(done.len, 4096u);
		while (mrc_conn_ack_next(p.b.get(), 2100, nullptr, &ack))
			ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 3000, &ack));
		ASSERT_TRUE(mrc_conn_tx_poll(p.a.get(), &done));
		EXPECT_EQ(done.cookie, 1u);
		EXPECT_EQ(done.status, MRC_CONN_OK);
		// the lost original, found lost later, queues no resend
		mrc_conn_on_timer(p.a.get(), 1000000000);
		while (mrc_conn_tx_next(p.a.get(), 1000000000, &x))
			EXPECT_NE(x.msn, t[3].msn) << "resent a settled segment";
		EXPECT_EQ(p.a->stats.tx_dups, 2u);
	}
	// a tail longer than the segment table is refused
	Pair p;
	mrc_conn_cfg cfg = p.cfg;

	cfg.tail_dup = MRC_TX_SEGS + 1;
	EXPECT_FALSE(p.a->init(cfg, 0));
}

// [REL-21] a lingering receiver acknowledges resends of what it placed and
// nothing else
TEST(Conn, LingerAcksOnlyWhatWasPlaced)
{
	Pair p(1, 1024);
	mrc_tx_seg t[3];
	mrc_ack_info ack;

	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 2048, 1, nullptr));
	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 1024, 2, nullptr));
	for (auto &s : t)
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 0, &s));
	mrc_rx_seg s0 = Pair::rx_of(t[0]), s1 = Pair::rx_of(t[1]);
	ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 10, &s0, nullptr), MRC_RX_NEW);
	ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 10, &s1, nullptr), MRC_RX_NEW);
	while (mrc_conn_ack_next(p.b.get(), 10, nullptr, &ack))
		;
	// b goes away; its ACK was lost, so a resends segment 1 under a new
	// PSN, and sends message 2 that b never placed
	mrc_rx_seg again = s1;
	again.psn = t[2].psn + 1;
	mrc_rx_seg fresh = Pair::rx_of(t[2]);
	EXPECT_EQ(mrc_conn_rx_linger(p.b.get(), 20, &fresh), MRC_RX_DROP);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 20, nullptr, &ack));
	EXPECT_EQ(mrc_conn_rx_linger(p.b.get(), 30, &again), MRC_RX_DUP);
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), 30, nullptr, &ack));
	// the ACK covers the resend but leaves the unplaced PSN a hole
	EXPECT_EQ(ack.sack.cum, t[2].psn);
	EXPECT_EQ(ack.sack.bits[0], 1ull);
	// and a copy of an old PSN is answered too
	EXPECT_EQ(mrc_conn_rx_linger(p.b.get(), 40, &s0), MRC_RX_DUP);
	EXPECT_TRUE(mrc_conn_ack_next(p.b.get(), 40, nullptr, &ack));
}

// [REL-18] completions reported after the last ACK went out still reach
// the sender: half a window of them makes a window update due
TEST(Conn, WindowUpdateWhenHeadMovesHalfAWindow)
{
	Pair p(2, 1024);
	mrc_tx_seg t;
	mrc_completion done;
	mrc_ack_info ack;
	uint32_t n = 0;

	for (int i = 0; i < MRC_CONN_MSGS; i++)
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 0, i, nullptr));
	while (mrc_conn_tx_next(p.a.get(), 0, &t)) {
		mrc_rx_seg s = Pair::rx_of(t);
		ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 10, &s, nullptr), MRC_RX_NEW);
		n++;
	}
	ASSERT_EQ(n, (uint32_t)MRC_CONN_MSGS);
	// the ACKs go out before the completions are reported
	while (mrc_conn_ack_next(p.b.get(), 20, nullptr, &ack))
		ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 20, &ack));
	EXPECT_EQ(ack.msn_ack, 0u);
	for (int i = 0; i < MRC_CONN_MSGS / 2 - 1; i++)
		ASSERT_TRUE(mrc_conn_rx_poll(p.b.get(), &done));
	EXPECT_NE(mrc_conn_deadline(p.b.get()), 0u);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 30, nullptr, &ack));
	ASSERT_TRUE(mrc_conn_rx_poll(p.b.get(), &done));
	EXPECT_EQ(mrc_conn_deadline(p.b.get()), 0u);
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), 40, nullptr, &ack));
	EXPECT_EQ(ack.msn_ack, (uint32_t)MRC_CONN_MSGS / 2);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 50, nullptr, &ack));
}

// [REL-23] gaps found in one receive batch make one ACK, sent at its end:
// it covers every packet of the batch, and its ack_delay is the hold
TEST(Conn, OneAckForTheGapsOfABatch)
{
	Pair p(1, 1024);
	mrc_tx_seg t[5];
	mrc_ack_info ack;

	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 5 * 1024, 1, nullptr));
	for (auto &s : t)
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 0, &s));
	// t[0] is lost: every later arrival is out of order, an ACK due now
	for (int i = 1; i < 5; i++) {
		mrc_rx_seg s = Pair::rx_of(t[i]);
		ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 10, &s, nullptr), MRC_RX_NEW);
		EXPECT_EQ(mrc_conn_deadline(p.b.get()), 10u);
	}
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), 25, nullptr, &ack));
	EXPECT_EQ(ack.why, MRC_ACK_WHY_ORDER);
	EXPECT_EQ(ack.sack.cum, t[0].psn);
	EXPECT_EQ(ack.ack_delay, 15u);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 25, nullptr, &ack));
	// the sender learns of the whole batch: t[0] alone goes again
	ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 30, &ack));
	mrc_tx_seg r;
	ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 30, &r));
	EXPECT_TRUE(r.flags & MRC_F_RETX);
	EXPECT_EQ(r.offset, 0u);
	EXPECT_FALSE(mrc_conn_tx_next(p.a.get(), 30, &r));
}

namespace {

// One message of @len bytes from @from to @to at @now, all of it
// delivered; returns the flags of its last segment.
uint16_t deliver(mrc_conn *from, mrc_conn *to, uint64_t now, uint32_t len)
{
	mrc_tx_seg t;
	uint16_t flags = 0;

	EXPECT_TRUE(mrc_conn_tx_post(from, 0, len, 1, nullptr));
	while (mrc_conn_tx_next(from, now, &t)) {
		mrc_rx_seg s = mrcsim::rx_of(t);

		EXPECT_EQ(mrc_conn_rx_data(to, now, &s, nullptr), MRC_RX_NEW);
		flags = t.flags;
	}
	return flags;
}

// Every ACK @from owes at @now, to @to; how many.
int answer(mrc_conn *from, mrc_conn *to, uint64_t now)
{
	mrc_ack_info ack;
	int n = 0;

	while (mrc_conn_ack_next(from, now, nullptr, &ack)) {
		EXPECT_TRUE(mrc_conn_on_ack(to, now, &ack));
		n++;
	}
	return n;
}

// a asks b at 0; b answers at once and replies @reply later: from then
// on b holds its answers (reply_hold_ns @hold; coalescing, which bounds a
// hold too, kept out of the way)
void start_replying(Pair &p, uint64_t hold, uint64_t reply)
{
	p.a->cfg.reply_hold_ns = p.b->cfg.reply_hold_ns = hold;
	p.a->cfg.path.ack_delay_ns = p.b->cfg.path.ack_delay_ns = 10000000;
	// the first request: nothing says a reply comes
	EXPECT_TRUE(deliver(p.a.get(), p.b.get(), 0, 100) & MRC_F_ACK_REQ);
	EXPECT_EQ(answer(p.b.get(), p.a.get(), 0), 1);
	deliver(p.b.get(), p.a.get(), reply, 100);
	EXPECT_TRUE(p.b->reply_mode);
	EXPECT_EQ(answer(p.a.get(), p.b.get(), reply), 1);
}

} // namespace

// [REL-24] once the application has replied to a request soon after its
// answer left alone, the next answer waits for the reply and leaves with
// it; its ack_delay counts the hold
TEST(Conn, TheReplyCarriesTheAnswer)
{
	Pair p(1, 1024);
	const uint64_t us = 1000;
	mrc_completion done;
	mrc_ack_info ack;

	start_replying(p, 500 * us, 100 * us);

	ASSERT_TRUE(deliver(p.a.get(), p.b.get(), 300 * us, 100) &
		    MRC_F_ACK_REQ);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 300 * us, nullptr, &ack));
	// held four usual reply times, within reply_hold_ns
	EXPECT_EQ(mrc_conn_deadline(p.b.get()), 700 * us);
	// the reply leaves 60 us later: the answer is due with it
	mrc_tx_seg r;
	ASSERT_TRUE(mrc_conn_tx_post(p.b.get(), 0, 100, 2, nullptr));
	ASSERT_TRUE(mrc_conn_tx_next(p.b.get(), 360 * us, &r));
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), 360 * us, nullptr, &ack));
	EXPECT_EQ(ack.why, MRC_ACK_WHY_REQ);
	EXPECT_EQ(ack.ack_delay, 60 * us);
	EXPECT_EQ(p.b->stats.acks_rode, 1u);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 360 * us, nullptr, &ack));
	// a's request completes with the answer
	ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 400 * us, &ack));
	int sent = 0;
	while (mrc_conn_tx_poll(p.a.get(), &done))
		sent++;
	EXPECT_EQ(sent, 2);
}

// [REL-24] a held answer whose reply does not come goes when the hold
// ends, and the next request is answered at once again
TEST(Conn, AHeldAnswerGoesWhenNoReplyComes)
{
	Pair p(1, 1024);
	const uint64_t us = 1000;
	mrc_completion done;
	mrc_ack_info ack;

	start_replying(p, 100 * us, 80 * us);

	deliver(p.a.get(), p.b.get(), 200 * us, 100);
	// four times 80 us is more than reply_hold_ns: held 100 us
	EXPECT_EQ(mrc_conn_deadline(p.b.get()), 300 * us);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 299 * us, nullptr, &ack));
	mrc_conn_on_timer(p.b.get(), 300 * us);
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), 300 * us, nullptr, &ack));
	EXPECT_EQ(ack.ack_delay, 100 * us);
	EXPECT_FALSE(p.b->reply_mode);
	EXPECT_EQ(p.b->stats.holds_expired, 1u);
	ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 300 * us, &ack));
	// no longer held
	deliver(p.a.get(), p.b.get(), 400 * us, 100);
	EXPECT_EQ(answer(p.b.get(), p.a.get(), 400 * us), 1);
	while (mrc_conn_tx_poll(p.a.get(), &done))
		;
	// mrc_conn_ack_release() empties a hold at once (QP destroyed)
	deliver(p.b.get(), p.a.get(), 450 * us, 100);
	ASSERT_TRUE(p.b->reply_mode);
	answer(p.a.get(), p.b.get(), 450 * us);
	deliver(p.a.get(), p.b.get(), 500 * us, 100);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 500 * us, nullptr, &ack));
	mrc_conn_ack_release(p.b.get());
	EXPECT_TRUE(mrc_conn_ack_next(p.b.get(), 500 * us, nullptr, &ack));
}

// [REL-24] a hold may end on the endpoint's timer grain (the kernel's
// tick) rather than exactly, once the ping-pong is established: later,
// never earlier, and still within the ack_delay of its packets
TEST(Conn, AHoldEndsOnTheTimerGrainOnceThePingPongRuns)
{
	Pair p(1, 1024);
	const uint64_t us = 1000;
	mrc_ack_info ack;
	uint64_t t = 1000 * us;

	// a's request at @at: b holds the answer until @hold_end, then b
	// replies 100 us later and the answer rides
	auto round_trip = [&](uint64_t at, uint64_t hold_end) {
		deliver(p.a.get(), p.b.get(), at, 100);
		EXPECT_EQ(mrc_conn_deadline(p.b.get()), hold_end) << at;
		deliver(p.b.get(), p.a.get(), at + 100 * us, 100);
		answer(p.b.get(), p.a.get(), at + 100 * us);
		answer(p.a.get(), p.b.get(), at + 100 * us);
	};

	p.b->cfg.reply_hold_grain_ns = 4000 * us;
	start_replying(p, 500 * us, 100 * us);

	// the first holds of the mode end exactly: the last answer of an
	// exchange of a few messages (a handshake) does not wait a grain
	for (int i = 0; i < 8; i++, t += 1000 * us)
		round_trip(t, t + 400 * us);
	EXPECT_EQ(p.b->stats.acks_rode, 8u);

	// a hold that ends on the grain already is not moved
	round_trip(11600 * us, 12000 * us);

	// the packets' ack_delay still bounds a hold the grain stretches
	p.b->cfg.path.ack_delay_ns = 1000 * us;
	round_trip(13100 * us, 14100 * us);
	p.b->cfg.path.ack_delay_ns = 10000 * us;
	EXPECT_EQ(p.b->stats.acks_rode, 10u);

	// held 4 x 100 us, to 17500 us, rounded up to the grain; no reply
	deliver(p.a.get(), p.b.get(), 17100 * us, 100);
	EXPECT_EQ(mrc_conn_deadline(p.b.get()), 20000 * us);
	mrc_conn_on_timer(p.b.get(), 19999 * us);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 19999 * us, nullptr, &ack));
	mrc_conn_on_timer(p.b.get(), 20000 * us);
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), 20000 * us, nullptr, &ack));
	EXPECT_EQ(ack.ack_delay, 2900 * us);
	EXPECT_EQ(p.b->stats.holds_expired, 1u);
	EXPECT_FALSE(p.b->reply_mode);
}

// [REL-24] a resend that asks repairs a loss: answered at once, reply
// mode or not
TEST(Conn, AResendIsAnsweredAtOnce)
{
	Pair p(1, 1024);
	const uint64_t us = 1000;
	mrc_ack_info ack;
	mrc_tx_seg t;

	start_replying(p, 500 * us, 50 * us);

	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 100, 1, nullptr));
	ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 100 * us, &t));
	ASSERT_TRUE(t.flags & MRC_F_ACK_REQ);
	mrc_rx_seg s = Pair::rx_of(t);
	s.flags |= MRC_F_RETX;	// as if the first copy was lost
	ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 100 * us, &s, nullptr), MRC_RX_NEW);
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), 100 * us, nullptr, &ack));
	EXPECT_EQ(ack.ack_delay, 0u);
	EXPECT_EQ(p.b->stats.acks_rode, 0u);
}

// [REL-24] a reply cannot answer what has not all arrived: a request on
// a message still missing a segment (lost, late, or a window-limited
// sender asking mid-message) is answered at once; the same request
// after everything arrived waits for the reply
TEST(Conn, AnAnswerWaitsOnlyForWholeMessages)
{
	Pair p(2, 1024);
	const uint64_t us = 1000;
	mrc_ack_info ack;
	mrc_tx_seg t[2];

	start_replying(p, 500 * us, 50 * us);

	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 2048, 1, nullptr));
	ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 100 * us, &t[0]));
	ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 100 * us, &t[1]));
	ASSERT_TRUE(t[1].flags & MRC_F_ACK_REQ);
	// on two paths: no gap on t[1]'s path tells b what is missing
	ASSERT_NE(t[0].path_id, t[1].path_id);
	// t[0] is late, t[1] asks: answered at once
	mrc_rx_seg s = Pair::rx_of(t[1]);
	ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 100 * us, &s, nullptr),
		  MRC_RX_NEW);
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), 100 * us, nullptr, &ack));
	EXPECT_EQ(ack.why, MRC_ACK_WHY_REQ);
	EXPECT_EQ(ack.ack_delay, 0u);
	EXPECT_TRUE(p.b->reply_mode);
	// the message becomes whole late (not a resend): now its answer
	// waits for the reply
	s = Pair::rx_of(t[0]);
	ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 150 * us, &s, nullptr),
		  MRC_RX_NEW);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 150 * us, nullptr, &ack));
	EXPECT_GT(mrc_conn_deadline(p.b.get()), 150 * us);
	EXPECT_EQ(p.b->stats.acks_rode, 0u);
}

// with reply_hold_ns 0 (the core's default) nothing is ever held
TEST(Conn, NoHoldWithoutReplyHold)
{
	Pair p(1, 1024);

	for (uint64_t t = 0; t < 10; t++) {
		deliver(p.a.get(), p.b.get(), t * 100, 100);
		EXPECT_EQ(answer(p.b.get(), p.a.get(), t * 100), 1);
		deliver(p.b.get(), p.a.get(), t * 100 + 10, 100);
		EXPECT_EQ(answer(p.a.get(), p.b.get(), t * 100 + 10), 1);
	}
	EXPECT_FALSE(p.b->reply_mode);
}

// [REL-18] a window update acknowledges every path with unacknowledged
// packets: the sender frees a message only when all its segments are
// acknowledged, so one path's ACK alone would leave its window full until
// the other paths' coalescing delay ran out
TEST(Conn, WindowUpdateAcksEveryPath)
{
	Pair p(4, 1024);
	mrc_tx_seg t;
	mrc_completion done;
	mrc_ack_info ack;
	uint32_t paths = 0, n = 0;

	p.a->sched.burst = 1;
	p.b->cfg.path.ack_every = 1000;	// only the window update is due
	for (int i = 0; i < MRC_CONN_MSGS; i++) {
		uint32_t msn;

		// like READ requests: an answer will prove them, none asks
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 0, i, &msn));
		mrc_conn_tx_no_end_ack(p.a.get(), msn);
	}
	while (mrc_conn_tx_next(p.a.get(), 0, &t)) {
		mrc_rx_seg s = Pair::rx_of(t);
		ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 10, &s, nullptr), MRC_RX_NEW);
		n++;
	}
	ASSERT_EQ(n, (uint32_t)MRC_CONN_MSGS);
	EXPECT_FALSE(mrc_conn_ack_next(p.b.get(), 20, nullptr, &ack));
	for (int i = 0; i < MRC_CONN_MSGS / 2; i++)
		ASSERT_TRUE(mrc_conn_rx_poll(p.b.get(), &done));
	while (mrc_conn_ack_next(p.b.get(), 30, nullptr, &ack)) {
		EXPECT_EQ(ack.why, MRC_ACK_WHY_WINDOW);
		EXPECT_EQ(ack.msn_ack, (uint32_t)MRC_CONN_MSGS / 2);
		paths |= 1u << ack.path_id;
		ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), 30, &ack));
	}
	EXPECT_EQ(paths, 0xfu);
	// every message is acknowledged: the sender frees them all
	n = 0;
	while (mrc_conn_tx_poll(p.a.get(), &done))
		n++;
	EXPECT_EQ(n, (uint32_t)MRC_CONN_MSGS);
}

// [REL-18] an ACK that moves msn_ack, here one path's delayed ACK, brings
// the other paths' ACKs at once: the sender's messages are freed only when
// every path acknowledged its part
TEST(Conn, NewMsnAckBringsEveryPathsAck)
{
	Pair p(4, 1024);
	mrc_tx_seg t[4];
	mrc_completion done;
	mrc_ack_info ack;
	const uint64_t d = p.b->cfg.path.ack_delay_ns;
	uint32_t paths = 0;

	p.a->sched.burst = 1;
	p.b->cfg.path.ack_every = 1000;
	for (int i = 0; i < 4; i++) {
		uint32_t msn;

		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 0, i, &msn));
		mrc_conn_tx_no_end_ack(p.a.get(), msn);
	}
	for (auto &s : t)
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 0, &s));
	mrc_rx_seg s0 = Pair::rx_of(t[0]);
	ASSERT_EQ(mrc_conn_rx_data(p.b.get(), 0, &s0, nullptr), MRC_RX_NEW);
	for (int i = 1; i < 4; i++) {
		mrc_rx_seg s = Pair::rx_of(t[i]);
		ASSERT_EQ(mrc_conn_rx_data(p.b.get(), d / 2, &s, nullptr),
			  MRC_RX_NEW);
	}
	while (mrc_conn_rx_poll(p.b.get(), &done))
		;
	// only path 0's delay ran out; its ACK reports msn_ack 4...
	ASSERT_TRUE(mrc_conn_ack_next(p.b.get(), d, nullptr, &ack));
	EXPECT_EQ(ack.path_id, t[0].path_id);
	EXPECT_EQ(ack.msn_ack, 4u);
	ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), d, &ack));
	// ...and the others follow at the same instant
	while (mrc_conn_ack_next(p.b.get(), d, nullptr, &ack)) {
		paths |= 1u << ack.path_id;
		ASSERT_TRUE(mrc_conn_on_ack(p.a.get(), d, &ack));
	}
	EXPECT_EQ(paths, 0xfu & ~(1u << t[0].path_id));
	uint32_t n = 0;
	while (mrc_conn_tx_poll(p.a.get(), &done))
		n++;
	EXPECT_EQ(n, 4u);
}

// [REL-14] the last segment of a message asks for an ACK only when the
// sender has nothing more to send right away
TEST(Conn, LastSegmentAsksOnlyWhenSenderGoesIdle)
{
	Pair p(2, 1024);
	mrc_tx_seg t;
	std::vector<uint16_t> last_flags;

	for (int i = 0; i < 3; i++)
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 2048, i, nullptr));
	while (mrc_conn_tx_next(p.a.get(), 0, &t))
		if (t.flags & MRC_F_LAST)
			last_flags.push_back(t.flags);
	ASSERT_EQ(last_flags.size(), 3u);
	EXPECT_FALSE(last_flags[0] & MRC_F_ACK_REQ);
	EXPECT_FALSE(last_flags[1] & MRC_F_ACK_REQ);
	EXPECT_TRUE(last_flags[2] & MRC_F_ACK_REQ);
}

// [REL-14] [OPS-2] a request whose answer proves its receipt (READ, ATOMIC)
// does not ask at its end, even when the sender goes idle; a caller short
// of what ACKs give back makes the next segment ask, once
TEST(Conn, AnsweredMessageAsksNotAndAskAckAsksOnce)
{
	Pair p(1, 1024);
	mrc_tx_seg t;
	uint32_t msn;

	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 0, 1, &msn));
	mrc_conn_tx_no_end_ack(p.a.get(), msn);
	ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 0, &t));
	EXPECT_TRUE(t.flags & MRC_F_LAST);
	EXPECT_FALSE(t.flags & MRC_F_ACK_REQ);
	// the same, not answered: the idle sender asks
	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 0, 2, nullptr));
	ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 0, &t));
	EXPECT_TRUE(t.flags & MRC_F_ACK_REQ);
	// asked for: the segments up to the end of a message ask although
	// more follows, then not
	ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 2048, 3, nullptr));
	for (int i = 0; i < 2; i++)
		ASSERT_TRUE(mrc_conn_tx_post(p.a.get(), 0, 1024, 4 + i, nullptr));
	mrc_conn_tx_ask_ack(p.a.get());
	for (int i = 0; i < 2; i++) {
		ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 0, &t));
		EXPECT_TRUE(t.flags & MRC_F_ACK_REQ) << i;
	}
	EXPECT_TRUE(t.flags & MRC_F_LAST);
	ASSERT_TRUE(mrc_conn_tx_next(p.a.get(), 0, &t));
	EXPECT_FALSE(t.flags & MRC_F_ACK_REQ);
}
