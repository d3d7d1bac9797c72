/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The one place that knows which kernel the module is built against.
 *
 * The module is built and tested against Debian 12's 6.1 and 6.12 kernels
 * (mk/config.mk pins both). Where an interface it uses differs between
 * them, this header gives the rest of the code one spelling, the newer
 * kernel's where it has one, so no other file tests LINUX_VERSION_CODE.
 * A shim goes when the oldest kernel supported has the new interface.
 */
#ifndef MRC_KCOMPAT_H
#define MRC_KCOMPAT_H

#include <linux/mm.h>
#include <linux/version.h>
#include <rdma/uverbs_ioctl.h>

/*
 * The kernel built against is @maj.@min or newer: the only test of the
 * version (checkpatch's LINUX_VERSION_CODE warning is waived for this
 * file alone, mk/kernel.mk).
 */
#define MRC_KERNEL_GE(maj, min) (KERNEL_VERSION(maj, min, 0) <= LINUX_VERSION_CODE)

/* 6.12 moved the unaligned accessors from <asm/> to <linux/>. */
#if MRC_KERNEL_GE(6, 12)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* vm_flags is read-only from 6.3: writers go through the helpers it added. */
#if !MRC_KERNEL_GE(6, 3)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * ib_device_ops.create_cq gets the whole uverbs attribute bundle from 6.11
 * (NULL for a kernel CQ), only its driver udata before. The driver's
 * create_cq takes a struct mrc_create_cq_arg and asks
 * mrc_create_cq_udata() for the udata (NULL for a kernel CQ on both).
 */
#if MRC_KERNEL_GE(6, 11)
#define mrc_create_cq_arg uverbs_attr_bundle
static inline struct ib_udata *mrc_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define mrc_create_cq_arg ib_udata
static inline struct ib_udata *mrc_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * ib_device_ops.reg_user_mr_dmabuf, like create_cq, gets the uverbs
 * attribute bundle from 6.12 and only the driver udata before; the driver
 * uses neither, so only the type differs.
 */
#if MRC_KERNEL_GE(6, 12)
#define mrc_reg_dmabuf_arg uverbs_attr_bundle
#else
#define mrc_reg_dmabuf_arg ib_udata
#endif

/*
 * 6.2 made dma_buf_vmap() expect the reservation lock held and kept the
 * old, self-locking behaviour under the _unlocked names.
 */
#if !MRC_KERNEL_GE(6, 2)
#define dma_buf_vmap_unlocked dma_buf_vmap
#define dma_buf_vunmap_unlocked dma_buf_vunmap
#endif

#endif /* MRC_KCOMPAT_H */
