# shellcheck shell=bash
# The network fuzzer in the bed (selftests/cases/70-netfuzz.sh and
# selftests/long/70-netfuzz-1m.sh): mrc_netfuzz in guest b sends to guest
# a's mrc0 (eth0, 10.0.0.1 and fd00::1) while verified traffic runs between
# the guests over the same device, and must leave guest a up, the traffic
# intact and the drop counters grown by what it sent:
#   - mrc_verbs_check runs, server in a, client in b, one after another:
#     every verbs operation and then a stream of verified WRITEs into a
#     (a "protected" connection: the fuzzer sends it its right cookie only
#     from wrong source addresses, which must be dropped, [SEC-3]);
#   - optionally NVMe-oF (nvme-rdma in a, nvmet-rdma in b), fio jobs that
#     write and verify namespace 1 one after another (protected too);
#   - sacrificial connections the fuzzer attacks with their right cookies:
#     ibv_rc_pingpong and ibv_ud_pingpong run again and again (server
#     in a), so QPs come, fail, are destroyed and linger.
# The fuzz runs in rounds; before each, guest a's QPs are read from
# `rdma resource show qp` and passed as targets: RC QPs with the starting
# PSNs that are their cookies ([PKT-16]), UD QPs, the RC QPs gone
# since the last round (destroyed or lingering), and the range of QP
# numbers in use. Wrong sources: a second address on guest b's eth0 and
# IPv6 (the connections are IPv4). Round r uses seed NF_SEED + r.
#
# Source after cm.bash and nvmeof.bash. The case sets NF_SEED, NF_ROUNDS,
# NF_COUNT (datagrams per round), NF_RATE (per second), NF_ROUND_S (the
# most seconds a round may take: a loaded host sends fewer), NF_NVME (0
# or 1) and NF_FIO_SIZE; NF_PACKETS, if set, ends the fuzzing after the
# round that brings the packets sent (a datagram may bundle several) to
# that many, so a slow kernel can reach a packet count in fewer rounds.

NF_TOOL=$TOP/build/userspace/tools/netfuzz/mrc_netfuzz
NF_VC=$TOP/build/userspace/tools/mrc_verbs_check
NF_DIR=/tmp/netfuzz		# in each guest: logs and the stop file
NF_STOP=$NF_DIR/stop
NF_VC_PORT=18771
NF_PP_PORT=18772
NF_UD_PORT=18773
NF_WRONG4=10.0.0.3		# guest b's second address: a wrong source
NF_WRONG6=fd00::3
NF_UD_QKEY=0x11111111		# ibv_ud_pingpong's Q_Key
NF_FIO_QD=8
NF_VC_STREAM=10			# seconds of stream per verbs run

# ---------------------------------------------------------------- guest side

nf_up() {
	cm_up
	rm -rf "$NF_DIR"
	mkdir -p "$NF_DIR"
}

# After the devices exist: a new address does not move the GIDs (index 1
# stays the first IPv4 address) the connections use.
nf_wrong_source_add() {
	ip addr replace "$NF_WRONG4/24" dev eth0
	ip addr replace "$NF_WRONG6/64" dev eth0 nodad
}

nf_down() {
	local p
	mkdir -p "$NF_DIR"
	touch "$NF_STOP"
	for p in $(pidof ibv_rc_pingpong ibv_ud_pingpong ibv_uc_pingpong mrc_verbs_check mrc_netfuzz); do
		kill "$p" 2>/dev/null
	done
	ip addr del "$NF_WRONG4/24" dev eth0 2>/dev/null || true
	ip addr del "$NF_WRONG6/64" dev eth0 2>/dev/null || true
}

# Both guests as they were, whatever part of the case ran (case_main
# calls it at the end).
case_guest_cleanup() {
	nf_down
	case $MRC_VM in
	a) nvmf_host_down ;;
	b) nvmf_target_down ;;
	esac
}

# nf_churn NAME CMD...: run CMD (a sacrificial connection) again and
# again, detached, until the stop file appears. Its runs may fail: the fuzzer sends it its right cookies. A run that
# could not connect (its server not listening yet) is retried after a
# short pause.
nf_churn() {
	local name=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'stop=$1 log=$2; shift 2; n=0
		while [ ! -e "$stop" ]; do
			timeout 30 "$@" > /dev/null 2>&1 < /dev/null && n=$((n + 1))
			echo "$n" > "$log"
			[ -e "$stop" ] || sleep 0.2
		done' churn "$NF_STOP" "$NF_DIR/$name.runs" "$@" \
		< /dev/null > /dev/null 2>&1 &
}

# The sacrificial connections: servers in a, clients in b. All of them,
# and the verified stream, wait for completions in the kernel (-e): a
# guest has one CPU, and busy pollers would leave the fuzzer none.
nf_churn_servers() {
	nf_churn rc ibv_rc_pingpong -e -d mrc0 -g 1 -p "$NF_PP_PORT" -n 200 -s 1024
	nf_churn ud ibv_ud_pingpong -e -d mrc0 -g 1 -p "$NF_UD_PORT" -n 200 -s 512
}

nf_churn_clients() {
	nf_churn rc ibv_rc_pingpong -e -d mrc0 -g 1 -p "$NF_PP_PORT" -n 200 -s 1024 "$CLI4"
	nf_churn ud ibv_ud_pingpong -e -d mrc0 -g 1 -p "$NF_UD_PORT" -n 200 -s 512 "$CLI4"
}

# The verified traffic: mrc_verbs_check runs one after another until the
# stop file, servers in a, clients in b (each run: every operation, then
# WRITEs streamed into a for NF_VC_STREAM seconds). A client that finds
# no server listening yet tries again; any other failure ends the loop.
# Run N's output is in $NF_DIR/vc.N, its exit status in vc.N.rc.
nf_vc_servers() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'stop=$1 dir=$2; shift 2; n=0
		while [ ! -e "$stop" ]; do
			timeout 1800 "$@" > "$dir/vc.$n" 2>&1
			echo $? > "$dir/vc.$n.rc"
			n=$((n + 1))
		done' vc-servers "$NF_STOP" "$NF_DIR" "$NF_VC" -e -d mrc0 -g 1 \
		-p "$NF_VC_PORT" < /dev/null > /dev/null 2>&1 &
	wait_until "verbs server listening" tcp_listening "$NF_VC_PORT"
}

nf_vc_clients() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'stop=$1 dir=$2; shift 2; n=0
		while [ ! -e "$stop" ]; do
			timeout 1800 "$@" > "$dir/vc.$n" 2>&1
			rc=$?
			if [ $rc = 2 ] && grep -q "cannot connect" "$dir/vc.$n"; then
				sleep 0.2	# the next server is not listening yet
				continue
			fi
			echo $rc > "$dir/vc.$n.rc"
			n=$((n + 1))
			[ $rc = 0 ] || break
		done
		echo $n > "$dir/vc.done"' vc-clients "$NF_STOP" "$NF_DIR" "$NF_VC" -e -d mrc0 \
		-g 1 -p "$NF_VC_PORT" -w 100000000 -t "$NF_VC_STREAM" "$CLI4" \
		< /dev/null > /dev/null 2>&1 &
}

nf_vc_connected() {
	rdma resource show qp link mrc0/1 | grep -q "state RTS .*comm mrc_verbs_check"
}

nf_vc_wait() { MRC_TIMEOUT=120 wait_until "the verified connection" nf_vc_connected; }

# nf_vc_done SIDE RUNS: runs 0..RUNS-1 (or, in b, all it made) passed
# every step; their result lines on stdout.
nf_vc_done() {
	local side=$1 n=${2:-} i
	if [ -z "$n" ]; then
		MRC_TIMEOUT=1800 wait_until "the last verbs client" test -e "$NF_DIR/vc.done"
		n=$(cat "$NF_DIR/vc.done")
	fi
	[ "$n" -ge 1 ] || fail "no verbs run"
	for ((i = 0; i < n; i++)); do
		MRC_TIMEOUT=600 wait_until "verbs run $i" test -e "$NF_DIR/vc.$i.rc"
		[ "$(cat "$NF_DIR/vc.$i.rc")" = 0 ] ||
			fail "verbs $side run $i: exit status $(cat "$NF_DIR/vc.$i.rc"): $(grep -E '^fail|cannot' "$NF_DIR/vc.$i")"
		grep -q "$side: all steps passed" "$NF_DIR/vc.$i" || fail "verbs $side run $i did not pass every step"
		grep -q '^ok stream' "$NF_DIR/vc.$i" || fail "verbs $side run $i verified no stream"
		grep -E '^ok stream' "$NF_DIR/vc.$i" | sed "s/^/  $MRC_VM: run $i: /"
	done
	echo "$n"
}

# The server that waits for a client that will not come.
nf_vc_end() {
	local p
	for p in $(pidof mrc_verbs_check); do
		kill "$p"
	done
	return 0
}

# fio jobs on namespace 1, one after another until the stop file; each
# writes SIZE and verifies it (its JSON in $NF_DIR/fio.N).
nf_fio_loop() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	MRC_SELF=$MRC_SELF MRC_VM=$MRC_VM setsid bash -c 'n=0
		while [ ! -e "$1" ]; do
			bash "$MRC_SELF" --guest nvmf_fio 1 "$2" "$3" > "$4.$n" 2>&1 ||
				{ echo "$n" > "$4.failed"; break; }
			n=$((n + 1))
		done
		echo "$n" > "$4.done"' fio "$NF_STOP" "$1" "$NF_FIO_QD" "$NF_DIR/fio" \
		< /dev/null > /dev/null 2>&1 &
}

nf_fio_runs() {
	MRC_TIMEOUT=${1:-600} wait_until "fio jobs finished" test -e "$NF_DIR/fio.done"
	[ ! -e "$NF_DIR/fio.failed" ] ||
		fail "fio job $(cat "$NF_DIR/fio.failed") failed: $(tail -5 "$NF_DIR/fio.$(cat "$NF_DIR/fio.failed")")"
	cat "$NF_DIR/fio.done"
}

nf_stop() { touch "$NF_STOP"; }

# Guest a's QPs on mrc0, one a line: QPN TYPE RQ_PSN SQ_PSN COMM.
nf_qps() {
	rdma resource show qp link mrc0/1 | awk '{
		delete v
		for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		print v["lqpn"], v["type"], v["rq-psn"] + 0, v["sq-psn"] + 0, v["comm"] }'
}

# nf_fuzz ROUND ARGS...: one round from guest b; its whole output stays in
# $NF_DIR/fuzz.ROUND.log (guest a may go down with it), the summary on
# stdout. It shares guest b's CPU with the rest: ahead of the kernel's
# workers (--nice below 0) it starved guest b's receive processing until
# the bed's link stalled.
nf_fuzz() {
	local rc=0 log=$NF_DIR/fuzz.$1.log
	shift
	"$NF_TOOL" --dst "$CLI4" --dst6 "${NET6}1" --src "$SRV4" --src "$NF_WRONG4" \
		--src6 "${NET6}2" --src6 "$NF_WRONG6" "$@" > "$log" 2>&1 || rc=$?
	grep -E '^netfuzz(-counts)?: (seed|sent|time|FAILED|reproduce)' "$log"
	return $rc
}

# nf_fuzz_tail ROUND: where the round got to, and how to make it again.
nf_fuzz_tail() {
	grep -E '^netfuzz: (reproduce|at)' "$NF_DIR/fuzz.$1.log" | tail -2
}

# counters NAME...: the values of mrc0's counters NAME..., in order.
nf_counters() {
	rdma statistic show link mrc0/1 | tr ' ' '\n' | awk -v want="$*" '
		BEGIN { n = split(want, w, " ") }
		p { v[k] = $1; p = 0 }
		{ for (i = 1; i <= n; i++) if ($1 == w[i]) { k = $1; p = 1 } }
		END { for (i = 1; i <= n; i++) printf "%s%s", v[w[i]] + 0, i < n ? " " : "\n" }'
}

# Datagrams the stack lost before the device saw them, so far: IP
# reassembly failures (the fuzzer's big datagrams travel in fragments), UDP
# receive errors, the backlog's and the netdevs' receive drops. A host too
# loaded to keep up loses datagrams there, and those are no verdict on the
# device.
nf_stack_drops() {
	{
		awk '$1 == "Ip:" && !h { for (i = 2; i <= NF; i++) c[i] = $i; h = 1; next }
			$1 == "Ip:" { for (i = 2; i <= NF; i++) if (c[i] == "ReasmFails") n += $i }
			$1 == "Udp:" && !u { for (i = 2; i <= NF; i++) d[i] = $i; u = 1; next }
			$1 == "Udp:" { for (i = 2; i <= NF; i++) if (d[i] == "InErrors") n += $i }
			END { print n + 0 }' /proc/net/snmp
		awk '$1 == "Ip6ReasmFails" || $1 == "Udp6InErrors" { n += $2 } END { print n + 0 }' /proc/net/snmp6
		# the second column, hex: packets the backlog dropped
		while read -r _ d _; do echo $((16#$d)); done < /proc/net/softnet_stat
		cat /sys/class/net/eth*/statistics/rx_dropped
	} | awk '{ n += $1 } END { print n + 0 }'
}

# The kernel log since the case began may hold nothing but the device's
# rate-limited reports, the NVMe host's connection messages, and ib_mad's own
# rate-limited complaint about a junk MAD: a datagram to QP1 with its Q_Key is
# delivered to ib_mad, as [SEC-11] says UD datagrams are.
NF_LOG_OK='mrc-case: |bed-case: |random: crng init done|metaroce: QP [0-9]+: |ib_core: MAD received with unsupported |callbacks suppressed|nvme nvme[0-9]+: |nvme[0-9]+n[0-9]+|nvme_fabrics|nvme-fabrics|hrtimer: interrupt took'

nf_log_check() {
	local bad
	bad=$(log_since "mrc-case: begin $1" | grep -Ev "$NF_LOG_OK") || true
	[ -z "$bad" ] || fail "kernel log lines besides drop reports: $bad"
	echo "  $MRC_VM: kernel log: $(log_since "mrc-case: begin $1" | grep -c 'metaroce: ') metaroce lines, nothing else of note"
}

# ----------------------------------------------------------------- host side

NF_COUNTERS=(rx_packets rx_dropped rx_drop_malformed rx_drop_no_qp rx_drop_qp_type
	rx_drop_qp_state rx_drop_cookie rx_drop_source rx_drop_qkey)

# nf_targets NOW BEFORE: the fuzzer's target options from guest a's QPs
# now and at the last round (files of nf_qps lines).
nf_targets() {
	awk -v ud_qkey="$NF_UD_QKEY" '
		FNR == NR { now[$1] = 1; if ($1 > max) max = $1
			if ($2 == "RC" && $5 == "ibv_rc_pingpong")
				printf " --rc %d:%d:%d", $1, $3, $4
			else if ($2 == "RC")
				printf " --rc %d:%d:%d:protect", $1, $3, $4
			else if ($2 == "UD" && $5 == "ibv_ud_pingpong")
				printf " --ud %d:%s", $1, ud_qkey
			next }
		!($1 in now) && $2 == "RC" { printf " --dead %d:%d:%d", $1, $3, $4 }
		END { printf " --near 16-%d\n", (max > 16 ? max : 16) + 32 }' "$1" "$2"
}

# Guest a answers (a soft lockup or a panic stops it).
nf_alive() { timeout 60 "$BED" exec a -- true 2>/dev/null; }

# After a round that guest a did not survive: what to give whoever fixes it.
nf_post_mortem() {
	local at cmd from
	echo "--- guest a went down during round $1 (seed $2)"
	g b nf_fuzz_tail "$1" | sed 's/^/  b: /'
	cmd=$(g b nf_fuzz_tail "$1" | sed -n 's/^netfuzz: reproduce: //p')
	at=$(g b nf_fuzz_tail "$1" | sed -n 's/^netfuzz: at #//p')
	from=$(( ${at:-0} > 20 ? ${at:-0} - 20 : 0 ))
	if [ -n "$cmd" ]; then
		echo "  the last datagrams sent before the last progress line (to be replayed:"
		echo "  $cmd --start $from --count 1000 --progress 1; one: --dump N):"
		# the same path on the host: the checkout is mounted there
		# shellcheck disable=SC2086 # a command line
		$cmd --dump "$from-$(( ${at:-0} + 200 ))" |
			grep '^#' | tail -n 60 | sed 's/^/    /'
	fi
	echo "  guest a's console:"
	tail -n 80 "$TOP/.cache/bed/a.console.log" | sed 's/^/  a| /'
}

# nf_run: the whole case with the NF_* settings.
nf_run() {
	local r rc seed out counts before after key v i lost sum_m=0 sum_j=0 sum_n=0 sum_t=0 sum_k=0 sum_d=0
	local sent=0 packets=0 fuzz_s
	local now=/tmp/netfuzz-qps.$$ prev=/tmp/netfuzz-qps-prev.$$

	echo "netfuzz seed $NF_SEED (NETFUZZ_SEED=$NF_SEED makes the same datagrams)"
	g a nf_up
	g b nf_up
	g b nf_wrong_source_add
	if [ "$NF_NVME" = 1 ]; then
		g b nvmf_target_up 64 64
		g a nvmf_host_up
		g a nvmf_connect
		g a nf_fio_loop "$NF_FIO_SIZE"
	fi
	g a nf_vc_servers
	g b nf_vc_clients
	g a nf_churn_servers
	g b nf_churn_clients
	g a nf_vc_wait
	read -r -a before < <(g a nf_counters "${NF_COUNTERS[@]}")
	lost=$(g a nf_stack_drops)
	: > "$prev"
	fuzz_s=$(date +%s)
	for ((r = 1; r <= NF_ROUNDS; r++)); do
		seed=$((NF_SEED + r))
		g a nf_qps > "$now"
		echo "--- round $r of $NF_ROUNDS, seed $seed, guest a's QPs: $(awk '{ printf "%s:%s ", $1, $2 }' "$now")"
		rc=0
		# shellcheck disable=SC2046 # a list of options
		out=$(g b nf_fuzz "$r" --seed "$seed" --count "$NF_COUNT" --rate "$NF_RATE" \
			--time-limit "$NF_ROUND_S" --progress 500 \
			--spoof-protected $(nf_targets "$now" "$prev")) || rc=$?
		if ! nf_alive; then
			echo "$out"
			nf_post_mortem "$r" "$seed"
			fail "guest a did not survive round $r (seed $seed)"
		fi
		[ $rc = 0 ] || fail "the fuzzer failed (exit $rc): $out"
		echo "$out" | grep -E '^netfuzz: sent' | sed 's/^/  /'
		v=$(echo "$out" | sed -n 's/^netfuzz: sent [0-9]* datagrams (\([0-9]*\) packets).*/\1/p')
		packets=$((packets + ${v:-0}))
		counts=$(echo "$out" | sed -n 's/^netfuzz-counts: //p')
		for key in datagrams malformed no_mad no_qp qp_type qkey dropped; do
			v=$(echo "$counts" | tr ' ' '\n' | sed -n "s/^$key=//p")
			case $key in
			datagrams) sent=$((sent + v)) ;;
			malformed) sum_m=$((sum_m + v)) ;;
			no_mad) sum_j=$((sum_j + v)) ;;
			no_qp) sum_n=$((sum_n + v)) ;;
			qp_type) sum_t=$((sum_t + v)) ;;
			qkey) sum_k=$((sum_k + v)) ;;
			dropped) sum_d=$((sum_d + v)) ;;
			esac
		done
		mv "$now" "$prev"
		if [ -n "${NF_PACKETS:-}" ] && [ "$packets" -ge "$NF_PACKETS" ]; then
			echo "--- $packets packets sent: NF_PACKETS=$NF_PACKETS reached after round $r"
			break
		fi
	done
	fuzz_s=$(( $(date +%s) - fuzz_s ))
	rm -f "$prev" "$now"
	echo "--- fuzzing done: $sent datagrams ($packets packets) in $fuzz_s s; guest a up"

	g a nf_stop
	g b nf_stop
	out=$(g b nf_vc_done client)
	echo "$out" | sed '$d'
	i=$(echo "$out" | tail -1)
	g a nf_vc_done server "$i" | sed '$d'
	g a nf_vc_end
	echo "  $i verified verbs runs, every one passed on both sides"
	if [ "$NF_NVME" = 1 ]; then
		i=$(g a nf_fio_runs 1200)
		[ "$i" -ge 1 ] || fail "no fio job finished"
		for ((r = 0; r < i; r++)); do
			g a cat "$NF_DIR/fio.$r" | nvmf_fio_check "$NF_FIO_SIZE" | sed 's/^/  a: /'
		done
	fi
	echo "  sacrificial runs that passed: rc $(g b cat "$NF_DIR/rc.runs") ud $(g b cat "$NF_DIR/ud.runs")"

	# the counters moved by at least what the fuzzer sent to be dropped
	# for each reason; malformed by exactly that (nothing else is), and
	# by the datagrams for QP 1 that are no MAD if the device filters them
	read -r -a after < <(g a nf_counters "${NF_COUNTERS[@]}")
	echo "  a: counters grown: $(for i in "${!after[@]}"; do
		printf '%s +%d ' "${NF_COUNTERS[i]}" $((after[i] - before[i])); done)"
	echo "  fuzzer: malformed $sum_m (+ $sum_j no MAD) no_qp >= $sum_n qp_type >= $sum_t qkey >= $sum_k dropped >= $sum_d"
	v=$((after[2] - before[2]))
	lost=$(($(g a nf_stack_drops) - lost))
	if [ "$v" -lt "$sum_m" ] && [ $((sum_m - v)) -le "$lost" ]; then
		echo "  a: rx_drop_malformed $((sum_m - v)) short, and the stack lost $lost datagrams before the device"
		sum_m=$v
	fi
	if [ "$v" -lt "$sum_m" ] || [ "$v" -gt $((sum_m + sum_j)) ]; then
		fail "rx_drop_malformed grew by $v, not $sum_m (+ up to $sum_j; the stack lost $lost)"
	fi
	[ $((after[3] - before[3])) -ge "$sum_n" ] || fail "rx_drop_no_qp grew by less than $sum_n"
	[ $((after[4] - before[4])) -ge "$sum_t" ] || fail "rx_drop_qp_type grew by less than $sum_t"
	[ $((after[8] - before[8])) -ge "$sum_k" ] || fail "rx_drop_qkey grew by less than $sum_k"
	[ $((after[1] - before[1])) -ge "$sum_d" ] || fail "rx_dropped grew by less than $sum_d"
	[ $((after[0] - before[0])) -ge "$sent" ] || fail "rx_packets grew by less than the $sent datagrams sent"
	g a nf_log_check "$MRC_CASE"
}
