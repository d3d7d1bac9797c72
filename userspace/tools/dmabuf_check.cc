// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_dmabuf_check: memory regions over a dma-buf (ibv_reg_dmabuf_mr) on
// one device, two RC QPs of it connected to each other (loopback.h). The
// dma-buf is a dumb buffer of vgem (the virtual GEM driver: shmem pages
// behind a DRM node), exported with PRIME and mmap()ed so the CPU fills and
// checks it. B owns an MR over the middle of it, at an iova of its own; A
// moves data with plain memory.
//
//   vgem              a vgem node, a dumb buffer, its dma-buf, the mmap
//   bad-*             each bad registration refused with its errno, none
//                     registered: an fd that is not open, one that is not a
//                     dma-buf, offset + length past the buffer or wrapping,
//                     length 0, an iova whose page offset differs, remote
//                     write without local write, MW bind, zero-based
//   reg               the MR: lkey == rkey, the length asked
//   write-into        A's RDMA WRITE lands at the right place of the buffer,
//                     the bytes before and after the MR untouched
//   read-from         A's RDMA READ returns what the CPU wrote there
//   send-into         A's SEND lands in B's receive in the dma-buf MR
//   send-from         B's SEND gathers from the dma-buf MR (the lkey)
//   fadd, cswap       atomics on a word of the buffer
//   rereg             ibv_rereg_mr of a dma-buf MR refused, the MR intact
//   held, released    the MR holds the dma-buf after every user handle is
//                     gone (bufinfo of debugfs lists it); dereg frees it
//   stale             a WRITE with the rkey after dereg: remote access error
//
//   mrc_dmabuf_check -d DEV [-g GID_INDEX]
//
// Output: "ok STEP" / "fail STEP: why" lines and "all steps passed"; exit
// status 0 when every step passed.

#include <fcntl.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "device.h"
#include "loopback.h"
#include "pattern.h"
#include "report.h"
#include "vgem.h"

const char *const mrc_tool::kName = "mrc_dmabuf_check";

namespace {

using mrc_tool::die;
using mrc_tool::report;

constexpr size_t kPage = 4096;
constexpr size_t kBufSize = 64 * kPage;		// the dumb buffer
constexpr uint64_t kOff = 2 * kPage;		// the MR: buffer bytes
constexpr uint64_t kLen = 56 * kPage;		// [kOff, kOff + kLen)
constexpr uint64_t kIova = 0x7f0000000000ull;	// B's address for them
constexpr size_t kXfer = 5 * kPage + 123;	// crosses pages, odd end
constexpr uint64_t kAt = kPage - 77;		// where in the MR
constexpr unsigned int kRemote = IBV_ACCESS_REMOTE_READ |
				 IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_ATOMIC;
constexpr uint64_t kGuard = 99;			// pattern outside the MR

struct Env {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_gid gid = {};
	int gidx = 1;
	mrc_tool::VgemBuf vgem;
	int buf_fd = -1;		// vgem.fd
	uint8_t *map = nullptr;		// vgem.map
	ibv_mr *dmr = nullptr;		// B's MR over the dma-buf
	uint8_t *lbuf = nullptr;	// A's memory
	ibv_mr *lmr = nullptr;
	ibv_cq *acq = nullptr, *bcq = nullptr;
	ibv_qp *a = nullptr, *b = nullptr;
};

uintptr_t addr(const uint8_t *p)
{
	return reinterpret_cast<uintptr_t>(p);
}

// The buffer byte behind B's address @va of the MR.
uint8_t *at(Env &e, uint64_t va)
{
	return e.map + kOff + (va - kIova);
}

void vgem_step(Env &e)
{
	if (const char *what = mrc_tool::vgem_buf_create(e.vgem, kBufSize))
		die("%s: %s", what, strerror(errno));
	e.buf_fd = e.vgem.fd;
	e.map = e.vgem.map;
	mrc_tool::fill(e.map, kBufSize, kGuard);
	report(mrc_tool::check(e.map, kBufSize, kGuard) < 0, "vgem",
	       "dumb buffer of %zu bytes, dma-buf fd %d", kBufSize, e.buf_fd);
}

// One registration that must fail with @want; a success is deregistered.
void bad(Env &e, const char *step, uint64_t off, size_t len, uint64_t iova,
	 int fd, int access, int want)
{
	errno = 0;
	ibv_mr *mr = ibv_reg_dmabuf_mr(e.pd, off, len, iova, fd, access);
	int got = mr ? 0 : errno;

	if (mr)
		ibv_dereg_mr(mr);
	report(!mr && got == want, step, "errno %d (%s), want %d", got,
	       mr ? "registered" : strerror(got), want);
}

void bad_steps(Env &e)
{
	const int lw = IBV_ACCESS_LOCAL_WRITE;
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	int closed = dup(e.buf_fd);

	close(closed);
	bad(e, "bad-fd-closed", 0, kPage, 0, closed, lw, EBADF);
	bad(e, "bad-fd-negative", 0, kPage, 0, -1, lw, EBADF);
	bad(e, "bad-fd-not-dmabuf", 0, kPage, 0, null_fd, lw, EINVAL);
	bad(e, "bad-fd-verbs", 0, kPage, 0, e.ctx->cmd_fd, lw, EINVAL);
	bad(e, "bad-past-end", 0, kBufSize + 1, 0, e.buf_fd, lw, EINVAL);
	bad(e, "bad-offset-past-end", kBufSize, kPage, 0, e.buf_fd, lw, EINVAL);
	bad(e, "bad-wrap", UINT64_MAX - kPage + 1, 2 * kPage, 0, e.buf_fd, lw,
	    EINVAL);
	bad(e, "bad-length-0", 0, 0, 0, e.buf_fd, lw, EINVAL);
	bad(e, "bad-iova-offset", 0, kPage, 0x123, e.buf_fd, lw, EINVAL);
	bad(e, "bad-remote-write-only", 0, kPage, 0, e.buf_fd,
	    IBV_ACCESS_REMOTE_WRITE, EINVAL);
	bad(e, "bad-mw-bind", 0, kPage, 0, e.buf_fd, lw | IBV_ACCESS_MW_BIND,
	    EINVAL);
	bad(e, "bad-zero-based", 0, kPage, 0, e.buf_fd,
	    lw | IBV_ACCESS_ZERO_BASED, EINVAL);
	close(null_fd);
	report(mrc_tool::check(e.map, kBufSize, kGuard) < 0, "bad-untouched", "");
}

void connect(Env &e)
{
	e.acq = ibv_create_cq(e.ctx, 32, nullptr, nullptr, 0);
	e.bcq = ibv_create_cq(e.ctx, 32, nullptr, nullptr, 0);
	if (!e.acq || !e.bcq)
		die("create_cq: %s", strerror(errno));
	ibv_qp **qps[2] = { &e.a, &e.b };
	for (int i = 0; i < 2; i++) {
		ibv_qp_init_attr ia = {};
		ia.send_cq = ia.recv_cq = i ? e.bcq : e.acq;
		ia.qp_type = IBV_QPT_RC;
		ia.cap = { 16, 16, 1, 1, 0 };
		*qps[i] = ibv_create_qp(e.pd, &ia);
		if (!*qps[i])
			die("create_qp: %s", strerror(errno));
	}
	if (int err = mrc_tool::qp_connect_pair(e.a, e.b, e.gid, e.gidx, kRemote, 1))
		die("connect: %s", strerror(err));
}

using mrc_tool::one_wc;

const char *status(const ibv_wc &wc) { return mrc_tool::wc_status(wc); }

// One WR on @qp, completion on @cq: an RDMA op when @rkey is set.
ibv_wc run(ibv_qp *qp, ibv_cq *cq, ibv_wr_opcode op, ibv_sge sge,
	   uint64_t raddr = 0, uint32_t rkey = 0, uint64_t cmp_add = 0,
	   uint64_t swap = 0)
{
	ibv_send_wr wr = {}, *badwr = nullptr;

	wr.wr_id = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (int err = ibv_post_send(qp, &wr, &badwr)) {
		ibv_wc wc = {};
		wc.status = static_cast<ibv_wc_status>(-1);
		fprintf(stderr, "post: %s\n", strerror(err));
		return wc;
	}
	return one_wc(cq);
}

int post_recv(ibv_qp *qp, ibv_sge sge)
{
	ibv_recv_wr wr = {}, *badwr = nullptr;

	wr.wr_id = 0x7ec;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_recv(qp, &wr, &badwr);
}

// The MR's bytes other than [va, va + len) still hold the guard pattern,
// and so do the buffer's bytes outside the MR.
bool rest_untouched(Env &e, uint64_t va, size_t len)
{
	size_t lo = at(e, va) - e.map, hi = lo + len;

	for (size_t i = 0; i < kBufSize; i++)
		if ((i < lo || i >= hi) && e.map[i] != mrc_tool::pattern(kGuard, i))
			return false;
	return true;
}

void data_steps(Env &e)
{
	uint64_t va = kIova + kAt;
	uint8_t *t = at(e, va);
	ibv_sge lsge = { addr(e.lbuf), static_cast<uint32_t>(kXfer), e.lmr->lkey };
	ibv_sge dsge = { va, static_cast<uint32_t>(kXfer), e.dmr->lkey };

	mrc_tool::fill(e.lbuf, kXfer, 1);
	ibv_wc wc = run(e.a, e.acq, IBV_WR_RDMA_WRITE, lsge, va, e.dmr->rkey);
	long badb = mrc_tool::check(t, kXfer, 1);
	report(wc.status == IBV_WC_SUCCESS && badb < 0 && rest_untouched(e, va, kXfer),
	       "write-into", "%s, first wrong byte %ld, fnv %016llx", status(wc), badb,
	       (unsigned long long)mrc_tool::fnv1a(t, kXfer));

	mrc_tool::fill(t, kXfer, 2);
	memset(e.lbuf, 0, kXfer);
	wc = run(e.a, e.acq, IBV_WR_RDMA_READ, lsge, va, e.dmr->rkey);
	badb = mrc_tool::check(e.lbuf, kXfer, 2);
	report(wc.status == IBV_WC_SUCCESS && badb < 0, "read-from",
	       "%s, first wrong byte %ld, fnv %016llx", status(wc), badb,
	       (unsigned long long)mrc_tool::fnv1a(e.lbuf, kXfer));

	memset(t, 0, kXfer);
	mrc_tool::fill(e.lbuf, kXfer, 3);
	int perr = post_recv(e.b, dsge);
	wc = run(e.a, e.acq, IBV_WR_SEND, lsge);
	ibv_wc rwc = one_wc(e.bcq);
	badb = mrc_tool::check(t, kXfer, 3);
	report(!perr && wc.status == IBV_WC_SUCCESS && rwc.status == IBV_WC_SUCCESS &&
	       rwc.byte_len == kXfer && badb < 0, "send-into",
	       "post %d, %s / %s, %u bytes, first wrong byte %ld", perr, status(wc),
	       status(rwc), rwc.byte_len, badb);

	mrc_tool::fill(t, kXfer, 4);
	memset(e.lbuf, 0, kXfer);
	perr = post_recv(e.a, lsge);
	wc = run(e.b, e.bcq, IBV_WR_SEND, dsge);
	rwc = one_wc(e.acq);
	badb = mrc_tool::check(e.lbuf, kXfer, 4);
	report(!perr && wc.status == IBV_WC_SUCCESS && rwc.status == IBV_WC_SUCCESS &&
	       rwc.byte_len == kXfer && badb < 0, "send-from",
	       "post %d, %s / %s, %u bytes, first wrong byte %ld", perr, status(wc),
	       status(rwc), rwc.byte_len, badb);

	// restore the guard pattern so later steps can check around
	for (size_t i = 0; i < kXfer; i++)
		t[i] = mrc_tool::pattern(kGuard, t - e.map + i);

	uint64_t wva = kIova + 3 * kPage + 8;
	uint64_t *w = reinterpret_cast<uint64_t *>(at(e, wva));
	uint64_t *res = reinterpret_cast<uint64_t *>(e.lbuf);
	ibv_sge asge = { addr(e.lbuf), 8, e.lmr->lkey };
	uint64_t saved = *w;

	*w = 1000;
	*res = 0;
	wc = run(e.a, e.acq, IBV_WR_ATOMIC_FETCH_AND_ADD, asge, wva, e.dmr->rkey, 23);
	report(wc.status == IBV_WC_SUCCESS && *res == 1000 && *w == 1023, "fadd",
	       "%s, old %llu, now %llu", status(wc), (unsigned long long)*res,
	       (unsigned long long)*w);
	wc = run(e.a, e.acq, IBV_WR_ATOMIC_CMP_AND_SWP, asge, wva, e.dmr->rkey, 1023, 77);
	report(wc.status == IBV_WC_SUCCESS && *res == 1023 && *w == 77, "cswap",
	       "%s, old %llu, now %llu", status(wc), (unsigned long long)*res,
	       (unsigned long long)*w);
	*w = saved;
	report(rest_untouched(e, kIova, 0), "guard", "");
}

// The dma-bufs debugfs lists (the "Total N objects" line of bufinfo); -1
// if it cannot be read.
int dmabuf_count()
{
	std::ifstream f("/sys/kernel/debug/dma_buf/bufinfo");
	std::string line;
	int n = -1;

	// each buffer's "Total N devices attached" matches the same %d
	while (std::getline(f, line))
		if (line.find(" objects,") != std::string::npos &&
		    sscanf(line.c_str(), "Total %d objects", &n) == 1)
			break;
	return n;
}

// Every user handle of the buffer dropped: the MR alone keeps it, then
// dereg frees it; a WRITE with the old rkey fails.
void release_steps(Env &e, int before)
{
	uint32_t rkey = e.dmr->rkey;
	int derr = mrc_tool::vgem_buf_release(e.vgem);

	e.map = nullptr;
	int held = dmabuf_count();
	report(!derr && held == before + 1, "held", "destroy %d, %d dma-buf(s), %d before",
	       derr, held, before);

	int err = ibv_dereg_mr(e.dmr);
	int freed = dmabuf_count();
	report(!err && freed == before, "released", "dereg %d, %d dma-buf(s)", err, freed);

	ibv_sge lsge = { addr(e.lbuf), 64, e.lmr->lkey };
	ibv_wc wc = run(e.a, e.acq, IBV_WR_RDMA_WRITE, lsge, kIova, rkey);
	report(wc.status == IBV_WC_REM_ACCESS_ERR, "stale", "%s", status(wc));
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
	e.lbuf = static_cast<uint8_t *>(aligned_alloc(kPage, kBufSize));
	if (!e.pd || !e.lbuf)
		die("pd or buffer");
	e.lmr = ibv_reg_mr(e.pd, e.lbuf, kBufSize, static_cast<int>(IBV_ACCESS_LOCAL_WRITE));
	if (!e.lmr)
		die("reg_mr: %s", strerror(errno));
	int before = dmabuf_count();
	if (before < 0)
		die("no /sys/kernel/debug/dma_buf/bufinfo (debugfs)");

	vgem_step(e);
	bad_steps(e);

	const int access = IBV_ACCESS_LOCAL_WRITE | kRemote;
	e.dmr = ibv_reg_dmabuf_mr(e.pd, kOff, kLen, kIova, e.buf_fd, access);
	report(e.dmr && e.dmr->lkey == e.dmr->rkey && e.dmr->length == kLen, "reg",
	       "%s", e.dmr ? "" : strerror(errno));
	if (!e.dmr)
		die("no dma-buf MR, nothing else to try");
	connect(e);
	data_steps(e);

	errno = 0;
	int r = ibv_rereg_mr(e.dmr, IBV_REREG_MR_CHANGE_ACCESS, nullptr, nullptr, 0,
			     IBV_ACCESS_LOCAL_WRITE);
	int rerr = errno;
	ibv_sge lsge = { addr(e.lbuf), 64, e.lmr->lkey };
	mrc_tool::fill(e.lbuf, 64, 5);
	ibv_wc wc = run(e.a, e.acq, IBV_WR_RDMA_WRITE, lsge, kIova, e.dmr->rkey);
	// libibverbs refuses rereg of a dma-buf MR itself (EINVAL); the
	// kernel would say EOPNOTSUPP
	report(r && (rerr == EINVAL || rerr == EOPNOTSUPP) && wc.status == IBV_WC_SUCCESS &&
	       mrc_tool::check(at(e, kIova), 64, 5) < 0, "rereg",
	       "returned %d, errno %d (%s), then %s", r, rerr, strerror(rerr), status(wc));

	release_steps(e, before);

	ibv_destroy_qp(e.a);
	ibv_destroy_qp(e.b);
	ibv_destroy_cq(e.acq);
	ibv_destroy_cq(e.bcq);
	ibv_dereg_mr(e.lmr);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.lbuf);
	if (mrc_tool::failures) {
		printf("%d step(s) failed\n", mrc_tool::failures);
		return 1;
	}
	printf("all steps passed\n");
	return 0;
}
