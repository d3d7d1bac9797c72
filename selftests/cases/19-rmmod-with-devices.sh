#!/usr/bin/env bash
# rmmod with devices present removes them all (sysfs, rdma tool) and unloads
# cleanly, also while a process has one open (with the provider: the
# process sees DEVICE_FATAL); modprobe brings the module back and devices
# can be added again.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

unload_with_devices() {
	rdma link add mrc0 type metaroce netdev eth0
	rdma link add mrc1 type metaroce netdev eth1
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
	wait_until "mrc1 ACTIVE" port_is mrc1 "4: ACTIVE"

	if have_provider; then
		hold_open mrc1 /tmp/mrc19.events
	fi
	timeout 30 rmmod metaroce || fail "rmmod failed or hung"
	[ ! -e /sys/module/metaroce ] || fail "metaroce still loaded"
	if [ -e "$IB/mrc0" ] || [ -e "$IB/mrc1" ]; then fail "devices survived rmmod"; fi
	[ -z "$(link_line mrc0)$(link_line mrc1)" ] || fail "rdma link still shows them"
	if have_provider; then
		wait_until "the process was told DEVICE_FATAL" holder_told /tmp/mrc19.events
	fi

	modprobe metaroce
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE after reload" port_is mrc0 "4: ACTIVE"
	echo "$MRC_VM: rmmod removed mrc0 and mrc1; reloaded and re-added mrc0"
}

case_guest_cleanup() {
	holder_kill
	rm -f /tmp/mrc19.events
}

case_main "$@"

for vm in a b; do
	g $vm unload_with_devices
done
