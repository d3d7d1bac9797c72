#!/usr/bin/env bash
# ibv_rc_pingpong between the guests over metaroce (mrc0 on eth0, RoCE v2
# GID index 1), every received buffer checked by the tool (-c): message
# sizes 1 B to 1 MiB (one 1 MiB message is 1024 packets, spread over the
# connection's paths), busy polling and with completion events (-e). Both
# ends must exit 0 and print their iteration count. The same with
# ibv_uc_pingpong: UC QPs over the same transport ([OPS-40]).
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"
# shellcheck source=lib/pingpong.bash
. "$(dirname "$0")/lib/pingpong.bash"

PORT=18740
SLOG=/tmp/40-rc-pingpong.server	# in guest b: output, then .rc
PP_DEV=mrc0
PP_ADDR=10.0.0.2

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

pp_run -s 1 -n 50
pp_run -s 4096 -n 20
pp_run -s 65536 -n 10
pp_run -s 1048576 -n 3
pp_run -e -s 1 -n 50
pp_run -e -s 65536 -n 10
pp_run_uc -s 1 -n 50
pp_run_uc -s 1048576 -n 3
pp_run_uc -e -s 65536 -n 10
echo "ok: 40-rc-pingpong"
