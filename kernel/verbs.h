/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Verbs objects of metaroce: PD, AH, MR, CQ, SRQ, QP.
 *
 * This header is the contract between the verbs objects (pd.c ah.c mr.c
 * mr_copy.c cq.c srq.c qp.c qp_attr.c qp_post.c) and the transport glue:
 * the glue finds QPs and MRs by number, takes work requests, checks and
 * moves bytes through mrc_mr_check()/mrc_mr_copy(), and reports
 * completions. No transport logic lives behind these functions.
 */
#ifndef _MRC_VERBS_H
#define _MRC_VERBS_H

#include <linux/completion.h>
#include <linux/dma-direction.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/iosys-map.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "kcompat.h"
#include "queue.h"

struct mrc_qp;
struct mrc_qp_hooks;
struct mrc_sge;
struct mrc_stats;

/* Device limits the verbs objects enforce and query_device reports. */
#define MRC_VENDOR_ID		0xffffff	/* no OUI, as rdma_rxe */
#define MRC_VENDOR_PART_ID	0x4d52		/* "MR" */
#define MRC_MAX_QP_WR		16384
#define MRC_MAX_SGE		32
#define MRC_MAX_INLINE		512
#define MRC_MAX_CQE		65535
#define MRC_MAX_SRQ_WR		16384
#define MRC_MAX_RD_ATOMIC	128
#define MRC_MAX_FRMR_PAGES	512
#define MRC_MAX_MSG_SIZE	BIT(31)		/* 2 GiB */
#define MRC_MIN_QPN		16		/* 0..15 are never handed out */
#define MRC_MAX_QPN		0xffffff	/* 24-bit on the wire */
#define MRC_MAX_MR_INDEX	0xffffff	/* key = index << 8 | variant */
#define MRC_MAX_AH_NUM		0xffffff	/* numbers of user AHs: 1.. */
#define MRC_SRQ_INFLIGHT	256		/* WQEs a QP may hold from an SRQ */
/* Q_Keys with this bit are controlled: not for processes (IBA 10.2.5). */
#define MRC_QKEY_CONTROLLED	0x80000000u
/* Opcode of a malformed user send WQE: complete it with LOC_QP_OP_ERR. */
#define MRC_WR_INVALID		0xff

/*
 * Per-device tables, embedded in the device struct. Lookups run in any
 * context (softirq receive included), hence the irq-safe xarray locks.
 */
struct mrc_verbs_tables {
	struct xarray mrs;	/* key >> 8 -> struct mrc_mr, or mrc_mw (mw.h) */
	struct xarray qps;	/* qp number -> struct mrc_qp */
	struct xarray ahs;	/* AH number -> struct mrc_ah (user AHs) */
	u32 next_mr;		/* cyclic allocation cursors */
	u32 next_qpn;
	u32 next_ah;
	atomic_t num_mw;	/* windows, at most MRC_MAX_MW */
	struct mrc_qp *gsi;	/* QP1, set while it exists */
	const struct mrc_qp_hooks *qp_hooks;	/* transport glue */
	const struct mrc_qp_hooks *ud_hooks;	/* ... of UD and GSI QPs */
};

void mrc_verbs_tables_init(struct mrc_verbs_tables *t);
void mrc_verbs_tables_destroy(struct mrc_verbs_tables *t);
/* The tables of the device behind @ibdev. */
struct mrc_verbs_tables *mrc_dev_tables(struct ib_device *ibdev);
/* The port's netdev (no reference taken; held by ib_core). */
struct net_device *mrc_dev_netdev(struct ib_device *ibdev);
void mrc_verbs_fill_device_attr(struct ib_device_attr *attr);

/* --- PD --------------------------------------------------------------- */

struct mrc_pd {
	struct ib_pd ibpd;
};

static inline struct mrc_pd *to_mrc_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct mrc_pd, ibpd);
}

int mrc_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int mrc_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* --- AH / address vector ---------------------------------------------- */

/* Everything the transport needs to address a RoCE v2 peer. */
struct mrc_av {
	union ib_gid dgid;
	union ib_gid sgid;
	u8 sgid_index;
	u8 port_num;
	u8 network_type;	/* RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6 */
	u8 hop_limit;
	u8 traffic_class;
	u8 sl;
	u8 dmac[ETH_ALEN];
	u32 flow_label;
	union {
		struct sockaddr_in in4;
		struct sockaddr_in6 in6;
	} saddr, daddr;
};

struct mrc_ah {
	struct ib_ah ibah;
	struct mrc_av av;
	u32 num;		/* in tables->ahs; 0 for a kernel consumer's */
};

static inline struct mrc_ah *to_mrc_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct mrc_ah, ibah);
}

int mrc_av_from_attr(struct ib_device *ibdev, const struct rdma_ah_attr *attr,
		     struct mrc_av *av);
/* Pure part of mrc_av_from_attr(), GID entry already read (KUnit target). */
int mrc_av_fill(const struct rdma_ah_attr *attr,
		const struct ib_gid_attr *sgid_attr,
		const struct net_device *gid_ndev,
		const struct net_device *port_ndev, struct mrc_av *av);
void mrc_av_to_attr(const struct mrc_av *av, struct rdma_ah_attr *attr);
int mrc_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		  struct ib_udata *udata);
int mrc_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
/*
 * The AV of the user AH numbered @num, copied into @av, if that AH is in
 * @ahs and belongs to @pd (the sending QP's): a process names AHs by
 * number in its send ring, so a number of another PD or process, or of a
 * destroyed AH, must not resolve. -EINVAL otherwise. Any context; the
 * copy is taken under the table's lock, which destroy_ah takes too, so no
 * reference outlives the call (KUnit target).
 */
int mrc_ah_lookup(struct xarray *ahs, u32 num, const struct ib_pd *pd,
		  struct mrc_av *av);
int mrc_destroy_ah(struct ib_ah *ibah, u32 flags);

/* --- MR --------------------------------------------------------------- */

enum mrc_mr_state {
	MRC_MR_INVALID,		/* being torn down: no access */
	MRC_MR_FREE,		/* fast-reg MR without a valid registration */
	MRC_MR_VALID,
};

/*
 * Translation: a VALID MR covers [iova, iova + length). Byte va of it
 * lives at offset (va - iova) + first_offset of the page list, pages being
 * 1 << page_shift bytes. Registration guarantees
 * first_offset + length <= npages << page_shift, so a range that passed
 * mrc_mr_check() never indexes past the page list.
 */
struct mrc_mr {
	struct ib_mr ibmr;
	spinlock_t lock;	/* state, key, access, iova, length */
	refcount_t ref;		/* the table's reference + lookups */
	struct completion released;
	struct rcu_head rcu;
	enum ib_mr_type type;	/* DMA, USER or MEM_REG */
	enum mrc_mr_state state;
	u32 key;		/* lkey == rkey; remote use needs REMOTE_* */
	int access;		/* IB_ACCESS_* granted */
	u64 iova;
	u64 length;
	struct ib_umem *umem;	/* USER */
	struct page **pages;	/* USER: pinned pages */
	u64 *page_va;		/* MEM_REG: kernel addresses of the pages */
	u32 npages;		/* filled entries of pages/page_va */
	u32 max_pages;		/* capacity of pages/page_va */
	u32 page_shift;
	u32 first_offset;	/* offset of iova in the first page */
	u32 map_offset;		/* MEM_REG: first_offset of the last map */
	u32 map_shift;		/* MEM_REG: page_shift of the last map */
	atomic_t mw_bound;	/* windows bound to it (mw.c): no dereg */
	bool no_bind;		/* being replaced by rereg: no new windows */
	/* a USER MR over a dma-buf (mr_dmabuf.c) instead of umem and pages */
	struct dma_buf *dmabuf;
	struct iosys_map dmabuf_map;	/* the exporter's kernel mapping */
	enum dma_data_direction dmabuf_dir;	/* of begin_cpu_access */
	u8 *kva;		/* byte iova of the MR in that mapping */
};

static inline struct mrc_mr *to_mrc_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct mrc_mr, ibmr);
}

struct ib_mr *mrc_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *mrc_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
struct ib_mr *mrc_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg);
int mrc_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
struct ib_mr *mrc_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				u64 length, u64 iova, int access,
				struct ib_pd *pd, struct ib_udata *udata);
int mrc_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *mrc_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				     u64 length, u64 iova, int fd, int access,
				     struct mrc_reg_dmabuf_arg *unused);
/* mr_dmabuf.c: map [offset, offset + length) of dma-buf @fd into @mr */
int mrc_mr_dmabuf_map(struct mrc_mr *mr, int fd, u64 offset, u64 length,
		      int access);
void mrc_mr_dmabuf_unmap(struct mrc_mr *mr);

/* Pure checks, no device needed (KUnit targets). */
bool mrc_range_within(u64 base, u64 size, u64 va, u64 len);
bool mrc_access_allows(int granted, int need);

/* Lookup by key (lkey or rkey); NULL if none. Drop with mrc_mr_put(). */
struct mrc_mr *mrc_mr_get(struct ib_device *ibdev, u32 key);
/* The same in the key table @keys (tables->mrs); never a window. */
struct mrc_mr *mrc_mr_lookup(struct xarray *keys, u32 key);
void mrc_mr_put(struct mrc_mr *mr);

/*
 * THE gate before any byte is placed into or read from an MR: @key must be
 * the MR's current key, the MR valid and in @pd, [va, va + len) inside it
 * and @need (IB_ACCESS_* bits; 0 = local read) granted. Returns 0, or
 * -EINVAL (key, state or PD), -EACCES (permission), -ERANGE (bounds).
 */
int mrc_mr_check(struct mrc_mr *mr, const struct ib_pd *pd, u32 key,
		 u64 va, u64 len, int need);
/* mrc_mr_get() + mrc_mr_check(); the MR is returned with a reference. */
struct mrc_mr *mrc_mr_get_checked(const struct ib_pd *pd, u32 key, u64 va,
				  u64 len, int need, int *err);

/* Fast registration work requests, executed by the send path in order. */
int mrc_mr_fast_reg(const struct ib_pd *pd, struct mrc_mr *mr, u32 key,
		    int access);
int mrc_mr_invalidate(struct xarray *keys, const struct ib_pd *pd, u32 key);

enum mrc_copy_dir {
	MRC_COPY_TO_MR,		/* placement: buffer -> MR */
	MRC_COPY_FROM_MR,	/* gather: MR -> buffer */
};

/* Move bytes; only after mrc_mr_check() passed for the same range. */
int mrc_mr_copy(struct mrc_mr *mr, u64 va, void *buf, u64 len,
		enum mrc_copy_dir dir);
/*
 * Copy @len bytes at message offset @offset of an SGE list (lkeys checked
 * against @pd: local write for placement, local read for gather).
 * -ENOSPC when the list is shorter than offset + len.
 */
int mrc_sgl_copy(const struct ib_pd *pd, const struct mrc_sge *sge,
		 u32 num_sge, u64 offset, void *buf, u64 len,
		 enum mrc_copy_dir dir);
/*
 * Placement from received bytes still in @skb's fragments (@len of them
 * at @off), as mrc_mr_copy() and mrc_sgl_copy() place from a buffer.
 */
int mrc_mr_place_skb(struct mrc_mr *mr, u64 va, const struct sk_buff *skb,
		     int off, u64 len);
int mrc_sgl_place_skb(const struct ib_pd *pd, const struct mrc_sge *sge,
		      u32 num_sge, u64 offset, const struct sk_buff *skb,
		      int off, u64 len);
/* 64-bit atomic on an 8-byte aligned, checked address; *orig = old value. */
int mrc_mr_atomic(struct mrc_mr *mr, u64 va, bool cmp_swap, u64 cmp_add,
		  u64 swap, u64 *orig);

/* --- work requests ---------------------------------------------------- */

struct mrc_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

/* IB_WR_BIND_MW, from a user send slot only (mw.c). */
struct mrc_bind_wr {
	u64 addr;
	u64 length;		/* 0: unbind a type 1 window */
	u32 mw_rkey;		/* the window's current rkey */
	u32 rkey;		/* its new rkey: same index, new tag byte */
	u32 mr_lkey;
	u32 access;		/* IB_ACCESS_REMOTE_* */
};

/*
 * A send WQE as stored in the send queue: everything copied out of the
 * ib_send_wr at post time, followed by num_sge SGEs or, with
 * IB_SEND_INLINE, by @length bytes of inline data.
 */
struct mrc_send_wqe {
	u64 wr_id;
	u32 opcode;		/* enum ib_wr_opcode */
	u32 send_flags;		/* IB_SEND_* */
	u32 num_sge;
	u32 length;		/* payload bytes (sum of SGEs or inline) */
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
	u32 reserved;
	union {
		struct {
			u64 remote_addr;
			u32 rkey;
		} rdma;
		struct {
			u64 remote_addr;
			u64 compare_add;
			u64 swap;
			u32 rkey;
		} atomic;
		struct {
			struct mrc_mr *mr;	/* kernel consumers only */
			u32 key;
			int access;
		} reg;
		struct mrc_bind_wr bind;
		struct {
			struct mrc_ah *ah;	/* held by the consumer */
			u32 ah_num;	/* user QPs (ah NULL): mrc_ah_lookup() */
			u32 remote_qpn;
			u32 remote_qkey;
		} ud;
	} wr;
	u8 data[] __aligned(8);
};

static inline struct mrc_sge *mrc_send_wqe_sge(struct mrc_send_wqe *wqe)
{
	return (struct mrc_sge *)wqe->data;
}

static inline bool mrc_send_wqe_inline(const struct mrc_send_wqe *wqe)
{
	return wqe->send_flags & IB_SEND_INLINE;
}

struct mrc_recv_wqe {
	u64 wr_id;
	u32 num_sge;
	u32 length;		/* sum of SGE lengths */
	struct mrc_sge sge[];
};

/* Pure WQE validation (KUnit targets). */
int mrc_wr_opcode_ok(enum ib_qp_type type, enum ib_wr_opcode opcode);
int mrc_send_wr_check(enum ib_qp_type type, const struct ib_send_wr *wr,
		      u32 max_sge, u32 max_inline, u64 *total_len);
int mrc_recv_wr_check(const struct ib_recv_wr *wr, u32 max_sge,
		      u64 *total_len);
void mrc_send_wqe_fill(struct mrc_send_wqe *wqe, const struct ib_send_wr *wr,
		       u64 total);
/* Pure: copy one user ring slot, then check the copy (KUnit targets). */
int mrc_send_wqe_from_user(enum ib_qp_type type, struct mrc_send_wqe *wqe,
			   const struct metaroce_send_wqe *uwqe, u32 max_sge,
			   u32 max_inline);
int mrc_recv_wqe_from_user(struct mrc_recv_wqe *wqe,
			   const struct metaroce_recv_wqe *uwqe, u32 max_sge);
size_t mrc_user_send_slot_size(u32 max_sge, u32 max_inline);
size_t mrc_user_recv_slot_size(u32 max_sge);
void mrc_recv_wqe_fill(struct mrc_recv_wqe *wqe, const struct ib_recv_wr *wr,
		       u64 total);
size_t mrc_send_wqe_size(u32 max_sge, u32 max_inline);
size_t mrc_recv_wqe_size(u32 max_sge);
enum ib_wc_opcode mrc_wr_to_wc_opcode(enum ib_wr_opcode opcode);

/* --- CQ --------------------------------------------------------------- */

struct mrc_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* ring, notify, overflow */
	struct mrc_queue q;	/* ib_wc slots, ib_uverbs_wc for a user CQ */
	u8 notify;		/* armed IB_CQ_SOLICITED / IB_CQ_NEXT_COMP */
	bool overflow;		/* CQ_ERR raised; CQ refuses completions */
	bool user;		/* ring mapped by a process */
};

static inline struct mrc_cq *to_mrc_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct mrc_cq, ibcq);
}

int mrc_cq_init(struct mrc_cq *cq, u32 cqe);
void mrc_cq_fini(struct mrc_cq *cq);
int mrc_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct mrc_create_cq_arg *arg);
int mrc_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mrc_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int mrc_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int mrc_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/*
 * Push one completion; calls the completion handler when armed. Returns
 * -EOVERFLOW (and raises IB_EVENT_CQ_ERR once) when the ring is full.
 * Must not be called with a lock held that a consumer callback may take.
 */
int mrc_cq_post(struct mrc_cq *cq, const struct ib_wc *wc, bool solicited);

/* The two halves of mrc_cq_post(), for producers holding their own lock. */
#define MRC_CQ_KICK_COMP	1	/* call the completion handler */
#define MRC_CQ_KICK_ERR		2	/* raise IB_EVENT_CQ_ERR */
#define MRC_CQ_DROPPED		4	/* the CQE was not stored */
unsigned int mrc_cq_push(struct mrc_cq *cq, const struct ib_wc *wc,
			 bool solicited);
void mrc_cq_kick(struct mrc_cq *cq, unsigned int kick);

/* --- SRQ -------------------------------------------------------------- */

struct mrc_srq {
	struct ib_srq ibsrq;
	spinlock_t lock;	/* ring and limit */
	struct mrc_queue q;	/* struct mrc_recv_wqe slots */
	struct mrc_queue uq;	/* user SRQ: the ring the process fills */
	u32 max_wr;		/* what the consumer asked for */
	u32 max_sge;
	u32 limit;		/* armed srq_limit, 0 = not armed */
};

static inline struct mrc_srq *to_mrc_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct mrc_srq, ibsrq);
}

int mrc_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int mrc_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int mrc_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int mrc_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int mrc_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
/*
 * Pop the oldest WQE into @out (room for max_sge SGEs); -ENOENT if none.
 * *limit_reached: call mrc_srq_limit_event() once locks are dropped.
 */
int mrc_srq_take(struct mrc_srq *srq, struct mrc_recv_wqe *out,
		 bool *limit_reached);
void mrc_srq_limit_event(struct mrc_srq *srq);
/* Pure: the srq_limit / max_wr rules of modify_srq (KUnit target). */
int mrc_srq_attr_check(const struct ib_srq_attr *attr, int mask,
		       u32 cur_max_wr, u32 count, u32 dev_max_wr);

/* --- QP --------------------------------------------------------------- */

/*
 * A work queue: WQEs in [q.cons, cursor) were taken by the transport and
 * are in progress, [cursor, q.prod) wait to be taken. Completion always
 * retires the oldest (q.cons), which keeps completions in posting order.
 */
struct mrc_wq {
	spinlock_t lock;	/* ring, cursor and, for sq+rq, qp->state */
	struct mrc_queue q;
	/*
	 * User QP: the ring the process fills. WQEs are copied from it into
	 * q at the same index (mrc_*_wqe_from_user()) before anything uses
	 * them, and q's consumer index is published back to it.
	 */
	struct mrc_queue uq;
	u32 cursor;
	u32 max_wr;		/* capacity reported to the consumer */
	u32 max_sge;
};

/* Connection attributes set by modify_qp, read by the transport. */
struct mrc_qp_attrs {
	struct mrc_av av;	/* valid once IB_QP_AV was set */
	u32 dest_qp_num;
	u32 sq_psn;
	u32 rq_psn;
	u32 qkey;
	int access;		/* qp_access_flags: IB_ACCESS_REMOTE_* */
	enum ib_mtu path_mtu;
	u16 pkey_index;
	u8 port_num;
	u8 timeout;		/* 4.096 us * 2^timeout, 0 = infinite */
	u8 retry_cnt;
	u8 rnr_retry;		/* 7 = infinite */
	u8 min_rnr_timer;
	u8 max_rd_atomic;	/* RDMA reads/atomics we may have in flight */
	u8 max_dest_rd_atomic;	/* ... the peer may have at us */
	bool sq_draining;
	bool en_sqd_async_notify;
};

/*
 * Transport callbacks, installed per device by the glue (tables->qp_hooks)
 * and copied into each QP at creation; NULL members are skipped.
 */
struct mrc_qp_hooks {
	/* process context, before the QP is visible; may set qp->xport */
	int (*create)(struct mrc_qp *qp);
	/* modify mutex held: attributes and state were applied */
	void (*modified)(struct mrc_qp *qp, int mask, enum ib_qp_state old);
	/* poster's context (any, even hard irq), no lock held: kick sender */
	void (*send_posted)(struct mrc_qp *qp);
	/* modify mutex held, QP already out of the table: stop using it */
	void (*destroy)(struct mrc_qp *qp);
	/* process context, every QP reference is gone: free qp->xport */
	void (*release)(struct mrc_qp *qp);
	/*
	 * The transport carries UD/GSI sends. Until it does, post_send on
	 * those QPs fails at once: a MAD send that never completes would
	 * hang ib_mad's agent teardown (and with it device removal).
	 */
	bool ud_sends;
};

struct mrc_qp {
	struct ib_qp ibqp;
	refcount_t ref;		/* the QP table's reference + lookups */
	struct completion released;
	struct mutex modify_lock;	/* modify, query, destroy */
	enum ib_qp_state state;	/* written under both wq locks */
	struct mrc_qp_attrs attr;
	bool sig_all;		/* IB_SIGNAL_ALL_WR */
	bool is_user;
	u32 max_inline;
	struct mrc_wq sq;	/* struct mrc_send_wqe slots */
	struct mrc_wq rq;	/* struct mrc_recv_wqe slots, or SRQ WQEs taken */
	struct mrc_srq *srq;
	struct mrc_cq *scq;
	struct mrc_cq *rcq;
	const struct mrc_qp_hooks *hooks;
	void *xport;		/* transport private */
	/* a bound QP counter's, where its events count (counter.h) */
	struct mrc_stats __percpu __rcu *counter_stats;
};

static inline struct mrc_qp *to_mrc_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct mrc_qp, ibqp);
}

static inline enum ib_qp_state mrc_qp_state(const struct mrc_qp *qp)
{
	return READ_ONCE(qp->state);
}

/*
 * [OPS-40] RC and UC QPs are connected: one transport (xport.c) carries
 * both, UC with fewer operations ([OPS-41]).
 */
static inline bool mrc_qp_type_connected(enum ib_qp_type type)
{
	return type == IB_QPT_RC || type == IB_QPT_UC;
}

int mrc_qp_init(struct mrc_qp *qp, struct ib_qp_init_attr *init);
void mrc_qp_fini(struct mrc_qp *qp);
int mrc_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int mrc_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int mrc_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int mrc_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mrc_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int mrc_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);

/* Limits modify_qp checks values against (from device and port). */
struct mrc_qp_limits {
	enum ib_mtu active_mtu;
	u32 max_rd_atomic;		/* device max_qp_init_rd_atom */
	u32 max_dest_rd_atomic;		/* device max_qp_rd_atom */
	u32 port_cnt;
	u32 pkey_tbl_len;
};

/* Pure modify_qp attribute validation (KUnit target). */
int mrc_qp_attr_check(enum ib_qp_type type, enum ib_qp_state cur,
		      const struct ib_qp_attr *attr, int mask,
		      const struct mrc_qp_limits *lim);
int mrc_qp_init_check(const struct ib_qp_init_attr *init,
		      const struct ib_device_attr *dev);
/* Pure: whether a WR may be posted in @state; flush = post then flush. */
int mrc_qp_post_state_ok(enum ib_qp_state state, bool send, bool *flush);

void mrc_qp_set_state(struct mrc_qp *qp, enum ib_qp_state state);
void mrc_qp_flush_posted(struct mrc_qp *qp, bool send);

/*
 * Transport entry points (see qp.c for who owns a WQE when).
 *
 * mrc_qp_get: the QP numbered @qpn with a reference, or NULL.
 * mrc_qp_next_send_wqe: the next posted send WQE, now owned by the
 *	transport, or NULL (none, or the QP is not in RTS). Valid until
 *	completed. Opcode MRC_WR_INVALID (a malformed user WQE): send
 *	nothing, complete it with IB_WC_LOC_QP_OP_ERR.
 * mrc_qp_complete_send: retire the oldest WQE the transport owns; a CQE
 *	when signaled or on error; an error status also moves the QP to ERR.
 * mrc_qp_take_recv: the next receive WQE (from the RQ or the SRQ), owned
 *	by the transport until completed, or NULL (none: RNR).
 * mrc_qp_sq_poll_mode: a sender that polls a user SQ turns the process's
 *	doorbell off (true) and on again (false; returns true when WQEs
 *	arrived meanwhile and the sender must look again); @kick while off:
 *	the process rings once when it waits (METAROCE_QUEUE_KICK_ON_WAIT).
 * mrc_qp_recv_available: receive WQEs posted and not taken yet, user ring
 *	included (0 with an SRQ: ask the SRQ by taking); under the
 *	transport's lock, which alone takes receives.
 * mrc_qp_complete_recv: retire the oldest receive WQE the transport owns
 *	with @wc (status, opcode, byte_len, ex, wc_flags, src_qp...; wr_id and
 *	qp are filled in here); @solicited for the CQ's arming rules.
 * mrc_qp_error: move to ERR from any context and raise @event (0: none).
 * mrc_qp_remote_mr: responder side of RDMA READ/WRITE/atomics: the QP's
 *	access flags must allow @need, then the MR or window the rkey names
 *	is checked in the QP's PD (mrc_rkey_get()). Returns the MR with a
 *	reference and *@va, the remote address, made the MR's (a zero-based
 *	window's offsets differ), or NULL and *err.
 */
struct mrc_qp *mrc_qp_get(struct ib_device *ibdev, u32 qpn);
/* The first QP numbered *@qpn or above, with a reference, its number there. */
struct mrc_qp *mrc_qp_get_next(struct ib_device *ibdev, u32 *qpn);
void mrc_qp_put(struct mrc_qp *qp);
struct mrc_send_wqe *mrc_qp_next_send_wqe(struct mrc_qp *qp);
int mrc_qp_complete_send(struct mrc_qp *qp, enum ib_wc_status status);
struct mrc_recv_wqe *mrc_qp_take_recv(struct mrc_qp *qp);
u32 mrc_qp_recv_available(struct mrc_qp *qp);
bool mrc_qp_sq_poll_mode(struct mrc_qp *qp, bool polling, bool kick);
int mrc_qp_complete_recv(struct mrc_qp *qp, const struct ib_wc *wc,
			 bool solicited);
int mrc_qp_error(struct mrc_qp *qp, enum ib_event_type event);
struct mrc_mr *mrc_qp_remote_mr(struct mrc_qp *qp, u32 rkey, u64 *va, u64 len,
				int need, int *err);
void mrc_qp_event(struct mrc_qp *qp, enum ib_event_type event);

#endif /* _MRC_VERBS_H */
