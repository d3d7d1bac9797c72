// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows (ABI 3): allocation is a plain uverbs command; binding
 * is a BIND_MW slot in the send ring, which the kernel checks against
 * every IB bind rule when it executes (IBV_WC_MW_BIND_ERR otherwise).
 * ibv_bind_mw() of a type 1 window posts that slot itself, as IBA's
 * Bind Memory Window verb is a work request underneath.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

struct ibv_mw *mrc_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd = {};
	struct ibv_mw *mw = NULL;
	int err = EOPNOTSUPP;

	/* an older kernel has no windows (and no BIND_MW slot) */
	if (to_mctx(pd->context)->abi_version >= MRC_ABI_MW) {
		mw = calloc(1, sizeof(*mw));
		err = mw ? ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd),
					    &resp, sizeof(resp)) : ENOMEM;
	}
	if (!err)
		return mw;
	free(mw);
	errno = err;
	return NULL;
}

int mrc_dealloc_mw(struct ibv_mw *mw)
{
	int err = ibv_cmd_dealloc_mw(mw);

	if (!err)
		free(mw);
	return err;
}

/*
 * libibverbs checked the window's type and PD; the new rkey keeps the
 * window's index and moves its tag byte on, so a stale copy of the old
 * rkey no longer matches once the bind executes. A type 1 window is
 * never zero-based: refused here, as HCAs' providers do (the kernel
 * refuses the slot too).
 */
int mrc_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr, *bad = NULL;

	if (mw_bind->bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED)
		return EINVAL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	return mrc_post_send_ring(to_mqp(qp), &wr, &bad, true);
}
