// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * See peek.h. C, because the provider's private header is C; valid only
 * for objects the metaroce provider made (the caller checks the device).
 */
#include "metaroce.h"
#include "peek.h"

static void ufz_ring_of(struct mrc_ring *r, struct ufz_ring *out)
{
	out->hdr = r->hdr;
	out->slots = r->slots;
	out->map_size = r->map_size;
	out->num = r->num;
	out->slot_size = r->slot_size;
	out->mine = &r->mine;
}

void ufz_qp_rings(struct ibv_qp *qp, struct ufz_ring *sq, struct ufz_ring *rq)
{
	struct mrc_qp *m = to_mqp(qp);

	ufz_ring_of(&m->sq, sq);
	ufz_ring_of(&m->rq, rq);
}

uint32_t ufz_qp_max_inline(struct ibv_qp *qp)
{
	return to_mqp(qp)->max_inline;
}

void ufz_srq_ring(struct ibv_srq *srq, struct ufz_ring *r)
{
	ufz_ring_of(&to_msrq(srq)->ring, r);
}

void ufz_cq_ring(struct ibv_cq *cq, struct ufz_ring *r)
{
	ufz_ring_of(&to_mcq(cq)->ring, r);
}

uint32_t ufz_ah_num(struct ibv_ah *ah)
{
	return to_mah(ah)->num;
}
