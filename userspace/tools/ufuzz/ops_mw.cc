// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Memory windows: BIND_MW and LOCAL_INV slots written straight into the
// send ring, each a good bind bent one way (keys, PDs, the MR's rights,
// ranges past the MR or wrapping 2^64, rights a window cannot carry, data
// a bind has none of). The kernel checks them when they execute: each
// bent one must complete with an error (IBV_WC_MW_BIND_ERR, or
// LOC_QP_OP_ERR for a malformed slot), never succeed, never reach the
// kernel's log.

#include <cerrno>
#include <cstring>

#include "ufuzz.h"

namespace ufz {

namespace {

constexpr uint32_t kRemote = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_ATOMIC;

enum Bend : uint32_t {
	kGood,
	kRandomMwKey,	// names no window of the process
	kStaleMwKey,	// the window's previous tag
	kOtherIndex,	// the new rkey names another window
	kRandomLkey,
	kDeadLkey,	// a deregistered MR's
	kNoBindRight,	// an MR without MW_BIND
	kMrOtherPd,
	kMwOtherPd,
	kPastMr,
	kBeforeMr,
	kWrapping,	// addr + length passes 2^64
	kZeroLength,	// type 2: no unbinding by bind
	kBadRights,	// zero-based on type 1, MW_BIND, bits no verb has
	kNoLocalWrite,	// remote write or atomic over an MR without local write
	kWithData,	// SGEs or inline bytes on a bind
	kTwice,		// a type 2 window bound twice
	kInvRandom,	// LOCAL_INV of a key naming nothing
	kInvType1,	// LOCAL_INV of a type 1 window
	kBends
};

const char *const kBendName[kBends] = {
	"good", "random window key", "stale window key", "new key of another index",
	"random lkey", "dead lkey", "MR without MW_BIND", "MR of another PD",
	"window of another PD", "past the MR", "before the MR", "addr + length wraps",
	"type 2 of length 0", "rights a window cannot carry",
	"remote write without local write", "SGEs or inline data", "type 2 bound twice",
	"LOCAL_INV of nothing", "LOCAL_INV of a type 1 window",
};

struct Windows {
	ibv_mw *t1 = nullptr, *t2 = nullptr, *pd2 = nullptr;
};

// One slot: a bind of window @mw (whose rkey is @key when the slot runs)
// to the process's bind MR, bent by @b; returns the new rkey it names.
uint32_t bind_slot(Env &e, FQp &q, uint8_t *slot, uint64_t id, Bend b, const Windows &w,
		   ibv_mw *mw, uint32_t key, Rng &rng)
{
	auto *s = reinterpret_cast<metaroce_send_wqe *>(slot);
	ibv_mr *mr = e.mr_bind;
	uint64_t base = reinterpret_cast<uintptr_t>(e.buf);

	memset(slot, 0, q.sq.r.slot_size);
	s->wr_id = id;
	s->opcode = IBV_WR_BIND_MW;
	s->send_flags = IBV_SEND_SIGNALED;
	s->wr.bind.addr = base + 4096 * rng.below(kBindLen / 4096);
	s->wr.bind.length = 1 + rng.below(kBindLen);
	s->wr.bind.mw_rkey = key;
	s->wr.bind.rkey = ibv_inc_rkey(key);
	s->wr.bind.access = static_cast<uint32_t>(rng.below(kRemote + 1)) & kRemote;

	switch (b) {
	case kRandomMwKey:
		s->wr.bind.mw_rkey = rng.u32();
		s->wr.bind.rkey = (s->wr.bind.mw_rkey & ~0xffu) | (rng.u32() & 0xff);
		break;
	case kStaleMwKey:
		s->wr.bind.mw_rkey ^= 1 + static_cast<uint32_t>(rng.below(255));
		break;
	case kOtherIndex:
		s->wr.bind.rkey = ibv_inc_rkey(mw == w.t2 ? w.t1->rkey : w.t2->rkey);
		break;
	case kRandomLkey:
		mr = nullptr;
		s->wr.bind.mr_lkey = rng.u32();
		if ((s->wr.bind.mr_lkey >> 8) == (e.mr_bind->lkey >> 8))
			s->wr.bind.mr_lkey ^= 0x100;
		break;
	case kDeadLkey:
		mr = nullptr;
		s->wr.bind.mr_lkey = e.dead_lkey;
		break;
	case kNoBindRight:
		mr = e.mr;
		break;
	case kMrOtherPd:
		mr = e.mr_bind_pd2;
		break;
	case kPastMr:
		s->wr.bind.addr = base + kBindLen - 1 - rng.below(4096);
		s->wr.bind.length = base + kBindLen - s->wr.bind.addr + 1 + rng.below(4096);
		break;
	case kBeforeMr:
		s->wr.bind.addr = base - 1 - rng.below(4096);
		break;
	case kWrapping:
		s->wr.bind.length = ~uint64_t{0} - (s->wr.bind.addr - base) - rng.below(64);
		break;
	case kZeroLength:
		s->wr.bind.length = 0;
		break;
	case kBadRights: {
		// zero-based is a type 2 window's right ([PLC-8]), not a type 1's
		uint32_t zb = mw->type == IBV_MW_TYPE_1 ? uint32_t{IBV_ACCESS_ZERO_BASED} :
			      uint32_t{IBV_ACCESS_MW_BIND};

		s->wr.bind.access |= rng.pick({zb, uint32_t{IBV_ACCESS_MW_BIND}, 1u << 20,
					       0x80000000u});
		break;
	}
	case kNoLocalWrite:
		mr = e.mr_bind_nolw;
		s->wr.bind.access |= rng.pick({uint32_t{IBV_ACCESS_REMOTE_WRITE},
					       uint32_t{IBV_ACCESS_REMOTE_ATOMIC}});
		break;
	case kWithData:
		if (rng.pct(50)) {
			s->num_sge = 1 + static_cast<uint32_t>(rng.below(kMaxSge));
		} else {
			s->send_flags |= IBV_SEND_INLINE;
			s->length = static_cast<uint32_t>(rng.below(kMaxInline));
		}
		break;
	default:
		break;
	}
	if (mr)
		s->wr.bind.mr_lkey = mr->lkey;
	// inside the MR unless bent out of it
	if (b != kPastMr && b != kBeforeMr && b != kWrapping &&
	    s->wr.bind.addr + s->wr.bind.length > base + kBindLen)
		s->wr.bind.length = base + kBindLen - s->wr.bind.addr;
	return s->wr.bind.rkey;
}

void inv_slot(Env &e, FQp &q, uint8_t *slot, uint64_t id, uint32_t key)
{
	auto *s = reinterpret_cast<metaroce_send_wqe *>(slot);

	(void)e;
	memset(slot, 0, q.sq.r.slot_size);
	s->wr_id = id;
	s->opcode = IBV_WR_LOCAL_INV;
	s->send_flags = IBV_SEND_SIGNALED;
	s->ex.invalidate_rkey = key;
}

}  // namespace

void op_mw(Env &e, Pool &p, Rng &rng)
{
	FQp &q = p.rc;
	std::vector<Posted> posted;
	Windows w;

	e.cls = kMw;
	e.t().ops++;
	if (!fqp_arm(e, q))
		return;
	w.t1 = ibv_alloc_mw(e.pd, IBV_MW_TYPE_1);
	w.t2 = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	w.pd2 = ibv_alloc_mw(e.pd2, IBV_MW_TYPE_2);
	if (!w.t1 || !w.t2 || !w.pd2) {
		unexpected(e, "alloc_mw: %s", strerror(errno));
	} else {
		uint32_t base = q.sq.mine();
		auto b = static_cast<Bend>(1 + rng.below(kBends - 1));
		ibv_mw *mw = b == kMwOtherPd ? w.pd2 :
			     b == kZeroLength || b == kTwice || rng.pct(50) ? w.t2 : w.t1;
		uint32_t key = mw->rkey, n = 0;

		// a good bind first (of the same window: the bent slot names its
		// new key), or not; then the bent slot, at which the QP fails
		if (b == kTwice || (mw == w.t1 && rng.pct(50))) {
			key = bind_slot(e, q, q.sq.slot(base), tag(e, n), kGood, w, mw, key,
					rng);
			posted.push_back({tag(e, n), false, "good bind"});
			n++;
		}
		uint8_t *slot = q.sq.slot(base + n);
		if (b == kInvRandom)
			inv_slot(e, q, slot, tag(e, n), rng.u32() | 0x80000000u);
		else if (b == kInvType1)
			inv_slot(e, q, slot, tag(e, n), w.t1->rkey);
		else
			bind_slot(e, q, slot, tag(e, n), b, w, mw, key, rng);
		posted.push_back({tag(e, n), true,
				  std::string(kBendName[b]) + ", " + describe_send(slot)});
		q.sq.publish(base + n + 1);
		if (!finish_sends(e, q, posted))
			fqp_renew(e, q);
	}
	// dealloc unbinds whatever a good bind bound
	for (ibv_mw *mw : {w.t1, w.t2, w.pd2})
		if (mw && ibv_dealloc_mw(mw))
			unexpected(e, "dealloc_mw: %s", strerror(errno));
}

}  // namespace ufz
