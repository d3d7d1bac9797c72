/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Memory windows (type 1 and type 2B): a remote key onto part of a user
 * MR, with rights of its own, bound and invalidated by work requests.
 *
 * Windows live in the MR key table (tables->mrs) as tagged entries, so
 * one rkey names an MR or a window, never both, and an lkey can never
 * name a window (mrc_mr_get() skips them). A window's state is guarded
 * by that table's lock: every change (bind, invalidate, dealloc) and
 * every use (mrc_mw_resolve()) happens under it, so a window needs no
 * reference count of its own and ib_core may free it as soon as
 * dealloc_mw returns. A bound window counts on its MR (mw_bound), which
 * keeps the MR from being deregistered (EBUSY), so the window's MR
 * pointer stays valid without a reference.
 */
#ifndef _MRC_MW_H
#define _MRC_MW_H

#include "verbs.h"

/* max_mw: windows per device, counted at alloc_mw */
#define MRC_MAX_MW		65536
/* xa_tag_pointer() tag of a window's entry in the key table */
#define MRC_KEY_TAG_MW		1

struct mrc_mw {
	struct ib_mw ibmw;	/* type and PD */
	u32 key;		/* current rkey: index << 8 | tag byte */
	int access;		/* IB_ACCESS_REMOTE_* of the binding */
	u64 addr;		/* bound range, in the MR's address space */
	u64 length;
	/*
	 * IB_ZERO_BASED (type 2 only): remote addresses are offsets into
	 * the window, [0, length), and addr is where offset 0 lies.
	 */
	bool zero_based;
	struct mrc_mr *mr;	/* NULL: unbound (type 2: free) */
	u32 qpn;		/* type 2: the QP it was bound through */
};

static inline struct mrc_mw *to_mrc_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct mrc_mw, ibmw);
}

int mrc_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int mrc_dealloc_mw(struct ib_mw *ibmw);

/*
 * Pure rule checks (KUnit targets); the caller holds the table's lock
 * and @mr's lock. mrc_mw_bind_check(): the IB bind rules for binding
 * @mw to @mr (NULL: no MR of that lkey) from a QP of @qp_pd; 0 or
 * -EINVAL (keys, state, PD, flags), -EACCES (rights), -ERANGE (range).
 * mrc_mw_access_check(): whether a remote access (@need) of [va, va +
 * len) with @rkey through QP @qpn of @pd may use @mw; @va is the remote
 * address, an offset for a zero-based window.
 */
int mrc_mw_bind_check(const struct mrc_mw *mw, const struct mrc_mr *mr,
		      const struct ib_pd *qp_pd, const struct mrc_bind_wr *b);
int mrc_mw_access_check(const struct mrc_mw *mw, const struct ib_pd *pd,
			u32 qpn, u32 rkey, u64 va, u64 len, int need);

/* The window @key names in @keys, if any; the table's lock held. */
struct mrc_mw *mrc_mw_find_locked(struct xarray *keys, u32 key);

/*
 * Work requests on the table @keys, from QP @qpn of @pd (the transport's
 * entry points take them from the QP):
 * mrc_mw_bind: IB_WR_BIND_MW; 0 or a negative errno (-> MW_BIND_ERR).
 * mrc_key_invalidate: LOCAL_INV (@remote false) and the invalidation of
 *	a received SEND_WITH_INV (@remote true: a type 2 window only from
 *	the QP it is bound to); a window or a fast-reg MR.
 * mrc_mw_resolve: a remote access through a window; the MR with a
 *	reference and *@va (the remote address) turned into the MR's
 *	address, or NULL and *err. Only for keys that name a window
 *	(mrc_key_is_mw()); mrc_rkey_get() picks MR or window.
 */
int mrc_mw_bind(struct xarray *keys, const struct ib_pd *pd, u32 qpn,
		const struct mrc_bind_wr *b);
int mrc_key_invalidate(struct xarray *keys, const struct ib_pd *pd, u32 qpn,
		       u32 key, bool remote);
bool mrc_key_is_mw(struct xarray *keys, u32 key);
struct mrc_mr *mrc_mw_resolve(struct xarray *keys, const struct ib_pd *pd,
			      u32 qpn, u32 rkey, u64 *va, u64 len, int need,
			      int *err);
struct mrc_mr *mrc_rkey_get(const struct ib_pd *pd, u32 qpn, u32 rkey, u64 *va,
			    u64 len, int need, int *err);

#endif /* _MRC_MW_H */
