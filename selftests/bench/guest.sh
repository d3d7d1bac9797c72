#!/usr/bin/env bash
# Guest side of the benchmarks (selftests/bench/bench runs it through
# `bed exec`). Both guests get a macvlan bn0 on eth1 (10.77.0.1 on a, .2
# on b) carrying mrcb0 (metaroce), and br0 (10.79.0.x) carrying rxeb0:
# the bench then neither takes nor disturbs the devices other tests put on
# eth0/eth1, and netem on bn0 and br0 impairs only the bench's traffic.
#
# LANE=L (env) selects bn<L>, 10.77.<L>.0/24, mrcb<L> and rxeb<L>.
#
#   guest.sh up N                    (re)create bn0 and both devices
#   guest.sh server PORT TOOL ARGS   start a perftest server, wait for it
#   guest.sh client PORT TOOL ARGS   run the client, print one RESULT line
#   guest.sh netem SPEC...           netem on bn0 and br0 egress ("off" removes it)
#   guest.sh alternate PORT PERIOD COND... -- TOOL ARGS
#                                    one client, its loss switched per period
#   guest.sh counters                rdma statistic of both devices
#   guest.sh cpustat                 busy, kernel and softirq clock ticks so far
#   guest.sh cpu_delta BEFORE AFTER  their differences
#   guest.sh iperf_server PORT       start an iperf3 server (one test)
#   guest.sh iperf_client PORT LEN BYTES
#                                    send BYTES in writes of LEN over TCP
#   guest.sh telemetry on|off        metaroce-top attached in this guest, or not
#   guest.sh bpf_stats               its BPF programs' run time and count so
#                                    far, and this guest's busy ticks
#   guest.sh perf_start | perf_stop  sample this guest's CPU (perf record -a -g,
#                                    the host's perf): until perf_stop, which
#                                    waits for perf to write /tmp/mrc-bench.perf
#   guest.sh trace_start | trace_stop
#                                    the net tracepoints of eth1 and the lane's
#                                    macvlans (queued, handed to the driver,
#                                    received) and write(2) calls, timestamps
#                                    of this guest's clock; trace_stop prints
#                                    them
set -uo pipefail

SLOG=/tmp/mrc-bench-server
# what perftest prints when a completion failed (the QP went to error)
QPERR='Completion with error|Failed status|wc status'

# macvlan NAME MAC-PREFIX IP-PREFIX N: a macvlan of eth1 with a static
# neighbour for the far end (no ARP: eth1 could answer for the address too)
macvlan() {
	local name=$1 mac=$2 ip=$3 n=$4
	if ! ip link show "$name" >/dev/null 2>&1; then
		ip link add link eth1 name "$name" address "$mac:0$n" \
			type macvlan mode bridge || exit 1
		ip addr add "$ip.$n/24" dev "$name"
		ip link set "$name" up
	fi
	ip neigh replace "$ip.$((3 - n))" lladdr "$mac:0$((3 - n))" \
		dev "$name" nud permanent
}

# metaroce on bn<L>, rxe on br<L>: one netdev each, because metaroce's
# receive finds its device with ib_device_get_by_netdev(skb->dev,
# RDMA_DRIVER_UNKNOWN), which returns whichever device of that netdev
# ib_core lists first, rxe's included (then metaroce drops the packet).
up() {
	local n=$1 i
	macvlan "$BN" "52:54:00:77:0$LANE" "10.77.$LANE" "$n"
	macvlan "$BR" "52:54:00:79:0$LANE" "10.79.$LANE" "$n"
	modprobe metaroce && modprobe crc32_generic && modprobe rdma_rxe ||
		exit 1
	[ -e /sys/class/infiniband/mrcb$LANE ] ||
		rdma link add mrcb$LANE type metaroce netdev "$BN"
	if [ -e /sys/class/infiniband/rxeb$LANE ] &&
		! rdma link show rxeb$LANE/1 | grep -q "netdev $BR "; then
		rdma link delete rxeb$LANE
	fi
	[ -e /sys/class/infiniband/rxeb$LANE ] ||
		rdma link add rxeb$LANE type rxe netdev "$BR"
	for ((i = 0; i < 100; i++)); do
		grep -qs ACTIVE /sys/class/infiniband/mrcb$LANE/ports/1/state &&
			grep -qs ACTIVE /sys/class/infiniband/rxeb$LANE/ports/1/state &&
			return 0
		sleep 0.1
	done
	echo "devices not ACTIVE" >&2
	exit 1
}

listening() {
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$(printf '%04X' "$1")\$" \
			'$2 ~ p && $4 == "0A" { f = 1 } END { exit !f }'
}

server() {
	local port=$1 i
	shift
	up 2
	rm -f "$SLOG.$port" "$SLOG.$port.rc"
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'timeout "$TMO" "$@" > "$0" 2>&1; echo $? > "$0.rc"' \
		"$SLOG.$port" "$@" -p "$port" < /dev/null > /dev/null 2>&1 &
	echo $! > "$SLOG.$port.pid"
	for ((i = 0; i < 200; i++)); do
		listening "$port" && return 0
		sleep 0.1
	done
	echo "server on $port never listened" >&2
	exit 1
}

# One line: RESULT <status> <bytes> <iters> <MB/s or usec> <msg rate Mpps
# or avg usec> <wall s> <p99 usec> <p99.9 usec> (latency tools; else 0 0)
# status: ok, qperr (a completion with error: the QP went to error),
# timeout, fail (anything else).
client() {
	local port=$1 out rc t0 t1 st line c0 c1
	shift
	up 1
	# the guests' busybox date has no %N: bash's clock has microseconds
	t0=$EPOCHREALTIME
	c0=$(cpustat)
	out=$(timeout "$TMO" "$@" -p "$port" "10.77.$LANE.2" 2>&1)
	rc=$?
	c1=$(cpustat)
	t1=$EPOCHREALTIME
	cpu_line "$c0" "$c1"
	st=ok
	if [ $rc = 124 ]; then
		st=timeout
	elif grep -qE "$QPERR" <<<"$out"; then
		st=qperr
	elif [ $rc != 0 ]; then
		st=fail
	fi
	# the last numeric result line of perftest
	line=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { l = $0 } END { print l }' <<<"$out")
	if [ "$st" = ok ] && [ -z "$line" ]; then
		st=fail
	fi
	if [ "$st" != ok ]; then
		grep -iE "error|status|fail|unable|not found" <<<"$out" | head -4 >&2
	fi
	# bw: bytes iters peak avg rate; lat: bytes iters min max typical avg
	# stdev p99 p99.9
	echo "RESULT $st $(awk -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" '{
		if (NF == 5) print $1, $2, $4, $5, w, 0, 0;
		else print $1, $2, $5, $6, w, $8 + 0, $9 + 0 }' <<<"${line:-0 0 0 0 0}")"
	return 0
}

# set_loss TOOL PCT: PCT% of the data this guest's connection carries is
# lost. For write and send this guest sends the data: netem on its egress,
# as in loss(). For read it receives the data: the module's receive-side
# drop (fault.c) on mrcb<L>, the same packets lost after the link instead
# of before it (the other guest's netem could not be switched in step).
set_loss() {
	local f=/sys/kernel/debug/metaroce/mrcb$LANE/fault
	if [ "$1" = ib_read_bw ]; then
		# whole percents: no awk to fork while the period runs
		echo 1 > $f/mode && echo $(($2 * 10000)) > $f/drop_ppm
	else
		tc qdisc replace dev "$BN" root netem loss "$2%"
	fi
}

# One connection, its loss switched while it runs: perftest's
# --run_infinitely prints a result every PERIOD seconds, and as each one
# appears the next phase's loss is set, so each line measures one phase
# (the switch lags the period's end by the tens of ms a poll and a tc
# call take). A first period without loss warms the connection up and is
# not reported. One line per phase: PHASE <index> <cond %> <MB/s>, or
# RESULT qperr / timeout / fail.
alternate() {
	local port=$1 period=$2 conds=() out=/tmp/mrc-bench-alt seen=0 i pid
	local t0 now line
	shift 2
	while [ "$1" != -- ]; do conds+=("$1"); shift; done
	shift
	up 1
	set_loss "$1" 0 || exit 1
	setsid "$@" --run_infinitely -D "$period" -p "$port" "10.77.$LANE.2" \
		< /dev/null > $out 2>&1 &
	pid=$!
	t0=$(date +%s)
	i=-1
	while [ $i -lt ${#conds[@]} ]; do
		# result lines: bytes iterations peak average rate
		# (a 0.00 from perftest's clock calibration under TCG: bytes x
		# iterations over the period)
		line=$(awk -v d="$period" '$1 ~ /^[0-9]+$/ && NF >= 5 { n++
			l = $4 > 0 ? $4 : sprintf("%.2f", $1 * $2 / d / 1048576) }
			END { print n + 0, l }' $out)
		if [ "${line% *}" -gt "$seen" ]; then
			seen=${line% *}
			[ $i -ge 0 ] && echo "PHASE $i ${conds[$i]} ${line#* }"
			i=$((i + 1))
			[ $i -lt ${#conds[@]} ] && set_loss "$1" "${conds[$i]}"
			continue
		fi
		now=$(date +%s)
		if ! kill -0 $pid 2>/dev/null; then
			grep -qE "$QPERR" $out &&
				echo "RESULT qperr" || echo "RESULT fail"
			break
		elif [ $((now - t0)) -gt "$TMO" ]; then
			echo "RESULT timeout"
			break
		fi
		sleep 0.05
	done
	kill -- -$pid 2>/dev/null
	set_loss "$1" 0
	[ "$1" = ib_read_bw ] && echo 0 > /sys/kernel/debug/metaroce/mrcb$LANE/fault/mode
	tc qdisc del dev "$BN" root 2>/dev/null
	return 0
}

# End a server that outlived its client (its own session, by pid).
reap() {
	local pid i
	pid=$(cat "$SLOG.$1.pid" 2>/dev/null) || return 0
	for ((i = 0; i < 30; i++)); do
		[ -e "$SLOG.$1.rc" ] && break
		sleep 0.1
	done
	[ -e "$SLOG.$1.rc" ] || kill -- -"$pid" 2>/dev/null
	rm -f "$SLOG.$1" "$SLOG.$1.pid" "$SLOG.$1.rc"
}

# the same impairment on both systems' netdevs
netem() {
	local d
	for d in "$BN" "$BR"; do
		tc qdisc del dev "$d" root 2>/dev/null
		[ "$1" = off ] || tc qdisc add dev "$d" root netem "$@" || exit 1
	done
	return 0
}

# Clock ticks (USER_HZ, 100) this guest's one CPU spent so far: "busy
# kernel softirq". busy: up time less idle time (/proc/uptime: the idle
# time is measured, not sampled). kernel: busy less the user time
# /proc/stat samples, so where a kernel transport and TCP do their work
# and not the user space that busy-polls a CQ. /proc/stat's own system,
# irq and softirq times come from ticks alone, and this kernel (no
# IRQ_TIME_ACCOUNTING, ticks stopped when idle) charges an interrupt's
# softirq that runs from idle to nobody: a receiver that does not poll
# showed 7% busy there. softirq: that sampled irq and softirq time, a
# lower bound.
cpustat() {
	awk 'FNR == NR { busy = ($1 - $2) * 100; next }
		$1 == "cpu" { printf "%d %d %d\n", busy, busy - $2 - $3, $7 + $8 }' \
		/proc/uptime /proc/stat
}

# cpu_delta BEFORE AFTER: the three counts' differences
cpu_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " ")
		print y[1] - x[1], y[2] - x[2], y[3] - x[3] }'
}

# cpu_line BEFORE AFTER: "CPU <busy> <kernel> <softirq> <USER_HZ>"
cpu_line() {
	echo "CPU $(cpu_delta "$1" "$2") $(getconf CLK_TCK 2>/dev/null || echo 100)"
}

# iperf3 from the host's /usr (the initramfs has none)
iperf_server() {
	local port=$1 i
	up 2
	rm -f "$SLOG.$port" "$SLOG.$port.rc"
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'timeout "$TMO" hostrun iperf3 -s -1 -p "$1" > "$0" 2>&1; echo $? > "$0.rc"' \
		"$SLOG.$port" "$port" < /dev/null > /dev/null 2>&1 &
	echo $! > "$SLOG.$port.pid"
	for ((i = 0; i < 200; i++)); do
		listening "$port" && return 0
		sleep 0.1
	done
	echo "iperf3 server on $port never listened" >&2
	exit 1
}

# One line as client()'s, after a CPU line: RESULT <status> <LEN>
# <writes> 0 0 <wall s> 0 0 (every byte was sent when iperf3 ends well)
iperf_client() {
	local port=$1 len=$2 bytes=$3 rc t0 t1 c0 c1 st=ok
	up 1
	t0=$EPOCHREALTIME
	c0=$(cpustat)
	timeout "$TMO" hostrun iperf3 -c "10.77.$LANE.2" -p "$port" -l "$len" \
		-n "$bytes" > /tmp/mrc-bench-iperf 2>&1
	rc=$?
	c1=$(cpustat)
	t1=$EPOCHREALTIME
	cpu_line "$c0" "$c1"
	[ $rc = 124 ] && st=timeout
	[ $rc != 0 ] && [ $rc != 124 ] && st=fail
	[ $st = ok ] || tail -3 /tmp/mrc-bench-iperf >&2
	echo "RESULT $st $len $((bytes / len)) 0 0 $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') 0 0"
}

# telemetry on: metaroce-top runs as an operator would run it (its BPF
# programs on the tracepoints, a table a second, to a file); returns once
# it has attached. off: it is gone, and its programs with it.
TOPLOG=/tmp/mrc-bench-top
telemetry() {
	local top=$TOP/build/userspace/tools/metaroce-top/metaroce-top pid i
	pid=$(cat "$TOPLOG.pid" 2>/dev/null)
	if [ "$1" = off ]; then
		[ -n "$pid" ] || return 0
		kill "$pid" 2>/dev/null
		for ((i = 0; i < 100; i++)); do
			[ -e "/proc/$pid" ] || break
			sleep 0.1
		done
		rm -f "$TOPLOG.pid"
		[ ! -e "/proc/$pid" ] || { echo "metaroce-top $pid did not end" >&2; exit 1; }
		return 0
	fi
	[ -z "$pid" ] || [ ! -e "/proc/$pid" ] || return 0
	[ -x "$top" ] || { echo "no $top (make userspace)" >&2; exit 1; }
	# the tracepoints are the module's
	modprobe metaroce || exit 1
	# run time and count per program (bpf_stats): two clock reads a run
	sysctl -qw kernel.bpf_stats_enabled=1 || exit 1
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'echo $$ > "$0.pid"; exec timeout 3600 "$1" -i 1 > "$0" 2>&1' \
		"$TOPLOG" "$top" < /dev/null > /dev/null 2>&1 &
	for ((i = 0; i < 300; i++)); do
		grep -qs "attached to" "$TOPLOG" && return 0
		sleep 0.1
	done
	echo "metaroce-top did not attach: $(head -3 "$TOPLOG")" >&2
	exit 1
}

# bpf_stats: "RUN_NS RUN_CNT BUSY": what metaroce-top's BPF programs have
# run so far (their file descriptors' fdinfo, kernel.bpf_stats_enabled on
# since telemetry on), and this guest's busy clock ticks (cpustat).
bpf_stats() {
	local p f ns=0 cnt=0 a b
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = metaroce-top ] || continue
		for f in "$p"/fdinfo/*; do
			read -r a b < <(awk '$1 == "run_time_ns:" { n = $2 }
				$1 == "run_cnt:" { c = $2 } END { print n + 0, c + 0 }' "$f" 2>/dev/null)
			ns=$((ns + ${a:-0}))
			cnt=$((cnt + ${b:-0}))
		done
	done
	echo "$ns $cnt $(cpustat | cut -d' ' -f1)"
}

# The guests have no PMU (TCG): perf samples the cpu-clock, 1000 times a
# second, so a symbol's samples are its milliseconds. No build-ids (-B -N):
# collecting them reads every binary over 9p, minutes per run; the host
# reads the data with the guest's /proc/kallsyms instead.
PERFDATA=/tmp/mrc-bench.perf
perf_start() {
	local i
	perf_stop > /dev/null 2>&1	# one left by a run that failed
	rm -f "$PERFDATA" "$PERFDATA.log"
	setsid hostrun perf record -B -N -e cpu-clock -F 1000 -a -g \
		-o "$PERFDATA" > "$PERFDATA.log" 2>&1 < /dev/null &
	echo $! > "$PERFDATA.pid"
	for ((i = 0; i < 300; i++)); do
		[ -s "$PERFDATA" ] && return 0
		sleep 0.1
	done
	echo "perf did not start: $(head -3 "$PERFDATA.log")" >&2
	exit 1
}

perf_stop() {
	local pid i
	pid=$(cat "$PERFDATA.pid" 2>/dev/null) || return 0
	kill -INT "$pid" 2>/dev/null
	for ((i = 0; i < 1200; i++)); do
		[ -e "/proc/$pid" ] || break
		sleep 0.1
	done
	rm -f "$PERFDATA.pid"
	grep -q "Captured and wrote" "$PERFDATA.log" || {
		echo "perf did not finish: $(tail -2 "$PERFDATA.log")" >&2
		exit 1
	}
}

# Where a packet is between the transport and the wire, the same points
# for any transport over the same netdevs: net_dev_queue (dev_queue_xmit
# of the macvlan, then of eth1: what lies between is the macvlan and eth1's
# qdisc), net_dev_start_xmit (the driver takes it), napi_gro_receive_entry
# (virtio-net's poll hands it up) and netif_receive_skb (after GRO).
TRACEFS=/sys/kernel/tracing
TRACE_EVENTS="net/net_dev_queue net/net_dev_start_xmit net/napi_gro_receive_entry net/netif_receive_skb"
trace_start() {
	local e
	echo 0 > $TRACEFS/tracing_on || exit 1
	echo > $TRACEFS/trace
	echo 8192 > $TRACEFS/buffer_size_kb
	echo mono > $TRACEFS/trace_clock
	for e in $TRACE_EVENTS; do
		echo "name == \"eth1\" || name == \"$BN\" || name == \"$BR\"" \
			> "$TRACEFS/events/$e/filter" || exit 1
		echo 1 > "$TRACEFS/events/$e/enable"
	done
	# write(2): how both providers post a READ (the doorbell of ours,
	# rxe's post_send command)
	echo "id == 1" > $TRACEFS/events/raw_syscalls/sys_enter/filter || exit 1
	echo 1 > $TRACEFS/events/raw_syscalls/sys_enter/enable
	echo 1 > $TRACEFS/tracing_on
}

trace_stop() {
	local e
	echo 0 > $TRACEFS/tracing_on
	for e in $TRACE_EVENTS raw_syscalls/sys_enter; do
		echo 0 > "$TRACEFS/events/$e/enable"
	done
	grep -v '^#' $TRACEFS/trace
	echo > $TRACEFS/trace
}

counters() {
	rdma statistic show link mrcb$LANE/1 2>/dev/null
	rdma statistic show link rxeb$LANE/1 2>/dev/null
}

TMO=${TMO:-60}
LANE=${LANE:-0}	# bench lanes run side by side: verbs on 0, loss on 1
BN=bn$LANE
BR=br$LANE
# sourced (multipath-guest.sh): the functions only
[ "${BASH_SOURCE[0]}" != "$0" ] || "$@"
