// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The per-device tables of verbs objects (MR keys, QP numbers) and the
 * limits the objects enforce, reported through query_device.
 */

#include <linux/xarray.h>

#include "metaroce.h"
#include "mw.h"
#include "verbs.h"

void mrc_verbs_tables_init(struct mrc_verbs_tables *t)
{
	/* irq-safe: the receive path looks keys and QPs up from softirq */
	xa_init_flags(&t->mrs, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&t->qps, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&t->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	t->next_mr = 1;
	t->next_qpn = MRC_MIN_QPN;
	t->next_ah = 1;
	atomic_set(&t->num_mw, 0);
	t->gsi = NULL;
	t->qp_hooks = NULL;
}

void mrc_verbs_tables_destroy(struct mrc_verbs_tables *t)
{
	/* ib_core destroys every object before the device goes away */
	WARN_ON(!xa_empty(&t->mrs));
	WARN_ON(!xa_empty(&t->qps));
	WARN_ON(!xa_empty(&t->ahs));
	xa_destroy(&t->mrs);
	xa_destroy(&t->qps);
	xa_destroy(&t->ahs);
}

void mrc_verbs_fill_device_attr(struct ib_device_attr *attr)
{
	/*
	 * No IEEE OUI of our own: 0xffffff, as rdma_rxe reports, and a part
	 * ID of our own ("MR") so tools can tell metaroce from rxe.
	 */
	attr->vendor_id = MRC_VENDOR_ID;
	attr->vendor_part_id = MRC_VENDOR_PART_ID;
	attr->hw_ver = 1;
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = MRC_MAX_QPN - MRC_MIN_QPN;
	attr->max_qp_wr = MRC_MAX_QP_WR;
	attr->max_send_sge = MRC_MAX_SGE;
	attr->max_recv_sge = MRC_MAX_SGE;
	attr->max_sge_rd = MRC_MAX_SGE;
	attr->max_cq = 1 << 16;
	attr->max_cqe = MRC_MAX_CQE;
	attr->max_mr = MRC_MAX_MR_INDEX;
	attr->max_pd = 1 << 16;
	attr->max_mw = MRC_MAX_MW;
	attr->max_qp_rd_atom = MRC_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = MRC_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = MRC_MAX_RD_ATOMIC * 1024;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = 1 << 16;
	attr->max_srq = 1 << 16;
	attr->max_srq_wr = MRC_MAX_SRQ_WR;
	attr->max_srq_sge = MRC_MAX_SGE;
	attr->max_fast_reg_page_list_len = MRC_MAX_FRMR_PAGES;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	attr->device_cap_flags |= IB_DEVICE_BAD_PKEY_CNTR |
				  IB_DEVICE_BAD_QKEY_CNTR |
				  IB_DEVICE_SYS_IMAGE_GUID |
				  IB_DEVICE_RC_RNR_NAK_GEN |
				  IB_DEVICE_SRQ_RESIZE |
				  IB_DEVICE_MEM_MGT_EXTENSIONS |
				  IB_DEVICE_MEM_WINDOW |
				  IB_DEVICE_MEM_WINDOW_TYPE_2B;
}

struct mrc_verbs_tables *mrc_dev_tables(struct ib_device *ibdev)
{
	return &to_mrc_dev(ibdev)->tables;
}

struct net_device *mrc_dev_netdev(struct ib_device *ibdev)
{
	return to_mrc_dev(ibdev)->ndev;
}
