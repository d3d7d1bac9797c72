#!/usr/bin/env bash
# Per-path telemetry: metaroce-top (BPF on the metaroce:mrc_path_ack
# tracepoint) runs in guest a while ibv_rc_pingpong moves 64 KiB messages
# over mrc0; its table must show the client's QP with at least one path
# that sent packets (TX_PKTS > 0) and has an RTT estimate (SRTT_US > 0).
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

PORT=18780
TOPTOOL=$TOP/build/userspace/tools/metaroce-top/metaroce-top
TLOG=/tmp/80-telemetry.top	# in guest a: metaroce-top's output
SLOG=/tmp/80-telemetry.server	# in guest b

# ---------------------------------------------------------------- guest side
up() {
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

top_start() {
	[ -x "$TOPTOOL" ] || fail "no $TOPTOOL (make userspace needs clang, bpftool, libbpf)"
	rm -f "$TLOG" "$TLOG.pid"
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'echo $$ > "$0.pid"; exec timeout 120 "$1" -i 1 -s 120 > "$0" 2>&1' \
		"$TLOG" "$TOPTOOL" < /dev/null > /dev/null 2>&1 &
	wait_until "metaroce-top attached" grep -qs "attached to" "$TLOG"
}

tables_more_than() { [ "$(grep -c "path(s)" "$TLOG" || true)" -gt "$1" ]; }

top_stop() {
	local pid n
	pid=$(cat "$TLOG.pid")
	# a complete table after the traffic, then stop it
	n=$(grep -c "path(s)" "$TLOG" || true)
	wait_until "another metaroce-top table" tables_more_than "$((n + 1))"
	kill "$pid" 2>/dev/null || true
	wait_until "metaroce-top gone" test ! -e "/proc/$pid"
}

# check QPN: a row of DEV mrc0 and QPN (decimal) with TX_PKTS and SRTT_US > 0
top_check() {
	local qpn=$1
	echo "  a: metaroce-top, last table:"
	awk '/^DEV /{ t = "" } { t = t "    " $0 "\n" } END { printf "%s", t }' "$TLOG"
	awk -v q="$qpn" '$1 == "mrc0" && $2 == q && $10 > 0 && $6 > 0 { f = 1 } END { exit !f }' \
		"$TLOG" || fail "no path of mrc0 QP $qpn with tx_pkts > 0 and srtt > 0"
}

server() {
	bg_run "$SLOG" 120 ibv_rc_pingpong -p "$PORT" -d mrc0 -g 1 -c "$@"
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

server_done() {
	MRC_TIMEOUT=130 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
}

# prints the client's QPN in decimal
client() {
	local out qpn
	out=$(timeout 120 ibv_rc_pingpong -p "$PORT" -d mrc0 -g 1 -c "$@" 10.0.0.2 2>&1) ||
		fail "client failed: $out"
	grep -q "iters in" <<<"$out" || fail "client printed no result"
	qpn=$(sed -n 's/.*local address:.*QPN 0x\([0-9a-fA-F]*\).*/\1/p' <<<"$out" | head -1)
	[ -n "$qpn" ] || fail "no local QPN in: $out"
	echo $((16#$qpn))
}

# ----------------------------------------------------------------- host side
case_main "$@"
for vm in a b; do
	g "$vm" up
done
g a top_start
g b server -s 65536 -n 50
qpn=$(g a client -s 65536 -n 50)
g b server_done
g a top_stop
g a top_check "$qpn"
echo "ok: 80-telemetry"
