// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// libFuzzer target for the connection core as a hostile peer sees it
// ([REL-17], [REL-20]).
//
// The input is a script of operations on two connections A (sender) and B
// (receiver): post messages on A, move A's segments to B (optionally
// altered), inject arbitrary data segments into B and arbitrary ACKs into
// A, advance time and run timers, poll completions; B also replies with
// messages of its own, carried unaltered, so that [REL-24] holds its
// answers (reply_hold_ns from the input). Properties:
//  - no out-of-bounds access or undefined behaviour (ASan, UBSan);
//  - B reports completions per stream in SSN order, each with every byte
//    placed (placed == total), and A per stream in posting order;
//  - B never reports more bytes placed for a message than its length;
//  - an unaltered exchange never puts either side in error but "retry
//    exceeded" (the script may starve either sender of ACKs).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include "sim/conn.h"
#include "sim/loopback.h"

extern "C" {
#include "core/conn.h"
}

namespace {

struct Reader {
	const uint8_t *p;
	size_t n;

	uint8_t u8()
	{
		if (!n)
			return 0;
		n--;
		return *p++;
	}
	uint16_t u16() { return (uint16_t)(u8() | u8() << 8); }
	uint32_t u32() { return (uint32_t)u16() | (uint32_t)u16() << 16; }
};

void check(bool ok)
{
	if (!ok)
		abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static std::unique_ptr<mrcsim::Conn> a(new mrcsim::Conn), b(new mrcsim::Conn);
	Reader in = {data, size};
	mrc_conn_cfg cfg;
	uint32_t next_rx_ssn[MRC_MAX_STREAMS] = {}, next_tx_ssn[MRC_MAX_STREAMS] = {};
	uint32_t reply_rx_ssn = 0, reply_tx_ssn = 0;
	uint64_t now = 1000;
	bool hostile = false;
	mrc_tx_seg pend[16];
	uint32_t npend = 0;

	mrc_conn_cfg_default(&cfg, 1 + in.u8() % MRC_MAX_PATHS, 256);
	uint8_t k = in.u8();
	cfg.nstreams = 1 + k % MRC_MAX_STREAMS;
	/* [ENC-25] up to 4 segments per packet, once B's ACKs say so */
	cfg.pkt_max = 256 * (1 + k / MRC_MAX_STREAMS % 4);
	cfg.retry_limit = 3;
	cfg.reply_hold_ns = (uint64_t)in.u8() * 2000;
	if (!a->init(cfg, now) || !b->init(cfg, now))
		return 0;

	/* B's replies to A and A's ACKs of them, on stream 0, nothing lost */
	auto replies = [&]() {
		mrc_tx_seg t;
		mrc_ack_info ack;
		mrc_completion c;

		while (mrc_conn_tx_next(b.get(), now, &t)) {
			mrc_rx_seg s = mrcsim::rx_of(t);

			mrc_conn_rx_data(a.get(), now, &s, nullptr);
		}
		while (mrc_conn_ack_next(a.get(), now, nullptr, &ack))
			mrc_conn_on_ack(b.get(), now, &ack);
		while (mrc_conn_rx_poll(a.get(), &c))
			check(c.stream == 0 && c.ssn == reply_rx_ssn++);
		while (mrc_conn_tx_poll(b.get(), &c))
			check(c.stream == 0 && c.ssn == reply_tx_ssn++);
	};

	for (int steps = 0; in.n && steps < 4096; steps++) {
		uint8_t op = in.u8();
		mrc_completion c;

		switch (op % 9) {
		case 0: {	/* post */
			uint32_t stream = in.u8() % (cfg.nstreams + 1);
			uint32_t len = in.u16() % 4096;

			mrc_conn_tx_post(a.get(), stream, len, 0, nullptr);
			break;
		}
		case 1:		/* A sends; keep a few segments in hand */
			while (npend < 16 && mrc_conn_tx_next(a.get(), now, &pend[npend]))
				npend++;
			break;
		case 2:	/* deliver one held segment, maybe altered */
		case 3: {
			if (!npend)
				break;
			uint32_t i = in.u8() % npend;
			mrc_tx_seg t = pend[i];
			mrc_rx_seg s;

			pend[i] = pend[--npend];
			s = mrcsim::rx_of(t, in.u8() & 1);
			if (op % 8 == 3) {
				/* flip one field */
				uint32_t v = in.u32();

				hostile = true;
				switch (in.u8() % 8) {
				case 0: s.psn ^= v; break;
				case 1: s.msn ^= v; break;
				case 2: s.ssn ^= v; break;
				case 3: s.offset ^= v; break;
				case 4: s.len ^= v; break;
				case 5: s.total_len ^= v; break;
				case 6: s.stream ^= (uint16_t)v; break;
				default: s.path_id ^= (uint8_t)v; break;
				}
			}
			mrc_conn_rx_data(b.get(), now, &s, nullptr);
			break;
		}
		case 4: {	/* arbitrary segment into B */
			mrc_rx_seg s = {};

			hostile = true;
			s.psn = in.u32();
			s.msn = in.u8();
			s.ssn = in.u8();
			s.offset = in.u16();
			s.len = in.u16();
			s.total_len = in.u16();
			s.stream = in.u8();
			s.flags = in.u16();
			s.path_id = in.u8();
			s.ce = in.u8() & 1;
			mrc_conn_rx_data(b.get(), now, &s, nullptr);
			break;
		}
		case 5: {	/* B's real ACKs to A, or an arbitrary one */
			mrc_ack_info ack;

			if (in.u8() & 1) {
				while (mrc_conn_ack_next(b.get(), now, nullptr, &ack))
					mrc_conn_on_ack(a.get(), now, &ack);
				break;
			}
			hostile = true;
			memset(&ack, 0, sizeof(ack));
			ack.path_id = in.u8();
			ack.sack.cum = a->path[ack.path_id % MRC_MAX_PATHS].tx.snd_una + in.u8() - 128;
			for (uint64_t &w : ack.sack.bits)
				w = (uint64_t)in.u32() << 32 | in.u32();
			ack.ce_count = in.u32();
			ack.tsecr = in.u32();
			ack.ack_delay = in.u32();
			ack.msn_ack = a->msn_una + in.u8() - 64;
			ack.rate_hint = in.u32();
			ack.rx_max = in.u16();
			mrc_conn_on_ack(a.get(), now, &ack);
			break;
		}
		case 6:		/* time passes */
			now += (uint64_t)in.u16() * (in.u8() & 1 ? 1000 : 1);
			mrc_conn_on_timer(a.get(), now);
			mrc_conn_on_timer(b.get(), now);
			replies();
			break;
		case 8:		/* B replies */
			mrc_conn_tx_post(b.get(), 0, in.u16() % 2048, 0, nullptr);
			replies();
			break;
		default:	/* completions */
			while (mrc_conn_rx_poll(b.get(), &c)) {
				check(c.stream < cfg.nstreams);
				check(c.ssn == next_rx_ssn[c.stream]++);
			}
			while (mrc_conn_tx_poll(a.get(), &c)) {
				check(c.stream < cfg.nstreams);
				check(c.ssn == next_tx_ssn[c.stream]++);
			}
			break;
		}
		for (const mrc_rx_msg &m : b->rxm)
			check(m.state == 0 || m.placed <= m.total);
		if (!hostile)
			check((!b->error || b->error == MRC_CONN_E_RETRY) &&
			      (!a->error || a->error == MRC_CONN_E_RETRY));
	}
	return 0;
}
