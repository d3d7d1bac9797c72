#!/usr/bin/env bash
# The GID table follows eth0's addresses while mrc0 exists: an IPv4 and an
# IPv6 address added to eth0 appear as RoCE v2 GIDs, and leave with the
# addresses.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

V4=10.0.0.123
V6=fd00:0:0:7::123

gids_gone() { ! has_v2_gid mrc0 "$(gid_of_ipv4 $V4)" && ! has_v2_gid mrc0 "$(gid_of_ipv6 $V6)"; }

follow() {
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 port ACTIVE" port_is mrc0 "4: ACTIVE"
	gids_gone || fail "test GIDs present before their addresses"

	ip addr add $V4/32 dev eth0
	ip addr add $V6/128 dev eth0 nodad
	wait_until "GID of $V4" has_v2_gid mrc0 "$(gid_of_ipv4 $V4)"
	wait_until "GID of $V6" has_v2_gid mrc0 "$(gid_of_ipv6 $V6)"

	ip addr del $V4/32 dev eth0
	ip addr del $V6/128 dev eth0
	wait_until "GIDs of removed addresses gone" gids_gone
	echo "$MRC_VM: GIDs of $V4 and $V6 came and went with the addresses"
}

case_guest_cleanup() {
	ip addr del $V4/32 dev eth0 2>/dev/null || true
	ip addr del $V6/128 dev eth0 2>/dev/null || true
}

case_main "$@"

g a follow
