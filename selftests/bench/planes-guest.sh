#!/usr/bin/env bash
# Guest side of the planes benchmark (selftests/bench/planes runs it through
# `bed exec`) on a bed with two direct links: mrcp0 on eth0 (plane 0,
# 10.0.0.x), eth1 (10.0.1.x) its plane 1 or not. Both links' egress in
# both guests is rate-limited with an ECN-marking queue (fabric_g_set in
# this guest's own namespace), so the links, not the guests' CPUs, are the
# bottleneck.
#
#   planes-guest.sh up RATE              load metaroce (HELLO on), mrcp0,
#                                        both links at RATE Mbit/s (RED, ECN)
#   planes-guest.sh planes N RATE        1: eth1 no plane of mrcp0, 2: its
#                                        plane 1; the rate hint N x RATE
#   planes-guest.sh server PORT          mrc_verbs_check's server, listening
#   planes-guest.sh serverstop PORT      end it, print its log
#   planes-guest.sh start RUN PORT SECS IV PLAN   the link sampler, the
#                                        plan, then the client: an unverified
#                                        WRITE stream of SECS s (its last round
#                                        checked by the server), its progress
#                                        every 10 ms. PLAN "KIND CUT BACK": once
#                                        the stream moved 64 KiB, plane 1 fails
#                                        CUT s later and is repaired at BACK s,
#                                        on this guest's clock; KIND down (eth1
#                                        set down here: a NIC that died, which
#                                        the far end does not see) or hole
#                                        (every packet of eth1 dropped both
#                                        ways here: nobody sees); - for none
#   planes-guest.sh flowing RUN BYTES    "ended" once the client exited,
#                                        "flowing" once BYTES completed
#   planes-guest.sh stop RUN             end the run; print its files, each
#                                        line prefixed by its kind
#
# Files of run RUN, on the wall clock in microseconds (bash's
# EPOCHREALTIME, which mrc_verbs_check -P stamps with too):
#   prog    "P US BYTES": the stream's WRITEs completed, in verbs order
#   links   "L US TX0 TX1 UP1": bytes sent on eth0 and eth1, whether eth1
#           is up, every IV s
#   events  "E US cut KIND" and "E US back" as the plan takes its steps
#   trace   with PL_TRACE=1 (bed exec -e): the metaroce:mrc_path_state
#           events of the run, "cut" and "back" marked in them (the
#           trace's clock, not the wall clock)
#   client  mrc_verbs_check's output; rc its exit status
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${TOP:-$(cd "$HERE/../.." && pwd)}
export TMO=${TMO:-120}
# shellcheck disable=SC2034 # fabric.bash's: the links are this guest's own
FABRIC_NS=""
# shellcheck source=../cases/lib/fabric.bash
. "$HERE/../cases/lib/fabric.bash"
# shellcheck source=../cases/lib/link.bash
. "$HERE/../cases/lib/link.bash"

TOOL=$TOP/build/userspace/tools/mrc_verbs_check
DEV=mrcp0
RUNDIR=/tmp/pl
TR=/sys/kernel/tracing
SLOG=/tmp/pl-server

# shellcheck source=/dev/null # the guest's
. /etc/bed.env

gid() { gid_index $DEV "$(gid_of_ipv4 "10.0.0.$BED_NODE")"; }

up() {
	local l i
	modprobe metaroce || exit 1
	# the hole's tc modules now: loaded at the cut, by a busy guest,
	# they took seconds, and the hole came that late
	modprobe -a sch_ingress cls_matchall act_gact || exit 1
	echo 1 > /sys/module/metaroce/parameters/hello
	# [REL-26], off by default: what it does for a dark plane
	echo "${PL_STALL_COPY:-1}" > /sys/module/metaroce/parameters/stall_copy
	ip link set eth1 up
	[ -e "$IB/$DEV" ] || rdma link add $DEV type metaroce netdev eth0 || exit 1
	for ((i = 0; i < 100; i++)); do
		grep -qs ACTIVE "$IB/$DEV/ports/1/state" && [ -n "$(gid)" ] && break
		sleep 0.1
	done
	[ $i -lt 100 ] || { echo "$DEV not ACTIVE" >&2; exit 1; }
	for l in 0 1; do
		fabric_g_set "$l" "rate=${1}mbit" leaf=red || exit 1
	done
}

planes() {
	local f=$IB/$DEV/planes
	if [ "$1" = 1 ]; then
		grep -q " eth1 " "$f" && { echo "del eth1" > "$f" || exit 1; }
	else
		grep -q " eth1 " "$f" || { echo "add eth1" > "$f" || exit 1; }
	fi
	echo $(($1 * $2)) > /sys/module/metaroce/parameters/rx_capacity_mbps
}

server() {
	local port=$1 i
	[ -x "$TOOL" ] || { echo "no $TOOL (make userspace)" >&2; exit 1; }
	rm -f "$SLOG.$port" "$SLOG.$port.rc"
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'timeout "$TMO" "$@" > "$0" 2>&1; echo $? > "$0.rc"' \
		"$SLOG.$port" "$TOOL" -d $DEV -g "$(gid)" -p "$port" -w 0 < /dev/null > /dev/null 2>&1 &
	echo $! > "$SLOG.$port.pid"
	for ((i = 0; i < 200; i++)); do
		tcp_listening "$port" && return 0
		sleep 0.1
	done
	echo "server on $port never listened" >&2
	exit 1
}

serverstop() {
	local port=$1 pid i
	pid=$(cat "$SLOG.$port.pid" 2>/dev/null) || return 0
	# the server ends by itself once the client said bye
	for ((i = 0; i < 100; i++)); do
		[ -e "$SLOG.$port.rc" ] && break
		sleep 0.1
	done
	kill -- -"$pid" 2>/dev/null
	awk '{ print "server", $0 }' "$SLOG.$port" 2>/dev/null
	echo "server_rc $(cat "$SLOG.$port.rc" 2>/dev/null || echo killed)"
	rm -f "$SLOG.$port" "$SLOG.$port.pid" "$SLOG.$port.rc"
}

# The links every IV s until the stop file appears, no process per sample
# (the nap: a read with a timeout on a pipe nobody writes).
linkmon() {
	local iv=$1 out=$2 stop=$3 nap t0 t1 c
	exec {nap}<> <(:)
	while [ ! -e "$stop" ]; do
		read -r t0 < /sys/class/net/eth0/statistics/tx_bytes
		read -r t1 < /sys/class/net/eth1/statistics/tx_bytes
		read -r c < /sys/class/net/eth1/carrier 2>/dev/null || c=0
		echo "L ${EPOCHREALTIME/./} $t0 $t1 $c" >> "$out"
		read -r -t "$iv" -u "$nap"
	done
}

# cleanup: eth1 up, no blackhole
plane1_back() {
	ip link set eth1 up
	tc qdisc del dev eth1 clsact 2>/dev/null
	return 0
}

# plan RUN KIND CUT BACK: see start. ip and tc read their steps from FIFOs
# opened beforehand: a command started at the step would take effect up
# to seconds late on a loaded host (TCG), and the marks would lie.
plan() {
	local d=$RUNDIR.$1 kind=$2 nap t0 ipw tcw
	exec {nap}<> <(:)
	mkfifo "$d.ipf" "$d.tcf"
	/usr/sbin/ip -force -batch "$d.ipf" > "$d.ip.log" 2>&1 &
	/usr/sbin/tc -force -batch "$d.tcf" > "$d.tc.log" 2>&1 &
	exec {ipw}> "$d.ipf" {tcw}> "$d.tcf"
	until [ -e "$d.client.rc" ] || [ "$(flowing "$1" 65536)" = flowing ]; do
		read -r -t 0.01 -u "$nap"
	done
	t0=${EPOCHREALTIME/./}
	until [ -e "$d.client.rc" ] || [ "${EPOCHREALTIME/./}" -ge $((t0 + ${3%.*} * 1000000)) ]; do
		read -r -t 0.01 -u "$nap"
	done
	if [ ! -e "$d.client.rc" ]; then
		case $kind in
		down) echo "link set eth1 down" >&"$ipw" ;;
		hole) printf '%s\n' "qdisc add dev eth1 clsact" \
			"filter add dev eth1 egress pref 1 matchall action drop" \
			"filter add dev eth1 ingress pref 1 matchall action drop" >&"$tcw" ;;
		esac
		echo "E ${EPOCHREALTIME/./} cut $kind" >> "$d.events"
		[ -e "$d.trace" ] && echo "cut $kind" > $TR/trace_marker
		until [ -e "$d.client.rc" ] || [ "${EPOCHREALTIME/./}" -ge $((t0 + ${4%.*} * 1000000)) ]; do
			read -r -t 0.01 -u "$nap"
		done
		echo "link set eth1 up" >&"$ipw"
		echo "qdisc del dev eth1 clsact" >&"$tcw"
		echo "E ${EPOCHREALTIME/./} back" >> "$d.events"
		[ -e "$d.trace" ] && echo back > $TR/trace_marker
	fi
	exec {ipw}>&- {tcw}>&-
	wait
}

start() {
	local port=$2 secs=$3 iv=$4 d=$RUNDIR.$1
	local -a pl
	read -r -a pl <<<"$5"
	rm -f "$d".*
	touch "$d.events"
	if [ "${PL_TRACE:-0}" = 1 ] && [ -e $TR/events/metaroce/mrc_path_state ]; then
		echo 0 > $TR/tracing_on
		echo > $TR/trace
		echo 16384 > $TR/buffer_size_kb
		echo 1 > $TR/events/metaroce/mrc_path_state/enable
		echo 1 > $TR/tracing_on
		touch "$d.trace"
	fi
	setsid bash "$HERE/planes-guest.sh" linkmon "$iv" "$d.links" "$d.stop" \
		< /dev/null > /dev/null 2>&1 &
	echo $! > "$d.mon.pid"
	if [ "${pl[0]}" != - ]; then
		setsid bash "$HERE/planes-guest.sh" plan "$1" "${pl[@]}" \
			< /dev/null > /dev/null 2>&1 &
		echo $! > "$d.plan.pid"
	fi
	# a stream far longer than SECS: -t ends it
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'timeout "$TMO" "$@" > "$0" 2>&1 & echo $! > "$0.pid"; wait $!; echo $? > "$0.rc"' \
		"$d.client" "$TOOL" -d $DEV -g "$(gid)" -p "$port" -w 1000000000 -t "$secs" \
		-P "$d.prog" 10.0.0.2 < /dev/null > /dev/null 2>&1 &
}

flowing() {
	local d=$RUNDIR.$1
	[ -e "$d.client.rc" ] && { echo ended; return 0; }
	awk -v b="$2" 'END { if ($3 >= b) print "flowing" }' "$d.prog" 2>/dev/null
	return 0
}

stop() {
	local d=$RUNDIR.$1 p k
	touch "$d.stop"
	for ((k = 0; k < 600; k++)); do
		[ -e "$d.client.rc" ] && break
		sleep 0.1
	done
	p=$(cat "$d.client.pid" 2>/dev/null) && kill "$p" 2>/dev/null
	p=$(cat "$d.mon.pid" 2>/dev/null) && kill "$p" 2>/dev/null
	p=$(cat "$d.plan.pid" 2>/dev/null) && kill "$p" 2>/dev/null
	plane1_back
	if [ -e "$d.trace" ]; then
		echo 0 > $TR/events/metaroce/mrc_path_state/enable
		grep -v '^#' $TR/trace > "$d.trace"
		echo > $TR/trace
	fi
	for k in client prog links events trace; do
		[ -e "$d.$k" ] && awk -v k=$k '{ print k, $0 }' "$d.$k"
	done
	echo "rc $(cat "$d.client.rc" 2>/dev/null || echo killed)"
	rm -f "$d".*
	return 0
}

"$@"
