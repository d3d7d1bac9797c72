#!/usr/bin/env bash
# Our verbs test tool between the guests over metaroce (mrc0 on eth0, RoCE
# v2 GID index 1): SEND/SEND_WITH_IMM 1 B to 1 MiB with 2 SGEs, 64
# back-to-back WRITEs ending in WRITE_WITH_IMM, READs, FETCH_ADD and
# CMP_SWP, every received byte checked against its pattern, the FNV-1a
# checksums of both sides compared, then the bad-rkey error path
# (REM_ACCESS_ERR, WR_FLUSH_ERR, QP in ERR). Once busy polling, once
# through a completion channel (-e).
#
# It also checks the provider's fast path: with MRC_PROVIDER_STATS=1 the
# provider reports per QP how many send WRs were posted and how many
# doorbells (system calls) they cost; a sender with WRs in flight must
# post without ringing, so doorbells must stay below the WR count.
#
# A third run sends in UDP GSO bursts (tx_gso=1 on both guests): the same
# checks, and both senders' tx_gso_bursts counters must have moved.
#
# A fourth runs at path MTU 256 over the 1500-byte netdev: packets then
# carry up to 5 segments ([ENC-25]); the same checks, and both senders'
# tx_multi_seg counters must have moved.
#
# A fifth loses the bad-rkey step's NAK: guest a's fault layer drops the
# next NAK it receives. The refused WRITE was not acknowledged, so a
# resends it, and b, its QP in ERR by then, answers with the NAK again
# ([OPS-31]): the same checks (REM_ACCESS_ERR, not RETRY_EXC_ERR), one
# NAK dropped, and b's naks_repeated must have moved.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

PORT=18745
TOOL=$TOP/build/userspace/tools/mrc_verbs_check
SLOG=/tmp/45-verbs-check.server	# in guest b: output, then .rc

# ---------------------------------------------------------------- guest side
up() {
	[ -x "$TOOL" ] || fail "no $TOOL (make userspace)"
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

server() {
	MRC_PROVIDER_STATS=1 bg_run "$SLOG" 150 "$TOOL" -d mrc0 -g 1 -p "$PORT" "$@"
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

server_done() {
	MRC_TIMEOUT=160 wait_until "server finished" test -e "$SLOG.rc"
	grep -E '^(ok|fail) ' "$SLOG" | sed 's/^/  b: /'
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
	grep -q "server: all steps passed" "$SLOG" || fail "server did not pass every step"
}

client() {
	local out wrs dbs
	out=$(MRC_PROVIDER_STATS=1 timeout 150 "$TOOL" -d mrc0 -g 1 -p "$PORT" "$@" 10.0.0.2 2>&1) ||
		fail "client failed: $out"
	grep -E '^(ok|fail) |libmetaroce' <<<"$out" | sed 's/^/  a: /'
	grep -q "client: all steps passed" <<<"$out" || fail "client did not pass every step"
	# every checksum line of the sender matches its receiver's
	[ "$(grep -c '^ok send-sender' <<<"$out")" -eq 8 ] || fail "not every SEND size checked"
	grep -q '^ok write-sender' <<<"$out" || fail "WRITE not checked on both sides"
	read -r wrs dbs < <(sed -n 's/.*send wrs \([0-9]*\) doorbells \([0-9]*\),.*/\1 \2/p' <<<"$out" | head -1)
	[ -n "$wrs" ] || fail "the provider printed no statistics"
	[ "$dbs" -lt "$wrs" ] || fail "$dbs doorbells for $wrs send WRs: the SQ never polled"
	echo "  a: $wrs send WRs cost $dbs doorbell system calls"
}

gso() { echo "$1" > /sys/module/metaroce/parameters/tx_gso; }
FAULT=/sys/kernel/debug/metaroce/mrc0/fault
case_guest_cleanup() {
	[ ! -e /sys/module/metaroce ] || gso 0
	[ ! -e "$FAULT/mode" ] || echo 0 > "$FAULT/mode"
}

# drop the next NAK received (8: MRC_PKT_NAK, kernel/core/wire.h)
nak_loss_on() {
	[ -d "$FAULT" ] || fail "no $FAULT (debugfs mounted? DEBUG_FS?)"
	echo 8 > "$FAULT/type"
	echo 1 > "$FAULT/drop_next"
	echo 1 > "$FAULT/mode"
}

nak_loss_check() {
	local dropped
	dropped=$(cat "$FAULT/dropped")
	echo 0 > "$FAULT/mode"
	echo 0 > "$FAULT/type"
	[ "$dropped" = 1 ] || fail "$dropped NAKs dropped, not 1"
	echo "  $(hostname): 1 NAK dropped"
}

counter() {
	rdma statistic show link mrc0/1 | tr ' ' '\n' |
		awk -v c="$1" 'p { print; exit } $1 == c { p = 1 }'
}

# counter_moved NAME WAS
counter_moved() {
	local n
	n=$(counter "$1")
	[ "${n:-0}" -gt "$2" ] || fail "$1 $n, was $2"
	echo "  $(hostname): $1 +$((n - $2))"
}

# ----------------------------------------------------------------- host side
case_main "$@"
for vm in a b; do
	g "$vm" up
done

run() {
	echo "mrc_verbs_check $*"
	g b server "$@"
	g a client "$@"
	g b server_done
}

run -w 256
run -e -w 0
ba=$(g a counter tx_gso_bursts)
bb=$(g b counter tx_gso_bursts)
g a gso 1
g b gso 1
run -w 256
g a counter_moved tx_gso_bursts "$ba"
g b counter_moved tx_gso_bursts "$bb"
g a gso 0
g b gso 0
ba=$(g a counter tx_multi_seg)
bb=$(g b counter tx_multi_seg)
run -m 256 -w 256
g a counter_moved tx_multi_seg "$ba"
g b counter_moved tx_multi_seg "$bb"
bb=$(g b counter naks_repeated)
g a nak_loss_on
run -w 0
g a nak_loss_check
g b counter_moved naks_repeated "$bb"
echo "ok: 45-verbs-check"
