// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_verbs_check: moves patterned data over one RC QP between two hosts
// with every operation a process can post (SEND, SEND_WITH_IMM, WRITE,
// WRITE_WITH_IMM, READ, both atomics, multiple SGEs) and verifies every
// byte on the side that receives it; both sides also print a checksum of
// what went over, so a run's two logs can be compared. The last step is an
// error path: a WRITE with a bad rkey must complete with REM_ACCESS_ERR and
// the WR behind it with WR_FLUSH_ERR.
//
// Works on any verbs device (metaroce, rxe). The QP information goes over
// a TCP connection, which also sequences the steps.
//
//   server: mrc_verbs_check -d DEV [-g GID_INDEX] [-p TCP_PORT] [-e]
//   client: mrc_verbs_check -d DEV [-g GID_INDEX] [-p TCP_PORT] [-e] SERVER
//
// -e waits for completions through a completion channel (req_notify_cq)
// instead of busy polling. -D makes the 8 MiB buffer a dma-buf (vgem.h)
// registered with ibv_reg_dmabuf_mr, on either side. -w N (client, default 2048, 0 = none) streams N
// 4 KiB WRITEs with 64 in flight before the error step, for throughput and
// the provider's doorbell count (MRC_PROVIDER_STATS=1); -t S (client) ends
// the stream after S seconds, at the end of its current round of 256, for
// timed correctness runs. -V (client) makes the stream a verified one: each
// round of 256 WRITEs carries its own pattern and is read back from the
// peer with one 1 MiB READ and checked before the next; -P FILE (client)
// appends "P US BYTES" to FILE every 10 ms of the unverified stream: the
// wall clock in microseconds and the bytes whose WRITEs completed, in
// verbs order, so a bench sees a stall a reordering network causes (the
// planes bench, selftests/bench/planes); -T FILE (client)
// ends the stream at the end of the round once FILE exists, so a test
// keeps data moving until its own conditions are met. -G FILE waits for
// FILE once the QP exists (in INIT), before anything is sent, and -H FILE
// once every step is done, before the QP is destroyed: a test sees the QP
// before its first packet and after its last (QP counters, case 83).
// Output: "ok STEP ..." / "fail STEP: why" lines, exit status 0 when every
// step passed.

#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "pattern.h"
#include "device.h"
#include "report.h"
#include "tcp.h"
#include "vgem.h"

const char *const mrc_tool::kName = "mrc_verbs_check";

namespace {

constexpr size_t kBufSize = 8u << 20;	// per side: 8 MiB registered
constexpr size_t kSlot = 1u << 20;	// largest SEND
constexpr uint32_t kDepth = 128;
constexpr int kTimeoutMs = 60000;

using mrc_tool::check;
using mrc_tool::die;
using mrc_tool::open_device;
using mrc_tool::failures;
using mrc_tool::fill;
using mrc_tool::fnv1a;
using mrc_tool::report;
using mrc_tool::tcp_accept;
using mrc_tool::tcp_connect;
using mrc_tool::xread;
using mrc_tool::xwrite;

// --- control channel ----------------------------------------------------

struct Msg {
	uint32_t op;
	uint32_t arg;
	uint64_t val;
};

struct Dest {
	uint32_t qpn, psn, rkey, pad;
	uint64_t addr;
	uint8_t gid[16];
};

void send_msg(int fd, uint32_t op, uint32_t arg = 0, uint64_t val = 0)
{
	Msg m{op, arg, val};

	xwrite(fd, &m, sizeof(m));
}

Msg recv_msg(int fd, uint32_t want)
{
	Msg m;

	xread(fd, &m, sizeof(m));
	if (m.op != want)
		die("control: got step %u, expected %u", m.op, want);
	return m;
}

// --- verbs ----------------------------------------------------------------

struct Ctx {
	ibv_context *ctx = nullptr;
	ibv_comp_channel *ch = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_qp *qp = nullptr;
	ibv_mr *mr = nullptr;
	uint8_t *buf = nullptr;
	mrc_tool::VgemBuf vgem;	// -D: buf is this dma-buf's mapping
	bool events = false;
	ibv_mtu path_mtu = IBV_MTU_1024;
	Dest me{}, peer{};
};

// -m BYTES: the verbs path MTU (256..4096)
ibv_mtu mtu_of(int bytes)
{
	for (int m = IBV_MTU_256; m <= IBV_MTU_4096; m++)
		if (128 << m == bytes)
			return static_cast<ibv_mtu>(m);
	die("path MTU %d: not one of 256, 512, 1024, 2048, 4096", bytes);
}

void open_dev(Ctx &c, const char *name, int gidx, bool dmabuf)
{
	c.ctx = open_device(name);
	if (c.events && !(c.ch = ibv_create_comp_channel(c.ctx)))
		die("create_comp_channel: %s", strerror(errno));
	c.pd = ibv_alloc_pd(c.ctx);
	c.cq = c.pd ? ibv_create_cq(c.ctx, 2 * kDepth + 8, nullptr, c.ch, 0) : nullptr;
	if (!c.cq)
		die("alloc_pd/create_cq: %s", strerror(errno));
	if (c.events && ibv_req_notify_cq(c.cq, 0))
		die("req_notify_cq: %s", strerror(errno));
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	if (dmabuf) {
		// registered at its mapping's address: every address stays valid
		if (const char *what = mrc_tool::vgem_buf_create(c.vgem, kBufSize))
			die("%s: %s", what, strerror(errno));
		c.buf = c.vgem.map;
		memset(c.buf, 0, kBufSize);
		c.mr = ibv_reg_dmabuf_mr(c.pd, 0, kBufSize,
					 reinterpret_cast<uintptr_t>(c.buf), c.vgem.fd,
					 access);
	} else {
		if (posix_memalign(reinterpret_cast<void **>(&c.buf), 4096, kBufSize))
			die("out of memory");
		memset(c.buf, 0, kBufSize);
		c.mr = ibv_reg_mr(c.pd, c.buf, kBufSize, access);
	}
	if (!c.mr)
		die("reg_mr%s: %s", dmabuf ? " (dma-buf)" : "", strerror(errno));

	ibv_qp_init_attr ia{};
	ia.send_cq = c.cq;
	ia.recv_cq = c.cq;
	ia.cap.max_send_wr = kDepth;
	ia.cap.max_recv_wr = kDepth;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = 64;
	ia.qp_type = IBV_QPT_RC;
	c.qp = ibv_create_qp(c.pd, &ia);
	if (!c.qp)
		die("create_qp: %s", strerror(errno));

	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(c.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT: %s", strerror(errno));

	ibv_gid gid;
	if (ibv_query_gid(c.ctx, 1, gidx, &gid))
		die("query_gid %d", gidx);
	c.me.qpn = c.qp->qp_num;
	c.me.psn = static_cast<uint32_t>(getpid() * 7919u) & 0xffffff;
	c.me.rkey = c.mr->rkey;
	c.me.addr = reinterpret_cast<uintptr_t>(c.buf);
	memcpy(c.me.gid, gid.raw, 16);
}

void connect_qp(Ctx &c, int gidx)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = c.path_mtu;
	a.dest_qp_num = c.peer.qpn;
	a.rq_psn = c.peer.psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	memcpy(a.ah_attr.grh.dgid.raw, c.peer.gid, 16);
	a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gidx);
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(c.qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 17;	// 0.5 s: the bed runs under TCG, often loaded
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = c.me.psn;
	a.max_rd_atomic = 16;
	if (ibv_modify_qp(c.qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				    IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS: %s", strerror(errno));
}

// Waits for @n completions into @out; false on timeout.
bool wait_wc(Ctx &c, std::vector<ibv_wc> &out, size_t n)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);

	while (out.size() < n) {
		ibv_wc wc[16];
		int got = ibv_poll_cq(c.cq, 16, wc);

		if (got < 0)
			die("poll_cq failed");
		out.insert(out.end(), wc, wc + got);
		if (got)
			continue;
		if (std::chrono::steady_clock::now() > end)
			return false;
		if (c.events) {
			ibv_cq *ev_cq;
			void *ev_ctx;

			// armed since the last event: block until the next one
			if (ibv_get_cq_event(c.ch, &ev_cq, &ev_ctx))
				die("get_cq_event: %s", strerror(errno));
			ibv_ack_cq_events(ev_cq, 1);
			if (ibv_req_notify_cq(c.cq, 0))
				die("req_notify_cq: %s", strerror(errno));
		}
	}
	return true;
}

void post_recv(Ctx &c, uint64_t id, uint8_t *p, uint32_t len)
{
	// two SGEs: the halves of the buffer
	ibv_sge sg[2] = {
		{reinterpret_cast<uintptr_t>(p), len / 2, c.mr->lkey},
		{reinterpret_cast<uintptr_t>(p + len / 2), len - len / 2, c.mr->lkey},
	};
	ibv_recv_wr wr{}, *bad;

	wr.wr_id = id;
	wr.sg_list = sg;
	wr.num_sge = 2;
	if (ibv_post_recv(c.qp, &wr, &bad))
		die("post_recv: %s", strerror(errno));
}

int post_send(Ctx &c, ibv_wr_opcode op, uint64_t id, uint8_t *p, uint32_t len,
	      uint64_t raddr = 0, uint32_t rkey = 0, unsigned flags = IBV_SEND_SIGNALED,
	      uint32_t imm = 0, int nsge = 1)
{
	ibv_sge sg[3];
	ibv_send_wr wr{}, *bad;
	uint32_t off = 0;

	for (int i = 0; i < nsge; i++) {
		uint32_t l = i == nsge - 1 ? len - off : len / nsge;

		sg[i] = {reinterpret_cast<uintptr_t>(p + off), l, c.mr->lkey};
		off += l;
	}
	wr.wr_id = id;
	wr.opcode = op;
	wr.send_flags = flags;
	wr.sg_list = sg;
	wr.num_sge = nsge;
	wr.imm_data = htonl(imm);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(c.qp, &wr, &bad);
}

bool all_ok(const std::vector<ibv_wc> &wcs, const char *step)
{
	for (auto &w : wcs)
		if (w.status != IBV_WC_SUCCESS) {
			report(false, step, "wr_id %llu status %s", (unsigned long long)w.wr_id,
			       ibv_wc_status_str(w.status));
			return false;
		}
	return true;
}

// --- the steps --------------------------------------------------------------

enum Step : uint32_t { kHello = 1, kSendReady, kSendDone, kWriteDone, kReadReady, kReadDone,
		       kAtomicReady, kAtomicDone, kStreamDone, kErrorStep, kBye, kWriteReady };

const uint32_t kSendSizes[] = {1, 7, 100, 1024, 1500, 4096, 65536, 1u << 20};
constexpr int kSendIters = 4;
constexpr uint32_t kWriteChunk = 16384, kWriteChunks = 64;	// 1 MiB, 64 WRs at once
constexpr uint32_t kReadChunk = 65536, kReadChunks = 16;

uint64_t send_seed(uint32_t size, int i) { return size * 1000ull + static_cast<uint64_t>(i); }

void server(Ctx &c, int fd)
{
	std::vector<ibv_wc> wcs;
	uint8_t *recvbuf = c.buf + kBufSize - kSendIters * kSlot;	// the upper 4 MiB

	// SEND: per size, post kSendIters receives, let the client send
	for (uint32_t size : kSendSizes) {
		for (int i = 0; i < kSendIters; i++)
			post_recv(c, i, recvbuf + i * kSlot, kSlot);
		send_msg(fd, kSendReady, size);
		recv_msg(fd, kSendDone);
		wcs.clear();
		if (!wait_wc(c, wcs, kSendIters)) {
			report(false, "send", "size %u: timeout (%zu of %d)", size, wcs.size(), kSendIters);
			send_msg(fd, kSendDone, 1);
			continue;
		}
		bool ok = all_ok(wcs, "send");
		uint64_t sum = 0xcbf29ce484222325ull;
		for (int i = 0; ok && i < kSendIters; i++) {
			const ibv_wc &w = wcs[i];
			bool imm = i & 1;
			long bad = check(recvbuf + w.wr_id * kSlot, size, send_seed(size, i));

			if (w.wr_id != static_cast<uint64_t>(i) || w.byte_len != size ||
			    w.opcode != IBV_WC_RECV || bad >= 0 ||
			    imm != !!(w.wc_flags & IBV_WC_WITH_IMM) ||
			    (imm && ntohl(w.imm_data) != size + i)) {
				report(false, "send", "size %u msg %d: wr_id %llu len %u flags %#x first bad byte %ld",
				       size, i, (unsigned long long)w.wr_id, w.byte_len, w.wc_flags, bad);
				ok = false;
			}
			sum = fnv1a(recvbuf + w.wr_id * kSlot, size, sum);
		}
		if (ok)
			report(true, "send", "size %u x%d verified, 2 SGEs each side, fnv %016llx",
			       size, kSendIters, (unsigned long long)sum);
		send_msg(fd, kSendDone, !ok, sum);
	}

	// WRITE: the client writes 1 MiB into buf[0..), the last WR with imm
	// posted before the client may write: else WRITE_WITH_IMM could meet RNR
	post_recv(c, 99, recvbuf, 64);
	send_msg(fd, kWriteReady);
	recv_msg(fd, kWriteDone);
	wcs.clear();
	{
		bool ok = wait_wc(c, wcs, 1) && all_ok(wcs, "write");
		uint32_t total = kWriteChunk * kWriteChunks;
		long bad = check(c.buf, total, 777);
		uint64_t sum = fnv1a(c.buf, total);

		// byte_len of a WRITE_WITH_IMM differs by HCA (0 or the length)
		if (ok && (wcs[0].opcode != IBV_WC_RECV_RDMA_WITH_IMM || ntohl(wcs[0].imm_data) != 0xc0de ||
			   bad >= 0)) {
			report(false, "write", "opcode %d imm %#x len %u first bad byte %ld",
			       wcs[0].opcode, ntohl(wcs[0].imm_data), wcs[0].byte_len, bad);
			ok = false;
		} else if (ok) {
			report(true, "write", "%u bytes in %u WRs verified, imm 0xc0de, fnv %016llx",
			       total, kWriteChunks, (unsigned long long)sum);
		} else if (wcs.empty()) {
			report(false, "write", "no WRITE_WITH_IMM completion");
		}
		send_msg(fd, kWriteDone, !ok, sum);
	}

	// READ: the client reads 1 MiB of a pattern from buf[1 MiB..)
	fill(c.buf + kSlot, kReadChunk * kReadChunks, 4242);
	send_msg(fd, kReadReady, 0, fnv1a(c.buf + kSlot, kReadChunk * kReadChunks));
	recv_msg(fd, kReadDone);

	// ATOMIC: a counter at buf[2 MiB]
	uint64_t *ctr = reinterpret_cast<uint64_t *>(c.buf + 2 * kSlot);
	*ctr = 1000;
	send_msg(fd, kAtomicReady);
	Msg m = recv_msg(fd, kAtomicDone);
	report(*ctr == m.val, "atomic-target", "counter %llu, expected %llu",
	       (unsigned long long)*ctr, (unsigned long long)m.val);

	// the stream lands in buf[0, 1 MiB): its last round must be there
	m = recv_msg(fd, kStreamDone);
	if (m.arg) {
		long bad = check(c.buf, kSlot, m.val);

		report(bad < 0, "stream-target", "last round (seed %llu) first bad byte %ld",
		       (unsigned long long)m.val, bad);
	}

	recv_msg(fd, kErrorStep);
	send_msg(fd, kBye);
}

struct StreamOpts {
	uint32_t wrs = 2048;	// 0: no stream
	uint32_t secs = 0;	// 0: no time limit
	bool verify = false;	// -V
	const char *stop = nullptr;	// -T
	const char *progress = nullptr;	// -P
};

// -P: the stream's progress every 10 ms on the wall clock, the clock the
// guests' samplers stamp with (bash's EPOCHREALTIME)
class Progress {
public:
	explicit Progress(const char *path)
		: f_(path ? fopen(path, "w") : nullptr)
	{
		if (path && !f_)
			die("-P %s: %s", path, strerror(errno));
		// whole lines: a bench reads the file while it grows
		if (f_)
			setvbuf(f_, nullptr, _IOLBF, 0);
	}
	~Progress()
	{
		if (f_)
			fclose(f_);
	}
	void at(uint64_t bytes, bool force = false)
	{
		if (!f_)
			return;
		timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t us = uint64_t(ts.tv_sec) * 1000000 + uint64_t(ts.tv_nsec) / 1000;
		if (!force && us < next_)
			return;
		next_ = us + 10000;
		fprintf(f_, "P %llu %llu\n", (unsigned long long)us, (unsigned long long)bytes);
	}

private:
	FILE *f_;
	uint64_t next_ = 0;
};

// -V: rounds of 256 4 KiB WRITEs into the peer's first MiB, each round a
// pattern of its own, read back and checked before the next round.
// Returns the seed of the last round (what the peer must hold), 0 on
// failure.
uint64_t verified_stream(Ctx &c, const StreamOpts &o)
{
	constexpr uint32_t kSz = 4096, kPerRound = kSlot / kSz, kSig = 16;
	uint8_t *src = c.buf, *back = c.buf + 3 * kSlot;
	auto t0 = std::chrono::steady_clock::now();
	uint32_t round = 0;
	uint64_t seed = 0;
	std::vector<ibv_wc> wcs;

	for (;;) {
		uint32_t posted = 0, done = 0;

		seed = 9000 + round;
		fill(src, kSlot, seed);
		while (done < kPerRound) {
			while (posted < kPerRound && posted - done < kDepth / 2) {
				bool sig = (posted + 1) % kSig == 0;

				if (post_send(c, IBV_WR_RDMA_WRITE, posted, src + posted * kSz, kSz,
					      c.peer.addr + posted * kSz, c.peer.rkey,
					      sig ? IBV_SEND_SIGNALED : 0))
					die("post_send stream: %s", strerror(errno));
				posted++;
			}
			wcs.clear();
			if (!wait_wc(c, wcs, 1) || !all_ok(wcs, "stream"))
				return 0;
			for (auto &w : wcs)
				done = static_cast<uint32_t>(w.wr_id) + 1;
		}
		memset(back, 0, kSlot);
		if (post_send(c, IBV_WR_RDMA_READ, 1u << 30, back, kSlot, c.peer.addr, c.peer.rkey))
			die("post_send stream READ: %s", strerror(errno));
		wcs.clear();
		if (!wait_wc(c, wcs, 1) || !all_ok(wcs, "stream-read"))
			return 0;
		long bad = check(back, kSlot, seed);
		if (bad >= 0) {
			report(false, "stream", "round %u read back wrong at byte %ld", round, bad);
			return 0;
		}
		round++;
		double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		if ((o.wrs && round * kPerRound >= o.wrs) || (o.secs && s > o.secs) ||
		    (o.stop && access(o.stop, F_OK) == 0)) {
			report(true, "stream", "%u rounds of %u WRITEs of %u B, each read back and checked, in %.2f s, %.2f MiB/s written",
			       round, kPerRound, kSz, s, round * double(kSlot) / s / 1048576);
			return seed;
		}
	}
}

void client(Ctx &c, int fd, const StreamOpts &so)
{
	uint32_t stream_wrs = so.wrs, stream_secs = so.secs;
	std::vector<ibv_wc> wcs;
	uint8_t *src = c.buf;

	for (uint32_t size : kSendSizes) {
		Msg m = recv_msg(fd, kSendReady);
		uint64_t sum = 0xcbf29ce484222325ull;

		if (m.arg != size)
			die("send step for size %u, expected %u", m.arg, size);
		for (int i = 0; i < kSendIters; i++) {
			uint8_t *p = src + i * kSlot;
			bool imm = i & 1;

			fill(p, size, send_seed(size, i));
			sum = fnv1a(p, size, sum);
			if (post_send(c, imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, i, p, size, 0, 0,
				      IBV_SEND_SIGNALED | (size <= 64 && !imm ? IBV_SEND_INLINE : 0),
				      size + i, size >= 2 ? 2 : 1))
				die("post_send: %s", strerror(errno));
		}
		wcs.clear();
		bool ok = wait_wc(c, wcs, kSendIters) && all_ok(wcs, "send-local");
		send_msg(fd, kSendDone);
		m = recv_msg(fd, kSendDone);
		report(ok && !m.arg && m.val == sum, "send-sender",
		       "size %u: local fnv %016llx, peer fnv %016llx", size,
		       (unsigned long long)sum, (unsigned long long)m.val);
	}

	// WRITE: 64 WRs posted back to back (one doorbell if the kernel polls)
	recv_msg(fd, kWriteReady);
	{
		uint32_t total = kWriteChunk * kWriteChunks;

		fill(src, total, 777);
		for (uint32_t i = 0; i < kWriteChunks; i++) {
			bool last = i == kWriteChunks - 1;

			if (post_send(c, last ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE, i,
				      src + i * kWriteChunk, kWriteChunk, c.peer.addr + i * kWriteChunk,
				      c.peer.rkey, last || !(i % 16) ? IBV_SEND_SIGNALED : 0, 0xc0de,
				      i % 3 + 1))
				die("post_send WRITE: %s", strerror(errno));
		}
		wcs.clear();
		bool ok = wait_wc(c, wcs, 5) && all_ok(wcs, "write-local");
		send_msg(fd, kWriteDone);
		Msg m = recv_msg(fd, kWriteDone);
		uint64_t sum = fnv1a(src, total);
		report(ok && !m.arg && m.val == sum, "write-sender", "local fnv %016llx, peer fnv %016llx",
		       (unsigned long long)sum, (unsigned long long)m.val);
	}

	// READ
	{
		Msg m = recv_msg(fd, kReadReady);
		uint8_t *dst = c.buf + kSlot;
		uint32_t total = kReadChunk * kReadChunks;

		memset(dst, 0, total);
		for (uint32_t i = 0; i < kReadChunks; i++)
			if (post_send(c, IBV_WR_RDMA_READ, i, dst + i * kReadChunk, kReadChunk,
				      c.peer.addr + kSlot + i * kReadChunk, c.peer.rkey,
				      IBV_SEND_SIGNALED, 0, 2))
				die("post_send READ: %s", strerror(errno));
		wcs.clear();
		bool ok = wait_wc(c, wcs, kReadChunks) && all_ok(wcs, "read");
		long bad = check(dst, total, 4242);
		uint64_t sum = fnv1a(dst, total);
		report(ok && bad < 0 && sum == m.val, "read",
		       "%u bytes in %u WRs, first bad byte %ld, fnv %016llx peer %016llx", total,
		       kReadChunks, bad, (unsigned long long)sum, (unsigned long long)m.val);
		send_msg(fd, kReadDone);
	}

	// ATOMIC: 20 fetch-adds, then a CAS that hits and one that misses
	{
		recv_msg(fd, kAtomicReady);
		uint64_t *res = reinterpret_cast<uint64_t *>(c.buf + 2 * kSlot);
		uint64_t raddr = c.peer.addr + 2 * kSlot, expect = 1000;
		bool ok = true;

		for (int i = 0; i < 20 && ok; i++) {
			ibv_sge sg{reinterpret_cast<uintptr_t>(res), 8, c.mr->lkey};
			ibv_send_wr wr{}, *bad;

			wr.opcode = i < 18 ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
			wr.wr_id = 500 + i;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.sg_list = &sg;
			wr.num_sge = 1;
			wr.wr.atomic.remote_addr = raddr;
			wr.wr.atomic.rkey = c.peer.rkey;
			wr.wr.atomic.compare_add = i < 18 ? 3 : 1054;
			wr.wr.atomic.swap = i == 18 ? 7 : 9;
			*res = ~0ull;
			if (ibv_post_send(c.qp, &wr, &bad))
				die("post_send ATOMIC: %s", strerror(errno));
			wcs.clear();
			ok = wait_wc(c, wcs, 1) && all_ok(wcs, "atomic");
			// fetch-adds return 1000, 1003, ...; the CAS sees 1054 (hit), then 7 (miss)
			uint64_t want = i < 18 ? expect : i == 18 ? 1054 : 7;
			if (ok && *res != want) {
				report(false, "atomic", "op %d returned %llu, expected %llu", i,
				       (unsigned long long)*res, (unsigned long long)want);
				ok = false;
			}
			if (i < 18)
				expect += 3;
		}
		if (ok)
			report(true, "atomic", "18 FETCH_ADD + CMP_SWP hit and miss returned the right values");
		send_msg(fd, kAtomicDone, 0, 7);
	}

	// stream: WRITEs of 4 KiB, kDepth/2 in flight, signaled every 16th;
	// a round of 256 covers the peer's first MiB with one pattern
	if (so.verify) {
		uint64_t seed = verified_stream(c, so);

		send_msg(fd, kStreamDone, seed != 0, seed);
	} else if (stream_wrs) {
		constexpr uint32_t kSz = 4096, kPerRound = kSlot / kSz, kSig = 16;
		uint32_t posted = 0, done = 0, rounds = (stream_wrs + kPerRound - 1) / kPerRound;
		uint64_t seed = 9000 + rounds - 1;
		auto t0 = std::chrono::steady_clock::now();
		bool ok = true;

		Progress prog(so.progress);
		// -P: every WRITE signaled, so the progress is to the 4 KiB
		const uint32_t sig_every = so.progress ? 1 : kSig;

		stream_wrs = rounds * kPerRound;	// whole rounds
		fill(src, kSlot, seed);
		prog.at(0, true);
		while (ok && done < stream_wrs) {
			// -t: past the deadline, end with the round under way
			if (stream_secs && stream_wrs > posted &&
			    std::chrono::steady_clock::now() - t0 > std::chrono::seconds(stream_secs))
				stream_wrs = (posted + kPerRound - 1) / kPerRound * kPerRound;
			while (posted < stream_wrs && posted - done < kDepth / 2) {
				uint32_t i = posted % kPerRound;
				bool sig = (posted + 1) % sig_every == 0;

				if (post_send(c, IBV_WR_RDMA_WRITE, posted, src + i * kSz, kSz,
					      c.peer.addr + i * kSz, c.peer.rkey,
					      sig ? IBV_SEND_SIGNALED : 0))
					die("post_send stream: %s", strerror(errno));
				posted++;
			}
			wcs.clear();
			ok = wait_wc(c, wcs, 1) && all_ok(wcs, "stream");
			for (auto &w : wcs)
				done = static_cast<uint32_t>(w.wr_id) + 1;
			prog.at(uint64_t(done) * kSz);
		}
		prog.at(uint64_t(done) * kSz, true);
		double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		report(ok, "stream", "%u WRITEs of %u B in %.2f s, %.2f MiB/s", stream_wrs, kSz, s,
		       stream_wrs * double(kSz) / s / 1048576);
		send_msg(fd, kStreamDone, ok, seed);
	} else {
		send_msg(fd, kStreamDone, 0);
	}

	// errors: a bad rkey, then a WR behind it
	{
		post_send(c, IBV_WR_RDMA_WRITE, 900, src, 64, c.peer.addr, c.peer.rkey ^ 0x5a5a00);
		post_send(c, IBV_WR_RDMA_WRITE, 901, src, 64, c.peer.addr, c.peer.rkey);
		wcs.clear();
		bool ok = wait_wc(c, wcs, 2);
		report(ok && wcs[0].wr_id == 900 && wcs[0].status == IBV_WC_REM_ACCESS_ERR &&
			       wcs[1].wr_id == 901 && wcs[1].status == IBV_WC_WR_FLUSH_ERR,
		       "bad-rkey", "%s / %s", ok ? ibv_wc_status_str(wcs[0].status) : "timeout",
		       ok ? ibv_wc_status_str(wcs[1].status) : "");
		ibv_qp_attr a{};
		ibv_qp_init_attr ia{};
		ibv_query_qp(c.qp, &a, IBV_QP_STATE, &ia);
		report(a.qp_state == IBV_QPS_ERR, "bad-rkey-qp-error", "state %d", a.qp_state);
		send_msg(fd, kErrorStep);
		recv_msg(fd, kBye);
	}
}

// -G, -H: a test's go-ahead
void wait_for_file(const char *path)
{
	if (!path)
		return;
	printf("waiting for %s\n", path);
	fflush(stdout);
	while (access(path, F_OK) != 0)
		usleep(10000);
}

}  // namespace

int main(int argc, char **argv)
{
	const char *dev = nullptr, *peer = nullptr, *go = nullptr, *hold = nullptr;
	int gidx = 1, port = 18777, opt;
	bool dmabuf = false;
	StreamOpts so;
	Ctx c;

	while ((opt = getopt(argc, argv, "d:g:p:w:t:m:eDVT:G:H:P:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		case 'e': c.events = true; break;
		case 'D': dmabuf = true; break;
		case 'm': c.path_mtu = mtu_of(atoi(optarg)); break;
		case 'w': so.wrs = static_cast<uint32_t>(atoi(optarg)); break;
		case 't': so.secs = static_cast<uint32_t>(atoi(optarg)); break;
		case 'V': so.verify = true; break;
		case 'T': so.stop = optarg; break;
		case 'P': so.progress = optarg; break;
		case 'G': go = optarg; break;
		case 'H': hold = optarg; break;
		default: die("usage: %s -d DEV [-g GID_INDEX] [-p PORT] [-w STREAM_WRS] [-t STREAM_SECS] [-V] [-T STOP_FILE] [-P PROGRESS_FILE] [-G GO_FILE] [-H HOLD_FILE] [-m PATH_MTU] [-e] [-D] [SERVER]", argv[0]);
		}
	}
	if (!dev)
		die("usage: %s -d DEV [-g GID_INDEX] [-p PORT] [-e] [SERVER]", argv[0]);
	if (optind < argc)
		peer = argv[optind];

	open_dev(c, dev, gidx, dmabuf);
	wait_for_file(go);
	int fd = peer ? tcp_connect(peer, port) : tcp_accept(port);
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	xwrite(fd, &c.me, sizeof(c.me));
	xread(fd, &c.peer, sizeof(c.peer));
	connect_qp(c, gidx);
	send_msg(fd, kHello);
	recv_msg(fd, kHello);

	if (peer)
		client(c, fd, so);
	else
		server(c, fd);
	printf("%s: steps done\n", peer ? "client" : "server");
	fflush(stdout);
	wait_for_file(hold);

	close(fd);
	ibv_destroy_qp(c.qp);
	ibv_dereg_mr(c.mr);
	ibv_destroy_cq(c.cq);
	if (c.ch)
		ibv_destroy_comp_channel(c.ch);
	ibv_dealloc_pd(c.pd);
	ibv_close_device(c.ctx);
	if (dmabuf)
		mrc_tool::vgem_buf_release(c.vgem);
	else
		free(c.buf);
	printf("%s: %s\n", peer ? "client" : "server", failures ? "FAILED" : "all steps passed");
	return failures ? 1 : 0;
}
