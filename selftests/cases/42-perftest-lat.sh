#!/usr/bin/env bash
# The rest of perftest over metaroce (mrc0 on eth0, GID index 1): latency
# (ib_send_lat, ib_write_lat, ib_read_lat, 64 B), ib_atomic_bw (fetch-add
# and compare-swap), each to the end on both sides with its result line;
# then ibv_srq_pingpong (a shared receive queue, 4 QPs, every buffer
# checked with -c), and while a verbs program holds them, `rdma resource
# show` lists its QP, CQ and MR on mrc0.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"
# shellcheck source=lib/perftest.bash
. "$(dirname "$0")/lib/perftest.bash"

PORT=18860
SLOG=/tmp/42-perftest-lat.server	# in guest b: output, then .rc
PT_ARGS=(-d mrc0 -x 1 -F)

# ---------------------------------------------------------------- guest side
up() {
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

srq_server() {
	bg_run "$SLOG" 150 ibv_srq_pingpong -d mrc0 -g 1 -c -q 4 -n 50 -s 4096 -p "$1"
	wait_until "ibv_srq_pingpong listening on $1" tcp_listening "$1"
}

srq_client() {
	local out
	out=$(timeout 150 ibv_srq_pingpong -d mrc0 -g 1 -c -q 4 -n 50 -s 4096 \
		-p "$1" 10.0.0.2 2>&1) || fail "ibv_srq_pingpong client failed: $out"
	echo "$out" | grep -E "iters in" || fail "no result: $out"
}

srq_server_done() {
	MRC_TIMEOUT=160 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
	grep -q "iters in" "$SLOG" || fail "server printed no result: $(cat "$SLOG")"
}

# resources PORT: a verbs program holds a QP, CQs and MRs (ibv_rc_pingpong
# creates them before it waits for its peer); rdma lists them
resources() {
	local kind n
	bg_run "$SLOG" 60 ibv_rc_pingpong -d mrc0 -g 1 -p "$1"
	wait_until "ibv_rc_pingpong listening on $1" tcp_listening "$1"
	for kind in qp cq mr; do
		n=$(rdma resource show "$kind" | grep -w mrc0 | grep -c "comm ibv_rc_pingpong") || true
		[ "$n" -gt 0 ] || fail "rdma resource show $kind lists no ibv_rc_pingpong object on mrc0"
		echo "rdma resource show $kind: $n of ibv_rc_pingpong on mrc0"
	done
	kill "$(pidof ibv_rc_pingpong)"
}

# ----------------------------------------------------------------- host side
case_main "$@"
for vm in a b; do
	g "$vm" up
done

for tool in ib_send_lat ib_write_lat ib_read_lat; do
	PORT=$((PORT + 1))
	pt_run "$tool" "$PORT" 64 20
done
for op in FETCH_AND_ADD CMP_AND_SWAP; do
	PORT=$((PORT + 1))
	pt_run ib_atomic_bw "$PORT" 8 20 -A "$op" -o 4
done
PORT=$((PORT + 1))
echo "ibv_srq_pingpong -q 4 -n 50 -s 4096 -c"
g b srq_server "$PORT"
g a srq_client "$PORT"
g b srq_server_done
PORT=$((PORT + 1))
g b resources "$PORT"
echo "ok: 42-perftest-lat"
