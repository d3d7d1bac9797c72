// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Two RC (or UC) QPs of one device connected to each other (loopback, [ENC-17]):
// the state moves the single-device verbs tools share, and waiting for a
// condition with a deadline instead of sleeping.
#pragma once

#include <chrono>
#include <cstdint>

#include <infiniband/verbs.h>

namespace mrc_tool {

inline int qp_try_init(ibv_qp *qp, unsigned int access)
{
	ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = access;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

// RTR towards @dqpn of this device, through GID @gidx (@gid its value);
// a UC QP without what verbs give RC only (responder resources, RNR).
inline int qp_try_rtr(ibv_qp *qp, const ibv_gid &gid, int gidx, uint32_t dqpn,
		      uint8_t rd_atomic)
{
	int rc_only = qp->qp_type == IBV_QPT_UC ? 0 :
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 1000;
	a.max_dest_rd_atomic = rd_atomic;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gidx);
	a.ah_attr.grh.hop_limit = 64;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | rc_only);
}

// ... and RTS (UC: no retry or timeout attributes).
inline int qp_try_rts(ibv_qp *qp, uint8_t rd_atomic)
{
	int rc_only = qp->qp_type == IBV_QPT_UC ? 0 :
		      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		      IBV_QP_MAX_QP_RD_ATOMIC;
	ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = a.rnr_retry = 7;	// RNR: 7 retries without end
	a.sq_psn = 1000;
	a.max_rd_atomic = rd_atomic;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | rc_only);
}

// @a and @b (fresh, in RESET) to RTS, each the other's peer; 0 or errno.
inline int qp_connect_pair(ibv_qp *a, ibv_qp *b, const ibv_gid &gid, int gidx,
			   unsigned int access, uint8_t rd_atomic)
{
	if (qp_try_init(a, access) || qp_try_init(b, access) ||
	    qp_try_rtr(a, gid, gidx, b->qp_num, rd_atomic) ||
	    qp_try_rtr(b, gid, gidx, a->qp_num, rd_atomic) ||
	    qp_try_rts(a, rd_atomic) || qp_try_rts(b, rd_atomic))
		return errno;
	return 0;
}

// @f() until it holds, for at most @seconds; whether it did.
template <typename F> bool wait_for(F f, int seconds = 20)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);

	while (std::chrono::steady_clock::now() < end)
		if (f())
			return true;
	return false;
}

// The next completion of @cq; status -1 if none came.
inline ibv_wc one_wc(ibv_cq *cq)
{
	ibv_wc wc = {};

	if (!wait_for([&] { return ibv_poll_cq(cq, 1, &wc) > 0; }))
		wc.status = static_cast<ibv_wc_status>(-1);
	return wc;
}

// one_wc()'s status in words
inline const char *wc_status(const ibv_wc &wc)
{
	return static_cast<int>(wc.status) < 0 ? "no completion" :
	       ibv_wc_status_str(wc.status);
}

}  // namespace mrc_tool
