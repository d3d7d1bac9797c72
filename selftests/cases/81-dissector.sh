#!/usr/bin/env bash
# The Wireshark dissector (userspace/tools/wireshark/metaroce.lua) on live
# traffic of this build: tcpdump in guest b captures eth0 (snap length
# 400: headers whole, small packets and MADs whole, ICRCs of those checked)
# while
#  - mrc_verbs_check runs every RC operation (SEND and SEND_WITH_IMM 1 B to
#    1 MiB, WRITE, WRITE_WITH_IMM, READ, FETCH_ADD, CMP_SWP) and ends in a
#    bad rkey (NAK ACCESS); 1 MiB messages over 4 paths draw ACK bundles;
#  - ib_write_bw, ib_read_bw and ib_atomic_bw move small messages, which
#    leave in packet bundles when a path has several to send at once;
#  - ibv_ud_pingpong sends UD datagrams (UD_SEND);
#  - rdma_server / rdma_client connect through the CM (MADs on QP1,
#    which the dissector hands to Wireshark's InfiniBand dissector);
#  - guest b drops 3% of what it receives (the fault layer, seeded) under
#    ibv_rc_pingpong, so guest a resends (RETX);
#  - guest a sends a PROBE, a NAK and an ACK bundle to QP1 with
#    selftests/lib/mrc-datagram.py: the module sends no PROBE ([PKT-76]).
# On the host, check-dissector (tshark with the dissector) must decode
# every datagram exactly as the protocol core's parser does (mrc_pcap
# expect), every packet valid and no ICRC bad, no Lua error, no malformed
# frame, and every kind above present. When tcpdump dropped nothing, the
# capture also holds exactly the datagrams both devices counted as sent
# (tx_packets) plus the three injected, and no more ACK bundles, packet
# bundles and resent packets than they counted. A wire change that
# forgets the dissector fails here. The capture stays in
# .cache/wireshark/81-dissector.pcap (userspace/tools/wireshark/README.md:
# how golden/bed-traffic.pcap is cut from it).
# On a loaded host it took up to 464 s (10248 datagrams to check):
# bed-timeout: 900
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"
# shellcheck source=lib/pingpong.bash
. "$(dirname "$0")/lib/pingpong.bash"
# shellcheck source=lib/perftest.bash
. "$(dirname "$0")/lib/perftest.bash"

PORT=18810
TOOL=$TOP/build/userspace/tools/mrc_verbs_check
WS=$TOP/userspace/tools/wireshark
MRC_PCAP=$TOP/build/userspace/tools/wireshark/mrc_pcap
CAP=/tmp/81-dissector.pcap	# in guest b; tcpdump's output in $CAP.log
SLOG=/tmp/81-dissector.server	# in guest b
HOST_CAP=$TOP/.cache/wireshark/81-dissector.pcap
FAULT=/sys/kernel/debug/metaroce/mrc0/fault
INJECTED=3			# datagrams mrc-datagram.py sends, one an ACK bundle
PP_DEV=mrc0
PP_ADDR=10.0.0.2
PT_ARGS=(-d mrc0 -x 1 -F)

# ---------------------------------------------------------------- guest side
up() {
	[ -x "$TOOL" ] || fail "no $TOOL (make userspace)"
	cm_up
}

capture_start() {
	rm -f "$CAP"
	# -Z root: the initramfs has no tcpdump user; -B: 16 MiB, no drops
	bg_run "$CAP.log" 500 tcpdump -Z root -i eth0 -n -s 400 -B 16384 -U -w "$CAP" udp
	wait_until "tcpdump listening" grep -qs "listening on eth0" "$CAP.log"
}

capture_stop() {
	local p
	for p in $(pidof tcpdump); do
		kill -INT "$p"
	done
	wait_until "tcpdump finished" test -e "$CAP.log.rc"
	grep -E "captured|dropped" "$CAP.log"
}

# counters: "tx_packets ack_bundles tx_bundles retransmits" of mrc0
counters() {
	rdma statistic show link mrc0/1 | awk '{
		for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		print v["tx_packets"], v["ack_bundles"], v["tx_bundles"], v["retransmits"] }'
}

vc_server() {
	bg_run "$SLOG" 200 "$TOOL" -d mrc0 -g 1 -p "$PORT"
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

vc_server_done() {
	MRC_TIMEOUT=210 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
	grep -q "server: all steps passed" "$SLOG" || fail "server did not pass every step"
}

vc_client() {
	local out
	out=$(timeout 200 "$TOOL" -d mrc0 -g 1 -p "$PORT" -w 0 10.0.0.2 2>&1) ||
		fail "client failed: $out"
	grep -q "client: all steps passed" <<<"$out" || fail "client did not pass every step: $out"
	echo "  mrc_verbs_check: $(grep -c '^ok ' <<<"$out") steps passed"
}

ud_server() {
	bg_run "$SLOG" 120 ibv_ud_pingpong -d mrc0 -g 1 -p "$PORT" -s 512 -n 20 -c
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

ud_client() {
	local out
	out=$(timeout 120 ibv_ud_pingpong -d mrc0 -g 1 -p "$PORT" -s 512 -n 20 -c 10.0.0.2 2>&1) ||
		fail "client failed: $out"
	grep -q "^20 iters in" <<<"$out" || fail "no '20 iters in': $out"
	echo "  ibv_ud_pingpong: $(tail -1 <<<"$out")"
}

ud_server_done() {
	MRC_TIMEOUT=130 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
}

cm_server_start() { cm_server "$SLOG" "$PORT" rdma_server -s "$SRV4" -p "$PORT"; }

cm_client() {
	local out
	out=$(timeout 60 rdma_client -s "$SRV4" -p "$PORT" 2>&1) || fail "client failed: $out"
	grep -q "rdma_client: end 0" <<<"$out" || fail "client did not end 0: $out"
	echo "  rdma_client: end 0"
}

cm_server_end() {
	cm_server_done "$SLOG" > /dev/null
	grep -q "rdma_server: end 0" "$SLOG" || fail "server did not end 0"
}

fault_on() {
	[ -d "$FAULT" ] || fail "no $FAULT (debugfs mounted? DEBUG_FS?)"
	echo 81 > "$FAULT/seed"
	echo 30000 > "$FAULT/drop_ppm"
	echo 1 > "$FAULT/mode"
}

fault_off() {
	local dropped
	dropped=$(cat "$FAULT/dropped")
	echo 0 > "$FAULT/mode"
	echo 0 > "$FAULT/drop_ppm"
	echo "  b dropped $dropped received packets"
	[ "$dropped" -gt 0 ] || fail "the fault layer dropped nothing"
}

inject() {
	hostrun python3 "$TOP/selftests/lib/mrc-datagram.py" 10.0.0.2 probe:1 nak:1 ack:1:2 |
		sed 's/^/  /'
}

case_guest_cleanup() {
	cm_kill tcpdump mrc_verbs_check ibv_ud_pingpong ibv_rc_pingpong rdma_server \
		ib_write_bw ib_read_bw ib_atomic_bw
	[ ! -e "$FAULT/mode" ] || echo 0 > "$FAULT/mode"
}

# ----------------------------------------------------------------- host side
case_main "$@"
command -v tshark >/dev/null || fail "no tshark on the host (make deps)"
[ -x "$MRC_PCAP" ] || fail "no $MRC_PCAP (make userspace)"
for vm in a b; do
	g "$vm" up
done
read -r a_tx0 a_ackb0 a_pb0 a_re0 < <(g a counters)
read -r b_tx0 b_ackb0 b_pb0 b_re0 < <(g b counters)
g b capture_start

echo "every RC operation, a bad rkey (NAK)"
g b vc_server
g a vc_client
g b vc_server_done
echo "perftest, small messages"
pt_run ib_write_bw $((PORT + 1)) 64 500
pt_run ib_read_bw $((PORT + 2)) 64 100 -o 4
pt_run ib_atomic_bw $((PORT + 3)) 8 100
echo "UD datagrams"
g b ud_server
g a ud_client
g b ud_server_done
echo "a connection through the CM (MADs on QP1)"
g b cm_server_start
g a cm_client
g b cm_server_end
echo "ibv_rc_pingpong, 3% lost on the way to b"
g b fault_on
pp_run -s 65536 -n 10
g b fault_off
echo "a PROBE, a NAK and an ACK bundle from mrc-datagram.py"
g a inject

read -r a_tx1 a_ackb1 a_pb1 a_re1 < <(g a counters)
read -r b_tx1 b_ackb1 b_pb1 b_re1 < <(g b counters)
stats=$(g b capture_stop)
while read -r line; do
	echo "  tcpdump: $line"
done <<<"$stats"
mkdir -p "${HOST_CAP%/*}"
"$BED" pull b "$CAP" "$HOST_CAP"

echo "the dissector on $(du -k "$HOST_CAP" | cut -f1) KiB of capture"
# the kernel's source ports may be ports tshark gives other protocols
# (EOBI's 56000-59533): the strict heuristic goes first
"$WS/check-dissector" --lua "$WS/metaroce.lua" --mrc-pcap "$MRC_PCAP" --clean \
	--heuristic-first --print-counts "$HOST_CAP.counts" \
	--need SEND --need WRITE --need READ_REQ --need READ_RESP --need ATOMIC \
	--need ATOMIC_RESP --need ACK --need NAK --need PROBE --need UD_SEND \
	--need "ACK bundles" --need RETX --min-frames 1000 "$HOST_CAP" ||
	fail "the dissector does not show the capture as the reference parser reads it"

# count NAME: a count check-dissector wrote, 0 if absent
count() { sed -n "s/^$1 \([0-9]*\)\$/\1/p" "$HOST_CAP.counts" | grep . || echo 0; }
sent=$((a_tx1 - a_tx0 + b_tx1 - b_tx0 + INJECTED))
if grep -q "^0 packets dropped by kernel" <<<"$stats"; then
	[ "$(count datagrams)" = "$sent" ] ||
		fail "$(count datagrams) MetaRoCE datagrams captured, the devices sent $sent"
	[ "$(count "ACK bundles")" -le $((a_ackb1 - a_ackb0 + b_ackb1 - b_ackb0 + 1)) ] ||
		fail "more ACK bundles captured than sent"
	pbundles=$((a_pb1 - a_pb0 + b_pb1 - b_pb0))
	[ "$(count "packet bundles")" -le "$pbundles" ] ||
		fail "more packet bundles captured than sent"
	[ "$pbundles" = 0 ] || [ "$(count "packet bundles")" -gt 0 ] ||
		fail "$pbundles packet bundles sent, none captured"
	[ "$(count RETX)" -le $((a_re1 - a_re0 + b_re1 - b_re0)) ] ||
		fail "more resent packets captured than resent"
	echo "  $sent datagrams sent, all captured and decoded; $pbundles packet bundles sent"
else
	echo "  tcpdump dropped packets: the counts are not compared"
fi
echo "ok: 81-dissector"
