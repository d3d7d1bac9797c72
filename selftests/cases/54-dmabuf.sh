#!/usr/bin/env bash
# Memory regions over a dma-buf: vgem dumb buffers exported with PRIME,
# filled and checked by the CPU through their mmap.
#
# One guest (mrc_dmabuf_check, on mrc0 in guest a, two RC QPs of it
# connected to each other by loopback): part of the buffer registered with
# ibv_reg_dmabuf_mr at an offset and an iova of its own; RDMA WRITE into
# it, READ from it, SEND into and out of it, FETCH_ADD and CMP_SWAP on it,
# every byte compared and the bytes around left untouched; each bad
# registration (an fd not open, one that is not a dma-buf, past the
# buffer's end, wrapping, length 0, iova page offset, access flags)
# refused with its errno; the MR alone keeps the dma-buf alive once every
# user handle is gone and dereg releases it (debugfs bufinfo); the old
# rkey then fails. Over the IPv4 and IPv6 GID.
#
# Two guests (mrc_verbs_check -D): both sides' 8 MiB buffers are dma-buf
# MRs; SEND 1 B to 1 MiB, WRITE, WRITE_WITH_IMM, READ and atomics between
# them, every received byte checked, then the bad-rkey error path.
# The harness checks the kernel logs afterwards.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

TOOL=$TOP/build/userspace/tools/mrc_dmabuf_check
VTOOL=$TOP/build/userspace/tools/mrc_verbs_check
PORT=18754
SLOG=/tmp/54-dmabuf.server	# in guest b: output, then .rc

# ---------------------------------------------------------------- guest side
peer_up() {
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

dmabuf_server() {
	bg_run "$SLOG" 150 "$VTOOL" -d mrc0 -g 1 -p "$PORT" -D
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

dmabuf_server_done() {
	MRC_TIMEOUT=160 wait_until "server finished" test -e "$SLOG.rc"
	grep -E '^(ok|fail) ' "$SLOG" | sed 's/^/  b: /'
	grep -q "server: all steps passed" "$SLOG" || fail "server: $(cat "$SLOG")"
}

dmabuf_client() {
	local out
	out=$(timeout 150 "$VTOOL" -d mrc0 -g 1 -p "$PORT" -D -w 256 10.0.0.2 2>&1) ||
		fail "client failed: $out"
	grep -E '^(ok|fail) ' <<<"$out" | sed 's/^/  a: /'
	grep -q "client: all steps passed" <<<"$out" || fail "client did not pass every step"
}

# ----------------------------------------------------------------- host side
case_main "$@"
g a modprobe vgem
g b modprobe vgem
loop_tool_case "$TOOL" 26 120
echo "two guests: mrc_verbs_check -D"
g b peer_up
g b dmabuf_server
g a dmabuf_client
g b dmabuf_server_done
echo "ok: 54-dmabuf"
