#!/usr/bin/env bash
# `rdma link add` on a netdev that is not Ethernet (lo) fails with
# EOPNOTSUPP and a kernel message naming the netdev, and leaves no device.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

reject_lo() {
	local out
	if out=$(rdma link add mrcbad type metaroce netdev lo 2>&1); then
		fail "rdma link add on lo succeeded"
	fi
	grep -q "Operation not supported" <<<"$out" || fail "unexpected error: $out"
	[ ! -e "$IB/mrcbad" ] || fail "mrcbad exists after the failed add"
	[ -z "$(mrc_devices)" ] || fail "metaroce devices left: $(mrc_devices)"
	[ -z "$(link_line mrcbad)" ] || fail "rdma link shows mrcbad"
	log_since "mrc-case: begin $MRC_CASE" | grep -q "mrcbad: lo is not an Ethernet device" ||
		fail "no kernel message for the refused lo"
	echo "$MRC_VM: lo refused: $out"
}

case_main "$@"

g a reject_lo
