#!/usr/bin/env bash
# NVMe over Fabrics on metaroce: the target's port goes away and comes back
# while the host is connected and fio is writing. nvmet drops the
# controller, the host's nvme-rdma starts error recovery and tries to
# reconnect every NVMF_RECONNECT_DELAY s (failing while the port is gone),
# the port is added again and the host reconnects on its own; the
# requeued I/O completes and fio's crc32c verify of everything it wrote
# finds 0 errors. Then a second verify job on the reconnected controller.
# bed-timeout: 1200
set -euo pipefail
# shellcheck source=../cases/lib/cm.bash
. "$(dirname "$0")/../cases/lib/cm.bash"
# shellcheck source=../cases/lib/nvmeof.bash
. "$(dirname "$0")/../cases/lib/nvmeof.bash"

FLOG=/tmp/67-nvmeof.fio
MARK="mrc-case: port removed"

case_guest_cleanup() {
	case $MRC_VM in
	a) nvmf_host_down ;;
	b) nvmf_target_down ;;
	esac
}

mark() { echo "$MARK" > /dev/kmsg; }

# ----------------------------------------------------------------- host side
case_main "$@"
g b nvmf_target_up 128 128
g a nvmf_host_up
g a nvmf_connect

g a nvmf_fio_bg "$FLOG" 1 64M 16
g a mark
g b nvmf_port_remove
echo "port removed; waiting for the host to notice and fail a reconnect"
MRC_TIMEOUT=120 g a wait_until "controller not live" nvmf_ctrl_not live
MRC_TIMEOUT=120 g a wait_until "a failed reconnect attempt" \
	nvmf_logged "$MARK" "Failed reconnect attempt"
g a nvmf_ctrl_state
g b nvmf_port_add
echo "port added again; waiting for the host to reconnect by itself"
MRC_TIMEOUT=180 g a wait_until "controller live again" nvmf_ctrl_is live
g a log_since "$MARK" | grep -E "nvme nvme[0-9]+: " | sed "s/^/    /" | tail -n 6 || true
g a nvmf_fio_bg_done "$FLOG" | nvmf_fio_check 64M
g a nvmf_fio 2 32M 32 | nvmf_fio_check 32M
g a nvmf_disconnect
echo "ok: 67-nvmeof-port-readd"
