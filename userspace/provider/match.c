// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which uverbs devices are ours, and the provider's registration.
 *
 * Our kernel driver is out of tree, so it has no rdma_driver_id of its own
 * (it reports RDMA_DRIVER_UNKNOWN) and no modalias. Matching by name would
 * claim any device someone names "mrc*". Instead the kernel exposes
 * /sys/class/infiniband/<ibdev>/metaroce_abi_version and we claim exactly the
 * devices that have it with a version we speak. rxe, siw and every other
 * driver's devices lack the attribute and are left to their own providers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

/* Parses the attribute's text: decimal, optional trailing newline. */
int mrc_parse_abi_version(const char *buf, uint32_t *version)
{
	unsigned long v;
	char *end;

	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || v > UINT32_MAX)
		return -EINVAL;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*version = (uint32_t)v;
	return 0;
}

int mrc_read_abi_version(struct verbs_sysfs_dev *sysfs_dev, uint32_t *version)
{
	char buf[32];
	int len;

	len = ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev, "%s",
					MRC_SYSFS_ABI_ATTR);
	if (len <= 0)
		return -ENOENT;
	return mrc_parse_abi_version(buf, version);
}

/*
 * Our copy of verbs_sysfs_dev's layout must match the library's. ibdev_path
 * ends in "/<ibdev_name>" when it does; refusing the device otherwise turns a
 * layout error into "no device" instead of reads from the wrong fields.
 */
static bool mrc_sysfs_dev_sane(const struct verbs_sysfs_dev *sysfs_dev)
{
	size_t nlen = strnlen(sysfs_dev->ibdev_name, IBV_SYSFS_NAME_MAX);
	size_t plen = strnlen(sysfs_dev->ibdev_path, IBV_SYSFS_PATH_MAX);

	if (!nlen || nlen == IBV_SYSFS_NAME_MAX || plen == IBV_SYSFS_PATH_MAX ||
	    plen <= nlen)
		return false;
	return sysfs_dev->ibdev_path[plen - nlen - 1] == '/' &&
	       !strcmp(sysfs_dev->ibdev_path + plen - nlen,
		       sysfs_dev->ibdev_name);
}

static bool mrc_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	uint32_t version;

	if (!mrc_sysfs_dev_sane(sysfs_dev))
		return false;
	/* A device with a known driver id belongs to that driver's provider. */
	if (sysfs_dev->driver_id != RDMA_DRIVER_UNKNOWN)
		return false;
	if (mrc_read_abi_version(sysfs_dev, &version))
		return false;
	if (version < MRC_PROVIDER_ABI_MIN || version > MRC_PROVIDER_ABI_MAX) {
		fprintf(stderr,
			"libmetaroce: %s speaks metaroce ABI %u, this provider %u..%u; not using it\n",
			sysfs_dev->ibdev_name, version, MRC_PROVIDER_ABI_MIN,
			MRC_PROVIDER_ABI_MAX);
		return false;
	}
	return true;
}

static struct verbs_device *mrc_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct mrc_device *dev;
	uint32_t version;

	if (mrc_read_abi_version(sysfs_dev, &version))
		return NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->abi_version = version;
	return &dev->vdev;
}

static void mrc_uninit_device(struct verbs_device *vdev)
{
	free(mrc_container_of(vdev, struct mrc_device, vdev));
}

/*
 * Empty, but it must exist: libibverbs 44 walks every provider's match_table
 * without a NULL check when a device has a known driver_id (an rxe device,
 * say), so a provider with no table crashes every verbs program on a host
 * that also has such a device. With only the sentinel, nothing matches by
 * table and mrc_match_device decides.
 */
static const struct verbs_match_ent mrc_match_table[] = {
	{ .kind = VERBS_MATCH_SENTINEL },
};

const struct verbs_device_ops mrc_device_ops = {
	.name = "metaroce",
	.match_table = mrc_match_table,
	/*
	 * The uverbs abi_version is the kernel's ops.uverbs_abi_ver; ours is
	 * versioned through the sysfs attribute checked above and again in the
	 * get_context response, so any uverbs number is accepted here.
	 */
	.match_min_abi_version = 0,
	.match_max_abi_version = UINT32_MAX,
	.match_device = mrc_match_device,
	.alloc_device = mrc_alloc_device,
	.uninit_device = mrc_uninit_device,
	.alloc_context = mrc_alloc_context,
};

MRC_PROVIDER_DRIVER(mrc_device_ops)
