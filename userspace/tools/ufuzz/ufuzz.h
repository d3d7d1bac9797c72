// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// mrc_ufuzz: a hostile process against metaroce's user rings. Shared
// declarations of the fuzzer's parts (README.md next to this file has the
// overview).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "peek.h"

namespace ufz {

// --- seeded randomness --------------------------------------------------------

// splitmix64: one stream per operation (seed, op), so a run's ops and the
// bytes they write depend only on --seed.
struct Rng {
	uint64_t s;

	explicit Rng(uint64_t seed, uint64_t stream = 0)
		: s(seed * 0x9e3779b97f4a7c15ull + stream * 0xd1b54a32d192ed03ull + 1)
	{
	}
	uint64_t next()
	{
		uint64_t z = (s += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		return z ^ (z >> 31);
	}
	uint32_t u32() { return static_cast<uint32_t>(next()); }
	// uniform in [0, n), n > 0
	uint64_t below(uint64_t n) { return next() % n; }
	bool pct(unsigned p) { return below(100) < p; }
	template <typename T, size_t N> T pick(const T (&a)[N]) { return a[below(N)]; }
	void bytes(void *p, size_t n);
};

// --- what was tried and what came back, per class of garbage ----------------

enum Cls : int {
	kSq,		// send slots: opcodes, flags, SGE counts, lengths, inline
	kRq,		// receive slots, flushed or consumed by the peer's SENDs
	kSrq,		// SRQ slots, pulled by modify_srq and by arriving SENDs
	kCq,		// CQ consumer index, producer and slots
	kIndex,		// producer indices: backwards, far ahead, kernel-owned fields
	kWrap,		// indices across 2^32 (RESET catch-up)
	kTorn,		// slots rewritten by a second thread while the kernel reads
	kKeys,		// bad lkeys/rkeys, wrapping remote addresses (verbs API)
	kAh,		// AH numbers: other PD, other context, destroyed, random
	kDoorbell,	// raw uverbs write() commands
	kMmap,		// mappings: bad offsets/sizes, private, stale, remapped
	kDestroy,	// destroying objects with WRs outstanding, killed processes
	kState,		// modify_qp to any state under traffic, destroy while rung
	kMw,		// BIND_MW and LOCAL_INV slots: keys, PDs, rights, ranges
	kClsCount
};

extern const char *const kClsName[kClsCount];

struct Tally {
	uint64_t ops = 0;
	uint64_t wc_ok = 0;
	uint64_t wc_err = 0;	// error completions other than flushes
	uint64_t wc_flush = 0;
	uint64_t errnos = 0;	// verbs calls and system calls refused
	uint64_t events = 0;	// async events (CQ_ERR, QP_FATAL, ...)
	uint64_t ignored = 0;	// bad indices the kernel did not act on
	// Refusals the class was bound to draw, in classes whose garbage is
	// not refused every time (owes_evidence()): a run that drew only the
	// other kind owes none, whatever the seed.
	uint64_t owed = 0;
};

// --- the peer (another host, mrc_ufuzz peer) --------------------------------

enum PeerOp : uint32_t {
	kPeerHello = 1,	// -> gid, UD qpn and qkey of the peer
	kPeerConnect,	// qpn, psn, gid (flags kPeerVerify) -> RC qpn, psn, rkey, addr, len
	kPeerSends,	// peer qpn, n, size: the peer SENDs n messages -> ok, errors
	kPeerUdSends,	// qpn, qkey, gid, n, size: the peer's UD QP sends -> ok, errors
	kPeerChecksum,	// peer qpn -> len, FNV-1a of the last message received
	kPeerFree,	// peer qpn: destroy it; no answer
};

constexpr uint32_t kPeerVerify = 1;	// a QP with its own MR, for verification
constexpr uint32_t kPeerPatient = 2;	// long timeouts: traffic that must succeed

struct PeerReq {
	uint32_t op, qpn, psn, n;
	uint32_t size, qkey, flags, pad;
	uint8_t gid[16];
};

struct PeerResp {
	uint32_t status, qpn, psn, rkey;
	uint32_t qkey, len;
	uint64_t addr, val;
	uint8_t gid[16];
};

int peer_main(const char *dev, int gidx, int port);

// --- the fuzzing process's view ----------------------------------------------

constexpr uint32_t kSqDepth = 64;
constexpr uint32_t kRqDepth = 64;
constexpr uint32_t kSrqDepth = 128;
constexpr uint32_t kMaxSge = 4;
constexpr uint32_t kMaxInline = 64;
constexpr uint32_t kQkey = 0x11111111;
constexpr size_t kBufLen = 1u << 20;	// the process's registered buffer
constexpr size_t kBindLen = 64u << 10;	// its start, under the MW bind MRs

// One ring of the provider, written directly. The provider's own index
// (*mine) is kept equal to the producer index this process last meant, so
// the verbs API can post after raw writes.
struct Ring {
	ufz_ring r{};

	bool mapped() const { return r.hdr != nullptr; }
	uint8_t *slot(uint32_t i) const
	{
		return r.slots + static_cast<size_t>(i & (r.num - 1)) * r.slot_size;
	}
	uint32_t consumer() const { return __atomic_load_n(&r.hdr->consumer, __ATOMIC_ACQUIRE); }
	uint32_t producer() const { return __atomic_load_n(&r.hdr->producer, __ATOMIC_ACQUIRE); }
	uint32_t mine() const { return *r.mine; }
	// publish @v as the producer index and make it the provider's too
	void publish(uint32_t v)
	{
		*r.mine = v;
		__atomic_store_n(&r.hdr->producer, v, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	// a producer index the provider does not adopt (a bogus one)
	void poke_producer(uint32_t v) { __atomic_store_n(&r.hdr->producer, v, __ATOMIC_RELEASE); }
	uint32_t free_slots() const { return r.num - (mine() - consumer()); }
};

// A WQE written into a ring, and whether it must fail.
struct Posted {
	uint64_t id;
	bool must_fail;
	std::string what;
};

struct Peer {
	int fd = -1;
	ibv_gid gid{};
	uint32_t ud_qpn = 0, ud_qkey = 0;
};

// A QP of the fuzzer with its CQ, rings and the peer QP it talks to.
struct FQp {
	ibv_qp_type type = IBV_QPT_RC;
	ibv_cq *cq = nullptr;		// send and receive, owned
	int cqe = 0;
	uint32_t depth = 0;		// send and receive WRs asked for
	ibv_srq *srq = nullptr;		// not owned
	ibv_qp *qp = nullptr;
	Ring sq, rq;
	uint32_t max_inline = 0;
	uint32_t max_sge = 0;		// send SGEs asked for (the slot may hold more)
	// RC: the peer's QP and its MR
	uint32_t peer_qpn = 0, peer_rkey = 0, peer_len = 0;
	uint64_t peer_addr = 0;
	uint32_t arms = 0;
	bool patient = false;		// RC timeouts for traffic that must succeed
};

struct Env {
	// setup
	const char *dev = nullptr;
	int gidx = 1;
	uint64_t seed = 1;
	int wc_timeout_ms = 30000;
	ibv_context *ctx = nullptr;
	ibv_context *ctx2 = nullptr;	// another context: foreign AHs and keys
	ibv_pd *pd = nullptr, *pd2 = nullptr;
	ibv_gid gid{};
	uint8_t *buf = nullptr;		// kBufLen, registered as mr (all rights)
	ibv_mr *mr = nullptr;
	ibv_mr *mr_ro = nullptr;	// the same pages, remote read only, no local write
	ibv_mr *mr_pd2 = nullptr;	// the same pages in pd2
	ibv_mr *mr_bind = nullptr;	// the same pages, local write and MW bind
	ibv_mr *mr_bind_nolw = nullptr;	// MW bind without local write
	ibv_mr *mr_bind_pd2 = nullptr;	// as mr_bind, in pd2
	uint32_t dead_lkey = 0;		// of a deregistered MR
	ibv_ah_attr ah_attr{};		// the peer's UD QP's address
	ibv_ah *ah = nullptr;		// to the peer's UD QP
	ibv_ah *ah_pd2 = nullptr;	// same address, pd2
	ibv_ah *ah_ctx2 = nullptr;	// same address, ctx2
	uint32_t stale_ah = 0;		// number of a destroyed AH
	Peer peer;
	ibv_srq *srq = nullptr;
	std::deque<Posted> srq_posted;	// posted to srq, no completion seen yet

	// progress
	uint64_t op = 0;		// the operation being run
	Cls cls = kSq;
	Tally tally[kClsCount];
	uint64_t unexpected = 0;
	bool verbose = false;
	bool dead = false;		// the device went away (DEVICE_FATAL)
	std::string cmdline;		// how to run this again, for reports

	Tally &t() { return tally[cls]; }
};

// env.cc
ibv_context *open_ctx(const char *dev);
void env_open(Env &e, const char *dev, int gidx);
void env_close(Env &e);
void unexpected(Env &e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note_errno(Env &e, int err);
// counts async events into the tally; returns how many were @want
int drain_async(Env &e, ibv_context *ctx, ibv_event_type want);
void print_summary(const Env &e);
bool check_evidence(const Env &e);

// the SRQ's completions against what was posted to it (ops_rq.cc)
void srq_account(Env &e, const std::vector<ibv_wc> &wcs);

// peer_client.cc
void peer_connect(Env &e, const char *host, int port);
PeerResp peer_call(const Peer &p, const PeerReq &req);
void peer_free(const Peer &p, uint32_t qpn);

// fqp.cc
ibv_cq *make_cq(Env &e, ibv_context *ctx, int cqe);
void fqp_create(Env &e, FQp &q, ibv_qp_type type, ibv_srq *srq = nullptr, int cqe = 0,
		uint32_t depth = kSqDepth, uint32_t max_send_sge = kMaxSge);
void fqp_destroy(Env &e, FQp &q);
// destroy and make again as it was (after a QP stopped answering)
void fqp_renew(Env &e, FQp &q);
int fqp_state(FQp &q);
bool fqp_reset(Env &e, FQp &q);
bool fqp_init(Env &e, FQp &q);
bool fqp_arm(Env &e, FQp &q, bool fresh_peer = false);
// INIT to RTS towards @dest_qpn at @av; 0 or an errno value. Patient: the
// long timeouts of traffic that must succeed on a loaded host.
int rc_connect(ibv_qp *qp, const ibv_ah_attr &av, uint32_t dest_qpn, uint32_t rq_psn,
	       uint32_t sq_psn, bool patient);
int doorbell(ibv_context *ctx, uint32_t command, uint32_t handle);
void ring_sq(FQp &q);
void ring_rq(FQp &q);
void ring_srq(ibv_srq *srq);
// polls until a WC with @id came; false on timeout
bool wait_wr(Env &e, ibv_cq *cq, uint64_t id, std::vector<ibv_wc> &out, FQp *ring = nullptr);
// what the CQ holds now
void drain_cq(Env &e, ibv_cq *cq, std::vector<ibv_wc> &out);
// polls for @ms, collecting what comes
void poll_for(Env &e, ibv_cq *cq, std::vector<ibv_wc> &out, int ms, size_t until = SIZE_MAX);
void tally_wcs(Env &e, const std::vector<ibv_wc> &wcs);

// slots.cc: building slots, and what the kernel must make of them
uint64_t tag(const Env &e, uint32_t n);
bool is_tag(const Env &e, uint64_t id);
void slot_marker(Env &e, FQp &q, uint8_t *slot, uint64_t id);
void slot_good_send(Env &e, FQp &q, uint8_t *slot, uint64_t id, Rng &rng);
// an RC READ of @len bytes from the start of the peer's MR
void slot_read(Env &e, FQp &q, uint8_t *slot, uint64_t id, uint32_t len);
// garbage into a send slot; true when the kernel must refuse it
bool slot_send_garbage(Env &e, FQp &q, uint8_t *slot, uint64_t id, Rng &rng);
bool send_slot_malformed(ibv_qp_type type, const metaroce_send_wqe *w, uint32_t max_sge,
			 uint32_t max_inline);
// garbage into a receive slot; true when a non-empty message must fail in it
bool slot_recv_garbage(Env &e, uint8_t *slot, uint32_t slot_size, uint64_t id,
		       uint32_t max_sge, Rng &rng);
void slot_good_recv(Env &e, uint8_t *slot, uint64_t id, uint32_t off, uint32_t len);
std::string describe_send(const uint8_t *slot);
std::string describe_recv(const uint8_t *slot);

// Publishes the send slots written from the ring's producer index on and a
// marker after them, rings, waits for the marker and checks each
// completion against @posted; false when the marker never completed.
// @wcs may hold completions already polled; it returns all of them.
bool finish_sends(Env &e, FQp &q, const std::vector<Posted> &posted, std::vector<ibv_wc> &wcs);
bool finish_sends(Env &e, FQp &q, const std::vector<Posted> &posted);
// The completions of one ring against what was posted to it, in order.
void check_wcs(Env &e, const std::vector<Posted> &posted, const std::vector<ibv_wc> &wcs,
	       bool all);

// one operation of each class (ops_*.cc)
struct Pool;
void op_sq(Env &e, Pool &p, Rng &rng);
void op_index(Env &e, Pool &p, Rng &rng);
void op_wrap(Env &e, Pool &p, Rng &rng);
void op_ah(Env &e, Pool &p, Rng &rng);
void op_rq(Env &e, Pool &p, Rng &rng);
void op_srq(Env &e, Pool &p, Rng &rng);
void op_cq(Env &e, Pool &p, Rng &rng);
void op_torn(Env &e, Pool &p, Rng &rng);
void op_keys(Env &e, Pool &p, Rng &rng);
void op_doorbell(Env &e, Pool &p, Rng &rng);
void op_mmap(Env &e, Pool &p, Rng &rng);
void op_destroy(Env &e, Pool &p, Rng &rng);
void op_state(Env &e, Pool &p, Rng &rng);
void op_mw(Env &e, Pool &p, Rng &rng);

// The QPs the operations share: made once, re-armed when an op left one in ERR.
struct Pool {
	FQp rc, ud, rc_srq, cqq;
};
void pool_open(Env &e, Pool &p);
void pool_close(Env &e, Pool &p);

// verify.cc: a fresh RC QP moves checksummed data both ways
bool verify_transfer(Env &e, const char *what);

// churn.cc
int churn_main(Env &e, uint64_t cycles);
int traffic_main(Env &e, int seconds);

}  // namespace ufz
