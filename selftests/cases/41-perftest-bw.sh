#!/usr/bin/env bash
# perftest's ib_write_bw, ib_send_bw and ib_read_bw between the guests over
# metaroce (mrc0 on eth0, GID index 1, TCP exchange): each runs to the end
# on both sides and prints its result line. perftest does not check the
# data; 40-rc-pingpong and the verbs test tool do. ib_read_bw's server never
# leaves RTR, so this also covers a responder answering READs before RTS.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"
# shellcheck source=lib/perftest.bash
. "$(dirname "$0")/lib/perftest.bash"

PORT=18840
SLOG=/tmp/41-perftest-bw.server	# in guest b: output, then .rc
PT_ARGS=(-d mrc0 -x 1 -F)

# ---------------------------------------------------------------- guest side
up() {
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

# ----------------------------------------------------------------- host side
case_main "$@"
for vm in a b; do
	g "$vm" up
done

for tool in ib_write_bw ib_send_bw; do
	PORT=$((PORT + 1))
	pt_run "$tool" "$PORT" 16384 10
done
# ib_read_bw's default is the device maximum (128) READs outstanding, 2 MiB
# of responses in flight, more than a short run in the emulated bed moves
PORT=$((PORT + 1))
pt_run ib_read_bw "$PORT" 16384 10 -o 4
echo "ok: 41-perftest-bw"
