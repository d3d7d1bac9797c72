// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues: a ring of receive slots like a QP's RQ (posting
 * is in qp.c); the limit event and resizing stay in the kernel. A mapped
 * ring cannot move, so modify_srq with IBV_SRQ_MAX_WR is refused by the
 * kernel (EOPNOTSUPP).
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

int mrc_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	struct ibv_modify_srq cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_modify_srq(srq, attr, mask, &cmd, sizeof(cmd));
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
