#!/usr/bin/env bash
# ibv_rc_pingpong between the guests over metaroce (mrc0 on eth0, RoCE v2
# GID index 1), every received buffer checked by the tool (-c): message
# sizes 1 B to 1 MiB (one 1 MiB message is 1024 packets, spread over the
# connection's paths), busy polling and with completion events (-e). Both
# ends must exit 0 and print their iteration count.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

PORT=18740
SLOG=/tmp/40-rc-pingpong.server	# in guest b: output, then .rc

# ---------------------------------------------------------------- guest side
up() {
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

listening() {
	# /proc/net/tcp: local address 00000000:PORT (hex), state 0A = LISTEN
	awk -v p="$(printf '%04X' "$PORT")" \
		'$2 ~ ":" p "$" && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp
}

server() {
	rm -f "$SLOG" "$SLOG.rc"
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'timeout 120 ibv_rc_pingpong "$@" > "$0" 2>&1; echo $? > "$0.rc"' \
		"$SLOG" -p "$PORT" -d mrc0 -g 1 -c "$@" < /dev/null > /dev/null 2>&1 &
	wait_until "server listening on $PORT" listening
}

server_done() {
	MRC_TIMEOUT=130 wait_until "server finished" test -e "$SLOG.rc"
	cat "$SLOG"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc")"
	grep -q "iters in" "$SLOG" || fail "server printed no result"
}

client() {
	local out
	out=$(timeout 120 ibv_rc_pingpong -p "$PORT" -d mrc0 -g 1 -c "$@" 10.0.0.2 2>&1) ||
		fail "client failed: $out"
	echo "$out" | tail -1
	echo "$out" | grep -q "iters in" || fail "client printed no result"
}

# ----------------------------------------------------------------- host side
case_main "$@"
for vm in a b; do
	g "$vm" up
done

run() {
	echo "ibv_rc_pingpong $*"
	g b server "$@"
	g a client "$@"
	g b server_done
}

run -s 1 -n 50
run -s 4096 -n 20
run -s 65536 -n 10
run -s 1048576 -n 3
run -e -s 1 -n 50
run -e -s 65536 -n 10
echo "ok: 40-rc-pingpong"
