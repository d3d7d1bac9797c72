// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_ud_check: the error paths of UD QPs from user space, on one host.
// A UD send slot names its AH by the number the kernel gave it; a process
// can write any number there, so the kernel must resolve it only to an AH
// of the sending QP's PD that still exists. Each step posts one SEND on a
// fresh UD QP and checks its completion:
//
//   good        an AH of the QP's PD: IBV_WC_SUCCESS (the datagram goes to
//               DEST_GID; nobody needs to receive it)
//   foreign-pd  an AH of another PD of the same context: LOC_QP_OP_ERR,
//               the QP in ERR, the WR after it flushed
//   other-ctx   an AH of another device context (as another process's):
//               LOC_QP_OP_ERR
//   stale       the number of a destroyed AH: LOC_QP_OP_ERR; a new AH
//               does not get that number again at once
//   unknown     a number never handed out: LOC_QP_OP_ERR
//   zero        number 0: the provider refuses the post with EINVAL
//   too-long    a SEND longer than one packet: LOC_LEN_ERR
//   qkey        a controlled Q_Key (high bit) for the QP: modify_qp EPERM
//
// The forged AHs ("stale", "unknown", "zero") mirror the provider's
// struct mrc_ah (an ibv_ah followed by the number), as a hostile process
// writing its ring directly could name any number.
//
//   mrc_ud_check -d DEV -g GID_INDEX DEST_GID
//
// Output: "ok STEP" / "fail STEP: why" lines and "all steps passed"; exit
// status 0 when every step passed.

#include <arpa/inet.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "device.h"
#include "report.h"

const char *const mrc_tool::kName = "mrc_ud_check";

namespace {

constexpr uint32_t kQkey = 0x11111111;
constexpr uint32_t kBuf = 8192;
constexpr int kTimeoutMs = 20000;

using mrc_tool::die;
using mrc_tool::open_device;
using mrc_tool::failures;
using mrc_tool::report;

// The provider's AH: the verbs AH, then the kernel's number.
struct FakeAh {
	ibv_ah ah;
	uint32_t num;
};

uint32_t ah_num(ibv_ah *ah)
{
	return reinterpret_cast<FakeAh *>(ah)->num;
}

struct Ctx {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_mr *mr = nullptr;
	uint8_t *buf = nullptr;
	int gidx = 0;
	ibv_gid dgid = {};
};

ibv_ah *make_ah(ibv_pd *pd, const Ctx &c)
{
	ibv_ah_attr a = {};

	a.is_global = 1;
	a.port_num = 1;
	a.grh.dgid = c.dgid;
	a.grh.sgid_index = static_cast<uint8_t>(c.gidx);
	a.grh.hop_limit = 64;
	ibv_ah *ah = ibv_create_ah(pd, &a);
	if (!ah)
		die("create_ah: %s", strerror(errno));
	return ah;
}

ibv_qp *make_qp(Ctx &c)
{
	ibv_qp_init_attr ia = {};

	ia.send_cq = c.cq;
	ia.recv_cq = c.cq;
	ia.qp_type = IBV_QPT_UD;
	ia.sq_sig_all = 1;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ibv_qp *qp = ibv_create_qp(c.pd, &ia);
	if (!qp)
		die("create_qp: %s", strerror(errno));

	ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = kQkey;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				      IBV_QP_PORT | IBV_QP_QKEY))
		die("INIT: %s", strerror(errno));
	a = {};
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("RTR: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("RTS: %s", strerror(errno));
	return qp;
}

int post(Ctx &c, ibv_qp *qp, ibv_ah *ah, uint64_t id, uint32_t len)
{
	ibv_sge sge = {};
	ibv_send_wr wr = {}, *bad = nullptr;

	sge.addr = reinterpret_cast<uintptr_t>(c.buf);
	sge.length = len;
	sge.lkey = c.mr->lkey;
	wr.wr_id = id;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0x123;
	wr.wr.ud.remote_qkey = kQkey;
	return ibv_post_send(qp, &wr, &bad);
}

// The next completion, or false after kTimeoutMs.
bool next_wc(Ctx &c, ibv_wc &wc)
{
	for (int i = 0; i < kTimeoutMs; i++) {
		int n = ibv_poll_cq(c.cq, 1, &wc);
		if (n < 0)
			die("poll_cq");
		if (n)
			return true;
		usleep(1000);
	}
	return false;
}

ibv_qp_state qp_state(ibv_qp *qp)
{
	ibv_qp_attr a = {};
	ibv_qp_init_attr ia = {};

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		die("query_qp: %s", strerror(errno));
	return a.qp_state;
}

// One SEND with @ah on a fresh QP; it must complete with @want.
void expect_wc(Ctx &c, const char *step, ibv_ah *ah, uint32_t len,
	       ibv_wc_status want)
{
	ibv_qp *qp = make_qp(c);
	ibv_wc wc = {};
	int err = post(c, qp, ah, 1, len);

	if (err) {
		report(false, step, "post_send: %s", strerror(err));
	} else if (!next_wc(c, wc)) {
		report(false, step, "no completion");
	} else if (wc.wr_id != 1 || wc.status != want) {
		report(false, step, "wr_id %llu status %s, want %s",
		       static_cast<unsigned long long>(wc.wr_id),
		       ibv_wc_status_str(wc.status), ibv_wc_status_str(want));
	} else if (want != IBV_WC_SUCCESS && qp_state(qp) != IBV_QPS_ERR) {
		report(false, step, "QP not in ERR after %s",
		       ibv_wc_status_str(wc.status));
	} else if (want != IBV_WC_SUCCESS) {
		// the QP is in ERR: what is posted now is flushed
		err = post(c, qp, ah, 2, 1);
		bool flushed = !err && next_wc(c, wc) && wc.wr_id == 2 &&
			       wc.status == IBV_WC_WR_FLUSH_ERR;
		report(flushed, step, "%s%s", ibv_wc_status_str(want),
		       flushed ? ", QP in ERR, next WR flushed" :
				 ": next WR not flushed");
	} else {
		report(true, step, "%s, %u bytes", ibv_wc_status_str(want), len);
	}
	ibv_destroy_qp(qp);
}

// A forged AH naming number @num in @pd.
FakeAh forge(ibv_ah *like, uint32_t num)
{
	FakeAh f;

	f.ah = *like;
	f.num = num;
	return f;
}

}  // namespace

int main(int argc, char **argv)
{
	const char *dev = nullptr;
	Ctx c;
	int opt;

	while ((opt = getopt(argc, argv, "d:g:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			c.gidx = atoi(optarg);
			break;
		default:
			die("usage: mrc_ud_check -d DEV -g GID_INDEX DEST_GID");
		}
	}
	if (!dev || optind != argc - 1 ||
	    inet_pton(AF_INET6, argv[optind], c.dgid.raw) != 1)
		die("usage: mrc_ud_check -d DEV -g GID_INDEX DEST_GID");
	setvbuf(stdout, nullptr, _IOLBF, 0);

	c.ctx = open_device(dev);
	c.pd = ibv_alloc_pd(c.ctx);
	c.cq = ibv_create_cq(c.ctx, 16, nullptr, nullptr, 0);
	c.buf = static_cast<uint8_t *>(aligned_alloc(4096, kBuf));
	if (!c.pd || !c.cq || !c.buf)
		die("pd/cq/buffer");
	memset(c.buf, 0x5a, kBuf);
	c.mr = ibv_reg_mr(c.pd, c.buf, kBuf,
			  static_cast<int>(IBV_ACCESS_LOCAL_WRITE));
	if (!c.mr)
		die("reg_mr: %s", strerror(errno));

	ibv_ah *good = make_ah(c.pd, c);
	expect_wc(c, "good", good, 64, IBV_WC_SUCCESS);

	ibv_pd *pd_b = ibv_alloc_pd(c.ctx);
	if (!pd_b)
		die("second pd");
	ibv_ah *foreign = make_ah(pd_b, c);
	expect_wc(c, "foreign-pd", foreign, 64, IBV_WC_LOC_QP_OP_ERR);

	ibv_context *ctx2 = open_device(dev);
	ibv_pd *pd2 = ibv_alloc_pd(ctx2);
	if (!pd2)
		die("pd of the second context");
	ibv_ah *other = make_ah(pd2, c);
	FakeAh other_here = forge(good, ah_num(other));
	expect_wc(c, "other-ctx", &other_here.ah, 64, IBV_WC_LOC_QP_OP_ERR);

	ibv_ah *doomed = make_ah(c.pd, c);
	uint32_t stale_num = ah_num(doomed);
	FakeAh stale = forge(good, stale_num);
	ibv_destroy_ah(doomed);
	ibv_ah *fresh = make_ah(c.pd, c);
	report(ah_num(fresh) != stale_num, "stale-not-reused", "%u then %u",
	       stale_num, ah_num(fresh));
	expect_wc(c, "stale", &stale.ah, 64, IBV_WC_LOC_QP_OP_ERR);

	FakeAh unknown = forge(good, 0xfffff0);
	expect_wc(c, "unknown", &unknown.ah, 64, IBV_WC_LOC_QP_OP_ERR);

	{
		FakeAh zero = forge(good, 0);
		ibv_qp *qp = make_qp(c);
		int err = post(c, qp, &zero.ah, 1, 64);

		report(err == EINVAL, "zero", "post_send: %s", strerror(err));
		ibv_destroy_qp(qp);
	}

	expect_wc(c, "too-long", good, kBuf, IBV_WC_LOC_LEN_ERR);

	{
		ibv_qp *qp = make_qp(c);
		ibv_qp_attr a = {};
		ibv_qp_init_attr ia = {};
		int err;

		a.qkey = 0x80010000;	// QP1's
		err = ibv_modify_qp(qp, &a, IBV_QP_QKEY);
		a = {};
		ibv_query_qp(qp, &a, IBV_QP_QKEY, &ia);
		report(err == EPERM && a.qkey == kQkey, "qkey",
		       "controlled Q_Key: %s, Q_Key %#x", strerror(err),
		       a.qkey);
		ibv_destroy_qp(qp);
	}

	ibv_destroy_ah(other);
	ibv_dealloc_pd(pd2);
	ibv_close_device(ctx2);
	ibv_destroy_ah(fresh);
	ibv_destroy_ah(foreign);
	ibv_destroy_ah(good);
	ibv_dealloc_pd(pd_b);
	ibv_dereg_mr(c.mr);
	ibv_destroy_cq(c.cq);
	ibv_dealloc_pd(c.pd);
	ibv_close_device(c.ctx);
	free(c.buf);
	if (failures) {
		printf("%d steps failed\n", failures);
		return 1;
	}
	printf("all steps passed\n");
	return 0;
}
