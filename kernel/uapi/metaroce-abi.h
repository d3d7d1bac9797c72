/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * The metaroce user/kernel ABI, shared by metaroce.ko and the rdma-core
 * provider libmetaroce-rdmav34.so. Everything the two sides exchange beyond
 * the generic uverbs structures is declared here and only here.
 *
 * METAROCE_ABI_VERSION changes whenever a layout below changes incompatibly,
 * or grows something a provider must know the kernel has. The kernel
 * publishes it as /sys/class/infiniband/<ibdev>/metaroce_abi_version
 * (decimal) and in every alloc_ucontext response; the provider claims a
 * device only if it speaks that version.
 *
 * Versions:
 *   1  RC and UC QPs, CQs, SRQs.
 *   2  adds UD QPs: the create_ah response (AH number) and the ud member
 *      of the send slot. Every version 1 layout is unchanged, so a
 *      provider may drive a version 1 kernel without UD.
 *   3  adds memory windows: IBV_WR_BIND_MW (the bind member of the send
 *      slot) and IBV_WR_LOCAL_INV in the send ring. Every version 2
 *      layout is unchanged; a provider refuses windows on older kernels.
 */
#ifndef METAROCE_ABI_H
#define METAROCE_ABI_H

#include <linux/types.h>

#define METAROCE_ABI_VERSION 3

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
 * the mmap_offset its create response gives, mmap_size bytes, MAP_SHARED:
 * a struct metaroce_queue_hdr, then num slots of slot_size bytes (num a
 * power of two). Indices are free-running 32-bit counters, the slot of
 * index i is i & (num - 1). Each index has one writer: the writer stores
 * it with release semantics after filling (or reading) the slots, the
 * other side loads it with acquire semantics. The kernel never trusts an
 * index userspace writes: a value that would put more than num entries
 * in the ring is ignored.
 *
 * Who writes what:
 *   CQ       kernel: slots (struct ib_uverbs_wc), producer
 *            provider: consumer
 *   SQ, RQ,  provider: slots (struct metaroce_send_wqe/_recv_wqe), producer
 *   SRQ      kernel: consumer (a slot is free again once consumer passed
 *            it) and flags
 *
 * Doorbell: after publishing a new producer index of an SQ the provider
 * issues a full memory barrier, reads flags and, if METAROCE_QUEUE_NEED_WAKEUP
 * is set, rings: a uverbs POST_SEND command with no work request. The same
 * holds for an RQ or SRQ with POST_RECV / POST_SRQ_RECV. The kernel sets the
 * flag while nothing would otherwise look at the ring (a sender that
 * polls clears it): on an SQ it is clear while the QP is in RTS with WQEs
 * outstanding (every ACK or response runs the send engine, which pulls
 * the ring) and set once the SQ drains; on an RQ it is set only in the
 * error state (so new receives get flushed; otherwise arriving messages
 * pull the ring).
 *
 * METAROCE_QUEUE_KICK_ON_WAIT (SQ only, with NEED_WAKEUP clear): the send
 * engine has sent everything it took and holds nothing back, so it looks
 * at the ring again only when the next ACK or response comes, a round
 * trip away. A provider that posts without ringing while it is set rings
 * once when its process starts to wait (polls the send CQ empty, or arms
 * it): a batch posted right after a completion then leaves at once,
 * without a system call per WR. Advisory: ignoring it is correct, only
 * slower; kernels before it never set it.
 */
struct metaroce_queue_hdr {
	__u32 producer;
	__u32 pad0[15];		/* producer and consumer on own cache lines */
	__u32 consumer;
	__u32 flags;		/* METAROCE_QUEUE_*, written by the kernel */
	__u32 pad1[14];
};

#define METAROCE_QUEUE_NEED_WAKEUP	0x1U
#define METAROCE_QUEUE_KICK_ON_WAIT	0x2U

struct metaroce_queue_info {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 num;		/* slots */
	__u32 slot_size;	/* bytes per slot */
};

/* Driver part of the create_cq response: the CQ ring. */
struct metaroce_create_cq_resp {
	struct metaroce_queue_info cq;
};

/*
 * Driver part of the resize_cq response (a user CQ): its new ring, which
 * holds the completions the old one had not had polled; the old mapping
 * stays readable until it is unmapped, but the kernel writes only the new.
 */
struct metaroce_resize_cq_resp {
	struct metaroce_queue_info cq;
};

/*
 * Driver part of the create_qp response (RC, UC and, from version 2, UD). rq is all zero for a
 * QP on an SRQ. max_inline is the inline payload a send slot holds.
 */
struct metaroce_create_qp_resp {
	struct metaroce_queue_info sq;
	struct metaroce_queue_info rq;
	__u32 max_inline;
	__u32 reserved;
};

/* Driver part of the create_srq response. */
struct metaroce_create_srq_resp {
	struct metaroce_queue_info srq;
};

/*
 * Driver part of the modify_srq command. modify_srq has no response, so
 * a process resizing its SRQ (IBV_SRQ_MAX_WR) names where the kernel
 * writes the new ring's struct metaroce_queue_info. The new ring holds
 * every receive the process had posted and the kernel had not taken
 * (producer index as before, consumer 0); the old mapping stays readable
 * until it is unmapped, but the kernel reads only the new. A command
 * without this part cannot resize a user SRQ (EOPNOTSUPP).
 */
struct metaroce_modify_srq_cmd {
	__aligned_u64 ring_info_addr;	/* struct metaroce_queue_info * */
};

/*
 * Driver part of the create_ah response (version 2): the number a UD send
 * slot names this AH by. Never 0; numbers are handed out cyclically, so
 * one of a destroyed AH is not soon reused. The kernel resolves it when
 * it sends, in the sending QP's PD only: a number of another PD, another
 * process or a destroyed AH completes the WQE with IBV_WC_LOC_QP_OP_ERR.
 */
struct metaroce_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

struct metaroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/*
 * A send queue slot: the header, then num_sge struct metaroce_sge or, with
 * IBV_SEND_INLINE, @length bytes of inline data. opcode and send_flags use
 * the IBV_WR_* and IBV_SEND_* values. The kernel copies a slot before
 * checking it and reports a malformed one with IBV_WC_LOC_QP_OP_ERR.
 */
struct metaroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;
	__u32 num_sge;
	__u32 length;		/* inline bytes; ignored without INLINE */
	union {
		__be32 imm_data;
		__u32 invalidate_rkey;
	} ex;
	__u32 reserved;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {		/* UD QPs (version 2) */
			__u32 ah_num;	/* struct metaroce_create_ah_resp */
			__u32 remote_qpn;
			__u32 remote_qkey; /* high bit set: the QP's Q_Key */
			__u32 reserved;
		} ud;
		/*
		 * IBV_WR_BIND_MW (version 3), num_sge 0. Checked when it
		 * executes; a broken bind rule completes with
		 * IBV_WC_MW_BIND_ERR and moves the QP to the error state.
		 */
		struct {
			__aligned_u64 addr;	/* in the MR's address space */
			__aligned_u64 length;	/* 0: unbind (type 1 only) */
			__u32 mw_rkey;	/* the window's current rkey */
			__u32 rkey;	/* new rkey: same index, any tag byte */
			__u32 mr_lkey;
			__u32 access;	/* IBV_ACCESS_REMOTE_* */
		} bind;
	} wr;
};

/* A receive queue (or SRQ) slot: the header, then num_sge SGEs. */
struct metaroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
};

#endif /* METAROCE_ABI_H */
