// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// QP states changing under traffic: modify_qp to every state, legal or
// not, with good and garbage attributes, while a second thread rings the
// QP's doorbells and WQEs are in flight; and a QP destroyed while another
// thread rings it. Illegal changes must fail with an errno; afterwards the
// QP, brought back to RTS, must work.

#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "ufuzz.h"

namespace ufz {

namespace {

// Rings the SQ and RQ doorbells of QP @handle until stopped. Only system
// calls: the QP (and its rings) may be destroyed meanwhile.
struct Ringer {
	std::atomic<bool> stop{false};
	std::thread t;

	Ringer(ibv_context *ctx, uint32_t handle)
		: t([this, ctx, handle] {
			  while (!stop.load(std::memory_order_relaxed)) {
				  doorbell(ctx, IB_USER_VERBS_CMD_POST_SEND, handle);
				  doorbell(ctx, IB_USER_VERBS_CMD_POST_RECV, handle);
				  usleep(20);
			  }
		  })
	{
	}
	~Ringer()
	{
		stop = true;
		t.join();
	}
};

// A modify_qp to some state with some attributes: the kernel must refuse
// what IBA does not allow and take the rest.
void modify_any(Env &e, FQp &q, Rng &rng)
{
	static const ibv_qp_state states[] = {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
					      IBV_QPS_SQD, IBV_QPS_SQE, IBV_QPS_ERR};
	ibv_qp_attr a{};
	int mask = IBV_QP_STATE;

	a.qp_state = rng.pick(states);
	a.port_num = 1;
	a.qkey = q.type == IBV_QPT_UD ? kQkey : 0;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = q.peer_qpn ? q.peer_qpn : 1 + rng.u32() % 0xffffff;
	a.rq_psn = rng.u32() & 0xffffff;
	a.sq_psn = rng.u32() & 0xffffff;
	a.max_dest_rd_atomic = 1;
	a.max_rd_atomic = 1;
	a.ah_attr = e.ah_attr;
	a.timeout = 14;
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.min_rnr_timer = 1;
	// the attributes a transition usually needs, or any subset of them
	if (rng.pct(70)) {
		static const int more[] = {IBV_QP_PKEY_INDEX, IBV_QP_PORT, IBV_QP_ACCESS_FLAGS,
					   IBV_QP_QKEY, IBV_QP_AV, IBV_QP_PATH_MTU, IBV_QP_DEST_QPN,
					   IBV_QP_RQ_PSN, IBV_QP_SQ_PSN, IBV_QP_MAX_DEST_RD_ATOMIC,
					   IBV_QP_MAX_QP_RD_ATOMIC, IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT,
					   IBV_QP_RNR_RETRY, IBV_QP_MIN_RNR_TIMER};
		for (int m : more)
			if (rng.pct(50))
				mask |= m;
	}
	// values out of range
	switch (rng.below(8)) {
	case 0:
		a.timeout = 32 + static_cast<uint8_t>(rng.below(200));
		mask |= IBV_QP_TIMEOUT;
		break;
	case 1:
		a.path_mtu = static_cast<ibv_mtu>(6 + rng.below(10));
		mask |= IBV_QP_PATH_MTU;
		break;
	case 2:
		a.port_num = static_cast<uint8_t>(2 + rng.below(250));
		mask |= IBV_QP_PORT;
		break;
	case 3:
		a.qkey = 0x80000000u | rng.u32();	// controlled: not for a process
		mask |= IBV_QP_QKEY;
		break;
	case 4:
		a.ah_attr.grh.sgid_index = static_cast<uint8_t>(rng.below(256));
		mask |= IBV_QP_AV;
		break;
	default:
		break;
	}
	if (int err = ibv_modify_qp(q.qp, &a, mask)) {
		note_errno(e, err);
		return;
	}
	if (a.qp_state == IBV_QPS_RESET) {
		// the kernel caught up with the producer indices, or kept its own
		q.sq.publish(q.sq.consumer());
		if (q.rq.mapped())
			q.rq.publish(q.rq.consumer());
	}
}

void states_under_traffic(Env &e, FQp &q, Rng &rng)
{
	std::vector<ibv_wc> wcs;

	if (!fqp_arm(e, q))
		return;
	{
		Ringer ringer(e.ctx, q.qp->handle);
		uint32_t rounds = 4 + static_cast<uint32_t>(rng.below(24));

		for (uint32_t i = 0; i < rounds; i++) {
			uint32_t base = q.sq.mine(), n = static_cast<uint32_t>(rng.below(8));

			if (q.sq.free_slots() > n + 1) {
				for (uint32_t k = 0; k < n; k++)
					slot_good_send(e, q, q.sq.slot(base + k), tag(e, i * 8 + k), rng);
				q.sq.publish(base + n);
			}
			if (q.rq.mapped() && q.rq.free_slots() > 1) {
				slot_good_recv(e, q.rq.slot(q.rq.mine()), tag(e, 0x4000 + i), 512u << 10,
					       4096);
				q.rq.publish(q.rq.mine() + 1);
			}
			modify_any(e, q, rng);
			poll_for(e, q.cq, wcs, static_cast<int>(rng.below(3)));
		}
	}
	tally_wcs(e, wcs);
	// whatever state it is in: back to RTS with a new peer, and working
	if (!fqp_arm(e, q, true) || !finish_sends(e, q, {}))
		fqp_renew(e, q);
}

// READs nobody answers (the QP talks to a QP number the peer does not
// have), as many as max_rd_atomic lets out and more, then RESET, which
// drops them without completions. Connected again, the QP must READ as
// before: the count of READs outstanding ([OPS-4]) starts again too.
void reset_with_reads(Env &e, FQp &q, Rng &rng)
{
	uint32_t psn = rng.u32() & 0xffffff, nobody = 0xfff000 + rng.u32() % 0xfff;
	std::vector<Posted> posted;
	std::vector<ibv_wc> wcs;

	if (!fqp_reset(e, q) || !fqp_init(e, q))
		return;
	drain_cq(e, q.cq, wcs);
	if (int err = rc_connect(q.qp, e.ah_attr, nobody, psn, psn, true)) {
		unexpected(e, "modify_qp to QP %#x: %s", nobody, strerror(err));
		return;
	}
	uint32_t base = q.sq.mine(), n = 16 + static_cast<uint32_t>(rng.below(8));

	for (uint32_t i = 0; i < n; i++)
		slot_read(e, q, q.sq.slot(base + i), tag(e, i), 64);
	q.sq.publish(base + n);
	ring_sq(q);
	poll_for(e, q.cq, wcs, 100);	// they go out, nobody answers
	if (!fqp_arm(e, q, true))
		return;
	base = q.sq.mine();
	slot_read(e, q, q.sq.slot(base), tag(e, 0x100), 64);
	posted.push_back({tag(e, 0x100), false, describe_send(q.sq.slot(base))});
	q.sq.publish(base + 1);
	wcs.clear();
	if (!finish_sends(e, q, posted, wcs)) {
		fqp_renew(e, q);
		return;
	}
	for (const ibv_wc &c : wcs)
		if (c.status != IBV_WC_SUCCESS)
			unexpected(e, "a READ after a RESET that dropped %u unanswered READs: %s", n,
				   ibv_wc_status_str(c.status));
}

// A QP destroyed while another thread rings its doorbells.
void destroy_while_ringing(Env &e, Rng &rng)
{
	FQp q;
	ibv_cq *cq;

	fqp_create(e, q, rng.pct(50) ? IBV_QPT_UD : IBV_QPT_RC);
	if (!fqp_arm(e, q)) {
		fqp_destroy(e, q);
		return;
	}
	Ringer ringer(e.ctx, q.qp->handle);

	usleep(static_cast<useconds_t>(rng.below(2000)));
	for (int tries = 0;; tries++) {
		int err = ibv_destroy_qp(q.qp);

		if (!err)
			break;
		// uverbs refuses while a doorbell holds the QP: try again
		if (err != EBUSY || tries == 1000) {
			unexpected(e, "destroy_qp while rung: %s after %d tries", strerror(err), tries);
			return;
		}
		note_errno(e, err);
		usleep(100);
	}
	cq = q.cq;
	if (q.peer_qpn)
		peer_free(e.peer, q.peer_qpn);
	usleep(static_cast<useconds_t>(rng.below(2000)));	// rung after it went
	if (ibv_destroy_cq(cq))
		unexpected(e, "destroy_cq: %s", strerror(errno));
}

}  // namespace

void op_state(Env &e, Pool &p, Rng &rng)
{
	e.cls = kState;
	e.t().ops++;
	switch (rng.below(8)) {
	case 0:
	case 1:
		destroy_while_ringing(e, rng);
		break;
	case 2:
		reset_with_reads(e, p.rc, rng);
		break;
	default:
		states_under_traffic(e, rng.pct(50) ? p.rc : p.ud, rng);
		break;
	}
}

}  // namespace ufz
