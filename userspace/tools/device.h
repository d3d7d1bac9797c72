// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The verbs tools open their device by name: die() if it is not there.
#pragma once

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

} // namespace mrc_tool
