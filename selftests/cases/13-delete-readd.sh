#!/usr/bin/env bash
# `rdma link delete` removes the device completely (sysfs, rdma tool, uverbs
# char device), and the same name on the same netdev can be added again,
# coming back ACTIVE with its GIDs; three rounds in both guests. With the
# provider, a fourth round deletes the device while a process has it open:
# the delete does not wait for the process, which sees DEVICE_FATAL.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

uverbs_of() {
	local u
	for u in /sys/class/infiniband_verbs/uverbs*; do
		[ -e "$u/ibdev" ] && [ "$(cat "$u/ibdev")" = "$1" ] && echo "${u##*/}"
	done
	return 0
}

gone() { [ ! -e "$IB/mrc0" ] && [ -z "$(link_line mrc0)" ] && [ -z "$(uverbs_of mrc0)" ]; }

rounds() {
	local i v4gid
	v4gid=$(gid_of_ipv4 "$(ip -o -4 addr show dev eth0 | awk '{ sub("/.*", "", $4); print $4; exit }')")
	for i in 1 2 3; do
		rdma link add mrc0 type metaroce netdev eth0
		wait_until "round $i: mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
		wait_until "round $i: IPv4 GID" has_v2_gid mrc0 "$v4gid"
		[ -n "$(uverbs_of mrc0)" ] || fail "round $i: no uverbs device"
		rdma link delete mrc0
		# Deletion is synchronous: gone when the command returns.
		gone || fail "round $i: mrc0 still visible after rdma link delete"
		rdma link show | grep -q "netdev eth0" &&
			fail "round $i: eth0 still has an RDMA link: $(rdma link show)"
	done
	echo "$MRC_VM: 3 rounds of add/delete"

	have_provider || { echo "$MRC_VM: no provider, delete while open not tried"; return 0; }
	rdma link add mrc0 type metaroce netdev eth0
	hold_open mrc0 /tmp/mrc13.events
	timeout 15 rdma link delete mrc0 || fail "rdma link delete waited for the process"
	gone || fail "mrc0 still visible after deleting it while open"
	wait_until "the process was told DEVICE_FATAL" holder_told /tmp/mrc13.events
	echo "$MRC_VM: deleted while open; the holder saw DEVICE_FATAL"
}

case_guest_cleanup() {
	holder_kill
	rm -f /tmp/mrc13.events
}

case_main "$@"

for vm in a b; do
	g $vm rounds
done
