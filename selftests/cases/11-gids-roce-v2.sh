#!/usr/bin/env bash
# ib_core fills mrc0's GID table from eth0: every IPv4 address appears as its
# IPv4-mapped GID (::ffff:10.0.0.x), every IPv6 address (global and
# link-local) as itself, all of type "RoCE v2" and bound to eth0; the table
# holds no RoCE v1 or IB entries.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

all_addr_gids_present() {
	local gid
	for gid in $(addr_gids eth0); do
		has_v2_gid mrc0 "$gid" || return 1
	done
}

check_gids() {
	local gids n f i zero=0000:0000:0000:0000:0000:0000:0000:0000
	rdma link add mrc0 type metaroce netdev eth0
	gids=$(addr_gids eth0)
	grep -q ":ffff:" <<<"$gids" || fail "eth0 has no IPv4 address: $(ip addr show dev eth0)"
	grep -q "^fd00:" <<<"$gids" || fail "eth0 has no fd00:: address: $(ip addr show dev eth0)"
	grep -q "^fe80:" <<<"$gids" || fail "eth0 has no link-local address"
	wait_until "GIDs of all eth0 addresses in mrc0" all_addr_gids_present

	n=0
	for f in "$IB"/mrc0/ports/1/gids/*; do
		[ "$(cat "$f")" = "$zero" ] && continue
		i=${f##*/}
		[ "$(cat "$IB/mrc0/ports/1/gid_attrs/types/$i")" = "RoCE v2" ] ||
			fail "GID $i $(cat "$f") has type $(cat "$IB/mrc0/ports/1/gid_attrs/types/$i")"
		[ "$(cat "$IB/mrc0/ports/1/gid_attrs/ndevs/$i")" = eth0 ] ||
			fail "GID $i $(cat "$f") is not bound to eth0"
		n=$((n + 1))
	done
	echo "$MRC_VM: $n RoCE v2 GIDs: $(tr "\n" " " <<<"$gids")"
}

case_main "$@"

for vm in a b; do
	g $vm check_gids
done
