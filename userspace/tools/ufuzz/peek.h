/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fuzzer's window into the provider: where the rings of a QP, SRQ or
 * CQ are mapped, and the numbers the provider keeps beside them. A hostile
 * process could find all of it by mapping the rings itself; reading the
 * provider's structures (peek.c, compiled against its private header) is
 * the shorter way to the same memory.
 */
#ifndef MRC_UFUZZ_PEEK_H
#define MRC_UFUZZ_PEEK_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "uapi/metaroce-abi.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ufz_ring {
	struct metaroce_queue_hdr *hdr;	/* NULL: no ring (RQ of a QP on an SRQ) */
	uint8_t *slots;
	uint64_t map_size;
	uint32_t num;
	uint32_t slot_size;
	uint32_t *mine;			/* the provider's copy of its own index */
};

void ufz_qp_rings(struct ibv_qp *qp, struct ufz_ring *sq, struct ufz_ring *rq);
uint32_t ufz_qp_max_inline(struct ibv_qp *qp);
void ufz_srq_ring(struct ibv_srq *srq, struct ufz_ring *r);
void ufz_cq_ring(struct ibv_cq *cq, struct ufz_ring *r);
uint32_t ufz_ah_num(struct ibv_ah *ah);

#ifdef __cplusplus
}
#endif

#endif /* MRC_UFUZZ_PEEK_H */
