// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions and address handles: plain uverbs commands, no driver
 * data. The kernel pins the pages (ib_umem) and checks every access
 * against the MR's keys, bounds and flags.
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
	struct ib_uverbs_create_ah_resp resp;
	struct ibv_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	err = ibv_cmd_create_ah(pd, ah, attr, &resp, sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}
	return ah;
}

int mrc_destroy_ah(struct ibv_ah *ah)
{
	int err;

	err = ibv_cmd_destroy_ah(ah);
	if (err)
		return err;
	free(ah);
	return 0;
}
