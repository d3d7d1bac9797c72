// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Opens a metaroce device through the public verbs API and exercises the
 * control path: open (get_context with the ABI check), the device/port/GID
 * queries, PD alloc/dealloc, a mapped CQ (poll, arm, destroy), and that a
 * verb the provider does not implement (memory windows) fails cleanly with
 * EOPNOTSUPP instead of crashing. Data moves in 45-verbs-check.
 * Run in the bed by selftests/cases/30-provider-devinfo.sh.
 *
 * usage: mrc_provider_smoke IBDEV
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

static int failures;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "FAIL: ");                             \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			failures++;                                            \
		}                                                              \
	} while (0)

static struct ibv_context *open_by_name(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex dattr;
	struct ibv_port_attr pattr;
	struct ibv_context *ctx;
	struct ibv_cq *cq;
	union ibv_gid gid;
	struct ibv_pd *pd;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IBDEV\n", argv[0]);
		return 2;
	}
	ctx = open_by_name(argv[1]);
	if (!ctx) {
		fprintf(stderr, "FAIL: cannot open %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}

	memset(&dattr, 0, sizeof(dattr));
	err = ibv_query_device_ex(ctx, NULL, &dattr);
	CHECK(!err, "query_device_ex: %s", strerror(err));
	CHECK(dattr.orig_attr.phys_port_cnt == 1, "phys_port_cnt %u",
	      dattr.orig_attr.phys_port_cnt);

	err = ibv_query_port(ctx, 1, &pattr);
	CHECK(!err, "query_port: %s", strerror(err));
	CHECK(pattr.link_layer == IBV_LINK_LAYER_ETHERNET, "link_layer %u",
	      pattr.link_layer);
	CHECK(pattr.gid_tbl_len > 0, "empty GID table");
	err = ibv_query_port(ctx, 2, &pattr);
	CHECK(err, "query_port on port 2 succeeded");

	err = ibv_query_gid(ctx, 1, 0, &gid);
	CHECK(!err, "query_gid 0: %s", strerror(errno));

	pd = ibv_alloc_pd(ctx);
	if (pd) {
		err = ibv_dealloc_pd(pd);
		CHECK(!err, "dealloc_pd: %s", strerror(err));
		printf("pd: ok\n");
	} else {
		/* A kernel or provider without PDs yet must say so cleanly. */
		CHECK(errno == EOPNOTSUPP || errno == ENOSYS,
		      "alloc_pd: %s", strerror(errno));
		printf("pd: %s\n", strerror(errno));
	}

	/* A CQ mapped from the kernel: empty, armable, destroyable. */
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (cq) {
		struct ibv_wc wc;

		CHECK(ibv_poll_cq(cq, 1, &wc) == 0, "new CQ not empty");
		err = ibv_req_notify_cq(cq, 0);
		CHECK(!err, "req_notify_cq: %s", strerror(err));
		err = ibv_destroy_cq(cq);
		CHECK(!err, "destroy_cq: %s", strerror(err));
		printf("create_cq: ok\n");
	} else {
		CHECK(0, "create_cq: %s", strerror(errno));
	}

	/* Memory windows of both types come from the provider ... */
	pd = ibv_alloc_pd(ctx);
	if (pd) {
		struct ibv_alloc_dm_attr dm_attr = { .length = 4096 };
		struct ibv_mw *mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
		struct ibv_mw *mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
		struct ibv_dm *dm;

		CHECK(mw1 && mw2 && mw1->rkey != mw2->rkey,
		      "alloc_mw: %s", strerror(errno));
		printf("alloc_mw: %s\n", mw1 && mw2 ? "ok" : strerror(errno));
		if (mw1)
			CHECK(!ibv_dealloc_mw(mw1), "dealloc_mw: %s",
			      strerror(errno));
		if (mw2)
			CHECK(!ibv_dealloc_mw(mw2), "dealloc_mw: %s",
			      strerror(errno));
		/* ... what it does not implement, the library's dummy answers */
		dm = ibv_alloc_dm(ctx, &dm_attr);
		CHECK(!dm && (errno == EOPNOTSUPP || errno == ENOSYS),
		      "alloc_dm: %s", dm ? "succeeded" : strerror(errno));
		printf("alloc_dm: %s\n", dm ? "ok" : strerror(errno));
		if (dm)
			ibv_free_dm(dm);
		ibv_dealloc_pd(pd);
	}

	err = ibv_close_device(ctx);
	CHECK(!err, "close_device: %s", strerror(errno));
	printf("%s: %s\n", argv[1], failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
