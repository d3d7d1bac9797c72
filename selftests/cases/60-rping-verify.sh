#!/usr/bin/env bash
# rping over rdma_cm (address and route resolution, CM REQ/REP/RTU as MADs on
# QP1, then RC SEND + RDMA READ + RDMA WRITE per ping): 50 pings of 65000 B
# first (issue 30: the READ responses of a fresh device's first QP once
# went unacknowledged until it failed), then 10 pings at sizes 32 B to
# 60000 B over IPv4, and 1000 B and 60000 B over IPv6; the client validates every ping it reads back (-V) and
# prints it (-v), and the host checks each printed ping against rping's
# pattern (rdma-ping-N: then letters from 'A'+N cycling 'A'..'z').
# On a loaded host the seven runs took up to 300 s (soak, issue 30):
# bed-timeout: 600
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"

PORT=18760
SLOG=/tmp/60-rping.server

# rping_status RC LOG: RC, or 0 where rping lost its exit race: at the end
# of a run that went well it closes its CM event channel while its CM
# thread still reads it, and that thread may exit the process first, with
# 255 ("rdma_get_cm_event: Bad file descriptor", rdma-core 44). The host's
# check of every ping decides then.
rping_status() {
	if [ "$1" = 255 ] && [ "$(tail -n 1 "$2")" = "rdma_get_cm_event: Bad file descriptor" ]; then
		echo "rping: lost its exit race (rc 255 after closing its event channel)" >&2
		return 0
	fi
	return "$1"
}

# server SIZE ADDR COUNT / client SIZE ADDR COUNT
server() { cm_server "$SLOG" "$PORT" rping -s -a "$2" -p "$PORT" -C "$3" -S "$1"; }
server_done() {
	MRC_TIMEOUT=130 wait_until "server finished" test -e "$SLOG.rc"
	rping_status "$(cat "$SLOG.rc")" "$SLOG" ||
		fail "server exit status $(cat "$SLOG.rc"): $(tail -5 "$SLOG")"
}
client() {
	local rc=0
	# stdout only: a message on stderr may land inside a ping line
	# less time than the server's: a hang keeps both ends' QPs for
	# the evidence (limited)
	limited 90 rping -c -a "$2" -p "$PORT" -v -V -C "$3" -S "$1" \
		2> /tmp/60-rping.client.err || rc=$?
	rping_status $rc /tmp/60-rping.client.err ||
		fail "rping client -S $1 failed (exit $rc): $(cat /tmp/60-rping.client.err)"
}
case_guest_cleanup() { cm_kill rping; }

# ----------------------------------------------------------------- host side
case_main "$@"
for vm in a b; do
	g "$vm" cm_up
done

# check SIZE COUNT < client output: COUNT pings, each exactly rping's pattern
check() {
	python3 -c '
import re, sys
size, count = int(sys.argv[1]), int(sys.argv[2])
pings = [l.rstrip("\n") for l in sys.stdin if l.startswith("ping data: ")]
assert len(pings) == count, "%d pings printed" % len(pings)
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
' "$1" "$2"
}

# the long run first: issue 30's hang was of the first QP of a fresh device
for run in 65000,$SRV4,50 32,$SRV4,10 1000,$SRV4,10 4096,$SRV4,10 60000,$SRV4,10 \
	1000,$SRV6,10 60000,$SRV6,10; do
	IFS=, read -r size addr count <<< "$run"
	g b server "$size" "$addr" "$count"
	if ! out=$(g a client "$size" "$addr" "$count"); then
		# what both ends saw, and their transport counters
		echo "--- client (a) output:"
		echo "$out" | tail -20 | cut -c1-160
		echo "--- server (b) output:"
		g b cat "$SLOG" | tail -20 | cut -c1-160
		for vm in a b; do
			echo "--- $vm: rdma statistic show link $DEV/1"
			g "$vm" rdma statistic show link "$DEV/1" || true
		done
		exit 1
	fi
	g b server_done
	echo "$out" | check "$size" "$count" | sed "s/\$/ to $addr/" || { echo "$out" | head -3 | cut -c1-120; exit 1; }
done
echo "ok: 60-rping-verify"
