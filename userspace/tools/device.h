// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The verbs tools open their device by name: die() if it is not there.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <infiniband/verbs.h>

#include "report.h"

namespace mrc_tool {

inline ibv_context *open_device(const char *name)
{
	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_context *ctx = nullptr;

	for (int i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		die("cannot open device %s", name);
	return ctx;
}

// The options of the one-device tools, -d DEV [-g GID_INDEX]: the device's
// name (@gidx keeps its value without -g); usage and exit 2 otherwise.
inline const char *dev_gid_args(int argc, char **argv, int &gidx)
{
	const char *dev = nullptr;

	for (int opt; (opt = getopt(argc, argv, "d:g:")) != -1;) {
		if (opt == 'd') {
			dev = optarg;
		} else if (opt == 'g') {
			gidx = atoi(optarg);
		} else {
			dev = nullptr;
			break;
		}
	}
	if (!dev || optind != argc) {
		fprintf(stderr, "usage: %s -d DEV [-g GID_INDEX]\n", kName);
		exit(2);
	}
	return dev;
}

} // namespace mrc_tool
