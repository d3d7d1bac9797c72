// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// [REL-10] Tail loss in a ping-pong: the last packet of a message that
// nothing follows has no gap and no later delivery to reveal its loss. The
// answer timeout finds it about one answer time after it left; the silence
// rule alone waits two RTTs and the peer's ack_delay (4 ms in the kernel).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "sim/conn.h"
#include "sim/loopback.h"

extern "C" {
#include "core/conn.h"
}

namespace {

constexpr uint64_t us = 1000;

// Two endpoints set up as the kernel module sets them where it matters
// here (ACKs coalesced up to 4 ms, answers held for replies, an RTO floor
// of 20 ms), a link of fixed one-way delay, and an application on each
// side that answers every message with one of its own (ib_write_lat).
class PingPong {
public:
	uint64_t delay = 100 * us;	// one way
	uint64_t think = 50 * us;	// the application's reply time
	// data from side @from that the network drops
	std::function<bool(int from, const mrc_tx_seg &)> drop;
	// ib_read_lat instead: side 0 posts a READ request (one empty
	// segment its response acknowledges, [OPS-2]), side 1 the response
	bool reads = false;

	PingPong()
	{
		mrc_conn_cfg cfg;

		mrc_conn_cfg_default(&cfg, 4, 4096);
		cfg.path.ack_delay_ns = 4000 * us;
		cfg.path.rto_min_ns = 20000 * us;
		cfg.path.rto_init_ns = 100000 * us;
		cfg.reply_hold_ns = 500 * us;
		for (auto &c : c_) {
			c.reset(new mrcsim::Conn);
			EXPECT_TRUE(c->init(cfg, 0));
		}
	}

	mrc_conn *side(int i) { return c_[i].get(); }

	// Run @n more round trips; returns each one's time, from the post of
	// side 0's message to the completion of side 1's reply at side 0.
	std::vector<uint64_t> rounds(int n)
	{
		std::vector<uint64_t> rt;

		if (!now_ && post_at_.empty())
			post_at_.push_back({0, 0});
		for (int steps = 0; (int)rt.size() < n; steps++) {
			if (steps > 100000) {
				ADD_FAILURE() << "stuck at " << now_;
				break;
			}
			now_ = next_event();
			run(rt);
		}
		return rt;
	}

private:
	struct Arrival {
		uint64_t at;
		int to;
		bool is_ack;
		mrc_tx_seg seg;
		mrc_ack_info ack;
	};
	struct Post {
		uint64_t at;
		int side;
	};

	uint64_t next_event() const
	{
		uint64_t t = ~0ull;

		for (const auto &a : net_)
			t = std::min(t, a.at);
		for (const auto &p : post_at_)
			t = std::min(t, p.at);
		for (const auto &c : c_)
			t = std::min(t, mrc_conn_deadline(c.get()));
		return std::max(t, now_);
	}

	void run(std::vector<uint64_t> &rt)
	{
		mrc_completion done;

		for (size_t i = 0; i < net_.size();) {
			if (net_[i].at > now_) {
				i++;
				continue;
			}
			Arrival a = net_[i];
			mrc_conn *to = side(a.to);

			net_.erase(net_.begin() + (long)i);
			if (a.is_ack) {
				EXPECT_TRUE(mrc_conn_on_ack(to, now_, &a.ack));
				continue;
			}
			mrc_rx_seg s = mrcsim::rx_of(a.seg);
			mrc_rx_verdict v = mrc_conn_rx_data(to, now_, &s, nullptr);
			EXPECT_TRUE(v == MRC_RX_NEW || v == MRC_RX_DUP);
			// [OPS-2] the response answers the READ, as rx.c says
			if (reads && a.to == 0 && v == MRC_RX_NEW)
				mrc_conn_tx_answered(to, read_msn_, now_);
			// ... and a repeated READ asks for the response again
			if (reads && a.to == 1 && v == MRC_RX_DUP)
				mrc_conn_tx_asked_again(to, now_);
		}
		for (int i = 0; i < 2; i++) {
			while (mrc_conn_rx_poll(side(i), &done)) {
				post_at_.push_back({now_ + think, i});
				if (i == 0)
					rt.push_back(now_ - ping_at_);
			}
			while (mrc_conn_tx_poll(side(i), &done))
				EXPECT_EQ(done.status, MRC_CONN_OK);
		}
		for (size_t i = 0; i < post_at_.size();) {
			if (post_at_[i].at > now_) {
				i++;
				continue;
			}
			int s = post_at_[i].side;
			uint32_t msn;

			if (s == 0)
				ping_at_ = now_;
			EXPECT_TRUE(mrc_conn_tx_post(side(s), 0,
						     reads && !s ? 0 : 4096, 1,
						     &msn));
			if (reads && !s) {
				mrc_conn_tx_no_end_ack(side(s), msn);
				read_msn_ = msn;
			}
			else if (reads)
				mrc_conn_tx_response(side(s), msn);
			post_at_.erase(post_at_.begin() + (long)i);
		}
		for (int i = 0; i < 2; i++) {
			if (mrc_conn_deadline(side(i)) <= now_)
				mrc_conn_on_timer(side(i), now_);
			send(i);
		}
	}

	// Everything side @from has to send now: its data, then the ACKs
	// due, which ride with it as the kernel bundles them ([REL-24]).
	void send(int from)
	{
		mrc_tx_seg t;
		mrc_ack_info k;

		while (mrc_conn_tx_next(side(from), now_, &t))
			if (!drop || !drop(from, t))
				net_.push_back({now_ + delay, 1 - from, false, t, {}});
		while (mrc_conn_ack_next(side(from), now_, nullptr, &k))
			net_.push_back({now_ + delay, 1 - from, true, {}, k});
	}

	std::unique_ptr<mrcsim::Conn> c_[2];
	std::vector<Arrival> net_;
	std::vector<Post> post_at_;
	uint64_t now_ = 0, ping_at_ = 0;
	uint32_t read_msn_ = 0;
};

uint64_t probes(mrc_conn *c)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < c->cfg.npaths; i++)
		n += c->path[i].tx.pto_fired;
	return n;
}

// Lossless round trips, then one whose message from side @lose_side is
// lost once; returns that round trip and the lossless one before it.
std::pair<uint64_t, uint64_t> lose_one(int lose_side, bool reads = false)
{
	PingPong pp;
	bool lost = false;

	pp.reads = reads;

	std::vector<uint64_t> warm = pp.rounds(30);
	// steady: every round trip two delays and two replies, none probed
	EXPECT_EQ(warm.back(), 2 * pp.delay + pp.think);
	EXPECT_EQ(probes(pp.side(0)) + probes(pp.side(1)), 0u);
	pp.drop = [&](int from, const mrc_tx_seg &t) {
		if (from != lose_side || lost || (t.flags & MRC_F_RETX))
			return false;
		return lost = true;
	};
	std::vector<uint64_t> rt = pp.rounds(4);
	EXPECT_TRUE(lost);
	EXPECT_EQ(rt.back(), warm.back());	// and steady again
	return {rt.front(), warm.back()};
}

// One message of side @lose_side lost once costs its round trip about one
// answer time more than a lossless one, not the silence rule's 4 ms and
// more (@what: the message, for the log).
void costs_about_one_answer_time(int lose_side, bool reads, const char *what)
{
	auto [lossy, clean] = lose_one(lose_side, reads);

	printf("  round trip %llu us lossless, %llu us with the %s lost\n",
	       (unsigned long long)(clean / us), (unsigned long long)(lossy / us),
	       what);
	EXPECT_GT(lossy, clean);
	EXPECT_LE(lossy, 2 * clean + clean / 2) << "lossless " << clean;
}

} // namespace

// [REL-10] the ping (a message that asked for an ACK and that nothing
// follows) is lost: the answer timeout resends it, and the round trip
// costs about one answer time more, not the silence rule's 4 ms and more
TEST(TailLoss, ALostRequestIsResentAfterAboutOneAnswerTime)
{
	costs_about_one_answer_time(0, false, "ping");
}

// [REL-10] the reply is lost, and with it the answer that rode it: both
// sides' answer timeouts fire; the round trip again costs about one
// answer time more
TEST(TailLoss, ALostReplyIsResentAfterAboutOneAnswerTime)
{
	costs_about_one_answer_time(1, false, "reply");
}

// [REL-10] [OPS-2] ib_read_lat: the READ request is lost. It asks for no
// ACK (its response acknowledges it), but its response is its answer: the
// answer timeout resends it as it does an unanswered ping
TEST(TailLoss, ALostReadRequestIsResentAfterAboutOneAnswerTime)
{
	costs_about_one_answer_time(0, true, "READ request");
}

// ... or its response is: the requester's answer timeout resends the
// request, and the repeated request makes the responder resend what of
// the response is still unacknowledged, as IB responders execute a
// repeated READ again
TEST(TailLoss, ALostReadResponseIsResentAfterAboutOneAnswerTime)
{
	costs_about_one_answer_time(1, true, "READ response");
}

// [REL-10] a repeated request probes what is in flight once per round
// trip at most: a packet sent since crossed the question, and a peer
// that keeps asking must not make us resend one packet per question
TEST(TailLoss, ARepeatedRequestProbesOncePerRoundTrip)
{
	mrc_path_cfg cfg;
	mrc_path_tx tx;
	mrc_path_ring ring;

	mrc_path_cfg_default(&cfg);
	mrc_path_tx_init(&tx, &cfg, 0, &ring);
	tx.srtt_ns = 200 * us;
	mrc_path_tx_probe_now(&tx, 1000 * us);
	EXPECT_EQ(tx.pto_deadline, 0u);			// nothing in flight
	mrc_path_tx_send(&tx, &cfg, 1000 * us, 1, 100);
	uint64_t due = tx.pto_deadline;
	mrc_path_tx_probe_now(&tx, 1100 * us);
	EXPECT_EQ(tx.pto_deadline, due);		// sent 100 us ago
	mrc_path_tx_probe_now(&tx, 1300 * us);
	EXPECT_EQ(tx.pto_deadline, 1300 * us);		// a round trip ago
}

// [REL-10] the answer timeout: timed from the answers, armed by a request,
// doubled per probe without progress, reset by progress
TEST(TailLoss, AnswerTimeoutFromAnswersDoubledPerProbe)
{
	mrc_path_cfg cfg;
	mrc_path_tx tx;
	mrc_path_ring ring;
	uint32_t acked[MRC_PATH_WND], lost[MRC_PATH_WND];
	mrc_path_events ev = {acked, lost, 0, 0, 0, 0, 0, false, 0, 0, 0};
	mrc_sack sack = {};

	mrc_path_cfg_default(&cfg);
	cfg.ack_delay_ns = 4000 * us;
	cfg.rto_min_ns = 20000 * us;
	mrc_path_tx_init(&tx, &cfg, 0, &ring);
	tx.rto_ns = cfg.rto_min_ns;

	// no answer timed yet: only the silence rule and the RTO
	uint32_t psn = mrc_path_tx_send(&tx, &cfg, 0, 1, 100);
	mrc_path_tx_asked(&tx, 0, psn, true);
	EXPECT_EQ(mrc_path_tx_answer_timeout(&tx), 0u);
	// answered 300 us later, of which 200 us the peer's hold
	sack.cum = psn + 1;
	ASSERT_EQ(mrc_path_tx_on_ack(&tx, &cfg, 300 * us, &sack, 100 * us, &ev),
		  MRC_ACK_OK);
	EXPECT_EQ(tx.ans_srtt_ns, 300 * us);
	uint64_t ato = mrc_path_tx_answer_timeout(&tx);
	EXPECT_EQ(ato, 300 * us + 4 * 150 * us);

	// a request not answered: the probe falls due one answer timeout
	// after it left, well before 2 srtt + 4 rttvar + ack_delay
	psn = mrc_path_tx_send(&tx, &cfg, 1000 * us, 2, 100);
	mrc_path_tx_asked(&tx, 1000 * us, psn, true);
	EXPECT_EQ(tx.pto_deadline, 1000 * us + ato);
	EXPECT_EQ(mrc_path_tx_on_timer(&tx, &cfg, 1000 * us + ato - 1, &ev),
		  MRC_TIMER_NONE);
	EXPECT_EQ(mrc_path_tx_on_timer(&tx, &cfg, 1000 * us + ato, &ev),
		  MRC_TIMER_PTO);
	ASSERT_EQ(ev.n_lost, 1u);
	EXPECT_EQ(tx.pto_answer, 1u);
	EXPECT_EQ(tx.retries, 0u);

	// its probe (idle too) unanswered: twice the wait
	uint64_t t = 1000 * us + ato;
	psn = mrc_path_tx_send(&tx, &cfg, t, 2, 100);
	mrc_path_tx_asked(&tx, t, psn, true);
	EXPECT_EQ(tx.pto_deadline, t + 2 * ato);

	// progress ends the doubling; a request not in flight arms nothing
	sack.cum = psn + 1;
	ASSERT_EQ(mrc_path_tx_on_ack(&tx, &cfg, t + 300 * us, &sack, 0, &ev),
		  MRC_ACK_OK);
	EXPECT_EQ(tx.probes, 0u);
	EXPECT_EQ(tx.pto_deadline, 0u);
	EXPECT_EQ(tx.rto_deadline, 0u);

	// a request a full window made waits behind the window: only the
	// silence rule for it
	t += 1000 * us;
	psn = mrc_path_tx_send(&tx, &cfg, t, 3, 100);
	uint64_t silence = tx.pto_deadline;
	EXPECT_GT(silence, t + 2 * ato);
	mrc_path_tx_asked(&tx, t, psn, false);
	EXPECT_EQ(tx.pto_deadline, silence);
	mrc_path_tx_asked(&tx, t, psn, true);
	EXPECT_EQ(tx.pto_deadline, t + mrc_path_tx_answer_timeout(&tx));
}
