/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * The metaroce user/kernel ABI, shared by metaroce.ko and the rdma-core
 * provider libmetaroce-rdmav34.so. Everything the two sides exchange beyond
 * the generic uverbs structures is declared here and only here.
 *
 * METAROCE_ABI_VERSION changes whenever a layout below changes incompatibly.
 * The kernel publishes it as /sys/class/infiniband/<ibdev>/metaroce_abi_version
 * (decimal) and in every alloc_ucontext response; the provider claims a
 * device only if it speaks that version.
 */
#ifndef METAROCE_ABI_H
#define METAROCE_ABI_H

#include <linux/types.h>

#define METAROCE_ABI_VERSION 1

/*
 * Driver part of the alloc_ucontext (get_context) response, after
 * struct ib_uverbs_get_context_resp. The kernel copies
 * min(sizeof(resp), udata->outlen) bytes, so later versions may only append.
 */
struct metaroce_alloc_ucontext_resp {
	__u32 abi_version;	/* METAROCE_ABI_VERSION of the kernel */
	__u32 reserved;		/* zero; keeps the size a multiple of 8 */
};

#endif /* METAROCE_ABI_H */
