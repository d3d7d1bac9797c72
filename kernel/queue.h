/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Fixed-size element rings used for send, receive and completion queues.
 *
 * Indices are free-running u32 counters; the slot is index & mask. The
 * kernel keeps private copies of both indices and publishes them in a
 * header at the start of the buffer (struct metaroce_queue_hdr, the layout
 * the uAPI describes). A user ring is the same layout in zeroed vmalloc
 * memory, mapped into the process through an rdma_user_mmap_entry; the
 * index userspace owns is read with acquire semantics and checked before
 * it replaces the private copy, never trusted. Every ring is charged to
 * the creator's memory cgroup (queue.c).
 */
#ifndef _MRC_QUEUE_H
#define _MRC_QUEUE_H

#include <linux/bits.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <rdma/ib_verbs.h>

#include "uapi/metaroce-abi.h"

/* The mmap of a user ring; freed by ib_core's mmap_free once unmapped. */
struct mrc_mmap {
	struct rdma_user_mmap_entry rdma;
	void *addr;
};

struct mrc_queue {
	struct metaroce_queue_hdr *hdr;	/* start of the allocation */
	void *elems;			/* first slot, after the header */
	u32 num;			/* slots, a power of two */
	u32 mask;
	u32 elem_size;			/* bytes per slot, multiple of 8 */
	u32 prod;			/* private producer index */
	u32 cons;			/* private consumer index */
	size_t size;			/* bytes allocated (header + slots) */
	struct mrc_mmap *mmap;		/* user ring, else NULL */
};

int mrc_queue_init(struct mrc_queue *q, u32 min_elems, u32 elem_size);
int mrc_queue_init_user(struct mrc_queue *q, struct ib_ucontext *uctx,
			u32 min_elems, u32 elem_size);
void mrc_queue_free(struct mrc_queue *q);
int mrc_queue_move(struct mrc_queue *dst, struct mrc_queue *src);
int mrc_queue_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void mrc_mmap_free(struct rdma_user_mmap_entry *entry);

/* What userspace needs to map a user ring. */
static inline void mrc_queue_info(const struct mrc_queue *q,
				  struct metaroce_queue_info *info)
{
	info->mmap_offset = rdma_user_mmap_get_offset(&q->mmap->rdma);
	info->mmap_size = q->size;
	info->num = q->num;
	info->slot_size = q->elem_size;
}

/*
 * The producer index userspace published (a user SQ, RQ or SRQ), or
 * @fallback when it would overrun the @room free slots.
 */
static inline u32 mrc_queue_user_producer(const struct mrc_queue *uq,
					  u32 prod, u32 room)
{
	/* pairs with userspace's store-release after filling its slots */
	u32 uprod = smp_load_acquire(&uq->hdr->producer);

	return uprod - prod > room ? prod : uprod;
}

static inline void mrc_queue_set_flags(struct mrc_queue *q, u32 flags)
{
	WRITE_ONCE(q->hdr->flags, flags);
}

/*
 * Publish an index in the shared header. Release ordering: a reader that
 * sees the new index (with an acquire load) also sees the slot contents
 * written before it. Kernel-only rings do not need it; shared ones will.
 */
static inline void mrc_queue_publish(u32 *shared, u32 index)
{
	/* pairs with the reader's smp_load_acquire() of the index */
	smp_store_release(shared, index);
}

static inline u32 mrc_queue_count(const struct mrc_queue *q)
{
	return q->prod - q->cons;
}

static inline bool mrc_queue_empty(const struct mrc_queue *q)
{
	return q->prod == q->cons;
}

static inline bool mrc_queue_full(const struct mrc_queue *q)
{
	return mrc_queue_count(q) >= q->num;
}

/* Slot of a free-running index; callers keep the index within [cons, prod]. */
static inline void *mrc_queue_at(const struct mrc_queue *q, u32 index)
{
	return q->elems + (size_t)(index & q->mask) * q->elem_size;
}

/* Next free slot, or NULL when the ring is full. */
static inline void *mrc_queue_producer_slot(const struct mrc_queue *q)
{
	return mrc_queue_full(q) ? NULL : mrc_queue_at(q, q->prod);
}

/* Publish the slot returned by mrc_queue_producer_slot(). */
static inline void mrc_queue_produce(struct mrc_queue *q)
{
	q->prod++;
	mrc_queue_publish(&q->hdr->producer, q->prod);
}

/* Oldest element, or NULL when the ring is empty. */
static inline void *mrc_queue_consumer_slot(const struct mrc_queue *q)
{
	return mrc_queue_empty(q) ? NULL : mrc_queue_at(q, q->cons);
}

/* Release the oldest element's slot. */
static inline void mrc_queue_consume(struct mrc_queue *q)
{
	q->cons++;
	mrc_queue_publish(&q->hdr->consumer, q->cons);
}

/*
 * Take over the consumer index userspace published (a user CQ). Returns
 * false, keeping the old one, when the value cannot be right.
 */
static inline bool mrc_queue_sync_user_consumer(struct mrc_queue *q)
{
	/* pairs with userspace's store-release after reading its slots */
	u32 cons = smp_load_acquire(&q->hdr->consumer);

	if (q->prod - cons > q->num)
		return false;
	q->cons = cons;
	return true;
}

#endif /* _MRC_QUEUE_H */
