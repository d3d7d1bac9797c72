#!/usr/bin/env bash
# NVMe over Fabrics on metaroce: nvmet-rdma in guest b exports a null_blk
# namespace (1) and a loop-device namespace (2), nvme-rdma in guest a finds
# them with `nvme discover` and attaches them with `nvme connect -t rdma`.
# This drives the kernel verbs consumers use and userspace does not: fast
# registration (IB_WR_REG_MR), remote invalidation (SEND_WITH_INV) and
# LOCAL_INV, RDMA READ and WRITE from the target into the host's MRs,
# inline data, and rdma_cm with private data.
#   - fio random writes of 4 KiB..1 MiB blocks, each with its crc32c,
#     then all read back and verified, at queue depth 1 and 32, on both
#     namespaces (a few MiB each: the full size runs in selftests/long/)
#   - ext4 made on namespace 2, files copied in, a disconnect and a
#     reconnect, the files compared with their checksums
#   - nvme disconnect
# bed-timeout: 420
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"
# shellcheck source=lib/nvmeof.bash
. "$(dirname "$0")/lib/nvmeof.bash"

case_guest_cleanup() {
	case $MRC_VM in
	a) nvmf_host_down ;;
	b) nvmf_target_down ;;
	esac
}

# ----------------------------------------------------------------- host side
case_main "$@"
g b nvmf_target_up 64 64
g a nvmf_host_up
g a nvmf_discover
g a nvmf_connect

for ns in 1 2; do
	for qd in 1 32; do
		g a nvmf_fio "$ns" 4M "$qd" | nvmf_fio_check 4M
	done
done

g a nvmf_fs_fill 2
g a nvmf_disconnect
g a nvmf_connect
g a nvmf_fs_check 2
g a nvmf_disconnect
echo "ok: 65-nvmeof"
