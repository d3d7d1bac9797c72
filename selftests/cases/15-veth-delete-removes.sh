#!/usr/bin/env bash
# A device on a veth is removed when the veth is deleted: `ip link del`
# returns promptly (the device gives back its netdev reference), and the
# device is gone from sysfs and from `rdma link show`. (While it exists, its
# rate shows the veth's 10 Gb/s link speed, as 1X QDR.)
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

veth_gone() { [ ! -e "$IB/mrcv" ] && [ -z "$(link_line mrcv)" ]; }

veth() {
	modprobe veth
	ip link add mrcv0 type veth peer name mrcv1
	ip link set mrcv0 up
	ip link set mrcv1 up
	rdma link add mrcv type metaroce netdev mrcv0
	wait_until "mrcv ACTIVE on the veth" port_is mrcv "4: ACTIVE"
	[ "$(cat "$IB"/mrcv/netdev)" = mrcv0 ] || fail "mrcv is not on mrcv0"
	[ "$(port_attr mrcv rate)" = "10 Gb/sec (1X QDR)" ] ||
		fail "rate $(port_attr mrcv rate) for a 10 Gb/s veth"

	timeout 15 ip link del mrcv0 || fail "ip link del mrcv0 hung or failed"
	wait_until "mrcv gone with its veth" veth_gone
	! ip link show mrcv1 >/dev/null 2>&1 || fail "veth peer survived"
	echo "$MRC_VM: deleting the veth removed mrcv"
}

case_guest_cleanup() { ip link del mrcv0 2>/dev/null || true; }

case_main "$@"

g a veth
