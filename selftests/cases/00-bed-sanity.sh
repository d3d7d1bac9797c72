#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted scripts run in the guests
# The bed itself works: every data link is up with its addresses in both
# guests, a pings b over each link (IPv4 and IPv6), a file sent over TCP on
# each link arrives with the same sha256, and netem can be added to a link
# (and shows in the RTT) and removed again.
set -euo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BED=${BED:-$TOP/selftests/bed}

fail() { echo "FAIL: $*" >&2; exit 1; }
g() { "$BED" exec "$@"; }

# wait_until SECONDS DESC CMD...: poll CMD until it succeeds.
wait_until() {
	local limit=$1 desc=$2 i
	shift 2
	for ((i = 0; i < limit * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	fail "after ${limit}s still not: $desc"
}

cleanup() {
	g a -- sh -c 'tc qdisc del dev eth0 root 2>/dev/null; rm -f /tmp/bed-sanity.*' || true
	g b -- sh -c 'pkill -f "TCP6?-LISTEN:5001" 2>/dev/null; rm -f /tmp/bed-sanity.*' || true
}
trap cleanup EXIT

links=$(g a -- sh -c '. /etc/bed.env; echo $BED_LINKS')
[ "$links" -ge 1 ] || fail "no links in the bed ($links)"

# Addresses and state, checked inside each guest in one round trip.
for vm in a b; do
	node=1
	[ $vm = b ] && node=2
	g $vm -- bash -c '
		links=$1 node=$2
		for ((i = 0; i < links; i++)); do
			ip -br link show dev eth$i | grep -q " UP " || { echo "eth$i not UP"; exit 1; }
			ip -4 -o addr show dev eth$i | grep -q " 10\.0\.$i\.$node/24 " ||
				{ echo "eth$i lacks 10.0.$i.$node/24"; exit 1; }
			a6=fd00:$i::$node
			[ $i = 0 ] && a6=fd00::$node	# as ip prints it
			ip -6 -o addr show dev eth$i | grep -q " $a6/64 " ||
				{ echo "eth$i lacks $a6/64"; exit 1; }
		done
		[ ! -e /sys/class/net/eth$links ] || { echo "more links than $links"; exit 1; }' \
		check "$links" "$node" || fail "guest $vm: link addresses"
	echo "$vm: eth0..eth$((links - 1)) up with 10.0.<i>.$node/24 and fd00:<i>::$node/64"
done

# Reachability over every link, both address families.
for ((i = 0; i < links; i++)); do
	g a -- ping -c 2 -i 0.2 -w 10 "10.0.$i.2" >/dev/null || fail "ping 10.0.$i.2 over eth$i"
	g a -- ping6 -c 2 -i 0.2 -w 10 "fd00:$i::2" >/dev/null || fail "ping fd00:$i::2 over eth$i"
	# The route must use link i itself.
	g a -- ip route get "10.0.$i.2" | grep -q "dev eth$i " || fail "10.0.$i.2 not routed via eth$i"
done
echo "a -> b: ping over all $links links (IPv4 and IPv6)"

# Bulk data over TCP on every link (IPv6 on the last), checksummed on both ends.
g a -- sh -c 'dd if=/dev/urandom of=/tmp/bed-sanity.tx bs=64k count=64 2>/dev/null'
sum_tx=$(g a -- sha256sum /tmp/bed-sanity.tx | cut -d' ' -f1)
for ((i = 0; i < links; i++)); do
	if [ $i = $((links - 1)) ]; then
		listen=TCP6-LISTEN:5001,reuseaddr dst="TCP6:[fd00:$i::2]:5001"
	else
		listen=TCP-LISTEN:5001,reuseaddr dst="TCP:10.0.$i.2:5001"
	fi
	g b -- rm -f /tmp/bed-sanity.rx
	g b -- socat -u "$listen" OPEN:/tmp/bed-sanity.rx,creat,trunc &
	rx=$!
	wait_until 20 "b listening on 5001" g b -- sh -c 'ss -ltn | grep -q ":5001 "'
	g a -- socat -u OPEN:/tmp/bed-sanity.tx "$dst" || fail "send over eth$i"
	wait $rx || fail "receive over eth$i"
	sum_rx=$(g b -- sha256sum /tmp/bed-sanity.rx | cut -d' ' -f1)
	[ "$sum_rx" = "$sum_tx" ] || fail "eth$i: sha256 $sum_rx received, $sum_tx sent"
done
echo "a -> b: 4 MiB over TCP on every link, sha256 $sum_tx on both ends"

# netem on a link: visible in the RTT, and removable.
rtt() { g a -- ping -c 3 -i 0.2 -w 10 "10.0.0.2" | sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p'; }
g a -- tc qdisc add dev eth0 root netem delay 100ms
g a -- tc qdisc show dev eth0 | grep -q netem || fail "netem not installed"
with=$(rtt)
[ "${with%.*}" -ge 100 ] || fail "RTT with 100 ms netem delay is $with ms"
g a -- tc qdisc del dev eth0 root
g a -- tc qdisc show dev eth0 | grep -q netem && fail "netem still installed"
without=$(rtt)
[ "${without%.*}" -lt 100 ] || fail "RTT after removing netem is $without ms"
echo "netem: RTT $with ms with 100 ms delay on eth0, $without ms after removing it"
