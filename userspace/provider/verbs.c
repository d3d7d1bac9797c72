// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The control verbs the provider implements so far. They are thin: the
 * kernel owns every object and answers through the generic uverbs commands.
 * Operations left NULL in mrc_context_ops fall back to libibverbs' dummies,
 * which fail cleanly with EOPNOTSUPP (memory windows, XRC, flows, DM...).
 * The data path lives in cq.c, qp.c, srq.c and wqe.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

static int mrc_query_device_ex(struct ibv_context *ibctx,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int err;

	err = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (err)
		return err;

	/* fw_ver packs major.minor.sub as 16-bit fields, like rxe and siw. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

static int mrc_query_port(struct ibv_context *ibctx, uint8_t port,
			  struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

/* A kernel without PDs yet answers EOPNOTSUPP; that reaches the caller. */
static struct ibv_pd *mrc_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	err = ibv_cmd_alloc_pd(ibctx, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	return pd;
}

static int mrc_dealloc_pd(struct ibv_pd *pd)
{
	int err;

	err = ibv_cmd_dealloc_pd(pd);
	if (err)
		return err;
	free(pd);
	return 0;
}

const struct verbs_context_ops mrc_context_ops = {
	.alloc_mw = mrc_alloc_mw,
	.alloc_pd = mrc_alloc_pd,
	.bind_mw = mrc_bind_mw,
	.create_ah = mrc_create_ah,
	.create_cq = mrc_create_cq,
	.create_cq_ex = mrc_create_cq_ex,
	.create_qp = mrc_create_qp,
	.create_qp_ex = mrc_create_qp_ex,
	.create_srq = mrc_create_srq,
	.dealloc_mw = mrc_dealloc_mw,
	.dealloc_pd = mrc_dealloc_pd,
	.dereg_mr = mrc_dereg_mr,
	.destroy_ah = mrc_destroy_ah,
	.destroy_cq = mrc_destroy_cq,
	.destroy_qp = mrc_destroy_qp,
	.destroy_srq = mrc_destroy_srq,
	.free_context = mrc_free_context,
	.modify_qp = mrc_modify_qp,
	.modify_srq = mrc_modify_srq,
	.poll_cq = mrc_poll_cq,
	.post_recv = mrc_post_recv,
	.post_send = mrc_post_send,
	.post_srq_recv = mrc_post_srq_recv,
	.query_device_ex = mrc_query_device_ex,
	.query_port = mrc_query_port,
	.query_qp = mrc_query_qp,
	.query_srq = mrc_query_srq,
	.reg_dmabuf_mr = mrc_reg_dmabuf_mr,
	.reg_mr = mrc_reg_mr,
	.rereg_mr = mrc_rereg_mr,
	.req_notify_cq = mrc_req_notify_cq,
	.resize_cq = mrc_resize_cq,
};
