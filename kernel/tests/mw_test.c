// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: memory windows (mw.c) on bare objects and a key table of their
 * own, no device.
 *
 * mrc_mw_bind_check() is tried with every IB bind rule broken once, then
 * mrc_mw_access_check() with every access rule; the table cases bind,
 * use, invalidate and rebind windows next to an MR in one xarray, as the
 * device's key table holds them: an rkey resolves to a window or an MR,
 * an lkey never to a window, and a window counts on its MR while bound.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "../mw.h"

#define MRC_T_MR_INDEX	1
#define MRC_T_MW_INDEX	2
#define MRC_T_IOVA	0x10000000ull
#define MRC_T_LEN	0x10000ull
#define MRC_T_QPN	77
#define MRC_T_REMOTE	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_ATOMIC)

static struct ib_pd mrc_t_pd, mrc_t_pd2;

static struct mrc_mr *mrc_t_mw_mr(struct kunit *test)
{
	struct mrc_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	spin_lock_init(&mr->lock);
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	mr->ibmr.pd = &mrc_t_pd;
	mr->type = IB_MR_TYPE_USER;
	mr->state = MRC_MR_VALID;
	mr->key = MRC_T_MR_INDEX << 8 | 0x11;
	mr->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND;
	mr->iova = MRC_T_IOVA;
	mr->length = MRC_T_LEN;
	return mr;
}

static struct mrc_mw *mrc_t_mw(struct kunit *test, enum ib_mw_type type)
{
	struct mrc_mw *mw = kunit_kzalloc(test, sizeof(*mw), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mw);
	mw->ibmw.type = type;
	mw->ibmw.pd = &mrc_t_pd;
	mw->key = MRC_T_MW_INDEX << 8 | 0x22;
	return mw;
}

/* A bind of @mw to @mr that keeps every rule. */
static struct mrc_bind_wr mrc_t_bind(const struct mrc_mw *mw,
				     const struct mrc_mr *mr)
{
	struct mrc_bind_wr b = {
		.addr = MRC_T_IOVA + 0x1000,
		.length = 0x1000,
		.mw_rkey = mw->key,
		.rkey = (mw->key & ~0xffu) | 0x23,
		.mr_lkey = mr->key,
		.access = MRC_T_REMOTE,
	};

	return b;
}

/* mrc_mw_resolve() of the remote address @va, which it does not return */
static struct mrc_mr *mrc_t_mw_to_mr(struct xarray *keys,
				     const struct ib_pd *pd, u32 qpn, u32 rkey,
				     u64 va, u64 len, int need, int *err)
{
	return mrc_mw_resolve(keys, pd, qpn, rkey, &va, len, need, err);
}

static void mrc_mw_bind_rules(struct kunit *test)
{
	struct mrc_mw *mw1 = mrc_t_mw(test, IB_MW_TYPE_1);
	struct mrc_mw *mw2 = mrc_t_mw(test, IB_MW_TYPE_2);
	struct mrc_mr *mr = mrc_t_mw_mr(test);
	struct mrc_bind_wr good = mrc_t_bind(mw2, mr), b;

	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &good), 0);
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw1, mr, &mrc_t_pd, &good), 0);

	/* keys: stale window key, new key of another index, wrong lkey */
	b = good;
	b.mw_rkey ^= 1;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), -EINVAL);
	b = good;
	b.rkey += 0x100;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), -EINVAL);
	b = good;
	b.mr_lkey ^= 1;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, NULL, &mrc_t_pd, &good),
			-EINVAL);

	/* PDs: the QP's against the window's and the MR's */
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd2, &good),
			-EINVAL);
	mr->ibmr.pd = &mrc_t_pd2;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &good),
			-EINVAL);
	mr->ibmr.pd = &mrc_t_pd;

	/* MR state and rights: C10-73, C10-74 */
	mr->state = MRC_MR_INVALID;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &good),
			-EINVAL);
	mr->state = MRC_MR_VALID;
	mr->no_bind = true;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &good),
			-EINVAL);
	mr->no_bind = false;
	mr->access = IB_ACCESS_LOCAL_WRITE;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &good),
			-EACCES);
	mr->access = IB_ACCESS_MW_BIND;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &good),
			-EACCES);
	b = good;
	b.access = IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), -EACCES);
	b.access = IB_ACCESS_REMOTE_READ;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), 0);
	mr->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND;

	/* flags a window cannot carry; zero-based for type 2 only */
	b = good;
	b.access |= IB_ZERO_BASED;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), 0);
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw1, mr, &mrc_t_pd, &b), -EINVAL);
	b.access = IB_ACCESS_MW_BIND;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), -EINVAL);

	/* C10-75: the range, its ends and sums past 2^64 */
	b = good;
	b.addr = MRC_T_IOVA + MRC_T_LEN - 0x1000;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), 0);
	b.addr++;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), -ERANGE);
	b.addr = MRC_T_IOVA - 1;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), -ERANGE);
	b.addr = MRC_T_IOVA + 0x10;
	b.length = ~0ull - 0x8;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), -ERANGE);

	/* type 2: from free only, never of length 0; type 1: 0 unbinds */
	b = good;
	b.length = 0;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &b), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw1, NULL, &mrc_t_pd, &b), 0);
	mw2->mr = mr;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw2, mr, &mrc_t_pd, &good),
			-EINVAL);
	mw1->mr = mr;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind_check(mw1, mr, &mrc_t_pd, &good), 0);
}

static void mrc_mw_access_rules(struct kunit *test)
{
	struct mrc_mw *mw = mrc_t_mw(test, IB_MW_TYPE_2);
	const u64 a = MRC_T_IOVA + 0x1000;
	const u32 k = MRC_T_MW_INDEX << 8 | 0x22;
	const int w = IB_ACCESS_REMOTE_WRITE;

	/* unbound: nothing */
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd, MRC_T_QPN, k,
						  a, 8, w), -EINVAL);
	mw->mr = mrc_t_mw_mr(test);
	mw->qpn = MRC_T_QPN;
	mw->addr = a;
	mw->length = 0x1000;
	mw->access = IB_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd, MRC_T_QPN, k,
						  a, 0x1000, w), 0);
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd, MRC_T_QPN,
						  k ^ 1, a, 8, w), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd2, MRC_T_QPN, k,
						  a, 8, w), -EINVAL);
	/* a type 2 window belongs to its QP; a type 1 to its PD */
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd, MRC_T_QPN + 1,
						  k, a, 8, w), -EINVAL);
	mw->ibmw.type = IB_MW_TYPE_1;
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd, MRC_T_QPN + 1,
						  k, a, 8, w), 0);
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd, MRC_T_QPN, k,
						  a, 8, IB_ACCESS_REMOTE_READ),
			-EACCES);
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd, MRC_T_QPN, k,
						  a, 8, IB_ACCESS_REMOTE_ATOMIC),
			-EACCES);
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd, MRC_T_QPN, k,
						  a + 0xff8, 9, w), -ERANGE);
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd, MRC_T_QPN, k,
						  a - 1, 2, w), -ERANGE);
	KUNIT_EXPECT_EQ(test, mrc_mw_access_check(mw, &mrc_t_pd, MRC_T_QPN, k,
						  a + 8, ~0ull, w), -ERANGE);
}

struct mrc_t_table {
	struct xarray keys;
	struct mrc_mr *mr;
	struct mrc_mw *mw;
};

static void mrc_t_table_init(struct kunit *test, struct mrc_t_table *t)
{
	t->mr = mrc_t_mw_mr(test);
	t->mw = mrc_t_mw(test, IB_MW_TYPE_2);
	xa_init_flags(&t->keys, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	KUNIT_ASSERT_EQ(test, xa_insert_irq(&t->keys, MRC_T_MR_INDEX, t->mr,
					    GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, xa_insert_irq(&t->keys, MRC_T_MW_INDEX,
					    xa_tag_pointer(t->mw, MRC_KEY_TAG_MW),
					    GFP_KERNEL), 0);
}

static void mrc_mw_key_table(struct kunit *test)
{
	struct mrc_t_table t;
	struct mrc_bind_wr b;
	struct mrc_mr *got;
	u32 rkey;
	int err;

	mrc_t_table_init(test, &t);
	b = mrc_t_bind(t.mw, t.mr);
	rkey = b.rkey;

	/* an lkey never names a window; the rkey of each names the right one */
	KUNIT_EXPECT_NULL(test, mrc_mr_lookup(&t.keys, t.mw->key));
	KUNIT_EXPECT_TRUE(test, mrc_key_is_mw(&t.keys, t.mw->key));
	KUNIT_EXPECT_FALSE(test, mrc_key_is_mw(&t.keys, t.mr->key));
	KUNIT_EXPECT_FALSE(test, mrc_key_is_mw(&t.keys, 3 << 8));

	/* a free window gives nothing */
	got = mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, MRC_T_QPN, t.mw->key, b.addr,
			     8, IB_ACCESS_REMOTE_WRITE, &err);
	KUNIT_EXPECT_NULL(test, got);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);

	/* bound: the new key resolves to the MR, which counts the window */
	KUNIT_ASSERT_EQ(test, mrc_mw_bind(&t.keys, &mrc_t_pd, MRC_T_QPN, &b), 0);
	KUNIT_EXPECT_EQ(test, t.mw->key, rkey);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.mr->mw_bound), 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&t.mr->ref), 1);
	got = mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, MRC_T_QPN, rkey, b.addr,
			     b.length, IB_ACCESS_REMOTE_READ, &err);
	KUNIT_EXPECT_PTR_EQ(test, got, t.mr);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&t.mr->ref), 2);
	if (got)
		mrc_mr_put(got);
	/* the old key, another QP, past the window: refused */
	KUNIT_EXPECT_NULL(test, mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, MRC_T_QPN,
					       b.mw_rkey, b.addr, 8,
					       IB_ACCESS_REMOTE_WRITE, &err));
	KUNIT_EXPECT_NULL(test, mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, MRC_T_QPN + 1,
					       rkey, b.addr, 8,
					       IB_ACCESS_REMOTE_WRITE, &err));
	KUNIT_EXPECT_NULL(test, mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, MRC_T_QPN,
					       rkey, b.addr + b.length, 1,
					       IB_ACCESS_REMOTE_WRITE, &err));
	KUNIT_EXPECT_EQ(test, err, -ERANGE);

	/* a bound type 2 window binds no more */
	b.mw_rkey = rkey;
	b.rkey = rkey + 1;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind(&t.keys, &mrc_t_pd, MRC_T_QPN, &b),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.mr->mw_bound), 1);

	/* remote invalidation only from its QP; then it is free */
	KUNIT_EXPECT_EQ(test, mrc_key_invalidate(&t.keys, &mrc_t_pd,
						 MRC_T_QPN + 1, rkey, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_key_invalidate(&t.keys, &mrc_t_pd2, MRC_T_QPN,
						 rkey, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_key_invalidate(&t.keys, &mrc_t_pd, MRC_T_QPN,
						 rkey, true), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.mr->mw_bound), 0);
	KUNIT_EXPECT_NULL(test, mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, MRC_T_QPN,
					       rkey, b.addr, 8,
					       IB_ACCESS_REMOTE_WRITE, &err));
	KUNIT_EXPECT_EQ(test, mrc_key_invalidate(&t.keys, &mrc_t_pd, MRC_T_QPN,
						 rkey, false), -EINVAL);
	/* a user MR is no fast-reg MR: LOCAL_INV of its key fails */
	KUNIT_EXPECT_EQ(test, mrc_key_invalidate(&t.keys, &mrc_t_pd, MRC_T_QPN,
						 t.mr->key, false), -EINVAL);

	/* free again: rebinds with the next key */
	KUNIT_EXPECT_EQ(test, mrc_mw_bind(&t.keys, &mrc_t_pd, MRC_T_QPN, &b), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.mr->mw_bound), 1);
	KUNIT_EXPECT_EQ(test, mrc_key_invalidate(&t.keys, &mrc_t_pd, MRC_T_QPN,
						 rkey + 1, false), 0);
	xa_destroy(&t.keys);
}

/*
 * A zero-based window: remote addresses are offsets, [0, length), which
 * resolve to the bound range of the MR; its own addresses are past it.
 * The flag leaves with the binding.
 */
static void mrc_mw_zero_based(struct kunit *test)
{
	struct mrc_t_table t;
	struct mrc_bind_wr b;
	struct mrc_mr *got;
	u64 va;
	int err;

	mrc_t_table_init(test, &t);
	b = mrc_t_bind(t.mw, t.mr);
	b.access = IB_ACCESS_REMOTE_WRITE | IB_ZERO_BASED;
	KUNIT_ASSERT_EQ(test, mrc_mw_bind(&t.keys, &mrc_t_pd, MRC_T_QPN, &b), 0);
	KUNIT_EXPECT_TRUE(test, t.mw->zero_based);
	KUNIT_EXPECT_EQ(test, t.mw->access, IB_ACCESS_REMOTE_WRITE);

	va = 0x10;
	got = mrc_mw_resolve(&t.keys, &mrc_t_pd, MRC_T_QPN, b.rkey, &va, 8,
			     IB_ACCESS_REMOTE_WRITE, &err);
	KUNIT_EXPECT_PTR_EQ(test, got, t.mr);
	KUNIT_EXPECT_EQ(test, va, b.addr + 0x10);
	if (got)
		mrc_mr_put(got);
	va = b.length - 8;
	got = mrc_mw_resolve(&t.keys, &mrc_t_pd, MRC_T_QPN, b.rkey, &va, 8,
			     IB_ACCESS_REMOTE_WRITE, &err);
	KUNIT_EXPECT_PTR_EQ(test, got, t.mr);
	KUNIT_EXPECT_EQ(test, va, b.addr + b.length - 8);
	if (got)
		mrc_mr_put(got);
	/* one past its end, the MR's own addresses, a sum past 2^64 */
	KUNIT_EXPECT_NULL(test, mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, MRC_T_QPN,
					       b.rkey, b.length - 8, 9,
					       IB_ACCESS_REMOTE_WRITE, &err));
	KUNIT_EXPECT_EQ(test, err, -ERANGE);
	KUNIT_EXPECT_NULL(test, mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, MRC_T_QPN,
					       b.rkey, b.addr, 8,
					       IB_ACCESS_REMOTE_WRITE, &err));
	KUNIT_EXPECT_NULL(test, mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, MRC_T_QPN,
					       b.rkey, 8, ~0ull,
					       IB_ACCESS_REMOTE_WRITE, &err));
	KUNIT_EXPECT_NULL(test, mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, MRC_T_QPN,
					       b.rkey, 0, 8,
					       IB_ACCESS_REMOTE_READ, &err));
	KUNIT_EXPECT_EQ(test, err, -EACCES);

	KUNIT_EXPECT_EQ(test, mrc_key_invalidate(&t.keys, &mrc_t_pd, MRC_T_QPN,
						 b.rkey, false), 0);
	KUNIT_EXPECT_FALSE(test, t.mw->zero_based);
	xa_destroy(&t.keys);
}

/* Type 1: rebind moves the count between MRs, a bind of length 0 unbinds. */
static void mrc_mw_type1_rebind(struct kunit *test)
{
	struct mrc_t_table t;
	struct mrc_mr *mr2 = mrc_t_mw_mr(test);
	struct mrc_bind_wr b;
	int err;

	mrc_t_table_init(test, &t);
	t.mw->ibmw.type = IB_MW_TYPE_1;
	mr2->key = 4 << 8 | 0x44;
	KUNIT_ASSERT_EQ(test, xa_insert_irq(&t.keys, 4, mr2, GFP_KERNEL), 0);

	b = mrc_t_bind(t.mw, t.mr);
	KUNIT_EXPECT_EQ(test, mrc_mw_bind(&t.keys, &mrc_t_pd, 0, &b), 0);
	b.mw_rkey = b.rkey;
	b.rkey++;
	b.mr_lkey = mr2->key;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind(&t.keys, &mrc_t_pd, 0, &b), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.mr->mw_bound), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&mr2->mw_bound), 1);
	/* any QP of the PD may use it; nobody may invalidate it */
	KUNIT_EXPECT_PTR_EQ(test, mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, 999, b.rkey,
						 b.addr, 8,
						 IB_ACCESS_REMOTE_ATOMIC, &err),
			    mr2);
	mrc_mr_put(mr2);
	KUNIT_EXPECT_EQ(test, mrc_key_invalidate(&t.keys, &mrc_t_pd, 0, b.rkey,
						 false), -EINVAL);

	b.mw_rkey = b.rkey;
	b.rkey++;
	b.length = 0;
	KUNIT_EXPECT_EQ(test, mrc_mw_bind(&t.keys, &mrc_t_pd, 0, &b), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&mr2->mw_bound), 0);
	KUNIT_EXPECT_NULL(test, mrc_t_mw_to_mr(&t.keys, &mrc_t_pd, 0, b.rkey,
					       b.addr, 8,
					       IB_ACCESS_REMOTE_READ, &err));
	xa_destroy(&t.keys);
}

/*
 * A user BIND_MW or LOCAL_INV slot: the bind is copied for mrc_mw_bind()
 * to judge; one with data, inline bytes or on a UD QP is malformed.
 */
static void mrc_mw_user_slots(struct kunit *test)
{
	size_t wsize = mrc_send_wqe_size(2, 0);
	struct mrc_send_wqe *wqe = kunit_kzalloc(test, wsize, GFP_KERNEL);
	struct metaroce_send_wqe *u = kunit_kzalloc(test,
						    mrc_user_send_slot_size(2, 0),
						    GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wqe);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, u);
	u->opcode = IB_WR_BIND_MW;
	u->send_flags = IB_SEND_SIGNALED;
	u->wr.bind.addr = ~0ull - 3;
	u->wr.bind.length = 100;
	u->wr.bind.mw_rkey = 0x201;
	u->wr.bind.rkey = 0x202;
	u->wr.bind.mr_lkey = 0x305;
	u->wr.bind.access = IB_ACCESS_REMOTE_WRITE | IB_ZERO_BASED;
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_RC, wqe, u, 2, 0), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, (u32)IB_WR_BIND_MW);
	KUNIT_EXPECT_EQ(test, wqe->wr.bind.addr, ~0ull - 3);
	KUNIT_EXPECT_EQ(test, wqe->wr.bind.length, 100ull);
	KUNIT_EXPECT_EQ(test, wqe->wr.bind.mw_rkey, 0x201u);
	KUNIT_EXPECT_EQ(test, wqe->wr.bind.rkey, 0x202u);
	KUNIT_EXPECT_EQ(test, wqe->wr.bind.mr_lkey, 0x305u);
	KUNIT_EXPECT_EQ(test, wqe->wr.bind.access,
			(u32)(IB_ACCESS_REMOTE_WRITE | IB_ZERO_BASED));
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 0u);

	/* [OPS-41] a UC QP binds type 2 windows as RC does */
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_UC, wqe, u, 2, 0), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, (u32)IB_WR_BIND_MW);
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_UD, wqe, u, 2, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, wqe->opcode, (u32)MRC_WR_INVALID);
	u->num_sge = 1;
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_RC, wqe, u, 2, 0),
			-EINVAL);
	u->num_sge = 0;
	u->send_flags |= IB_SEND_INLINE;
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_RC, wqe, u, 2, 0),
			-EINVAL);

	u->opcode = IB_WR_LOCAL_INV;
	u->send_flags = 0;
	u->ex.invalidate_rkey = 0x9999;
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_RC, wqe, u, 2, 0), 0);
	KUNIT_EXPECT_EQ(test, wqe->ex.invalidate_rkey, 0x9999u);
	/* REG_MR is a kernel consumer's: never from a ring */
	u->opcode = IB_WR_REG_MR;
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_RC, wqe, u, 2, 0),
			-EINVAL);
	/* [OPS-41] a UC ring's READ or atomic completes in error */
	u->opcode = IB_WR_LOCAL_INV;
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_UC, wqe, u, 2, 0), 0);
	u->opcode = IB_WR_RDMA_READ;
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_UC, wqe, u, 2, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, wqe->opcode, (u32)MRC_WR_INVALID);
	u->opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	KUNIT_EXPECT_EQ(test, mrc_send_wqe_from_user(IB_QPT_UC, wqe, u, 2, 0),
			-EINVAL);
}

static struct kunit_case mrc_mw_cases[] = {
	KUNIT_CASE(mrc_mw_bind_rules),
	KUNIT_CASE(mrc_mw_access_rules),
	KUNIT_CASE(mrc_mw_key_table),
	KUNIT_CASE(mrc_mw_zero_based),
	KUNIT_CASE(mrc_mw_type1_rebind),
	KUNIT_CASE(mrc_mw_user_slots),
	{}
};

static struct kunit_suite mrc_mw_suite = {
	.name = "metaroce_mw",
	.test_cases = mrc_mw_cases,
};

kunit_test_suites(&mrc_mw_suite);
