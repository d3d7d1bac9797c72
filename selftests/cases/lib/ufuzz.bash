# shellcheck shell=bash
# Steps of the user-side fuzzer cases (selftests/cases/47-user-fuzz.sh, the
# short one, and selftests/long/47-user-fuzz-long.sh): mrc_ufuzz (userspace/
# tools/ufuzz) runs in guest a as an unprivileged user against its peer in
# guest b. Guest a: 10.0.0.1 on eth0 (mrc0) and, for the teardown steps, a
# macvlan mv0 of eth1 with 10.9.0.1 (mrc1), in init_net or in namespace fz;
# guest b the same with .2. The control channel always runs over eth0.
# shellcheck source=selftests/cases/lib/link.bash
. "$(dirname "${BASH_SOURCE[0]}")/link.bash"

UF_TOOL=$TOP/build/userspace/tools/ufuzz/mrc_ufuzz
UF_PORT=18760		# the peer of mrc0
UF_PORT1=18761		# the peer of mrc1
UF_PEER=10.0.0.2
UF_USER=65534		# nobody
UF_NS=fz
# util-linux's: busybox's setpriv (an applet that busybox's timeout and
# setsid prefer) has no --reuid
UF_SETPRIV=/usr/bin/setpriv

# ---------------------------------------------------------------- guest side

# uf_gid DEV IP: DEV's GID index of IPv4 address IP.
uf_gid() { gid_index "$1" "$(gid_of_ipv4 "$2")"; }

# uf_user SECS CMD...: CMD as an unprivileged user, under a timeout.
uf_user() {
	local secs=$1
	shift
	timeout "$secs" "$UF_SETPRIV" --reuid "$UF_USER" --regid "$UF_USER" --clear-groups "$@"
}

# uf_up N: mrc0 on eth0 with its IPv4 GID (N: 1 in a, 2 in b); the device
# file open to every user, as a udev rule would make it.
uf_up() {
	[ -x "$UF_TOOL" ] || fail "no $UF_TOOL (make userspace)"
	"$UF_SETPRIV" --version | grep -q util-linux || fail "no util-linux setpriv in the guest"
	modprobe metaroce
	rdma link show mrc0/1 >/dev/null 2>&1 || rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
	wait_until "mrc0's IPv4 GID" uf_gid mrc0 "10.0.0.$1" >/dev/null
	chmod a+rw /dev/infiniband/uverbs*
}

# uf_mv_up N [NETNS]: mrc1 on a macvlan mv0 of eth1 (10.9.0.N), in NETNS
# when given (the device is made from inside it, where its netdev is).
uf_mv_up() {
	local n=$1 ns=${2:-} in=()
	if [ -n "$ns" ]; then
		ip netns add "$ns"
		in=(ip netns exec "$ns")
		ip link add link eth1 name mv0 address "52:54:00:09:00:0$n" type macvlan mode bridge
		ip link set mv0 netns "$ns"
		ip -n "$ns" addr add "10.9.0.$n/24" dev mv0
		ip -n "$ns" link set mv0 up
		ip -n "$ns" neigh replace "10.9.0.$((3 - n))" lladdr "52:54:00:09:00:0$((3 - n))" \
			dev mv0 nud permanent
	else
		macvlan_up mv0 9 "$n"
	fi
	"${in[@]}" rdma link add mrc1 type metaroce netdev mv0
	wait_until "mrc1 ACTIVE" port_is mrc1 "4: ACTIVE"
	wait_until "mrc1's IPv4 GID" uf_gid mrc1 "10.9.0.$n" >/dev/null
	chmod a+rw /dev/infiniband/uverbs*
}

# uf_peer DEV PORT SECS: the peer, detached, until it is killed or SECS pass.
uf_peer() {
	bg_run "/tmp/uf.peer.$2" "$3" "$UF_TOOL" peer -d "$1" -g "$(uf_gid "$1" "$(uf_addr "$1" 2)")" \
		-p "$2"
	wait_until "the peer listening on $2" tcp_listening "$2"
}

# uf_addr DEV N: the address of DEV's netdev in guest N
uf_addr() {
	if [ "$1" = mrc0 ]; then echo "10.0.0.$2"; else echo "10.9.0.$2"; fi
}

# uf_exec SECS MODE DEV PORT ARGS...: mrc_ufuzz MODE as the user; its output
# to stdout and /tmp/uf.out; its exit status in UF_RC.
uf_exec() {
	local secs=$1 mode=$2 dev=$3 port=$4
	shift 4
	UF_RC=0
	uf_user "$secs" "$UF_TOOL" "$mode" -d "$dev" -g "$(uf_gid "$dev" "$(uf_addr "$dev" 1)")" \
		-p "$port" "$@" "$UF_PEER" > /tmp/uf.out 2>&1 || UF_RC=$?
	cat /tmp/uf.out
}

# uf_run SECS MODE DEV PORT ARGS...: uf_exec, failing unless it exits 0.
uf_run() {
	uf_exec "$@"
	[ "$UF_RC" = 0 ] || fail "mrc_ufuzz $2 exited $UF_RC"
}

# uf_fuzz SEED ITERATIONS TIME_LIMIT [ARGS...]
uf_fuzz() {
	local seed=$1 iters=$2 limit=$3
	shift 3
	uf_run $((limit + 240)) fuzz mrc0 "$UF_PORT" --seed "$seed" --iterations "$iters" \
		--time-limit "$limit" "$@"
	grep -q '^ufuzz: seed .* uid '"$UF_USER"'$' /tmp/uf.out || fail "not run as uid $UF_USER"
	! grep -Eq '^(UNEXPECTED|NO EVIDENCE)' /tmp/uf.out || fail "unexpected results"
	grep -q '^ok verify after fuzzing' /tmp/uf.out || fail "no verified transfer after fuzzing"
}

# uf_replay SEED ITERATIONS TIME_LIMIT: uf_fuzz for a stretch of a seed too
# short for every class to draw its refusals: only unexpected results and
# the verified transfer after it count (its exit status says 1 for a
# missing class's evidence too).
uf_replay() {
	uf_exec $(($3 + 240)) fuzz mrc0 "$UF_PORT" --seed "$1" --iterations "$2" --time-limit "$3"
	grep -q '^ufuzz: seed .* uid '"$UF_USER"'$' /tmp/uf.out || fail "not run as uid $UF_USER"
	! grep -q '^UNEXPECTED' /tmp/uf.out || fail "unexpected results"
	grep -q "^ufuzz: $2 operations in" /tmp/uf.out || fail "the replay did not run its $2 operations"
	grep -q '^ok verify after fuzzing' /tmp/uf.out || fail "no verified transfer after fuzzing"
}

# uf_churn CYCLES SEED
uf_churn() {
	uf_run $((120 + $1 / 4)) churn mrc0 "$UF_PORT" --cycles "$1" --seed "$2"
	grep -q "^churn: $1 cycles .* 0 unexpected" /tmp/uf.out || fail "churn incomplete"
}

uf_verify() {
	uf_run 120 verify "$1" "$2"
	grep -q '^ok verify' /tmp/uf.out || fail "no verified transfer"
}

# uf_traffic DEV PORT: verified traffic as the user, detached; returns once
# it runs.
uf_traffic() {
	local g
	g=$(uf_gid "$1" "$(uf_addr "$1" 1)")
	bg_run /tmp/uf.traffic 300 "$UF_SETPRIV" --reuid "$UF_USER" --regid "$UF_USER" --clear-groups \
		"$UF_TOOL" traffic -d "$1" -g "$g" -p "$2" --seconds 240 "$UF_PEER"
	MRC_TIMEOUT=60 wait_until "traffic running" grep -qs '^traffic: running' /tmp/uf.traffic
}

# The traffic process saw its device go and ended well, in bounded time.
uf_traffic_gone() {
	MRC_TIMEOUT=60 wait_until "the traffic process ended" test -e /tmp/uf.traffic.rc
	grep '^traffic:' /tmp/uf.traffic | tail -1
	[ "$(cat /tmp/uf.traffic.rc)" = 0 ] || fail "traffic exited $(cat /tmp/uf.traffic.rc): $(cat /tmp/uf.traffic)"
	grep -q 'device gone, 0 unexpected' /tmp/uf.traffic || fail "the process did not see its device go"
}

# rmmod while a process has mrc0 open and traffic runs: the module tears
# the device down (it has disassociate_ucontext) rather than refusing.
uf_rmmod_under_traffic() {
	uf_traffic mrc0 "$UF_PORT"
	timeout 60 rmmod metaroce || fail "rmmod under traffic failed or hung"
	[ ! -e /sys/module/metaroce ] || fail "metaroce still loaded"
	uf_traffic_gone
	uf_up 1
}

# uf_gone_under_traffic HOW: mrc1's netdev (HOW=netdev) or its namespace
# (HOW=netns) deleted under traffic.
uf_gone_under_traffic() {
	uf_traffic mrc1 "$UF_PORT1"
	if [ "$1" = netns ]; then
		ip netns del "$UF_NS"
	else
		ip link del mv0
	fi
	uf_traffic_gone
	wait_until "mrc1 gone" test ! -e "$IB/mrc1"
}

uf_rmmod() {
	timeout 60 rmmod metaroce || fail "rmmod at the end failed"
	modprobe metaroce
}

# Our own bugs the kernel logs as such (kernel/xport.c: mrc_xp_encode()).
uf_log_clean() {
	! log_since "mrc-case: begin $1" | grep 'metaroce: cannot encode' ||
		fail "the transport built packets it could not encode"
}

uf_cleanup() {
	local p
	for p in $(pidof mrc_ufuzz); do
		kill -9 "$p" 2>/dev/null
	done
	rdma link delete mrc1 2>/dev/null || true
	ip link del mv0 2>/dev/null || true
	ip netns del "$UF_NS" 2>/dev/null || true
	return 0
}

# ----------------------------------------------------------------- host side

# uf_teardowns_setup: guest b's side of the teardowns, once: mrc1 and its
# peer.
uf_teardowns_setup() {
	g b uf_mv_up 2
	g b uf_peer mrc1 "$UF_PORT1" 3600
}

# uf_teardowns: rmmod (the module then loaded again), netdev deletion and
# namespace deletion in guest a under traffic, then a verified transfer on
# mrc0, which rmmod took and which was added again.
uf_teardowns() {
	echo "rmmod metaroce under traffic (${SECONDS}s)"
	g a uf_rmmod_under_traffic
	echo "deleting the netdev under traffic (${SECONDS}s)"
	g a uf_mv_up 1
	g a uf_gone_under_traffic netdev
	echo "deleting the namespace under traffic (${SECONDS}s)"
	g a uf_mv_up 1 "$UF_NS"
	g a uf_gone_under_traffic netns
	g a uf_verify mrc0 "$UF_PORT"
}
