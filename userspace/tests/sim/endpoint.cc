// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The kernel's drive order for one connection end; see endpoint.h.
#include "sim/endpoint.h"

namespace mrcsim {

void drive(mrc_conn *c, uint64_t now, mrc_cc_share *share, EndpointIo &io)
{
	mrc_completion done;
	mrc_probe_req req;
	mrc_ack_info ack;
	mrc_tx_seg seg;

	while (mrc_conn_rx_poll(c, &done))
		io.rx_done(done);
	while (mrc_conn_ack_next(c, now, share, &ack))
		io.ack_out(ack);
	while (mrc_conn_tx_poll(c, &done))
		io.tx_done(done);
	io.post(c);
	while (mrc_conn_tx_next(c, now, &seg))
		io.data_out(seg);
	while (mrc_conn_probe_next(c, now, &req))
		io.probe_out(req, (uint32_t)now);
}

mrc_conn_cfg peer_cfg(const mrc_conn_cfg &near, const mrc_conn_cfg &far_own,
		      uint64_t seed)
{
	mrc_conn_cfg far = far_own;

	far.seed = seed;
	far.rx_isn = near.tx_isn;
	far.rx_msn = near.tx_msn;
	far.tx_isn = near.rx_isn;
	far.tx_msn = near.rx_msn;
	return far;
}

} // namespace mrcsim
