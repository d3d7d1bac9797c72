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

/*
 * Queues shared with userspace. Each is one mmap() of the device fd at
 * the mmap_offset the create response gives, mmap_size bytes, MAP_SHARED:
 * a struct metaroce_queue_hdr, then num slots of slot_size bytes (num a
 * power of two). Indices are free-running 32-bit counters, the slot of
 * index i is i & (num - 1). Each index has one writer: the writer stores
 * it with release semantics after filling (or reading) the slots, the
 * other side loads it with acquire semantics. The kernel never trusts an
 * index userspace writes: a value that would put more than num entries
 * in the ring is ignored.
 */
struct metaroce_queue_hdr {
	__u32 producer;
	__u32 pad0[15];		/* producer and consumer on own cache lines */
	__u32 consumer;
	__u32 pad1[15];
};

/*
 * Completion queue, driver part of the create_cq response. Slots are
 * struct ib_uverbs_wc (<rdma/ib_user_verbs.h>); the kernel writes them
 * and the producer index, the provider advances the consumer index.
 * ibv_req_notify_cq and completion channels go through the usual uverbs
 * commands.
 */
struct metaroce_create_cq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 num;		/* slots */
	__u32 slot_size;	/* sizeof(struct ib_uverbs_wc) */
};

#endif /* METAROCE_ABI_H */
