#!/usr/bin/env bash
# QP counters (`rdma statistic qp`): a QP bound to a counter counts its
# traffic there instead of on the device, and ib_core shows the port's
# counters as the device's own plus every counter's, so each packet counts
# once.
#  - UD, exact counts, in guest a: with `auto type on`, a UD QP that waits
#    for a client that never comes (an ibv_ud_pingpong server, the holder)
#    keeps the UD counter alive; ibv_ud_pingpong -n 200 -s 1000 to b joins
#    it, and the counter shows exactly 200 datagrams and 200 * (1000 + 44)
#    bytes (UD_SEND header and ICRC, [PKT-85]) each way, the port's
#    counters as much more; the QP view leaves out the device's own
#    counters (rx_drop_no_qp). With auto mode off 100 more datagrams count
#    on the port only; once the holder is gone its counter is freed and
#    the port keeps every count (ib_core's history).
#  - RC, with auto type, auto pid and a manual bind in both guests:
#    mrc_verbs_check between the guests, held before its first packet and
#    after its last (-G, -H): a's counter sent exactly what b's received
#    and the other way round, the client's at least the 5 MiB it wrote;
#    the manual counter is unbound from the live QP, freed, and the port
#    keeps its counts.
#  - `rdma link del`, and deleting a network namespace with its device
#    (rdma's shared namespace mode: the process with the QP outside), while
#    UD and RC QPs are bound: the devices go, the kernel logs nothing
#    (case_guest_end) and metaroce unloads.
# Without the driver's counter operations no QP is ever bound: the first
# wait for a counter fails.
# bed-timeout: 600
set -euo pipefail
# shellcheck source=lib/verbs.bash
. "$(dirname "$0")/lib/verbs.bash"

PORT=18783		# RC, mrc_verbs_check
UD_PORT=18785		# ibv_ud_pingpong, the measured one
HOLD_PORT=18786		# ibv_ud_pingpong, the holder
LOG=/tmp/83-qp-counters	# LOG.<port>: a tool's output, then .rc
GO=/tmp/83-qp-counters.go
HOLD=/tmp/83-qp-counters.hold
UD_SIZE=1000
UD_PKT=$((UD_SIZE + 44))
NS=mrcqns

# ---------------------------------------------------------------- guest side
up() {
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
	wait_until "mrc0's IPv4 GID" gid_index mrc0 "$(my_gid4)" >/dev/null
	rm -f "$GO" "$HOLD"
}

my_gid4() { gid_of_ipv4 "10.0.0.$([ "$MRC_VM" = a ] && echo 1 || echo 2)"; }

# stat_of NAME: NAME's value in one counter's `rdma statistic` output
stat_of() { tr -s ' \t' '\n' | awk -v k="$1" 'p { print; exit } $0 == k { p = 1 }'; }

# port_stat NAME [DEV]: the port's counter NAME
port_stat() { rdma statistic show link "${2:-mrc0}/1" | stat_of "$1"; }

# qp_stat NAME FILTER VALUE: NAME of the QP counter FILTER selects
qp_stat() { rdma statistic qp show link mrc0/1 "$2" "$3" | stat_of "$1"; }

no_counter() { [ -z "$(rdma statistic qp show link mrc0/1)" ]; }

# The RC QP of mrc_verbs_check, its number.
rc_qpn() {
	rdma resource show qp link mrc0/1 | awk '/type RC .*comm mrc_verbs_check/ {
		for (i = 1; i < NF; i++) if ($i == "lqpn") print $(i + 1) }'
}

rc_listed() { [ -n "$(rc_qpn)" ]; }

bound() { [ -n "$(qp_stat cntn "$1" "$2")" ]; }

kill_tools() {
	local p
	for p in $(pidof ibv_ud_pingpong mrc_verbs_check); do
		kill "$p" 2>/dev/null
	done
	return 0
}

# holder_start [DEV GID]: a UD QP in INIT that never sends
holder_start() {
	local dev=${1:-mrc0} gid=${2:-}
	[ -n "$gid" ] || gid=$(gid_index mrc0 "$(my_gid4)")
	bg_run "$LOG.$HOLD_PORT" 300 ibv_ud_pingpong -d "$dev" -g "$gid" -p "$HOLD_PORT"
}

ud_server() {	# ITERS
	bg_run "$LOG.$UD_PORT" 120 ibv_ud_pingpong -d mrc0 -g "$(gid_index mrc0 "$(my_gid4)")" \
		-p "$UD_PORT" -c -n "$1" -s "$UD_SIZE"
	wait_until "UD server listening" tcp_listening "$UD_PORT"
}

ud_server_done() {
	MRC_TIMEOUT=120 wait_until "UD server finished" test -e "$LOG.$UD_PORT.rc"
	[ "$(cat "$LOG.$UD_PORT.rc")" = 0 ] || fail "UD server: $(cat "$LOG.$UD_PORT")"
}

ud_client() {	# ITERS
	local out
	out=$(timeout 120 ibv_ud_pingpong -d mrc0 -g "$(gid_index mrc0 "$(my_gid4)")" \
		-p "$UD_PORT" -c -n "$1" -s "$UD_SIZE" 10.0.0.2 2>&1) || fail "UD client: $out"
	grep -q "^$1 iters in " <<<"$out" || fail "UD client: no '$1 iters': $out"
}

TRAFFIC="tx_packets tx_bytes rx_packets rx_bytes"

# traffic FUNC ARGS...: TRAFFIC's values, each as FUNC NAME ARGS... gives it
traffic() {
	local k v=()
	for k in $TRAFFIC; do
		v+=("$("$1" "$k" "${@:2}")")
	done
	echo "${v[*]}"
}

# the port's, the UD counter's
port_traffic() { traffic port_stat; }
ud_traffic() { traffic qp_stat qp-type UD; }

# traffic_plus LINE N: LINE (TRAFFIC) after N datagrams each way
traffic_plus() {
	local b
	read -ra b <<<"$1"
	echo "$((b[0] + $2)) $((b[1] + $2 * UD_PKT)) $((b[2] + $2)) $((b[3] + $2 * UD_PKT))"
}

# ud_is PORT_N COUNTER_N: since ud_exact the port sent and received PORT_N
# datagrams of UD_PKT bytes, the counter COUNTER_N
ud_is() {
	[ "$(port_traffic)" = "$(traffic_plus "$(cat "$LOG.before")" "$1")" ] &&
		[ "$(ud_traffic)" = "$(traffic_plus "0 0 0 0" "$2")" ]
}

ud_exact() {
	rdma statistic qp set link mrc0/1 auto type on
	holder_start
	wait_until "the holder's UD QP bound" bound qp-type UD
	[ "$(ud_traffic)" = "0 0 0 0" ] || fail "a fresh counter counted: $(ud_traffic)"
	port_traffic > "$LOG.before"
}

ud_check() {	# PORT_DATAGRAMS COUNTER_DATAGRAMS
	wait_until "port +$1, counter $2 datagrams each way" ud_is "$1" "$2"
	echo "  $MRC_VM: $TRAFFIC: port $(port_traffic), UD counter $(ud_traffic)"
	[ -z "$(qp_stat rx_drop_no_qp qp-type UD)" ] ||
		fail "the QP view shows a device counter: $(rdma statistic qp show link mrc0/1)"
	[ -n "$(port_stat rx_drop_no_qp)" ] || fail "the port lost rx_drop_no_qp"
}

# After auto mode off, the holder gone: its counter is freed, the port
# keeps all 300 datagrams each way.
ud_history() {
	local want
	kill_tools
	wait_until "the UD counter freed with its last QP" no_counter
	want=$(traffic_plus "$(cat "$LOG.before")" 300)
	[ "$(port_traffic)" = "$want" ] || fail "port after the counter's end: $(port_traffic), not $want"
	echo "  $MRC_VM: counter freed, the port kept its counts: $want"
}

auto_off() { rdma statistic qp set link mrc0/1 auto off; }

rc_start() {	# MODE SERVER_OR_EMPTY
	case $1 in
	type | pid) rdma statistic qp set link mrc0/1 auto "$1" on ;;
	esac
	rm -f "$GO" "$HOLD"
	verbs_start "$LOG" "$PORT" -w 0 -G "$GO" -H "$HOLD" ${2:+"$2"}
	wait_until "mrc_verbs_check's RC QP" rc_listed
	[ "$1" != manual ] || rdma statistic qp bind link mrc0/1 lqpn "$(rc_qpn)"
	wait_until "the RC QP bound ($1)" bound lqpn "$(rc_qpn)"
}

go() {
	touch "$GO"
	[ "$MRC_VM" = a ] || wait_until "server listening" tcp_listening "$PORT"
}

steps_done() { grep -qs "steps done" "$LOG.$PORT"; }

# the RC counter's NAME
rc_stat() { qp_stat "$1" lqpn "$(rc_qpn)"; }

# The manual counter off the live QP: freed, its counts kept by the port.
rc_unbind() {
	local qpn cntn before
	qpn=$(rc_qpn)
	cntn=$(rc_stat cntn)
	before=$(port_stat tx_packets)
	rdma statistic qp unbind link mrc0/1 cntn "$cntn" lqpn "$qpn"
	no_counter || fail "counter $cntn left after its unbind: $(rdma statistic qp show)"
	[ "$(port_stat tx_packets)" = "$before" ] ||
		fail "port tx_packets $before before the unbind, $(port_stat tx_packets) after"
}

rc_end() {
	touch "$HOLD"
	verbs_done "$1" "$LOG" "$PORT"
	wait_until "no counter left" no_counter
	auto_off
}

# Devices removed under bound QPs: mrc0 with `rdma link del`, a device in
# a namespace with the namespace.
ns() { ip netns exec "$NS" "$@"; }

removals() {
	local gid
	rdma statistic qp set link mrc0/1 auto type on
	holder_start
	rm -f "$GO"
	verbs_start "$LOG" "$PORT" -w 0 -G "$GO"
	wait_until "UD and RC QPs bound" bound qp-type RC
	bound qp-type UD || fail "UD QP not bound"
	rdma link del mrc0
	wait_until "mrc0 gone" test ! -e "$IB/mrc0"
	kill_tools
	echo "  $MRC_VM: mrc0 deleted with a bound UD and RC QP"

	modprobe veth
	ip netns add "$NS"
	ip link add mrcq0 type veth peer name mrcq1
	ip link set mrcq1 netns "$NS"
	ip link set mrcq0 up
	ns ip addr add 10.78.0.2/24 dev mrcq1
	ns ip link set lo up
	ns ip link set mrcq1 up
	ns rdma link add mrcqns1 type metaroce netdev mrcq1
	wait_until "mrcqns1 ACTIVE" port_is mrcqns1 "4: ACTIVE"
	wait_until "mrcqns1's IPv4 GID" has_v2_gid mrcqns1 "$(gid_of_ipv4 10.78.0.2)"
	gid=$(gid_index mrcqns1 "$(gid_of_ipv4 10.78.0.2)")
	# the holder stays outside: a process inside would keep the namespace
	rdma statistic qp set link mrcqns1/1 auto type on
	holder_start mrcqns1 "$gid"
	wait_until "the UD QP on mrcqns1 bound" ns_bound
	timeout 30 "$(type -P ip)" netns delete "$NS" || fail "ip netns delete hung or failed"
	wait_until "mrcqns1 gone with its namespace" test ! -e "$IB/mrcqns1"
	kill_tools
	rmmod metaroce || fail "metaroce does not unload"
	modprobe metaroce
	echo "  $MRC_VM: $NS deleted with a bound UD QP on mrcqns1; metaroce unloads"
}

ns_bound() { rdma statistic qp show link mrcqns1/1 | grep -q cntn; }

case_guest_cleanup() {
	touch "$GO" "$HOLD"
	kill_tools
	ip netns delete "$NS" 2>/dev/null || true
	ip link del mrcq0 2>/dev/null || true
	rdma statistic qp set link mrc0/1 auto off 2>/dev/null || true
}

# ----------------------------------------------------------------- host side
case_main "$@"
g a up
g b up

echo "UD: 200 datagrams on a bound QP, 100 on an unbound one"
g a ud_exact
g b ud_server 200
g a ud_client 200
g b ud_server_done
g a ud_check 200 200
g a auto_off
g b ud_server 100
g a ud_client 100
g b ud_server_done
g a ud_check 300 200
g a ud_history

# a_b: a's counter NAME equals b's NAME2
a_b() { [ "$(g a rc_stat "$1")" = "$(g b rc_stat "$2")" ]; }
both_ways() { a_b tx_packets rx_packets && a_b tx_bytes rx_bytes && a_b rx_packets tx_packets && a_b rx_bytes tx_bytes; }

for mode in type pid manual; do
	echo "RC, $mode"
	g b rc_start "$mode" ""
	g a rc_start "$mode" 10.0.0.2
	g b go
	g a go
	MRC_TIMEOUT=120 g a wait_until "client steps done" steps_done
	g b wait_until "server steps done" steps_done
	wait_until "a's counter sent what b's received, and back" both_ways
	sent=$(g a rc_stat tx_bytes)
	[ "$sent" -gt $((5 << 20)) ] || fail "a's counter sent only $sent bytes"
	echo "  a sent $(g a rc_stat tx_packets) packets, $sent bytes; b sent $(g b rc_stat tx_packets), $(g b rc_stat tx_bytes)"
	if [ "$mode" = manual ]; then
		g a rc_unbind
		g b rc_unbind
	fi
	g b rc_end server
	g a rc_end client
done

echo "removals with bound QPs"
g a removals
echo "ok: 83-qp-counters"
