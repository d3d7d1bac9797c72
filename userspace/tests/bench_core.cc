// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Per-packet cost of the portable core (make bench-core).
//
//   BM_Send      sender side only: mrc_conn_tx_next() for every packet, an
//                ACK applied every 4 packets per path, completions polled.
//   BM_Receive   receiver side only: mrc_conn_rx_data() for every packet,
//                ACKs built as they fall due, completions polled.
//   BM_Loop      both ends, sender -> receiver -> ACK -> sender, with the
//                given random loss (per mille) on data packets.
// Time advances 100 ns per packet; messages are 64 KiB of 4 KiB segments
// sprayed over 4 paths. items_per_second is packets per second per core.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <random>
#include "sim/conn.h"
#include "sim/loopback.h"

extern "C" {
#include "core/conn.h"
}

namespace {

constexpr uint32_t kMss = 4096;
constexpr uint32_t kPaths = 4;
constexpr uint32_t kMsg = 64 * 1024;

mrc_conn_cfg bench_cfg()
{
	mrc_conn_cfg cfg;

	mrc_conn_cfg_default(&cfg, kPaths, kMss);
	cfg.nstreams = 2;
	return cfg;
}

void post_all(mrc_conn *c, uint64_t *cookie)
{
	while (mrc_conn_tx_post(c, (uint32_t)(*cookie & 1), kMsg, *cookie, nullptr))
		(*cookie)++;
}

void ack_path(mrc_conn *a, uint32_t path, uint64_t now)
{
	mrc_ack_info ack = {};

	ack.path_id = (uint8_t)path;
	ack.sack.cum = a->path[path].tx.snd_nxt;
	ack.tsecr = (uint32_t)(now - 20000);
	ack.msn_ack = a->msn_una;
	mrc_conn_on_ack(a, now, &ack);
}

void BM_Send(benchmark::State &state)
{
	std::unique_ptr<mrcsim::Conn> a(new mrcsim::Conn);
	mrc_conn_cfg cfg = bench_cfg();
	uint32_t since_ack[kPaths] = {};
	uint64_t now = 1000, cookie = 0, pkts = 0;
	mrc_completion done;
	mrc_tx_seg seg;

	a->init(cfg, now);
	for (auto _ : state) {
		if (!mrc_conn_tx_next(a.get(), now, &seg)) {
			/* everything posted is out: the last ACKs, then more */
			for (uint32_t p = 0; p < kPaths; p++)
				if (since_ack[p]) {
					since_ack[p] = 0;
					ack_path(a.get(), p, now);
				}
			while (mrc_conn_tx_poll(a.get(), &done))
				;
			/* the receiver's window moved on with the completions */
			ack_path(a.get(), 0, now);
			post_all(a.get(), &cookie);
			if (!mrc_conn_tx_next(a.get(), now, &seg)) {
				state.SkipWithError("sender stalled");
				break;
			}
		}
		pkts++;
		if (++since_ack[seg.path_id] == 4) {
			since_ack[seg.path_id] = 0;
			ack_path(a.get(), seg.path_id, now);
		}
		now += 100;
	}
	state.SetItemsProcessed((int64_t)pkts);
}
BENCHMARK(BM_Send);

// Generates the packets a sender would, without a sender.
struct Gen {
	uint32_t psn[kPaths] = {};
	uint32_t msn = 0, ssn[2] = {}, off = 0, path = 0;

	void next(mrc_rx_seg *s, uint64_t now)
	{
		uint32_t stream = msn & 1;

		*s = {};
		s->path_id = (uint8_t)path;
		s->psn = psn[path]++;
		path = (path + 1) % kPaths;
		s->msn = msn;
		s->ssn = ssn[stream];
		s->stream = (uint16_t)stream;
		s->offset = off;
		s->len = kMss;
		s->total_len = kMsg;
		s->tsval = (uint32_t)now;
		off += kMss;
		if (off == kMsg) {
			s->flags = MRC_F_LAST | MRC_F_ACK_REQ;
			off = 0;
			msn++;
			ssn[stream]++;
		}
	}
};

void BM_Receive(benchmark::State &state)
{
	std::unique_ptr<mrcsim::Conn> b(new mrcsim::Conn);
	mrc_conn_cfg cfg = bench_cfg();
	mrc_cc_share share;
	uint64_t now = 1000, pkts = 0;
	mrc_completion done;
	mrc_ack_info ack;
	mrc_rx_seg seg;
	Gen gen;

	b->init(cfg, now);
	mrc_cc_share_init(&share, 12500000000ull, 100000, now);
	for (auto _ : state) {
		gen.next(&seg, now);
		if (mrc_conn_rx_data(b.get(), now, &seg, &share) != MRC_RX_NEW) {
			state.SkipWithError("receiver refused a packet");
			break;
		}
		while (mrc_conn_rx_poll(b.get(), &done))
			;
		while (mrc_conn_ack_next(b.get(), now, &share, &ack))
			benchmark::DoNotOptimize(ack);
		pkts++;
		now += 100;
	}
	state.SetItemsProcessed((int64_t)pkts);
}
BENCHMARK(BM_Receive);

void BM_Loop(benchmark::State &state)
{
	std::unique_ptr<mrcsim::Conn> a(new mrcsim::Conn), b(new mrcsim::Conn);
	mrc_conn_cfg cfg = bench_cfg();
	double loss = (double)state.range(0) / 1000;
	std::mt19937_64 rng(1);
	std::uniform_real_distribution<double> uni(0, 1);
	mrc_cc_share share;
	uint64_t now = 1000, cookie = 0, pkts = 0;
	mrc_completion done;
	mrc_ack_info ack;
	mrc_tx_seg t;

	a->init(cfg, now);
	b->init(cfg, now);
	mrc_cc_share_init(&share, 12500000000ull, 100000, now);
	for (auto _ : state) {
		if (!mrc_conn_tx_next(a.get(), now, &t)) {
			while (mrc_conn_tx_poll(a.get(), &done))
				;
			post_all(a.get(), &cookie);
			if (!mrc_conn_tx_next(a.get(), now, &t)) {
				/* window full: let time pass to the next timer */
				now = std::max(now + 100,
					       std::min(mrc_conn_deadline(a.get()),
							mrc_conn_deadline(b.get())));
				mrc_conn_on_timer(a.get(), now);
				mrc_conn_on_timer(b.get(), now);
				continue;
			}
		}
		pkts++;
		if (loss == 0 || uni(rng) >= loss) {
			mrc_rx_seg s = mrcsim::rx_of(t);

			mrc_conn_rx_data(b.get(), now, &s, &share);
			while (mrc_conn_rx_poll(b.get(), &done))
				;
		}
		now += 100;
		while (mrc_conn_ack_next(b.get(), now, &share, &ack))
			mrc_conn_on_ack(a.get(), now, &ack);
		if (mrc_conn_deadline(b.get()) <= now || mrc_conn_deadline(a.get()) <= now) {
			mrc_conn_on_timer(a.get(), now);
			mrc_conn_on_timer(b.get(), now);
		}
	}
	if (a->error || b->error)
		state.SkipWithError("connection error");
	state.SetItemsProcessed((int64_t)pkts);
	state.counters["resends"] = (double)a->stats.tx_resends;
}
BENCHMARK(BM_Loop)->Arg(0)->Arg(10)->Arg(100);

} // namespace
