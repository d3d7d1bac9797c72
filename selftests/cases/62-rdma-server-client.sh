#!/usr/bin/env bash
# librdmacm's rdma_server / rdma_client (the rdma_verbs.h convenience API:
# rdma_getaddrinfo, rdma_create_ep, rdma_post_recv/send over RC): the client
# sends 16 bytes, the server echoes them; both must exit 0 and print
# "end 0". Three times over IPv4, then over IPv6.
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"

PORT=18780
SLOG=/tmp/62-rdma-server.server

server() { cm_server "$SLOG" "$PORT" rdma_server -s "$1" -p "$PORT"; }
server_done() {
	cm_server_done "$SLOG"
	grep -q "rdma_server: end 0" "$SLOG" || fail "server did not end 0"
}
client() {
	local out
	out=$(timeout 60 rdma_client -s "$1" -p "$PORT" 2>&1) ||
		fail "client failed: $out"
	echo "$out"
	echo "$out" | grep -q "rdma_client: end 0" || fail "client did not end 0"
}
case_guest_cleanup() { cm_kill rdma_server; }

# ----------------------------------------------------------------- host side
case_main "$@"
for vm in a b; do
	g "$vm" cm_up
done
for srv in "$SRV4" "$SRV4" "$SRV4" "$SRV6"; do
	echo "rdma_server/rdma_client over $srv"
	g b server "$srv"
	g a client "$srv"
	g b server_done
done
echo "ok: 62-rdma-server-client"
