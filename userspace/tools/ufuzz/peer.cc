// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// mrc_ufuzz peer: the well-behaved other end, on another host. It makes
// RC QPs on request (RC loopback on one device is not supported), keeps
// receives posted on them and on one UD QP, sends on request, and reports
// the checksum of what arrived. Any number of clients, one poll loop;
// a client's QPs go when it does (or when it has too many).

#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "../pattern.h"
#include "../report.h"
#include "../tcp.h"
#include "ufuzz.h"

namespace ufz {

namespace {

using mrc_tool::die;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kRecvs = 32;		// posted per QP
constexpr uint32_t kRecvLen = 64 << 10;
constexpr size_t kTargetLen = 4 << 20;	// what the clients may WRITE/READ
constexpr size_t kVerifyLen = 1 << 20;
constexpr int kMaxQps = 48;		// per client
constexpr auto kReplyWait = std::chrono::seconds(20);
constexpr int kRemoteAll = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

struct Reply {			// an answer that waits for completions
	bool pending = false;
	uint32_t want = 0;	// completions to wait for
	uint32_t ok = 0, err = 0, unposted = 0;
	Clock::time_point deadline;
};

struct PQp {
	int client;
	ibv_cq *cq = nullptr;
	ibv_qp *qp = nullptr;
	ibv_ah *ah = nullptr;		// UD sends: to the asker
	// receives land here: kRecvs buffers of kRecvLen (own MR if verifying)
	uint8_t *rbuf = nullptr;
	ibv_mr *rmr = nullptr;
	bool own_mr = false;
	uint8_t *target = nullptr;	// what the client may WRITE/READ
	ibv_mr *tmr = nullptr;
	Reply sends;
	Reply sum;
	bool broken = false;		// a receive failed: the QP is in ERR
	ibv_wc_status broken_by = IBV_WC_SUCCESS;
	bool have_sum = false;
	uint32_t sum_len = 0;
	uint64_t sum_val = 0;
};

struct Server {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	int gidx = 1;
	ibv_gid gid{};
	uint8_t *target = nullptr, *rbuf = nullptr;
	ibv_mr *tmr = nullptr, *rmr = nullptr;
	std::unique_ptr<PQp> ud;
	std::deque<std::unique_ptr<PQp>> qps;
	std::vector<int> clients;
	uint32_t psn = 1;
};

void answer(int fd, const PeerResp &r)
{
	// a client that went away gets no answer; its QPs go at the next poll
	(void)!send(fd, &r, sizeof(r), MSG_NOSIGNAL);
}

void answer_err(int fd, int err)
{
	PeerResp r{};

	r.status = static_cast<uint32_t>(err);
	answer(fd, r);
}

void post_recv(PQp &q, uint32_t i)
{
	ibv_sge sg{reinterpret_cast<uintptr_t>(q.rbuf) + static_cast<size_t>(i) * kRecvLen,
		   kRecvLen, q.rmr->lkey};
	ibv_recv_wr wr{}, *bad;

	wr.wr_id = i;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	(void)ibv_post_recv(q.qp, &wr, &bad);	// in ERR: flushed, fine
}

void destroy(PQp &q)
{
	if (q.qp)
		ibv_destroy_qp(q.qp);
	if (q.ah)
		ibv_destroy_ah(q.ah);
	if (q.cq)
		ibv_destroy_cq(q.cq);
	if (q.own_mr) {
		ibv_dereg_mr(q.rmr);
		ibv_dereg_mr(q.tmr);
		free(q.target);
	}
}

bool modify(ibv_qp *qp, ibv_qp_attr &a, int mask)
{
	if (ibv_modify_qp(qp, &a, mask)) {
		fprintf(stderr, "peer: modify_qp to %d: %s\n", a.qp_state, strerror(errno));
		return false;
	}
	return true;
}

int arm_qp(Server &p, PQp &q, ibv_qp_type type, const PeerReq *req, bool patient);

// A QP with its CQ and receives; RC connected to the asker.
int make_qp(Server &p, PQp &q, ibv_qp_type type, const PeerReq *req)
{
	ibv_qp_init_attr ia{};
	bool verify = req && (req->flags & kPeerVerify);
	bool patient = req && (req->flags & (kPeerVerify | kPeerPatient));

	q.cq = ibv_create_cq(p.ctx, 4 * kRecvs + 2 * kSqDepth, nullptr, nullptr, 0);
	if (!q.cq)
		return errno;
	if (verify) {
		// own buffers: the check must not see another QP's writes
		q.own_mr = true;
		q.target = static_cast<uint8_t *>(aligned_alloc(4096, kVerifyLen + kRecvs * kRecvLen));
		q.rbuf = q.target + kVerifyLen;
		q.tmr = ibv_reg_mr(p.pd, q.target, kVerifyLen, kRemoteAll);
		q.rmr = ibv_reg_mr(p.pd, q.rbuf, kRecvs * kRecvLen, static_cast<int>(IBV_ACCESS_LOCAL_WRITE));
		if (!q.tmr || !q.rmr)
			return errno;
	} else {
		q.target = p.target;
		q.tmr = p.tmr;
		q.rbuf = p.rbuf;
		q.rmr = p.rmr;
	}
	ia.send_cq = q.cq;
	ia.recv_cq = q.cq;
	ia.cap.max_send_wr = kSqDepth;
	ia.cap.max_recv_wr = kRecvs;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = type;
	q.qp = ibv_create_qp(p.pd, &ia);
	if (!q.qp)
		return errno;
	return arm_qp(p, q, type, req, patient);
}

// RESET (a new QP) to RTS, receives posted.
int arm_qp(Server &p, PQp &q, ibv_qp_type type, const PeerReq *req, bool patient)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (type == IBV_QPT_UD) {
		a.qkey = kQkey;
		if (!modify(q.qp, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
			return EINVAL;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		if (!modify(q.qp, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					     IBV_QP_ACCESS_FLAGS))
			return EINVAL;
	}
	for (uint32_t i = 0; i < kRecvs; i++)
		post_recv(q, i);

	if (type == IBV_QPT_RC) {
		ibv_ah_attr av{};

		av.is_global = 1;
		memcpy(av.grh.dgid.raw, req->gid, 16);
		av.grh.sgid_index = static_cast<uint8_t>(p.gidx);
		av.grh.hop_limit = 64;
		av.port_num = 1;
		p.psn = (p.psn * 1103515245u + 12345u) & 0xffffff;
		// checked traffic must not fail on a loaded host; garbage fails fast
		return rc_connect(q.qp, av, req->qpn, req->psn, p.psn, patient);
	}
	a = {};
	a.qp_state = IBV_QPS_RTR;
	if (!modify(q.qp, a, IBV_QP_STATE))
		return EINVAL;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = p.psn;
	return modify(q.qp, a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? 0 : EINVAL;
}

PQp *find(Server &p, int fd, uint32_t qpn)
{
	for (auto &q : p.qps)
		if (q->client == fd && q->qp && q->qp->qp_num == qpn)
			return q.get();
	return nullptr;
}

// The client's QP @qpn, or all its QPs (@qpn 0).
void drop(Server &p, int fd, uint32_t qpn)
{
	for (auto it = p.qps.begin(); it != p.qps.end();) {
		if ((*it)->client == fd && (!qpn || (*it)->qp->qp_num == qpn)) {
			destroy(**it);
			it = p.qps.erase(it);
		} else {
			++it;
		}
	}
}

void do_connect(Server &p, int fd, const PeerReq &req)
{
	auto q = std::make_unique<PQp>();
	PeerResp r{};
	int n = 0;

	for (auto &o : p.qps)
		n += o->client == fd;
	for (auto it = p.qps.begin(); n >= kMaxQps && it != p.qps.end();)
		if ((*it)->client == fd) {
			destroy(**it);
			it = p.qps.erase(it);
			n--;
		} else {
			++it;
		}
	q->client = fd;
	r.status = static_cast<uint32_t>(make_qp(p, *q, IBV_QPT_RC, &req));
	if (!r.status) {
		ibv_qp_attr a{};
		ibv_qp_init_attr ia{};

		ibv_query_qp(q->qp, &a, IBV_QP_SQ_PSN, &ia);
		r.qpn = q->qp->qp_num;
		r.psn = a.sq_psn;
		r.rkey = q->tmr->rkey;
		r.addr = reinterpret_cast<uintptr_t>(q->target);
		r.len = static_cast<uint32_t>(q->own_mr ? kVerifyLen : kTargetLen);
		p.qps.push_back(std::move(q));
	} else {
		destroy(*q);
	}
	answer(fd, r);
}

// @n SENDs of @size from @q (UD: to the asker's QP), answered when done.
void do_sends(PQp &q, const PeerReq &req, bool ud)
{
	uint32_t size = req.size < kRecvLen ? req.size : kRecvLen, posted = 0;

	for (; posted < req.n; posted++) {
		ibv_sge sg{reinterpret_cast<uintptr_t>(q.target), size, q.tmr->lkey};
		ibv_send_wr wr{}, *bad;

		wr.wr_id = 1u << 31 | posted;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (ud) {
			wr.wr.ud.ah = q.ah;
			wr.wr.ud.remote_qpn = req.qpn;
			wr.wr.ud.remote_qkey = req.qkey;
		}
		if (ibv_post_send(q.qp, &wr, &bad))
			break;
	}
	q.sends = {true, posted, 0, 0, req.n - posted, Clock::now() + kReplyWait};
}

void sends_done(Server &p, PQp &q)
{
	Reply &s = q.sends;
	PeerResp r{};

	if (!s.pending || (s.ok + s.err < s.want && Clock::now() < s.deadline))
		return;
	r.status = s.ok + s.err >= s.want ? 0 : ETIMEDOUT;
	r.qpn = s.ok;
	r.val = s.err + s.unposted;
	q.sends.pending = false;
	answer(q.client, r);
	if (q.ah && &q == p.ud.get()) {
		ibv_destroy_ah(q.ah);
		q.ah = nullptr;
	}
}

void sum_done(PQp &q)
{
	PeerResp r{};

	if (!q.sum.pending || (!q.have_sum && Clock::now() < q.sum.deadline))
		return;
	r.status = q.have_sum ? 0 : ETIMEDOUT;
	r.len = q.sum_len;
	r.val = q.sum_val;
	q.have_sum = false;
	q.sum.pending = false;
	answer(q.client, r);
}

void do_ud_sends(Server &p, int fd, const PeerReq &req)
{
	PQp &q = *p.ud;
	ibv_ah_attr a{};

	if (q.sends.pending) {	// one at a time; the clients ask in turn
		answer_err(fd, EBUSY);
		return;
	}
	a.is_global = 1;
	memcpy(a.grh.dgid.raw, req.gid, 16);
	a.grh.sgid_index = static_cast<uint8_t>(p.gidx);
	a.grh.hop_limit = 64;
	a.port_num = 1;
	q.ah = ibv_create_ah(p.pd, &a);
	if (!q.ah) {
		answer_err(fd, errno);
		return;
	}
	q.client = fd;
	do_sends(q, req, true);
}

// false: the client is gone
bool serve(Server &p, int fd)
{
	PeerReq req;
	ssize_t n = recv(fd, &req, sizeof(req), MSG_WAITALL);

	if (n != static_cast<ssize_t>(sizeof(req)))
		return false;
	switch (req.op) {
	case kPeerHello: {
		PeerResp r{};

		r.qpn = p.ud->qp->qp_num;
		r.qkey = kQkey;
		memcpy(r.gid, p.gid.raw, 16);
		answer(fd, r);
		break;
	}
	case kPeerConnect:
		do_connect(p, fd, req);
		break;
	case kPeerSends:
		if (PQp *q = find(p, fd, req.qpn))
			do_sends(*q, req, false);
		else
			answer_err(fd, ENOENT);
		break;
	case kPeerUdSends:
		do_ud_sends(p, fd, req);
		break;
	case kPeerChecksum:
		if (PQp *q = find(p, fd, req.qpn)) {
			q->sum = {true, 1, 0, 0, 0, Clock::now() + kReplyWait};
			sum_done(*q);
		} else {
			answer_err(fd, ENOENT);
		}
		break;
	case kPeerFree:
		drop(p, fd, req.qpn);
		break;
	default:
		return false;
	}
	return true;
}

// Completions: receives are checksummed and posted again, sends counted.
void service(Server &p, PQp &q)
{
	ibv_wc wc[32];
	int n;

	while ((n = ibv_poll_cq(q.cq, 32, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			const ibv_wc &w = wc[i];

			if (w.wr_id & 1u << 31) {
				if (w.status == IBV_WC_SUCCESS)
					q.sends.ok++;
				else
					q.sends.err++;
				continue;
			}
			// a QP in ERR flushes what is posted: post only after a success
			if (w.status != IBV_WC_SUCCESS) {
				if (!q.broken)
					q.broken_by = w.status;
				q.broken = true;
				continue;
			}
			if (w.byte_len <= kRecvLen) {
				q.sum_len = w.byte_len;
				q.sum_val = mrc_tool::fnv1a(q.rbuf + w.wr_id * kRecvLen, w.byte_len);
				q.have_sum = true;
			}
			post_recv(q, static_cast<uint32_t>(w.wr_id % kRecvs));
		}
	}
	// the UD QP serves every client: garbage that broke it must not
	if (q.broken && &q == p.ud.get()) {
		ibv_qp_attr a{};

		a.qp_state = IBV_QPS_RESET;
		if (!modify(q.qp, a, IBV_QP_STATE) || arm_qp(p, q, IBV_QPT_UD, nullptr, false))
			die("peer: the UD QP cannot be brought back");
		fprintf(stderr, "peer: UD QP %u was in ERR (%s), back in RTS\n", q.qp->qp_num,
			ibv_wc_status_str(q.broken_by));
	}
	q.broken = false;
	sends_done(p, q);
	sum_done(q);
}

}  // namespace

int peer_main(const char *dev, int gidx, int port)
{
	Server p;
	constexpr size_t kRecvArea = static_cast<size_t>(kRecvs) * kRecvLen;

	signal(SIGPIPE, SIG_IGN);
	p.ctx = open_ctx(dev);
	p.gidx = gidx;
	p.pd = ibv_alloc_pd(p.ctx);
	if (!p.pd || ibv_query_gid(p.ctx, 1, gidx, &p.gid))
		die("peer: alloc_pd/query_gid: %s", strerror(errno));
	p.target = static_cast<uint8_t *>(aligned_alloc(4096, kTargetLen + kRecvArea));
	p.rbuf = p.target + kTargetLen;
	p.tmr = ibv_reg_mr(p.pd, p.target, kTargetLen, kRemoteAll);
	p.rmr = ibv_reg_mr(p.pd, p.rbuf, kRecvArea, static_cast<int>(IBV_ACCESS_LOCAL_WRITE));
	if (!p.tmr || !p.rmr)
		die("peer: reg_mr: %s", strerror(errno));
	p.ud = std::make_unique<PQp>();
	p.ud->client = -1;
	p.ud->target = p.target;
	p.ud->tmr = p.tmr;
	p.ud->rbuf = p.rbuf;
	p.ud->rmr = p.rmr;
	if (int err = make_qp(p, *p.ud, IBV_QPT_UD, nullptr))
		die("peer: UD QP: %s", strerror(err));

	int lfd = mrc_tool::tcp_listen(port);

	printf("peer: listening on %d, UD QP %u\n", port, p.ud->qp->qp_num);
	fflush(stdout);
	for (;;) {
		std::vector<pollfd> fds{{lfd, POLLIN, 0}};

		for (int fd : p.clients)
			fds.push_back({fd, POLLIN, 0});
		if (poll(fds.data(), fds.size(), p.qps.empty() ? 10 : 1) < 0 && errno != EINTR)
			die("peer: poll: %s", strerror(errno));
		if (fds[0].revents & POLLIN) {
			int fd = accept(lfd, nullptr, nullptr), one = 1;

			if (fd >= 0) {
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
				p.clients.push_back(fd);
			}
		}
		for (size_t i = 1; i < fds.size(); i++) {
			if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)) || serve(p, fds[i].fd))
				continue;
			drop(p, fds[i].fd, 0);
			if (p.ud->client == fds[i].fd)
				p.ud->client = -1;
			close(fds[i].fd);
			std::erase(p.clients, fds[i].fd);
		}
		service(p, *p.ud);
		for (auto &q : p.qps)
			service(p, *q);
	}
}

}  // namespace ufz
