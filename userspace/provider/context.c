// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Opening a device: one ibv_context per open of /dev/infiniband/uverbsN.
 *
 * The kernel's alloc_ucontext answers with our uAPI response, whose first
 * field is the ABI version it speaks. We refuse a context whose answer differs
 * from what the device advertised in sysfs at discovery time: a module
 * reloaded with another ABI between ibv_get_device_list() and
 * ibv_open_device() must not be driven with the old layouts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

void mrc_free_context(struct ibv_context *ibctx)
{
	struct mrc_context *ctx = to_mctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

struct verbs_context *mrc_alloc_context(struct ibv_device *ibdev, int cmd_fd,
					void *private_data)
{
	struct mrc_device *dev = to_mdev(ibdev);
	struct mrc_get_context_resp resp;
	struct mrc_get_context cmd;
	struct mrc_context *ctx;
	int err;

	(void)private_data;
	ctx = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*ctx),
					    &((struct mrc_context *)NULL)->vctx,
					    RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	err = ibv_cmd_get_context(&ctx->vctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err)
		goto fail;

	ctx->abi_version = resp.drv_payload.abi_version;
	if (ctx->abi_version != dev->abi_version) {
		fprintf(stderr,
			"libmetaroce: %s: kernel answered ABI %u, sysfs said %u\n",
			ibdev->name, ctx->abi_version, dev->abi_version);
		err = EPROTO;
		goto fail;
	}

	verbs_set_ops(&ctx->vctx, &mrc_context_ops);
	return &ctx->vctx;

fail:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = err;
	return NULL;
}
