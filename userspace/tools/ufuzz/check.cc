// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// What the completions of garbage must look like: every one names a WQE
// that was posted, in posting order; a WQE that must fail never succeeds
// and never goes without a completion (errors and flushes are reported
// whether signaled or not).

#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "ufuzz.h"

namespace ufz {

void check_wcs(Env &e, const std::vector<Posted> &posted, const std::vector<ibv_wc> &wcs,
	       bool every)
{
	std::unordered_map<uint64_t, size_t> index;
	std::vector<bool> seen(posted.size());
	size_t last = 0;
	bool first = true;

	for (size_t i = 0; i < posted.size(); i++)
		index[posted[i].id] = i;
	for (const ibv_wc &w : wcs) {
		auto it = index.find(w.wr_id);

		if (it == index.end()) {
			unexpected(e, "a completion (%s) with wr_id %#llx, which was never posted",
				   ibv_wc_status_str(w.status), (unsigned long long)w.wr_id);
			continue;
		}
		size_t i = it->second;

		if (seen[i])
			unexpected(e, "WQE %zu completed twice (%s)", i, posted[i].what.c_str());
		if (!first && i <= last)
			unexpected(e, "WQE %zu completed after WQE %zu: out of order", i, last);
		if (posted[i].must_fail && w.status == IBV_WC_SUCCESS)
			unexpected(e, "WQE %zu succeeded but must fail: %s", i, posted[i].what.c_str());
		seen[i] = true;
		last = i;
		first = false;
	}
	for (size_t i = 0; i < posted.size(); i++)
		if (!seen[i] && (every || posted[i].must_fail))
			unexpected(e, "WQE %zu never completed (%s)", i, posted[i].what.c_str());
	tally_wcs(e, wcs);
}

bool finish_sends(Env &e, FQp &q, const std::vector<Posted> &posted, std::vector<ibv_wc> &wcs)
{
	std::vector<Posted> all = posted;
	uint32_t at = q.sq.mine();
	uint64_t marker = tag(e, 0xffff);

	slot_marker(e, q, q.sq.slot(at), marker);
	all.push_back({marker, false, "the marker"});
	q.sq.publish(at + 1);
	ring_sq(q);
	if (!wait_wr(e, q.cq, marker, wcs, &q)) {
		unexpected(e, "the marker behind %zu WQEs did not complete in %d ms (%s QP %u to "
			   "peer QP %u, state %d, %zu completions, SQ consumer %u producer %u)",
			   posted.size(), e.wc_timeout_ms, q.type == IBV_QPT_UD ? "UD" : "RC",
			   q.qp->qp_num, q.peer_qpn, fqp_state(q), wcs.size(), q.sq.consumer(),
			   q.sq.mine());
		for (size_t i = 0; i < posted.size(); i++)
			printf("  WQE %zu: %s\n", i, posted[i].what.c_str());
		tally_wcs(e, wcs);
		return false;
	}
	check_wcs(e, all, wcs, false);
	return true;
}

bool finish_sends(Env &e, FQp &q, const std::vector<Posted> &posted)
{
	std::vector<ibv_wc> wcs;

	return finish_sends(e, q, posted, wcs);
}

}  // namespace ufz
