#!/usr/bin/env bash
# Devices in a network namespace that is deleted, in guest a:
#  - a veth pair, one end moved into namespace mrcns; `rdma link add` of
#    mrcns1 on it inside the namespace, mrcn0 on the other end outside;
#    ibv_rc_pingpong (every buffer checked) from outside to inside, so
#    both connections have received data and their transports linger
#    after the QPs are destroyed ([REL-21]), each keeping its namespace's
#    UDP socket; then the namespace is deleted at once: both devices must
#    go (the veth pair dies with it), and the lingering transports must
#    not keep the namespace's sockets, nor use them once it is gone (the
#    namespace's exit closes them, kernel/net.c);
#  - a device on a veth end in the initial namespace whose netdev is then
#    moved into a namespace: the device goes with the move, and the
#    namespace is deleted after;
#  - after both, `rmmod metaroce` must work and nothing may be logged
#    (case_guest_end checks the kernel log for splats and for
#    "unregister_netdevice: waiting").
# A use of a dead namespace's socket is silent on the stock kernel; the
# debug kernel (KASAN) reports it.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

NS=mrcns
PORT=18720
SLOG=/tmp/20-netns.server

ns() { ip netns exec "$NS" "$@"; }

# ip under a timeout, by its path: busybox's timeout runs its own ip applet
ip_timed() { timeout 30 "$(type -P ip)" "$@"; }

# Devices in this case, outside and inside.
gone() { [ ! -e "$IB/$1" ] && [ -z "$(link_line "$1")" ]; }

# The server's TCP port is listening inside the namespace.
ns_listening() { ns bash "$MRC_SELF" --guest tcp_listening "$PORT"; }

pair_up() {
	modprobe veth
	ip netns add "$NS"
	ip link add mrcn0 type veth peer name mrcn1
	ip link set mrcn1 netns "$NS"
	ip addr add 10.77.0.1/24 dev mrcn0
	ip link set mrcn0 up
	ns ip addr add 10.77.0.2/24 dev mrcn1
	ns ip link set lo up
	ns ip link set mrcn1 up
	rdma link add mrcn0 type metaroce netdev mrcn0
	ns rdma link add mrcns1 type metaroce netdev mrcn1
	wait_until "mrcn0 ACTIVE" port_is mrcn0 "4: ACTIVE"
	wait_until "mrcns1 ACTIVE" port_is mrcns1 "4: ACTIVE"
	[ "$(cat "$IB"/mrcns1/netdev)" = mrcn1 ] || fail "mrcns1 is not on mrcn1"
	wait_until "mrcn0's IPv4 GID" has_v2_gid mrcn0 "$(gid_of_ipv4 10.77.0.1)"
	wait_until "mrcns1's IPv4 GID" has_v2_gid mrcns1 "$(gid_of_ipv4 10.77.0.2)"
}

traffic() {
	local gin gout out
	gin=$(gid_index mrcns1 "$(gid_of_ipv4 10.77.0.2)")
	gout=$(gid_index mrcn0 "$(gid_of_ipv4 10.77.0.1)")
	bg_run "$SLOG" 60 "$(type -P ip)" netns exec "$NS" \
		ibv_rc_pingpong -p "$PORT" -d mrcns1 -g "$gin" -c -n 200 -s 4096
	wait_until "server listening in $NS" ns_listening
	out=$(timeout 60 ibv_rc_pingpong -p "$PORT" -d mrcn0 -g "$gout" -c -n 200 \
		-s 4096 10.77.0.2 2>&1) || fail "client failed: $out"
	echo "$out" | grep "iters in" || fail "client printed no result: $out"
	MRC_TIMEOUT=70 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
}

# Right after the QPs were destroyed, while their transports linger.
delete_ns() {
	ip_timed netns delete "$NS" || fail "ip netns delete hung or failed"
	wait_until "mrcns1 gone with its namespace" gone mrcns1
	wait_until "mrcn0 gone with its veth peer" gone mrcn0
	! ip link show mrcn0 >/dev/null 2>&1 || fail "veth end mrcn0 survived"
	echo "$MRC_VM: deleting $NS removed mrcns1 and mrcn0"
}

moved_out() {
	ip netns add "$NS"
	ip link add mrcn0 type veth peer name mrcn1
	ip link set mrcn0 up
	ip link set mrcn1 up
	rdma link add mrcn0 type metaroce netdev mrcn0
	wait_until "mrcn0 ACTIVE" port_is mrcn0 "4: ACTIVE"
	ip link set mrcn0 netns "$NS"
	wait_until "mrcn0 gone with its netdev's move" gone mrcn0
	ip_timed netns delete "$NS" || fail "ip netns delete hung or failed"
	ip link del mrcn1 2>/dev/null || true
	echo "$MRC_VM: moving mrcn0's netdev into $NS removed it"
}

unload() {
	timeout 30 rmmod metaroce || fail "rmmod failed or hung"
	[ ! -e /sys/module/metaroce ] || fail "metaroce still loaded"
	modprobe metaroce
	echo "$MRC_VM: rmmod and modprobe after the namespaces died"
}

case_guest_cleanup() {
	ip netns delete "$NS" 2>/dev/null || true
	ip link del mrcn0 2>/dev/null || true
	ip link del mrcn1 2>/dev/null || true
	rm -f "$SLOG" "$SLOG.rc"
}

case_main "$@"

g a pair_up
g a traffic
g a delete_ns
g a moved_out
g a unload
