// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Moving bytes into and out of memory regions: one MR range, a scatter
 * list of SGEs at any message offset (out-of-order placement needs no
 * state: every packet says where it goes), and 64-bit atomics.
 *
 * None of this decides whether an access is allowed: callers pass ranges
 * that mrc_mr_check() accepted. The translation below still bounds every
 * page index by the page array, so a wrong caller faults here instead of
 * touching memory outside the MR's pages.
 */

#include <linux/highmem.h>
#include <linux/atomic.h>
#include <linux/overflow.h>
#include <linux/skbuff.h>

#include "verbs.h"

struct mrc_xlate {
	u64 iova;
	u32 first_offset;
	u32 page_shift;
};

static void mrc_mr_xlate(struct mrc_mr *mr, struct mrc_xlate *x)
{
	unsigned long flags;

	/* fast registration may change these; take a consistent copy */
	spin_lock_irqsave(&mr->lock, flags);
	x->iova = mr->iova;
	x->first_offset = mr->first_offset;
	x->page_shift = mr->page_shift;
	spin_unlock_irqrestore(&mr->lock, flags);
}

/*
 * The other side of a copy: a flat buffer, or (placement only) received
 * bytes left in an skb's fragments, so that a jumbo frame is copied once,
 * into the MR, rather than gathered first.
 */
struct mrc_copy_io {
	enum mrc_copy_dir dir;
	u8 *buf;
	const struct sk_buff *skb;	/* instead of @buf: @off bytes in */
	int off;
};

static int mrc_copy_chunk(void *mem, struct mrc_copy_io *io, size_t n)
{
	if (io->skb) {
		if (skb_copy_bits(io->skb, io->off, mem, n))
			return -EFAULT;
		io->off += n;
		return 0;
	}
	if (io->dir == MRC_COPY_TO_MR)
		memcpy(mem, io->buf, n);
	else
		memcpy(io->buf, mem, n);
	io->buf += n;
	return 0;
}

static int mrc_mr_copy_io(struct mrc_mr *mr, u64 va, struct mrc_copy_io *io,
			  u64 len)
{
	struct mrc_xlate x;
	u64 offset, page_size;
	int err;

	if (!len)
		return 0;

	if (mr->type == IB_MR_TYPE_DMA)	/* the address is a kernel one */
		return mrc_copy_chunk((void *)(uintptr_t)va, io, len);

	mrc_mr_xlate(mr, &x);
	if (va < x.iova)
		return -ERANGE;
	if (mr->kva)	/* a dma-buf, mapped in one piece */
		return mrc_copy_chunk(mr->kva + (va - x.iova), io, len);
	offset = va - x.iova + x.first_offset;
	page_size = 1ULL << x.page_shift;

	while (len) {
		u64 index = offset >> x.page_shift;
		u64 in_page = offset & (page_size - 1);
		size_t n = min(len, page_size - in_page);

		if (index >= mr->max_pages)
			return -EFAULT;

		if (mr->type == IB_MR_TYPE_USER) {
			struct page *page = mr->pages[index];
			void *kaddr = kmap_local_page(page);

			err = mrc_copy_chunk(kaddr + in_page, io, n);
			kunmap_local(kaddr);
			if (io->dir == MRC_COPY_TO_MR)
				flush_dcache_page(page);
		} else {
			void *kaddr = (void *)(uintptr_t)mr->page_va[index];

			err = mrc_copy_chunk(kaddr + in_page, io, n);
		}
		if (err)
			return err;

		len -= n;
		offset += n;
	}
	return 0;
}

int mrc_mr_copy(struct mrc_mr *mr, u64 va, void *buf, u64 len,
		enum mrc_copy_dir dir)
{
	struct mrc_copy_io io = { .dir = dir, .buf = buf };

	return mrc_mr_copy_io(mr, va, &io, len);
}

int mrc_mr_place_skb(struct mrc_mr *mr, u64 va, const struct sk_buff *skb,
		     int off, u64 len)
{
	struct mrc_copy_io io = { .dir = MRC_COPY_TO_MR, .skb = skb,
				  .off = off };

	return mrc_mr_copy_io(mr, va, &io, len);
}

int mrc_mr_atomic(struct mrc_mr *mr, u64 va, bool cmp_swap, u64 cmp_add,
		  u64 swap, u64 *orig)
{
	struct page *page = NULL;
	struct mrc_xlate x;
	u64 offset, in_page;
	void *kaddr;
	u64 *p;

	if (va & 7)
		return -EINVAL;

	if (mr->type == IB_MR_TYPE_DMA) {
		p = (u64 *)(uintptr_t)va;
		kaddr = NULL;
	} else {
		u64 index;

		mrc_mr_xlate(mr, &x);
		if (va < x.iova)
			return -ERANGE;
		offset = va - x.iova + x.first_offset;
		/* aligned in the MR but not in memory: would straddle pages */
		if (offset & 7)
			return -EINVAL;
		index = offset >> x.page_shift;
		in_page = offset & ((1ULL << x.page_shift) - 1);
		if (mr->kva) {
			kaddr = NULL;
			p = (u64 *)(mr->kva + (va - x.iova));
			/* the buffer's offset need not be aligned like iova */
			if ((uintptr_t)p & 7)
				return -EINVAL;
		} else if (index >= mr->max_pages) {
			return -EFAULT;
		} else if (mr->type == IB_MR_TYPE_USER) {
			page = mr->pages[index];
			kaddr = kmap_local_page(page);
			p = kaddr + in_page;
		} else {
			kaddr = NULL;
			p = (u64 *)(uintptr_t)(mr->page_va[index] + in_page);
		}
	}

	if (cmp_swap)
		*orig = cmpxchg64(p, cmp_add, swap);
	else
		*orig = atomic64_fetch_add(cmp_add, (atomic64_t *)p);

	if (page) {
		kunmap_local(kaddr);
		flush_dcache_page(page);
	}
	return 0;
}

static int mrc_sgl_copy_io(const struct ib_pd *pd, const struct mrc_sge *sge,
			   u32 num_sge, u64 offset, struct mrc_copy_io *io,
			   u64 len)
{
	int need = io->dir == MRC_COPY_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < num_sge && len; i++) {
		u64 n, va;
		struct mrc_mr *mr;
		int err;

		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min_t(u64, len, sge[i].length - offset);
		if (check_add_overflow(sge[i].addr, offset, &va))
			return -ERANGE;

		mr = mrc_mr_get_checked(pd, sge[i].lkey, va, n, need, &err);
		if (!mr)
			return err;
		err = mrc_mr_copy_io(mr, va, io, n);
		mrc_mr_put(mr);
		if (err)
			return err;

		len -= n;
		offset = 0;
	}
	return len ? -ENOSPC : 0;
}

int mrc_sgl_copy(const struct ib_pd *pd, const struct mrc_sge *sge,
		 u32 num_sge, u64 offset, void *buf, u64 len,
		 enum mrc_copy_dir dir)
{
	struct mrc_copy_io io = { .dir = dir, .buf = buf };

	return mrc_sgl_copy_io(pd, sge, num_sge, offset, &io, len);
}

int mrc_sgl_place_skb(const struct ib_pd *pd, const struct mrc_sge *sge,
		      u32 num_sge, u64 offset, const struct sk_buff *skb,
		      int off, u64 len)
{
	struct mrc_copy_io io = { .dir = MRC_COPY_TO_MR, .skb = skb,
				  .off = off };

	return mrc_sgl_copy_io(pd, sge, num_sge, offset, &io, len);
}
