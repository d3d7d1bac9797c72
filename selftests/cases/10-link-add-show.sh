#!/usr/bin/env bash
# `rdma link add mrc0 type metaroce netdev eth0` in both guests makes one
# ib_device that the rdma tool, sysfs and (with the provider) ibv_devinfo all
# describe the same way: an IB CA with one ACTIVE Ethernet port on eth0, the
# node GUID derived from eth0's MAC, our ABI version, a uverbs char device,
# and eth0's device as its parent in sysfs (device/net/eth0).
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

# The modified EUI-64 of a MAC, spelled as sysfs and rdma print GUIDs.
eui64() {
	local m0 m1 m2 m3 m4 m5
	IFS=: read -r m0 m1 m2 m3 m4 m5 <<<"$1"
	printf '%02x%s:%sff:fe%s:%s%s\n' $((0x$m0 ^ 2)) "$m1" "$m2" "$m3" "$m4" "$m5"
}

add_and_check() {
	local abi=$1 line guid dev uv u info
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 port ACTIVE" port_is mrc0 "4: ACTIVE"

	[ "$(mrc_devices)" = mrc0 ] || fail "metaroce devices: $(mrc_devices)"
	line=$(link_line mrc0)
	[ "$line" = "link mrc0/1 state ACTIVE physical_state LINK_UP netdev eth0" ] ||
		fail "rdma link show: $line"
	[ "$(cat "$IB"/mrc0/metaroce_abi_version)" = "$abi" ] || fail "metaroce_abi_version"
	[ "$(cat "$IB"/mrc0/netdev)" = eth0 ] || fail "netdev attribute"
	# the parent is eth0's device (virtio), as for a NIC's RDMA function:
	# tools map the RDMA device to its netdev and bus through it
	[ -e "$IB/mrc0/device/net/eth0" ] ||
		fail "no $IB/mrc0/device/net/eth0: parent $(readlink -f "$IB/mrc0/device" || echo none)"
	[ "$(readlink -f "$IB/mrc0/device")" = "$(readlink -f /sys/class/net/eth0/device)" ] ||
		fail "mrc0's parent is not eth0's device"
	[ "$(cat "$IB"/mrc0/node_type)" = "1: CA" ] || fail "node_type $(cat "$IB"/mrc0/node_type)"
	[ "$(port_attr mrc0 link_layer)" = Ethernet ] || fail "link_layer"
	[ "$(port_attr mrc0 phys_state)" = "5: LinkUp" ] || fail "phys_state"

	guid=$(eui64 "$(cat /sys/class/net/eth0/address)")
	[ "$(cat "$IB"/mrc0/node_guid)" = "$guid" ] ||
		fail "node_guid $(cat "$IB"/mrc0/node_guid), eth0's MAC wants $guid"
	dev=$(rdma dev show mrc0)
	grep -q "node_type ca " <<<"$dev" || fail "rdma dev: $dev"
	grep -q "node_guid $guid " <<<"$dev" || fail "rdma dev: $dev"

	# The uverbs char device libibverbs opens, reporting our ABI version.
	uv=
	for u in /sys/class/infiniband_verbs/uverbs*; do
		[ "$(cat "$u/ibdev")" = mrc0 ] && uv=${u##*/}
	done
	{ [ -n "$uv" ] && [ -c "/dev/infiniband/$uv" ]; } || fail "no uverbs device for mrc0"
	[ "$(cat "/sys/class/infiniband_verbs/$uv/abi_version")" = "$abi" ] ||
		fail "uverbs abi_version"

	if [ -e /etc/libibverbs.d/metaroce.driver ]; then
		info=$(ibv_devinfo -d mrc0)
		grep -Eq "state:[[:space:]]+PORT_ACTIVE" <<<"$info" || fail "ibv_devinfo: $info"
		grep -Eq "link_layer:[[:space:]]+Ethernet" <<<"$info" || fail "ibv_devinfo: $info"
		grep -Eq "node_guid:[[:space:]]+$guid$" <<<"$info" || fail "ibv_devinfo: $info"
	else
		echo "$MRC_VM: no provider in this build, ibv_devinfo not compared"
	fi
	echo "$MRC_VM: $line, node_guid $guid, $uv"
}

case_main "$@"

abi=$(awk '$1 == "#define" && $2 == "METAROCE_ABI_VERSION" { print $3 }' \
	"$TOP/kernel/uapi/metaroce-abi.h")
[ -n "$abi" ] || fail "no METAROCE_ABI_VERSION in kernel/uapi/metaroce-abi.h"
for vm in a b; do
	g $vm add_and_check "$abi"
done
