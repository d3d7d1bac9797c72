// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Churn: QPs, CQs, MRs and AHs made and destroyed by the thousand, each
// with verified traffic or with its WRs still in flight when it goes.
// Traffic: a verified RC stream and UD datagrams until a time is up or
// the device goes away under them (rmmod, netdev or namespace deletion).

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../pattern.h"
#include "ufuzz.h"

namespace ufz {

namespace {

using Clock = std::chrono::steady_clock;

// Waits for @n completions on @q's CQ; the number that succeeded, or -1
// on timeout (or once the device is gone).
int wait_n(Env &e, FQp &q, uint32_t n)
{
	std::vector<ibv_wc> wcs;
	auto end = Clock::now() + std::chrono::milliseconds(4 * e.wc_timeout_ms);
	int ok = 0;

	while (wcs.size() < n && Clock::now() < end && !e.dead) {
		poll_for(e, q.cq, wcs, 10, n);
		drain_async(e, e.ctx, IBV_EVENT_DEVICE_FATAL);
	}
	if (wcs.size() < n)
		return -1;
	for (const ibv_wc &w : wcs)
		ok += w.status == IBV_WC_SUCCESS;
	return ok;
}

int post(FQp &q, ibv_wr_opcode op, ibv_mr *mr, uint8_t *local, uint32_t len, uint64_t raddr,
	 Env &e, ibv_ah *ah)
{
	ibv_sge sg{reinterpret_cast<uintptr_t>(local), len, mr->lkey};
	ibv_send_wr wr{}, *bad;

	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (q.type == IBV_QPT_UD) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = e.peer.ud_qpn;
		wr.wr.ud.remote_qkey = e.peer.ud_qkey;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = q.peer_rkey;
	}
	return ibv_post_send(q.qp, &wr, &bad);
}

// RC: @len bytes of a pattern written to the peer and read back. UD:
// four datagrams. Returns false on a failure (reported).
bool traffic_round(Env &e, FQp &q, ibv_mr *mr, uint8_t *buf, uint32_t len, uint64_t seed,
		   ibv_ah *ah)
{
	if (q.type == IBV_QPT_UD) {
		uint32_t dlen = len < 512 ? len : 512;

		for (int i = 0; i < 4; i++)
			if (post(q, IBV_WR_SEND, mr, buf, dlen, 0, e, ah))
				return e.dead || (unexpected(e, "post_send: %s", strerror(errno)), false);
		int ok = wait_n(e, q, 4);

		if (ok == 4 || e.dead)
			return true;
		unexpected(e, "%d of 4 datagrams sent", ok);
		return false;
	}
	uint8_t *back = buf + len;
	uint64_t off = (seed % (q.peer_len / len)) * len;

	mrc_tool::fill(buf, len, seed);
	memset(back, 0, len);
	if (post(q, IBV_WR_RDMA_WRITE, mr, buf, len, q.peer_addr + off, e, ah) ||
	    post(q, IBV_WR_RDMA_READ, mr, back, len, q.peer_addr + off, e, ah))
		return e.dead || (unexpected(e, "post_send: %s", strerror(errno)), false);
	int ok = wait_n(e, q, 2);

	if (e.dead)
		return true;
	if (ok != 2) {
		unexpected(e, "WRITE + READ of %u bytes: %d of 2 succeeded", len, ok);
		return false;
	}
	if (long bad = mrc_tool::check(back, len, seed); bad >= 0) {
		unexpected(e, "%u bytes written and read back differ at byte %ld", len, bad);
		return false;
	}
	return true;
}

}  // namespace

int churn_main(Env &e, uint64_t cycles)
{
	auto t0 = Clock::now();
	uint64_t verified = 0, bytes = 0, early = 0;

	e.cls = kDestroy;
	for (uint64_t i = 0; i < cycles && !e.unexpected; i++) {
		Rng rng(e.seed, i);
		FQp q;
		uint32_t len = 4096u << rng.below(5);	// 4..64 KiB each way
		auto *buf = static_cast<uint8_t *>(aligned_alloc(4096, 2 * len));
		ibv_mr *mr = ibv_reg_mr(e.pd, buf, 2 * len, static_cast<int>(IBV_ACCESS_LOCAL_WRITE));
		ibv_ah *ah = ibv_create_ah(e.pd, &e.ah_attr);

		e.op = i;
		if (!mr || !ah) {
			unexpected(e, "reg_mr/create_ah: %s", strerror(errno));
			free(buf);
			break;
		}
		fqp_create(e, q, rng.pct(50) ? IBV_QPT_RC : IBV_QPT_UD, nullptr,
			   static_cast<int>(8 + rng.below(256)));
		q.patient = true;
		if (fqp_arm(e, q)) {
			if (rng.pct(20)) {
				// leave with work in flight: the destroys below race it
				post(q, q.type == IBV_QPT_UD ? IBV_WR_SEND : IBV_WR_RDMA_WRITE, mr,
				     buf, q.type == IBV_QPT_UD ? 256 : len, q.peer_addr, e, ah);
				early++;
			} else if (traffic_round(e, q, mr, buf, len, e.seed ^ i, ah)) {
				verified++;
				bytes += q.type == IBV_QPT_UD ? 0 : 2 * len;
			}
		}
		// the order of destruction varies: an MR may go before its QP
		if (rng.pct(30)) {
			if (ibv_dereg_mr(mr))
				unexpected(e, "dereg_mr before its QP: %s", strerror(errno));
			mr = nullptr;
		}
		fqp_destroy(e, q);
		if (mr && ibv_dereg_mr(mr))
			unexpected(e, "dereg_mr: %s", strerror(errno));
		if (ibv_destroy_ah(ah))
			unexpected(e, "destroy_ah: %s", strerror(errno));
		free(buf);
		drain_async(e, e.ctx, IBV_EVENT_DEVICE_FATAL);
		if ((i + 1) % 1000 == 0) {
			printf("churn: %llu cycles\n", (unsigned long long)i + 1);
			fflush(stdout);
		}
	}
	printf("churn: %llu cycles in %.1f s: %llu with verified traffic (%llu bytes RC), %llu "
	       "destroyed with WRs in flight, %llu unexpected\n",
	       (unsigned long long)e.op + 1,
	       std::chrono::duration<double>(Clock::now() - t0).count(),
	       (unsigned long long)verified, (unsigned long long)bytes,
	       (unsigned long long)early, (unsigned long long)e.unexpected);
	return e.unexpected ? 1 : 0;
}

int traffic_main(Env &e, int seconds)
{
	FQp rc, ud;
	constexpr uint32_t kLen = 64 << 10;
	auto *buf = static_cast<uint8_t *>(aligned_alloc(4096, 2 * kLen));
	ibv_mr *mr = ibv_reg_mr(e.pd, buf, 2 * kLen, static_cast<int>(IBV_ACCESS_LOCAL_WRITE));
	auto end = Clock::now() + std::chrono::seconds(seconds);
	uint64_t rounds = 0;

	e.cls = kDestroy;
	if (!mr) {
		unexpected(e, "reg_mr: %s", strerror(errno));
		return 1;
	}
	fqp_create(e, rc, IBV_QPT_RC);
	fqp_create(e, ud, IBV_QPT_UD);
	rc.patient = true;
	if (!fqp_arm(e, rc) || !fqp_arm(e, ud))
		return 1;
	while (Clock::now() < end && !e.dead && !e.unexpected) {
		e.op = rounds;
		if (!traffic_round(e, rc, mr, buf, kLen, e.seed ^ rounds, nullptr) ||
		    !traffic_round(e, ud, mr, buf, 512, 0, e.ah))
			break;
		drain_async(e, e.ctx, IBV_EVENT_DEVICE_FATAL);
		if (!rounds++) {
			printf("traffic: running\n");
			fflush(stdout);
		}
	}
	printf("traffic: %llu rounds verified, device %s, %llu unexpected\n",
	       (unsigned long long)rounds, e.dead ? "gone" : "present",
	       (unsigned long long)e.unexpected);
	fflush(stdout);
	if (e.dead)	// every object went with the device: nothing to destroy
		return 0;
	fqp_destroy(e, rc);
	fqp_destroy(e, ud);
	ibv_dereg_mr(mr);
	free(buf);
	return e.unexpected ? 1 : 0;
}

}  // namespace ufz
