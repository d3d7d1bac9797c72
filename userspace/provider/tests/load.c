// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loads the built provider the way libibverbs does (dlopen, RTLD_NOW) and
 * drives its device matching against fake sysfs directories.
 *
 * This program defines verbs_register_driver_34 itself and exports it, so the
 * provider's constructor hands its verbs_device_ops to us instead of to
 * libibverbs. Everything else the provider calls (ibv_read_ibdev_sysfs_file
 * among them) is the real libibverbs.so.1, bound by symbol version: if the
 * installed library lacked IBVERBS_PRIVATE_34, dlopen would fail here. The
 * sysfs reads also prove that our verbs_sysfs_dev puts ibdev_path where the
 * real library reads it.
 *
 * usage: provider-load /path/to/libmetaroce-rdmav34.so
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi/ibverbs-private-34.h"
#include "uapi/metaroce-abi.h"

static const struct verbs_device_ops *registered;
static int registrations;

__attribute__((visibility("default"))) void
verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	registered = ops;
	registrations++;
}

static int failures;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);   \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			failures++;                                            \
		}                                                              \
	} while (0)

static char root[128];	/* short: ibdev_path holds 256 */

/* A fake /sys/class/infiniband/<name>, with the ABI attribute if attr != NULL. */
static void fake_dev(struct verbs_sysfs_dev *sd, const char *name,
		     uint32_t driver_id, const char *attr)
{
	char path[PATH_MAX + 64];
	FILE *f;

	memset(sd, 0, sizeof(*sd));
	snprintf(sd->ibdev_name, sizeof(sd->ibdev_name), "%s", name);
	snprintf(sd->ibdev_path, sizeof(sd->ibdev_path), "%s/%.64s", root, name);
	snprintf(sd->sysfs_name, sizeof(sd->sysfs_name), "uverbs0");
	sd->driver_id = driver_id;
	sd->node_type = IBV_NODE_CA;
	sd->abi_ver = 1;

	mkdir(sd->ibdev_path, 0755);
	snprintf(path, sizeof(path), "%s/metaroce_abi_version", sd->ibdev_path);
	unlink(path);
	if (!attr)
		return;
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(attr, f);
	fclose(f);
}

static void cleanup(void)
{
	char path[PATH_MAX + 2 * NAME_MAX];
	struct dirent *de;
	DIR *d = opendir(root);

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/metaroce_abi_version", root,
			 de->d_name);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
		rmdir(path);
	}
	if (d)
		closedir(d);
	rmdir(root);
}

static bool matches(const char *name, uint32_t driver_id, const char *attr)
{
	struct verbs_sysfs_dev sd;

	fake_dev(&sd, name, driver_id, attr);
	return registered->match_device(&sd);
}

int main(int argc, char **argv)
{
	struct verbs_sysfs_dev sd;
	struct verbs_device *vdev;
	char ok[32];
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PROVIDER.so\n", argv[0]);
		return 2;
	}

	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "FAIL dlopen: %s\n", dlerror());
		return 1;
	}
	CHECK(registrations == 1, "constructor registered %d times",
	      registrations);
	if (!registered)
		return 1;

	/* The .so exports nothing, not even the ops. */
	CHECK(!dlsym(h, "mrc_device_ops"), "mrc_device_ops is exported");
	CHECK(!dlsym(h, "verbs_provider_metaroce"), "ops alias is exported");

	CHECK(registered->name && !strcmp(registered->name, "metaroce"),
	      "provider name");
	CHECK(registered->match_device && registered->alloc_device &&
		      registered->uninit_device && registered->alloc_context,
	      "device ops incomplete");
	/* libibverbs dereferences match_table unconditionally for devices
	 * with a driver id: it must exist, holding only the sentinel. */
	CHECK(registered->match_table &&
		      registered->match_table[0].kind == VERBS_MATCH_SENTINEL,
	      "match_table must be present and empty");
	CHECK(registered->match_min_abi_version == 0 &&
		      registered->match_max_abi_version == UINT32_MAX,
	      "uverbs abi range");

	snprintf(root, sizeof(root), "/tmp/mrc-provider-test.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(ok, sizeof(ok), "%u\n", METAROCE_ABI_VERSION);

	CHECK(matches("mrc0", RDMA_DRIVER_UNKNOWN, ok), "our device");
	snprintf(ok, sizeof(ok), "%u", METAROCE_ABI_VERSION);
	CHECK(matches("mrc1", RDMA_DRIVER_UNKNOWN, ok), "no trailing newline");
	CHECK(!matches("rxe0", RDMA_DRIVER_RXE, NULL), "rxe device claimed");
	CHECK(!matches("rxe1", RDMA_DRIVER_RXE, ok),
	      "device with a driver id claimed");
	CHECK(!matches("dev0", RDMA_DRIVER_UNKNOWN, NULL), "no attribute");
	CHECK(matches("mrc10", RDMA_DRIVER_UNKNOWN, "1\n"),
	      "ABI 1 (no UD) still driven");
	CHECK(!matches("mrc2", RDMA_DRIVER_UNKNOWN, "999\n"), "future ABI");
	CHECK(!matches("mrc3", RDMA_DRIVER_UNKNOWN, "0\n"), "ABI 0");
	CHECK(!matches("mrc4", RDMA_DRIVER_UNKNOWN, "x1\n"), "garbage");
	CHECK(!matches("mrc5", RDMA_DRIVER_UNKNOWN, "1x\n"), "trailing junk");
	CHECK(!matches("mrc6", RDMA_DRIVER_UNKNOWN, "\n"), "empty");
	CHECK(!matches("mrc7", RDMA_DRIVER_UNKNOWN, "-1\n"), "negative");
	CHECK(!matches("mrc8", RDMA_DRIVER_UNKNOWN, "4294967296\n"),
	      "overflow");

	/* ibdev_path not ending in the name: a layout error, refuse. */
	fake_dev(&sd, "mrc9", RDMA_DRIVER_UNKNOWN, ok);
	snprintf(sd.ibdev_name, sizeof(sd.ibdev_name), "other");
	CHECK(!registered->match_device(&sd), "inconsistent sysfs_dev");

	fake_dev(&sd, "mrc0", RDMA_DRIVER_UNKNOWN, ok);
	vdev = registered->alloc_device(&sd);
	CHECK(vdev, "alloc_device");
	if (vdev)
		registered->uninit_device(vdev);

	/* Disappeared between match and alloc: no device, no crash. */
	fake_dev(&sd, "mrc0", RDMA_DRIVER_UNKNOWN, NULL);
	CHECK(!registered->alloc_device(&sd), "alloc_device without attr");

	cleanup();
	dlclose(h);
	printf("%s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
