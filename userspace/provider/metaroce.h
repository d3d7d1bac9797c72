/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libmetaroce: the rdma-core provider for metaroce devices. Private to the
 * provider; the only ABI it shares with the kernel is kernel/uapi/metaroce-abi.h.
 */
#ifndef MRC_PROVIDER_H
#define MRC_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include "abi/ibverbs-private-34.h"
#include "uapi/metaroce-abi.h"

/* The kernel ABI versions this build of the provider speaks, inclusive. */
#define MRC_PROVIDER_ABI_MIN METAROCE_ABI_VERSION
#define MRC_PROVIDER_ABI_MAX METAROCE_ABI_VERSION

/* sysfs attribute of /sys/class/infiniband/<ibdev> that marks our devices */
#define MRC_SYSFS_ABI_ATTR "metaroce_abi_version"

#define mrc_container_of(ptr, type, member)                                    \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct mrc_device {
	struct verbs_device vdev;
	uint32_t abi_version;	/* the device's metaroce_abi_version */
};

struct mrc_context {
	struct verbs_context vctx;
	uint32_t abi_version;	/* what the kernel answered at get_context */
};

static inline struct mrc_device *to_mdev(struct ibv_device *ibdev)
{
	return mrc_container_of(ibdev, struct mrc_device, vdev.device);
}

static inline struct mrc_context *to_mctx(struct ibv_context *ibctx)
{
	return mrc_container_of(ibctx, struct mrc_context, vctx.context);
}

/* A driver command with no driver data in that direction. */
struct mrc_empty {};

/* get_context: no driver request, our response after the core one. */
MRC_DRV_CMD(mrc_get_context, ibv_get_context, ib_uverbs_get_context_resp,
	    mrc_empty, metaroce_alloc_ucontext_resp);

/* match.c */
int mrc_parse_abi_version(const char *buf, uint32_t *version);
int mrc_read_abi_version(struct verbs_sysfs_dev *sysfs_dev, uint32_t *version);
extern const struct verbs_device_ops mrc_device_ops;

/* context.c */
struct verbs_context *mrc_alloc_context(struct ibv_device *ibdev, int cmd_fd,
					void *private_data);
void mrc_free_context(struct ibv_context *ibctx);

/* verbs.c */
extern const struct verbs_context_ops mrc_context_ops;

#endif /* MRC_PROVIDER_H */
