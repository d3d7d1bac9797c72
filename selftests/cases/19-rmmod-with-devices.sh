#!/usr/bin/env bash
# rmmod with devices present removes them all (sysfs, rdma tool) and unloads
# cleanly; modprobe brings the module back and devices can be added again.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

unload_with_devices() {
	rdma link add mrc0 type metaroce netdev eth0
	rdma link add mrc1 type metaroce netdev eth1
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
	wait_until "mrc1 ACTIVE" port_is mrc1 "4: ACTIVE"

	rmmod metaroce
	[ ! -e /sys/module/metaroce ] || fail "metaroce still loaded"
	if [ -e "$IB/mrc0" ] || [ -e "$IB/mrc1" ]; then fail "devices survived rmmod"; fi
	[ -z "$(link_line mrc0)$(link_line mrc1)" ] || fail "rdma link still shows them"

	modprobe metaroce
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE after reload" port_is mrc0 "4: ACTIVE"
	echo "$MRC_VM: rmmod removed mrc0 and mrc1; reloaded and re-added mrc0"
}

case_main "$@"

for vm in a b; do
	g $vm unload_with_devices
done
