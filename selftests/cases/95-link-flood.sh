#!/usr/bin/env bash
# stress the bed's links: UDP floods both ways on eth0 (1400 B, unpaced) for
# FLOOD_S seconds in rounds of 20 s; after each round both directions must
# still carry pings. Prints the round a link died in.
set -euo pipefail
. /work/wt/lead/selftests/cases/lib/link.bash
SPRAY=$TOP/build/userspace/tools/mrc_udp_spray
flood() {
	local to=$1
	timeout 30 "$SPRAY" recv --port 19999 --time 22 > /tmp/flood.recv 2>&1 &
	sleep 1
	"$SPRAY" send --to "$to" --port 19999 --sports 20000-20063 --size 1400 --time 20 2>&1 | tail -1
	wait || true
	tail -1 /tmp/flood.recv
}
ping_ok() { ping -c 3 -i 0.2 -W 2 -q "$1" > /dev/null; }
case_main "$@"
for ((r = 1; r <= ${FLOOD_ROUNDS:-15}; r++)); do
	g a flood 10.0.0.2 > /tmp/flood-a.out &
	g b flood 10.0.0.1 > /tmp/flood-b.out
	wait
	echo "round $r: a: $(tr '\n' ' ' < /tmp/flood-a.out) b: $(tr '\n' ' ' < /tmp/flood-b.out)"
	g a ping_ok 10.0.0.2 || fail "round $r: a -> b dead"
	g b ping_ok 10.0.0.1 || fail "round $r: b -> a dead"
done
echo "ok: links survived ${FLOOD_ROUNDS:-15} rounds"
