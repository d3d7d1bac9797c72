#!/usr/bin/env bash
# Per-path telemetry: metaroce-top (BPF on the metaroce:mrc_path_ack,
# mrc_path_state and mrc_path_rx tracepoints) runs in both guests while
# ibv_rc_pingpong moves 50 checked 64 KiB messages each way over mrc0; a's
# table must show the client's QP with at least one path that sent packets
# (TX_PKTS > 0) and has an RTT estimate (SRTT_US > 0). Each QP both sends
# and receives, so each host has a sending and a receiving row per path:
# on each side the receiving rows' PLACED bytes add up to exactly the
# 50 x 64 KiB the peer sent, and against the peer's sending rows of the
# same QP pair, once the traffic ended: new packets received <= sent, >=
# sent - declared lost; new bytes beyond the placed ones (resends of data
# that had arrived after all) at most a jumbo payload per declared loss.
# A second pingpong runs while netem on a's egress marks CE on 30% of the
# metaroce datagrams to b (ECT ones; it drops that share of the others):
# b's receiving rows must count CE marks, no more than the packets they
# received, and exactly as many as a's sending rows say b echoed.
#
# Then metaroce-exporter serves in guest a while mrc_verbs_check streams
# verified WRITEs to b: scraped with curl, its page passes promtool (on the
# host), and
# the client QP's per-path packet counters and the device counters move
# and agree (sent <= tx_packets of the device, acked <= sent, acked paths
# > 0), and so do its byte counters (acked <= sent bytes, at most a jumbo
# frame's payload per packet); metaroce-top --json shows the QP, its byte
# rates and a recent max RTT at least its least RTT, and its receiving
# end (READ responses and b's SENDs): placed bytes, within the new bytes,
# in the page and in the document. The fault layer then drops every
# packet a sends on path 1's port: the path fails, and metaroce-top prints
# the state change (event ... -> failed) while the transfer completes.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

PORT=18780
VPORT=18781
CPORT=18782
TOPTOOL=$TOP/build/userspace/tools/metaroce-top/metaroce-top
EXPORTER=$TOP/build/userspace/tools/metaroce-top/metaroce-exporter
VTOOL=$TOP/build/userspace/tools/mrc_verbs_check
XLOG=/tmp/80-telemetry.exporter	# in guest a
VLOG=/tmp/80-telemetry.verbs	# in both guests
STOP=/tmp/80-telemetry.stop	# in guest a
SCRAPE=/tmp/80-telemetry.scrape	# in guest a
FAULT=/sys/kernel/debug/metaroce/mrc0/fault
TLOG=/tmp/80-telemetry.top	# in guest a: metaroce-top's output
SLOG=/tmp/80-telemetry.server	# in guest b

# ---------------------------------------------------------------- guest side
up() {
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

top_start() {
	[ -x "$TOPTOOL" ] || fail "no $TOPTOOL (make userspace needs clang, bpftool, libbpf)"
	rm -f "$TLOG" "$TLOG.pid"
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'echo $$ > "$0.pid"; exec timeout 600 "$1" -i 1 -s 120 > "$0" 2>&1' \
		"$TLOG" "$TOPTOOL" < /dev/null > /dev/null 2>&1 &
	wait_until "metaroce-top attached" grep -qs "attached to" "$TLOG"
}

tables_more_than() { [ "$(grep -c "path(s)" "$TLOG" || true)" -gt "$1" ]; }

# the newest complete table (header to footer) of metaroce-top's log
last_table() {
	awk '/^DEV /{ t = "" } { t = t $0 "\n" } /^-- /{ done = t } END { printf "%s", done }' "$TLOG"
}

# rx_sums QPN: the receiving rows of QPN: new packets, new bytes, placed
# bytes, duplicates, rows, CE marks
rx_sums() {
	last_table | awk -v q="$1" '$1 == "rx" && $2 == "mrc0" && $3 == q {
		p += $7; b += $8; pl += $9; d += $10; n++; ce += $13 }
		END { printf "%d %d %d %d %d %d\n", p, b, pl, d, n, ce }'
}

# tx_sums QPN: the sending rows of QPN: packets sent, declared lost, rows,
# CE marks the peer echoed
tx_sums() {
	last_table | awk -v q="$1" '$1 == "mrc0" && $2 == q { s += $11; l += $13; n++; ce += $16 }
		END { printf "%d %d %d %d\n", s, l, n, ce }'
}

# netem marks CE on ECT datagrams to metaroce's port, and only on those
# (band 4 of a prio qdisc that nothing else maps to)
ce_on() {
	tc qdisc add dev eth0 root handle 1: prio bands 4 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1
	tc qdisc add dev eth0 parent 1:4 handle 40: netem loss 30% ecn
	tc filter add dev eth0 parent 1: protocol ip prio 1 u32 \
		match ip protocol 17 0xff match ip dport 61791 0xffff flowid 1:4
}

ce_off() { tc qdisc del dev eth0 root 2>/dev/null || true; }

# a complete table after the traffic
top_wait() {
	local n
	n=$(grep -c "path(s)" "$TLOG" || true)
	wait_until "another metaroce-top table" tables_more_than "$((n + 1))"
}

# pid_stop LOG WHAT: ends the process whose id LOG.pid holds
pid_stop() {
	local pid
	pid=$(cat "$1.pid")
	kill "$pid" 2>/dev/null || true
	wait_until "$2 gone" test ! -e "/proc/$pid"
}

# check QPN: a row of DEV mrc0 and QPN (decimal) with TX_PKTS and SRTT_US > 0
top_check() {
	local qpn=$1
	echo "  $MRC_VM: metaroce-top, last table:"
	last_table | sed 's/^/    /'
	awk -v q="$qpn" '$1 == "mrc0" && $2 == q && $11 > 0 && $7 > 0 { f = 1 } END { exit !f }' \
		"$TLOG" || fail "no path of mrc0 QP $qpn with tx_pkts > 0 and srtt > 0"
}

# prints the server's QPN in decimal
server_qpn() {
	local qpn
	qpn=$(sed -n 's/.*local address:.*QPN 0x\([0-9a-fA-F]*\).*/\1/p' "$SLOG" | head -1)
	[ -n "$qpn" ] || fail "no local QPN in: $(cat "$SLOG")"
	echo $((16#$qpn))
}

# server [-p PORT] ARGS...
server() {
	local port=$PORT
	[ "$1" != -p ] || { port=$2; shift 2; }
	bg_run "$SLOG" 120 ibv_rc_pingpong -p "$port" -d mrc0 -g 1 -c "$@"
	wait_until "server listening on $port" tcp_listening "$port"
}

server_done() {
	MRC_TIMEOUT=130 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
}

# client [-p PORT] ARGS...: prints the client's QPN in decimal
client() {
	local out qpn port=$PORT
	[ "$1" != -p ] || { port=$2; shift 2; }
	out=$(timeout 120 ibv_rc_pingpong -p "$port" -d mrc0 -g 1 -c "$@" 10.0.0.2 2>&1) ||
		fail "client failed: $out"
	grep -q "iters in" <<<"$out" || fail "client printed no result"
	qpn=$(sed -n 's/.*local address:.*QPN 0x\([0-9a-fA-F]*\).*/\1/p' <<<"$out" | head -1)
	[ -n "$qpn" ] || fail "no local QPN in: $out"
	echo $((16#$qpn))
}

# ------------------------------------------- exporter, --json, a failed path
exporter_start() {
	[ -x "$EXPORTER" ] || fail "no $EXPORTER"
	rm -f "$STOP" "$XLOG" "$XLOG.pid"
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'echo $$ > "$0.pid"; exec timeout 300 "$1" --listen 127.0.0.1:9966 > "$0" 2>&1' \
		"$XLOG" "$EXPORTER" < /dev/null > /dev/null 2>&1 &
	wait_until "exporter serving" grep -qs "serving" "$XLOG"
}

vserver() {
	bg_run "$VLOG" 300 "$VTOOL" -d mrc0 -g 1 -p "$VPORT" -w 0
	wait_until "verbs server listening on $VPORT" tcp_listening "$VPORT"
}

vclient() {
	bg_run "$VLOG" 300 "$VTOOL" -d mrc0 -g 1 -p "$VPORT" -w 0 -V -T "$STOP" 10.0.0.2
}

# the verbs client's RC QP: driver attribute NAME of restrack, or its QPN
qp_attr() {
	rdma resource show qp link mrc0/1 -dd | awk -v n="$1" '
		/comm mrc_verbs_check/ && /type RC/ {
			on = 1
			for (i = 1; i < NF; i++) if ($i == "lqpn" && n == "qpn") { print $(i + 1); exit }
		}
		on { for (i = 1; i < NF; i++) { k = $i; sub(/^drv_/, "", k); if (k == n) { print $(i + 1); exit } } }'
}

acked_beyond() { [ "$(qp_attr p0_acked)" -gt "$1" ] 2>/dev/null; }

scrape() { hostrun curl -fsS --max-time 10 http://127.0.0.1:9966/metrics > "$SCRAPE.$1"; }

# sample FILE METRIC LABELS: the value, or nothing
sample() { awk -v m="$2{$3}" '$1 == m { print $2 }' "$1"; }

# the sum of METRIC over the paths of QPN in FILE
path_sum() {
	awk -v m="$2" -v q="qpn=\"$3\"" 'index($1, m "{") == 1 && index($1, q) { s += $2 } END { printf "%.0f\n", s }' "$1"
}

# scrape_check QPN: two scrapes while data moves; both valid, counters move
scrape_check() {
	local qpn=$1 s0 s1 t0 t1 a1 d0 d1 acked b0 b1 ab1 rb1 rp1
	scrape 0 || fail "first scrape failed"
	acked=$(qp_attr p0_acked)
	wait_until "more data on path 0" acked_beyond "$((acked + 256))"
	scrape 1 || fail "second scrape failed"
	# exactly one state of path 0 is 1 (congested is normal in a slow bed)
	[ "$(grep -c "^metaroce_path_state{dev=\"mrc0\",qpn=\"$qpn\",path=\"0\",state=\"[a-z]*\"} 1$" "$SCRAPE.1")" = 1 ] ||
		fail "path 0 of QP $qpn is not in exactly one state in the page"
	s0=$(path_sum "$SCRAPE.0" metaroce_path_sent_packets_total "$qpn")
	s1=$(path_sum "$SCRAPE.1" metaroce_path_sent_packets_total "$qpn")
	a1=$(path_sum "$SCRAPE.1" metaroce_path_acked_packets_total "$qpn")
	t0=$(sample "$SCRAPE.0" metaroce_device_tx_packets_total 'dev="mrc0"')
	t1=$(sample "$SCRAPE.1" metaroce_device_tx_packets_total 'dev="mrc0"')
	d0=$(sample "$SCRAPE.0" metaroce_device_acks_received_total 'dev="mrc0"')
	d1=$(sample "$SCRAPE.1" metaroce_device_acks_received_total 'dev="mrc0"')
	b0=$(path_sum "$SCRAPE.0" metaroce_path_sent_bytes_total "$qpn")
	b1=$(path_sum "$SCRAPE.1" metaroce_path_sent_bytes_total "$qpn")
	ab1=$(path_sum "$SCRAPE.1" metaroce_path_acked_bytes_total "$qpn")
	rb1=$(path_sum "$SCRAPE.1" metaroce_path_rx_bytes_total "$qpn")
	rp1=$(path_sum "$SCRAPE.1" metaroce_path_rx_placed_bytes_total "$qpn")
	echo "  a: QP $qpn paths sent $s0 -> $s1 (acked $a1); device tx_packets $t0 -> $t1, acks_received $d0 -> $d1"
	echo "  a: QP $qpn paths sent bytes $b0 -> $b1 (acked $ab1); received $rb1 new bytes, $rp1 placed"
	# READ responses and b's SENDs of the steps before the stream
	[ "$rp1" -gt 0 ] && [ "$rp1" -le "$rb1" ] || fail "placed bytes $rp1 against received bytes $rb1"
	[ "$b1" -gt "$b0" ] || fail "the paths' sent bytes did not move"
	[ "$ab1" -gt 0 ] && [ "$ab1" -le "$b1" ] || fail "acked bytes $ab1 against sent bytes $b1"
	[ "$b1" -le $((s1 * 9000)) ] && [ "$ab1" -le $((a1 * 9000)) ] ||
		fail "more than 9000 payload bytes a packet: sent $b1 in $s1, acked $ab1 in $a1"
	[ -n "$t1" ] && [ -n "$d1" ] || fail "no device counters in the page"
	[ "$s1" -gt "$s0" ] || fail "the paths' sent packets did not move"
	[ "$t1" -gt "$t0" ] && [ "$d1" -gt "$d0" ] || fail "the device counters did not move"
	# totals: the QP's paths since it began, the device's since it was added
	[ "$s1" -le "$t1" ] || fail "the QP's paths sent more ($s1) than the device ($t1)"
	[ "$a1" -le "$s1" ] && [ "$a1" -gt 0 ] || fail "acked $a1 against sent $s1"
}

json_has_qp() {
	"$TOPTOOL" --json -i 1 > "$SCRAPE.json" 2>/dev/null &&
		hostrun python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["connections"] if c["dev"] == "mrc0" and c["qpn"] == int(sys.argv[2])]
ok = c and c[0]["tx_pkts"] > 0 and c[0]["path"][0]["state"] in ("active", "congested", "probing", "failed")
p = c[0]["path"][0] if ok else {}
# the recent max RTT: of a sample within 2 s, so not below the least ever
ok = ok and p.get("tx_pps", 0) > 0 and p.get("tx_bytes_ps", 0) > 0
ok = ok and p["max_rtt_us"] >= p["min_rtt_us"] > 0 and p["rtt_us"] > 0
ok = ok and 0 < p["acked_bytes"] <= p["tx_bytes"] and c[0]["max_rtt_us"] >= p["max_rtt_us"]
# the receiving end: READ responses, once per round of the stream
x = c[0]["rx"] if ok else {}
ok = ok and x["paths"] >= 1 and 0 < x["placed_bytes"] <= x["rx_bytes"]
ok = ok and all(r["rx_pkts"] > 0 and r["acks"] > 0 for r in x["path"])
sys.exit(0 if ok else 1)
' "$SCRAPE.json" "$1"
}

path_failed_event() { grep -q "^event mrc0 qpn $1 path 1: .* -> failed" "$TLOG"; }

# path 1 may move to a new port on its own ([PATH-10]): keep the fault
# on its current one until metaroce-top reports the failure
aim_and_check() {
	local sport
	sport=$(qp_attr p1_sport)
	[ "${sport:-0}" -gt 0 ] || fail "no p1_sport"
	[ "$(cat "$FAULT/port")" = "$sport" ] || echo "$sport" > "$FAULT/port"
	path_failed_event "$1"
}

fail_path1() {
	local qpn=$1
	[ -d "$FAULT" ] || fail "no $FAULT"
	echo 1000000 > "$FAULT/drop_ppm"
	echo 2 > "$FAULT/mode"
	wait_until "metaroce-top shows path 1 failing" aim_and_check "$qpn"
	echo 0 > "$FAULT/mode"
	echo 0 > "$FAULT/port"
	echo "  a: dropped $(cat "$FAULT/dropped") packets of path 1; its events:"
	awk -v q="$qpn" '$2 == "mrc0" && $4 == q && $6 == "1:" && /failed|probing/ { print "    " $0; if (++n == 4) exit }' "$TLOG"
}

vdone() {
	touch "$STOP"
	MRC_TIMEOUT=300 wait_until "verbs check finished" test -e "$VLOG.rc"
	[ "$(cat "$VLOG.rc")" = 0 ] || fail "verbs check exit status $(cat "$VLOG.rc"): $(tail -5 "$VLOG")"
	grep -q "all steps passed" "$VLOG" || fail "verbs check did not pass every step"
}

case_guest_cleanup() {
	touch "$STOP"
	ce_off
	if [ -e "$FAULT/mode" ]; then echo 0 > "$FAULT/mode"; fi
	# their BPF programs hold the module: the next case could not unload it
	local f
	for f in "$XLOG" "$TLOG"; do
		[ ! -e "$f.pid" ] || pid_stop "$f" "${f##*/}"
	done
}

# ----------------------------------------------------------------- host side
case_main "$@"
# cross_check RX_VM RX_QPN TX_VM TX_QPN: the receiving rows of one end
# against the sending rows of the other, once the pingpong ended
cross_check() {
	local rp rb rpl rd rn rce tp tl tn tce want=$((50 * 65536))
	read -r rp rb rpl rd rn rce <<<"$(g "$1" rx_sums "$2")"
	read -r tp tl tn tce <<<"$(g "$3" tx_sums "$4")"
	echo "  $1: QP $2 received on $rn path(s) $rp new packets, $rb new bytes, $rpl placed, $rd duplicates;" \
		"$3: QP $4 sent $tp on $tn path(s), $tl declared lost"
	[ "$rn" -gt 0 ] && [ "$tn" -gt 0 ] || fail "no receiving rows of QP $2 on $1 or sending rows of QP $4 on $3"
	[ "$rpl" = "$want" ] || fail "$1 placed $rpl bytes on QP $2, the peer sent $want"
	[ "$rb" -ge "$rpl" ] || fail "$1: new bytes $rb below the placed $rpl"
	[ "$rp" -le "$tp" ] && [ "$((rp + tl))" -ge "$tp" ] ||
		fail "$1 received $rp new packets, $3 sent $tp with $tl declared lost"
	[ "$((rb - rpl))" -le "$((tl * 9000))" ] ||
		fail "$((rb - rpl)) new bytes not placed on $1, more than $tl resends carry"
}

for vm in a b; do
	g "$vm" up
done
for vm in a b; do
	g "$vm" top_start
done
g b server -s 65536 -n 50
qpn=$(g a client -s 65536 -n 50)
g b server_done
sqpn=$(g b server_qpn)
for vm in a b; do
	g "$vm" top_wait
done
g a top_check "$qpn"
g b top_check "$sqpn"
cross_check b "$sqpn" a "$qpn"
cross_check a "$qpn" b "$sqpn"

g a ce_on
g b server -p "$CPORT" -s 4096 -n 200
cqpn=$(g a client -p "$CPORT" -s 4096 -n 200)
g b server_done
g a ce_off
csqpn=$(g b server_qpn)
for vm in a b; do
	g "$vm" top_wait
done
read -r rp _ rpl rd rn rce <<<"$(g b rx_sums "$csqpn")"
read -r tp _ tn tce <<<"$(g a tx_sums "$cqpn")"
echo "  b: QP $csqpn received $rp new packets ($rd duplicates, $rpl bytes placed) on $rn path(s), $rce CE-marked;" \
	"a: QP $cqpn sent $tp on $tn path(s), $tce CE marks echoed"
[ "$rpl" = $((200 * 4096)) ] || fail "b placed $rpl bytes, a sent $((200 * 4096))"
[ "$rce" -gt 0 ] || fail "netem marked CE, b's receiving rows counted none"
[ "$rce" -le "$((rp + rd))" ] || fail "b counted $rce CE marks in $((rp + rd)) packets"
[ "$rce" = "$tce" ] || fail "b counted $rce CE marks, a's paths heard of $tce"

g a exporter_start
g b vserver
g a vclient
g a wait_until "the verbs stream runs" acked_beyond 256
vqpn=$(g a qp_attr qpn)
echo "  a: verbs client QP $vqpn"
g a scrape_check "$vqpn"
# promtool (Go) is too slow under TCG: the page is checked on the host
command -v promtool > /dev/null || fail "no promtool on the host (make deps: prometheus)"
g a cat "$SCRAPE.1" | promtool check metrics || fail "promtool rejects the exporter's page"
g a wait_until "metaroce-top --json shows QP $vqpn moving" json_has_qp "$vqpn"
g a fail_path1 "$vqpn"
g a vdone
g b vdone
g a pid_stop "$XLOG" metaroce-exporter
g a pid_stop "$TLOG" metaroce-top
g b pid_stop "$TLOG" metaroce-top
echo "ok: 80-telemetry"
