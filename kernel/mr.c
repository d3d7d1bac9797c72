// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions: registration, keys, fast registration and the one
 * check that guards every byte the transport places or reads.
 *
 * Keys: a key is index << 8 | variant. The index names the MR in the
 * device's xarray for its whole life; the 8-bit variant changes on each
 * fast registration (the consumer picks it with ib_update_fast_reg_key()),
 * so a stale key of a re-registered MR no longer matches. lkey == rkey:
 * whether a key may be used remotely is decided by the REMOTE_* access
 * bits alone, in mrc_mr_check().
 *
 * Addresses: user MRs pin their pages (ib_umem) and reach them with
 * kmap_local_page(), or hold a dma-buf's kernel mapping (mr_dmabuf.c);
 * DMA and fast-reg MRs hold kernel virtual addresses, because the device
 * uses virtual DMA (ib_uses_virt_dma(): a dma_addr_t handed to us is the
 * kernel address, like rxe and siw).
 */

#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "verbs.h"

/* Access bits an operation may ask for; anything else is a caller bug. */
#define MRC_ACCESS_NEEDS	(IB_ACCESS_LOCAL_WRITE |	\
				 IB_ACCESS_REMOTE_READ |	\
				 IB_ACCESS_REMOTE_WRITE |	\
				 IB_ACCESS_REMOTE_ATOMIC)

/* Bits a registration may carry: the rights above plus hints we ignore. */
#define MRC_ACCESS_REG		(MRC_ACCESS_NEEDS | IB_ACCESS_HUGETLB |	\
				 IB_ACCESS_OPTIONAL)
/* User MRs may also carry windows (mw.c); DMA and fast-reg MRs may not. */
#define MRC_ACCESS_USER		(MRC_ACCESS_REG | IB_ACCESS_MW_BIND)

bool mrc_range_within(u64 base, u64 size, u64 va, u64 len)
{
	/* No sum is formed, so nothing can wrap: va - base is only taken
	 * once va >= base holds, size - len once len <= size holds.
	 */
	return va >= base && len <= size && va - base <= size - len;
}

bool mrc_access_allows(int granted, int need)
{
	if (need & ~MRC_ACCESS_NEEDS)
		return false;
	return (granted & need) == need;
}

/*
 * Registration-time rules of IB 10.6.3 plus what we do not implement;
 * @allowed: MRC_ACCESS_REG, or MRC_ACCESS_USER for a user MR.
 */
static int mrc_mr_access_valid(int access, int allowed)
{
	if (access & ~allowed)
		return -EOPNOTSUPP;	/* zero-based, ODP; MW bind but on user MRs */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

static struct mrc_mr *mrc_mr_new(struct ib_pd *ibpd, enum ib_mr_type type)
{
	struct mrc_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	if (!mr)
		return NULL;
	spin_lock_init(&mr->lock);
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	mr->type = type;
	mr->state = MRC_MR_INVALID;
	mr->ibmr.pd = ibpd;
	return mr;
}

static void mrc_mr_free(struct mrc_mr *mr)
{
	if (mr->umem)
		ib_umem_release(mr->umem);
	if (mr->dmabuf)
		mrc_mr_dmabuf_unmap(mr);
	kvfree(mr->pages);
	kfree(mr->page_va);
	/* a receive path may still be inside xa_load() under RCU */
	kfree_rcu(mr, rcu);
}

/*
 * Make the MR findable. Lookups racing with the end of setup see either
 * no MR or one whose key/state do not match yet, so they fail the check.
 */
static int mrc_mr_publish(struct mrc_mr *mr, enum mrc_mr_state state,
			  int access)
{
	struct mrc_verbs_tables *t = mrc_dev_tables(mr->ibmr.pd->device);
	unsigned long flags;
	u32 index;
	int err;

	err = xa_alloc_cyclic_irq(&t->mrs, &index, mr,
				  XA_LIMIT(1, MRC_MAX_MR_INDEX), &t->next_mr,
				  GFP_KERNEL);
	if (err < 0)
		return err;

	spin_lock_irqsave(&mr->lock, flags);
	mr->key = index << 8 | get_random_u8();
	mr->access = access;
	mr->state = state;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	spin_unlock_irqrestore(&mr->lock, flags);
	return 0;
}

struct ib_mr *mrc_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct mrc_mr *mr;
	int err;

	err = mrc_mr_access_valid(access, MRC_ACCESS_REG);
	if (err)
		return ERR_PTR(err);
	mr = mrc_mr_new(ibpd, IB_MR_TYPE_DMA);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	/* The whole kernel address space: the check then only refuses wrap. */
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->ibmr.iova = 0;
	mr->ibmr.length = U64_MAX;

	err = mrc_mr_publish(mr, MRC_MR_VALID, access);
	if (err) {
		mrc_mr_free(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

static int mrc_mr_pin(struct mrc_mr *mr, u64 start, u64 length, int access)
{
	struct sg_page_iter iter;
	struct ib_umem *umem;
	size_t npages;
	u32 i = 0;

	umem = ib_umem_get(mr->ibmr.pd->device, start, length, access);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	mr->umem = umem;

	npages = ib_umem_num_pages(umem);
	if (!npages || npages > U32_MAX)
		return -EINVAL;
	mr->pages = kvmalloc_array(npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	mr->max_pages = npages;

	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (i == npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	mr->npages = i;
	mr->max_pages = i;	/* never index an unfilled entry */
	mr->page_shift = PAGE_SHIFT;
	mr->first_offset = ib_umem_offset(umem);

	/* The translation invariant of struct mrc_mr, see verbs.h. */
	if (mr->first_offset > ((u64)mr->npages << PAGE_SHIFT) ||
	    length > ((u64)mr->npages << PAGE_SHIFT) - mr->first_offset)
		return -EFAULT;
	return 0;
}

/*
 * Where a user MR's bytes are: process memory at @start, or bytes @start
 * on of dma-buf @fd (a flag, not a sentinel fd: fds come from the user).
 */
struct mrc_user_src {
	u64 start;
	int fd;
	bool dmabuf;
};

static struct ib_mr *mrc_reg_user(struct ib_pd *ibpd,
				  const struct mrc_user_src *src, u64 length,
				  u64 iova, int access)
{
	struct mrc_mr *mr;
	int err;

	/* windows bind to process memory only (ib_core refuses them too) */
	err = mrc_mr_access_valid(access, src->dmabuf ? MRC_ACCESS_REG :
							MRC_ACCESS_USER);
	if (err)
		return ERR_PTR(err);
	if (!length)
		return ERR_PTR(-EINVAL);
	mr = mrc_mr_new(ibpd, IB_MR_TYPE_USER);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	if (src->dmabuf)
		err = mrc_mr_dmabuf_map(mr, src->fd, src->start, length,
					access);
	else
		err = mrc_mr_pin(mr, src->start, length, access);
	if (err)
		goto err_free;

	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	err = mrc_mr_publish(mr, MRC_MR_VALID, access);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	mrc_mr_free(mr);
	return ERR_PTR(err);
}

struct ib_mr *mrc_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct mrc_user_src src = { .start = start };

	return mrc_reg_user(ibpd, &src, length, iova, access);
}

struct ib_mr *mrc_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				     u64 length, u64 iova, int fd, int access,
				     struct mrc_reg_dmabuf_arg *unused)
{
	struct mrc_user_src src = { .start = offset, .fd = fd, .dmabuf = true };

	return mrc_reg_user(ibpd, &src, length, iova, access);
}

/*
 * rereg_mr: a new MR, with the old one's translation, PD or access where
 * @flags keeps them. ib_core puts it in the old one's place (the keys
 * change, as the verbs allow) and only then deregisters the old one, so
 * a failure here leaves the old MR as it was; no WR ever sees a half-made
 * change. An MR with windows bound stays as it is (EBUSY, as dereg).
 */
struct ib_mr *mrc_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				u64 length, u64 iova, int access,
				struct ib_pd *pd, struct ib_udata *udata)
{
	struct mrc_mr *old = to_mrc_mr(ibmr);
	struct ib_mr *new;
	unsigned long irq;

	if (old->type != IB_MR_TYPE_USER || !old->umem ||
	    flags & ~(IB_MR_REREG_TRANS | IB_MR_REREG_PD | IB_MR_REREG_ACCESS))
		return ERR_PTR(-EOPNOTSUPP);
	spin_lock_irqsave(&old->lock, irq);
	if (atomic_read(&old->mw_bound)) {
		spin_unlock_irqrestore(&old->lock, irq);
		return ERR_PTR(-EBUSY);
	}
	/* ib_core deregisters the old MR once this succeeds: no new windows */
	old->no_bind = true;
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = old->umem->address;
		length = old->length;
		iova = old->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = old->access;
	spin_unlock_irqrestore(&old->lock, irq);
	if (!(flags & IB_MR_REREG_PD) || !pd)
		pd = ibmr->pd;
	new = mrc_reg_user_mr(pd, start, length, iova, access, udata);
	if (IS_ERR(new)) {
		spin_lock_irqsave(&old->lock, irq);
		old->no_bind = false;
		spin_unlock_irqrestore(&old->lock, irq);
	}
	return new;
}

struct ib_mr *mrc_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct mrc_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > MRC_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);

	mr = mrc_mr_new(ibpd, IB_MR_TYPE_MEM_REG);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->page_va = kcalloc(max_num_sg, sizeof(*mr->page_va), GFP_KERNEL);
	if (!mr->page_va) {
		err = -ENOMEM;
		goto err_free;
	}
	mr->max_pages = max_num_sg;
	mr->page_shift = PAGE_SHIFT;
	mr->map_shift = PAGE_SHIFT;

	/* No rights until an IB_WR_REG_MR grants them. */
	err = mrc_mr_publish(mr, MRC_MR_FREE, 0);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	mrc_mr_free(mr);
	return ERR_PTR(err);
}

static int mrc_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mrc_mr *mr = to_mrc_mr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->page_va[mr->npages++] = addr;
	return 0;
}

/*
 * Only the page list changes here; the registration (iova, length,
 * rights, page size) is taken over when the IB_WR_REG_MR executes.
 * Mapping is legal while the MR is still valid (iSER maps, then posts
 * LOCAL_INV + REG_MR): the copy path bounds every index by max_pages and
 * every entry keeps the registered page size, so the old registration can
 * at worst reach pages the consumer handed us for this MR.
 */
int mrc_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct mrc_mr *mr = to_mrc_mr(ibmr);
	u32 shift;
	int n;

	if (mr->type != IB_MR_TYPE_MEM_REG ||
	    !is_power_of_2(ibmr->page_size) || ibmr->page_size < 512)
		return -EINVAL;
	shift = ilog2(ibmr->page_size);
	if (READ_ONCE(mr->state) == MRC_MR_VALID && shift != mr->page_shift)
		return -EBUSY;

	mr->npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mrc_mr_set_page);
	mr->map_shift = shift;
	mr->map_offset = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

int mrc_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mrc_mr *mr = to_mrc_mr(ibmr);
	struct mrc_verbs_tables *t = mrc_dev_tables(ibmr->device);
	unsigned long flags;

	/*
	 * IBA 10.6.7.2.6: not while windows are bound to it. Binds count
	 * under this lock, after checking the state, so no bind slips in.
	 */
	spin_lock_irqsave(&mr->lock, flags);
	if (atomic_read(&mr->mw_bound)) {
		spin_unlock_irqrestore(&mr->lock, flags);
		return -EBUSY;
	}
	mr->state = MRC_MR_INVALID;
	spin_unlock_irqrestore(&mr->lock, flags);

	if (mr->key)
		xa_erase_irq(&t->mrs, mr->key >> 8);
	/* drop the table's reference, then wait for in-flight copies */
	mrc_mr_put(mr);
	wait_for_completion(&mr->released);
	mrc_mr_free(mr);
	return 0;
}

struct mrc_mr *mrc_mr_lookup(struct xarray *keys, u32 key)
{
	struct mrc_mr *mr;

	rcu_read_lock();
	mr = xa_load(keys, key >> 8);
	/* a window's entry (mw.h) is tagged: never an MR, never an lkey */
	if (xa_pointer_tag(mr) || (mr && !refcount_inc_not_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

struct mrc_mr *mrc_mr_get(struct ib_device *ibdev, u32 key)
{
	return mrc_mr_lookup(&mrc_dev_tables(ibdev)->mrs, key);
}

void mrc_mr_put(struct mrc_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

int mrc_mr_check(struct mrc_mr *mr, const struct ib_pd *pd, u32 key,
		 u64 va, u64 len, int need)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->state != MRC_MR_VALID || mr->key != key || mr->ibmr.pd != pd)
		err = -EINVAL;
	else if (!mrc_access_allows(mr->access, need))
		err = -EACCES;
	else if (!mrc_range_within(mr->iova, mr->length, va, len))
		err = -ERANGE;
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

struct mrc_mr *mrc_mr_get_checked(const struct ib_pd *pd, u32 key, u64 va,
				  u64 len, int need, int *err)
{
	struct mrc_mr *mr = mrc_mr_get(pd->device, key);

	if (!mr) {
		*err = -EINVAL;
		return NULL;
	}
	*err = mrc_mr_check(mr, pd, key, va, len, need);
	if (*err) {
		mrc_mr_put(mr);
		return NULL;
	}
	return mr;
}

/*
 * IB_WR_REG_MR: take over the mapping made by map_mr_sg with @key and
 * @access. Only the variant byte of the key may change, only a free MR of
 * the QP's PD can be registered, and the registered range must lie inside
 * the mapped pages (the invariant mrc_mr_copy() relies on).
 */
int mrc_mr_fast_reg(const struct ib_pd *pd, struct mrc_mr *mr, u32 key,
		    int access)
{
	u64 mapped, iova = mr->ibmr.iova, length = mr->ibmr.length;
	unsigned long flags;
	int err;

	err = mrc_mr_access_valid(access, MRC_ACCESS_REG);
	if (err)
		return -EINVAL;
	if (mr->type != IB_MR_TYPE_MEM_REG)
		return -EINVAL;

	spin_lock_irqsave(&mr->lock, flags);
	mapped = (u64)mr->npages << mr->map_shift;
	if (mr->state != MRC_MR_FREE || mr->ibmr.pd != pd ||
	    (key >> 8) != (mr->key >> 8) || mr->map_offset > mapped ||
	    length > mapped - mr->map_offset) {
		err = -EINVAL;
	} else {
		mr->key = key;
		mr->access = access;
		mr->iova = iova;
		mr->length = length;
		mr->first_offset = mr->map_offset;
		mr->page_shift = mr->map_shift;
		mr->state = MRC_MR_VALID;
		mr->ibmr.lkey = key;
		mr->ibmr.rkey = key;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

/*
 * IB_WR_LOCAL_INV and the invalidation of IB_WR_SEND_WITH_INV of an MR
 * (mrc_key_invalidate() for windows): only fast-reg MRs of the QP's PD,
 * named by their current key.
 */
int mrc_mr_invalidate(struct xarray *keys, const struct ib_pd *pd, u32 key)
{
	struct mrc_mr *mr = mrc_mr_lookup(keys, key);
	unsigned long flags;
	int err = 0;

	if (!mr)
		return -EINVAL;
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->type != IB_MR_TYPE_MEM_REG || mr->key != key ||
	    mr->ibmr.pd != pd || mr->state == MRC_MR_INVALID)
		err = -EINVAL;
	else
		mr->state = MRC_MR_FREE;
	spin_unlock_irqrestore(&mr->lock, flags);
	mrc_mr_put(mr);
	return err;
}
