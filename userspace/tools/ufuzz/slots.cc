// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Ring slots: good ones, garbage, and what the kernel must make of them.
//
// The oracle (send_slot_malformed) restates the uAPI's rules for a send
// slot from the process's side: a slot that breaks one must complete with
// an error, never with IBV_WC_SUCCESS. Garbage that names memory the
// process has no right to (bad keys, addresses outside an MR, wrapping
// ranges) must fail too, though it is well formed.

#include <cstdio>
#include <cstring>

#include "ufuzz.h"

namespace ufz {

namespace {

// Where in the registered buffer the operations point (the fuzzer never
// checks data there; verify.cc has its own buffers).
constexpr uint32_t kSrcOff = 4096;		// gather: SEND, WRITE
constexpr uint32_t kSrcLen = (512u << 10) - kSrcOff;
constexpr uint32_t kDstOff = 512u << 10;	// scatter: READ, receives
constexpr uint32_t kDstLen = 512u << 10;
constexpr uint64_t kMaxMsg = 0x80000000ull;	// MRC_MAX_MSG_SIZE
constexpr uint64_t kWrapping = ~uint64_t{0} - 15;	// + 64 bytes passes 2^64
constexpr uint32_t kUserFlags = IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
				IBV_SEND_INLINE;

metaroce_sge *send_sges(uint8_t *slot)
{
	return reinterpret_cast<metaroce_sge *>(slot + sizeof(metaroce_send_wqe));
}

metaroce_sge *recv_sges(uint8_t *slot)
{
	return reinterpret_cast<metaroce_sge *>(slot + sizeof(metaroce_recv_wqe));
}

// SGEs a slot of @size has room for after a header of @hdr bytes
uint32_t slot_sges(uint32_t size, size_t hdr)
{
	return static_cast<uint32_t>((size - hdr) / sizeof(metaroce_sge));
}

bool opcode_allowed(ibv_qp_type type, uint32_t op)
{
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return true;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		return type == IBV_QPT_RC;
	default:
		return false;
	}
}

bool is_atomic(uint32_t op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

bool inlinable(uint32_t op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_SEND_WITH_INV ||
	       op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

void header(metaroce_send_wqe *w, uint64_t id, uint32_t op, uint32_t flags)
{
	memset(w, 0, sizeof(*w));
	w->wr_id = id;
	w->opcode = op;
	w->send_flags = flags;
}

void sge(metaroce_sge *s, uint64_t addr, uint32_t len, uint32_t lkey)
{
	s->addr = addr;
	s->length = len;
	s->lkey = lkey;
}

uint64_t at(const Env &e, uint32_t off)
{
	return reinterpret_cast<uintptr_t>(e.buf) + off;
}

// a remote range of the peer QP's MR
void remote(const FQp &q, metaroce_send_wqe *w, uint32_t len, Rng &rng)
{
	uint32_t room = q.peer_len > len ? q.peer_len - len : 0;

	w->wr.rdma.remote_addr = q.peer_addr + (room ? rng.below(room) & ~7ull : 0);
	w->wr.rdma.rkey = q.peer_rkey;
}

void ud_dest(const Env &e, metaroce_send_wqe *w)
{
	w->wr.ud.ah_num = ufz_ah_num(e.ah);
	w->wr.ud.remote_qpn = e.peer.ud_qpn;
	w->wr.ud.remote_qkey = e.peer.ud_qkey;
}

}  // namespace

uint64_t tag(const Env &e, uint32_t n)
{
	return 0x5a00000000000000ull | (e.op & 0xffffffffffull) << 16 | (n & 0xffff);
}

bool is_tag(const Env &e, uint64_t id)
{
	return (id >> 56) == 0x5a && ((id >> 16) & 0xffffffffffull) == (e.op & 0xffffffffffull);
}

void slot_marker(Env &e, FQp &q, uint8_t *slot, uint64_t id)
{
	auto *w = reinterpret_cast<metaroce_send_wqe *>(slot);

	if (q.type == IBV_QPT_UD) {
		header(w, id, IBV_WR_SEND, IBV_SEND_SIGNALED);
		ud_dest(e, w);
	} else {
		header(w, id, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED);
		w->wr.rdma.remote_addr = q.peer_addr;
		w->wr.rdma.rkey = q.peer_rkey;
	}
	w->num_sge = 1;
	sge(send_sges(slot), at(e, 0), 8, e.mr->lkey);
}

void slot_read(Env &e, FQp &q, uint8_t *slot, uint64_t id, uint32_t len)
{
	auto *w = reinterpret_cast<metaroce_send_wqe *>(slot);

	header(w, id, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED);
	w->num_sge = 1;
	sge(send_sges(slot), at(e, kDstOff), len, e.mr->lkey);
	w->wr.rdma.remote_addr = q.peer_addr;
	w->wr.rdma.rkey = q.peer_rkey;
}

void slot_good_send(Env &e, FQp &q, uint8_t *slot, uint64_t id, Rng &rng)
{
	static const uint32_t rc_ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP,
	};
	auto *w = reinterpret_cast<metaroce_send_wqe *>(slot);
	uint32_t op = q.type == IBV_QPT_UD ?
			      uint32_t{rng.pct(50) ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM} :
			      rng.pick(rc_ops);
	uint32_t flags = IBV_SEND_SIGNALED | (rng.pct(20) ? IBV_SEND_SOLICITED : 0) |
			 (rng.pct(10) ? IBV_SEND_FENCE : 0);
	uint32_t len = 1 + static_cast<uint32_t>(rng.below(q.type == IBV_QPT_UD ? 512 : 4096));

	header(w, id, op, flags);
	w->ex.imm_data = rng.u32();
	if (is_atomic(op)) {
		w->num_sge = 1;
		sge(send_sges(slot), at(e, kDstOff + 8 * static_cast<uint32_t>(rng.below(1024))), 8,
		    e.mr->lkey);
		remote(q, w, 8, rng);
		w->wr.atomic.compare_add = rng.next();
		w->wr.atomic.swap = rng.next();
		w->wr.atomic.rkey = q.peer_rkey;
		return;
	}
	if (inlinable(op) && len <= q.max_inline && rng.pct(30)) {
		w->send_flags |= IBV_SEND_INLINE;
		w->length = len;
		rng.bytes(slot + sizeof(*w), len);
	} else if (op == IBV_WR_RDMA_READ) {
		w->num_sge = 1;
		sge(send_sges(slot), at(e, kDstOff + static_cast<uint32_t>(rng.below(kDstLen - len))),
		    len, e.mr->lkey);
	} else {
		uint32_t n = 1 + static_cast<uint32_t>(rng.below(q.max_sge)), left = len;

		w->num_sge = n;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t l = i == n - 1 ? left : left / 2;

			sge(&send_sges(slot)[i],
			    at(e, kSrcOff + static_cast<uint32_t>(rng.below(kSrcLen - len))), l,
			    e.mr->lkey);
			left -= l;
		}
	}
	if (q.type == IBV_QPT_UD)
		ud_dest(e, w);
	else
		remote(q, w, len, rng);
}

bool send_slot_malformed(ibv_qp_type type, const metaroce_send_wqe *w, uint32_t max_sge,
			 uint32_t max_inline)
{
	const auto *s = reinterpret_cast<const metaroce_sge *>(w + 1);
	uint64_t total = 0;

	if (!opcode_allowed(type, w->opcode) || (w->send_flags & ~kUserFlags))
		return true;
	if (w->send_flags & IBV_SEND_INLINE)
		return !inlinable(w->opcode) || w->length > max_inline;
	if (w->num_sge > max_sge)
		return true;
	for (uint32_t i = 0; i < w->num_sge; i++)
		total += s[i].length;
	if (total > kMaxMsg)
		return true;
	return is_atomic(w->opcode) &&
	       (w->num_sge != 1 || total != 8 || (w->wr.atomic.remote_addr & 7));
}

// One mutation of a good slot, or random bytes. The return value says
// whether the result cannot succeed.
bool slot_send_garbage(Env &e, FQp &q, uint8_t *slot, uint64_t id, Rng &rng)
{
	// LOCAL_INV and BIND_MW are the process's to post (the mw class), but
	// this class has no window: a slot of either names nothing it may use
	static const uint32_t bad_ops[] = {
		IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, IBV_WR_TSO, 11, 12, 0x20, 0xff, 0x7fffffff,
		0xffffffff,
	};
	static const uint32_t huge[] = {
		0x80000000u, 0xffffffffu, 0x10000u, 1u << 28, 0x7fffffffu, 33, 255,
	};
	auto *w = reinterpret_cast<metaroce_send_wqe *>(slot);
	uint32_t cap = slot_sges(q.sq.r.slot_size, sizeof(*w));
	metaroce_sge *s = send_sges(slot);
	bool ud = q.type == IBV_QPT_UD;
	bool forbidden = true;	// for the well-formed cases: names what it may not

	slot_good_send(e, q, slot, id, rng);
	switch (rng.below(18)) {
	case 0:	// anything at all
		rng.bytes(slot, q.sq.r.slot_size);
		w->wr_id = id;
		forbidden = false;
		break;
	case 1:
		w->opcode = rng.u32();
		break;
	case 2:
		w->opcode = rng.pick(bad_ops);
		break;
	case 3:	// an opcode of another transport
		w->opcode = ud ? uint32_t{rng.pick({IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
						    IBV_WR_ATOMIC_FETCH_AND_ADD,
						    IBV_WR_SEND_WITH_INV})} :
				 rng.pick(bad_ops);
		break;
	case 4:	// flags the kernel does not take
		w->send_flags |= 1u << (4 + rng.below(28));
		break;
	case 5:	// more SGEs than the QP's max, up to the slot's room
		w->send_flags &= ~IBV_SEND_INLINE;
		w->num_sge = q.max_sge + 1 +
			     static_cast<uint32_t>(rng.below(cap > q.max_sge ? cap - q.max_sge : 1));
		break;
	case 6:
		w->send_flags &= ~IBV_SEND_INLINE;
		w->num_sge = rng.pick(huge);
		break;
	case 7:	// inline longer than the QP's max
		w->send_flags |= IBV_SEND_INLINE;
		w->length = rng.pick({q.max_inline + 1, q.sq.r.slot_size, 4096u, 0x80000000u,
				      0xffffffffu, q.max_inline + 8});
		break;
	case 8:	// inline on an opcode that has no payload of its own
		if (ud)
			return slot_send_garbage(e, q, slot, id, rng);
		w->opcode = rng.pick({IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP});
		w->send_flags |= IBV_SEND_INLINE;
		w->length = 8;
		break;
	case 9:	// lengths whose sum passes 2 GiB, or huge on their own
		w->send_flags &= ~IBV_SEND_INLINE;
		w->num_sge = 1 + static_cast<uint32_t>(rng.below(q.max_sge));
		for (uint32_t i = 0; i < w->num_sge; i++)
			sge(&s[i], at(e, kSrcOff), rng.pick({0xffffffffu, 0x80000000u, 0x7fffffffu}),
			    e.mr->lkey);
		break;
	case 10:	// keys the process does not hold here
		w->send_flags &= ~IBV_SEND_INLINE;
		w->num_sge = 1;
		sge(s, at(e, kSrcOff), 64,
		    rng.pick({rng.u32(), e.dead_lkey, e.mr_pd2->lkey, 0u, 0xffffffffu}));
		break;
	case 11:	// addresses outside the MR, wrapping ones included
		w->send_flags &= ~IBV_SEND_INLINE;
		w->num_sge = 1;
		sge(s, rng.pick({at(e, kBufLen), at(e, 0) - 8, kWrapping, uint64_t{0}, rng.next()}),
		    64, e.mr->lkey);
		break;
	case 12:	// a READ into memory without local write
		if (ud)
			return slot_send_garbage(e, q, slot, id, rng);
		header(w, id, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED);
		w->num_sge = 1;
		sge(s, at(e, kDstOff), 64, e.mr_ro->lkey);
		remote(q, w, 64, rng);
		break;
	case 13:	// remote ranges that wrap or miss the peer's MR, bad rkeys
		if (ud)
			return slot_send_garbage(e, q, slot, id, rng);
		header(w, id, rng.pick({IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ}), IBV_SEND_SIGNALED);
		w->num_sge = 1;
		sge(s, at(e, kDstOff), 256, e.mr->lkey);
		remote(q, w, 256, rng);
		switch (rng.below(3)) {
		case 0:
			w->wr.rdma.remote_addr = kWrapping - 112;
			break;
		case 1:
			w->wr.rdma.remote_addr = q.peer_addr + q.peer_len - 128;
			break;
		default:
			// another index: not a key of the peer's MR
			w->wr.rdma.rkey = rng.pick({rng.u32(), q.peer_rkey ^ 0x100u});
			break;
		}
		break;
	case 14:	// atomics: misaligned, two SGEs, not 8 bytes
		if (ud)
			return slot_send_garbage(e, q, slot, id, rng);
		header(w, id, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED);
		w->num_sge = 1;
		sge(s, at(e, kDstOff), 8, e.mr->lkey);
		w->wr.atomic.remote_addr = q.peer_addr;
		w->wr.atomic.rkey = q.peer_rkey;
		switch (rng.below(3)) {
		case 0:
			w->wr.atomic.remote_addr |= 1 + rng.below(7);
			break;
		case 1:
			w->num_sge = 2;
			sge(&s[1], at(e, kDstOff + 8), 8, e.mr->lkey);
			break;
		default:
			s[0].length = rng.pick({4u, 16u, 0u});
			break;
		}
		break;
	case 15:	// AH numbers that are not this PD's
		if (!ud)
			return slot_send_garbage(e, q, slot, id, rng);
		w->wr.ud.ah_num = rng.pick({e.stale_ah, ufz_ah_num(e.ah_pd2), ufz_ah_num(e.ah_ctx2),
					    0u, 0xffffffffu, rng.u32()});
		break;
	case 16:	// a datagram longer than a packet
		if (!ud)
			return slot_send_garbage(e, q, slot, id, rng);
		w->send_flags &= ~IBV_SEND_INLINE;
		w->num_sge = 1;
		sge(s, at(e, kSrcOff), rng.pick({8192u, 65536u, 1u << 20}), e.mr->lkey);
		break;
	default:	// fields nobody should read: reserved words, imm, the rest
		w->reserved = rng.u32();
		w->ex.invalidate_rkey = rng.u32();
		if (ud) {
			w->wr.ud.reserved = rng.u32();
			w->wr.ud.remote_qkey = rng.u32();
			w->wr.ud.remote_qpn = rng.u32();
		}
		forbidden = false;
		break;
	}
	return forbidden || send_slot_malformed(q.type, w, q.max_sge, q.max_inline);
}

// Garbage into a receive slot. True when a message of at least one byte
// (plus a GRH on UD) cannot be received into it.
bool slot_recv_garbage(Env &e, uint8_t *slot, uint32_t slot_size, uint64_t id, uint32_t max_sge,
		       Rng &rng)
{
	auto *w = reinterpret_cast<metaroce_recv_wqe *>(slot);
	uint32_t cap = slot_sges(slot_size, sizeof(*w));
	metaroce_sge *s = recv_sges(slot);

	slot_good_recv(e, slot, id, kDstOff + 4096 * static_cast<uint32_t>(rng.below(64)), 4096);
	switch (rng.below(9)) {
	case 0:	// anything: a random lkey fails, so does a random count
		rng.bytes(slot, slot_size);
		w->wr_id = id;
		return true;
	case 1:
		w->num_sge = max_sge + 1 + static_cast<uint32_t>(rng.below(cap > max_sge ? cap - max_sge : 1));
		return true;
	case 2:
		w->num_sge = rng.pick({0x80000000u, 0xffffffffu, 0x10000u, 33u});
		return true;
	case 3:
		s->lkey = rng.pick({rng.u32(), e.dead_lkey, e.mr_pd2->lkey, e.mr_ro->lkey});
		return s->lkey != e.mr->lkey;
	case 4:
		s->addr = rng.pick({at(e, kBufLen), kWrapping, uint64_t{0}});
		return true;
	case 5:
		w->num_sge = 0;
		return true;
	case 6:	// huge lengths: only the bytes a message fills are checked
		w->num_sge = 1 + static_cast<uint32_t>(rng.below(max_sge));
		for (uint32_t i = 0; i < w->num_sge; i++)
			sge(&s[i], at(e, kDstOff), rng.pick({0xffffffffu, 0x80000000u}), e.mr->lkey);
		return false;
	case 7:
		w->reserved = rng.u32();
		return false;
	default:
		return false;
	}
}

void slot_good_recv(Env &e, uint8_t *slot, uint64_t id, uint32_t off, uint32_t len)
{
	auto *w = reinterpret_cast<metaroce_recv_wqe *>(slot);

	w->wr_id = id;
	w->num_sge = 1;
	w->reserved = 0;
	sge(recv_sges(slot), at(e, off), len, e.mr->lkey);
}

std::string describe_send(const uint8_t *slot)
{
	const auto *w = reinterpret_cast<const metaroce_send_wqe *>(slot);
	const auto *s = reinterpret_cast<const metaroce_sge *>(w + 1);
	char b[256];

	if (w->opcode == IBV_WR_BIND_MW) {
		snprintf(b, sizeof(b),
			 "bind slot: flags %#x num_sge %u length %u addr %#llx len %#llx "
			 "window %#x -> %#x mr %#x access %#x",
			 w->send_flags, w->num_sge, w->length,
			 (unsigned long long)w->wr.bind.addr,
			 (unsigned long long)w->wr.bind.length, w->wr.bind.mw_rkey,
			 w->wr.bind.rkey, w->wr.bind.mr_lkey, w->wr.bind.access);
		return b;
	}
	snprintf(b, sizeof(b),
		 "send slot: opcode %#x flags %#x num_sge %u length %u raddr %#llx rkey %#x "
		 "ah %u sge0 %#llx/%u/%#x",
		 w->opcode, w->send_flags, w->num_sge, w->length,
		 (unsigned long long)w->wr.rdma.remote_addr, w->wr.rdma.rkey, w->wr.ud.ah_num,
		 (unsigned long long)s->addr, s->length, s->lkey);
	return b;
}

std::string describe_recv(const uint8_t *slot)
{
	const auto *w = reinterpret_cast<const metaroce_recv_wqe *>(slot);
	const auto *s = reinterpret_cast<const metaroce_sge *>(w + 1);
	char b[160];

	snprintf(b, sizeof(b), "recv slot: num_sge %u sge0 %#llx/%u/%#x", w->num_sge,
		 (unsigned long long)s->addr, s->length, s->lkey);
	return b;
}

}  // namespace ufz
