#!/usr/bin/env bash
# perftest's ib_write_bw, ib_send_bw and ib_read_bw between the guests over
# metaroce (mrc0 on eth0, GID index 1, TCP exchange): each runs to the end
# on both sides and prints its result line. perftest does not check the
# data; 40-rc-pingpong and the verbs test tool do. ib_read_bw's server never
# leaves RTR, so this also covers a responder answering READs before RTS.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

PORT=18840
SLOG=/tmp/41-perftest-bw.server	# in guest b: output, then .rc
ARGS=(-d mrc0 -x 1 -F -n 10 -s 16384)

# ---------------------------------------------------------------- guest side
up() {
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

listening() {
	awk -v p="$(printf '%04X' "$1")" \
		'$2 ~ ":" p "$" && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp
}

server() {
	local tool=$1 port=$2
	shift 2
	rm -f "$SLOG" "$SLOG.rc"
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'timeout 150 "$@" > "$0" 2>&1; echo $? > "$0.rc"' \
		"$SLOG" "$tool" "${ARGS[@]}" "$@" -p "$port" < /dev/null > /dev/null 2>&1 &
	wait_until "$tool server listening on $port" listening "$port"
}

server_done() {
	MRC_TIMEOUT=160 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
	grep -Eq "^ *16384 +10 " "$SLOG" || fail "server printed no result: $(cat "$SLOG")"
}

client() {
	local tool=$1 port=$2 out
	shift 2
	out=$(timeout 150 "$tool" "${ARGS[@]}" "$@" -p "$port" 10.0.0.2 2>&1) ||
		fail "$tool client failed: $out"
	echo "$out" | grep -E "^ *16384 +10 " || fail "$tool printed no result: $out"
}

# ----------------------------------------------------------------- host side
case_main "$@"
for vm in a b; do
	g "$vm" up
done

for tool in ib_write_bw ib_send_bw; do
	PORT=$((PORT + 1))
	echo "$tool ${ARGS[*]}"
	g b server "$tool" "$PORT"
	g a client "$tool" "$PORT"
	g b server_done
done
# ib_read_bw's default is the device maximum (128) READs outstanding, 2 MiB
# of responses in flight, more than a short run in the emulated bed moves
PORT=$((PORT + 1))
echo "ib_read_bw ${ARGS[*]} -o 4"
g b server ib_read_bw "$PORT" -o 4
g a client ib_read_bw "$PORT" -o 4
g b server_done
echo "ok: 41-perftest-bw"
