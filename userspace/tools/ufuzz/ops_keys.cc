// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Work requests through the verbs API that are well formed but name
// memory the process may not touch: each must end in the completion
// status IBA gives it (or, for what the provider checks, an errno), and
// the WR behind it in a flush.

#include <cerrno>
#include <cstring>
#include <initializer_list>

#include "ufuzz.h"

namespace ufz {

namespace {

constexpr uint64_t kWrapAddr = ~uint64_t{0} - 31;	// + 64 bytes passes 2^64

struct KeyCase {
	const char *what;
	ibv_wr_opcode op;
	std::initializer_list<ibv_wc_status> want;
};

}  // namespace

void op_keys(Env &e, Pool &p, Rng &rng)
{
	FQp &q = p.rc;
	ibv_sge sg{};
	ibv_send_wr wr{}, *bad;
	std::vector<ibv_wc> wcs;
	const std::initializer_list<ibv_wc_status> rem = {IBV_WC_REM_ACCESS_ERR};
	const std::initializer_list<ibv_wc_status> loc = {IBV_WC_LOC_PROT_ERR};
	const KeyCase cases[] = {
		{"WRITE, random rkey", IBV_WR_RDMA_WRITE, rem},
		{"WRITE past the end of the peer's MR", IBV_WR_RDMA_WRITE, rem},
		{"WRITE to a remote range that wraps", IBV_WR_RDMA_WRITE, rem},
		{"READ, random rkey", IBV_WR_RDMA_READ, rem},
		{"READ from a remote range that wraps", IBV_WR_RDMA_READ, rem},
		{"READ into an MR without local write", IBV_WR_RDMA_READ, loc},
		{"SEND, random lkey", IBV_WR_SEND, loc},
		{"SEND, lkey of a deregistered MR", IBV_WR_SEND, loc},
		{"SEND, lkey of another PD", IBV_WR_SEND, loc},
		{"SEND from a local range that wraps", IBV_WR_SEND, loc},
		{"FETCH_ADD, random rkey", IBV_WR_ATOMIC_FETCH_AND_ADD, rem},
		{"WRITE_WITH_IMM, random rkey", IBV_WR_RDMA_WRITE_WITH_IMM, rem},
		{"SEND_WITH_INV of a key the peer does not have", IBV_WR_SEND_WITH_INV, {}},
		{"CMP_SWP to a misaligned address", IBV_WR_ATOMIC_CMP_AND_SWP, {}},
	};
	size_t c = rng.below(sizeof(cases) / sizeof(cases[0]));
	const KeyCase &k = cases[c];

	e.cls = kKeys;
	e.t().ops++;
	if (!fqp_arm(e, q))
		return;
	sg.addr = reinterpret_cast<uintptr_t>(e.buf) + 4096;
	sg.length = 64;
	sg.lkey = e.mr->lkey;
	wr.wr_id = tag(e, 0);
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = k.op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = q.peer_addr;
	wr.wr.rdma.rkey = q.peer_rkey;
	switch (c) {
	case 0:
	case 3:
	case 11:
		wr.wr.rdma.rkey = q.peer_rkey ^ (0x100u << rng.below(16));
		break;
	case 1:
		wr.wr.rdma.remote_addr = q.peer_addr + q.peer_len - 32;
		break;
	case 2:
	case 4:
		wr.wr.rdma.remote_addr = kWrapAddr;
		break;
	case 5:
		sg.lkey = e.mr_ro->lkey;
		break;
	case 6:
		sg.lkey = rng.u32() & ~0xffu;	// index 0 and up: never this MR's variant
		if ((sg.lkey >> 8) == (e.mr->lkey >> 8))
			sg.lkey ^= 0x100;
		break;
	case 7:
		sg.lkey = e.dead_lkey;
		break;
	case 8:
		sg.lkey = e.mr_pd2->lkey;
		break;
	case 9:
		sg.addr = kWrapAddr;
		break;
	case 10:
		sg.length = 8;
		wr.wr.atomic.remote_addr = q.peer_addr;
		wr.wr.atomic.rkey = q.peer_rkey ^ 0x100u;
		wr.wr.atomic.compare_add = 1;
		break;
	case 12:
		wr.invalidate_rkey = rng.u32();
		break;
	default:
		sg.length = 8;
		wr.wr.atomic.remote_addr = q.peer_addr + 1 + rng.below(7);
		wr.wr.atomic.rkey = q.peer_rkey;
		break;
	}
	int err = ibv_post_send(q.qp, &wr, &bad);

	if (c == 13) {	// the provider refuses it: IBA 9.4.5 alignment
		if (!err)
			unexpected(e, "%s was posted", k.what);
		else
			note_errno(e, err);
		return;
	}
	if (err) {
		unexpected(e, "%s: post_send refused it (%s)", k.what, strerror(err));
		return;
	}
	if (!finish_sends(e, q, {{tag(e, 0), k.want.size() != 0, k.what}}, wcs)) {
		fqp_renew(e, q);
		return;
	}
	for (const ibv_wc &w : wcs) {
		bool ok = !k.want.size();

		if (w.wr_id != tag(e, 0))
			continue;
		for (ibv_wc_status s : k.want)
			ok |= w.status == s;
		if (!ok)
			unexpected(e, "%s: %s, not %s", k.what, ibv_wc_status_str(w.status),
				   ibv_wc_status_str(*k.want.begin()));
	}
}

}  // namespace ufz
