/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The provider's view of a queue shared with the kernel (uAPI:
 * struct metaroce_queue_hdr and the rules next to it in
 * kernel/uapi/metaroce-abi.h): one mmap() of the device fd, a header with
 * the two free-running indices, then num slots.
 *
 * The provider owns exactly one index per ring: the producer of an SQ, RQ
 * or SRQ, the consumer of a CQ. It keeps that index in @mine (the kernel
 * never writes it) and publishes it with a store-release; it reads the
 * kernel's index with a load-acquire.
 */
#ifndef MRC_RING_H
#define MRC_RING_H

#include <stddef.h>
#include <stdint.h>

#include "uapi/metaroce-abi.h"

struct mrc_ring {
	struct metaroce_queue_hdr *hdr;	/* NULL: no ring (QP on an SRQ) */
	uint8_t *slots;
	size_t map_size;
	uint32_t num;			/* power of two */
	uint32_t mask;
	uint32_t slot_size;
	uint32_t max_sge;		/* SQ, RQ, SRQ: the SGEs a WR may carry */
	uint32_t mine;			/* the index the provider owns */
};

/* Checks @info, then maps it; 0 or an errno value. */
int mrc_ring_map(struct mrc_ring *r, int cmd_fd,
		 const struct metaroce_queue_info *info, size_t min_slot);
void mrc_ring_unmap(struct mrc_ring *r);
/* Only the checks of mrc_ring_map() (host tests). */
int mrc_ring_info_ok(const struct metaroce_queue_info *info, size_t min_slot);

static inline uint32_t mrc_load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void mrc_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void *mrc_ring_slot(const struct mrc_ring *r, uint32_t index)
{
	return r->slots + (size_t)(index & r->mask) * r->slot_size;
}

/* Free slots of a ring the provider produces into. */
static inline uint32_t mrc_ring_room(const struct mrc_ring *r)
{
	uint32_t used = r->mine - mrc_load_acquire(&r->hdr->consumer);

	/* a consumer index from the future would be the kernel's bug: stay safe */
	return used > r->num ? 0 : r->num - used;
}

/*
 * Publish the producer index, then read the kernel's flags (METAROCE_QUEUE_*),
 * which say whether to ring: the full fence orders our index store before
 * the flags load, and pairs with the kernel's fence between setting
 * NEED_WAKEUP and its last look at the index (otherwise both could miss
 * each other and the WQE would sit).
 */
static inline uint32_t mrc_ring_publish(struct mrc_ring *r)
{
	mrc_store_release(&r->hdr->producer, r->mine);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&r->hdr->flags, __ATOMIC_RELAXED);
}

#endif /* MRC_RING_H */
