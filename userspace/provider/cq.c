// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues. The kernel writes struct ib_uverbs_wc slots into a
 * ring we map and publishes its producer index; poll_cq reads them and
 * publishes our consumer index, with no system call. Arming
 * (ibv_req_notify_cq) and completion channels go through the generic
 * uverbs commands; the kernel reads our consumer index when it arms, so
 * "report missed events" sees what we have not polled yet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

MRC_DRV_CMD(mrc_create_cq, ibv_create_cq, ib_uverbs_create_cq_resp,
	    mrc_empty, metaroce_create_cq_resp);

struct ibv_cq *mrc_create_cq(struct ibv_context *ibctx, int cqe,
			     struct ibv_comp_channel *channel,
			     int comp_vector)
{
	struct mrc_create_cq_resp resp;
	struct mrc_create_cq cmd;
	struct mrc_cq *cq;
	int err;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	err = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (err)
		goto fail;
	err = mrc_ring_map(&cq->ring, ibctx->cmd_fd, &resp.drv_payload.cq,
			   sizeof(struct ib_uverbs_wc));
	if (err) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		goto fail;
	}
	cq->ring.mine = mrc_load_acquire(&cq->ring.hdr->consumer);
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	return &cq->vcq.cq;

fail:
	free(cq);
	errno = err;
	return NULL;
}

int mrc_destroy_cq(struct ibv_cq *ibcq)
{
	struct mrc_cq *cq = to_mcq(ibcq);
	int err;

	err = ibv_cmd_destroy_cq(ibcq);
	if (err)
		return err;
	mrc_ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

int mrc_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct mrc_cq *cq = to_mcq(ibcq);
	struct mrc_ring *r = &cq->ring;
	uint32_t prod;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	/* pairs with the kernel's store-release after writing the slots */
	prod = mrc_load_acquire(&r->hdr->producer);
	if (prod - r->mine > r->num)
		prod = r->mine + r->num;	/* never read what is not there */
	while (n < ne && r->mine != prod) {
		mrc_wc_from_uverbs(&wc[n++], mrc_ring_slot(r, r->mine));
		r->mine++;
	}
	if (n)
		mrc_store_release(&r->hdr->consumer, r->mine);
	pthread_spin_unlock(&cq->lock);
	return n;
}

int mrc_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}
