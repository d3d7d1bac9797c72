#!/usr/bin/env bash
# Timed correctness under random loss (issue 6): our verbs test tool runs
# every operation once and then streams verified 4 KiB WRITEs for 60 s
# while netem drops 1%, 10%, 20% and then 30% of what each guest sends on the
# link (both directions: data, ACKs and READ responses). Every step must
# pass with every byte checked, no completion may fail and no QP may go
# to the error state (the tool's bad-rkey step at the end is the only
# expected error). At each rate it prints the stream's goodput and the
# transport counters.
#
# The device sits on its own macvlan bl0 over eth1 (10.76.0.0/24) so netem
# impairs only its traffic; the tool's TCP control channel runs over eth0.
# bed-timeout: 2000
set -euo pipefail
# shellcheck source=../cases/lib/link.bash
. "$(dirname "$0")/../cases/lib/link.bash"

PORT=18751
TOOL=$TOP/build/userspace/tools/mrc_verbs_check
SLOG=/tmp/51-loss.server
SECS=${MRC_LOSS_SECS:-60}

# ---------------------------------------------------------------- guest side
up() {
	[ -x "$TOOL" ] || fail "no $TOOL (make userspace)"
	macvlan_up bl0 76 "$1"
	rdma link add mrcl0 type metaroce netdev bl0
	wait_until "mrcl0 ACTIVE" port_is mrcl0 "4: ACTIVE"
}

down() {
	rdma link delete mrcl0 2>/dev/null || true
	ip link del bl0 2>/dev/null || true
}

netem() {
	tc qdisc del dev bl0 root 2>/dev/null || true
	[ "$1" = off ] || tc qdisc add dev bl0 root netem "$@"
}

server() {
	bg_run "$SLOG" 1200 "$TOOL" -d mrcl0 -g 1 -p "$PORT"
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

server_done() {
	MRC_TIMEOUT=1200 wait_until "server finished" test -e "$SLOG.rc"
	grep -E '^(ok|fail) ' "$SLOG" | sed 's/^/  b: /'
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc")"
	grep -q "server: all steps passed" "$SLOG" || fail "server did not pass every step"
}

client() {
	local out
	out=$(timeout 1200 "$TOOL" -d mrcl0 -g 1 -p "$PORT" -w 100000000 -t "$1" \
		10.0.0.2 2>&1) || fail "client failed: $(tail -5 <<<"$out")"
	grep -E '^(ok|fail) ' <<<"$out" | sed 's/^/  a: /'
	grep -q "client: all steps passed" <<<"$out" || fail "client did not pass every step"
	grep -q '^ok stream' <<<"$out" || fail "the stream was not verified"
}

counters() {
	rdma statistic show link mrcl0/1 |
		grep -oE "(tx_packets|retransmits|acks_[a-z_]*|naks_[a-z]*|rx_dropped) [0-9]+" | tr '\n' ' '
	echo
}

# ----------------------------------------------------------------- host side
case_host_cleanup() {
	g a down
	g b down
}

case_main "$@"
g a up 1
g b up 2
for p in 1 10 20 30; do
	echo "--- netem loss $p% on both guests' bl0, ${SECS} s stream"
	g a netem loss "$p%"
	g b netem loss "$p%"
	g b server
	g a client "$SECS"
	g b server_done
	g a netem off
	g b netem off
	echo "  a: $(g a counters)"
	echo "  b: $(g b counters)"
done
echo "ok: 51-loss-verbs-check"
