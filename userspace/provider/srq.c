// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues: a ring of receive slots like a QP's RQ (posting
 * is in qp.c); the limit event stays in the kernel, and a resize maps the
 * new ring the kernel made.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

MRC_DRV_CMD(mrc_create_srq, ibv_create_srq, ib_uverbs_create_srq_resp,
	    mrc_empty, metaroce_create_srq_resp);

struct ibv_srq *mrc_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct mrc_create_srq_resp resp;
	struct mrc_create_srq cmd;
	struct mrc_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	err = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto fail;
	err = mrc_ring_map(&srq->ring, pd->context->cmd_fd,
			   &resp.drv_payload.srq,
			   sizeof(struct metaroce_recv_wqe));
	if (err) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		goto fail;
	}
	/* libibverbs copied the kernel's answer in */
	srq->ring.max_sge = attr->attr.max_sge;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	return &srq->vsrq.srq;

fail:
	free(srq);
	errno = err;
	return NULL;
}

/* modify_srq has no response: the command says where the new ring goes */
struct mrc_modify_srq {
	struct ibv_modify_srq ibv_cmd;
	struct metaroce_modify_srq_cmd drv_payload;
};
_Static_assert(sizeof(struct mrc_modify_srq) ==
		       sizeof(struct ibv_modify_srq) +
			       sizeof(struct metaroce_modify_srq_cmd),
	       "mrc_modify_srq request has padding");

/*
 * A resize (IBV_SRQ_MAX_WR) gets a new ring holding every receive posted
 * and not yet taken; posters wait on the lock until it is mapped, so the
 * producer index the kernel pulled from the old ring is our last word on
 * it. The old mapping goes once the new one is in place.
 */
int mrc_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct mrc_srq *srq = to_msrq(ibsrq);
	struct metaroce_queue_info info;
	struct mrc_modify_srq cmd;
	struct mrc_ring fresh = {};
	int err;

	memset(&cmd, 0, sizeof(cmd));
	memset(&info, 0, sizeof(info));
	cmd.drv_payload.ring_info_addr = (uintptr_t)&info;
	pthread_spin_lock(&srq->lock);
	err = ibv_cmd_modify_srq(ibsrq, attr, mask, &cmd.ibv_cmd, sizeof(cmd));
	if (!err && (mask & IBV_SRQ_MAX_WR)) {
		err = mrc_ring_map(&fresh, ibsrq->context->cmd_fd, &info,
				   sizeof(struct metaroce_recv_wqe));
		if (!err) {
			fresh.max_sge = srq->ring.max_sge;
			mrc_ring_unmap(&srq->ring);
			srq->ring = fresh;
		}
	}
	pthread_spin_unlock(&srq->lock);
	/*
	 * A map that failed after the kernel resized leaves the SRQ without
	 * a ring we can post to: report it; destroying the SRQ still works.
	 */
	return err;
}

int mrc_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

int mrc_destroy_srq(struct ibv_srq *ibsrq)
{
	struct mrc_srq *srq = to_msrq(ibsrq);
	int err;

	err = ibv_cmd_destroy_srq(ibsrq);
	if (err)
		return err;
	mrc_ring_unmap(&srq->ring);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}
