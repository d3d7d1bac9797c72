#!/usr/bin/env bash
# Guest side of the multipath benchmark (selftests/bench/multipath runs it
# through `bed exec`) on the bed's ECMP fabric: mrcm0 (metaroce) and rxem0
# (rdma_rxe) share the endpoint netdev ep0 (metaroce finds its devices in a
# registry of its own, rxe's UDP port is another), so both cross the same
# routers and links.
#
#   multipath-guest.sh up                    load both, create the devices
#   multipath-guest.sh capacity MBPS         metaroce's rx_capacity_mbps
#   multipath-guest.sh server PORT TOOL ARGS a perftest server (guest.sh's)
#   multipath-guest.sh serverstop PORT       end it
#   multipath-guest.sh start RUN PORT DEV LINK_IV PATH_IV PLAN -- TOOL ARGS
#                        the samplers, the plan of events (see plan(); -:
#                        none), then the client, all in the background;
#                        RUN names the files /tmp/mp.RUN.*
#   multipath-guest.sh flowing RUN           "ended" once the client exited,
#                        else "flowing" once 256 KiB left over the links
#   multipath-guest.sh busiest RUN [S]       the link that carried the most
#                        in the last S (1) seconds of the link samples
#   multipath-guest.sh mark RUN NAME         a mark in the events file
#   multipath-guest.sh cross_sinks on|off    receivers of competing traffic
#                        on every link (run in guest b)
#   multipath-guest.sh stop RUN              end client and samplers; print
#                        every file of the run, each line prefixed by its kind
#
# Files of run RUN (wall clock in microseconds, $EPOCHREALTIME's, the
# clock metaroce-top -r stamps with):
#   client  perftest's output; rc its exit status
#   links   "L US eth0 TXB RXB eth1 TXB RXB ..." of this router (rtr), every
#           LINK_IV s: TX is what this guest sends over the link
#   paths   metaroce-top -r lines (per path: sport, state, srtt, packets sent,
#           acked, lost...) every PATH_IV s (metaroce only)
#   events  "E US NAME ARGS..." before a step and "E US NAME-done" after
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# seconds a server or client may live (the inner shells read it)
export TMO=${TMO:-120}
# guest.sh's perftest server, its QP-error pattern and reap; our own up
# shellcheck source=guest.sh
. "$HERE/guest.sh"
# shellcheck source=../cases/lib/fabric.bash
. "$HERE/../cases/lib/fabric.bash"

TOPTOOL=$FABRIC_TOP/build/userspace/tools/metaroce-top/metaroce-top
MRC_DEV=mrcm0
RXE_DEV=rxem0
RUNDIR=/tmp/mp

# (guest.sh's server calls it with an argument of its own)
up() {
	local i l
	modprobe metaroce && modprobe crc32_generic && modprobe rdma_rxe || exit 1
	# one device of each kind per netdev: others on ep0 (a case's) go
	for l in $(rdma link show | awk -v n="$FABRIC_EP" '$0 ~ " netdev " n " " { sub("/.*", "", $2); print $2 }'); do
		[ "$l" = $MRC_DEV ] || [ "$l" = $RXE_DEV ] || rdma link delete "$l" || exit 1
	done
	[ -e /sys/class/infiniband/$MRC_DEV ] ||
		rdma link add $MRC_DEV type metaroce netdev "$FABRIC_EP" || exit 1
	[ -e /sys/class/infiniband/$RXE_DEV ] ||
		rdma link add $RXE_DEV type rxe netdev "$FABRIC_EP" || exit 1
	for ((i = 0; i < 100; i++)); do
		grep -qs ACTIVE /sys/class/infiniband/$MRC_DEV/ports/1/state &&
			grep -qs ACTIVE /sys/class/infiniband/$RXE_DEV/ports/1/state &&
			return 0
		sleep 0.1
	done
	echo "devices not ACTIVE" >&2
	exit 1
}

# The receiver's capacity behind the rate hint its ACKs carry ([CC-10]):
# the bed's netdevs report no speed.
capacity() { echo "$1" > /sys/module/metaroce/parameters/rx_capacity_mbps; }

serverstop() {
	local pid
	pid=$(cat "$SLOG.$1.pid" 2>/dev/null) || return 0
	kill -- -"$pid" 2>/dev/null
	rm -f "$SLOG.$1" "$SLOG.$1.pid" "$SLOG.$1.rc"
	return 0
}

# The router's links every IV seconds, until the stop file appears. No
# process per sample: /proc/net/dev through read, the nap a read with a
# timeout on a pipe nobody writes.
linkmon() {
	local iv=$1 out=$2 stop=$3 nap line l
	local -a lines f
	exec {nap}<> <(:)
	while [ ! -e "$stop" ]; do
		# the whole file at once, then the time: a guest starved of CPU
		# may stop this loop anywhere, best not between the two
		mapfile -t lines < /proc/net/dev
		line="L ${EPOCHREALTIME/./}"
		for l in "${lines[@]:2}"; do
			# shellcheck disable=SC2206 # the fields, split on blanks
			f=($l)
			# "ethI: rx_bytes rx_packets (6 more) tx_bytes ..."
			[[ ${f[0]} == eth*: ]] && line+=" ${f[0]%:} ${f[9]} ${f[1]}"
		done
		echo "$line" >> "$out"
		read -r -t "$iv" -u "$nap"
	done
}

spawn() {	# PIDFILE CMD...: detached, in its own session
	local pf=$1
	shift
	setsid "$@" < /dev/null > /dev/null 2>&1 &
	echo $! >> "$pf"
}

# start RUN PORT DEV LINK_IV PATH_IV PLAN -- TOOL ARGS
start() {
	local run=$1 port=$2 dev=$3 liv=$4 piv=$5 plan=$6 d=$RUNDIR.$1 i
	shift 6
	[ "$1" = -- ] && shift
	rm -f "$d".*
	touch "$d.events"
	# /usr/sbin/ip: busybox setsid would run its own ip applet
	spawn "$d.pids" /usr/sbin/ip netns exec rtr bash "$HERE/multipath-guest.sh" \
		linkmon "$liv" "$d.links" "$d.stop"
	if [ "$dev" = $MRC_DEV ]; then
		[ -x "$TOPTOOL" ] || { echo "no $TOPTOOL" >&2; exit 1; }
		# shellcheck disable=SC2016 # expanded by the inner shell
		spawn "$d.pids" bash -c 'exec "$0" -r -i "$1" -s 3600 > "$2" 2> "$2.err"' \
			"$TOPTOOL" "$piv" "$d.paths"
	fi
	# metaroce-top attached and the first link sample taken
	for ((i = 0; i < 100; i++)); do
		[ -s "$d.links" ] && { [ "$dev" != $MRC_DEV ] || grep -qs attached "$d.paths.err"; } &&
			break
		sleep 0.1
	done
	[ $i -lt 100 ] || { echo "the samplers of $run did not start" >&2; exit 1; }
	[ "$plan" = - ] || spawn "$d.pids" bash "$HERE/multipath-guest.sh" plan "$run" "$plan"
	# the pid of timeout, which stop ends (and perftest with it): the
	# status then still reaches .rc
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'timeout "$TMO" "$@" > "$0" 2>&1 & echo $! > "$0.pid"; wait $!; echo $? > "$0.rc"' \
		"$d.client" "$@" -p "$port" "$(fabric_far_addr a)" < /dev/null > /dev/null 2>&1 &
}

# plan RUN "AT NAME STEP ARGS; ...": once the run's traffic flows, each
# STEP (a function of this file) AT s later, between marks NAME and
# NAME-done; "@L" in ARGS is the link that carried the most in the second
# before the first step (marked "link L"). Here in the guest, on its
# clock: the host's commands reach the guests seconds late when it is
# busy. The router's tc steps go to one tc -batch started beforehand,
# reading a FIFO: a process started at the event would land up to seconds
# later on a loaded host (TCG).
plan() {
	local run=$1 d=$RUNDIR.$1 nap t0 at name step args L=""
	local -a steps
	exec {nap}<> <(:)
	mkfifo "$d.tc"
	/usr/sbin/tc -n rtr -force -batch "$d.tc" > "$d.tc.log" 2>&1 &
	exec {TCW}> "$d.tc"
	IFS=';' read -r -a steps <<<"$2"
	while [ -z "$(flowing "$run" 65536)" ]; do
		read -r -t 0.05 -u "$nap"
	done
	[ "$(flowing "$run")" = ended ] && return 0
	t0=${EPOCHREALTIME/./}
	mark "$run" flowing
	for step in "${steps[@]}"; do
		read -r at name args <<<"$step"
		read -r -a args <<<"$args"
		# until t0 + AT: naps on the pipe nobody writes
		at=$((t0 + $(awk -v a="$at" 'BEGIN { printf "%d", a * 1e6 }')))
		while [ "${EPOCHREALTIME/./}" -lt "$at" ]; do
			read -r -t 0.01 -u "$nap"
		done
		[ -e "$d.client.rc" ] && break
		if [ -z "$L" ]; then
			L=$(busiest "$run" 1)
			mark "$run" link "$L"
		fi
		event "$run" "$name" "${args[@]//@L/$L}"
	done
	exec {TCW}>&-
	wait
}

# Impairments of link L applied by this guest's router alone, both ways:
# what it sends on L at its egress (the fabric's own steps), what it
# receives on L at its ingress. One guest switches both directions at
# once, through plan()'s tc.

# lossy L PCT: PCT% of the packets each way (0: none), as fabric_g_set's
# netem (which keeps the rate and queue below it) and 1 in 100/PCT of what
# arrives
lossy() {
	# shellcheck disable=SC2034 # fabric_g_load sets all five, delay is ours
	local l=$1 p=$2 loss delay rate leaf queue
	fabric_g_load "$l"
	echo "qdisc replace dev eth$l root handle 1: netem limit 100000 loss $p% delay ${delay}ms" >&"$TCW"
	echo "filter del dev eth$l ingress pref 9" >&"$TCW"
	[ "$p" = 0 ] && return 0
	echo "qdisc add dev eth$l clsact" >&"$TCW"
	echo "filter add dev eth$l ingress protocol ip pref 9 matchall action gact pass random netrand drop $((100 / p))" >&"$TCW"
}

# hole L on|off: every packet each way dropped, silently
hole() {
	echo "qdisc del dev eth$1 clsact" >&"$TCW"
	[ "$2" = on ] && fabric_g_blackhole_batch "$1" egress ingress >&"$TCW"
	return 0
}

cross_from() {	# L MBIT: ECT(0) UDP to b's router on link L (its sink listens)
	fabric_g_cross_source "$1" $((5300 + $1)) udp "$2" 2 8000
}

flowing() {	# RUN [BYTES]
	local d=$RUNDIR.$1
	[ -e "$d.client.rc" ] && { echo ended; return 0; }
	awk -v b="${2:-262144}" '{ s = 0; for (i = 3; i < NF; i += 3) s += $(i + 1) }
		NR == 1 { s0 = s }
		END { if (s - s0 >= b) print "flowing" }' "$d.links" 2>/dev/null
	return 0
}

busiest() {
	local d=$RUNDIR.$1 s=${2:-1}
	awk -v s="$s" '{ t[NR] = $2; for (i = 3; i < NF; i += 3) tx[NR, substr($i, 4)] = $(i + 1) }
		END {
			for (j = NR; j > 1 && t[NR] - t[j] < s * 1e6; j--);
			best = -1
			for (i = 0; (NR, i) in tx; i++)
				if (tx[NR, i] - tx[j, i] > best) { best = tx[NR, i] - tx[j, i]; l = i }
			print l + 0
		}' "$d.links"
}

cross_sinks() {
	local l
	. /etc/bed.env
	for ((l = 0; l < BED_LINKS; l++)); do
		fabric_g_cross_stop "$l"
		rm -f "$FABRIC_RUN/cross$((5300 + l)).status"
		[ "$1" = off ] || fabric_g_cross_sink "$l" $((5300 + l)) udp || return 1
	done
}

mark() {
	local run=$1
	shift
	echo "E ${EPOCHREALTIME/./} $*" >> "$RUNDIR.$run.events"
}

event() {
	local run=$1 name=$2 rc
	shift 2
	mark "$run" "$name" "$@"
	"$@"
	rc=$?
	mark "$run" "$name-done" "$rc"
	return $rc
}

stop() {
	local d=$RUNDIR.$1 p k
	touch "$d.stop"
	p=$(cat "$d.client.pid" 2>/dev/null) && kill "$p" 2>/dev/null
	while read -r p; do
		kill "$p" 2>/dev/null
	done < "$d.pids"
	for ((k = 0; k < 50; k++)); do
		[ -e "$d.client.rc" ] && break
		sleep 0.1
	done
	# (awk: perftest's last line may lack its newline)
	for k in client events links paths; do
		[ -e "$d.$k" ] && awk -v k=$k '{ print k, $0 }' "$d.$k"
	done
	echo "rc $(cat "$d.client.rc" 2>/dev/null || echo killed)"
	rm -f "$d".*
	return 0
}

"$@"
