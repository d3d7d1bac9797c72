// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host checks of the provider's data path, no device needed: WQE building
 * and its refusals, the completion conversion, the ring arithmetic, and
 * ibv_post_send / ibv_post_recv / the ibv_wr_*() API writing into a fake
 * ring in plain memory. The doorbell must fire exactly when the kernel
 * set METAROCE_QUEUE_NEED_WAKEUP: the fake context's command fd is
 * /dev/null, so a doorbell is a harmless write we can count.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metaroce.h"

static int failures;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "FAIL %s:%d: ", __func__, __LINE__);   \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			failures++;                                            \
		}                                                              \
	} while (0)

#define SLOT 256	/* send slot: 64-byte header + 12 SGEs or 192 inline bytes */

static void test_send_build(void)
{
	uint8_t slot[SLOT], data[300];
	struct metaroce_send_wqe *w = (void *)slot;
	struct metaroce_sge *sge = (void *)(w + 1);
	struct ibv_sge sg[14];
	struct ibv_send_wr wr;
	int i, err;

	for (i = 0; i < 14; i++) {
		sg[i].addr = 0x1000 * (i + 1);
		sg[i].length = 100 + i;
		sg[i].lkey = 0x42 + i;
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x1234;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM;
	wr.sg_list = sg;
	wr.num_sge = 2;
	wr.imm_data = htobe32(7);
	wr.wr.rdma.remote_addr = 0xabc000;
	wr.wr.rdma.rkey = 0x99;
	err = mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr);
	CHECK(!err, "write_imm: %d", err);
	CHECK(w->wr_id == 0x1234 && w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM,
	      "header");
	CHECK(w->send_flags == IBV_SEND_SIGNALED, "flags %#x", w->send_flags);
	CHECK(w->num_sge == 2 && sge[1].addr == 0x2000 && sge[1].length == 101 &&
	      sge[1].lkey == 0x43, "sges");
	CHECK(w->ex.imm_data == htobe32(7), "imm");
	CHECK(w->wr.rdma.remote_addr == 0xabc000 && w->wr.rdma.rkey == 0x99,
	      "rdma");

	wr.num_sge = 12;
	CHECK(!mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr),
	      "12 SGEs fit a 256-byte slot");
	wr.num_sge = 13;
	CHECK(mrc_send_wqe_build(slot, SLOT, 16, 128, IBV_QPT_RC, &wr) == EINVAL,
	      "13 SGEs do not, whatever max_sge says");

	/* inline: bytes gathered from every SGE, bounded by max_inline */
	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	sg[0].addr = (uintptr_t)data;
	sg[0].length = 50;
	sg[1].addr = (uintptr_t)(data + 50);
	sg[1].length = 78;
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 2;
	wr.send_flags = IBV_SEND_INLINE;
	err = mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr);
	CHECK(!err && w->length == 128 && w->num_sge == 0 &&
	      (w->send_flags & IBV_SEND_INLINE) && !memcmp(w + 1, data, 128),
	      "inline 128");
	sg[1].length = 79;
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr) == EINVAL,
	      "inline over max_inline");
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 4096, IBV_QPT_RC, &wr) == 0,
	      "129 inline bytes with a larger max_inline");
	sg[1].length = 200;
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 4096, IBV_QPT_RC, &wr) == EINVAL,
	      "inline over the slot");

	/* READ ignores INLINE (as HCAs do) and posts SGEs */
	wr.opcode = IBV_WR_RDMA_READ;
	wr.num_sge = 1;
	err = mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr);
	CHECK(!err && w->num_sge == 1 && !(w->send_flags & IBV_SEND_INLINE),
	      "read with INLINE");
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UD, &wr) == EINVAL,
	      "read on UD");
	/* [OPS-41] UC: no READ, no atomics; WRITE and SEND_WITH_INV are */
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UC, &wr) == EINVAL,
	      "read on UC");
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	CHECK(!mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UC, &wr) &&
	      w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM, "write_imm on UC");
	wr.opcode = IBV_WR_SEND_WITH_INV;
	CHECK(!mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UC, &wr),
	      "send_inv on UC");
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UD, &wr) == EINVAL,
	      "send_inv on UD");

	/* atomics: one 8-byte SGE, aligned remote address */
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.send_flags = 0;
	sg[0].length = 8;
	wr.wr.atomic.remote_addr = 0x1000;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.rkey = 3;
	err = mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr);
	CHECK(!err && w->wr.atomic.compare_add == 5 && w->wr.atomic.rkey == 3,
	      "fetch_add");
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UC, &wr) == EINVAL,
	      "fetch_add on UC");
	wr.wr.atomic.remote_addr = 0x1004;
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr) == EINVAL,
	      "misaligned atomic");
	wr.wr.atomic.remote_addr = 0x1000;
	sg[0].length = 4;
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr) == EINVAL,
	      "4-byte atomic");

	/* memory windows (ABI 3): no data, whatever the WR says */
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	wr.invalidate_rkey = 0x4321;
	err = mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr);
	CHECK(!err && w->ex.invalidate_rkey == 0x4321 && !w->num_sge &&
	      w->send_flags == IBV_SEND_SIGNALED, "LOCAL_INV");
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UD, &wr) == EINVAL,
	      "LOCAL_INV on UD");
	{
		struct ibv_mw mw = { .rkey = 0x1234 };
		struct ibv_mr mr = { .lkey = 0x5566 };

		wr.opcode = IBV_WR_BIND_MW;
		wr.bind_mw.mw = NULL;
		CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC,
					 &wr) == EINVAL, "BIND_MW without a window");
		wr.bind_mw.mw = &mw;
		wr.bind_mw.rkey = 0x1235;
		wr.bind_mw.bind_info.mr = &mr;
		wr.bind_mw.bind_info.addr = 0x10000;
		wr.bind_mw.bind_info.length = 0x2000;
		wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
		err = mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr);
		CHECK(!err && w->opcode == IBV_WR_BIND_MW && !w->num_sge &&
		      w->wr.bind.addr == 0x10000 && w->wr.bind.length == 0x2000 &&
		      w->wr.bind.mw_rkey == 0x1234 && w->wr.bind.rkey == 0x1235 &&
		      w->wr.bind.mr_lkey == 0x5566 &&
		      w->wr.bind.access == IBV_ACCESS_REMOTE_READ, "BIND_MW");
		wr.bind_mw.rkey = 0x1335;
		CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC,
					 &wr) == EINVAL, "BIND_MW to another index");
		wr.bind_mw.rkey = 0x1235;
		wr.bind_mw.bind_info.mr = NULL;
		CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC,
					 &wr) == EINVAL, "BIND_MW of a length, no MR");
		wr.bind_mw.bind_info.length = 0;
		CHECK(!mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_RC, &wr) &&
		      !w->wr.bind.mr_lkey, "BIND_MW unbinding");
		CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UD,
					 &wr) == EINVAL, "BIND_MW on UD");
	}
	wr.send_flags = 0;
	/* UD: SENDs only, to an AH by its kernel number */
	wr.opcode = IBV_WR_SEND;
	wr.wr.ud.ah = NULL;
	CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UD, &wr) == EINVAL,
	      "UD without an AH");
	{
		struct mrc_ah ah = { .num = 0 };

		wr.wr.ud.ah = &ah.ibah;
		wr.wr.ud.remote_qpn = 0x123456;
		wr.wr.ud.remote_qkey = 0x11111111;
		CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UD, &wr) ==
			      EINVAL,
		      "UD with an unnumbered AH (ABI 1 kernel)");
		ah.num = 77;
		err = mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UD, &wr);
		CHECK(!err && w->opcode == IBV_WR_SEND &&
			      w->wr.ud.ah_num == 77 &&
			      w->wr.ud.remote_qpn == 0x123456 &&
			      w->wr.ud.remote_qkey == 0x11111111 &&
			      w->wr.ud.reserved == 0,
		      "UD send: %d", err);
		wr.wr.ud.remote_qpn = 0x1000000;
		CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UD, &wr) ==
			      EINVAL,
		      "UD QPN over 24 bits");
		wr.wr.ud.remote_qpn = 0x123456;
		wr.opcode = IBV_WR_RDMA_WRITE;
		CHECK(mrc_send_wqe_build(slot, SLOT, 12, 128, IBV_QPT_UD, &wr) ==
			      EINVAL,
		      "WRITE on UD");
	}
}

static void test_recv_build(void)
{
	uint8_t slot[16 + 4 * 16];
	struct metaroce_recv_wqe *w = (void *)slot;
	struct metaroce_sge *sge = (void *)(w + 1);
	struct ibv_sge sg[5] = { { 0x10, 20, 1 }, { 0x20, 30, 2 } };
	struct ibv_recv_wr wr = { .wr_id = 9, .sg_list = sg, .num_sge = 2 };

	CHECK(!mrc_recv_wqe_build(slot, sizeof(slot), 4, &wr), "recv");
	CHECK(w->wr_id == 9 && w->num_sge == 2 && sge[1].addr == 0x20 &&
	      sge[1].length == 30 && sge[1].lkey == 2, "recv fields");
	wr.num_sge = 4;
	CHECK(!mrc_recv_wqe_build(slot, sizeof(slot), 4, &wr), "4 SGEs fit");
	wr.num_sge = 5;
	CHECK(mrc_recv_wqe_build(slot, sizeof(slot), 8, &wr) == EINVAL,
	      "5 SGEs do not, whatever max_sge says");
	wr.num_sge = -1;
	CHECK(mrc_recv_wqe_build(slot, sizeof(slot), 4, &wr) == EINVAL,
	      "negative num_sge");
}

static void test_wc(void)
{
	struct ib_uverbs_wc u;
	struct ibv_wc wc;

	memset(&u, 0, sizeof(u));
	u.wr_id = 77;
	u.status = IBV_WC_REM_ACCESS_ERR;
	u.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	u.byte_len = 4096;
	u.ex.imm_data = htobe32(0xfeed);
	u.qp_num = 0x11;
	u.src_qp = 0x22;
	u.wc_flags = 2 | MRC_KWC_WITH_INVALIDATE;
	mrc_wc_from_uverbs(&wc, &u);
	CHECK(wc.wr_id == 77 && wc.status == IBV_WC_REM_ACCESS_ERR &&
	      wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc.byte_len == 4096 &&
	      wc.imm_data == htobe32(0xfeed) && wc.qp_num == 0x11 &&
	      wc.src_qp == 0x22, "fields");
	CHECK(wc.wc_flags == (IBV_WC_WITH_IMM | IBV_WC_WITH_INV),
	      "flags %#x", wc.wc_flags);
	u.wc_flags = MRC_KWC_IP_CSUM_OK | 1;
	mrc_wc_from_uverbs(&wc, &u);
	CHECK(wc.wc_flags == (IBV_WC_IP_CSUM_OK | IBV_WC_GRH), "csum flags %#x",
	      wc.wc_flags);
}

static void test_ring_info(void)
{
	size_t hdr = sizeof(struct metaroce_queue_hdr);
	struct metaroce_queue_info i = {
		.mmap_size = hdr + 8 * 64, .num = 8, .slot_size = 64,
	};

	CHECK(mrc_ring_info_ok(&i, 48), "good info");
	CHECK(!mrc_ring_info_ok(&i, 72), "slot smaller than needed");
	i.num = 6;
	CHECK(!mrc_ring_info_ok(&i, 48), "num not a power of two");
	i.num = 0;
	CHECK(!mrc_ring_info_ok(&i, 48), "num 0");
	i.num = 16;
	CHECK(!mrc_ring_info_ok(&i, 48), "mapping shorter than the slots");
	i.num = 8;
	i.slot_size = 60;
	CHECK(!mrc_ring_info_ok(&i, 48), "slot size not a multiple of 8");
}

/* A ring over malloc'ed memory, as mrc_ring_map() would set it up. */
static void fake_ring(struct mrc_ring *r, uint32_t num, uint32_t slot_size)
{
	r->map_size = sizeof(struct metaroce_queue_hdr) +
		      (size_t)num * slot_size;
	r->hdr = calloc(1, r->map_size);
	r->slots = (uint8_t *)(r->hdr + 1);
	r->num = num;
	r->mask = num - 1;
	r->slot_size = slot_size;
	r->mine = 0;
}

static void test_ring_room(void)
{
	struct mrc_ring r;

	fake_ring(&r, 8, 64);
	r.mine = 10;
	r.hdr->consumer = 4;
	CHECK(mrc_ring_room(&r) == 2, "room %u", mrc_ring_room(&r));
	r.hdr->consumer = 11;	/* ahead of the producer: trust nothing */
	CHECK(mrc_ring_room(&r) == 0, "room from a future consumer");
	r.mine = 0xfffffffe;	/* wrap-around */
	r.hdr->consumer = 0xfffffffa;
	CHECK(mrc_ring_room(&r) == 4, "room across wrap %u", mrc_ring_room(&r));
	CHECK(!mrc_ring_publish(&r) && r.hdr->producer == 0xfffffffe,
	      "publish, no wakeup");
	r.hdr->flags = METAROCE_QUEUE_NEED_WAKEUP;
	CHECK(mrc_ring_publish(&r) == METAROCE_QUEUE_NEED_WAKEUP,
	      "wakeup wanted");
	free(r.hdr);
}

/* A QP with fake rings; its context writes commands to /dev/null. */
static struct mrc_qp *fake_qp(struct verbs_context *vctx)
{
	struct mrc_qp *qp = calloc(1, sizeof(*qp));

	qp->vqp.qp.context = &vctx->context;
	qp->vqp.qp.qp_type = IBV_QPT_RC;
	qp->vqp.qp.state = IBV_QPS_RTS;	/* takes sends and receives */
	qp->vqp.qp.send_cq = &((struct mrc_cq *)calloc(1, sizeof(struct mrc_cq)))->vcq.cq;
	qp->vqp.qp.send_cq->context = &vctx->context;
	qp->vqp.qp.handle = 7;
	fake_ring(&to_mcq(qp->vqp.qp.send_cq)->ring, 4,
		  sizeof(struct ib_uverbs_wc));
	pthread_spin_init(&to_mcq(qp->vqp.qp.send_cq)->lock,
			  PTHREAD_PROCESS_PRIVATE);
	fake_ring(&qp->sq, 4, SLOT);
	fake_ring(&qp->rq, 4, 16 + 2 * 16);
	qp->max_inline = 64;
	/* what the kernel granted, below what the slots could hold */
	qp->sq.max_sge = 3;
	qp->rq.max_sge = 1;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	return qp;
}

static void test_post(struct verbs_context *vctx)
{
	struct mrc_qp *qp = fake_qp(vctx);
	struct ibv_sge sg = { .addr = 0x5000, .length = 10, .lkey = 1 };
	struct ibv_send_wr wr[6], *bad = NULL;
	struct ibv_recv_wr rwr[3], *rbad = NULL;
	struct metaroce_send_wqe *w;
	int i, err;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 6; i++) {
		wr[i].wr_id = 100 + i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].sg_list = &sg;
		wr[i].num_sge = 1;
		wr[i].next = i < 5 ? &wr[i + 1] : NULL;
	}
	/* before RTS no send, in RESET no receive: EINVAL, nothing written */
	wr[2].next = NULL;
	rwr[0] = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = &sg, .num_sge = 1 };
	qp->vqp.qp.state = IBV_QPS_RTR;
	err = mrc_post_send(&qp->vqp.qp, wr, &bad);
	CHECK(err == EINVAL && bad == wr && qp->sq.hdr->producer == 0 &&
	      qp->sq.mine == 0, "send in RTR: %d prod %u", err,
	      qp->sq.hdr->producer);
	qp->vqp.qp.state = IBV_QPS_RESET;
	err = mrc_post_recv(&qp->vqp.qp, rwr, &rbad);
	CHECK(err == EINVAL && rbad == rwr && qp->rq.hdr->producer == 0,
	      "recv in RESET: %d prod %u", err, qp->rq.hdr->producer);
	qp->vqp.qp.state = IBV_QPS_RTS;

	/* a list of 3: all published, no doorbell (flag clear) */
	err = mrc_post_send(&qp->vqp.qp, wr, &bad);
	CHECK(!err && qp->sq.hdr->producer == 3, "post 3: %d prod %u", err,
	      qp->sq.hdr->producer);
	CHECK(qp->stats.sq_doorbells == 0, "no doorbell without the flag");
	CHECK(to_mcq(qp->vqp.qp.send_cq)->sq_backlog == 3,
	      "the send CQ learns of 3 WRs out: %u",
	      to_mcq(qp->vqp.qp.send_cq)->sq_backlog);
	w = mrc_ring_slot(&qp->sq, 2);
	CHECK(w->wr_id == 102, "slot 2 holds wr 102");

	/* ring of 4, 3 used: the second WR of the next list does not fit */
	wr[2].next = &wr[3];
	qp->sq.hdr->flags = METAROCE_QUEUE_NEED_WAKEUP;
	err = mrc_post_send(&qp->vqp.qp, &wr[3], &bad);
	CHECK(err == ENOMEM && bad == &wr[4], "full: %d bad %p", err,
	      (void *)bad);
	CHECK(qp->sq.hdr->producer == 4 && qp->stats.sq_doorbells == 1,
	      "the one that fit is published and rung");

	/* a bad WR in the middle: those before it are posted */
	qp->sq.hdr->consumer = 4;
	wr[1].opcode = IBV_WR_TSO;
	err = mrc_post_send(&qp->vqp.qp, wr, &bad);
	CHECK(to_mcq(qp->vqp.qp.send_cq)->sq_backlog == 1,
	      "4 of 5 retired: 1 out, %u", to_mcq(qp->vqp.qp.send_cq)->sq_backlog);
	CHECK(err == EINVAL && bad == &wr[1] && qp->sq.hdr->producer == 5 &&
	      qp->stats.sq_doorbells == 2, "bad opcode: %d prod %u", err,
	      qp->sq.hdr->producer);
	wr[1].opcode = IBV_WR_SEND;

	/*
	 * The engine sent all it took: no ring at the post, one at the
	 * poller's first empty poll, then none until the next such post.
	 */
	{
		struct mrc_cq *cq = to_mcq(qp->vqp.qp.send_cq);
		struct ibv_wc wc;

		qp->sq.hdr->consumer = 5;
		qp->sq.hdr->flags = METAROCE_QUEUE_KICK_ON_WAIT;
		wr[0].next = NULL;
		err = mrc_post_send(&qp->vqp.qp, wr, &bad);
		CHECK(!err && qp->stats.sq_doorbells == 2 &&
		      cq->kick == (MRC_CQ_KICK | 7), "kick left to the poller");
		CHECK(mrc_poll_cq(&cq->vcq.cq, 1, &wc) == 0 && cq->kicks == 1 &&
		      !cq->kick, "the empty poll rang: %llu",
		      (unsigned long long)cq->kicks);
		CHECK(mrc_poll_cq(&cq->vcq.cq, 1, &wc) == 0 && cq->kicks == 1,
		      "once");
		mrc_cq_kick_later(cq, 7);
		mrc_cq_kick_forget(cq, 8);
		CHECK(cq->kick == (MRC_CQ_KICK | 7), "another QP's destroy");
		mrc_cq_kick_forget(cq, 7);
		CHECK(!cq->kick, "its own destroy");
		qp->sq.hdr->flags = METAROCE_QUEUE_NEED_WAKEUP |
				    METAROCE_QUEUE_KICK_ON_WAIT;
		err = mrc_post_send(&qp->vqp.qp, wr, &bad);
		CHECK(!err && qp->stats.sq_doorbells == 3 && !cq->kick,
		      "NEED_WAKEUP rings now");
		qp->sq.hdr->flags = 0;
		err = mrc_post_send(&qp->vqp.qp, wr, &bad);
		CHECK(!err && qp->stats.sq_doorbells == 3 && !cq->kick,
		      "neither flag: the engine polls");
		qp->sq.hdr->flags = METAROCE_QUEUE_NEED_WAKEUP;
	}

	/* receives */
	memset(rwr, 0, sizeof(rwr));
	for (i = 0; i < 3; i++) {
		rwr[i].wr_id = 200 + i;
		rwr[i].sg_list = &sg;
		rwr[i].num_sge = 1;
		rwr[i].next = i < 2 ? &rwr[i + 1] : NULL;
	}
	err = mrc_post_recv(&qp->vqp.qp, rwr, &rbad);
	CHECK(!err && qp->rq.hdr->producer == 3 && qp->stats.rq_doorbells == 0,
	      "post_recv 3");
	qp->rq.hdr->flags = METAROCE_QUEUE_NEED_WAKEUP;
	rwr[0].next = NULL;
	err = mrc_post_recv(&qp->vqp.qp, rwr, &rbad);
	CHECK(!err && qp->stats.rq_doorbells == 1, "recv doorbell in ERR");

	/* the ibv_wr_*() API: two WRs in one batch, one doorbell */
	mrc_qp_set_wr_ops(qp, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE);
	CHECK(qp->vqp.qp_ex.wr_rdma_read == NULL, "read not asked for");
	qp->sq.hdr->consumer = 8;
	{
		struct ibv_qp_ex *x = &qp->vqp.qp_ex;
		char msg[] = "hello, ring";

		ibv_wr_start(x);
		x->wr_id = 300;
		x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(x, 0x77, 0x9000);
		ibv_wr_set_sge(x, 5, 0x6000, 4096);
		x->wr_id = 301;
		x->wr_flags = 0;
		ibv_wr_send(x);
		ibv_wr_set_inline_data(x, msg, sizeof(msg));
		err = ibv_wr_complete(x);
		CHECK(!err && qp->sq.hdr->producer == 10 &&
		      qp->stats.sq_doorbells == 4, "wr batch: %d prod %u db %llu",
		      err, qp->sq.hdr->producer,
		      (unsigned long long)qp->stats.sq_doorbells);
		w = mrc_ring_slot(&qp->sq, 8);
		CHECK(w->wr_id == 300 && w->opcode == IBV_WR_RDMA_WRITE &&
		      w->wr.rdma.rkey == 0x77 && w->num_sge == 1 &&
		      w->send_flags == IBV_SEND_SIGNALED, "wr write slot");
		w = mrc_ring_slot(&qp->sq, 9);
		CHECK(w->wr_id == 301 && (w->send_flags & IBV_SEND_INLINE) &&
		      w->length == sizeof(msg) && !memcmp(w + 1, msg, sizeof(msg)),
		      "wr inline slot");

		/* over the ring: sticky ENOMEM, nothing published */
		ibv_wr_start(x);
		for (i = 0; i < 5; i++) {
			ibv_wr_send(x);
			ibv_wr_set_sge(x, 5, 0x6000, 1);
		}
		err = ibv_wr_complete(x);
		CHECK(err == ENOMEM && qp->sq.hdr->producer == 10,
		      "wr overflow: %d prod %u", err, qp->sq.hdr->producer);

		/* inline over max_inline */
		ibv_wr_start(x);
		ibv_wr_send(x);
		ibv_wr_set_inline_data(x, msg, 65);
		CHECK(ibv_wr_complete(x) == EINVAL, "wr inline too big");

		/* abort publishes nothing */
		ibv_wr_start(x);
		ibv_wr_send(x);
		ibv_wr_set_sge(x, 5, 0x6000, 1);
		ibv_wr_abort(x);
		CHECK(qp->sq.hdr->producer == 10, "abort");
	}
	free(to_mcq(qp->vqp.qp.send_cq)->ring.hdr);
	free(to_mcq(qp->vqp.qp.send_cq));
	free(qp->sq.hdr);
	free(qp->rq.hdr);
	free(qp);
}

/*
 * A WR with more SGEs than the QP was created with fails at post time,
 * EINVAL with bad_wr on it, though its slot would hold them: the kernel
 * would only fail it later (IBV_WC_LOC_QP_OP_ERR), an HCA refuses it at
 * once. Nothing is published and nothing rings.
 */
static void test_post_sge_limits(struct verbs_context *vctx)
{
	struct mrc_qp *qp = fake_qp(vctx);
	struct ibv_sge sg[4] = { { 0x5000, 10, 1 }, { 0x6000, 10, 1 },
				 { 0x7000, 10, 1 }, { 0x8000, 10, 1 } };
	struct ibv_send_wr wr[2], *bad = NULL;
	struct ibv_recv_wr rwr, *rbad = NULL;
	struct ibv_qp_ex *x = &qp->vqp.qp_ex;
	uint8_t before[SLOT];
	int err;

	qp->sq.hdr->flags = METAROCE_QUEUE_NEED_WAKEUP;
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 1;
	wr[0].opcode = IBV_WR_SEND;
	wr[0].sg_list = sg;
	wr[0].num_sge = 3;
	wr[0].next = &wr[1];
	wr[1] = wr[0];
	wr[1].wr_id = 2;
	wr[1].num_sge = 4;
	wr[1].next = NULL;
	memcpy(before, mrc_ring_slot(&qp->sq, 1), SLOT);
	err = mrc_post_send(&qp->vqp.qp, wr, &bad);
	CHECK(err == EINVAL && bad == &wr[1], "4 SGEs of 3: %d bad %p", err,
	      (void *)bad);
	CHECK(qp->sq.hdr->producer == 1 && qp->stats.sq_doorbells == 1,
	      "only the first published: prod %u", qp->sq.hdr->producer);
	CHECK(!memcmp(before, mrc_ring_slot(&qp->sq, 1), SLOT),
	      "the refused WR wrote nothing");

	/* inline bytes are no SGEs in the slot, but num_sge still counts */
	wr[1].send_flags = IBV_SEND_INLINE;
	err = mrc_post_send(&qp->vqp.qp, &wr[1], &bad);
	CHECK(err == EINVAL && bad == &wr[1], "inline with 4 SGEs: %d", err);

	/* the same through the ibv_wr_*() API */
	mrc_qp_set_wr_ops(qp, IBV_QP_EX_WITH_SEND);
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 4, sg);
	CHECK(ibv_wr_complete(x) == EINVAL && qp->sq.hdr->producer == 1,
	      "wr api: 4 SGEs of 3");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 3, sg);
	CHECK(ibv_wr_complete(x) == 0 && qp->sq.hdr->producer == 2,
	      "wr api: 3 SGEs");

	/* receives: 2 SGEs fit the slot, the QP takes 1 */
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 9;
	rwr.sg_list = sg;
	rwr.num_sge = 2;
	err = mrc_post_recv(&qp->vqp.qp, &rwr, &rbad);
	CHECK(err == EINVAL && rbad == &rwr && qp->rq.hdr->producer == 0,
	      "recv with 2 SGEs of 1: %d", err);
	rwr.num_sge = 1;
	CHECK(!mrc_post_recv(&qp->vqp.qp, &rwr, &rbad) &&
	      qp->rq.hdr->producer == 1, "recv with 1 SGE");

	free(to_mcq(qp->vqp.qp.send_cq)->ring.hdr);
	free(to_mcq(qp->vqp.qp.send_cq));
	free(qp->sq.hdr);
	free(qp->rq.hdr);
	free(qp);
}

int main(void)
{
	struct verbs_context *vctx = calloc(1, sizeof(*vctx));

	vctx->context.cmd_fd = open("/dev/null", O_WRONLY);
	/* libibverbs' private part: all zero means "use write(), not ioctl" */
	vctx->priv = calloc(1, 4096);
	test_send_build();
	test_recv_build();
	test_wc();
	test_ring_info();
	test_ring_room();
	test_post(vctx);
	test_post_sge_limits(vctx);
	close(vctx->context.cmd_fd);
	free(vctx->priv);
	free(vctx);
	printf("datapath: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
