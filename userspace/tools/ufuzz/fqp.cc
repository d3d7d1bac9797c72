// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The fuzzer's QPs: creation, (re)connection to a fresh peer QP after an
// operation left one in ERR, raw doorbells, and waiting for completions
// with a bound.

#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "../report.h"
#include "ufuzz.h"

namespace ufz {

using mrc_tool::die;
using Clock = std::chrono::steady_clock;

ibv_cq *make_cq(Env &e, ibv_context *ctx, int cqe)
{
	ibv_cq *cq = ibv_create_cq(ctx, cqe, nullptr, nullptr, 0);

	if (!cq && !e.dead)
		die("create_cq: %s", strerror(errno));
	return cq;
}

void fqp_create(Env &e, FQp &q, ibv_qp_type type, ibv_srq *srq, int cqe, uint32_t depth,
		uint32_t max_send_sge)
{
	ibv_qp_init_attr ia{};

	q = FQp{};
	q.type = type;
	q.srq = srq;
	q.depth = depth;
	q.max_sge = max_send_sge;
	q.cqe = cqe ? cqe : 4 * (kSqDepth + kRqDepth);
	q.cq = make_cq(e, e.ctx, q.cqe);
	ia.send_cq = q.cq;
	ia.recv_cq = q.cq;
	ia.srq = srq;
	ia.cap.max_send_wr = depth;
	ia.cap.max_recv_wr = srq ? 0 : depth;
	ia.cap.max_send_sge = max_send_sge;
	ia.cap.max_recv_sge = srq ? 0 : kMaxSge;
	ia.cap.max_inline_data = kMaxInline;
	ia.qp_type = type;
	q.qp = ibv_create_qp(e.pd, &ia);
	if (!q.qp)
		die("create_qp: %s", strerror(errno));
	ufz_qp_rings(q.qp, &q.sq.r, &q.rq.r);
	q.max_inline = ufz_qp_max_inline(q.qp);
}

void fqp_destroy(Env &e, FQp &q)
{
	if (q.qp && ibv_destroy_qp(q.qp))
		unexpected(e, "destroy_qp: %s", strerror(errno));
	if (q.cq && ibv_destroy_cq(q.cq))
		unexpected(e, "destroy_cq: %s", strerror(errno));
	if (q.peer_qpn)
		peer_free(e.peer, q.peer_qpn);
	q = FQp{};
}

void fqp_renew(Env &e, FQp &q)
{
	ibv_qp_type type = q.type;
	ibv_srq *srq = q.srq;
	int cqe = q.cqe;
	uint32_t depth = q.depth, max_sge = q.max_sge;

	fqp_destroy(e, q);
	fqp_create(e, q, type, srq, cqe, depth, max_sge);
}

int fqp_state(FQp &q)
{
	ibv_qp_attr a{};
	ibv_qp_init_attr ia{};

	if (ibv_query_qp(q.qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

// After RESET the kernel caught up with our producer index, or kept its
// own when ours was bogus: continue from where it is.
static void ring_resync(Ring &r)
{
	if (r.mapped())
		r.publish(r.consumer());
}

bool fqp_reset(Env &e, FQp &q)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RESET;
	if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE)) {
		unexpected(e, "modify_qp RESET: %s", strerror(errno));
		return false;
	}
	ring_resync(q.sq);
	ring_resync(q.rq);
	return true;
}

bool fqp_init(Env &e, FQp &q)
{
	ibv_qp_attr a{};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (q.type == IBV_QPT_UD) {
		a.qkey = kQkey;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (ibv_modify_qp(q.qp, &a, mask)) {
		unexpected(e, "modify_qp INIT: %s", strerror(errno));
		return false;
	}
	return true;
}

int rc_connect(ibv_qp *qp, const ibv_ah_attr &av, uint32_t dest_qpn, uint32_t rq_psn,
	       uint32_t sq_psn, bool patient)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 1;
	a.ah_attr = av;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
		return errno;
	// short timeouts: garbage that the other side never answers fails fast
	a.qp_state = IBV_QPS_RTS;
	a.timeout = patient ? 17 : 14;
	a.retry_cnt = patient ? 7 : 2;
	a.rnr_retry = patient ? 7 : 1;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = 16;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return errno;
	return 0;
}

static bool fqp_connect_rc(Env &e, FQp &q, uint32_t psn)
{
	PeerReq req{};

	if (q.peer_qpn)
		peer_free(e.peer, q.peer_qpn);
	q.peer_qpn = 0;
	req.op = kPeerConnect;
	req.qpn = q.qp->qp_num;
	req.psn = psn;
	req.flags = q.patient ? kPeerPatient : 0;
	memcpy(req.gid, e.gid.raw, 16);
	PeerResp r = peer_call(e.peer, req);

	if (r.status) {
		unexpected(e, "peer could not make a QP: status %u", r.status);
		return false;
	}
	q.peer_qpn = r.qpn;
	q.peer_rkey = r.rkey;
	q.peer_addr = r.addr;
	q.peer_len = r.len;

	if (int err = rc_connect(q.qp, e.ah_attr, r.qpn, r.psn, psn, q.patient)) {
		unexpected(e, "modify_qp RTR/RTS: %s", strerror(err));
		return false;
	}
	return true;
}

static bool fqp_connect_ud(Env &e, FQp &q, uint32_t psn)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE)) {
		unexpected(e, "modify_qp RTR: %s", strerror(errno));
		return false;
	}
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn;
	if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
		unexpected(e, "modify_qp RTS: %s", strerror(errno));
		return false;
	}
	return true;
}

bool fqp_arm(Env &e, FQp &q, bool fresh_peer)
{
	std::vector<ibv_wc> stale;

	if (!fresh_peer && fqp_state(q) == IBV_QPS_RTS)
		return true;
	if (!fqp_reset(e, q) || !fqp_init(e, q))
		return false;
	// completions of the last use are of no interest now
	drain_cq(e, q.cq, stale);
	q.arms++;
	uint32_t psn = (q.qp->qp_num * 7919u + q.arms * 104729u) & 0xffffff;

	return q.type == IBV_QPT_UD ? fqp_connect_ud(e, q, psn) : fqp_connect_rc(e, q, psn);
}

// --- doorbells ------------------------------------------------------------------

// A doorbell as the provider rings it: a POST_SEND, POST_RECV or
// POST_SRQ_RECV write command with no work request (uAPI header).
int doorbell(ibv_context *ctx, uint32_t command, uint32_t handle)
{
	struct {
		ib_uverbs_cmd_hdr hdr;
		ib_uverbs_post_send cmd;
	} c{};
	ib_uverbs_post_send_resp resp{};

	c.hdr.command = command;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = reinterpret_cast<uintptr_t>(&resp);
	c.cmd.qp_handle = handle;
	c.cmd.wqe_size = command == IB_USER_VERBS_CMD_POST_SEND ? sizeof(ib_uverbs_send_wr) :
								  sizeof(ib_uverbs_recv_wr);
	if (write(ctx->cmd_fd, &c, sizeof(c)) != static_cast<ssize_t>(sizeof(c)))
		return errno;
	return 0;
}

void ring_sq(FQp &q)
{
	doorbell(q.qp->context, IB_USER_VERBS_CMD_POST_SEND, q.qp->handle);
}

void ring_rq(FQp &q)
{
	doorbell(q.qp->context, IB_USER_VERBS_CMD_POST_RECV, q.qp->handle);
}

void ring_srq(ibv_srq *srq)
{
	doorbell(srq->context, IB_USER_VERBS_CMD_POST_SRQ_RECV, srq->handle);
}

// --- completions ----------------------------------------------------------------

void tally_wcs(Env &e, const std::vector<ibv_wc> &wcs)
{
	for (const ibv_wc &w : wcs) {
		if (w.status == IBV_WC_SUCCESS)
			e.t().wc_ok++;
		else if (w.status == IBV_WC_WR_FLUSH_ERR)
			e.t().wc_flush++;
		else
			e.t().wc_err++;
	}
}

static size_t poll_some(Env &e, ibv_cq *cq, std::vector<ibv_wc> &out)
{
	ibv_wc wc[32];
	int n = ibv_poll_cq(cq, 32, wc);

	if (n < 0) {
		unexpected(e, "poll_cq: %d", n);
		return 0;
	}
	out.insert(out.end(), wc, wc + n);
	return static_cast<size_t>(n);
}

void drain_cq(Env &e, ibv_cq *cq, std::vector<ibv_wc> &out)
{
	while (poll_some(e, cq, out))
		;
}

void poll_for(Env &e, ibv_cq *cq, std::vector<ibv_wc> &out, int ms, size_t until)
{
	auto end = Clock::now() + std::chrono::milliseconds(ms);

	do {
		if (!poll_some(e, cq, out))
			usleep(200);
	} while (out.size() < until && Clock::now() < end);
}

bool wait_wr(Env &e, ibv_cq *cq, uint64_t id, std::vector<ibv_wc> &out, FQp *ring)
{
	auto start = Clock::now(), last_ring = start;
	size_t seen = out.size();

	for (;;) {
		if (poll_some(e, cq, out)) {
			for (; seen < out.size(); seen++)
				if (out[seen].wr_id == id)
					return true;
			continue;
		}
		auto now = Clock::now();

		if (now - start > std::chrono::milliseconds(e.wc_timeout_ms))
			return false;
		// a process may ring whenever it likes; a QP that went to ERR
		// after the last ring flushes what was published since
		if (ring && now - last_ring > std::chrono::milliseconds(200)) {
			ring_sq(*ring);
			last_ring = now;
		}
		usleep(200);
	}
}

// --- the shared QPs ----------------------------------------------------------------

void pool_open(Env &e, Pool &p)
{
	ibv_srq_init_attr sa{};

	sa.attr.max_wr = kSrqDepth;
	sa.attr.max_sge = kMaxSge;
	e.srq = ibv_create_srq(e.pd, &sa);
	if (!e.srq)
		die("create_srq: %s", strerror(errno));
	fqp_create(e, p.rc, IBV_QPT_RC);
	// fewer SGEs than its slots hold: counts between the two must fail too
	fqp_create(e, p.ud, IBV_QPT_UD, nullptr, 0, kSqDepth, 2);
	fqp_create(e, p.rc_srq, IBV_QPT_RC, e.srq);
	fqp_create(e, p.cqq, IBV_QPT_UD, nullptr, 16);
}

void pool_close(Env &e, Pool &p)
{
	for (FQp *q : {&p.rc, &p.ud, &p.rc_srq, &p.cqq})
		fqp_destroy(e, *q);
}

}  // namespace ufz
