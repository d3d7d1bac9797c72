// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The transports by name; see transports.h.
#include "transports.h"

namespace scale {

std::unique_ptr<Flow> make_flow(Net &net, const TransportCfg &tc, uint32_t id,
				uint32_t src, uint32_t dst, mrc_cc_share *rx_share)
{
	if (tc.kind == "mrc")
		return make_mrc_flow(net, tc, id, src, dst, rx_share);
	if (tc.kind == "roce")
		return make_roce_flow(net, tc, id, src, dst);
	if (tc.kind == "ideal")
		return make_ideal_flow(net, tc, id, src, dst);
	return nullptr;
}

} // namespace scale
