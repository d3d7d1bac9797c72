#!/usr/bin/env bash
# A new device whose name is taken fails with EEXIST and a kernel message,
# whether the name belongs to one of ours (mrc0 on eth0) or to another
# driver's device (an rxe device on eth1); the other netdev gets no device
# and the existing ones are untouched.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

refused() {
	local name=$1 ndev=$2 out
	if out=$(rdma link add "$name" type metaroce netdev "$ndev" 2>&1); then
		fail "$name on $ndev was created despite the clash"
	fi
	grep -q "File exists" <<<"$out" || fail "unexpected error: $out"
	log_since "mrc-case: begin $MRC_CASE" |
		grep -q "$name: an RDMA device with this name exists" ||
		fail "no kernel message for the clash on $name"
	echo "$MRC_VM: $name on $ndev refused: $out"
}

clash() {
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
	refused mrc0 eth1
	[ "$(mrc_devices)" = mrc0 ] || fail "metaroce devices: $(mrc_devices)"
	[ "$(cat "$IB"/mrc0/netdev)" = eth0 ] || fail "mrc0 moved off eth0"
	rdma link delete mrc0

	modprobe rdma_rxe
	rdma link add rxe18 type rxe netdev eth1
	refused rxe18 eth0
	[ -z "$(mrc_devices)" ] || fail "metaroce devices: $(mrc_devices)"
	[ "$(link_line rxe18)" = "link rxe18/1 state ACTIVE physical_state LINK_UP netdev eth1" ] ||
		fail "rxe18 changed: $(link_line rxe18)"
}

case_guest_cleanup() { rdma link delete rxe18 2>/dev/null || true; }

case_main "$@"

g a clash
