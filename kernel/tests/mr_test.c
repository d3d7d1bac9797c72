// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: memory-region checks and byte movement (mr.c, mr_copy.c) on bare
 * MRs, no device.
 *
 * mrc_mr_check() is the gate before any byte is placed: these cases try
 * every way past it (stale key, foreign PD, missing right, range off either
 * end, address arithmetic that wraps). mrc_mr_copy() is then checked to put
 * bytes exactly where the page list says, across page boundaries.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/slab.h>

#include "../verbs.h"

#define MRC_T_PAGES	3

static struct ib_pd mrc_t_pd, mrc_t_other_pd;

static void mrc_mr_range_within(struct kunit *test)
{
	const u64 top = ~0ull;

	KUNIT_EXPECT_TRUE(test, mrc_range_within(0x1000, 0x100, 0x1000, 0x100));
	KUNIT_EXPECT_TRUE(test, mrc_range_within(0x1000, 0x100, 0x10ff, 1));
	KUNIT_EXPECT_TRUE(test, mrc_range_within(0x1000, 0x100, 0x1100, 0));
	KUNIT_EXPECT_FALSE(test, mrc_range_within(0x1000, 0x100, 0xfff, 1));
	KUNIT_EXPECT_FALSE(test, mrc_range_within(0x1000, 0x100, 0x10ff, 2));
	KUNIT_EXPECT_FALSE(test, mrc_range_within(0x1000, 0x100, 0x1000, 0x101));
	KUNIT_EXPECT_FALSE(test, mrc_range_within(0x1000, 0x100, 0x1101, 0));
	/* Sums that would wrap 2^64 must not sneak back into range. */
	KUNIT_EXPECT_FALSE(test, mrc_range_within(0x1000, 0x100, 0x1080, top));
	KUNIT_EXPECT_FALSE(test, mrc_range_within(0x1000, 0x100, top, 0x1001));
	KUNIT_EXPECT_TRUE(test, mrc_range_within(top - 9, 10, top, 1));
	KUNIT_EXPECT_FALSE(test, mrc_range_within(top - 9, 10, top, 2));
	KUNIT_EXPECT_TRUE(test, mrc_range_within(0, top, 5, top - 5));
	KUNIT_EXPECT_FALSE(test, mrc_range_within(0, top, 5, top - 4));
}

static void mrc_mr_access_rules(struct kunit *test)
{
	const int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;

	KUNIT_EXPECT_TRUE(test, mrc_access_allows(rw, IB_ACCESS_REMOTE_WRITE));
	KUNIT_EXPECT_TRUE(test, mrc_access_allows(rw, IB_ACCESS_LOCAL_WRITE));
	KUNIT_EXPECT_TRUE(test, mrc_access_allows(rw, 0));	/* local read */
	KUNIT_EXPECT_FALSE(test, mrc_access_allows(rw, IB_ACCESS_REMOTE_READ));
	KUNIT_EXPECT_FALSE(test, mrc_access_allows(rw,
						   IB_ACCESS_REMOTE_ATOMIC));
	KUNIT_EXPECT_FALSE(test, mrc_access_allows(rw, IB_ACCESS_REMOTE_WRITE |
						   IB_ACCESS_REMOTE_READ));
	/* A request for a right no operation needs is refused outright. */
	KUNIT_EXPECT_FALSE(test, mrc_access_allows(~0, IB_ACCESS_MW_BIND));
}

/* A valid fast-reg MR over MRC_T_PAGES pages of kernel memory. */
static struct mrc_mr *mrc_t_mr(struct kunit *test, u64 iova, u32 first)
{
	struct mrc_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	mr->page_va = kunit_kcalloc(test, MRC_T_PAGES, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr->page_va);
	for (i = 0; i < MRC_T_PAGES; i++) {
		void *p = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
		mr->page_va[i] = (uintptr_t)p;
	}
	spin_lock_init(&mr->lock);
	refcount_set(&mr->ref, 1);
	mr->ibmr.pd = &mrc_t_pd;
	mr->type = IB_MR_TYPE_MEM_REG;
	mr->state = MRC_MR_VALID;
	mr->key = 0x1234;
	mr->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		     IB_ACCESS_REMOTE_ATOMIC;
	mr->iova = iova;
	mr->first_offset = first;
	mr->length = MRC_T_PAGES * PAGE_SIZE - first;
	mr->npages = MRC_T_PAGES;
	mr->max_pages = MRC_T_PAGES;
	mr->page_shift = PAGE_SHIFT;
	return mr;
}

static void mrc_mr_check_gate(struct kunit *test)
{
	struct mrc_mr *mr = mrc_t_mr(test, 0x70000000, 0);
	const int w = IB_ACCESS_REMOTE_WRITE;
	u64 end = mr->iova + mr->length;

	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1234, mr->iova,
					   mr->length, w), 0);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1234, end - 8, 8,
					   IB_ACCESS_REMOTE_ATOMIC), 0);
	/* key: another MR, or this MR's previous registration */
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1334, mr->iova, 1,
					   w), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1233, mr->iova, 1,
					   w), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_other_pd, 0x1234,
					   mr->iova, 1, w), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1234, mr->iova, 1,
					   IB_ACCESS_REMOTE_READ), -EACCES);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1234, end - 8, 9,
					   w), -ERANGE);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1234,
					   mr->iova - 1, 2, w), -ERANGE);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1234, end, ~0ull,
					   w), -ERANGE);
}

static void mrc_mr_check_refuses_unusable_states(struct kunit *test)
{
	struct mrc_mr *mr = mrc_t_mr(test, 0x70000000, 0);

	mr->state = MRC_MR_FREE;	/* invalidated, not re-registered */
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1234, mr->iova, 1,
					   0), -EINVAL);
	mr->state = MRC_MR_INVALID;	/* being torn down */
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1234, mr->iova, 1,
					   0), -EINVAL);
}

static void mrc_mr_copy_crosses_pages(struct kunit *test)
{
	const u32 first = 0x100;
	struct mrc_mr *mr = mrc_t_mr(test, 0x7000000000ull, first);
	const u64 at = 4000, len = 5000;	/* spans three pages' worth */
	u8 *src = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *back = kunit_kzalloc(test, len, GFP_KERNEL);
	u64 i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, src);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, back);
	for (i = 0; i < len; i++)
		src[i] = (u8)(i * 7 + 1);
	KUNIT_ASSERT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x1234,
					   mr->iova + at, len,
					   IB_ACCESS_REMOTE_WRITE), 0);
	KUNIT_ASSERT_EQ(test, mrc_mr_copy(mr, mr->iova + at, src, len,
					  MRC_COPY_TO_MR), 0);

	/* Byte i of the MR lives at page (first + i) / PAGE_SIZE. */
	for (i = 0; i < MRC_T_PAGES * PAGE_SIZE; i++) {
		u8 *page = (u8 *)(uintptr_t)mr->page_va[i / PAGE_SIZE];
		u64 mr_off = i - first;
		u8 want = i >= first + at && i < first + at + len ?
			  src[mr_off - at] : 0;

		KUNIT_ASSERT_EQ_MSG(test, page[i % PAGE_SIZE], want,
				    "page byte %llu", i);
	}
	KUNIT_ASSERT_EQ(test, mrc_mr_copy(mr, mr->iova + at, back, len,
					  MRC_COPY_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, memcmp(src, back, len), 0);
}

static void mrc_mr_copy_bounds_defence(struct kunit *test)
{
	struct mrc_mr *mr = mrc_t_mr(test, 0x10000, 0);
	u8 buf[16] = { 0 };

	/* Callers must check first; if they do not, still no stray access. */
	KUNIT_EXPECT_EQ(test, mrc_mr_copy(mr, mr->iova - 1, buf, 1,
					  MRC_COPY_TO_MR), -ERANGE);
	KUNIT_EXPECT_EQ(test, mrc_mr_copy(mr, mr->iova + MRC_T_PAGES *
					  PAGE_SIZE, buf, 1, MRC_COPY_TO_MR),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, mrc_mr_copy(mr, mr->iova, buf, 0,
					  MRC_COPY_TO_MR), 0);
}

static void mrc_mr_atomics(struct kunit *test)
{
	struct mrc_mr *mr = mrc_t_mr(test, 0x20000, 0x40);
	u64 *word = (u64 *)(uintptr_t)(mr->page_va[1] + 0x40 + 8);
	u64 va = mr->iova + PAGE_SIZE + 8, orig = 0;

	*word = 100;
	KUNIT_ASSERT_EQ(test, mrc_mr_atomic(mr, va, false, 5, 0, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 100ull);
	KUNIT_EXPECT_EQ(test, *word, 105ull);

	/* compare-and-swap: only when equal */
	KUNIT_ASSERT_EQ(test, mrc_mr_atomic(mr, va, true, 99, 7, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 105ull);
	KUNIT_EXPECT_EQ(test, *word, 105ull);
	KUNIT_ASSERT_EQ(test, mrc_mr_atomic(mr, va, true, 105, 7, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 105ull);
	KUNIT_EXPECT_EQ(test, *word, 7ull);

	/* IBA: atomics need 8-byte aligned addresses */
	KUNIT_EXPECT_EQ(test, mrc_mr_atomic(mr, va + 4, false, 1, 0, &orig),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, *word, 7ull);
}

/*
 * An MR over a dma-buf (mr_dmabuf.c) reaches its bytes through the
 * exporter's mapping only: byte va is kva + (va - iova), the page list
 * unused; atomics refuse a word the mapping leaves unaligned even where
 * va is aligned.
 */
static void mrc_mr_copy_mapped(struct kunit *test)
{
	u8 *mem = kunit_kzalloc(test, 3 * PAGE_SIZE, GFP_KERNEL);
	struct mrc_mr *mr = mrc_t_mr(test, 0x7f0000000000ull, 0);
	u64 at = PAGE_SIZE - 50, orig, *word;
	u8 src[100], back[100];
	size_t i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	mr->type = IB_MR_TYPE_USER;
	mr->max_pages = 0;	/* any use of the page list faults */
	mr->kva = mem + 16;
	mr->length = 2 * PAGE_SIZE;
	for (i = 0; i < sizeof(src); i++)
		src[i] = i + 1;

	KUNIT_ASSERT_EQ(test, mrc_mr_copy(mr, mr->iova + at, src, sizeof(src),
					  MRC_COPY_TO_MR), 0);
	KUNIT_EXPECT_EQ(test, memcmp(mem + 16 + at, src, sizeof(src)), 0);
	KUNIT_EXPECT_EQ(test, mem[16 + at - 1], 0);
	KUNIT_EXPECT_EQ(test, mem[16 + at + sizeof(src)], 0);
	KUNIT_ASSERT_EQ(test, mrc_mr_copy(mr, mr->iova + at, back, sizeof(back),
					  MRC_COPY_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, memcmp(back, src, sizeof(src)), 0);
	/* below iova: refused, never placed before the mapping */
	KUNIT_EXPECT_EQ(test, mrc_mr_copy(mr, mr->iova - 1, src, 1,
					  MRC_COPY_TO_MR), -ERANGE);

	word = (u64 *)(mem + 16 + 64);
	*word = 5;
	KUNIT_ASSERT_EQ(test, mrc_mr_atomic(mr, mr->iova + 64, false, 2, 0,
					    &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 5ull);
	KUNIT_EXPECT_EQ(test, *word, 7ull);
	mr->kva = mem + 4;	/* a buffer offset of 4 */
	KUNIT_EXPECT_EQ(test, mrc_mr_atomic(mr, mr->iova + 64, false, 1, 0,
					    &orig), -EINVAL);
}

static void mrc_mr_fast_reg_rotates_key(struct kunit *test)
{
	struct mrc_mr *mr = mrc_t_mr(test, 0, 0);

	mr->state = MRC_MR_FREE;
	mr->key = 0x500;
	mr->map_shift = PAGE_SHIFT;
	mr->map_offset = 0x10;
	mr->ibmr.iova = 0x9000010;
	mr->ibmr.length = 2 * PAGE_SIZE;

	/* another MR's index, a missing LOCAL_WRITE, or too long: refused */
	KUNIT_EXPECT_EQ(test, mrc_mr_fast_reg(&mrc_t_pd, mr, 0x601,
					      IB_ACCESS_LOCAL_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_mr_fast_reg(&mrc_t_pd, mr, 0x501,
					      IB_ACCESS_REMOTE_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_mr_fast_reg(&mrc_t_other_pd, mr, 0x501,
					      IB_ACCESS_LOCAL_WRITE), -EINVAL);
	mr->ibmr.length = MRC_T_PAGES * PAGE_SIZE;	/* > mapped - offset */
	KUNIT_EXPECT_EQ(test, mrc_mr_fast_reg(&mrc_t_pd, mr, 0x501,
					      IB_ACCESS_LOCAL_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, mr->state, MRC_MR_FREE);

	mr->ibmr.length = 2 * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, mrc_mr_fast_reg(&mrc_t_pd, mr, 0x501,
					      IB_ACCESS_LOCAL_WRITE |
					      IB_ACCESS_REMOTE_WRITE), 0);
	KUNIT_EXPECT_EQ(test, mr->state, MRC_MR_VALID);
	KUNIT_EXPECT_EQ(test, mr->ibmr.rkey, 0x501u);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x501, 0x9000010,
					   2 * PAGE_SIZE,
					   IB_ACCESS_REMOTE_WRITE), 0);
	/* the key of the previous registration no longer opens it */
	KUNIT_EXPECT_EQ(test, mrc_mr_check(mr, &mrc_t_pd, 0x500, 0x9000010, 1,
					   IB_ACCESS_REMOTE_WRITE), -EINVAL);
	/* a registered MR cannot be registered again without invalidation */
	KUNIT_EXPECT_EQ(test, mrc_mr_fast_reg(&mrc_t_pd, mr, 0x502,
					      IB_ACCESS_LOCAL_WRITE), -EINVAL);
}

static struct kunit_case mrc_mr_cases[] = {
	KUNIT_CASE(mrc_mr_range_within),
	KUNIT_CASE(mrc_mr_access_rules),
	KUNIT_CASE(mrc_mr_check_gate),
	KUNIT_CASE(mrc_mr_check_refuses_unusable_states),
	KUNIT_CASE(mrc_mr_copy_crosses_pages),
	KUNIT_CASE(mrc_mr_copy_bounds_defence),
	KUNIT_CASE(mrc_mr_atomics),
	KUNIT_CASE(mrc_mr_copy_mapped),
	KUNIT_CASE(mrc_mr_fast_reg_rotates_key),
	{}
};

static struct kunit_suite mrc_mr_suite = {
	.name = "metaroce_mr",
	.test_cases = mrc_mr_cases,
};

kunit_test_suite(mrc_mr_suite);
