// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The fuzzing process's side of the control channel to the peer, and the
// address handles that name the peer's UD QP.

#include <netinet/tcp.h>

#include <cerrno>
#include <cstring>

#include "../report.h"
#include "../tcp.h"
#include "ufuzz.h"

namespace ufz {

using mrc_tool::die;

PeerResp peer_call(const Peer &p, const PeerReq &req)
{
	PeerResp r{};

	mrc_tool::xwrite(p.fd, &req, sizeof(req));
	mrc_tool::xread(p.fd, &r, sizeof(r));
	return r;
}

void peer_free(const Peer &p, uint32_t qpn)
{
	PeerReq req{};

	req.op = kPeerFree;
	req.qpn = qpn;
	mrc_tool::xwrite(p.fd, &req, sizeof(req));
}

static ibv_ah *ah_to_peer(Env &e, ibv_pd *pd)
{
	ibv_ah *ah = ibv_create_ah(pd, &e.ah_attr);

	if (!ah)
		die("create_ah: %s", strerror(errno));
	return ah;
}

void peer_connect(Env &e, const char *host, int port)
{
	PeerReq req{};
	int one = 1;

	e.peer.fd = mrc_tool::tcp_connect(host, port);
	setsockopt(e.peer.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	req.op = kPeerHello;
	PeerResp r = peer_call(e.peer, req);

	if (r.status)
		die("peer hello: status %u", r.status);
	memcpy(e.peer.gid.raw, r.gid, 16);
	e.peer.ud_qpn = r.qpn;
	e.peer.ud_qkey = r.qkey;
	e.ah_attr.is_global = 1;
	e.ah_attr.grh.dgid = e.peer.gid;
	e.ah_attr.grh.sgid_index = static_cast<uint8_t>(e.gidx);
	e.ah_attr.grh.hop_limit = 64;
	e.ah_attr.port_num = 1;

	e.ah = ah_to_peer(e, e.pd);
	e.ah_pd2 = ah_to_peer(e, e.pd2);
	ibv_pd *pd_ctx2 = ibv_alloc_pd(e.ctx2);

	if (!pd_ctx2)
		die("alloc_pd: %s", strerror(errno));
	e.ah_ctx2 = ah_to_peer(e, pd_ctx2);
	ibv_ah *gone = ah_to_peer(e, e.pd);

	e.stale_ah = ufz_ah_num(gone);
	if (ibv_destroy_ah(gone))
		die("destroy_ah: %s", strerror(errno));
}

}  // namespace ufz
