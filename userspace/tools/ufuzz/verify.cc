// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// After the garbage: a new context and a new RC QP on the same device
// must move data as if nothing had happened. 1 MiB is written to the
// peer and read back and compared byte by byte; a 64 KiB SEND is
// compared by the checksum the peer computes of what it received.

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../pattern.h"
#include "ufuzz.h"

namespace ufz {

namespace {

constexpr size_t kLen = 1 << 20;
constexpr uint32_t kChunk = 64 << 10;
constexpr uint32_t kChunks = kLen / kChunk;

struct V {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_qp *qp = nullptr;
	ibv_mr *mr = nullptr;
	uint8_t *buf = nullptr;
	PeerResp peer{};
};

bool fail(const char *what, const char *fmt, const char *arg)
{
	printf("FAIL verify %s: ", what);
	printf(fmt, arg);
	printf("\n");
	fflush(stdout);
	return false;
}

bool connect(Env &e, V &v)
{
	ibv_qp_init_attr ia{};
	ibv_qp_attr a{};
	PeerReq req{};
	uint32_t psn = static_cast<uint32_t>(e.seed * 2654435761u) & 0xffffff;

	ia.send_cq = v.cq;
	ia.recv_cq = v.cq;
	ia.cap.max_send_wr = 2 * kChunks;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_RC;
	v.qp = ibv_create_qp(v.pd, &ia);
	if (!v.qp)
		return false;
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (ibv_modify_qp(v.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					    IBV_QP_ACCESS_FLAGS))
		return false;
	req.op = kPeerConnect;
	req.qpn = v.qp->qp_num;
	req.psn = psn;
	req.flags = kPeerVerify;
	memcpy(req.gid, e.gid.raw, 16);
	v.peer = peer_call(e.peer, req);
	if (v.peer.status || v.peer.len < kLen)
		return false;
	return !rc_connect(v.qp, e.ah_attr, v.peer.qpn, v.peer.psn, psn, true);
}

// @n WRs of @op, chunk i between local @local + i * kChunk and the peer's
// MR at i * kChunk; all must succeed.
bool run(Env &e, V &v, ibv_wr_opcode op, uint8_t *local, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		ibv_sge sg{reinterpret_cast<uintptr_t>(local) + i * kChunk, kChunk, v.mr->lkey};
		ibv_send_wr wr{}, *bad;

		wr.wr_id = i;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = op;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = v.peer.addr + static_cast<uint64_t>(i) * kChunk;
		wr.wr.rdma.rkey = v.peer.rkey;
		if (ibv_post_send(v.qp, &wr, &bad))
			return false;
	}
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(4 * e.wc_timeout_ms);
	uint32_t done = 0;

	while (done < n && std::chrono::steady_clock::now() < end) {
		ibv_wc wc[16];
		int got = ibv_poll_cq(v.cq, 16, wc);

		for (int i = 0; i < got; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				printf("  verify: WR %llu: %s\n", (unsigned long long)wc[i].wr_id,
				       ibv_wc_status_str(wc[i].status));
				return false;
			}
		}
		done += got > 0 ? static_cast<uint32_t>(got) : 0;
	}
	return done == n;
}

}  // namespace

bool verify_transfer(Env &e, const char *what)
{
	V v;
	uint64_t seed = e.seed ^ 0x5eedf00dull;
	bool ok = false;

	v.ctx = open_ctx(e.dev);
	v.pd = ibv_alloc_pd(v.ctx);
	v.cq = v.pd ? ibv_create_cq(v.ctx, 4 * kChunks, nullptr, nullptr, 0) : nullptr;
	v.buf = static_cast<uint8_t *>(aligned_alloc(4096, 2 * kLen));
	v.mr = v.pd ? ibv_reg_mr(v.pd, v.buf, 2 * kLen, static_cast<int>(IBV_ACCESS_LOCAL_WRITE)) : nullptr;
	uint8_t *src = v.buf, *dst = v.buf + kLen;

	if (!v.cq || !v.mr || !connect(e, v)) {
		fail(what, "setting up a new RC QP: %s", strerror(errno));
	} else {
		mrc_tool::fill(src, kLen, seed);
		memset(dst, 0, kLen);
		if (!run(e, v, IBV_WR_RDMA_WRITE, src, kChunks)) {
			fail(what, "%s", "1 MiB of WRITEs did not complete");
		} else if (!run(e, v, IBV_WR_RDMA_READ, dst, kChunks)) {
			fail(what, "%s", "1 MiB of READs did not complete");
		} else if (long bad = mrc_tool::check(dst, kLen, seed); bad >= 0) {
			char at[32];

			snprintf(at, sizeof(at), "%ld", bad);
			fail(what, "the data read back differs at byte %s", at);
		} else if (!run(e, v, IBV_WR_SEND, src, 1)) {
			fail(what, "%s", "a 64 KiB SEND did not complete");
		} else {
			PeerReq req{};

			req.op = kPeerChecksum;
			req.qpn = v.peer.qpn;
			PeerResp r = peer_call(e.peer, req);
			uint64_t want = mrc_tool::fnv1a(src, kChunk);

			if (r.status || r.len != kChunk || r.val != want) {
				char got[64];

				snprintf(got, sizeof(got), "%u bytes, fnv %016llx", r.len,
					 (unsigned long long)r.val);
				fail(what, "the peer received %s", got);
			} else {
				printf("ok verify %s: 1 MiB written and read back, 64 KiB sent, fnv "
				       "%016llx\n", what, (unsigned long long)want);
				fflush(stdout);
				ok = true;
			}
		}
	}
	if (v.qp)
		ibv_destroy_qp(v.qp);
	if (v.peer.qpn)
		peer_free(e.peer, v.peer.qpn);
	if (v.mr)
		ibv_dereg_mr(v.mr);
	if (v.cq)
		ibv_destroy_cq(v.cq);
	if (v.pd)
		ibv_dealloc_pd(v.pd);
	ibv_close_device(v.ctx);
	free(v.buf);
	return ok;
}

}  // namespace ufz
