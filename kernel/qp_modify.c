// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * modify_qp: the verbs state machine and the attribute values a real HCA
 * would refuse. ib_modify_qp_is_ok() knows which attributes each
 * transition requires and allows; mrc_qp_attr_check() adds the value
 * ranges (IBA 11.2.5 and the device/port limits) and is pure, for KUnit.
 */

#include "verbs.h"

/* QP access flags we honour; the optional range may always be ignored. */
#define MRC_QP_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ACCESS_OPTIONAL)

#define MRC_PSN_MASK	0xffffff

int mrc_qp_attr_check(enum ib_qp_type type, enum ib_qp_state cur,
		      const struct ib_qp_attr *attr, int mask,
		      const struct mrc_qp_limits *lim)
{
	enum ib_qp_state next = (mask & IB_QP_STATE) ? attr->qp_state : cur;

	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		return -EINVAL;
	if (next > IB_QPS_ERR)
		return -EINVAL;
	if (!ib_modify_qp_is_ok(cur, next, type, mask))
		return -EINVAL;

	/* no automatic path migration: one path (the transport's many) */
	if (mask & IB_QP_ALT_PATH)
		return -EOPNOTSUPP;
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    attr->path_mig_state != IB_MIG_MIGRATED)
		return -EINVAL;

	if ((mask & IB_QP_PORT) &&
	    (attr->port_num < 1 || attr->port_num > lim->port_cnt))
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= lim->pkey_tbl_len)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096 ||
	     attr->path_mtu > lim->active_mtu))
		return -EINVAL;
	/* 5-bit exponents and 3-bit counters on the wire (IBA 9.7.5.2) */
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > lim->max_rd_atomic)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > lim->max_dest_rd_atomic)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~MRC_QP_ACCESS))
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) &&
	    (!attr->dest_qp_num || attr->dest_qp_num > MRC_MAX_QPN))
		return -EINVAL;
	return 0;
}

static int mrc_qp_limits(struct mrc_qp *qp, const struct ib_qp_attr *attr,
			 int mask, struct mrc_qp_limits *lim)
{
	struct ib_device *ibdev = qp->ibqp.device;
	struct ib_port_attr pattr;
	u32 port = (mask & IB_QP_PORT) ? attr->port_num : qp->attr.port_num;
	int err;

	lim->max_rd_atomic = ibdev->attrs.max_qp_init_rd_atom;
	lim->max_dest_rd_atomic = ibdev->attrs.max_qp_rd_atom;
	lim->port_cnt = rdma_end_port(ibdev);
	lim->pkey_tbl_len = 1;
	lim->active_mtu = IB_MTU_4096;

	/* the MTU follows the netdev's, so ask the port each time */
	if ((mask & IB_QP_PATH_MTU) && rdma_is_port_valid(ibdev, port)) {
		err = ib_query_port(ibdev, port, &pattr);
		if (err)
			return err;
		lim->active_mtu = pattr.active_mtu;
	}
	return 0;
}

static void mrc_qp_apply(struct mrc_qp *qp, const struct ib_qp_attr *attr,
			 int mask, const struct mrc_av *av)
{
	struct mrc_qp_attrs *a = &qp->attr;

	if (mask & IB_QP_AV)
		a->av = *av;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		a->access = attr->qp_access_flags & ~IB_ACCESS_OPTIONAL;
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn & MRC_PSN_MASK;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn & MRC_PSN_MASK;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
}

int mrc_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct mrc_qp *qp = to_mrc_qp(ibqp);
	struct mrc_qp_limits lim;
	enum ib_qp_state old;
	struct mrc_av av;
	int err;

	/* no driver-specific modify_qp data is defined in the ABI */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	/*
	 * IBA 10.2.5: a Q_Key with the high bit set is controlled, for
	 * privileged consumers only; a process's QP may not take one, so it
	 * cannot send with one either ([PKT-86]: QP1's is 0x80010000).
	 */
	if (udata && (mask & IB_QP_QKEY) && (attr->qkey & MRC_QKEY_CONTROLLED))
		return -EPERM;

	mutex_lock(&qp->modify_lock);
	old = mrc_qp_state(qp);
	err = mrc_qp_limits(qp, attr, mask, &lim);
	if (!err)
		err = mrc_qp_attr_check(ibqp->qp_type, old, attr, mask, &lim);
	if (!err && (mask & IB_QP_AV))
		err = mrc_av_from_attr(ibqp->device, &attr->ah_attr, &av);
	if (err)
		goto out;

	mrc_qp_apply(qp, attr, mask, &av);
	if (mask & IB_QP_STATE)
		mrc_qp_set_state(qp, attr->qp_state);
	if (qp->hooks && qp->hooks->modified)
		qp->hooks->modified(qp, mask, old);
out:
	mutex_unlock(&qp->modify_lock);
	return err;
}
