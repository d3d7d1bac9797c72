# shellcheck shell=bash
# Helpers for the link cases (selftests/cases/1*-*.sh): metaroce devices made
# with `rdma link`, checked through sysfs, the rdma tool and ibv_devinfo.
#
# Sourced on the host by a case, and in the guests by the commands a case runs
# there with `g` (the checkout is mounted at the same path in both guests).

MRC_LIB=$(readlink -f "${BASH_SOURCE[0]}")
TOP=${TOP:-$(cd "${MRC_LIB%/*}/../../.." && pwd)}
MRC_TIMEOUT=${MRC_TIMEOUT:-20}
# How many times slower than the stock kernel the bed's kernel runs (4 for the
# debug kernel): every wait_until scales by it. run-bed exports it; a case
# run by hand reads it from the bed's state, and passes it to the guests (g).
if [ -z "${MRC_SLOW:-}" ]; then
	MRC_SLOW=$(grep -so ' SLOW=[0-9]*' "$TOP/.cache/bed/bed.env" | cut -d= -f2)
	MRC_SLOW=${MRC_SLOW:-1}
fi
IB=/sys/class/infiniband

fail() { echo "FAIL${MRC_VM:+ ($MRC_VM)}: $*" >&2; exit 1; }

# wait_until DESC CMD...: poll CMD every 0.1 s until it succeeds, for at most
# MRC_TIMEOUT times MRC_SLOW seconds (of the clock: a CMD that takes its
# time itself, as one that asks both guests, does not stretch the limit).
wait_until() {
	local desc=$1 end=$((SECONDS + MRC_TIMEOUT * MRC_SLOW))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || fail "after $((MRC_TIMEOUT * MRC_SLOW))s still not: $desc"
		sleep 0.1
	done
}

# ------------------------------------------------------------- guest side

# Every RDMA device that is ours (it has our ABI attribute).
mrc_devices() {
	local d
	for d in "$IB"/*; do
		[ -e "$d/metaroce_abi_version" ] && echo "${d##*/}"
	done
	return 0
}

mrc_delete_all() {
	local d
	for d in $(mrc_devices); do
		rdma link delete "$d"
	done
	wait_until "all metaroce devices gone" test -z "$(mrc_devices)"
}

# tcp_listening PORT: a process in this guest listens on TCP PORT (IPv4).
tcp_listening() {
	# /proc/net/tcp: local address 00000000:PORT (hex), state 0A = LISTEN
	awk -v p="$(printf '%04X' "$1")" \
		'$2 ~ ":" p "$" && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp
}

# bg_run LOG SECONDS CMD...: run CMD detached (setsid, no terminal) under a
# timeout (SECONDS times MRC_SLOW), its output in LOG and its exit status
# in LOG.rc.
bg_run() {
	local log=$1 secs=$(($2 * MRC_SLOW))
	shift 2
	rm -f "$log" "$log.rc"
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'timeout "$1" "${@:2}" > "$0" 2>&1; echo $? > "$0.rc"' \
		"$log" "$secs" "$@" < /dev/null > /dev/null 2>&1 &
}

# macvlan_up NAME OCT N: a macvlan NAME of eth1 with 10.OCT.0.N/24 and MAC
# 52:54:00:OCT:00:0N (N is 1 in a, 2 in b), and a static neighbour for the
# other guest: no ARP, since eth1 could answer for the address too. Cases
# put a device on it to run beside devices other work keeps on eth0/eth1.
macvlan_up() {
	local name=$1 oct=$2 n=$3
	ip link del "$name" 2>/dev/null || true
	ip link add link eth1 name "$name" address "52:54:00:$oct:00:0$n" \
		type macvlan mode bridge
	ip addr add "10.$oct.0.$n/24" dev "$name"
	ip link set "$name" up
	ip neigh replace "10.$oct.0.$((3 - n))" \
		lladdr "52:54:00:$oct:00:0$((3 - n))" dev "$name" nud permanent
}

# Port attribute as sysfs prints it, e.g. port_attr mrc0 state -> "4: ACTIVE".
port_attr() { cat "$IB/$1/ports/1/$2"; }

port_is() { [ "$(port_attr "$1" state)" = "$2" ]; }

# The `rdma link show` line of DEV, e.g.
# "link mrc0/1 state ACTIVE physical_state LINK_UP netdev eth0"; nothing if
# DEV has no link.
link_line() {
	rdma link show | sed -n "s/ *\$//; /^link $1\/1 /p"
}

# A GID as sysfs prints it: eight groups of four hex digits.
gid_of_ipv4() {
	local IFS=.
	# shellcheck disable=SC2086 # split on dots on purpose
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$1" "$2" "$3" "$4"
}

gid_of_ipv6() {
	local ip=$1 head tail g out="" i n
	local -a h=() t=() all=()
	if [[ $ip == *::* ]]; then
		head=${ip%%::*}
		tail=${ip#*::}
	else
		head=$ip
		tail=
	fi
	[ -n "$head" ] && IFS=: read -ra h <<<"$head"
	[ -n "$tail" ] && IFS=: read -ra t <<<"$tail"
	n=$((8 - ${#h[@]} - ${#t[@]}))
	all=("${h[@]}")
	for ((i = 0; i < n; i++)); do all+=(0); done
	all+=("${t[@]}")
	for g in "${all[@]}"; do
		out+=$(printf '%04x:' "0x$g")
	done
	echo "${out%:}"
}

# gid_index DEV GID: the index of GID in DEV's table; fails if not there.
gid_index() {
	local f
	for f in "$IB/$1"/ports/1/gids/*; do
		if [ "$(cat "$f")" = "$2" ]; then
			echo "${f##*/}"
			return 0
		fi
	done
	return 1
}

# The one-device verbs tools (mrc_verbs_contract, mrc_mw_check): two RC QPs
# of mrc0 (on eth0 of guest a) connected to each other, through the IPv4 and
# the IPv6 GID. loop_tool_case TOOL STEPS SECS (host side): every one of
# STEPS "ok" lines, and "all steps passed", within SECS each time.
loop_tool_case() {
	g a loop_tool_up "$1"
	echo "IPv4 GID"
	g a loop_tool_run "$1" "$(gid_of_ipv4 10.0.0.1)" "$2" "$3"
	echo "IPv6 GID"
	g a loop_tool_run "$1" "$(gid_of_ipv6 fd00::1)" "$2" "$3"
}

loop_tool_up() {
	[ -x "$1" ] || fail "no $1 (make userspace)"
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
	wait_until "fd00::1 GID" gid_index mrc0 "$(gid_of_ipv6 fd00::1)" >/dev/null
}

loop_tool_run() {
	local g out
	g=$(gid_index mrc0 "$2") || fail "no GID $2"
	# the debug kernel's KASAN makes 65536 windows and the limit steps slow
	out=$(timeout $(($4 * MRC_SLOW)) "$1" -d mrc0 -g "$g" 2>&1) || fail "$out"
	echo "$out" | sed 's/^/  /'
	[ "$(grep -c '^ok ' <<<"$out")" -eq "$3" ] || fail "not every step ran"
	grep -q "^all steps passed" <<<"$out" || fail "not every step passed"
}

# gid_type DEV GID: the type of GID in DEV's table ("RoCE v2"), or nothing.
gid_type() {
	local i
	if i=$(gid_index "$1" "$2"); then
		cat "$IB/$1/ports/1/gid_attrs/types/$i"
	fi
	return 0
}

has_v2_gid() { [ "$(gid_type "$1" "$2")" = "RoCE v2" ]; }

# The GIDs that NETDEV's addresses must produce, one a line.
addr_gids() {
	local a
	for a in $(ip -o -4 addr show dev "$1" | awk '{ sub("/.*", "", $4); print $4 }'); do
		gid_of_ipv4 "$a"
	done
	for a in $(ip -o -6 addr show dev "$1" | awk '{ sub("/.*", "", $4); print $4 }'); do
		gid_of_ipv6 "$a"
	done
}

# hold_open DEV FILE: keep DEV open in the background (ibv_asyncwatch, on a
# pty so each event line reaches FILE at once) until DEV goes away; returns
# once the context is open. Needs the provider.
hold_open() {
	rm -f "$2"
	socat -u EXEC:"ibv_asyncwatch -d $1",pty,rawer CREATE:"$2" </dev/null >/dev/null 2>&1 &
	wait_until "$1 opened by ibv_asyncwatch" grep -qs "async event FD" "$2"
}

# The holder was told that the device died.
holder_told() { grep -qs IBV_EVENT_DEVICE_FATAL "$1"; }

holder_kill() {
	local p
	for p in $(pidof ibv_asyncwatch); do
		kill "$p"
	done
	return 0
}

have_provider() { [ -e /etc/libibverbs.d/metaroce.driver ]; }

# The transport's state, for a failure's evidence: every device's counters,
# the QPs (with what the driver adds, -dd), CM IDs, the module's debugfs,
# the processes and the kernel log's end.
mrc_evidence() {
	local d f
	echo "=== $(hostname 2>/dev/null) uptime $(cut -d' ' -f1 /proc/uptime)"
	echo "=== rdma link show"
	rdma link show
	for d in $(rdma link show | awk '$1 == "link" { print $2 }'); do
		echo "=== rdma statistic show link $d"
		rdma statistic show link "$d"
	done
	echo "=== rdma -dd resource show qp"
	rdma -dd resource show qp
	echo "=== rdma resource show cm_id"
	rdma resource show cm_id
	# the CM's MADs by kind: a connection it ended by itself shows here
	for d in /sys/class/infiniband/*/ports/1/cm_*; do
		[ -d "$d" ] || continue
		echo "=== $d"
		grep . "$d"/* | sed 's|.*/||' | tr '\n' ' '
		echo
	done
	echo "=== /sys/kernel/debug/metaroce"
	if [ -d /sys/kernel/debug/metaroce ]; then
		find /sys/kernel/debug/metaroce -type f | sort | while read -r f; do
			echo "$f: $(cat "$f" 2>&1)"
		done
	fi
	echo "=== ps"
	ps -eo pid,stat,wchan:24,comm 2>/dev/null || ps
	echo "=== dmesg (end)"
	dmesg | tail -n 150
	return 0
}

# limited SECS CMD...: CMD under a time limit, as timeout(1) (status 124 when
# it ran out). A CMD still running then hangs: the transport's state goes to
# /tmp/mrc-evidence.CASE (mrc_evidence) while the hung QPs still exist, then
# CMD is killed; case_cleanup brings the file to the host.
limited() {
	local secs=$1 pid t
	shift
	"$@" &
	pid=$!
	sleep "$secs" &
	t=$!
	wait -n "$pid" "$t"
	if kill -0 "$pid" 2>/dev/null; then
		mrc_evidence > "/tmp/mrc-evidence.$MRC_CASE" 2>&1
		kill "$pid" 2>/dev/null
		wait "$pid"
		return 124
	fi
	kill "$t" 2>/dev/null
	wait "$pid"
}

# Whatever limited() kept, then the state now.
mrc_evidence_all() {
	local f
	for f in /tmp/mrc-evidence.*; do
		[ -e "$f" ] || continue
		echo "##### $f (when the command ran out of time)"
		cat "$f"
	done
	echo "##### now"
	mrc_evidence
}

# The kernel log after the last line containing MARK.
log_since() {
	dmesg | awk -v m="$1" \
		'index($0, m) { buf = ""; next } { buf = buf $0 "\n" } END { printf "%s", buf }'
}

# ------------------------------------------------------------- host side
#
# A case is one file for both sides: its guest steps are shell functions, and
# `g VM FUNC ARGS...` runs the case file itself in guest VM as
# `CASE --guest FUNC ARGS...`, which case_main turns into the call FUNC ARGS.

MRC_SELF=$(readlink -f "$0")

g() {
	local vm=$1
	shift
	"$BED" exec "$vm" -- env MRC_VM="$vm" MRC_SLOW="$MRC_SLOW" MRC_TIMEOUT="$MRC_TIMEOUT" \
		bash "$MRC_SELF" --guest "$@"
}

# case_main "$@": in a guest, run the requested step and exit; on the host,
# load the module in both guests, start from no metaroce device, mark the
# kernel logs, and clean up (and check the logs) on exit.
case_main() {
	if [ "${1:-}" = --guest ]; then
		shift
		"$@"
		exit 0
	fi
	: "${BED:?BED must point at selftests/bed}"
	local vm
	for vm in a b; do
		g "$vm" case_guest_begin "$MRC_CASE"
	done
	trap case_cleanup EXIT
}

MRC_CASE=$(basename "$0" .sh)

case_guest_begin() {
	modprobe metaroce
	mrc_delete_all
	rm -f /tmp/mrc-evidence.*
	echo "mrc-case: begin $1" > /dev/kmsg
}

# A case may define case_guest_cleanup, run first in both guests at the end.
case_guest_end() {
	if declare -F case_guest_cleanup >/dev/null; then
		case_guest_cleanup
	fi
	# a case may take the direct fabric's eth0 down (the ECMP fabric's
	# links live in its router namespace)
	[ ! -e /sys/class/net/eth0 ] || ip link set eth0 up
	modprobe metaroce
	mrc_delete_all
	# "traps: prog[pid] ..." reports a user-space crash, not a kernel problem
	local log
	log=$(log_since "mrc-case: begin $1" | grep -Ev '\] traps: [^ ]+\[[0-9]+\] ' |
		"$TOP/selftests/lib/kernel-log-filter" || true)
	grep "known kernel report: " <<<"$log" | sed "s/^/note: $MRC_VM: /" || true
	grep -E "$MRC_BAD_LOG" <<<"$log" && fail "kernel log"
	return 0
}

# Kernel log lines that must never appear while a case runs.
MRC_BAD_LOG=$(grep -v -e '^#' -e '^$' "$TOP/selftests/lib/bad-kernel-log" | paste -sd '|')

# A case may define case_host_cleanup, run first on the host at the end.
case_cleanup() {
	local rc=$? vm
	# a case cut by its time limit: was it the steps or the cleanup?
	echo "$MRC_CASE: cleanup after ${SECONDS} s (status $rc)" >&2
	if declare -F case_host_cleanup >/dev/null; then
		case_host_cleanup || rc=1
	fi
	# a failure's evidence (selftests/soak), before the cleanup deletes it
	if [ $rc != 0 ] && [ -n "${MRC_EVIDENCE:-}" ]; then
		mkdir -p "$MRC_EVIDENCE"
		for vm in a b; do
			g "$vm" mrc_evidence_all > "$MRC_EVIDENCE/$MRC_CASE-$vm.txt" 2>&1
		done
	fi
	for vm in a b; do
		g "$vm" case_guest_end "$MRC_CASE" || rc=1
	done
	exit $rc
}
