#!/usr/bin/env bash
# RDS over RDMA on metaroce: Debian's rds_rdma (RDS/IB) in both guests binds
# to mrc0 (eth0), and mrc_rds_check (userspace/tools/rds_check.cc) exchanges
# messages over AF_RDS sockets with the transport forced to RDS/IB (no
# fallback to RDS/TCP, which is not loaded either): guest a sends messages
# of 1 B .. 1 MiB (RDS's largest), each filled with its own pattern, guest
# b checks each one's length and bytes and sends it back, a checks the
# echo. RDS/IB's connection is rdma_cm's, its messages SENDs into
# pre-posted fragments (a 1 MiB message is 256 of them), flow-controlled
# by credits. Then RDS's RDMA operations: a maps a 1 MiB buffer for b
# with a message (RDS_CMSG_RDMA_MAP: a zero-based FRWR registration,
# ib_map_mr_sg_zbva, which NVMe-oF does not use, posted on the
# connection's QP; 6.1's RDS/IB refuses RDS_GET_MR and GET_MR_FOR_DEST on
# FRWR devices, EOPNOTSUPP), b RDMA WRITEs a pattern into it with a
# message that RDS delivers after the write, a checks it, b RDMA READs it
# back and checks it (RDS_CMSG_RDMA_ARGS, RDS_CMSG_RDMA_STATUS).
#   - 120 messages each way and 4 RDMA rounds, every byte verified
#   - mrc0's byte counters on a grew by at least the bytes moved each way,
#     no TCP
#   - 40 messages and 2 RDMA rounds with 1% of each guest's received
#     datagrams dropped
# bed-timeout: 240
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"
# shellcheck source=lib/kconsumer.bash
. "$(dirname "$0")/lib/kconsumer.bash"

TOOL=$TOP/build/userspace/tools/mrc_rds_check
PORT_B=18670
PORT_A=18671
LOG=/tmp/67-rds.echo

# ---------------------------------------------------------------- guest side
rds_up() {
	[ -x "$TOOL" ] || fail "no $TOOL (make userspace)"
	cm_up
	modprobe rds_rdma
	# rds_rdma is an ib_core client: it took mrc0 when it loaded
	log_since "mrc-case: begin $MRC_CASE" | grep -q "RDS/IB: mrc0: added" ||
		fail "RDS/IB did not take mrc0: $(log_since "mrc-case: begin $MRC_CASE" | grep RDS)"
}

# echo_start N R: the echo side for N messages and R RDMA rounds.
echo_start() {
	bg_run "$LOG" 200 "$TOOL" echo --bind "$SRV4" --port "$PORT_B" --count "$1" --rdma "$2"
	wait_until "the echo side bound to $SRV4:$PORT_B" grep -qs "^echo: bound" "$LOG"
}

echo_done() {
	MRC_TIMEOUT=120 wait_until "the echo side finished" test -e "$LOG.rc"
	sed -n '/^echo: [0-9]/p' "$LOG"
	[ "$(grep -c '^echo: [0-9].*all verified$' "$LOG")" = 2 ] || fail "echo side: $(cat "$LOG")"
	[ "$(cat "$LOG.rc")" = 0 ] || fail "echo side: $(cat "$LOG")"
}

client() {
	limited 180 "$TOOL" client --bind "$CLI4" --port "$PORT_A" --peer "$SRV4" \
		--peer-port "$PORT_B" --count "$1" --rdma "$2" || fail "mrc_rds_check client (exit $?)"
}

# The bytes the last run's messages moved each way ("N messages, B bytes").
moved() { sed -n 's/^echo: [0-9]* messages, \([0-9]*\) bytes.*/\1/p' "$LOG"; }

rds_down() {
	cm_kill mrc_rds_check
	# RDS/IB holds mrc0 while it is loaded
	modprobe -r rds_rdma rds 2>/dev/null || true
}

case_guest_cleanup() {
	[ -e "$FAULT/mode" ] && echo 0 > "$FAULT/mode"
	rds_down
}

# ----------------------------------------------------------------- host side
# exchange N R: N messages from a to b and back, then R RDMA rounds,
# verified on both sides
exchange() {
	g b echo_start "$1" "$2"
	g a client "$1" "$2"
	g b echo_done
}

case_main "$@"
g a rds_up &
g b rds_up &
wait -n && wait -n
g a stat_mark
exchange 120 4
bytes=$(g b moved)
read -r tx rx segs < <(g a stat_delta)
echo "mrc0 on a: $tx bytes sent, $rx received for $bytes bytes each way; $segs TCP segments"
[ "$tx" -ge "$bytes" ] || fail "mrc0 sent $tx bytes, less than the $bytes of the messages"
[ "$rx" -ge "$bytes" ] || fail "mrc0 received $rx bytes, less than the $bytes of the echoes"
[ "$segs" -lt 100 ] || fail "$segs TCP segments while RDS ran"

g a fault_set 10000 68
g b fault_set 10000 69
exchange 40 2
da=$(g a fault_dropped)
db=$(g b fault_dropped)
echo "1% loss: dropped $da on a, $db on b; retransmits on a: $(g a dev_stat mrc0 retransmits)"
[ "$da" -gt 0 ] || fail "nothing dropped on a"
[ "$db" -gt 0 ] || fail "nothing dropped on b"
g a fault_set 0
g b fault_set 0
g a rds_down
g b rds_down
echo "ok: 67-rds-rdma"
