// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows, type 1 and type 2B (mw.h has the model).
 *
 * Type 1 windows belong to a PD: bound by ibv_bind_mw() (a BIND_MW work
 * request the provider posts), rebound at will, unbound by a bind of
 * length 0, never invalidated. Type 2B windows belong to a QP once bound:
 * only BIND_MW binds them, only from free, only LOCAL_INV or a received
 * SEND_WITH_INV frees them, and only the QP they were bound through may
 * use their rkey (by number: a window bound through a QP that is gone
 * answers no other, as QP numbers come round again only after 2^24).
 * A type 2 window may be zero-based (IB_ZERO_BASED): its remote
 * addresses count from the window's start; a type 1 window may not (as
 * on HCAs, whose ibv_bind_mw() refuses the flag).
 */

#include <linux/random.h>

#include "mw.h"

/* The rights a binding may grant; LOCAL_WRITE means nothing on a window. */
#define MRC_MW_ACCESS	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_LOCAL_WRITE)

int mrc_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct mrc_verbs_tables *t = mrc_dev_tables(ibmw->device);
	struct mrc_mw *mw = to_mrc_mw(ibmw);
	u32 index;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (atomic_inc_return(&t->num_mw) > MRC_MAX_MW) {
		err = -ENOMEM;
		goto err_count;
	}
	/* key 0 names nothing: a lookup racing with setup finds no match */
	mw->key = 0;
	mw->mr = NULL;
	err = xa_alloc_cyclic_irq(&t->mrs, &index,
				  xa_tag_pointer(mw, MRC_KEY_TAG_MW),
				  XA_LIMIT(1, MRC_MAX_MR_INDEX), &t->next_mr,
				  GFP_KERNEL);
	if (err < 0)
		goto err_count;
	xa_lock_irq(&t->mrs);
	mw->key = index << 8 | get_random_u8();
	ibmw->rkey = mw->key;
	xa_unlock_irq(&t->mrs);
	return 0;

err_count:
	atomic_dec(&t->num_mw);
	return err;
}

/* Drop @mw's binding; the table's lock held. */
static void mrc_mw_unbind_locked(struct mrc_mw *mw)
{
	if (mw->mr)
		atomic_dec(&mw->mr->mw_bound);
	mw->mr = NULL;
	mw->access = 0;
	mw->addr = 0;
	mw->length = 0;
	mw->zero_based = false;
}

int mrc_dealloc_mw(struct ib_mw *ibmw)
{
	struct mrc_verbs_tables *t = mrc_dev_tables(ibmw->device);
	struct mrc_mw *mw = to_mrc_mw(ibmw);
	unsigned long flags;

	xa_lock_irqsave(&t->mrs, flags);
	mrc_mw_unbind_locked(mw);
	__xa_erase(&t->mrs, mw->key >> 8);
	xa_unlock_irqrestore(&t->mrs, flags);
	atomic_dec(&t->num_mw);
	return 0;
}

int mrc_mw_bind_check(const struct mrc_mw *mw, const struct mrc_mr *mr,
		      const struct ib_pd *qp_pd, const struct mrc_bind_wr *b)
{
	bool type2 = mw->ibmw.type == IB_MW_TYPE_2;

	/* the window's current key; a new key keeps its index */
	if (b->mw_rkey != mw->key || (b->rkey >> 8) != (mw->key >> 8))
		return -EINVAL;
	/* C10-72 for both types: window, QP and MR share one PD */
	if (mw->ibmw.pd != qp_pd)
		return -EINVAL;
	/* no rights a window cannot carry; zero-based for type 2 only */
	if (b->access & ~(MRC_MW_ACCESS | IB_ZERO_BASED) ||
	    ((b->access & IB_ZERO_BASED) && !type2))
		return -EINVAL;
	/* o10-37.2.30, o10-37.2.40: a type 2 window binds from free only */
	if (type2 && (mw->mr || !b->length))
		return -EINVAL;
	if (!type2 && !b->length)
		return 0;	/* a type 1 window unbound */

	if (!mr || mr->state != MRC_MR_VALID || mr->no_bind ||
	    mr->key != b->mr_lkey || mr->ibmr.pd != qp_pd)
		return -EINVAL;
	/* C10-73 */
	if (!(mr->access & IB_ACCESS_MW_BIND))
		return -EACCES;
	/* C10-74 */
	if ((b->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EACCES;
	/* C10-75 */
	if (!mrc_range_within(mr->iova, mr->length, b->addr, b->length))
		return -ERANGE;
	return 0;
}

int mrc_mw_access_check(const struct mrc_mw *mw, const struct ib_pd *pd,
			u32 qpn, u32 rkey, u64 va, u64 len, int need)
{
	if (!mw->mr || mw->key != rkey || mw->ibmw.pd != pd ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && mw->qpn != qpn))
		return -EINVAL;
	if (!mrc_access_allows(mw->access, need))
		return -EACCES;
	if (!mrc_range_within(mw->zero_based ? 0 : mw->addr, mw->length, va,
			      len))
		return -ERANGE;
	return 0;
}

struct mrc_mw *mrc_mw_find_locked(struct xarray *keys, u32 key)
{
	void *entry = xa_load(keys, key >> 8);

	if (!entry || xa_pointer_tag(entry) != MRC_KEY_TAG_MW)
		return NULL;
	return xa_untag_pointer(entry);
}

bool mrc_key_is_mw(struct xarray *keys, u32 key)
{
	void *entry;

	rcu_read_lock();
	entry = xa_load(keys, key >> 8);
	rcu_read_unlock();
	return entry && xa_pointer_tag(entry) == MRC_KEY_TAG_MW;
}

int mrc_mw_bind(struct xarray *keys, const struct ib_pd *pd, u32 qpn,
		const struct mrc_bind_wr *b)
{
	struct mrc_mr *mr = b->length ? mrc_mr_lookup(keys, b->mr_lkey) : NULL;
	unsigned long flags;
	struct mrc_mw *mw;
	int err = -EINVAL;

	xa_lock_irqsave(keys, flags);
	mw = mrc_mw_find_locked(keys, b->mw_rkey);
	if (mw) {
		/*
		 * The MR's lock orders this bind against its dereg: either
		 * dereg sees the count and refuses, or bind sees it invalid.
		 */
		if (mr)
			spin_lock(&mr->lock);
		err = mrc_mw_bind_check(mw, mr, pd, b);
		if (!err) {
			mrc_mw_unbind_locked(mw);
			if (b->length) {
				atomic_inc(&mr->mw_bound);
				mw->mr = mr;
				mw->access = b->access & ~(IB_ACCESS_LOCAL_WRITE |
							   IB_ZERO_BASED);
				mw->zero_based = b->access & IB_ZERO_BASED;
				mw->addr = b->addr;
				mw->length = b->length;
				mw->qpn = qpn;
			}
			mw->key = b->rkey;
			mw->ibmw.rkey = b->rkey;
		}
		if (mr)
			spin_unlock(&mr->lock);
	}
	xa_unlock_irqrestore(keys, flags);
	if (mr)
		mrc_mr_put(mr);
	return err;
}

int mrc_key_invalidate(struct xarray *keys, const struct ib_pd *pd, u32 qpn,
		       u32 key, bool remote)
{
	unsigned long flags;
	struct mrc_mw *mw;
	int err = -EINVAL;

	if (!mrc_key_is_mw(keys, key))
		return mrc_mr_invalidate(keys, pd, key);

	xa_lock_irqsave(keys, flags);
	mw = mrc_mw_find_locked(keys, key);
	/* o10-37.2.26: type 1 windows are not invalidated */
	if (mw && mw->key == key && mw->ibmw.pd == pd && mw->mr &&
	    mw->ibmw.type == IB_MW_TYPE_2 && (!remote || mw->qpn == qpn)) {
		mrc_mw_unbind_locked(mw);
		err = 0;
	}
	xa_unlock_irqrestore(keys, flags);
	return err;
}

struct mrc_mr *mrc_mw_resolve(struct xarray *keys, const struct ib_pd *pd,
			      u32 qpn, u32 rkey, u64 *va, u64 len, int need,
			      int *err)
{
	struct mrc_mr *mr = NULL;
	unsigned long flags;
	struct mrc_mw *mw;

	*err = -EINVAL;
	xa_lock_irqsave(keys, flags);
	mw = mrc_mw_find_locked(keys, rkey);
	if (mw)
		*err = mrc_mw_access_check(mw, pd, qpn, rkey, *va, len, need);
	/* a bound MR cannot be deregistered: it is valid, its ref > 0 */
	if (mw && !*err) {
		mr = mw->mr;
		if (READ_ONCE(mr->state) != MRC_MR_VALID ||
		    !refcount_inc_not_zero(&mr->ref)) {
			mr = NULL;
			*err = -EINVAL;
		} else if (mw->zero_based) {
			/* within [0, length): no sum past the MR's end */
			*va += mw->addr;
		}
	}
	xa_unlock_irqrestore(keys, flags);
	return mr;
}

struct mrc_mr *mrc_rkey_get(const struct ib_pd *pd, u32 qpn, u32 rkey, u64 *va,
			    u64 len, int need, int *err)
{
	struct xarray *keys = &mrc_dev_tables(pd->device)->mrs;

	/* MRs keep their lock-free lookup; only windows take the lock */
	if (!mrc_key_is_mw(keys, rkey))
		return mrc_mr_get_checked(pd, rkey, *va, len, need, err);
	return mrc_mw_resolve(keys, pd, qpn, rkey, va, len, need, err);
}
