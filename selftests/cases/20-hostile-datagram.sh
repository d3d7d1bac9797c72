#!/usr/bin/env bash
# One datagram must never hurt the host ([SEC-10]): the first remote crash
# report, sent as it was. A 100-byte ACK (version 1, 24 header words, dst_qpn
# 1, every other byte zero, valid ICRC) to QP1, which every port has, took
# the GSI QP's private data for an RC transport and spun forever on a
# "lock" inside it (soft lockup in mrc_rx_dispatch). Guest b sends it, a NAK,
# a PROBE and an ACK bundle to QP1, and ACKs to QP0 and to a QP number
# nobody has; guest a must count each as dropped for its reason
# (rx_drop_qp_type, rx_drop_no_qp) and then carry a verified ibv_rc_pingpong
# over the same device. The datagrams come from selftests/lib/mrc-datagram.py
# run with the host's Python (hostrun).
#
# The devices sit on macvlans ha0 over eth1 (10.79.0.0/24).
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"
# shellcheck source=lib/pingpong.bash
. "$(dirname "$0")/lib/pingpong.bash"

PORT=18760
SLOG=/tmp/20-hostile.server
PP_DEV=mrch0
PP_ADDR=10.79.0.2

# ---------------------------------------------------------------- guest side
up() {
	macvlan_up ha0 79 "$1"
	rdma link add mrch0 type metaroce netdev ha0
	wait_until "mrch0 ACTIVE" port_is mrch0 "4: ACTIVE"
}

down() {
	rdma link delete mrch0 2>/dev/null || true
	ip link del ha0 2>/dev/null || true
}

# counter NAME: a counter of mrch0, 0 if absent.
counter() {
	rdma statistic show link mrch0/1 |
		sed -n "s/.* $1 \([0-9]*\).*/\1/p" | grep . || echo 0
}

snapshot() {
	echo "$(counter rx_drop_qp_type) $(counter rx_drop_no_qp)" > /tmp/20-hostile.before
}

send() {
	hostrun python3 "$TOP/selftests/lib/mrc-datagram.py" 10.79.0.1 \
		ack:1 nak:1 probe:1 ack:1:3 ack:0 ack:0x7654
}

# dropped: six more datagrams to QP1 (the bundle
# counts three), two to no QP
dropped() {
	local t0 n0 t n
	read -r t0 n0 < /tmp/20-hostile.before
	t=$(counter rx_drop_qp_type)
	n=$(counter rx_drop_no_qp)
	[ $((t - t0)) -ge 6 ] && [ $((n - n0)) -ge 2 ]
}

check_dropped() {
	wait_until "the datagrams counted as dropped" dropped
	rdma statistic show link mrch0/1 | tr ' ' '\n' | grep -A1 '^rx_drop' | paste - - -d' '
}

# ----------------------------------------------------------------- host side
case_host_cleanup() {
	g a down
	g b down
}

case_main "$@"
g a up 1
g b up 2
g a snapshot
g b send
g a check_dropped
PP_NOTE="after the hostile datagrams"
pp_run -s 4096 -n 20
echo "ok: 20-hostile-datagram"
