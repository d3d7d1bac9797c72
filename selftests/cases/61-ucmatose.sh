#!/usr/bin/env bash
# ucmatose (librdmacm's connection test): rdma_cm connects RC QPs over
# metaroce, exchanges SENDs both ways and disconnects; one connection and
# then four at once, over IPv4 and over IPv6. Both ends must report
# "return status 0".
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"

PORT=18770
SLOG=/tmp/61-ucmatose.server

server() { cm_server "$SLOG" "$PORT" ucmatose -b "$1" -p "$PORT" -c "$2"; }
server_done() {
	cm_server_done "$SLOG" | tail -1
	grep -q "return status 0" "$SLOG" || fail "server did not finish cleanly"
}
client() {
	local out
	out=$(timeout 120 ucmatose -s "$1" -b "$2" -p "$PORT" -c "$3" 2>&1) ||
		fail "client failed: $out"
	echo "$out" | grep -q "return status 0" || fail "client: $out"
	echo "client: return status 0"
}
case_guest_cleanup() { cm_kill ucmatose; }

# ----------------------------------------------------------------- host side
case_main "$@"
for vm in a b; do
	g "$vm" cm_up
done

run() {	# SERVER-ADDR CLIENT-ADDR CONNECTIONS
	echo "ucmatose $1 <- $2, $3 connection(s)"
	g b server "$1" "$3"
	g a client "$1" "$2" "$3"
	g b server_done
}

run "$SRV4" "$CLI4" 1
run "$SRV4" "$CLI4" 4
run "$SRV6" "$CLI6" 1
echo "ok: 61-ucmatose"
