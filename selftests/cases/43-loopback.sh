#!/usr/bin/env bash
# Loopback ([ENC-17]): both ends in guest a, never through `lo` or a wire.
# mrc0 on eth0 talks to itself; mrcv0 and mrcv1, on the two ends of a veth
# pair in the same namespace, talk to each other (the veth only carries
# ib_core's ARP for the peer's MAC; accept_local lets an address of the
# host answer it). Over the IPv4 and the IPv6 GID:
#  - ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong, ibv_srq_pingpong,
#    every received buffer checked by the tool (-c), busy polling and with
#    events (-e);
#  - perftest: ib_write_bw -q 4, bidirectional (-b) ib_write_bw and
#    ib_send_bw, ib_read_bw -q 4, and over UC QPs (-c UC) ib_send_bw and
#    bidirectional ib_write_bw (result lines of both ends);
#  - rping through rdma_cm, the client validating every ping (-V) and the
#    host checking each printed one against rping's pattern, on one device
#    and, over IPv4, from mrcv0 (-I) to mrcv1 (over IPv6 rdma_cm refuses
#    a request whose source is another netdev's address of the same host:
#    validate_ipv6_net_dev() wants the route back to leave by the netdev
#    it came in on, for every RoCE device alike);
#  - mrc_verbs_check -V (SENDs 1 B to 1 MiB, WRITEs, READs, atomics, every
#    byte checked, the bad-rkey error path) on one device and across two.
# The devices' counters must show every datagram received by loopback
# (rx_loopback = rx_packets) and, once the QPs are quiet, every datagram
# the three sent (tx_packets) received by one of them (rx_packets): none
# went through the IP stack, none was lost uncounted.
# Before loopback existed every RC exchange here ended in retry exceeded.
# bed-timeout: 900
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"

PORT=18743
DEVS=(mrc0 mrcv0 mrcv1)
TOOL=$TOP/build/userspace/tools/mrc_verbs_check
SLOG=/tmp/43-loopback.server	# output, then .rc

# ---------------------------------------------------------------- guest side
lo_up() {
	[ -x "$TOOL" ] || fail "no $TOOL (make userspace)"
	modprobe -a ib_cm iw_cm rdma_cm rdma_ucm
	rdma link add mrc0 type metaroce netdev eth0
	ip link del vl0 2>/dev/null || true
	ip link add vl0 type veth peer name vl1
	ip addr add 10.9.0.1/24 dev vl0
	ip addr add 10.9.0.2/24 dev vl1
	ip addr add fd09::1/64 dev vl0 nodad
	ip addr add fd09::2/64 dev vl1 nodad
	local i
	for i in all vl0 vl1; do
		sysctl -qw "net.ipv4.conf.$i.accept_local=1"
	done
	ip link set vl0 up
	ip link set vl1 up
	rdma link add mrcv0 type metaroce netdev vl0
	rdma link add mrcv1 type metaroce netdev vl1
	for i in "${DEVS[@]}"; do
		wait_until "$i ACTIVE" port_is "$i" "4: ACTIVE"
	done
	wait_until "fd00::1 GID" gidx mrc0 fd00::1 >/dev/null
	wait_until "fd09::1 GID" gidx mrcv0 fd09::1 >/dev/null
	wait_until "fd09::2 GID" gidx mrcv1 fd09::2 >/dev/null
}

case_guest_cleanup() {
	cm_kill rping ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong \
		ib_write_bw ib_send_bw ib_read_bw mrc_verbs_check
	ip link del vl0 2>/dev/null || true
	for i in all vl0 vl1; do
		sysctl -qw "net.ipv4.conf.$i.accept_local=0" 2>/dev/null || true
	done
}

# gidx DEV ADDR: the GID index of an IPv4 or IPv6 address of DEV's netdev.
gidx() {
	if [[ $2 == *:* ]]; then
		gid_index "$1" "$(gid_of_ipv6 "$2")"
	else
		gid_index "$1" "$(gid_of_ipv4 "$2")"
	fi
}

# counters: "DEV tx_packets rx_packets rx_loopback tx_dropped rx_dropped"
# of every device, one a line.
counters() {
	local d
	for d in "${DEVS[@]}"; do
		rdma statistic show link "$d/1" | awk -v d="$d" '{
			for (i = 1; i < NF; i++) v[$i] = $(i + 1)
			print d, v["tx_packets"], v["rx_packets"], v["rx_loopback"],
				v["tx_dropped"], v["rx_dropped"] }'
	done
}

server_done() {
	MRC_TIMEOUT=160 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(tail -5 "$SLOG")"
}

# pp TYPE SDEV SADDR CDEV CADDR ARGS...: ibv_TYPE_pingpong, server on SDEV
# with the GID of SADDR, client on CDEV with CADDR's, buffers checked.
pp() {
	local t=$1 sdev=$2 sg cdev=$4 cg out
	sg=$(gidx "$sdev" "$3") || fail "no GID $3 on $sdev"
	cg=$(gidx "$cdev" "$5") || fail "no GID $5 on $cdev"
	shift 5
	bg_run "$SLOG" 150 "ibv_${t}_pingpong" -p "$PORT" -d "$sdev" -g "$sg" -c "$@"
	wait_until "server listening" tcp_listening "$PORT"
	out=$(timeout 150 "ibv_${t}_pingpong" -p "$PORT" -d "$cdev" -g "$cg" -c "$@" \
		127.0.0.1 2>&1) || fail "client failed: $out"
	server_done
	grep -q "iters in" "$SLOG" || fail "server printed no result"
	echo "$out" | grep "iters in" || fail "client printed no result: $out"
}

# pt TOOL SDEV CDEV SERVER SIZE ITERS ARGS...: perftest, both result lines.
pt() {
	local tool=$1 sdev=$2 cdev=$3 srv=$4 size=$5 iters=$6 out
	shift 6
	bg_run "$SLOG" 150 "$tool" -d "$sdev" -x 1 -F -p "$PORT" -s "$size" -n "$iters" "$@"
	wait_until "$tool server listening" tcp_listening "$PORT"
	out=$(timeout 150 "$tool" -d "$cdev" -x 1 -F -p "$PORT" -s "$size" -n "$iters" "$@" \
		"$srv" 2>&1) || fail "$tool client failed: $out"
	server_done
	grep -Eq "^ *$size +[0-9]+ " "$SLOG" || fail "server printed no result: $(cat "$SLOG")"
	echo "$out" | grep -E "^ *$size +[0-9]+ " || fail "$tool printed no result: $out"
}

# rp ADDR SIZE COUNT [CLIENT ARGS...]: rping; the client's pings on stdout.
rp() {
	local addr=$1 size=$2 count=$3 rc=0
	shift 3
	cm_server "$SLOG" "$PORT" rping -s -a "$addr" -p "$PORT" -C "$count" -S "$size"
	timeout 120 rping -c "$@" -a "$addr" -p "$PORT" -v -V -C "$count" -S "$size" \
		2> /tmp/43-rping.err || rc=$?
	# rping may lose its exit race after a good run (see 60-rping-verify)
	if [ $rc != 0 ] && ! { [ $rc = 255 ] &&
		grep -q "rdma_get_cm_event: Bad file descriptor" /tmp/43-rping.err; }; then
		fail "rping client failed ($rc): $(cat /tmp/43-rping.err)"
	fi
	MRC_TIMEOUT=130 wait_until "rping server finished" test -e "$SLOG.rc"
}

# vc SDEV SADDR CDEV CADDR: mrc_verbs_check, every byte checked (-V).
vc() {
	local sg cg out
	sg=$(gidx "$1" "$2") || fail "no GID $2 on $1"
	cg=$(gidx "$3" "$4") || fail "no GID $4 on $3"
	bg_run "$SLOG" 300 "$TOOL" -d "$1" -g "$sg" -p "$PORT" -V
	wait_until "server listening" tcp_listening "$PORT"
	out=$(timeout 300 "$TOOL" -d "$3" -g "$cg" -p "$PORT" -V "$2" 2>&1) ||
		fail "client failed: $out"
	server_done
	grep -q "server: all steps passed" "$SLOG" || fail "server: $(cat "$SLOG")"
	grep -q "client: all steps passed" <<<"$out" || fail "client: $out"
	[ "$(grep -c '^ok send-sender' <<<"$out")" -eq 8 ] || fail "not every SEND size checked"
	grep -q '^ok write-sender' <<<"$out" || fail "WRITE not checked on both sides"
	echo "  verbs check $3 -> $1: $(grep -c '^ok ' <<<"$out") client steps ok"
}

# ----------------------------------------------------------------- host side
case_main "$@"
g a lo_up
before=$(g a counters)

echo "ibv_*_pingpong, one device and two"
g a pp rc mrc0 10.0.0.1 mrc0 10.0.0.1 -s 1 -n 50
g a pp rc mrc0 10.0.0.1 mrc0 10.0.0.1 -s 65536 -n 10
g a pp rc mrc0 10.0.0.1 mrc0 10.0.0.1 -s 1048576 -n 3
g a pp rc mrc0 10.0.0.1 mrc0 10.0.0.1 -e -s 4096 -n 20
g a pp rc mrc0 fd00::1 mrc0 fd00::1 -s 65536 -n 10
g a pp rc mrcv0 10.9.0.1 mrcv1 10.9.0.2 -s 65536 -n 10
g a pp rc mrcv0 fd09::1 mrcv1 fd09::2 -e -s 4096 -n 20
g a pp uc mrc0 10.0.0.1 mrc0 10.0.0.1 -s 65536 -n 10
g a pp uc mrc0 fd00::1 mrc0 fd00::1 -e -s 4096 -n 20
g a pp uc mrcv0 10.9.0.1 mrcv1 10.9.0.2 -s 1 -n 50
g a pp ud mrc0 10.0.0.1 mrc0 10.0.0.1 -s 1024 -n 50
g a pp ud mrc0 fd00::1 mrc0 fd00::1 -e -s 512 -n 20
g a pp ud mrcv0 10.9.0.1 mrcv1 10.9.0.2 -s 1024 -n 50
g a pp ud mrcv1 fd09::2 mrcv0 fd09::1 -s 1 -n 20
g a pp srq mrc0 10.0.0.1 mrc0 10.0.0.1 -s 4096 -n 50
g a pp srq mrcv0 10.9.0.1 mrcv1 10.9.0.2 -s 4096 -n 50

echo "perftest"
g a pt ib_write_bw mrc0 mrc0 10.0.0.1 65536 100 -q 4
g a pt ib_write_bw mrc0 mrc0 10.0.0.1 65536 100 -b
g a pt ib_send_bw mrcv0 mrcv1 10.9.0.1 65536 100 -b
g a pt ib_read_bw mrcv1 mrcv0 10.9.0.2 16384 50 -q 4 -o 4
g a pt ib_send_bw mrc0 mrc0 10.0.0.1 65536 100 -c UC
g a pt ib_write_bw mrcv0 mrcv1 10.9.0.1 65536 100 -c UC -b

# check SIZE COUNT < client output: COUNT pings, each exactly rping's pattern
check() {
	python3 -c '
import sys
size, count = int(sys.argv[1]), int(sys.argv[2])
pings = [l.rstrip("\n") for l in sys.stdin if l.startswith("ping data: ")]
assert len(pings) == count, "%d pings printed" % len(pings)
for n, l in enumerate(pings):
    head = "rdma-ping-%d: " % n
    data = l[len("ping data: "):]
    assert data.startswith(head), l[:40]
    want, c = [], 65 + n % 58
    for _ in range(size - 1 - len(head)):
        want.append(chr(c))
        c = 65 if c == 122 else c + 1
    assert data[len(head):] == "".join(want), "ping %d differs" % n
print("ok %d pings of %d bytes" % (len(pings), size))
' "$1" "$2"
}

echo "rping (rdma_cm)"
for run in 10.0.0.1,4096,10, 10.0.0.1,60000,5, fd00::1,4096,10, \
	10.9.0.2,4096,10,10.9.0.1 10.9.0.2,60000,5,10.9.0.1 fd09::2,4096,10,; do
	IFS=, read -r addr size count src <<< "$run"
	out=$(g a rp "$addr" "$size" "$count" ${src:+-I "$src"})
	echo "$out" | check "$size" "$count" | sed "s/\$/ to $addr${src:+ from $src}/"
done

echo "mrc_verbs_check -V"
g a vc mrc0 10.0.0.1 mrc0 10.0.0.1
g a vc mrcv0 10.9.0.1 mrcv1 10.9.0.2

# every datagram by loopback, and every one sent received
balanced() {
	local now
	now=$(g a counters)
	python3 -c '
import sys
def parse(s):
    return {l.split()[0]: [int(x) for x in l.split()[1:]] for l in s.splitlines()}
b, n = parse(sys.argv[1]), parse(sys.argv[2])
d = {k: [y - x for x, y in zip(b[k], n[k])] for k in b}
tx = sum(v[0] for v in d.values())
rx = sum(v[1] for v in d.values())
for k, (t, r, lo, td, rd) in sorted(d.items()):
    print("  %s: tx %d rx %d rx_loopback %d tx_dropped %d rx_dropped %d"
          % (k, t, r, lo, td, rd), file=sys.stderr)
    assert r > 0 and lo == r, "%s: %d received, %d by loopback" % (k, r, lo)
assert tx == rx, "%d datagrams sent, %d received" % (tx, rx)
' "$before" "$now"
}
quiet_balanced() { balanced 2>/dev/null; }
MRC_TIMEOUT=60 wait_until "every datagram sent received" quiet_balanced
balanced
echo "ok: 43-loopback"
