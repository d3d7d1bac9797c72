#!/usr/bin/env bash
# A second metaroce device on a netdev that already carries one fails with
# EEXIST and a kernel message naming the first device; the first device is
# untouched and no second one is left behind.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

reject_twice() {
	local out
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
	if out=$(rdma link add mrc1 type metaroce netdev eth0 2>&1); then
		fail "second device on eth0 was created"
	fi
	grep -q "File exists" <<<"$out" || fail "unexpected error: $out"
	[ ! -e "$IB/mrc1" ] || fail "mrc1 exists after the failed add"
	[ "$(mrc_devices)" = mrc0 ] || fail "metaroce devices: $(mrc_devices)"
	port_is mrc0 "4: ACTIVE" || fail "mrc0 no longer ACTIVE"
	[ "$(link_line mrc0)" = "link mrc0/1 state ACTIVE physical_state LINK_UP netdev eth0" ] ||
		fail "mrc0 changed: $(link_line mrc0)"
	log_since "mrc-case: begin $MRC_CASE" | grep -q "mrc1: eth0 already carries metaroce device mrc0" ||
		fail "no kernel message for the second device"
	echo "$MRC_VM: second device on eth0 refused: $out"
}

case_main "$@"

g a reject_twice
