/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libmetaroce: the rdma-core provider for metaroce devices. Private to the
 * provider; the only ABI it shares with the kernel is kernel/uapi/metaroce-abi.h.
 */
#ifndef MRC_PROVIDER_H
#define MRC_PROVIDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "abi/ibverbs-private-34.h"
#include "uapi/metaroce-abi.h"
#include "ring.h"

/*
 * The kernel ABI versions this build of the provider speaks, inclusive.
 * Version 2 only added UD (uAPI header): with a version 1 kernel, UD QPs
 * and AH numbers are refused here (MRC_ABI_UD); version 3 windows
 * (MRC_ABI_MW), refused before it.
 */
#define MRC_PROVIDER_ABI_MIN 1
#define MRC_PROVIDER_ABI_MAX METAROCE_ABI_VERSION
#define MRC_ABI_UD 2
#define MRC_ABI_MW 3	/* memory windows: BIND_MW and LOCAL_INV slots */

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

/* An unsigned tuning knob from the environment, @def when unset or bad. */
static inline uint32_t mrc_env_uint(const char *name, uint32_t def)
{
	const char *e = getenv(name);
	char *end;
	unsigned long v;

	if (!e || !*e)
		return def;
	v = strtoul(e, &end, 0);
	return *end || v > UINT32_MAX ? def : (uint32_t)v;
}

static inline struct mrc_device *to_mdev(struct ibv_device *ibdev)
{
	return mrc_container_of(ibdev, struct mrc_device, vdev.device);
}

static inline struct mrc_context *to_mctx(struct ibv_context *ibctx)
{
	return mrc_container_of(ibctx, struct mrc_context, vctx.context);
}

/* The largest message the kernel accepts (2 GiB, as its MRC_MAX_MSG_SIZE). */
#define MRC_MAX_MSG_SIZE 0x80000000ULL

/*
 * The kernel fills CQ slots from its struct ib_wc, whose flag bits 2 and 3
 * (IB_WC_WITH_INVALIDATE, IB_WC_IP_CSUM_OK) are swapped against libibverbs'.
 */
#define MRC_KWC_WITH_INVALIDATE (1U << 2)
#define MRC_KWC_IP_CSUM_OK (1U << 3)

struct mrc_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;	/* pollers of this CQ */
	struct mrc_ring ring;		/* mine = consumer index */
	uint32_t sq_backlog;		/* WRs out on the last poster's SQ */
	uint64_t wait_since;		/* ns, first empty poll; 0: none */
	uint64_t spin_since;		/* ns, start of this spin; 0: none */
	uint64_t last_wait_ns;		/* first empty poll to completion */
	uint32_t spin_us;		/* polling an empty CQ before a nap */
	uint32_t long_wait_us;		/* a wait this long: nap the next */
	uint32_t nap_us;		/* 0: never nap */
	uint64_t kick;			/* MRC_CQ_KICK | QP handle; 0: none */
	uint64_t kicks;			/* doorbells rung by pollers */
	struct ibv_wc cur;		/* cq_ex: the completion being read */
};

#define MRC_CQ_KICK	(1ull << 32)

struct mrc_srq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;	/* posters */
	struct mrc_ring ring;		/* mine = producer index */
	uint64_t recv_wrs;
};

struct mrc_qp {
	struct verbs_qp vqp;
	pthread_spinlock_t sq_lock;	/* posters, and wr_start..wr_complete */
	pthread_spinlock_t rq_lock;
	struct mrc_ring sq;
	struct mrc_ring rq;		/* hdr NULL on an SRQ */
	uint32_t max_inline;
	struct {			/* the ibv_wr_*() batch, under sq_lock */
		struct metaroce_send_wqe *cur;
		uint32_t count;
		uint32_t room;
		int err;
	} wr;
	struct {			/* MRC_PROVIDER_STATS=1 prints them */
		uint64_t send_wrs;
		uint64_t recv_wrs;
		uint64_t sq_doorbells;	/* system calls on the send side */
		uint64_t rq_doorbells;
	} stats;
};

/* An address handle; a UD send slot names it by the kernel's number. */
struct mrc_ah {
	struct ibv_ah ibah;
	uint32_t num;			/* metaroce_create_ah_resp.ah_num */
};

static inline struct mrc_ah *to_mah(struct ibv_ah *ibah)
{
	return mrc_container_of(ibah, struct mrc_ah, ibah);
}

static inline struct mrc_cq *to_mcq(struct ibv_cq *ibcq)
{
	return mrc_container_of(ibcq, struct mrc_cq, vcq.cq);
}

static inline struct mrc_qp *to_mqp(struct ibv_qp *ibqp)
{
	return mrc_container_of(ibqp, struct mrc_qp, vqp.qp);
}

static inline struct mrc_srq *to_msrq(struct ibv_srq *ibsrq)
{
	return mrc_container_of(ibsrq, struct mrc_srq, vsrq.srq);
}

/* A driver command with no driver data in that direction. */
struct mrc_empty {};

/* get_context: no driver request, our response after the core one. */
MRC_DRV_CMD(mrc_get_context, ibv_get_context, ib_uverbs_get_context_resp,
	    mrc_empty, metaroce_alloc_ucontext_resp);
/* create_ah: the AH number after the core response (ABI 2). */
MRC_DRV_CMD(mrc_create_ah, ibv_create_ah, ib_uverbs_create_ah_resp,
	    mrc_empty, metaroce_create_ah_resp);

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

/* wqe.c: pure, host-tested */
uint32_t mrc_slot_max_sge(uint32_t slot_size, size_t hdr);
void mrc_send_wqe_header(struct metaroce_send_wqe *w, uint64_t wr_id,
			 enum ibv_wr_opcode opcode, unsigned int send_flags);
/* @max_sge, @max_inline: the QP's, as the kernel granted them */
int mrc_send_wqe_build(void *slot, uint32_t slot_size, uint32_t max_sge,
		       uint32_t max_inline, enum ibv_qp_type type,
		       const struct ibv_send_wr *wr);
int mrc_send_wqe_set_ud(struct metaroce_send_wqe *w, struct ibv_ah *ah,
			uint32_t remote_qpn, uint32_t remote_qkey);
int mrc_send_wqe_set_bind(struct metaroce_send_wqe *w, struct ibv_mw *mw,
			  uint32_t rkey, const struct ibv_mw_bind_info *info);
int mrc_recv_wqe_build(void *slot, uint32_t slot_size, uint32_t max_sge,
		       const struct ibv_recv_wr *wr);
void mrc_wc_from_uverbs(struct ibv_wc *wc, const struct ib_uverbs_wc *u);

/* cq.c */
struct ibv_cq *mrc_create_cq(struct ibv_context *ibctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector);
int mrc_destroy_cq(struct ibv_cq *ibcq);
int mrc_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int mrc_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int mrc_resize_cq(struct ibv_cq *ibcq, int cqe);
/* The ring of a CQ the kernel just created; destroys it on failure. */
int mrc_cq_setup(struct mrc_cq *cq, int cmd_fd,
		 const struct metaroce_create_cq_resp *drv);
/* Ring the doorbell a post left to the poller, if any. */
void mrc_cq_kick(struct mrc_cq *cq);
void mrc_cq_kick_later(struct mrc_cq *cq, uint32_t qp_handle);
void mrc_cq_kick_forget(struct mrc_cq *cq, uint32_t qp_handle);

/* cq_ex.c */
struct ibv_cq_ex *mrc_create_cq_ex(struct ibv_context *ibctx,
				   struct ibv_cq_init_attr_ex *attr);

/* qp.c */
struct ibv_qp *mrc_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *mrc_create_qp_ex(struct ibv_context *ibctx,
				struct ibv_qp_init_attr_ex *attr);
int mrc_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int mrc_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init);
int mrc_destroy_qp(struct ibv_qp *ibqp);
void mrc_sq_ring(struct ibv_context *ctx, uint32_t qp_handle);
int mrc_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int mrc_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);
int mrc_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
/* installs the ibv_wr_*() entry points for @ops (IBV_QP_EX_WITH_*) */
void mrc_qp_set_wr_ops(struct mrc_qp *qp, uint64_t ops);

/* srq.c */
struct ibv_srq *mrc_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr);
int mrc_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask);
int mrc_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int mrc_destroy_srq(struct ibv_srq *ibsrq);

/* mr.c */
struct ibv_mr *mrc_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  uint64_t hca_va, int access);
struct ibv_mr *mrc_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				 size_t length, uint64_t iova, int fd,
				 int access);
int mrc_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		 void *addr, size_t length, int access);
int mrc_dereg_mr(struct verbs_mr *vmr);
struct ibv_ah *mrc_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int mrc_destroy_ah(struct ibv_ah *ah);

/* mw.c */
struct ibv_mw *mrc_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int mrc_dealloc_mw(struct ibv_mw *mw);
int mrc_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind);
/* qp.c: post_send's ring work, for ibv_post_send() and ibv_bind_mw() */
int mrc_post_send_ring(struct mrc_qp *qp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad_wr, bool type1_bind);

#endif /* MRC_PROVIDER_H */
