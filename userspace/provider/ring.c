// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Mapping a queue the kernel shares with us. The kernel's description of
 * the ring is checked before it is used: a provider that indexes past its
 * mapping on a bad answer would turn a kernel bug into memory corruption
 * in the application.
 */
#include <errno.h>
#include <sys/mman.h>

#include "metaroce.h"

int mrc_ring_info_ok(const struct metaroce_queue_info *info, size_t min_slot)
{
	uint64_t need;

	if (!info->num || (info->num & (info->num - 1)) ||
	    info->slot_size < min_slot || info->slot_size % 8)
		return 0;
	need = sizeof(struct metaroce_queue_hdr) +
	       (uint64_t)info->num * info->slot_size;
	return info->mmap_size >= need && info->mmap_size <= SIZE_MAX;
}

int mrc_ring_map(struct mrc_ring *r, int cmd_fd,
		 const struct metaroce_queue_info *info, size_t min_slot)
{
	void *p;

	if (!mrc_ring_info_ok(info, min_slot))
		return EPROTO;
	p = mmap(NULL, info->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 cmd_fd, (off_t)info->mmap_offset);
	if (p == MAP_FAILED)
		return errno;
	r->hdr = p;
	r->slots = (uint8_t *)(r->hdr + 1);
	r->map_size = info->mmap_size;
	r->num = info->num;
	r->mask = info->num - 1;
	r->slot_size = info->slot_size;
	/* the index we own starts where the kernel left it (0 when new) */
	r->mine = mrc_load_acquire(&r->hdr->producer);
	return 0;
}

void mrc_ring_unmap(struct mrc_ring *r)
{
	if (r->hdr)
		munmap(r->hdr, r->map_size);
	r->hdr = NULL;
}
