// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Protection domains. A PD has no state of its own: ib_core counts its
 * users, and MRs and QPs compare PD pointers when a key is used.
 */

#include "verbs.h"

int mrc_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

int mrc_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}
