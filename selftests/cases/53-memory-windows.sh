#!/usr/bin/env bash
# Memory windows (mrc_mw_check, on mrc0 in guest a, two RC QPs of it
# connected to each other by loopback), over an MR that grants no remote
# right itself: a type 1 window bound by ibv_bind_mw and a type 2 window
# bound by a BIND_MW work request (and by ibv_wr_bind_mw()) carry WRITE,
# READ, FETCH_ADD and CMP_SWAP, every byte compared; a zero-based type 2
# window takes offsets (WRITE, READ, FETCH_ADD, the guards around it
# compared), refuses one past its end and an atomic whose offset is
# aligned but its address is not, and a type 1 window refuses the flag; each
# IB bind rule
# broken once completes with IBV_WC_MW_BIND_ERR and leaves the QP in ERR;
# each access rule broken once (past the window, a right it lacks, a type
# 2 rkey on another QP, a stale rkey, after LOCAL_INV, SEND_WITH_INV,
# unbind or dealloc) completes with IBV_WC_REM_ACCESS_ERR, the memory
# untouched; LOCAL_INV of what it may not invalidate fails; an MR with a
# window bound refuses dereg and rereg with EBUSY and deregisters once the
# window is gone. Over the IPv4 and IPv6 GID; the harness checks the
# kernel log afterwards.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

TOOL=$TOP/build/userspace/tools/mrc_mw_check

case_main "$@"
loop_tool_case "$TOOL" 43 120
echo "ok: 53-memory-windows"
