# shellcheck shell=bash
# Helpers for the RDMA CM cases (selftests/cases/6*-*.sh): a metaroce device
# on eth0 in both guests, the CM modules, servers started detached with their
# output and exit status in files, and "listening" read from the kernel's
# cm_id table instead of a sleep. rdma_cm reaches the peer through QP1 (UD
# datagrams, kernel/ud.c), then connects RC QPs.
#
# MRC_CM_DEV / MRC_CM_TYPE / MRC_CM_NETDEV / MRC_CM_NET (first three octets
# of the link's IPv4 subnet, e.g. 10.0.1) / MRC_CM_NET6 (e.g. fd00:1::)
# run the same steps over another device, link type or link.
# shellcheck source=selftests/cases/lib/link.bash
. "$(dirname "${BASH_SOURCE[0]}")/link.bash"

# shellcheck disable=SC2034 # used by the cases that source this file
DEV=${MRC_CM_DEV:-mrc0}
TYPE=${MRC_CM_TYPE:-metaroce}
NETDEV=${MRC_CM_NETDEV:-eth0}
NET4=${MRC_CM_NET:-10.0.0}
NET6=${MRC_CM_NET6:-fd00::}
# shellcheck disable=SC2034
SRV4=$NET4.2 CLI4=$NET4.1 SRV6=${NET6}2 CLI6=${NET6}1

# ---------------------------------------------------------------- guest side
cm_up() {
	modprobe -a ib_cm iw_cm rdma_cm rdma_ucm
	rdma link show "$DEV/1" >/dev/null 2>&1 ||
		rdma link add "$DEV" type "$TYPE" netdev "$NETDEV"
	wait_until "$DEV ACTIVE" port_is "$DEV" "4: ACTIVE"
}

# cm_listening PORT: some process listens on PORT through rdma_cm.
cm_listening() {
	rdma resource show cm_id | grep -q "state LISTEN .*:$1 "
}

# cm_server LOG PORT CMD...: run CMD detached (output in LOG, exit status in
# LOG.rc) and return once it listens on PORT.
cm_server() {
	local log=$1 port=$2
	shift 2
	bg_run "$log" 120 "$@"
	MRC_TIMEOUT=60 wait_until "server listening on $port" cm_listening "$port"
}

# cm_server_done LOG: the server exited 0; its output on stdout.
cm_server_done() {
	MRC_TIMEOUT=130 wait_until "server finished" test -e "$1.rc"
	cat "$1"
	[ "$(cat "$1.rc")" = 0 ] || fail "server exit status $(cat "$1.rc")"
}

# A server a failed case left behind must not hold its port.
cm_kill() {
	local p
	for p in $(pidof "$@"); do
		kill "$p" 2>/dev/null
	done
	return 0
}
