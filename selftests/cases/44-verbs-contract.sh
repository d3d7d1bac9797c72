#!/usr/bin/env bash
# The provider against the verbs contract (mrc_verbs_contract, on mrc0 in
# guest a, its two RC QPs connected to each other by loopback): posts to a
# QP that cannot take them (send before RTS, receive in RESET) and posts
# of more SGEs than the QP's caps fail with EINVAL at post time and never
# complete; ibv_create_cq_ex with the standard ibv_wc_read_*() accessors
# reads a SEND_WITH_IMM's receive completion (bytes compared), and refuses
# a field the ring does not carry; ibv_rereg_mr moves an MR to a new range
# (a WRITE lands there only), to another PD and back, and drops remote
# write (the WRITE fails with REM_ACCESS_ERR); ibv_resize_cq of a CQ
# holding three unpolled completions refuses 1 and keeps all three at 64;
# ibv_modify_srq grows a user SRQ of 4 holding three receives to 64 (they
# stay, 40 more are posted), refuses to shrink it below what is posted,
# and 43 SENDs land in posting order, every byte checked.
# The device's attributes are honest: vendor and part ID, firmware version
# (the uAPI's), max_msg_sz 2 GiB (a SEND one byte longer fails at post),
# CM and IP-based GIDs in the port capabilities, memory windows (max_mw
# 65536 of them allocate, one more fails with ENOMEM); two UC QPs
# connected to each other refuse RDMA READ and FETCH_ADD at post time
# (EINVAL, bad_wr) and carry a SEND and a WRITE with immediate, every
# byte compared ([OPS-41], [OPS-42]); and each advertised limit (max_cqe, max_qp_wr, max_sge, max_srq_wr,
# max_srq_sge, max_qp_rd_atom, max_qp_init_rd_atom) works at the limit and
# fails one past it.
# Over the IPv4 and IPv6 GID.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

TOOL=$TOP/build/userspace/tools/mrc_verbs_contract

case_main "$@"
loop_tool_case "$TOOL" 33 60
echo "ok: 44-verbs-contract"
