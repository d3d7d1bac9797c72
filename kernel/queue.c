// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ring allocation for send, receive, shared receive and completion queues.
 * The element layouts live with their users (verbs.h); this file only
 * knows slots and indices.
 */

#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "queue.h"

/* Larger rings are refused before any size arithmetic can overflow. */
#define MRC_QUEUE_MAX_ELEMS	BIT(20)

int mrc_queue_init(struct mrc_queue *q, u32 min_elems, u32 elem_size)
{
	u32 num = roundup_pow_of_two(max(min_elems, 1U));
	size_t size;

	if (min_elems > MRC_QUEUE_MAX_ELEMS || !elem_size || elem_size % 8)
		return -EINVAL;

	size = size_add(sizeof(struct mrc_queue_hdr),
			array_size(num, elem_size));
	if (size == SIZE_MAX)
		return -EINVAL;

	/*
	 * vmalloc rather than kmalloc: rings of a few MiB are normal and
	 * the same area type can be mapped to userspace later.
	 */
	q->hdr = vzalloc(size);
	if (!q->hdr)
		return -ENOMEM;

	q->elems = (void *)(q->hdr + 1);
	q->num = num;
	q->mask = num - 1;
	q->elem_size = elem_size;
	q->prod = 0;
	q->cons = 0;
	q->size = size;
	return 0;
}

void mrc_queue_free(struct mrc_queue *q)
{
	vfree(q->hdr);
	q->hdr = NULL;
	q->elems = NULL;
}

/*
 * Move the outstanding elements of @src, oldest first, into the empty ring
 * @dst (resize). The caller holds the lock that serialises both rings and
 * frees @src afterwards.
 */
int mrc_queue_move(struct mrc_queue *dst, struct mrc_queue *src)
{
	u32 i, count = mrc_queue_count(src);

	if (dst->elem_size != src->elem_size || count > dst->num ||
	    !mrc_queue_empty(dst))
		return -EINVAL;

	for (i = 0; i < count; i++)
		memcpy(mrc_queue_at(dst, i), mrc_queue_at(src, src->cons + i),
		       src->elem_size);

	dst->cons = 0;
	dst->prod = count;
	mrc_queue_publish(&dst->hdr->consumer, 0);
	mrc_queue_publish(&dst->hdr->producer, count);
	return 0;
}
