// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_verbs_contract: the provider against the verbs contract hardware
// providers keep, on one device: two RC QPs of it connected to each other
// (loopback, [ENC-17]).
//
//   send-reset, send-init, send-rtr   ibv_post_send before RTS fails with
//                     EINVAL and *bad_wr at the first WR; ibv_wr_complete
//                     too; nothing of it ever completes
//   recv-reset        ibv_post_recv in RESET: EINVAL; in INIT it works
//   recv-sges, send-sges   one SGE more than the QP's cap: EINVAL at post
//   cq-ex-flags       ibv_create_cq_ex with a field the ring does not
//                     carry (completion timestamp): EOPNOTSUPP
//   cq-ex-empty       ibv_start_poll on an empty CQ: ENOENT
//   cq-ex-recv        a SEND_WITH_IMM of two SGEs (ibv_wr_* API) lands,
//                     bytes compared, and its receive completion reads
//                     right through every ibv_wc_read_*() accessor
//   send-cq           the sender's CQ holds that send's completion and
//                     nothing for any refused post
//   resize-cq         the extended CQ, holding three receive completions:
//                     resized to 1 it refuses, to 64 it keeps all three
//   srq-resize        a user SRQ of 4 holding 3 receives: to 64 keeps them
//                     and takes 40 more, below the 43 posted it refuses;
//                     43 SENDs land in order, every byte checked
//   rereg-trans       ibv_rereg_mr to a new range: a WRITE with the new
//                     rkey lands there, the old range untouched
//   rereg-pd          to another PD and back
//   rereg-access      without remote write: the WRITE completes with
//                     REM_ACCESS_ERR and nothing lands (QPs in ERR)
//   limit-msg         a SEND of max_msg_sz (2 GiB) + 1 bytes: EINVAL at post
//   attr-ids          vendor and part ID, firmware version, max_msg_sz,
//                     port capabilities (CM, IP-based GIDs), max_mw 65536
//                     and the memory window capabilities (type 1 and 2B)
//   limit-mw          max_mw windows allocated, one more fails with ENOMEM
//   uc-read, uc-atomic   on two connected UC QPs of the device ([OPS-41]):
//                     RDMA READ and FETCH_ADD fail at post (EINVAL, bad_wr)
//   uc-data           a SEND and a WRITE with immediate between them land
//                     whole, every byte compared, the receives in order
//   limit-*           max_cqe, max_qp_wr (send, receive), max_sge (send,
//                     receive), max_srq_wr, max_srq_sge, max_qp_rd_atom,
//                     max_qp_init_rd_atom: at the limit works, one past fails
//
//   mrc_verbs_contract -d DEV [-g GID_INDEX]
//
// Output: "ok STEP" / "fail STEP: why" lines and "all steps passed"; exit
// status 0 when every step passed.

#include <infiniband/verbs.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "device.h"
#include "loopback.h"
#include "report.h"

const char *const mrc_tool::kName = "mrc_verbs_contract";

namespace {

using mrc_tool::die;
using mrc_tool::open_device;
using mrc_tool::failures;
using mrc_tool::report;
using mrc_tool::qp_try_rts;
using mrc_tool::wait_for;

constexpr uint32_t kBuf = 8192;
constexpr uint32_t kSges = 2;
constexpr uint32_t kImm = 0x1234abcd;

struct Env {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_mr *mr = nullptr;
	uint8_t *buf = nullptr;
	ibv_cq *scq = nullptr;		// A's send CQ (plain)
	ibv_cq_ex *rcq = nullptr;	// B's receive CQ (extended)
	ibv_cq *other = nullptr;	// the rest
	ibv_qp *a = nullptr, *b = nullptr;
	ibv_gid gid = {};
	int gidx = 1;
};

ibv_qp *make_qp(Env &e, ibv_cq *scq, ibv_cq *rcq)
{
	ibv_qp_init_attr_ex ia = {};

	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = kSges;
	ia.cap.max_recv_sge = kSges;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.pd = e.pd;
	ia.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	ibv_qp *qp = ibv_create_qp_ex(e.ctx, &ia);
	if (!qp)
		die("create_qp_ex: %s", strerror(errno));
	return qp;
}

void to_init(ibv_qp *qp)
{
	if (mrc_tool::qp_try_init(qp, IBV_ACCESS_REMOTE_WRITE))
		die("INIT: %s", strerror(errno));
}

int try_rtr(Env &e, ibv_qp *qp, uint32_t dqpn, uint8_t rd_atomic)
{
	return mrc_tool::qp_try_rtr(qp, e.gid, e.gidx, dqpn, rd_atomic);
}

void to_rtr(Env &e, ibv_qp *qp, uint32_t dqpn)
{
	if (try_rtr(e, qp, dqpn, 1))
		die("RTR: %s", strerror(errno));
}

void to_rts(ibv_qp *qp)
{
	if (mrc_tool::qp_try_rts(qp, 1))
		die("RTS: %s", strerror(errno));
}

// A SEND of @nsge SGEs of 16 bytes from the buffer's start.
int post_send(Env &e, ibv_qp *qp, uint32_t nsge, ibv_send_wr **bad)
{
	ibv_sge sge[kSges + 1];
	ibv_send_wr wr = {};

	for (uint32_t i = 0; i < nsge; i++)
		sge[i] = { reinterpret_cast<uintptr_t>(e.buf) + 16 * i, 16,
			   e.mr->lkey };
	wr.wr_id = 0xbad;
	wr.sg_list = sge;
	wr.num_sge = static_cast<int>(nsge);
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	*bad = nullptr;
	int err = ibv_post_send(qp, &wr, bad);
	if (err && *bad != &wr)
		return -1;	// bad_wr must name the refused WR
	return err;
}

int post_recv(Env &e, ibv_qp *qp, uint32_t nsge, uint64_t wr_id,
	      uint32_t off)
{
	ibv_sge sge[kSges + 1];
	ibv_recv_wr wr = {}, *bad = nullptr;

	for (uint32_t i = 0; i < nsge; i++)
		sge[i] = { reinterpret_cast<uintptr_t>(e.buf) + off + 1024 * i,
			   1024, e.mr->lkey };
	wr.wr_id = wr_id;
	wr.sg_list = sge;
	wr.num_sge = static_cast<int>(nsge);
	int err = ibv_post_recv(qp, &wr, &bad);
	if (err && bad != &wr)
		return -1;
	return err;
}

// The ibv_wr_*() API: one SEND; its ibv_wr_complete()'s result.
int wr_send(Env &e, ibv_qp *qp, bool imm)
{
	ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);
	ibv_sge sge[kSges] = {
		{ reinterpret_cast<uintptr_t>(e.buf), 100, e.mr->lkey },
		{ reinterpret_cast<uintptr_t>(e.buf) + 200, 50, e.mr->lkey },
	};

	ibv_wr_start(x);
	x->wr_id = imm ? 7 : 0xbad;
	x->wr_flags = IBV_SEND_SIGNALED;
	if (imm)
		ibv_wr_send_imm(x, htobe32(kImm));
	else
		ibv_wr_send(x);
	ibv_wr_set_sge_list(x, kSges, sge);
	return ibv_wr_complete(x);
}

void check_refused(const char *step, int err)
{
	report(err == EINVAL, step, err == EINVAL ? "EINVAL" :
	       err < 0 ? "bad_wr does not name the refused WR" :
	       "returned %d (%s)", err, strerror(err));
}

void cq_ex_steps(Env &e)
{
	ibv_cq_ex *cqx = e.rcq;
	ibv_poll_cq_attr pa = {};
	int err;

	err = ibv_start_poll(cqx, &pa);
	report(err == ENOENT, "cq-ex-empty", "start_poll returned %d", err);
	if (!err)
		ibv_end_poll(cqx);

	// A's SEND_WITH_IMM: 100 bytes at 0 and 50 at 200
	for (uint32_t i = 0; i < 256; i++)
		e.buf[i] = static_cast<uint8_t>(i * 7 + 3);
	err = wr_send(e, e.a, true);
	if (err)
		die("wr_send: %s", strerror(err));
	bool got = wait_for([&] {
		err = ibv_start_poll(cqx, &pa);
		return err != ENOENT;
	});
	if (!got || err) {
		report(false, "cq-ex-recv", "no receive completion (%d)", err);
		return;
	}
	bool ok = cqx->status == IBV_WC_SUCCESS && cqx->wr_id == 200 &&
		  ibv_wc_read_opcode(cqx) == IBV_WC_RECV &&
		  ibv_wc_read_byte_len(cqx) == 150 &&
		  (ibv_wc_read_wc_flags(cqx) & IBV_WC_WITH_IMM) &&
		  be32toh(ibv_wc_read_imm_data(cqx)) == kImm &&
		  ibv_wc_read_qp_num(cqx) == e.b->qp_num &&
		  ibv_wc_read_vendor_err(cqx) == 0;
	char why[160];
	snprintf(why, sizeof(why),
		 "status %d wr_id %llu opcode %d len %u flags %#x imm %#x qp %u",
		 cqx->status, (unsigned long long)cqx->wr_id,
		 ibv_wc_read_opcode(cqx), ibv_wc_read_byte_len(cqx),
		 ibv_wc_read_wc_flags(cqx), be32toh(ibv_wc_read_imm_data(cqx)),
		 ibv_wc_read_qp_num(cqx));
	int more = ibv_next_poll(cqx);
	ibv_end_poll(cqx);
	// B's receive buffer: 1024 bytes at 4096, then 1024 at 5120
	const uint8_t *rx = e.buf + 4096;
	bool same = !memcmp(rx, e.buf, 100) && !memcmp(rx + 100, e.buf + 200, 50);
	report(ok && same && more == ENOENT, "cq-ex-recv", "%s%s%s", why,
	       same ? ", bytes match" : ", BYTES DIFFER",
	       more == ENOENT ? "" : ", a second completion");
}

void send_cq_step(Env &e)
{
	ibv_wc wc[4];
	int n = 0;

	wait_for([&] {
		int r = ibv_poll_cq(e.scq, 4 - n, wc + n);
		if (r > 0)
			n += r;
		return n > 0;
	});
	// anything refused would have completed by now, before or after it
	usleep(100000);
	int r = ibv_poll_cq(e.scq, 4 - n, wc + n);
	if (r > 0)
		n += r;
	report(n == 1 && wc[0].wr_id == 7 && wc[0].status == IBV_WC_SUCCESS &&
	       wc[0].opcode == IBV_WC_SEND, "send-cq",
	       "%d completion(s), first wr_id %llu status %d", n,
	       n ? (unsigned long long)wc[0].wr_id : 0ULL, n ? wc[0].status : -1);
}

// One completion of A's send CQ, or status -1 if none came.
ibv_wc one_send_wc(Env &e)
{
	ibv_wc wc = {};

	wc.status = static_cast<ibv_wc_status>(-1);
	wait_for([&] { return ibv_poll_cq(e.scq, 1, &wc) > 0; });
	return wc;
}

int rdma_write(Env &e, void *to, uint32_t rkey, uint64_t wr_id)
{
	ibv_sge sge = { reinterpret_cast<uintptr_t>(e.buf), 64, e.mr->lkey };
	ibv_send_wr wr = {}, *bad = nullptr;

	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(to);
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(e.a, &wr, &bad);
}

// ibv_resize_cq on a CQ holding completions nobody polled yet: too small
// for them it fails and keeps them; larger, they are all still there, in
// order, and the CQ reports its new size.
void resize_step(Env &e)
{
	ibv_cq *cq = ibv_cq_ex_to_cq(e.rcq);
	ibv_sge sge = { reinterpret_cast<uintptr_t>(e.buf), 16, e.mr->lkey };
	ibv_send_wr wr = {}, *bad = nullptr;
	int n = 0;

	for (uint64_t i = 0; i < 3; i++)
		if (post_recv(e, e.b, 1, 300 + i, 4096 + 1024 * static_cast<uint32_t>(i)))
			die("post_recv");
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	for (uint64_t i = 0; i < 3; i++) {
		wr.wr_id = 30 + i;
		if (ibv_post_send(e.a, &wr, &bad))
			die("post_send");
	}
	// a SEND completes once acknowledged, after its receive completed
	for (int i = 0; i < 3; i++)
		n += one_send_wc(e).status == IBV_WC_SUCCESS;
	if (n != 3) {
		report(false, "resize-cq", "%d of 3 SENDs completed", n);
		return;
	}
	int small = ibv_resize_cq(cq, 1);
	int err = ibv_resize_cq(cq, 64);
	ibv_poll_cq_attr pa = {};
	uint64_t ids[4] = {};
	n = 0;
	if (!err && !ibv_start_poll(e.rcq, &pa)) {
		do
			ids[n++] = e.rcq->wr_id;
		while (n < 4 && !ibv_next_poll(e.rcq));
		ibv_end_poll(e.rcq);
	}
	report(small && !err && cq->cqe >= 64 && n == 3 && ids[0] == 300 &&
	       ids[1] == 301 && ids[2] == 302, "resize-cq",
	       "to 1: %d, to 64: %d (cqe %d), %d completions after it", small,
	       err, cq->cqe, n);
}

// ibv_modify_srq(IBV_SRQ_MAX_WR) on a user SRQ of 4 holding 3 receives:
// to 64 it works, the 3 stay, and 40 more can be posted past the old size;
// shrinking below the 43 posted fails (EINVAL); 43 SENDs from a second
// pair of QPs, each of its own byte, land in order, every byte checked.
void srq_resize_step(Env &e)
{
	constexpr uint32_t kMsgs = 43, kLen = 64;
	std::vector<uint8_t> mem(2 * kMsgs * kLen);
	uint8_t *src = mem.data(), *dst = mem.data() + kMsgs * kLen;
	ibv_mr *mr = ibv_reg_mr(e.pd, mem.data(), mem.size(),
				static_cast<int>(IBV_ACCESS_LOCAL_WRITE));
	ibv_cq *scq = ibv_create_cq(e.ctx, 64, nullptr, nullptr, 0);
	ibv_cq *rcq = ibv_create_cq(e.ctx, 64, nullptr, nullptr, 0);
	ibv_srq_init_attr sa = {};
	sa.attr.max_wr = 4;
	sa.attr.max_sge = 1;
	ibv_srq *srq = ibv_create_srq(e.pd, &sa);
	if (!mr || !scq || !rcq || !srq)
		die("srq step: %s", strerror(errno));
	ibv_qp_init_attr qa = {};
	qa.send_cq = scq;
	qa.recv_cq = rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 64;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	ibv_qp *c = ibv_create_qp(e.pd, &qa);
	qa.srq = srq;
	ibv_qp *d = ibv_create_qp(e.pd, &qa);
	if (!c || !d)
		die("srq step qp: %s", strerror(errno));
	to_init(c);
	to_init(d);
	to_rtr(e, c, d->qp_num);
	to_rtr(e, d, c->qp_num);
	to_rts(c);
	to_rts(d);

	auto post = [&](uint32_t from, uint32_t to) {
		for (uint32_t i = from; i < to; i++) {
			ibv_sge sge = { reinterpret_cast<uintptr_t>(dst + i * kLen),
					kLen, mr->lkey };
			ibv_recv_wr wr = {}, *bad = nullptr;
			wr.wr_id = 500 + i;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			if (ibv_post_srq_recv(srq, &wr, &bad))
				return false;
		}
		return true;
	};
	bool first = post(0, 3);
	ibv_srq_attr ra = {};
	ra.max_wr = 64;
	int grow = ibv_modify_srq(srq, &ra, IBV_SRQ_MAX_WR);
	bool more = !grow && post(3, kMsgs);
	ra.max_wr = 2;
	int shrink = ibv_modify_srq(srq, &ra, IBV_SRQ_MAX_WR);
	ibv_srq_attr qa2 = {};
	int q = ibv_query_srq(srq, &qa2);

	for (uint32_t i = 0; i < kMsgs; i++) {
		memset(src + i * kLen, static_cast<int>(0x40 + i), kLen);
		ibv_sge sge = { reinterpret_cast<uintptr_t>(src + i * kLen), kLen,
				mr->lkey };
		ibv_send_wr wr = {}, *bad = nullptr;
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (more && ibv_post_send(c, &wr, &bad))
			die("srq step post_send");
	}
	uint32_t got = 0, in_order = 0, right = 0;
	while (more && got < kMsgs) {
		ibv_wc wc = {};
		if (!wait_for([&] { return ibv_poll_cq(rcq, 1, &wc) > 0; }))
			break;
		if (wc.status == IBV_WC_SUCCESS && wc.wr_id == 500 + got)
			in_order++;
		got++;
	}
	for (uint32_t i = 0; i < kMsgs; i++) {
		bool ok = true;
		for (uint32_t j = 0; j < kLen; j++)
			ok = ok && dst[i * kLen + j] == static_cast<uint8_t>(0x40 + i);
		right += ok;
	}
	report(first && !grow && more && shrink == EINVAL && !q &&
	       qa2.max_wr >= 64 && in_order == kMsgs && right == kMsgs,
	       "srq-resize",
	       "to 64: %d, posted past 4: %s, to 2: %d, max_wr %u, %u of %u in order, %u right",
	       grow, more ? "yes" : "no", shrink, qa2.max_wr, in_order, kMsgs,
	       right);
	ibv_wc wc;
	while (ibv_poll_cq(scq, 1, &wc) > 0)
		;
	ibv_destroy_qp(c);
	ibv_destroy_qp(d);
	ibv_destroy_srq(srq);
	ibv_destroy_cq(scq);
	ibv_destroy_cq(rcq);
	ibv_dereg_mr(mr);
}

// ibv_rereg_mr: a new translation takes WRITEs (the old range no more),
// a new PD is the MR's, and without remote write access the WRITE fails
// at the target (REM_ACCESS_ERR; the QPs end in ERR, so this comes last).
void rereg_steps(Env &e)
{
	uint8_t *old_buf = static_cast<uint8_t *>(aligned_alloc(4096, 4096));
	uint8_t *new_buf = static_cast<uint8_t *>(aligned_alloc(4096, 4096));
	ibv_pd *pd2 = ibv_alloc_pd(e.ctx);

	if (!old_buf || !new_buf || !pd2)
		die("rereg buffers");
	memset(old_buf, 0, 4096);
	memset(new_buf, 0, 4096);
	ibv_mr *m = ibv_reg_mr(e.pd, old_buf, 4096,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!m)
		die("reg_mr: %s", strerror(errno));
	for (uint32_t i = 0; i < 64; i++)
		e.buf[i] = static_cast<uint8_t>(0xa5 ^ i);

	int err = ibv_rereg_mr(m, IBV_REREG_MR_CHANGE_TRANSLATION, nullptr,
			       new_buf, 4096, 0);
	ibv_wc wc = {};
	if (!err && !rdma_write(e, new_buf + 128, m->rkey, 8))
		wc = one_send_wc(e);
	uint8_t zero[64] = {};
	bool landed = !memcmp(new_buf + 128, e.buf, 64) &&
		      !memcmp(old_buf + 128, zero, 64);
	report(!err && wc.status == IBV_WC_SUCCESS && wc.wr_id == 8 && landed,
	       "rereg-trans", "rereg %d, WRITE status %d, %s", err, wc.status,
	       landed ? "bytes in the new range only" : "BYTES WRONG");

	err = ibv_rereg_mr(m, IBV_REREG_MR_CHANGE_PD, pd2, nullptr, 0, 0);
	report(!err && m->pd == pd2, "rereg-pd", "rereg %d", err);

	err = ibv_rereg_mr(m, IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS,
			   e.pd, nullptr, 0, IBV_ACCESS_LOCAL_WRITE);
	memset(new_buf, 0, 4096);
	wc = {};
	if (!err && !rdma_write(e, new_buf + 128, m->rkey, 9))
		wc = one_send_wc(e);
	landed = memcmp(new_buf + 128, zero, 64);
	report(!err && wc.status == IBV_WC_REM_ACCESS_ERR && wc.wr_id == 9 &&
	       !landed, "rereg-access", "rereg %d, WRITE status %d%s", err,
	       wc.status, landed ? ", BYTES LANDED" : "");

	ibv_dereg_mr(m);
	ibv_dealloc_pd(pd2);
	free(old_buf);
	free(new_buf);
}

constexpr unsigned int kMwCaps = IBV_DEVICE_MEM_WINDOW |
				 IBV_DEVICE_MEM_WINDOW_TYPE_2B;

// max_mw windows (the device's: nobody else has any), then one more: ENOMEM.
void mw_limit_step(Env &e, int max_mw)
{
	std::vector<ibv_mw *> mws;
	ibv_mw *past = nullptr;

	mws.reserve(static_cast<size_t>(max_mw));
	for (int i = 0; i < max_mw; i++) {
		ibv_mw *mw = ibv_alloc_mw(e.pd, i & 1 ? IBV_MW_TYPE_2 : IBV_MW_TYPE_1);
		if (!mw)
			break;
		mws.push_back(mw);
	}
	if (mws.size() == static_cast<size_t>(max_mw)) {
		errno = 0;
		past = ibv_alloc_mw(e.pd, IBV_MW_TYPE_1);
	}
	int past_err = errno;
	report(max_mw > 0 && mws.size() == static_cast<size_t>(max_mw) && !past &&
	       past_err == ENOMEM, "limit-mw", "%d: %zu allocated, +1: %s", max_mw,
	       mws.size(), past ? "ALLOCATED" : strerror(past_err));
	if (past)
		ibv_dealloc_mw(past);
	for (ibv_mw *mw : mws)
		ibv_dealloc_mw(mw);
}

// Each advertised limit, tried at the limit and one past it.
void limit_steps(Env &e)
{
	ibv_device_attr d = {};
	ibv_port_attr p = {};

	if (ibv_query_device(e.ctx, &d) || ibv_query_port(e.ctx, 1, &p))
		die("query_device/port");
	report(d.vendor_id == 0xffffff && d.vendor_part_id == 0x4d52 &&
	       d.fw_ver[0] && strcmp(d.fw_ver, "0.0.0") &&
	       p.max_msg_sz == 1u << 31 &&
	       (p.port_cap_flags & IBV_PORT_CM_SUP) &&
	       (p.port_cap_flags & IBV_PORT_IP_BASED_GIDS) && d.max_mw == 65536 &&
	       (d.device_cap_flags & kMwCaps) == kMwCaps,
	       "attr-ids", "vendor %#x part %#x fw %s max_msg_sz %#x caps %#x max_mw %d",
	       d.vendor_id, d.vendor_part_id, d.fw_ver, p.max_msg_sz,
	       p.port_cap_flags, d.max_mw);
	mw_limit_step(e, d.max_mw);

	ibv_cq *cq = ibv_create_cq(e.ctx, d.max_cqe, nullptr, nullptr, 0);
	ibv_cq *cq1 = ibv_create_cq(e.ctx, d.max_cqe + 1, nullptr, nullptr, 0);
	report(cq && !cq1, "limit-cqe", "max_cqe %d: %s, +1: %s", d.max_cqe,
	       cq ? "ok" : "refused", cq1 ? "CREATED" : "refused");
	if (cq1)
		ibv_destroy_cq(cq1);
	if (!cq)
		return;

	struct Try {
		const char *step;
		uint32_t ibv_qp_cap::*field;
		int limit;
	} tries[] = {
		{ "limit-send-wr", &ibv_qp_cap::max_send_wr, d.max_qp_wr },
		{ "limit-recv-wr", &ibv_qp_cap::max_recv_wr, d.max_qp_wr },
		{ "limit-send-sge", &ibv_qp_cap::max_send_sge, d.max_sge },
		{ "limit-recv-sge", &ibv_qp_cap::max_recv_sge, d.max_sge },
	};
	for (const Try &t : tries) {
		ibv_qp *qp[2] = {};
		for (int past = 0; past < 2; past++) {
			ibv_qp_init_attr ia = {};
			ia.send_cq = cq;
			ia.recv_cq = cq;
			ia.qp_type = IBV_QPT_RC;
			ia.cap = { 1, 1, 1, 1, 0 };
			ia.cap.*t.field = static_cast<uint32_t>(t.limit + past);
			qp[past] = ibv_create_qp(e.pd, &ia);
		}
		report(qp[0] && !qp[1], t.step, "%d: %s, +1: %s", t.limit,
		       qp[0] ? "ok" : "refused", qp[1] ? "CREATED" : "refused");
		for (ibv_qp *q : qp)
			if (q)
				ibv_destroy_qp(q);
	}

	for (int which = 0; which < 2; which++) {
		ibv_srq *srq[2] = {};
		int limit = which ? d.max_srq_sge : d.max_srq_wr;
		for (int past = 0; past < 2; past++) {
			ibv_srq_init_attr sa = {};
			sa.attr.max_wr = which ? 1 : static_cast<uint32_t>(limit + past);
			sa.attr.max_sge = which ? static_cast<uint32_t>(limit + past) : 1;
			srq[past] = ibv_create_srq(e.pd, &sa);
		}
		report(srq[0] && !srq[1], which ? "limit-srq-sge" : "limit-srq-wr",
		       "%d: %s, +1: %s", limit, srq[0] ? "ok" : "refused",
		       srq[1] ? "CREATED" : "refused");
		for (ibv_srq *q : srq)
			if (q)
				ibv_destroy_srq(q);
	}

	// RDMA READ/ATOMIC depth: the responder's at RTR, the requester's at RTS
	for (int rts = 0; rts < 2; rts++) {
		int limit = rts ? d.max_qp_init_rd_atom : d.max_qp_rd_atom;
		int res[2];
		for (int past = 0; past < 2; past++) {
			ibv_qp *q = make_qp(e, cq, cq);
			to_init(q);
			uint8_t at = static_cast<uint8_t>(limit + past);
			res[past] = try_rtr(e, q, q->qp_num, rts ? 1 : at);
			if (rts && !res[past])
				res[past] = qp_try_rts(q, at);
			ibv_destroy_qp(q);
		}
		report(!res[0] && res[1], rts ? "limit-init-rd-atom" : "limit-rd-atom",
		       "%d: %d, +1: %d", limit, res[0], res[1]);
	}
	ibv_destroy_cq(cq);
}

// max_msg_sz + 1 bytes in one SEND (SGEs may overlap): refused at post.
// [OPS-41] READ and FETCH_ADD on UC QP @qp: EINVAL and bad_wr at post.
void uc_refused(const char *step, ibv_qp *qp, ibv_wr_opcode op, ibv_sge *sge)
{
	ibv_send_wr wr = {}, *bad = nullptr;

	wr.wr_id = 0xbad;
	wr.opcode = op;
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = sge->addr;	// 8-aligned, as atomics want
	wr.wr.rdma.rkey = 1;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = sge->addr;
		wr.wr.atomic.rkey = 1;
	}
	int err = ibv_post_send(qp, &wr, &bad);
	check_refused(step, err && bad != &wr ? -1 : err);
}

// [OPS-40]..[OPS-42] two UC QPs of the device, connected to each other.
void uc_steps(Env &e)
{
	constexpr uint32_t kLen = 3000, kDst = 8192, kSize = 16384;
	auto *m = static_cast<uint8_t *>(aligned_alloc(4096, kSize));
	ibv_cq *cq = ibv_create_cq(e.ctx, 8, nullptr, nullptr, 0);
	ibv_qp_init_attr ia = {};
	ibv_qp *q[2] = {};

	if (!m || !cq)
		die("uc: buffer or cq");
	memset(m, 0, kSize);
	for (uint32_t i = 0; i < 2 * kLen; i++)
		m[i] = static_cast<uint8_t>(i * 7 + 1);
	ibv_mr *mr = ibv_reg_mr(e.pd, m, kSize, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE);
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_UC;
	ia.cap = { 4, 4, 1, 1, 0 };
	for (ibv_qp *&qp : q)
		qp = ibv_create_qp(e.pd, &ia);
	if (!mr || !q[0] || !q[1])
		die("uc: mr or UC QP: %s", strerror(errno));
	if (mrc_tool::qp_connect_pair(q[0], q[1], e.gid, e.gidx,
				      IBV_ACCESS_REMOTE_WRITE, 0))
		die("uc: connect: %s", strerror(errno));

	ibv_sge sge = { reinterpret_cast<uintptr_t>(m), 8, mr->lkey };
	uc_refused("uc-read", q[0], IBV_WR_RDMA_READ, &sge);
	uc_refused("uc-atomic", q[0], IBV_WR_ATOMIC_FETCH_AND_ADD, &sge);

	// a receive for the SEND, one (without a buffer) for the immediate
	ibv_sge rs = { reinterpret_cast<uintptr_t>(m) + kDst, kLen, mr->lkey };
	ibv_recv_wr r[2] = {}, *rbad;
	r[0].wr_id = 1;
	r[0].sg_list = &rs;
	r[0].num_sge = 1;
	r[0].next = &r[1];
	r[1].wr_id = 2;
	ibv_sge ss[2] = {
		{ reinterpret_cast<uintptr_t>(m), kLen, mr->lkey },
		{ reinterpret_cast<uintptr_t>(m) + kLen, kLen, mr->lkey },
	};
	ibv_send_wr s[2] = {}, *sbad;
	s[0].wr_id = 3;
	s[0].opcode = IBV_WR_SEND;
	s[0].sg_list = &ss[0];
	s[0].num_sge = 1;
	s[0].send_flags = IBV_SEND_SIGNALED;
	s[0].next = &s[1];
	s[1] = s[0];
	s[1].wr_id = 4;
	s[1].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	s[1].sg_list = &ss[1];
	s[1].next = nullptr;
	s[1].imm_data = htobe32(kImm);
	s[1].wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(m) + kDst + kLen;
	s[1].wr.rdma.rkey = mr->rkey;
	bool ok = !ibv_post_recv(q[1], r, &rbad) && !ibv_post_send(q[0], s, &sbad);
	ibv_wc wc[4];
	uint32_t seen = 0;
	for (int i = 0; ok && i < 4; i++) {
		wc[i] = mrc_tool::one_wc(cq);
		ok = wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id >= 1 &&
		     wc[i].wr_id <= 4;
		if (ok)
			seen |= 1u << wc[i].wr_id;
		// receives in order; the WRITE's carries the immediate
		if (ok && wc[i].wr_id == 2)
			ok = (seen & 2) && wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
			     be32toh(wc[i].imm_data) == kImm &&
			     wc[i].byte_len == kLen;
		if (ok && wc[i].wr_id == 1)
			ok = wc[i].opcode == IBV_WC_RECV && wc[i].byte_len == kLen;
	}
	report(ok && seen == 0x1e && !memcmp(m, m + kDst, 2 * kLen) &&
	       !m[kDst + 2 * kLen], "uc-data",
	       "SEND and WRITE_WITH_IMM of %u bytes: completions 0x%x, data %s",
	       kLen, seen, memcmp(m, m + kDst, 2 * kLen) ? "differs" : "equal");
	ibv_destroy_qp(q[0]);
	ibv_destroy_qp(q[1]);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	free(m);
}

void msg_size_step(Env &e)
{
	ibv_sge sge[kSges];
	ibv_send_wr wr = {}, *bad = nullptr;
	uint64_t want = (1ull << 31) + 1;

	sge[0] = { reinterpret_cast<uintptr_t>(e.buf), 1u << 30, e.mr->lkey };
	sge[1] = { reinterpret_cast<uintptr_t>(e.buf), (1u << 30) + 1, e.mr->lkey };
	wr.sg_list = sge;
	wr.num_sge = kSges;
	wr.opcode = IBV_WR_SEND;
	int err = ibv_post_send(e.a, &wr, &bad);
	report(err == EINVAL && bad == &wr && sge[0].length + uint64_t(sge[1].length) == want,
	       "limit-msg", "2^31 + 1 bytes: %s", err ? strerror(err) : "POSTED");
}

}  // namespace

int main(int argc, char **argv)
{
	Env e;
	const char *dev = mrc_tool::dev_gid_args(argc, argv, e.gidx);
	ibv_send_wr *bad;

	e.ctx = open_device(dev);
	if (ibv_query_gid(e.ctx, 1, e.gidx, &e.gid))
		die("query_gid %d", e.gidx);
	e.pd = ibv_alloc_pd(e.ctx);
	e.buf = static_cast<uint8_t *>(aligned_alloc(4096, kBuf));
	if (!e.pd || !e.buf)
		die("pd or buffer");
	memset(e.buf, 0, kBuf);
	e.mr = ibv_reg_mr(e.pd, e.buf, kBuf,
			  static_cast<int>(IBV_ACCESS_LOCAL_WRITE));
	e.scq = ibv_create_cq(e.ctx, 16, nullptr, nullptr, 0);
	e.other = ibv_create_cq(e.ctx, 16, nullptr, nullptr, 0);
	if (!e.mr || !e.scq || !e.other)
		die("mr or cq: %s", strerror(errno));

	ibv_cq_init_attr_ex ca = {};
	ca.cqe = 16;
	ca.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	ibv_cq_ex *bad_cq = ibv_create_cq_ex(e.ctx, &ca);
	report(!bad_cq && errno == EOPNOTSUPP, "cq-ex-flags", "%s",
	       bad_cq ? "created" : strerror(errno));
	ca.wc_flags = IBV_WC_STANDARD_FLAGS;
	e.rcq = ibv_create_cq_ex(e.ctx, &ca);
	// without one the other steps still run, on a plain CQ
	report(e.rcq, "cq-ex-create", "%s", e.rcq ? "" : strerror(errno));

	e.a = make_qp(e, e.scq, e.other);
	e.b = make_qp(e, e.other, e.rcq ? ibv_cq_ex_to_cq(e.rcq) : e.other);

	check_refused("send-reset", post_send(e, e.a, 1, &bad));
	check_refused("recv-reset", post_recv(e, e.b, 1, 100, 4096));
	to_init(e.a);
	to_init(e.b);
	check_refused("send-init", post_send(e, e.a, 1, &bad));
	check_refused("wr-complete-init", wr_send(e, e.a, false));
	int err = post_recv(e, e.b, kSges, 200, 4096);
	report(!err, "recv-init", "post_recv in INIT returned %d", err);
	check_refused("recv-sges", post_recv(e, e.b, kSges + 1, 0xbad, 6144));
	to_rtr(e, e.a, e.b->qp_num);
	to_rtr(e, e.b, e.a->qp_num);
	check_refused("send-rtr", post_send(e, e.a, 1, &bad));
	to_rts(e.a);
	to_rts(e.b);
	check_refused("send-sges", post_send(e, e.a, kSges + 1, &bad));
	msg_size_step(e);

	if (e.rcq)
		cq_ex_steps(e);
	else
		wr_send(e, e.a, true);
	send_cq_step(e);
	if (e.rcq)
		resize_step(e);
	srq_resize_step(e);
	rereg_steps(e);
	uc_steps(e);
	limit_steps(e);

	ibv_destroy_qp(e.a);
	ibv_destroy_qp(e.b);
	if (e.rcq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(e.rcq));
	ibv_destroy_cq(e.scq);
	ibv_destroy_cq(e.other);
	ibv_dereg_mr(e.mr);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.buf);
	if (failures) {
		printf("%d step(s) failed\n", failures);
		return 1;
	}
	printf("all steps passed\n");
	return 0;
}
