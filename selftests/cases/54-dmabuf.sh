#!/usr/bin/env bash
# Memory regions over a dma-buf (mrc_dmabuf_check, on mrc0 in guest a, two
# RC QPs of it connected to each other by loopback): a vgem dumb buffer
# exported with PRIME, filled and checked by the CPU through its mmap,
# registered with ibv_reg_dmabuf_mr at an offset and an iova of its own;
# RDMA WRITE into it, READ from it, SEND into and out of it, FETCH_ADD and
# CMP_SWAP on it, every byte compared and the bytes around left untouched;
# each bad registration (an fd not open, one that is not a dma-buf, past
# the buffer's end, wrapping, length 0, iova page offset, access flags)
# refused with its errno; the MR alone keeps the dma-buf alive once every
# user handle is gone and dereg releases it (debugfs bufinfo); the old rkey
# then fails. Over the IPv4 and IPv6 GID; the harness checks the kernel log
# afterwards.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

TOOL=$TOP/build/userspace/tools/mrc_dmabuf_check

case_main "$@"
g a modprobe vgem
loop_tool_case "$TOOL" 26 120
echo "ok: 54-dmabuf"
