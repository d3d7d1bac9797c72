#!/usr/bin/env bash
# rping over rdma_cm (address and route resolution, CM REQ/REP/RTU as MADs on
# QP1, then RC SEND + RDMA READ + RDMA WRITE per ping): 10 pings at sizes
# 32 B to 60000 B over IPv4, and 1000 B and 60000 B over IPv6; the client validates every ping it reads back (-V) and
# prints it (-v), and the host checks each printed ping against rping's
# pattern (rdma-ping-N: then letters from 'A'+N cycling 'A'..'z').
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"

PORT=18760
SLOG=/tmp/60-rping.server

# server SIZE ADDR / client SIZE ADDR
server() { cm_server "$SLOG" "$PORT" rping -s -a "$2" -p "$PORT" -C 10 -S "$1"; }
server_done() { cm_server_done "$SLOG" > /dev/null; }
client() {
	# stdout only: a message on stderr may land inside a ping line
	timeout 120 rping -c -a "$2" -p "$PORT" -v -V -C 10 -S "$1" \
		2> /tmp/60-rping.client.err ||
		fail "rping client -S $1 failed: $(cat /tmp/60-rping.client.err)"
}
case_guest_cleanup() { cm_kill rping; }

# ----------------------------------------------------------------- host side
case_main "$@"
for vm in a b; do
	g "$vm" cm_up
done

# check SIZE < client output: 10 pings, each exactly rping's pattern
check() {
	python3 -c '
import re, sys
size = int(sys.argv[1])
pings = [l.rstrip("\n") for l in sys.stdin if l.startswith("ping data: ")]
assert len(pings) == 10, "%d pings printed" % len(pings)
for n, l in enumerate(pings):
    head = "rdma-ping-%d: " % n
    data = l[len("ping data: "):]
    assert data.startswith(head), l[:40]
    want, c = [], 65 + n % 58
    for _ in range(size - 1 - len(head)):
        want.append(chr(c))
        c = 65 if c == 122 else c + 1
    assert data[len(head):] == "".join(want), "ping %d differs" % n
print("ok %d pings of %d bytes" % (len(pings), size))
' "$1"
}

for run in 32,$SRV4 1000,$SRV4 4096,$SRV4 60000,$SRV4 1000,$SRV6 60000,$SRV6; do
	size=${run%%,*} addr=${run#*,}
	g b server "$size" "$addr"
	if ! out=$(g a client "$size" "$addr"); then
		# what the server saw, and both ends' transport counters
		echo "--- server (b) output:"
		g b cat "$SLOG" | tail -20 | cut -c1-160
		for vm in a b; do
			echo "--- $vm: rdma statistic show link $DEV/1"
			g "$vm" rdma statistic show link "$DEV/1" || true
		done
		exit 1
	fi
	g b server_done
	echo "$out" | check "$size" | sed "s/\$/ to $addr/" || { echo "$out" | head -3 | cut -c1-120; exit 1; }
done
echo "ok: 60-rping-verify"
