// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The device file itself: uverbs write() commands with garbage where the
// provider's doorbells carry none (work requests for QPs whose rings are
// the only way in), and mmap() of ring offsets that are wrong, private,
// the wrong size, of a destroyed QP, or of a live ring mapped again.

#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "uapi/metaroce-abi.h"
#include "ufuzz.h"

namespace ufz {

// Commands a process's CQs and SRQs refuse: only the process polls its
// CQs, and its rings move only as its provider asks. A well-formed
// RESIZE_CQ is what the provider sends (the CQ's ring moves to a new
// mapping, which only the provider follows), so the one sent here asks
// for a size no CQ may have.
static void ring_commands(Env &e, Pool &p, Rng &rng)
{
	static const uint32_t bad_cqes[] = {0, 65536, 0x7fffffff, 0x80000000u, ~0u};
	struct {
		ib_uverbs_cmd_hdr hdr;
		ib_uverbs_resize_cq cmd;	// POLL_CQ's layout is a prefix of it
	} c{};
	static uint8_t resp[4096];

	c.hdr.command = rng.pct(50) ? IB_USER_VERBS_CMD_POLL_CQ : IB_USER_VERBS_CMD_RESIZE_CQ;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4 / 8;
	c.cmd.response = reinterpret_cast<uintptr_t>(resp);
	c.cmd.cq_handle = (rng.pct(50) ? p.ud.cq : p.cqq.cq)->handle;
	c.cmd.cqe = c.hdr.command == IB_USER_VERBS_CMD_POLL_CQ ?
		    static_cast<uint32_t>(rng.below(4096)) : rng.pick(bad_cqes);
	if (write(e.ctx->cmd_fd, &c, sizeof(c)) < 0)
		note_errno(e, errno);
	else
		unexpected(e, "%s of a CQ the process polls succeeded",
			   c.hdr.command == IB_USER_VERBS_CMD_POLL_CQ ? "POLL_CQ" : "RESIZE_CQ");
	// An SRQ's ring moves only where the command says where its new ring
	// is to be described: a command without that part is an older
	// provider's (EOPNOTSUPP), and a place the kernel cannot write fails
	// (EFAULT) with nothing resized. A good address would move the ring
	// under the provider, which is the provider's own business.
	static const uint64_t bad_addrs[] = {0, 8, 0xffff888000000000ull, ~7ull};
	ib_uverbs_cmd_hdr mh{};
	ib_uverbs_modify_srq mc{};
	metaroce_modify_srq_cmd md{};
	uint8_t m[sizeof(mh) + sizeof(mc) + sizeof(md)];
	bool with_drv = rng.pct(50);
	size_t len = with_drv ? sizeof(m) : sizeof(m) - sizeof(md);

	mh.command = IB_USER_VERBS_CMD_MODIFY_SRQ;
	mh.in_words = static_cast<uint16_t>(len / 4);
	mc.srq_handle = e.srq->handle;
	mc.attr_mask = IBV_SRQ_MAX_WR;
	mc.max_wr = 1 + static_cast<uint32_t>(rng.below(4 * kSrqDepth));
	md.ring_info_addr = rng.pick(bad_addrs);
	memcpy(m, &mh, sizeof(mh));
	memcpy(m + sizeof(mh), &mc, sizeof(mc));
	memcpy(m + sizeof(mh) + sizeof(mc), &md, sizeof(md));
	if (write(e.ctx->cmd_fd, m, len) < 0)
		note_errno(e, errno);
	else
		unexpected(e, "a mapped SRQ was resized to %u %s", mc.max_wr,
			   with_drv ? "into an address it cannot write" : "by an older provider's command");
}

void op_doorbell(Env &e, Pool &p, Rng &rng)
{
	static const uint32_t cmds[] = {IB_USER_VERBS_CMD_POST_SEND, IB_USER_VERBS_CMD_POST_RECV,
					IB_USER_VERBS_CMD_POST_SRQ_RECV};
	FQp *qs[] = {&p.rc, &p.ud, &p.rc_srq};
	FQp &q = *qs[rng.below(3)];
	uint32_t cmd = rng.pick(cmds);
	bool ours = rng.pct(70);
	uint32_t handle = ours ? (cmd == IB_USER_VERBS_CMD_POST_SRQ_RECV ? e.srq->handle :
									  q.qp->handle) :
				 rng.u32() | 0x100000;
	// the kernel zeroes all of out_words: room for the largest value
	static uint8_t resp[0x10000 * 4];
	std::vector<uint8_t> buf;
	ib_uverbs_cmd_hdr hdr{};
	ib_uverbs_post_send body{};

	e.cls = kDoorbell;
	e.t().ops++;
	if (rng.pct(15))
		return ring_commands(e, p, rng);
	body.response = rng.pct(80) ? reinterpret_cast<uintptr_t>(resp) : rng.next();
	body.qp_handle = handle;
	body.wr_count = rng.pick({1u, 2u, 4u, rng.u32() % 64, 0xffffffffu, 0x10000u});
	if (rng.pct(50)) {
		// well-formed work requests: uverbs hands them to the driver
		bool send = cmd == IB_USER_VERBS_CMD_POST_SEND;
		uint32_t wsize = send ? sizeof(ib_uverbs_send_wr) : sizeof(ib_uverbs_recv_wr);
		uint32_t sges = 0;

		body.wr_count = 1 + static_cast<uint32_t>(rng.below(4));
		body.wqe_size = wsize;
		std::vector<uint8_t> wrs(static_cast<size_t>(wsize) * body.wr_count);

		rng.bytes(wrs.data(), wrs.size());
		for (uint32_t i = 0; i < body.wr_count; i++) {
			uint8_t *w = wrs.data() + static_cast<size_t>(i) * wsize;
			uint32_t n = static_cast<uint32_t>(rng.below(3));

			if (send) {
				auto *s = reinterpret_cast<ib_uverbs_send_wr *>(w);

				s->num_sge = n;
				s->opcode = rng.pick({uint32_t{IBV_WR_SEND}, uint32_t{IBV_WR_RDMA_WRITE},
						      rng.u32() % 16});
			} else {
				reinterpret_cast<ib_uverbs_recv_wr *>(w)->num_sge = n;
			}
			sges += n;
		}
		body.sge_count = sges;
		buf.assign(wrs.begin(), wrs.end());
		std::vector<uint8_t> sgl(sges * sizeof(ib_uverbs_sge));

		rng.bytes(sgl.data(), sgl.size());
		buf.insert(buf.end(), sgl.begin(), sgl.end());
	} else {
		body.sge_count = rng.pick({0u, 1u, rng.u32() % 8, 0xffffffffu});
		body.wqe_size = rng.pick({uint32_t{sizeof(ib_uverbs_send_wr)},
					  uint32_t{sizeof(ib_uverbs_recv_wr)}, 0u, 8u, 4096u, rng.u32()});
		buf.resize(rng.below(4096));
		rng.bytes(buf.data(), buf.size());
	}
	buf.insert(buf.begin(), reinterpret_cast<uint8_t *>(&body),
		   reinterpret_cast<uint8_t *>(&body) + sizeof(body));
	buf.resize((buf.size() + 3) & ~size_t{3});
	hdr.command = cmd;
	hdr.in_words = static_cast<uint16_t>(rng.pct(90) ? (buf.size() + sizeof(hdr)) / 4 : rng.u32());
	hdr.out_words = static_cast<uint16_t>(rng.pct(90) ? sizeof(ib_uverbs_post_send_resp) / 4 :
							     rng.u32());
	buf.insert(buf.begin(), reinterpret_cast<uint8_t *>(&hdr),
		   reinterpret_cast<uint8_t *>(&hdr) + sizeof(hdr));

	ssize_t r = write(e.ctx->cmd_fd, buf.data(), buf.size());

	if (r < 0)
		note_errno(e, errno);
	else if (ours && body.wr_count)
		unexpected(e, "a %u-byte command %u with %u work requests for handle %u was accepted",
			   static_cast<unsigned>(buf.size()), cmd, body.wr_count, handle);
	// the rings are untouched by all this: they still work
	if (ours && cmd == IB_USER_VERBS_CMD_POST_SEND && q.qp->qp_type == IBV_QPT_UD &&
	    fqp_state(q) == IBV_QPS_RTS && !finish_sends(e, q, {}))
		fqp_renew(e, q);
}

// --- mmap --------------------------------------------------------------------------

namespace {

struct Map {
	uintptr_t start, end;
	uint64_t off;
};

// This process's mappings of the device file, from /proc/self/maps.
std::vector<Map> device_maps()
{
	std::vector<Map> out;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	if (!f)
		return out;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, en;
		unsigned long long off;

		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx %*s %llx", &s, &en, &off) != 3)
			continue;
		out.push_back({s, en, off});
	}
	fclose(f);
	return out;
}

const Map *map_at(const std::vector<Map> &maps, const void *addr)
{
	for (const Map &m : maps)
		if (m.start == reinterpret_cast<uintptr_t>(addr))
			return &m;
	return nullptr;
}

void *try_map(Env &e, size_t len, int prot, int flags, uint64_t off, void *at = nullptr)
{
	void *p = mmap(at, len, prot, flags, e.ctx->cmd_fd, static_cast<off_t>(off));

	return p == MAP_FAILED ? nullptr : p;
}

// A mapping that must be refused.
void map_refused(Env &e, const char *what, size_t len, int flags, uint64_t off)
{
	void *p = try_map(e, len, PROT_READ | PROT_WRITE, flags, off);

	if (!p) {
		note_errno(e, errno);
		return;
	}
	unexpected(e, "mmap of %s (offset %#llx, %zu bytes) succeeded", what,
		   (unsigned long long)off, len);
	munmap(p, len);
}

// Maps a destroyed QP's send ring a second time before the destroy: the
// extra mapping stays valid (the pages are the mapping's until unmapped)
// and the offset is gone.
void map_stale(Env &e, Rng &rng)
{
	FQp t;

	fqp_create(e, t, IBV_QPT_UD, nullptr, 64);
	std::vector<Map> maps = device_maps();
	const Map *m = map_at(maps, t.sq.r.hdr);

	if (!m) {
		unexpected(e, "the SQ ring at %p is not in /proc/self/maps", (void *)t.sq.r.hdr);
		fqp_destroy(e, t);
		return;
	}
	Map ring = *m;
	size_t len = ring.end - ring.start;
	void *extra = try_map(e, len, PROT_READ | PROT_WRITE, MAP_SHARED, ring.off);

	if (!extra)
		unexpected(e, "a second mapping of a live ring: %s", strerror(errno));
	fqp_destroy(e, t);
	if (extra) {
		rng.bytes(extra, len);	// nobody reads it any more
		munmap(extra, len);
	}
	map_refused(e, "a destroyed QP's ring", len, MAP_SHARED, ring.off);
}

// Unmaps a live ring and maps the same offset back at the same address:
// the QP must work on.
void map_again(Env &e, FQp &q)
{
	std::vector<Map> maps = device_maps();
	const Map *m = map_at(maps, q.sq.r.hdr);

	if (!fqp_arm(e, q))
		return;
	if (!m) {
		unexpected(e, "the SQ ring at %p is not in /proc/self/maps", (void *)q.sq.r.hdr);
		return;
	}
	size_t len = m->end - m->start;

	munmap(q.sq.r.hdr, len);
	if (try_map(e, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, m->off, q.sq.r.hdr) !=
	    q.sq.r.hdr) {
		unexpected(e, "mapping a live ring again: %s", strerror(errno));
		return;
	}
	if (!finish_sends(e, q, {}))
		fqp_renew(e, q);
}

}  // namespace

// The pool's rings as /proc/self/maps shows them (other contexts' are
// mapped from the same file, at offsets of their own).
static std::vector<Map> pool_maps(Env &e, Pool &p)
{
	std::vector<Map> maps = device_maps(), out;
	std::vector<const void *> rings;
	ufz_ring r;

	for (FQp *q : {&p.rc, &p.ud, &p.rc_srq, &p.cqq}) {
		rings.push_back(q->sq.r.hdr);
		rings.push_back(q->rq.r.hdr);
		ufz_cq_ring(q->cq, &r);
		rings.push_back(r.hdr);
	}
	ufz_srq_ring(e.srq, &r);
	rings.push_back(r.hdr);
	for (const void *at : rings)
		if (const Map *m = at ? map_at(maps, at) : nullptr)
			out.push_back(*m);
	return out;
}

void op_mmap(Env &e, Pool &p, Rng &rng)
{
	std::vector<Map> maps = pool_maps(e, p);

	e.cls = kMmap;
	e.t().ops++;
	if (maps.empty()) {
		unexpected(e, "none of the rings is in /proc/self/maps");
		return;
	}
	const Map &m = maps[rng.below(maps.size())];
	size_t len = m.end - m.start;

	switch (rng.below(7)) {
	case 0:
		map_refused(e, "an offset nothing was made at", 4096 << rng.below(4),
			    MAP_SHARED, rng.pick({uint64_t{1} << 40, ~uint64_t{0xfff},
						  (rng.next() | uint64_t{1} << 44) & ~uint64_t{0xfff}}));
		break;
	case 1:
		map_refused(e, "a ring, privately", len, MAP_PRIVATE, m.off);
		break;
	case 2:
		map_refused(e, "a ring, a page short", len - 4096, MAP_SHARED, m.off);
		break;
	case 3:
		map_refused(e, "a ring, a page long", len + 4096, MAP_SHARED, m.off);
		break;
	case 4: {	// a second mapping is fine; growing it is not
		void *x = try_map(e, len, PROT_READ | PROT_WRITE, MAP_SHARED, m.off);

		if (!x) {
			unexpected(e, "a second mapping of a live ring: %s", strerror(errno));
			break;
		}
		void *y = mremap(x, len, len + 4096, MREMAP_MAYMOVE);

		if (y == MAP_FAILED) {
			note_errno(e, errno);
			munmap(x, len);
		} else {
			unexpected(e, "a ring mapping grew by mremap");
			munmap(y, len + 4096);
		}
		break;
	}
	case 5:
		map_stale(e, rng);
		break;
	default:
		map_again(e, rng.pct(50) ? p.ud : p.rc);
		break;
	}
}

}  // namespace ufz
