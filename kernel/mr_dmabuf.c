// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions over a dma-buf (ibv_reg_dmabuf_mr): memory another driver
 * exports, a GPU's for instance, used by the transport like any user MR.
 *
 * We are a software device: the CPU moves every byte, so what an MR needs
 * is a kernel address of the buffer, not a DMA mapping. ib_umem_dmabuf_get()
 * does not fit: it attaches the buffer to the ib_device's DMA device, which
 * a virtual-DMA device does not have (dma_buf_dynamic_attach() would WARN
 * and fail), and its scatterlist is for DMA only (an importer must not use
 * the pages behind it; CONFIG_DMABUF_DEBUG mangles them to catch those
 * that do). The interface dma-buf has for CPU access is the exporter's
 * kernel mapping, dma_buf_vmap(), bracketed by begin/end_cpu_access; the
 * MR holds both for its whole life.
 *
 * Refused with EOPNOTSUPP, never trusted:
 * - exporters without a kernel mapping, or whose mapping is I/O memory
 *   (device memory without struct pages: it needs the _toio accessors and
 *   takes no atomics);
 * - dynamic exporters (pin/move_notify), which may move a buffer while it
 *   is mapped unless an attachment pins it, and attaching needs the DMA
 *   device we do not have. Static exporters keep a buffer where it is while
 *   mapped (shmem GEM objects like vgem's hold their pages), so the MR is
 *   pinned without move_notify.
 */

#include <linux/dma-buf.h>
#include <linux/iosys-map.h>
#include <linux/module.h>
#include <linux/overflow.h>

#include "kcompat.h"
#include "verbs.h"

MODULE_IMPORT_NS(DMA_BUF);

/* CPU access the MR's rights allow, in dma-buf's terms. */
static enum dma_data_direction mrc_dmabuf_dir(int access)
{
	return ib_access_writable(access) ? DMA_BIDIRECTIONAL : DMA_FROM_DEVICE;
}

int mrc_mr_dmabuf_map(struct mrc_mr *mr, int fd, u64 offset, u64 length,
		      int access)
{
	struct dma_buf *dmabuf;
	u64 end;
	int err;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);	/* EBADF; EINVAL: not a dma-buf */
	if (check_add_overflow(offset, length, &end) || end > dmabuf->size) {
		err = -EINVAL;
		goto err_put;
	}
	/* dma_buf_vmap() says EINVAL for this; tell the caller what it is */
	if (!dmabuf->ops->vmap || dma_buf_is_dynamic(dmabuf)) {
		err = -EOPNOTSUPP;
		goto err_put;
	}
	err = dma_buf_vmap_unlocked(dmabuf, &mr->dmabuf_map);
	if (err)
		goto err_put;
	if (mr->dmabuf_map.is_iomem) {
		err = -EOPNOTSUPP;
		goto err_unmap;
	}
	err = dma_buf_begin_cpu_access(dmabuf, mrc_dmabuf_dir(access));
	if (err)
		goto err_unmap;

	mr->dmabuf = dmabuf;
	mr->dmabuf_dir = mrc_dmabuf_dir(access);
	mr->kva = (u8 *)mr->dmabuf_map.vaddr + offset;
	return 0;

err_unmap:
	dma_buf_vunmap_unlocked(dmabuf, &mr->dmabuf_map);
err_put:
	dma_buf_put(dmabuf);
	return err;
}

/* Only once no copy can use mr->kva any more (mrc_dereg_mr waited). */
void mrc_mr_dmabuf_unmap(struct mrc_mr *mr)
{
	dma_buf_end_cpu_access(mr->dmabuf, mr->dmabuf_dir);
	dma_buf_vunmap_unlocked(mr->dmabuf, &mr->dmabuf_map);
	dma_buf_put(mr->dmabuf);
	mr->dmabuf = NULL;
	mr->kva = NULL;
}
