// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions and address handles: plain uverbs commands. The kernel
 * pins the pages (ib_umem) or maps the dma-buf, and checks every access
 * against the MR's keys, bounds and flags. An AH comes back with a number (ABI 2), which UD send
 * slots carry; the kernel resolves it in the sending QP's PD.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

struct ibv_mr *mrc_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	err = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * A dma-buf's bytes [offset, offset + length) at @iova. The kernel maps the
 * buffer (its exporter's kernel mapping: the CPU moves the bytes) and
 * refuses exporters it cannot map that way with EOPNOTSUPP.
 */
struct ibv_mr *mrc_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				 size_t length, uint64_t iova, int fd,
				 int access)
{
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	err = ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * The kernel registers a new MR in the old one's place (new keys, which
 * ibv_cmd_rereg_mr() copies into @vmr); on failure the old one stands.
 */
int mrc_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		 void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	if (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED)
		return EOPNOTSUPP;
	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

int mrc_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;
	free(vmr);
	return 0;
}

struct ibv_ah *mrc_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct mrc_create_ah_resp resp;
	struct mrc_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	/* a version 1 kernel writes no driver part: the number stays 0 */
	err = ibv_cmd_create_ah(pd, &ah->ibah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}
	ah->num = resp.drv_payload.ah_num;
	return &ah->ibah;
}

int mrc_destroy_ah(struct ibv_ah *ibah)
{
	int err;

	err = ibv_cmd_destroy_ah(ibah);
	if (err)
		return err;
	free(to_mah(ibah));
	return 0;
}
