// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ring allocation for send, receive, shared receive and completion queues.
 * The element layouts live with their users (verbs.h); this file only
 * knows slots and indices.
 */

#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "kcompat.h"
#include "queue.h"

/* Larger rings are refused before any size arithmetic can overflow. */
#define MRC_QUEUE_MAX_ELEMS	BIT(20)

/*
 * Rings are charged to the memory cgroup of whoever creates them: a
 * process asking for a few QPs of a million entries pays for them, as
 * for any other memory it makes the kernel hold. The kernel's private
 * copy of a process's ring is charged too, being as large.
 */
static void *mrc_queue_alloc(size_t size)
{
	return __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
}

static int mrc_queue_size(u32 min_elems, u32 elem_size, u32 *num,
			  size_t *size)
{
	if (min_elems > MRC_QUEUE_MAX_ELEMS || !elem_size || elem_size % 8)
		return -EINVAL;
	*num = roundup_pow_of_two(max(min_elems, 1U));
	*size = size_add(sizeof(struct metaroce_queue_hdr),
			 array_size(*num, elem_size));
	return *size == SIZE_MAX ? -EINVAL : 0;
}

static void mrc_queue_setup(struct mrc_queue *q, void *mem, u32 num,
			    u32 elem_size, size_t size)
{
	q->hdr = mem;
	q->elems = (void *)(q->hdr + 1);
	q->num = num;
	q->mask = num - 1;
	q->elem_size = elem_size;
	q->prod = 0;
	q->cons = 0;
	q->size = size;
	q->mmap = NULL;
}

int mrc_queue_init(struct mrc_queue *q, u32 min_elems, u32 elem_size)
{
	size_t size;
	void *mem;
	u32 num;
	int err;

	err = mrc_queue_size(min_elems, elem_size, &num, &size);
	if (err)
		return err;
	/* vmalloc: rings of a few MiB are normal */
	mem = mrc_queue_alloc(size);
	if (!mem)
		return -ENOMEM;
	mrc_queue_setup(q, mem, num, elem_size, size);
	return 0;
}

/* A ring userspace maps: same layout, whole pages, zeroed. */
int mrc_queue_init_user(struct mrc_queue *q, struct ib_ucontext *uctx,
			u32 min_elems, u32 elem_size)
{
	struct mrc_mmap *m;
	size_t size;
	void *mem;
	u32 num;
	int err;

	err = mrc_queue_size(min_elems, elem_size, &num, &size);
	if (err)
		return err;
	size = PAGE_ALIGN(size);
	mem = mrc_queue_alloc(size);
	if (!mem)
		return -ENOMEM;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		vfree(mem);
		return -ENOMEM;
	}
	m->addr = mem;
	err = rdma_user_mmap_entry_insert(uctx, &m->rdma, size);
	if (err) {
		kfree(m);
		vfree(mem);
		return err;
	}
	mrc_queue_setup(q, mem, num, elem_size, size);
	q->mmap = m;
	return 0;
}

void mrc_queue_free(struct mrc_queue *q)
{
	if (q->mmap)
		/* the memory goes in mrc_mmap_free(), once nobody maps it */
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->hdr);
	q->hdr = NULL;
	q->elems = NULL;
	q->mmap = NULL;
}

/*
 * Map the whole of @vma (its length checked against the ring's) to the
 * zeroed vmalloc pages at @addr. remap_vmalloc_range() would, but wants
 * VM_USERMAP, which only vmalloc_user() sets, and the kernel exports no
 * accounted vmalloc_user(): so insert the pages as it does. Each mapped
 * page holds its own reference, which keeps it past vfree().
 */
static int mrc_queue_map_pages(struct vm_area_struct *vma, void *addr)
{
	unsigned long off, len = vma->vm_end - vma->vm_start;
	int err;

	for (off = 0; off < len; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(addr + off));
		if (err)
			return err;
	}
	/* as remap_vmalloc_range() */
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

int mrc_queue_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct mrc_mmap *m;
	int err;

	/* checks VM_SHARED and that the length is the whole ring */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	m = container_of(entry, struct mrc_mmap, rdma);
	err = mrc_queue_map_pages(vma, m->addr);
	rdma_user_mmap_entry_put(entry);
	return err;
}

void mrc_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct mrc_mmap *m = container_of(entry, struct mrc_mmap, rdma);

	vfree(m->addr);
	kfree(m);
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
