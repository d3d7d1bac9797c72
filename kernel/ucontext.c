// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The userspace side of a device: a process opens a ucontext (ibv_open_device
 * in the provider) and learns which ABI the kernel speaks. Queues shared
 * with userspace will be mapped through mrc_mmap().
 */

#include <rdma/ib_verbs.h>

#include "metaroce.h"

int mrc_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct metaroce_alloc_ucontext_resp resp = {
		.abi_version = METAROCE_ABI_VERSION,
	};

	/* An older provider may ask for less: the layout only ever grows. */
	return ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
}

void mrc_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * The device is being removed (rdma link delete, netdev gone, rmmod) while
 * a process still has it open. ib_core has already destroyed every object
 * of the context, which removed its mmap entries; the rings were mapped
 * with remap_vmalloc_range(), whose pages stay referenced by the process's
 * mapping until it unmaps them, so nothing is left to revoke here.
 *
 * Having this operation is what matters: without it, removal waits until
 * every process closes the device, and ib_uverbs pins the module while
 * any has it open. With it, processes see the device fail (EIO and
 * IBV_EVENT_DEVICE_FATAL) and removal goes on.
 */
void mrc_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/* Rings shared with userspace (queue.c). */
int mrc_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	return mrc_queue_mmap(ibuc, vma);
}
