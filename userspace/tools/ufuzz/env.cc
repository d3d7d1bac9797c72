// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The fuzzing process's device, buffers and keys, its async events, and
// the report: what each class tried and what the kernel answered.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../device.h"
#include "../report.h"
#include "ufuzz.h"

namespace ufz {

using mrc_tool::die;

const char *const kClsName[kClsCount] = {
	"sq", "rq", "srq", "cq", "index", "wrap", "torn", "keys", "ah", "doorbell", "mmap", "destroy",
	"state", "mw",
};

void Rng::bytes(void *p, size_t n)
{
	auto *c = static_cast<uint8_t *>(p);

	while (n) {
		uint64_t v = next();
		size_t k = n < 8 ? n : 8;

		memcpy(c, &v, k);
		c += k;
		n -= k;
	}
}

ibv_context *open_ctx(const char *name)
{
	ibv_context *ctx = mrc_tool::open_device(name);

	// async events are drained between operations, never waited for
	int fl = fcntl(ctx->async_fd, F_GETFL);

	if (fl < 0 || fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK))
		die("async fd: %s", strerror(errno));
	return ctx;
}

// The rings are reached through the provider's structures: only ours.
static void check_metaroce(const char *dev)
{
	std::string attr = std::string("/sys/class/infiniband/") + dev + "/metaroce_abi_version";
	struct stat st;

	if (stat(attr.c_str(), &st))
		die("%s is not a metaroce device (no %s)", dev, attr.c_str());
}

void env_open(Env &e, const char *dev, int gidx)
{
	constexpr int kAll = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	check_metaroce(dev);
	e.dev = dev;
	e.gidx = gidx;
	e.ctx = open_ctx(dev);
	e.ctx2 = open_ctx(dev);
	e.pd = ibv_alloc_pd(e.ctx);
	e.pd2 = ibv_alloc_pd(e.ctx);
	if (!e.pd || !e.pd2)
		die("alloc_pd: %s", strerror(errno));
	if (ibv_query_gid(e.ctx, 1, gidx, &e.gid))
		die("query_gid %d: %s", gidx, strerror(errno));
	if (posix_memalign(reinterpret_cast<void **>(&e.buf), 4096, kBufLen))
		die("out of memory");
	memset(e.buf, 0, kBufLen);
	e.mr = ibv_reg_mr(e.pd, e.buf, kBufLen, kAll);
	e.mr_ro = ibv_reg_mr(e.pd, e.buf, kBufLen, static_cast<int>(IBV_ACCESS_REMOTE_READ));
	e.mr_pd2 = ibv_reg_mr(e.pd2, e.buf, kBufLen, kAll);
	// small: pinned memory counts against the user's RLIMIT_MEMLOCK
	e.mr_bind = ibv_reg_mr(e.pd, e.buf, kBindLen,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	e.mr_bind_nolw = ibv_reg_mr(e.pd, e.buf, kBindLen, static_cast<int>(IBV_ACCESS_MW_BIND));
	e.mr_bind_pd2 = ibv_reg_mr(e.pd2, e.buf, kBindLen,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	ibv_mr *dead = ibv_reg_mr(e.pd, e.buf, 4096, kAll);
	if (!e.mr || !e.mr_ro || !e.mr_pd2 || !e.mr_bind || !e.mr_bind_nolw ||
	    !e.mr_bind_pd2 || !dead)
		die("reg_mr: %s (RLIMIT_MEMLOCK?)", strerror(errno));
	e.dead_lkey = dead->lkey;
	if (ibv_dereg_mr(dead))
		die("dereg_mr: %s", strerror(errno));
}

void env_close(Env &e)
{
	for (ibv_ah *ah : {e.ah, e.ah_pd2})
		if (ah && ibv_destroy_ah(ah))
			unexpected(e, "destroy_ah: %s", strerror(errno));
	for (ibv_mr *mr : {e.mr, e.mr_ro, e.mr_pd2, e.mr_bind, e.mr_bind_nolw, e.mr_bind_pd2})
		if (mr && ibv_dereg_mr(mr))
			unexpected(e, "dereg_mr: %s", strerror(errno));
	if (e.srq && ibv_destroy_srq(e.srq))
		unexpected(e, "destroy_srq: %s", strerror(errno));
	for (ibv_pd *pd : {e.pd, e.pd2})
		if (pd && ibv_dealloc_pd(pd))
			unexpected(e, "dealloc_pd: %s", strerror(errno));
	// ctx2 keeps its AH and PD: closing a context with objects is allowed
	ibv_close_device(e.ctx2);
	ibv_close_device(e.ctx);
	free(e.buf);
	e.ctx = e.ctx2 = nullptr;
	e.pd = e.pd2 = nullptr;
	e.mr = e.mr_ro = e.mr_pd2 = nullptr;
	e.mr_bind = e.mr_bind_nolw = e.mr_bind_pd2 = nullptr;
	e.ah = e.ah_pd2 = e.ah_ctx2 = nullptr;
	e.srq = nullptr;
	e.buf = nullptr;
}

void unexpected(Env &e, const char *fmt, ...)
{
	va_list ap;

	printf("UNEXPECTED seed=%llu op=%llu class=%s: ", (unsigned long long)e.seed,
	       (unsigned long long)e.op, kClsName[e.cls]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n  reproduce: %s --seed %llu --iterations %llu\n", e.cmdline.c_str(),
	       (unsigned long long)e.seed, (unsigned long long)e.op + 1);
	fflush(stdout);
	e.unexpected++;
}

void note_errno(Env &e, int err)
{
	e.t().errnos++;
	if (e.verbose)
		printf("  op %llu %s: errno %d (%s)\n", (unsigned long long)e.op,
		       kClsName[e.cls], err, strerror(err));
}

int drain_async(Env &e, ibv_context *ctx, ibv_event_type want)
{
	ibv_async_event ev;
	int n = 0;

	while (!ibv_get_async_event(ctx, &ev)) {
		e.t().events++;
		if (ev.event_type == want)
			n++;
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			e.dead = true;
		if (e.verbose)
			printf("  op %llu: async event %s\n", (unsigned long long)e.op,
			       ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	return n;
}

void print_summary(const Env &e)
{
	printf("%-9s %8s %8s %8s %8s %8s %8s %8s\n", "class", "ops", "wc_ok", "wc_err",
	       "wc_flush", "errnos", "events", "ignored");
	for (int c = 0; c < kClsCount; c++) {
		const Tally &t = e.tally[c];

		printf("%-9s %8llu %8llu %8llu %8llu %8llu %8llu %8llu\n", kClsName[c],
		       (unsigned long long)t.ops, (unsigned long long)t.wc_ok,
		       (unsigned long long)t.wc_err, (unsigned long long)t.wc_flush,
		       (unsigned long long)t.errnos, (unsigned long long)t.events,
		       (unsigned long long)t.ignored);
	}
	fflush(stdout);
}

// What shows that a class's garbage reached the kernel and was refused.
static uint64_t evidence(Cls c, const Tally &t)
{
	switch (c) {
	case kCq:
		return t.events;
	case kIndex:
		return t.ignored;
	case kWrap:
		return t.wc_ok;
	case kDoorbell:
	case kMmap:
	case kDestroy:
	case kState:
		return t.errnos;
	case kRq:
		return t.wc_err && t.wc_flush ? 1 : 0;
	default:
		return t.wc_err;
	}
}

// Classes where only some operations must be refused: destroy's closed
// contexts and killed children may end quietly, and an SRQ's garbage slot
// is refused only once a SEND takes it, which may be after the run.
static bool owes_evidence(Cls c)
{
	return c == kDestroy || c == kSrq;
}

bool check_evidence(const Env &e)
{
	bool ok = true;

	for (int c = 0; c < kClsCount; c++) {
		const Tally &t = e.tally[c];
		uint64_t due = owes_evidence(static_cast<Cls>(c)) ? t.owed : t.ops;

		if (!due)
			continue;
		if (!evidence(static_cast<Cls>(c), t)) {
			printf("NO EVIDENCE class=%s: %llu ops (%llu bound to be refused) and not one refusal seen\n",
			       kClsName[c], (unsigned long long)t.ops, (unsigned long long)due);
			ok = false;
		}
	}
	return ok;
}

}  // namespace ufz
