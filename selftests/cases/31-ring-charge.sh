#!/usr/bin/env bash
# A process's queue rings are charged to its memory cgroup: in guest a,
# mrc_ring_charge runs alone in a cgroup with the memory controller on,
# creates a CQ and an RC QP of 16384 entries each on mrc0 and checks that
# its cgroup's memory.current grew by at least the bytes of the rings it
# mapped (kernel/queue.c allocates them with __GFP_ACCOUNT); before, the
# kernel held megabytes for any process outside every memory limit.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

TOOL=$TOP/build/userspace/tools/mrc_ring_charge
CG=/sys/fs/cgroup/mrc-ring-charge

charge() {
	[ -x "$TOOL" ] || fail "no $TOOL (make userspace)"
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
	grep -qw memory /sys/fs/cgroup/cgroup.controllers ||
		fail "no memory controller in $(cat /sys/fs/cgroup/cgroup.controllers)"
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$CG"
	local out
	# shellcheck disable=SC2016 # expanded by the inner shell
	out=$(bash -c 'echo $$ > "$1/cgroup.procs" && exec "$2" -d mrc0 -n 16384' \
		_ "$CG" "$TOOL" 2>&1) || fail "mrc_ring_charge: $out"
	grep -E '^(ok|fail) ' <<<"$out" | sed 's/^/  a: /'
	grep -q "all steps passed" <<<"$out" || fail "not every step passed"
}

case_guest_cleanup() { rmdir "$CG" 2>/dev/null || true; }

case_main "$@"

g a charge
