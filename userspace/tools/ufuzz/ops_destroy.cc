// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Objects destroyed while work is outstanding: a CQ, PD or SRQ still in
// use (EBUSY), an MR under WRs in flight, a QP with its SQ full, a
// context closed with everything in it, and processes killed with
// traffic running (the kernel tears their context down itself).

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "../report.h"
#include "ufuzz.h"

namespace ufz {

namespace {

// A call that must fail with EBUSY: the object is in use. True when it
// was destroyed all the same.
bool busy(Env &e, const char *what, int err)
{
	e.t().owed++;
	if (err == EBUSY)
		note_errno(e, err);
	else
		unexpected(e, "%s while in use: %s", what, err ? strerror(err) : "succeeded");
	return !err;
}

// WRITEs, SENDs and READs through the API from @buf (@mr), as many as fit.
void fill_sq(Env &e, FQp &q, ibv_mr *mr, uint8_t *buf, Rng &rng)
{
	static const ibv_wr_opcode ops[] = {IBV_WR_RDMA_WRITE, IBV_WR_SEND, IBV_WR_RDMA_READ};

	for (uint32_t i = 0; i < kSqDepth; i++) {
		ibv_sge sg{reinterpret_cast<uintptr_t>(buf) + 4096 * (i % 16), 4096, mr->lkey};
		ibv_send_wr wr{}, *bad;

		wr.wr_id = tag(e, i);
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = q.type == IBV_QPT_UD ? IBV_WR_SEND : rng.pick(ops);
		wr.send_flags = rng.pct(50) ? IBV_SEND_SIGNALED : 0;
		if (q.type == IBV_QPT_UD) {
			sg.length = 512;
			wr.wr.ud.ah = e.ah;
			wr.wr.ud.remote_qpn = e.peer.ud_qpn;
			wr.wr.ud.remote_qkey = e.peer.ud_qkey;
		} else {
			wr.wr.rdma.remote_addr = q.peer_addr + 4096 * (i % 64);
			wr.wr.rdma.rkey = q.peer_rkey;
		}
		if (ibv_post_send(q.qp, &wr, &bad))
			break;
	}
}

// A QP with its SQ full, then its CQ, the PD and its MR are destroyed in
// an order that is partly wrong.
void destroy_busy(Env &e, Rng &rng)
{
	FQp q;
	constexpr size_t kLen = 64 << 10;
	auto *buf = static_cast<uint8_t *>(aligned_alloc(4096, kLen));
	ibv_mr *mr = ibv_reg_mr(e.pd, buf, kLen, static_cast<int>(IBV_ACCESS_LOCAL_WRITE));

	if (!buf || !mr) {
		unexpected(e, "reg_mr: %s", strerror(errno));
		free(buf);
		return;
	}
	fqp_create(e, q, rng.pct(70) ? IBV_QPT_RC : IBV_QPT_UD);
	if (fqp_arm(e, q))
		fill_sq(e, q, mr, buf, rng);
	if (busy(e, "destroy_cq", ibv_destroy_cq(q.cq)))
		q.cq = nullptr;
	if (busy(e, "dealloc_pd", ibv_dealloc_pd(e.pd)))
		mrc_tool::die("the PD is gone: nothing more to test");
	if (rng.pct(50)) {	// WRs in flight still name it
		if (ibv_dereg_mr(mr))
			unexpected(e, "dereg_mr under WRs in flight: %s", strerror(errno));
		mr = nullptr;
	}
	fqp_destroy(e, q);
	if (mr && ibv_dereg_mr(mr))
		unexpected(e, "dereg_mr: %s", strerror(errno));
	free(buf);
}

void destroy_srq_busy(Env &e)
{
	ibv_srq_init_attr sa{};
	FQp q;

	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	ibv_srq *srq = ibv_create_srq(e.pd, &sa);

	if (!srq) {
		unexpected(e, "create_srq: %s", strerror(errno));
		return;
	}
	fqp_create(e, q, IBV_QPT_RC, srq);
	bool gone = busy(e, "destroy_srq", ibv_destroy_srq(srq));

	fqp_destroy(e, q);
	if (!gone && ibv_destroy_srq(srq))
		unexpected(e, "destroy_srq: %s", strerror(errno));
}

// A context of its own with a QP full of WRs, closed without destroying
// anything: the kernel cleans up (the provider's memory is leaked).
void close_busy(Env &e, Rng &rng)
{
	Env x;
	FQp q;

	x.dev = e.dev;
	x.gidx = e.gidx;
	x.ctx = open_ctx(e.dev);
	x.pd = ibv_alloc_pd(x.ctx);
	x.op = e.op;
	x.peer = e.peer;
	x.ah = ibv_create_ah(x.pd, &e.ah_attr);
	constexpr size_t kLen = 64 << 10;
	auto *buf = static_cast<uint8_t *>(aligned_alloc(4096, kLen));
	ibv_mr *mr = x.pd ? ibv_reg_mr(x.pd, buf, kLen, static_cast<int>(IBV_ACCESS_LOCAL_WRITE)) : nullptr;

	if (!x.pd || !x.ah || !mr) {
		unexpected(e, "a second context: %s", strerror(errno));
	} else {
		fqp_create(x, q, IBV_QPT_UD);
		if (fqp_arm(x, q))
			fill_sq(x, q, mr, buf, rng);
		e.unexpected += x.unexpected;
	}
	if (ibv_close_device(x.ctx))
		unexpected(e, "close_device with objects: %s", strerror(errno));
	free(buf);
}

// A child with its own context floods the peer, or writes garbage into
// its rings, and is killed at a random moment; or it closes its context
// with everything in it and exits.
void kill_child(Env &e, Rng &rng)
{
	uint64_t seed = rng.next();
	useconds_t delay = static_cast<useconds_t>(1000 + rng.below(100000));
	bool close_first = rng.pct(20);
	pid_t pid = fork();

	if (pid < 0) {
		unexpected(e, "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		Rng r(seed);
		Env x;
		FQp q;

		x.dev = e.dev;
		x.ctx = open_ctx(e.dev);
		x.pd = ibv_alloc_pd(x.ctx);
		x.peer = e.peer;
		x.op = e.op;
		x.ah = x.pd ? ibv_create_ah(x.pd, &e.ah_attr) : nullptr;
		x.buf = static_cast<uint8_t *>(aligned_alloc(4096, kBufLen));
		x.mr = x.pd ? ibv_reg_mr(x.pd, x.buf, kBufLen, static_cast<int>(IBV_ACCESS_LOCAL_WRITE)) : nullptr;
		if (!x.ah || !x.mr)
			_exit(3);
		x.mr_ro = x.mr_pd2 = x.mr;
		x.ah_pd2 = x.ah_ctx2 = x.ah;
		fqp_create(x, q, IBV_QPT_UD);
		if (!fqp_arm(x, q))
			_exit(4);
		for (uint32_t round = 0;; round++) {
			uint32_t base = q.sq.mine();

			for (uint32_t i = 0; i < 8; i++)
				slot_send_garbage(x, q, q.sq.slot(base + i), round, r);
			q.sq.publish(base + 8);
			ring_sq(q);
			if (close_first && round == 4) {
				ibv_close_device(x.ctx);
				_exit(0);
			}
			if (fqp_state(q) != IBV_QPS_RTS)
				fqp_arm(x, q);
			ibv_wc wc[16];
			while (ibv_poll_cq(q.cq, 16, wc) > 0)
				;
		}
	}
	usleep(delay);
	kill(pid, SIGKILL);
	int st;

	if (waitpid(pid, &st, 0) != pid)
		unexpected(e, "waitpid: %s", strerror(errno));
	else if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) &&
		 !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		unexpected(e, "the child ended with status %#x", st);
}

}  // namespace

void op_destroy(Env &e, Pool &p, Rng &rng)
{
	(void)p;
	e.cls = kDestroy;
	e.t().ops++;
	switch (rng.below(4)) {
	case 0:
		destroy_busy(e, rng);
		break;
	case 1:
		destroy_srq_busy(e);
		break;
	case 2:
		close_busy(e, rng);
		break;
	default:
		kill_child(e, rng);
		break;
	}
}

}  // namespace ufz
