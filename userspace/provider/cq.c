// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues. The kernel writes struct ib_uverbs_wc slots into a
 * ring we map and publishes its producer index; poll_cq reads them and
 * publishes our consumer index, with no system call. Arming
 * (ibv_req_notify_cq) and completion channels go through the generic
 * uverbs commands; the kernel reads our consumer index when it arms, so
 * "report missed events" sees what we have not polled yet.
 *
 * Polling an empty CQ for long is waiting: after MRC_POLL_SPIN_US (20)
 * of empty polls, with four or more WRs out on the SQ that posted last or
 * after a last wait of MRC_POLL_LONG_WAIT_US (5000) or more, poll_cq naps
 * MRC_POLL_NAP_US (50; 0: never) before it returns 0. A
 * software transport needs the CPU a spinning poller holds: on a one-vCPU
 * guest perftest's poll loop took 57% of the sender's CPU, and the
 * emulator's vCPU thread never idled, so the host's cores went to
 * spinning instead of moving packets. With the nap, ib_write_bw 1 MiB
 * went from 40-50 to 52-62 MiB/s in the bed. A completion that arrives
 * during a nap waits for its end, so the spin phase covers the round trip
 * of a fast fabric.
 *
 * The first empty poll also rings the doorbell a post left to it
 * (METAROCE_QUEUE_KICK_ON_WAIT, qp.c): the process posted its batch and
 * now waits, so the send engine takes the whole batch at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	if (!err)
		err = mrc_cq_setup(cq, ibctx->cmd_fd, &resp.drv_payload);
	if (err) {
		free(cq);
		errno = err;
		return NULL;
	}
	return &cq->vcq.cq;
}

int mrc_cq_setup(struct mrc_cq *cq, int cmd_fd,
		 const struct metaroce_create_cq_resp *drv)
{
	int err;

	err = mrc_ring_map(&cq->ring, cmd_fd, &drv->cq,
			   sizeof(struct ib_uverbs_wc));
	if (err) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		return err;
	}
	cq->ring.mine = mrc_load_acquire(&cq->ring.hdr->consumer);
	cq->spin_us = mrc_env_uint("MRC_POLL_SPIN_US", 20);
	cq->long_wait_us = mrc_env_uint("MRC_POLL_LONG_WAIT_US", 5000);
	cq->nap_us = mrc_env_uint("MRC_POLL_NAP_US", 50);
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

/* MRC_PROVIDER_STATS=1: the doorbells its pollers rang, at destroy. */
static void mrc_cq_report(struct mrc_cq *cq)
{
	const char *e = getenv("MRC_PROVIDER_STATS");

	if (!e || !*e || *e == '0')
		return;
	fprintf(stderr, "libmetaroce: cq: doorbells rung by pollers %llu\n",
		(unsigned long long)cq->kicks);
}

int mrc_destroy_cq(struct ibv_cq *ibcq)
{
	struct mrc_cq *cq = to_mcq(ibcq);
	int err;

	err = ibv_cmd_destroy_cq(ibcq);
	if (err)
		return err;
	mrc_cq_report(cq);
	mrc_ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

static uint64_t mrc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * An empty poll: nap now? Napping pays where the kernel has a pipeline of
 * work for this poller (the last post left four or more WRs out on its
 * SQ; a ping-pong posts its next send before the last one's ACK is in)
 * or where completions come far apart anyway (the last wait lasted
 * long_wait_us: a receiver of a stream of large messages). A round trip
 * (a latency test, a request-response) a nap would only lengthen: a 50 us
 * nanosleep took 150-220 us in the bed's emulated guests. Either way the
 * poller spins spin_us first, and again between naps.
 */
static bool mrc_nap_due(struct mrc_cq *cq)
{
	uint64_t now = mrc_now_ns();

	if (!cq->wait_since)
		cq->wait_since = now;
	if (!cq->spin_since) {
		cq->spin_since = now;
		return false;
	}
	if (now - cq->spin_since < cq->spin_us * 1000ull)
		return false;
	if (__atomic_load_n(&cq->sq_backlog, __ATOMIC_RELAXED) < 4 &&
	    cq->last_wait_ns < cq->long_wait_us * 1000ull)
		return false;
	cq->spin_since = 0;
	return true;
}

static void mrc_nap(uint32_t us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

/*
 * The send engine of QP @qp_handle asked for a ring once the process
 * waits (METAROCE_QUEUE_KICK_ON_WAIT) and its last post did not ring: the
 * poller of its send CQ rings on its first empty poll, or before arming.
 * One QP per CQ is remembered, the last to post; another's WRs wait for
 * its engine's next ACK, as they would without the flag.
 */
void mrc_cq_kick_later(struct mrc_cq *cq, uint32_t qp_handle)
{
	/* after the producer index: a poller that sees this sees the WQEs */
	__atomic_store_n(&cq->kick, MRC_CQ_KICK | qp_handle, __ATOMIC_RELEASE);
}

/* A destroyed QP's handle may be reused: no stray ring for it. */
void mrc_cq_kick_forget(struct mrc_cq *cq, uint32_t qp_handle)
{
	uint64_t k = MRC_CQ_KICK | qp_handle;

	__atomic_compare_exchange_n(&cq->kick, &k, 0, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

void mrc_cq_kick(struct mrc_cq *cq)
{
	uint64_t k;

	if (!__atomic_load_n(&cq->kick, __ATOMIC_RELAXED))
		return;
	k = __atomic_exchange_n(&cq->kick, 0, __ATOMIC_ACQUIRE);
	if (!k)
		return;
	__atomic_fetch_add(&cq->kicks, 1, __ATOMIC_RELAXED);
	mrc_sq_ring(cq->vcq.cq.context, (uint32_t)k);
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
	if (n) {
		mrc_store_release(&r->hdr->consumer, r->mine);
		if (cq->wait_since)
			cq->last_wait_ns = mrc_now_ns() - cq->wait_since;
		cq->wait_since = 0;
		cq->spin_since = 0;
	} else if (cq->nap_us && mrc_nap_due(cq)) {
		pthread_spin_unlock(&cq->lock);
		mrc_cq_kick(cq);
		mrc_nap(cq->nap_us);
		return 0;
	}
	pthread_spin_unlock(&cq->lock);
	if (!n)
		mrc_cq_kick(cq);
	return n;
}

MRC_DRV_CMD(mrc_resize_cq, ibv_resize_cq, ib_uverbs_resize_cq_resp,
	    mrc_empty, metaroce_resize_cq_resp);

/*
 * The kernel moves what we have not polled into a new ring and answers
 * with it; pollers wait on the lock until it is mapped, so the consumer
 * index the kernel took from the old ring is our last word on it. The old
 * mapping goes once the new one is in place.
 */
int mrc_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct mrc_cq *cq = to_mcq(ibcq);
	struct mrc_resize_cq_resp resp;
	struct mrc_resize_cq cmd;
	struct mrc_ring fresh = {};
	int err;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	pthread_spin_lock(&cq->lock);
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (!err)
		err = mrc_ring_map(&fresh, ibcq->context->cmd_fd,
				   &resp.drv_payload.cq,
				   sizeof(struct ib_uverbs_wc));
	if (!err) {
		mrc_ring_unmap(&cq->ring);
		cq->ring = fresh;
		cq->ring.mine = mrc_load_acquire(&cq->ring.hdr->consumer);
	}
	pthread_spin_unlock(&cq->lock);
	/*
	 * A map that failed after the kernel resized leaves the CQ without a
	 * ring we can read: report it; destroying the CQ still works.
	 */
	return err;
}

int mrc_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	mrc_cq_kick(to_mcq(ibcq));
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}
