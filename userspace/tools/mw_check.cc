// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_mw_check: memory windows (type 1 and 2B) on one device, two RC QPs
// of it connected to each other (loopback.h): A is the requester, B the
// responder that owns the windows. The windows' MR grants no remote right
// itself (local write and MW bind only), so every remote byte below moves
// because of a window.
//
//   alloc             a type 1 and a type 2 window
//   bind-type1        ibv_bind_mw: IBV_WC_BIND_MW, the rkey's tag moves on
//   write-, read-, fadd-, cswap-type1   through it, bytes compared
//   bind-type2, write-type2, read-type2  the same by a BIND_MW WR
//   qpex-bind, qpex-write, qpex-inv     ibv_wr_bind_mw() and
//                     ibv_wr_local_inv() of the extended QP API
//   zero-based-*      a zero-based type 2 window at an odd place of the MR:
//                     remote addresses are offsets into it (WRITE, READ,
//                     FETCH_ADD at offsets, bytes and the guards around
//                     compared), one past its end REM_ACCESS_ERR, an atomic
//                     at an aligned offset of a window 4 bytes into a page
//                     REM_INV_REQ_ERR; a type 1 window refuses the flag
//                     (ibv_bind_mw: EINVAL)
//   bind-*            each IB bind rule broken once: IBV_WC_MW_BIND_ERR and
//                     the QP in ERR (MR without MW_BIND, MR or window of
//                     another PD, range past the MR, addr + length wrapping,
//                     remote write on an MR without local write, a type 2
//                     window not free, a type 2 bind of length 0)
//   post-type1, post-index   refused at post: a type 1 window by
//                     ibv_post_send, a new rkey of another window's index
//   deny-*            each access rule broken once: IBV_WC_REM_ACCESS_ERR,
//                     the bytes around untouched (past the window, a right
//                     the window lacks, a type 2 rkey on another QP, the
//                     stale rkey of a rebound window, after LOCAL_INV,
//                     SEND_WITH_INV, type 1 unbind, dealloc)
//   inv-*             LOCAL_INV of a key naming nothing, of a type 1 window:
//                     an error completion
//   dereg-busy        ibv_dereg_mr and ibv_rereg_mr of the MR while a
//                     window is bound: EBUSY; after dealloc dereg works
//
//   mrc_mw_check -d DEV [-g GID_INDEX]
//
// Output: "ok STEP" / "fail STEP: why" lines and "all steps passed"; exit
// status 0 when every step passed.

#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "device.h"
#include "loopback.h"
#include "pattern.h"
#include "report.h"

const char *const mrc_tool::kName = "mrc_mw_check";

namespace {

using mrc_tool::die;
using mrc_tool::report;

constexpr size_t kBuf = 64 * 1024;
constexpr size_t kWin = 4096;
constexpr unsigned int kRemote = IBV_ACCESS_REMOTE_READ |
				 IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_ATOMIC;

struct Env {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr, *pd2 = nullptr;
	uint8_t *tbuf = nullptr;	// the windows' memory (B's)
	uint8_t *lbuf = nullptr;	// A's sources and sinks
	ibv_mr *tmr = nullptr;		// LOCAL_WRITE | MW_BIND, no remote right
	ibv_mr *lmr = nullptr;
	ibv_mr *nobind = nullptr;	// over tbuf, without MW_BIND
	ibv_mr *ro = nullptr;		// over tbuf, MW_BIND without LOCAL_WRITE
	ibv_mr *mr2 = nullptr;		// over tbuf, in pd2
	ibv_gid gid = {};
	int gidx = 1;
};

struct Pair {
	ibv_cq *acq = nullptr, *bcq = nullptr;
	ibv_qp *a = nullptr, *b = nullptr;
};

uintptr_t addr(const uint8_t *p)
{
	return reinterpret_cast<uintptr_t>(p);
}

Pair make_pair(Env &e, bool ex = false)
{
	Pair p;

	p.acq = ibv_create_cq(e.ctx, 32, nullptr, nullptr, 0);
	p.bcq = ibv_create_cq(e.ctx, 32, nullptr, nullptr, 0);
	if (!p.acq || !p.bcq)
		die("create_cq: %s", strerror(errno));
	ibv_qp **qps[2] = { &p.a, &p.b };
	for (int i = 0; i < 2; i++) {
		ibv_qp_init_attr_ex ia = {};
		ia.send_cq = ia.recv_cq = i ? p.bcq : p.acq;
		ia.qp_type = IBV_QPT_RC;
		ia.cap = { 16, 16, 1, 1, 0 };
		ia.comp_mask = IBV_QP_INIT_ATTR_PD;
		ia.pd = e.pd;
		if (ex) {
			ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
			ia.send_ops_flags = IBV_QP_EX_WITH_BIND_MW |
					    IBV_QP_EX_WITH_LOCAL_INV |
					    IBV_QP_EX_WITH_RDMA_WRITE;
		}
		*qps[i] = ibv_create_qp_ex(e.ctx, &ia);
		if (!*qps[i])
			die("create_qp_ex: %s", strerror(errno));
	}
	if (int err = mrc_tool::qp_connect_pair(p.a, p.b, e.gid, e.gidx, kRemote, 1))
		die("connect: %s", strerror(err));
	return p;
}

void free_pair(Pair &p)
{
	ibv_destroy_qp(p.a);
	ibv_destroy_qp(p.b);
	ibv_destroy_cq(p.acq);
	ibv_destroy_cq(p.bcq);
	p = Pair();
}

using mrc_tool::one_wc;

const char *status(const ibv_wc &wc) { return mrc_tool::wc_status(wc); }

int post(ibv_qp *qp, ibv_send_wr &wr)
{
	ibv_send_wr *bad = nullptr;

	wr.send_flags |= IBV_SEND_SIGNALED;
	return ibv_post_send(qp, &wr, &bad);
}

// One RDMA op (WRITE/READ of @len, or an atomic) from A's lbuf + @loff.
ibv_wc rdma(Pair &p, Env &e, ibv_wr_opcode op, size_t loff, uint32_t len,
	    uint64_t raddr, uint32_t rkey, uint64_t cmp_add = 0, uint64_t swap = 0)
{
	ibv_sge sge = { addr(e.lbuf) + loff, len, e.lmr->lkey };
	ibv_send_wr wr = {};

	wr.wr_id = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (int err = post(p.a, wr)) {
		ibv_wc wc = {};
		wc.status = static_cast<ibv_wc_status>(-1);
		fprintf(stderr, "post: %s\n", strerror(err));
		return wc;
	}
	return one_wc(p.acq);
}

// A type 2 bind by a BIND_MW WR on @qp; the post's errno.
int post_bind(ibv_qp *qp, ibv_mw *mw, ibv_mr *mr, uint64_t at, uint64_t len,
	      unsigned int access, uint32_t rkey = 0)
{
	ibv_send_wr wr = {};

	wr.wr_id = 0xb1d;
	wr.opcode = IBV_WR_BIND_MW;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey ? rkey : ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = at;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	return post(qp, wr);
}

int bind1(ibv_qp *qp, ibv_mw *mw, ibv_mr *mr, uint64_t at, uint64_t len,
	  unsigned int access)
{
	ibv_mw_bind b = {};

	b.wr_id = 0xb1;
	b.send_flags = IBV_SEND_SIGNALED;
	b.bind_info.mr = mr;
	b.bind_info.addr = at;
	b.bind_info.length = len;
	b.bind_info.mw_access_flags = access;
	return ibv_bind_mw(qp, mw, &b);
}

bool bind_ok(const ibv_wc &wc)
{
	return wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW;
}

ibv_qp_state qp_state(ibv_qp *qp)
{
	ibv_qp_attr a = {};
	ibv_qp_init_attr ia = {};

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

// --- data through windows -----------------------------------------------------

// WRITE a pattern through (raddr, rkey), READ it back; both compared.
void write_read(Env &e, Pair &p, const char *wstep, const char *rstep,
		uint64_t raddr, uint32_t rkey, uint64_t seed)
{
	uint8_t *t = e.tbuf + (raddr - addr(e.tbuf));

	mrc_tool::fill(e.lbuf, kWin, seed);
	memset(t, 0, kWin);
	ibv_wc wc = rdma(p, e, IBV_WR_RDMA_WRITE, 0, kWin, raddr, rkey);
	long bad = mrc_tool::check(t, kWin, seed);
	report(wc.status == IBV_WC_SUCCESS && bad < 0, wstep, "%s, first wrong byte %ld",
	       status(wc), bad);

	memset(e.lbuf + kWin, 0, kWin);
	wc = rdma(p, e, IBV_WR_RDMA_READ, kWin, kWin, raddr, rkey);
	bad = mrc_tool::check(e.lbuf + kWin, kWin, seed);
	report(wc.status == IBV_WC_SUCCESS && bad < 0, rstep, "%s, first wrong byte %ld",
	       status(wc), bad);
}

void atomics(Env &e, Pair &p, uint64_t raddr, uint32_t rkey)
{
	uint64_t *t = reinterpret_cast<uint64_t *>(e.tbuf + (raddr - addr(e.tbuf)));
	uint64_t *res = reinterpret_cast<uint64_t *>(e.lbuf + 2 * kWin);

	*t = 1000;
	*res = 0;
	ibv_wc wc = rdma(p, e, IBV_WR_ATOMIC_FETCH_AND_ADD, 2 * kWin, 8, raddr, rkey, 23);
	report(wc.status == IBV_WC_SUCCESS && *res == 1000 && *t == 1023, "fadd-type1",
	       "%s, old %llu, now %llu", status(wc), (unsigned long long)*res,
	       (unsigned long long)*t);
	wc = rdma(p, e, IBV_WR_ATOMIC_CMP_AND_SWP, 2 * kWin, 8, raddr, rkey, 1023, 77);
	report(wc.status == IBV_WC_SUCCESS && *res == 1023 && *t == 77, "cswap-type1",
	       "%s, old %llu, now %llu", status(wc), (unsigned long long)*res,
	       (unsigned long long)*t);
}

void data_steps(Env &e)
{
	Pair p = make_pair(e);
	ibv_mw *mw1 = ibv_alloc_mw(e.pd, IBV_MW_TYPE_1);
	ibv_mw *mw2 = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);

	report(mw1 && mw2 && mw1->type == IBV_MW_TYPE_1 && mw2->type == IBV_MW_TYPE_2 &&
	       (mw1->rkey >> 8) != (mw2->rkey >> 8), "alloc", "%s",
	       mw1 && mw2 ? "" : strerror(errno));
	if (!mw1 || !mw2)
		die("no windows, nothing else to try");

	uint64_t w1 = addr(e.tbuf) + kWin, w2 = addr(e.tbuf) + 2 * kWin;
	uint32_t old = mw1->rkey;
	int err = bind1(p.b, mw1, e.tmr, w1, kWin, kRemote);
	ibv_wc wc = one_wc(p.bcq);
	report(!err && bind_ok(wc) && mw1->rkey == ibv_inc_rkey(old), "bind-type1",
	       "post %d, %s, rkey %#x -> %#x", err, status(wc), old, mw1->rkey);
	write_read(e, p, "write-type1", "read-type1", w1, mw1->rkey, 1);
	atomics(e, p, w1 + 64, mw1->rkey);

	err = post_bind(p.b, mw2, e.tmr, w2, kWin,
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	wc = one_wc(p.bcq);
	report(!err && bind_ok(wc), "bind-type2", "post %d, %s", err, status(wc));
	write_read(e, p, "write-type2", "read-type2", w2, mw2->rkey, 2);

	ibv_dealloc_mw(mw1);
	ibv_dealloc_mw(mw2);
	free_pair(p);
}

// A zero-based window 24 bytes into a page of the MR, guard bytes around.
void zero_based_steps(Env &e)
{
	const size_t off = 14 * kWin + 24;
	uint8_t *t = e.tbuf + off;
	auto *x = reinterpret_cast<uint64_t *>(t + 8);
	auto *res = reinterpret_cast<uint64_t *>(e.lbuf + 2 * kWin);
	Pair p = make_pair(e);
	ibv_mw *mw1 = ibv_alloc_mw(e.pd, IBV_MW_TYPE_1);
	ibv_mw *mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);

	if (!mw1 || !mw)
		die("alloc_mw: %s", strerror(errno));
	int err = bind1(p.b, mw1, e.tmr, addr(t), kWin,
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ZERO_BASED);
	ibv_wc wc = {};
	int n = ibv_poll_cq(p.bcq, 1, &wc);
	report(err == EINVAL && !n, "zero-based-type1", "ibv_bind_mw: %s",
	       strerror(err));

	err = post_bind(p.b, mw, e.tmr, addr(t), kWin, kRemote | IBV_ACCESS_ZERO_BASED);
	wc = one_wc(p.bcq);
	report(!err && bind_ok(wc), "zero-based-bind", "post %d, %s", err, status(wc));

	memset(t - 24, 0xee, kWin + 48);
	mrc_tool::fill(e.lbuf, 256, 5);
	wc = rdma(p, e, IBV_WR_RDMA_WRITE, 0, 256, 16, mw->rkey);
	long bad = mrc_tool::check(t + 16, 256, 5);
	bool guards = t[-1] == 0xee && t[15] == 0xee && t[16 + 256] == 0xee;
	report(wc.status == IBV_WC_SUCCESS && bad < 0 && guards, "zero-based-write",
	       "WRITE of 256 at offset 16: %s, first wrong byte %ld, guards %s",
	       status(wc), bad, guards ? "kept" : "CHANGED");

	memset(e.lbuf + kWin, 0, 256);
	wc = rdma(p, e, IBV_WR_RDMA_READ, kWin, 256, 16, mw->rkey);
	bad = mrc_tool::check(e.lbuf + kWin, 256, 5);
	report(wc.status == IBV_WC_SUCCESS && bad < 0, "zero-based-read",
	       "%s, first wrong byte %ld", status(wc), bad);

	*x = 1000;
	*res = 0;
	wc = rdma(p, e, IBV_WR_ATOMIC_FETCH_AND_ADD, 2 * kWin, 8, 8, mw->rkey, 23);
	report(wc.status == IBV_WC_SUCCESS && *res == 1000 && *x == 1023,
	       "zero-based-fadd", "%s, old %llu, now %llu", status(wc),
	       (unsigned long long)*res, (unsigned long long)*x);

	// the window's last 8 bytes and one past them: nothing lands
	wc = rdma(p, e, IBV_WR_RDMA_WRITE, 0, 9, kWin - 8, mw->rkey);
	report(wc.status == IBV_WC_REM_ACCESS_ERR && t[kWin - 8] == 0xee &&
	       t[kWin] == 0xee, "zero-based-past-end", "%s", status(wc));
	ibv_dealloc_mw(mw);
	free_pair(p);

	// 4 bytes into a page: an aligned offset is no aligned address
	p = make_pair(e);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	t = e.tbuf + 13 * kWin + 4;
	memset(t, 0xee, 16);
	err = post_bind(p.b, mw, e.tmr, addr(t), kWin, kRemote | IBV_ACCESS_ZERO_BASED);
	ibv_wc bw = one_wc(p.bcq);
	wc = rdma(p, e, IBV_WR_ATOMIC_FETCH_AND_ADD, 2 * kWin, 8, 8, mw->rkey, 23);
	report(!err && bind_ok(bw) && wc.status == IBV_WC_REM_INV_REQ_ERR &&
	       t[8] == 0xee && t[15] == 0xee, "zero-based-fadd-misaligned",
	       "bind %s, FETCH_ADD: %s", status(bw), status(wc));
	ibv_dealloc_mw(mw);
	ibv_dealloc_mw(mw1);
	free_pair(p);
}

// The extended QP API: bind, WRITE through the window, invalidate.
void qpex_steps(Env &e)
{
	Pair p = make_pair(e, true);
	ibv_qp_ex *bx = ibv_qp_to_qp_ex(p.b);
	ibv_mw *mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	uint64_t w = addr(e.tbuf) + 3 * kWin;

	if (!mw || !bx)
		die("qp_ex or window: %s", strerror(errno));
	ibv_mw_bind_info info = { e.tmr, w, kWin, IBV_ACCESS_REMOTE_WRITE };
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	ibv_wr_start(bx);
	bx->wr_id = 1;
	bx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(bx, mw, rkey, &info);
	int err = ibv_wr_complete(bx);
	ibv_wc wc = one_wc(p.bcq);
	report(!err && bind_ok(wc) && mw->rkey == rkey, "qpex-bind", "complete %d, %s",
	       err, status(wc));

	mrc_tool::fill(e.lbuf, kWin, 3);
	memset(e.tbuf + 3 * kWin, 0, kWin);
	wc = rdma(p, e, IBV_WR_RDMA_WRITE, 0, kWin, w, rkey);
	long bad = mrc_tool::check(e.tbuf + 3 * kWin, kWin, 3);
	report(wc.status == IBV_WC_SUCCESS && bad < 0, "qpex-write",
	       "%s, first wrong byte %ld", status(wc), bad);

	ibv_wr_start(bx);
	bx->wr_id = 2;
	bx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(bx, rkey);
	err = ibv_wr_complete(bx);
	ibv_wc inv = one_wc(p.bcq);
	memset(e.tbuf + 3 * kWin, 0, 64);
	wc = rdma(p, e, IBV_WR_RDMA_WRITE, 0, 64, w, rkey);
	report(!err && inv.status == IBV_WC_SUCCESS && inv.opcode == IBV_WC_LOCAL_INV &&
	       wc.status == IBV_WC_REM_ACCESS_ERR && !e.tbuf[3 * kWin],
	       "qpex-inv", "complete %d, %s, then WRITE: %s", err, status(inv), status(wc));
	ibv_dealloc_mw(mw);
	free_pair(p);
}

// --- bind rules ---------------------------------------------------------------

struct BindCase {
	const char *step;
	ibv_mr *Env::*mr;
	bool other_pd_mw;	// the window of pd2
	uint64_t off;		// from tbuf
	uint64_t len;
	unsigned int access;
	bool rebind;		// bind a type 2 window twice
};

void bind_rule_steps(Env &e)
{
	const uint64_t wrap = ~uint64_t{0} - addr(e.tbuf) - 16;
	const BindCase cases[] = {
		{ "bind-no-mw-bind", &Env::nobind, false, 0, kWin, kRemote, false },
		{ "bind-mr-other-pd", &Env::mr2, false, 0, kWin, kRemote, false },
		{ "bind-mw-other-pd", &Env::tmr, true, 0, kWin, kRemote, false },
		{ "bind-past-mr", &Env::tmr, false, kBuf - kWin + 1, kWin, kRemote, false },
		{ "bind-wrap", &Env::tmr, false, 64, wrap, kRemote, false },
		{ "bind-write-no-local-write", &Env::ro, false, 0, kWin,
		  IBV_ACCESS_REMOTE_WRITE, false },
		{ "bind-atomic-no-local-write", &Env::ro, false, 0, kWin,
		  IBV_ACCESS_REMOTE_ATOMIC, false },
		{ "bind-type2-not-free", &Env::tmr, false, 0, kWin, kRemote, true },
		{ "bind-type2-zero-length", &Env::tmr, false, 0, 0, kRemote, false },
	};

	for (const BindCase &c : cases) {
		Pair p = make_pair(e);
		ibv_mw *mw = ibv_alloc_mw(c.other_pd_mw ? e.pd2 : e.pd, IBV_MW_TYPE_2);
		if (!mw)
			die("alloc_mw: %s", strerror(errno));
		ibv_wc first = {};
		if (c.rebind) {
			post_bind(p.b, mw, e.tmr, addr(e.tbuf), kWin, kRemote);
			first = one_wc(p.bcq);
		}
		int err = post_bind(p.b, mw, e.*c.mr, addr(e.tbuf) + c.off, c.len,
				    c.access);
		ibv_wc wc = one_wc(p.bcq);
		ibv_qp_state s = qp_state(p.b);
		report(!err && (!c.rebind || bind_ok(first)) &&
		       wc.status == IBV_WC_MW_BIND_ERR && s == IBV_QPS_ERR, c.step,
		       "post %d, %s, QP state %d", err, status(wc), s);
		ibv_dealloc_mw(mw);
		free_pair(p);
	}

	// what the provider refuses before anything reaches the ring
	Pair p = make_pair(e);
	ibv_mw *mw1 = ibv_alloc_mw(e.pd, IBV_MW_TYPE_1);
	ibv_mw *mw2 = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	if (!mw1 || !mw2)
		die("alloc_mw: %s", strerror(errno));
	int err = post_bind(p.b, mw1, e.tmr, addr(e.tbuf), kWin, kRemote);
	report(err == EINVAL, "post-type1", "ibv_post_send(BIND_MW, type 1): %s",
	       strerror(err));
	err = post_bind(p.b, mw2, e.tmr, addr(e.tbuf), kWin, kRemote,
			mw1->rkey);
	ibv_wc wc = {};
	int n = ibv_poll_cq(p.bcq, 1, &wc);
	report(err == EINVAL && !n, "post-index", "rkey of another window: %s",
	       strerror(err));
	ibv_dealloc_mw(mw1);
	ibv_dealloc_mw(mw2);
	free_pair(p);
}

// --- access rules -------------------------------------------------------------

enum Deny { kPast, kNoRead, kNoAtomic, kOtherQp, kStale, kLocalInv, kSendInv,
	    kUnbind, kDealloc };

// Each access rule broken once; the bytes around the window stay as they were.
void deny_steps(Env &e)
{
	const struct {
		const char *step;
		Deny how;
	} cases[] = {
		{ "deny-past-window", kPast }, { "deny-read-right", kNoRead },
		{ "deny-atomic-right", kNoAtomic }, { "deny-type2-other-qp", kOtherQp },
		{ "deny-stale-rkey", kStale }, { "deny-after-local-inv", kLocalInv },
		{ "deny-after-send-inv", kSendInv }, { "deny-after-unbind", kUnbind },
		{ "deny-after-dealloc", kDealloc },
	};
	uint64_t w = addr(e.tbuf) + 4 * kWin;

	for (const auto &c : cases) {
		Pair p = make_pair(e);
		bool type2 = c.how == kOtherQp || c.how == kLocalInv || c.how == kSendInv;
		ibv_mw *mw = ibv_alloc_mw(e.pd, type2 ? IBV_MW_TYPE_2 : IBV_MW_TYPE_1);
		unsigned int access = kRemote;
		if (c.how == kNoRead)
			access = IBV_ACCESS_REMOTE_WRITE;
		else if (c.how == kNoAtomic)
			access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
		if (!mw)
			die("alloc_mw: %s", strerror(errno));
		int err = type2 ? post_bind(p.b, mw, e.tmr, w, kWin, access) :
				  bind1(p.b, mw, e.tmr, w, kWin, access);
		ibv_wc wc = one_wc(p.bcq);
		bool setup = !err && bind_ok(wc);
		uint32_t rkey = mw->rkey;
		Pair other;

		switch (c.how) {
		case kOtherQp:
			other = make_pair(e);
			break;
		case kStale:
			err = bind1(p.b, mw, e.tmr, w, kWin, access);
			setup = setup && !err && bind_ok(one_wc(p.bcq));
			break;
		case kLocalInv: {
			ibv_send_wr inv = {};
			inv.opcode = IBV_WR_LOCAL_INV;
			inv.invalidate_rkey = rkey;
			err = post(p.b, inv);
			wc = one_wc(p.bcq);
			setup = setup && !err && wc.status == IBV_WC_SUCCESS &&
				wc.opcode == IBV_WC_LOCAL_INV;
			break;
		}
		case kSendInv: {
			ibv_sge rs = { addr(e.lbuf) + 3 * kWin, 64, e.lmr->lkey };
			ibv_recv_wr rwr = {}, *rbad;
			rwr.sg_list = &rs;
			rwr.num_sge = 1;
			ibv_send_wr s = {};
			ibv_sge ss = { addr(e.lbuf), 8, e.lmr->lkey };
			s.opcode = IBV_WR_SEND_WITH_INV;
			s.sg_list = &ss;
			s.num_sge = 1;
			s.invalidate_rkey = rkey;
			err = ibv_post_recv(p.b, &rwr, &rbad) || post(p.a, s);
			ibv_wc sw = one_wc(p.acq);
			wc = one_wc(p.bcq);
			setup = setup && !err && sw.status == IBV_WC_SUCCESS &&
				wc.status == IBV_WC_SUCCESS &&
				(wc.wc_flags & IBV_WC_WITH_INV) &&
				wc.invalidated_rkey == rkey;
			break;
		}
		case kUnbind:
			err = bind1(p.b, mw, nullptr, 0, 0, 0);
			setup = setup && !err && bind_ok(one_wc(p.bcq));
			break;
		case kDealloc:
			setup = setup && !ibv_dealloc_mw(mw);
			mw = nullptr;
			break;
		default:
			break;
		}

		memset(e.tbuf + 4 * kWin - 64, 0x5a, kWin + 128);
		mrc_tool::fill(e.lbuf, kWin, 9);
		Pair &by = c.how == kOtherQp ? other : p;
		if (c.how == kNoAtomic)
			wc = rdma(by, e, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 8, w, rkey, 1);
		else if (c.how == kNoRead)
			wc = rdma(by, e, IBV_WR_RDMA_READ, 0, 64, w, rkey);
		else if (c.how == kPast)
			wc = rdma(by, e, IBV_WR_RDMA_WRITE, 0, 128, w + kWin - 64, rkey);
		else	// kStale: rkey is the first binding's
			wc = rdma(by, e, IBV_WR_RDMA_WRITE, 0, 64, w, rkey);
		bool untouched = true;
		for (size_t i = 0; i < kWin + 128; i++)
			untouched = untouched && e.tbuf[4 * kWin - 64 + i] == 0x5a;
		report(setup && wc.status == IBV_WC_REM_ACCESS_ERR && untouched, c.step,
		       "setup %s, access: %s, memory %s", setup ? "ok" : "FAILED",
		       status(wc), untouched ? "untouched" : "CHANGED");
		if (other.a)
			free_pair(other);
		if (mw)
			ibv_dealloc_mw(mw);
		free_pair(p);
	}
}

// LOCAL_INV of what it may not invalidate: an error completion.
void inv_steps(Env &e)
{
	ibv_mw *mw1 = ibv_alloc_mw(e.pd, IBV_MW_TYPE_1);

	if (!mw1)
		die("alloc_mw: %s", strerror(errno));
	const struct {
		const char *step;
		uint32_t key;
	} cases[] = {
		{ "inv-no-such-key", (mw1->rkey ^ 0x80000000u) },
		{ "inv-type1", mw1->rkey },
		{ "inv-user-mr", e.tmr->rkey },
	};
	for (const auto &c : cases) {
		Pair p = make_pair(e);
		ibv_send_wr inv = {};
		inv.opcode = IBV_WR_LOCAL_INV;
		inv.invalidate_rkey = c.key;
		int err = post(p.b, inv);
		ibv_wc wc = one_wc(p.bcq);
		report(!err && static_cast<int>(wc.status) > 0, c.step, "post %d, %s", err,
		       status(wc));
		free_pair(p);
	}
	ibv_dealloc_mw(mw1);
}

// An MR with a window bound: no dereg, no rereg; once the window is gone, both.
void dereg_steps(Env &e)
{
	Pair p = make_pair(e);
	ibv_mr *mr = ibv_reg_mr(e.pd, e.tbuf, kBuf, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_MW_BIND);
	ibv_mw *mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);

	if (!mr || !mw)
		die("reg_mr/alloc_mw: %s", strerror(errno));
	int err = post_bind(p.b, mw, mr, addr(e.tbuf), kWin, kRemote);
	bool bound = !err && bind_ok(one_wc(p.bcq));
	int dereg = ibv_dereg_mr(mr);
	int rereg = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, nullptr, nullptr, 0,
				 IBV_ACCESS_LOCAL_WRITE);
	int rereg_errno = errno;
	// the MR still works: a WRITE through the window lands
	mrc_tool::fill(e.lbuf, 64, 11);
	ibv_wc wc = rdma(p, e, IBV_WR_RDMA_WRITE, 0, 64, addr(e.tbuf), mw->rkey);
	long bad = mrc_tool::check(e.tbuf, 64, 11);
	ibv_dealloc_mw(mw);
	int after = ibv_dereg_mr(mr);
	report(bound && dereg == EBUSY && (rereg == EBUSY || rereg_errno == EBUSY) &&
	       wc.status == IBV_WC_SUCCESS && bad < 0 && !after, "dereg-busy",
	       "bound %d, dereg %s, rereg %d (%s), WRITE %s, after dealloc %s", bound,
	       strerror(dereg), rereg, strerror(rereg_errno), status(wc),
	       strerror(after));
	free_pair(p);
}

}  // namespace

int main(int argc, char **argv)
{
	Env e;
	const char *dev = mrc_tool::dev_gid_args(argc, argv, e.gidx);

	e.ctx = mrc_tool::open_device(dev);
	if (ibv_query_gid(e.ctx, 1, e.gidx, &e.gid))
		die("query_gid %d", e.gidx);
	e.pd = ibv_alloc_pd(e.ctx);
	e.pd2 = ibv_alloc_pd(e.ctx);
	e.tbuf = static_cast<uint8_t *>(aligned_alloc(4096, kBuf));
	e.lbuf = static_cast<uint8_t *>(aligned_alloc(4096, kBuf));
	if (!e.pd || !e.pd2 || !e.tbuf || !e.lbuf)
		die("pd or buffers");
	memset(e.tbuf, 0, kBuf);
	memset(e.lbuf, 0, kBuf);
	// ints: ibv_reg_mr() is a macro that ANDs its argument with an enum
	const int bind = IBV_ACCESS_MW_BIND, lw = IBV_ACCESS_LOCAL_WRITE;
	e.tmr = ibv_reg_mr(e.pd, e.tbuf, kBuf, lw | bind);
	e.lmr = ibv_reg_mr(e.pd, e.lbuf, kBuf, lw);
	e.nobind = ibv_reg_mr(e.pd, e.tbuf, kBuf, lw);
	e.ro = ibv_reg_mr(e.pd, e.tbuf, kBuf, bind);
	e.mr2 = ibv_reg_mr(e.pd2, e.tbuf, kBuf, lw | bind);
	if (!e.tmr || !e.lmr || !e.nobind || !e.ro || !e.mr2)
		die("reg_mr: %s", strerror(errno));

	data_steps(e);
	qpex_steps(e);
	zero_based_steps(e);
	bind_rule_steps(e);
	deny_steps(e);
	inv_steps(e);
	dereg_steps(e);

	for (ibv_mr *mr : { e.tmr, e.lmr, e.nobind, e.ro, e.mr2 })
		ibv_dereg_mr(mr);
	ibv_dealloc_pd(e.pd);
	ibv_dealloc_pd(e.pd2);
	ibv_close_device(e.ctx);
	free(e.tbuf);
	free(e.lbuf);
	if (mrc_tool::failures) {
		printf("%d step(s) failed\n", mrc_tool::failures);
		return 1;
	}
	printf("all steps passed\n");
	return 0;
}
