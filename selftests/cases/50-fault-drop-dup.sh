#!/usr/bin/env bash
# The module's fault injection (kernel/fault.c) under a verified transfer:
# guest b drops 5% and duplicates 1% of what it receives (seeded), and
# ibv_rc_pingpong -c (every received buffer checked) still completes at
# 4 KiB, 64 KiB and 1 MiB, and ibv_uc_pingpong -c at 64 KiB: a UC message
# is repaired, not lost ([OPS-42]). With tail_dup=64 on both ends the
# senders copy their idle tails ([REL-25]): tail_copies grows on both and
# every byte is still right. The debugfs counters show the injected drops
# and duplicates, and guest a's transport counters show retransmissions.
# Both ends sent ACK bundles ([ENC-9]): a message's segments cross four
# paths, and the ACKs its end asks for leave as one datagram; the lossy
# receive on b met them too.
#
# The device sits on its own macvlan bf0 over eth1 (10.78.0.0/24), so the
# case runs beside devices other work keeps on eth0/eth1.
#
# It ran in make test-long until the transport lingered: the client's final
# ACK could be one of the dropped 5%, and once its QP was destroyed nothing
# answered the server's resends (RETRY_EXC, 1 run in 4). Destroyed QPs now
# linger ([REL-21], kernel/linger.c): 8 of 8 runs passed after that.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"
# shellcheck source=lib/pingpong.bash
. "$(dirname "$0")/lib/pingpong.bash"

PORT=18750
SLOG=/tmp/50-fault.server
PP_DEV=mrcf0
PP_ADDR=10.78.0.2
PP_TIMEOUT=200
PP_NOTE="b: 5% drop, 1% duplicate on receive"
FAULT=/sys/kernel/debug/metaroce/mrcf0/fault

# ---------------------------------------------------------------- guest side
up() {
	macvlan_up bf0 78 "$1"
	rdma link add mrcf0 type metaroce netdev bf0
	wait_until "mrcf0 ACTIVE" port_is mrcf0 "4: ACTIVE"
}

down() {
	[ -e "$FAULT/mode" ] && echo 0 > "$FAULT/mode"
	rdma link delete mrcf0 2>/dev/null || true
	ip link del bf0 2>/dev/null || true
}

fault_on() {
	[ -d "$FAULT" ] || fail "no $FAULT (debugfs mounted? DEBUG_FS?)"
	echo 50 > "$FAULT/seed"
	echo 50000 > "$FAULT/drop_ppm"
	echo 10000 > "$FAULT/duplicate_ppm"
	echo 1 > "$FAULT/mode"
}

fault_check() {
	local dropped dup
	dropped=$(cat "$FAULT/dropped")
	dup=$(cat "$FAULT/duplicated")
	echo "injected: dropped $dropped, duplicated $dup"
	echo 0 > "$FAULT/mode"
	[ "$dropped" -gt 0 ] || fail "no packet dropped"
	[ "$dup" -gt 0 ] || fail "no packet duplicated"
}

retransmits() {
	local out r
	out=$(rdma statistic show link mrcf0/1)
	echo "$out"
	r=$(sed -n 's/.* retransmits \([0-9]*\).*/\1/p' <<<"$out")
	[ "${r:-0}" -gt 0 ] || fail "no retransmission counted"
}

tail_dup() {
	echo "$1" > /sys/module/metaroce/parameters/tail_dup
}

# tail_copies of mrcf0, for tail_copies_grew
tail_copies() {
	rdma statistic show link mrcf0/1 | sed -n 's/.* tail_copies \([0-9]*\).*/\1/p'
}

tail_copies_grew() {
	local n
	n=$(tail_copies)
	echo "tail copies sent: ${n:-none} (before: $1)"
	[ "${n:-0}" -gt "$1" ] || fail "no tail copy sent"
}

bundles() {
	local n
	n=$(rdma statistic show link mrcf0/1 |
		sed -n 's/.* ack_bundles \([0-9]*\).*/\1/p')
	echo "ack bundles sent: ${n:-none}"
	[ "${n:-0}" -gt 0 ] || fail "no ACK bundle sent"
}

# ----------------------------------------------------------------- host side
case_host_cleanup() {
	g a down
	g b down
	g a tail_dup 0 2>/dev/null || true
	g b tail_dup 0 2>/dev/null || true
}

case_main "$@"
g a up 1
g b up 2
g b fault_on

pp_run -s 4096 -n 50
pp_run -s 65536 -n 10
pp_run -s 1048576 -n 3
pp_run_uc -s 65536 -n 10
copies_a=$(g a tail_copies)
copies_b=$(g b tail_copies)
g a tail_dup 64
g b tail_dup 64
PP_NOTE="$PP_NOTE, tail_dup 64" pp_run -s 65536 -n 10
g a tail_copies_grew "$copies_a"
g b tail_copies_grew "$copies_b"
g a tail_dup 0
g b tail_dup 0
g b fault_check
g a retransmits
g a bundles
g b bundles
echo "ok: 50-fault-drop-dup"
