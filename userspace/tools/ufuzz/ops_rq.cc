// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Receive rings and the SRQ: garbage slots that the kernel reads when it
// flushes them, when it pulls them (modify_srq) and when the peer's SENDs
// consume them.

#include <cerrno>
#include <cstring>

#include "ufuzz.h"

namespace ufz {

static bool modify_state(Env &e, FQp &q, ibv_qp_state s)
{
	ibv_qp_attr a{};

	a.qp_state = s;
	if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE)) {
		unexpected(e, "modify_qp to %d: %s", s, strerror(errno));
		return false;
	}
	return true;
}

// The peer sends @n messages of @size to @q (RC: over its connected QP;
// UD: from its UD QP) and answers once they completed on its side.
static void peer_sends(Env &e, FQp &q, uint32_t n, uint32_t size)
{
	PeerReq req{};

	req.n = n;
	req.size = size;
	if (q.type == IBV_QPT_UD) {
		req.op = kPeerUdSends;
		req.qpn = q.qp->qp_num;
		req.qkey = kQkey;
		memcpy(req.gid, e.gid.raw, 16);
	} else {
		req.op = kPeerSends;
		req.qpn = q.peer_qpn;
	}
	PeerResp r = peer_call(e.peer, req);

	if (r.status)
		unexpected(e, "peer could not send: status %u", r.status);
}

void op_rq(Env &e, Pool &p, Rng &rng)
{
	FQp &q = rng.pct(50) ? p.rc : p.ud;
	bool deliver = rng.pct(40);
	std::vector<Posted> posted;
	std::vector<ibv_wc> wcs;

	e.cls = kRq;
	e.t().ops++;
	// RESET empties the RQ: every completion below is of this op's WQEs
	if (deliver ? !fqp_arm(e, q, true) : !fqp_reset(e, q) || !fqp_init(e, q))
		return;
	drain_cq(e, q.cq, wcs);
	wcs.clear();
	Ring &r = q.rq;
	uint32_t base = r.mine(), n = 1 + static_cast<uint32_t>(rng.below(24));

	for (uint32_t i = 0; i < n; i++) {
		uint8_t *slot = r.slot(base + i);
		bool must = false;

		if (rng.pct(30))
			slot_good_recv(e, slot, tag(e, i), (512u << 10) + 4096 * i, 4096);
		else
			must = slot_recv_garbage(e, slot, r.r.slot_size, tag(e, i), kMaxSge, rng);
		posted.push_back({tag(e, i), must, describe_recv(slot)});
	}
	if (deliver) {
		r.publish(base + n);
		peer_sends(e, q, n, 1 + static_cast<uint32_t>(
					    rng.below(q.type == IBV_QPT_UD ? 512 : 8192)));
		poll_for(e, q.cq, wcs, 2000, n);
		modify_state(e, q, IBV_QPS_ERR);
	} else if (rng.pct(40)) {
		// a bogus producer: the flush at ERR must not read past the ring
		uint32_t bogus = base + r.r.num + 1 + static_cast<uint32_t>(rng.below(1u << 30));

		r.poke_producer(rng.pct(50) ? bogus : base - 1 - static_cast<uint32_t>(rng.below(r.r.num)));
		modify_state(e, q, IBV_QPS_ERR);
		ring_rq(q);
		poll_for(e, q.cq, wcs, 20);
		if (wcs.empty())
			e.t().ignored++;
		else
			unexpected(e, "a bogus RQ producer %#x (kernel at %#x) was flushed: %zu completions",
				   r.producer(), base, wcs.size());
		r.publish(base + n);
		ring_rq(q);	// in ERR the doorbell flushes what came since
	} else {
		r.publish(base + n);
		modify_state(e, q, IBV_QPS_ERR);
	}
	poll_for(e, q.cq, wcs, e.wc_timeout_ms, n);
	check_wcs(e, posted, wcs, true);
	if (!deliver)
		for (const ibv_wc &w : wcs)
			if (w.status != IBV_WC_WR_FLUSH_ERR)
				unexpected(e, "a receive never matched completed with %s",
					   ibv_wc_status_str(w.status));
}

void srq_account(Env &e, const std::vector<ibv_wc> &wcs)
{
	for (const ibv_wc &w : wcs) {
		auto &d = e.srq_posted;
		size_t i = 0;

		while (i < d.size() && d[i].id != w.wr_id)
			i++;
		if (i == d.size()) {
			unexpected(e, "an SRQ completion (%s) with wr_id %#llx, never posted or already completed",
				   ibv_wc_status_str(w.status), (unsigned long long)w.wr_id);
			continue;
		}
		if (d[i].must_fail && w.status == IBV_WC_SUCCESS)
			unexpected(e, "an SRQ WQE succeeded but must fail: %s", d[i].what.c_str());
		// a flush is no refusal: the QP failed before the slot was read
		if (d[i].must_fail && w.status != IBV_WC_WR_FLUSH_ERR)
			e.t().owed++;
		// earlier ones were taken by a QP that went to RESET holding them
		d.erase(d.begin(), d.begin() + static_cast<long>(i) + 1);
	}
	tally_wcs(e, wcs);
}

void op_srq(Env &e, Pool &p, Rng &rng)
{
	FQp &q = p.rc_srq;
	Ring r;
	std::vector<ibv_wc> wcs;

	e.cls = kSrq;
	e.t().ops++;
	ufz_srq_ring(e.srq, &r.r);
	drain_cq(e, q.cq, wcs);
	srq_account(e, wcs);
	wcs.clear();
	uint32_t base = r.mine(), out = base - r.consumer();
	uint32_t room = r.r.num - out, n = 1 + static_cast<uint32_t>(rng.below(16));

	if (n > room)
		n = room;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *slot = r.slot(base + i);
		bool must = false;

		if (rng.pct(30))
			slot_good_recv(e, slot, tag(e, i), (512u << 10) + 4096 * (i % 64), 4096);
		else
			must = slot_recv_garbage(e, slot, r.r.slot_size, tag(e, i), kMaxSge, rng);
		e.srq_posted.push_back({tag(e, i), must, describe_recv(slot)});
	}
	if (rng.pct(30)) {
		r.poke_producer(base + r.r.num + 1 + static_cast<uint32_t>(rng.below(1u << 30)));
		ring_srq(e.srq);
	}
	r.publish(base + n);
	out += n;
	if (rng.pct(50)) {
		// modify_srq pulls the ring: the kernel copies the slots now
		ibv_srq_attr a{};

		a.srq_limit = static_cast<uint32_t>(rng.below(out + 1));
		if (ibv_modify_srq(e.srq, &a, IBV_SRQ_LIMIT))
			unexpected(e, "modify_srq limit %u with %u posted: %s", a.srq_limit, out,
				   strerror(errno));
	}
	if (rng.pct(60)) {
		uint32_t m = out < 8 ? out : 8;

		if (!fqp_arm(e, q))
			return;
		peer_sends(e, q, m, 1 + static_cast<uint32_t>(rng.below(4096)));
		poll_for(e, q.cq, wcs, 2000, m);
		srq_account(e, wcs);
	}
	drain_async(e, e.ctx, IBV_EVENT_SRQ_LIMIT_REACHED);
}

}  // namespace ufz
