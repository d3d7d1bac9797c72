#!/usr/bin/env bash
# The provider in both guests: with metaroce loaded and
# `rdma link add mrc0 type metaroce netdev eth0`,
#  - ibv_devices lists mrc0 and ibv_devinfo -v -d mrc0 shows PORT_ACTIVE,
#    link_layer Ethernet and the RoCE v2 GID of eth0's IPv4 address;
#  - mrc_provider_smoke opens it, queries it, allocates a PD, and sees a
#    clean EOPNOTSUPP for a verb the provider does not implement yet;
#  - the port follows the link: carrier off (QEMU set_link) and admin down
#    give PORT_DOWN, and PORT_ACTIVE again afterwards;
#  - an rxe device on eth1 coexists and stays rxe's: with only our driver file
#    visible libibverbs lists mrc0 but not the rxe device, with only rxe's it
#    lists the rxe device but not mrc0, with both it lists both.
# Devices are deleted at the end (the modules stay loaded).
#
# Host side: 30-provider-devinfo.sh (env BED, TOP). The guest side is this
# same file run as `30-provider-devinfo.sh guest STEP ...` through bed exec.
set -euo pipefail

MRC=mrc0
RXE=rxe30
TIMEOUT=${TIMEOUT:-20}
CREATED=/tmp/30-provider-devinfo.created	# in the guest
SMOKE=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/build/userspace/provider/tests/mrc_provider_smoke

fail() { echo "FAIL: $*" >&2; exit 1; }

# ---------------------------------------------------------------- guest side
# Runs CMD in a private mount namespace whose /etc/libibverbs.d holds only the
# named driver files, so the listing shows what those providers claim.
with_drivers() {
	local keep=$1; shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m bash -c '
		keep=$1; shift
		tmp=$(mktemp -d)
		for d in $keep; do cp "/etc/libibverbs.d/$d.driver" "$tmp/"; done
		mount --bind "$tmp" /etc/libibverbs.d
		rc=0
		"$@" || rc=$?
		umount /etc/libibverbs.d
		rm -rf "$tmp"
		exit $rc' _ "$keep" "$@"
}

devices() { "$@" ibv_devices 2>&1 | awk 'NR > 2 { print $1 }'; }

# Polls `ibv_devinfo -d DEV` until its port state is STATE.
wait_state() {
	local dev=$1 want=$2 t=0 got=
	while [ $t -lt $((TIMEOUT * 10)) ]; do
		got=$(ibv_devinfo -d "$dev" 2>/dev/null | awk '$1 == "state:" { print $2 }')
		[ "$got" = "$want" ] && return 0
		sleep 0.1
		t=$((t + 1))
	done
	fail "$(hostname): $dev port state '$got', expected $want after ${TIMEOUT}s"
}

guest_up() {
	modprobe metaroce || fail "modprobe metaroce"
	# udev's rdma rules load ib_uverbs on a real host; without it no
	# /dev/infiniband/uverbsN exists and libibverbs sees no device.
	modprobe ib_uverbs || fail "modprobe ib_uverbs"
	# rxe's ICRC needs a crc32 crypto driver; without one its newlink fails.
	modprobe -a crc32_generic rdma_rxe || fail "modprobe rdma_rxe"
	for d in $MRC $RXE; do
		[ ! -e "/sys/class/infiniband/$d" ] || fail "$(hostname): $d exists before the test"
	done
	# Only what is recorded here is deleted at the end: never someone else's.
	rdma link add $MRC type metaroce netdev eth0 || fail "rdma link add $MRC"
	echo $MRC >> "$CREATED"
	rdma link add $RXE type rxe netdev eth1 || fail "rdma link add $RXE"
	echo $RXE >> "$CREATED"
	[ -e /etc/libibverbs.d/metaroce.driver ] || fail "no metaroce.driver (provider not built?)"
}

guest_check() {
	local host ip out err list
	host=$(hostname)
	wait_state $MRC PORT_ACTIVE

	[ "$(cat /sys/class/infiniband/$MRC/metaroce_abi_version)" -ge 1 ] ||
		fail "$host: no metaroce_abi_version"

	list=$(devices)
	grep -qx $MRC <<<"$list" || fail "$host: ibv_devices does not list $MRC: $list"
	grep -qx $RXE <<<"$list" || fail "$host: ibv_devices does not list $RXE: $list"

	err=$(mktemp)
	out=$(ibv_devinfo -v -d $MRC 2>"$err") || fail "$host: ibv_devinfo -v -d $MRC: $(cat "$err")"
	[ ! -s "$err" ] || fail "$host: ibv_devinfo -v printed errors: $(cat "$err")"
	rm -f "$err"
	grep -Eq '^hca_id:[[:space:]]+'$MRC'$' <<<"$out" || fail "$host: no hca_id $MRC"
	grep -Eq '^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)' <<<"$out" ||
		fail "$host: $MRC port not PORT_ACTIVE"
	grep -Eq '^[[:space:]]+link_layer:[[:space:]]+Ethernet$' <<<"$out" ||
		fail "$host: $MRC link_layer not Ethernet"
	ip=$(ip -4 -o addr show dev eth0 | awk '{ split($4, a, "/"); print a[1]; exit }')
	[ -n "$ip" ] || fail "$host: eth0 has no IPv4 address"
	grep -Eq "GID\[ *[0-9]+\]:[[:space:]]+::ffff:$ip, RoCE v2$" <<<"$out" ||
		fail "$host: no RoCE v2 GID ::ffff:$ip for $MRC in: $(grep GID <<<"$out")"

	# rxe's device goes through rxe's provider, ours through ours.
	list=$(devices with_drivers metaroce)
	grep -qx $MRC <<<"$list" || fail "$host: our provider alone does not list $MRC"
	! grep -qx $RXE <<<"$list" || fail "$host: our provider claims $RXE"
	list=$(devices with_drivers rxe)
	grep -qx $RXE <<<"$list" || fail "$host: rxe's provider alone does not list $RXE"
	! grep -qx $MRC <<<"$list" || fail "$host: rxe's provider claims $MRC"
	wait_state $RXE PORT_ACTIVE

	# Open, queries, PD, and a clean EOPNOTSUPP for what is not there yet.
	out=$("$SMOKE" $MRC 2>&1) || fail "$host: $SMOKE $MRC: $out"
	echo "$host: $MRC PORT_ACTIVE Ethernet GID ::ffff:$ip; $RXE via rxe; $(tr "\n" " " <<<"$out")"
}

# Admin down must not lose eth0's IPv6 addresses (other cases rely on them).
guest_admin_down_up() {
	local keep
	keep=$(sysctl -n net.ipv6.conf.eth0.keep_addr_on_down)
	# shellcheck disable=SC2064 # restore the value read now, also on failure
	trap "ip link set eth0 up; sysctl -qw net.ipv6.conf.eth0.keep_addr_on_down=$keep" EXIT
	sysctl -qw net.ipv6.conf.eth0.keep_addr_on_down=1
	ip link set eth0 down
	wait_state $MRC PORT_DOWN
	ip link set eth0 up
	wait_state $MRC PORT_ACTIVE
}

guest_clean() {
	local rc=0 d
	[ -f "$CREATED" ] || return 0
	while read -r d; do
		if [ -e "/sys/class/infiniband/$d" ]; then
			rdma link delete "$d" || rc=1
		fi
	done < "$CREATED"
	rm -f "$CREATED"
	return $rc
}

if [ "${1:-}" = guest ]; then
	shift
	step=$1; shift
	case $step in
	up) guest_up ;;
	check) guest_check ;;
	wait-state) wait_state "$@" ;;
	admin-down-up) guest_admin_down_up ;;
	clean) guest_clean ;;
	*) fail "unknown guest step $step" ;;
	esac
	exit 0
fi

# ----------------------------------------------------------------- host side
: "${BED:?BED must point at selftests/bed}"
SELF=$(readlink -f "$0")
g() { local vm=$1; shift; "$BED" exec "$vm" -- bash "$SELF" guest "$@"; }

carrier_off=
cleanup() {
	[ -z "$carrier_off" ] || "$BED" monitor "$carrier_off" "set_link l0 on" >/dev/null || true
	for vm in a b; do
		g $vm clean || echo "warning: cleanup failed in $vm" >&2
	done
}
trap cleanup EXIT

for vm in a b; do
	g $vm up
done
for vm in a b; do
	g $vm check

	carrier_off=$vm
	"$BED" monitor $vm "set_link l0 off" >/dev/null
	g $vm wait-state $MRC PORT_DOWN
	"$BED" monitor $vm "set_link l0 on" >/dev/null
	carrier_off=
	g $vm wait-state $MRC PORT_ACTIVE

	g $vm admin-down-up
	echo "$vm: $MRC follows carrier and admin state"
done
