#!/usr/bin/env bash
# bed: --links 2
# bed-timeout: 900
# Planes ([PATH-8]) and negotiation in band ([PKT-92]..[PKT-95]) between
# the guests over two links, each its own subnet and QEMU link: eth0
# (10.0.0.x, plane 0, the device's netdev) and eth1 (10.0.1.x, plane 1).
#
#  1. /sys/class/infiniband/mrc0/planes: "add eth1" on both guests lists
#     it as plane 1 with its address; every bad write fails with its errno
#     and changes nothing (a netdev that does not exist, the device's own
#     netdev, a plane twice, "del" of plane 0 or of a netdev that is no
#     plane, a verb that is neither add nor del, a fifth plane, another
#     device's netdev); a plane's netdev that goes away takes the plane,
#     and a plane cannot become another device's netdev or plane.
#  2. One RC connection set up by hand (mrc_verbs_check exchanges QP
#     numbers and PSNs over TCP, as most verbs applications do) streams
#     verified data: each guest's HELLO is answered and both use 2 planes
#     (restrack: planes 2, hello_answered 1); both planes carry data
#     (restrack planeN_tx on a, planeN_rx on b, and eth1's own netdev
#     counters on both guests).
#  3. Plane 1's link is cut on both ends (QEMU set_link l1 off) while the
#     stream runs: both ends see their carrier go and fail the paths on
#     plane 1 for their link, or keep them failed if their silence failed
#     them first (the carrier's news may take a second: linkwatch)
#     ([PATH-8]: state failed, the device counter path_link_fails),
#     4 MiB more are acknowledged over plane 0 alone, no QP error, and the
#     paths wait for the link (still failed after those 4 MiB: no probe
#     goes into a link that is down). The link comes back: the paths move
#     and a PROBE REQ is answered (probes_proved grows), plane 1 carries
#     data again (b receives on it), the stream goes on.
#  3b. Plane 1 black-holed both ways at a, links up (tc drops at eth1's
#     ingress and egress: nobody sees it): its paths fail by silence
#     ([PATH-5]), 4 MiB more over plane 0 alone, no QP error; meanwhile
#     plane 1's paths are proven by PROBE REQs, not data ([PATH-4]:
#     probes_sent grows). The hole closes: a REQ is answered, plane 1
#     carries data again.
#  4. The stream ends with every byte checked on the side that received it.
#  5. Interop: b without plane 1 (del eth1): the connection negotiates but
#     uses 1 plane, nothing leaves a by eth1; b as an end that predates
#     HELLO (hello=0: it drops HELLOs as an unknown type): a's OFFERs stay
#     unanswered, 1 plane, no error; a as an end that takes no bundles
#     (ack_bundles=0: its packets never say BUNDLES, [PKT-30]): b, which
#     bundled its ACKs toward a in steps 2-4 (b's ack_bundles grew), sends
#     it none (b's ack_bundles and tx_bundles and a's rx_bundles stay).
#     Every run's data checked.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

PORT=18752
TOOL=$TOP/build/userspace/tools/mrc_verbs_check
SLOG=/tmp/52-planes.server	# guest b
CLOG=/tmp/52-planes.client	# guest a
STOP=/tmp/52-planes.stop	# guest a
PARAM=/sys/module/metaroce/parameters/hello

# ---------------------------------------------------------------- guest side
up() {
	[ -x "$TOOL" ] || fail "no $TOOL (make userspace)"
	rm -f "$STOP"
	echo 1 > "$PARAM"
	ip link set eth1 up
	rdma link add mrc0 type metaroce netdev eth0
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

# planes_write WORDS: the write's error message, empty if it succeeded
planes_write() {
	{ echo "$*" > "$IB/mrc0/planes"; } 2>&1 | sed 's/.*: //' || true
}

# expect_refused WORDS ERRSTR: the write fails with ERRSTR, planes unchanged
expect_refused() {
	local before after err
	before=$(cat "$IB/mrc0/planes")
	err=$(planes_write "$1")
	[ "$err" = "$2" ] || fail "\"$1\": \"$err\", expected \"$2\""
	after=$(cat "$IB/mrc0/planes")
	[ "$before" = "$after" ] || fail "\"$1\" changed the planes: $after"
	echo "  $MRC_VM: \"$1\" refused: $err"
}

add_plane() {
	local n=${MRC_VM/a/1}
	n=${n/b/2}
	[ -z "$(planes_write add eth1)" ] || fail "add eth1 failed"
	grep -qx "0 eth0 up 10.0.0.$n fd00::$n" "$IB/mrc0/planes" ||
		fail "plane 0: $(cat "$IB/mrc0/planes")"
	grep -qx "1 eth1 up 10.0.1.$n fd00:1::$n" "$IB/mrc0/planes" ||
		fail "plane 1: $(cat "$IB/mrc0/planes")"
	# rdma link show keeps naming the device's own netdev
	[ "$(link_line mrc0)" = "link mrc0/1 state ACTIVE physical_state LINK_UP netdev eth0" ] ||
		fail "rdma link show: $(link_line mrc0)"
}

bad_writes() {
	expect_refused "add nosuchdev0" "No such device"
	expect_refused "add eth0" "File exists"
	expect_refused "add eth1" "File exists"
	expect_refused "del eth0" "Invalid argument"
	expect_refused "del lo" "No such file or directory"
	expect_refused "swap eth1" "Invalid argument"
	expect_refused "add" "Invalid argument"
}

# a fifth plane, another device's netdev, a plane as another device's
# netdev or plane, and planes whose netdevs go away (veth pairs)
busy_and_full() {
	local n
	for n in vq vr; do
		ip link add "${n}0" type veth peer name "${n}1"
	done
	[ -z "$(planes_write add vq0)" ] || fail "add vq0 failed"
	[ -z "$(planes_write add vq1)" ] || fail "add vq1 failed"
	expect_refused "add vr0" "No space left on device"
	rdma link add mrc1 type metaroce netdev vr0
	[ "$( { echo add vq0 > "$IB/mrc1/planes"; } 2>&1 | sed 's/.*: //' || true)" = \
	  "Device or resource busy" ] || fail "mrc1 took mrc0's plane"
	[ -z "$(planes_write del vq1)" ] || fail "del vq1 failed"
	expect_refused "add vr0" "Device or resource busy"
	! rdma link add mrc2 type metaroce netdev vq0 2>/dev/null ||
		fail "a device was made on mrc0's plane"
	rdma link del mrc1
	ip link del vq0
	ip link del vr0
	! grep -q vq "$IB/mrc0/planes" || fail "vq0 still a plane: $(cat "$IB/mrc0/planes")"
	[ "$(wc -l < "$IB/mrc0/planes")" = 2 ] || fail "planes: $(cat "$IB/mrc0/planes")"
	echo "  $MRC_VM: a fifth plane, another device's netdev and a plane as a device refused; planes whose netdev left are gone"
}

del_plane() {
	[ -z "$(planes_write del eth1)" ] || fail "del eth1 failed"
	! grep -q eth1 "$IB/mrc0/planes" || fail "eth1 still listed: $(cat "$IB/mrc0/planes")"
}

hello_param() { echo "$1" > "$PARAM"; }
bundles_param() { echo "$1" > /sys/module/metaroce/parameters/ack_bundles; }

gid0() { gid_index mrc0 "$(gid_of_ipv4 "10.0.0.$1")"; }

server() {
	rm -f "$SLOG" "$SLOG.rc"
	bg_run "$SLOG" 600 "$TOOL" -d mrc0 -g "$(gid0 2)" -p "$PORT" -w 0
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

client() {
	rm -f "$STOP" "$CLOG" "$CLOG.rc"
	bg_run "$CLOG" 600 "$TOOL" -d mrc0 -g "$(gid0 1)" -p "$PORT" -w 0 -V -T "$STOP" 10.0.0.2
}

# This guest's RC QP's driver attribute NAME (restrack), summed over the
# paths when NAME is p*_X.
qp_attr() {
	rdma resource show qp link mrc0/1 -dd | awk -v n="$1" '
		/comm mrc_verbs_check/ && /type RC/ { on = 1 }
		on { for (i = 1; i < NF; i++) {
			k = $i; sub(/^drv_/, "", k)
			if (n ~ /^p\*_/ ? k ~ "^p[0-9]+_" substr(n, 4) "$" : k == n)
				s += $(i + 1)
		} }
		END { print s + 0 }'
}

# the RC QP's whole restrack line
rc_table() { rdma resource show qp link mrc0/1 -dd | grep "type RC .*comm mrc_verbs_check"; }

attr_is() { [ "$(qp_attr "$1")" = "$2" ]; }
attr_beyond() { [ "$(qp_attr "$1")" -gt "$2" ]; }

# a device counter of mrc0 (rdma statistic)
counter() {
	rdma statistic show link mrc0/1 | tr ' ' '\n' |
		awk -v c="$1" 'p { print; exit } $1 == c { p = 1 }'
}

counter_beyond() { [ "$(counter "$1")" -gt "$2" ]; }

# a netdev counter: netdev_stat eth1 tx_packets
netdev_stat() { cat "/sys/class/net/$1/statistics/$2"; }
netdev_beyond() { [ "$(netdev_stat "$1" "$2")" -gt "$3" ]; }

carrier_is() { [ "$(cat /sys/class/net/eth1/carrier)" = "$1" ]; }

# plane1_paths_failed: every path of the RC QP on plane 1 failed (the
# summary rows, always there; fail_why is in the detail, which may not fit)
plane1_paths_failed() {
	rdma resource show qp link mrc0/1 -dd | awk '
		/comm mrc_verbs_check/ && /type RC/ { on = 1 }
		on { for (i = 1; i < NF; i++) {
			k = $i; sub(/^drv_/, "", k)
			if (split(k, w, "_") < 2 || w[1] !~ /^p[0-9]+$/)
				continue
			f = substr(k, length(w[1]) + 2)
			v[w[1], f] = $(i + 1); ids[w[1]] = 1
		} }
		END {
			for (p in ids) if (v[p, "plane"] == 1) {
				n++
				if (v[p, "state"] != 3) exit 1
			}
			exit !(n > 0)
		}'
}

# hole on|off: plane 1 black-holed both ways at this guest
hole() {
	if [ "$1" = on ]; then
		modprobe -a sch_ingress cls_matchall act_gact &&
			tc qdisc add dev eth1 clsact &&
			tc filter add dev eth1 egress pref 1 matchall action drop &&
			tc filter add dev eth1 ingress pref 1 matchall action drop
	else
		tc qdisc del dev eth1 clsact
	fi
}

stop() { touch "$STOP"; }

done_ok() {
	local log=$1 who=$2
	MRC_TIMEOUT=300 wait_until "$who finished" test -e "$log.rc"
	grep -E '^(ok|fail) ' "$log" | sed "s/^/  $who: /"
	[ "$(cat "$log.rc")" = 0 ] || fail "$who exit status $(cat "$log.rc"): $(tail -5 "$log")"
	grep -q "$who: all steps passed" "$log" || fail "$who did not pass every step"
}

case_guest_cleanup() {
	touch "$STOP"
	echo 1 > /sys/module/metaroce/parameters/ack_bundles 2>/dev/null || true
	tc qdisc del dev eth1 clsact 2>/dev/null || true
	echo 1 > "$PARAM" 2>/dev/null || true
}

# ----------------------------------------------------------------- host side
case_main "$@"
case_host_cleanup() {
	local vm
	for vm in a b; do
		"$BED" monitor "$vm" "set_link l1 on" >/dev/null || true
	done
}
for vm in a b; do
	g "$vm" up
	g "$vm" add_plane
	g "$vm" bad_writes
done
g a busy_and_full

# --- 2. one connection, two planes
ackb=$(g b counter ack_bundles)
g b server
g a client
for vm in a b; do
	g "$vm" wait_until "$vm: HELLO answered" attr_is hello_answered 1
	g "$vm" wait_until "$vm: 2 planes in use" attr_is planes 2
done
eth1_a=$(g a netdev_stat eth1 tx_packets)
eth1_b=$(g b netdev_stat eth1 rx_packets)
# 1024 packets: the stream's first 4 MiB
g a wait_until "the connection streams" attr_beyond 'p*_acked' 1024
for k in 0 1; do
	g a wait_until "a sends on plane $k" attr_beyond "plane${k}_tx" 200
	g b wait_until "b receives on plane $k" attr_beyond "plane${k}_rx" 200
done
g a wait_until "eth1 of a sends" netdev_beyond eth1 tx_packets $((eth1_a + 200))
g b wait_until "eth1 of b receives" netdev_beyond eth1 rx_packets $((eth1_b + 200))
echo "  a: plane0_tx $(g a qp_attr plane0_tx) plane1_tx $(g a qp_attr plane1_tx); b: plane0_rx $(g b qp_attr plane0_rx) plane1_rx $(g b qp_attr plane1_rx); paths on plane 1 (a): $(g a qp_attr 'p*_plane')"

# --- 3. plane 1 dies, then comes back. Its paths fail, rest and probe
# again while it is down; a segment lost on such a probe is resent over
# plane 0 ([PATH-4]), else the stream stops behind it.
# plane1_link on|off CARRIER: QEMU's link l1 on both ends, and both see it
plane1_link() {
	local vm
	for vm in a b; do
		"$BED" monitor "$vm" "set_link l1 $1" >/dev/null
	done
	for vm in a b; do
		g "$vm" wait_until "$vm: eth1 carrier $1" carrier_is "$2"
	done
}
# both ends' RC tables and logs, then fail with $1
fail_tables() {
	echo "  a: $(g a rc_table)"
	echo "  b: $(g b rc_table)"
	g a tail -5 "$CLOG" | sed 's/^/  a client| /'
	g b tail -5 "$SLOG" | sed 's/^/  b server| /'
	fail "$1 (tables above)"
}
no_errors() {
	[ "$(g a qp_attr error)" = 0 ] || fail "a's connection failed: error $(g a qp_attr error)"
	[ "$(g b qp_attr error)" = 0 ] || fail "b's connection failed: error $(g b qp_attr error)"
}
# plane 1 back ($1: how it failed): a PROBE REQ answered, data on it again
plane1_back() {
	MRC_TIMEOUT=60 g a wait_until "a PROBE REQ answered over plane 1" counter_beyond probes_proved "$proved" ||
		fail_tables "no PROBE REQ was answered after plane 1's return ($1)"
	rx1=$(g b qp_attr plane1_rx)
	MRC_TIMEOUT=60 g b wait_until "plane 1 carries data again" attr_beyond plane1_rx $((rx1 + 200)) ||
		fail_tables "plane 1 carried no data after its return ($1)"
	acked=$(g a qp_attr 'p*_acked')
	g a wait_until "2 MiB more after the repair" attr_beyond 'p*_acked' $((acked + 512)) ||
		fail_tables "the connection did not move on after the repair ($1)"
	echo "  plane 1 back ($1): b received $(($(g b qp_attr plane1_rx) - rx1)) packets on it since"
}

# 3: the link goes, and both ends see it
fails=$(g a counter path_fails)
proved=$(g a counter probes_proved)
declare -A lfails
for vm in a b; do
	lfails[$vm]=$(g "$vm" counter path_link_fails)
done
plane1_link off 0
acked=$(g a qp_attr 'p*_acked')
# each end has 2 paths on plane 1 (4 paths, 2 planes)
for vm in a b; do
	g "$vm" wait_until "$vm: plane 1's paths failed for their link" \
		counter_beyond path_link_fails $((lfails[$vm] + 1)) ||
		fail_tables "$vm did not fail plane 1's paths for their link"
	g "$vm" plane1_paths_failed || fail_tables "$vm: some path on plane 1 did not fail"
done
g a wait_until "4 MiB more on plane 0 alone" attr_beyond 'p*_acked' $((acked + 1024)) ||
	fail_tables "the connection did not move on over plane 0 (link down)"
no_errors
g a plane1_paths_failed || fail_tables "a moved a path onto plane 1 while its link was down"
echo "  plane 1's link down: path_fails $fails -> $(g a counter path_fails) (for the link: ${lfails[a]} -> $(g a counter path_link_fails)), acked $acked -> $(g a qp_attr 'p*_acked')"
plane1_link on 1
plane1_back "link down"

# 3b: a silent blackhole; the dead plane's paths rest, probe and fail
# again meanwhile (4 MiB)
fails=$(g a counter path_fails)
reqs=$(g a counter probes_sent)
proved=$(g a counter probes_proved)
g a hole on
acked=$(g a qp_attr 'p*_acked')
g a wait_until "plane 1's paths failed" counter_beyond path_fails "$fails"
g a wait_until "4 MiB more on plane 0 alone" attr_beyond 'p*_acked' $((acked + 1024)) ||
	fail_tables "the connection did not move on over plane 0 (blackhole)"
no_errors
g a wait_until "plane 1's new routes probed by PROBE REQs" counter_beyond probes_sent "$reqs"
echo "  plane 1 black-holed: path_fails $fails -> $(g a counter path_fails), acked $acked -> $(g a qp_attr 'p*_acked'), PROBE REQs $reqs -> $(g a counter probes_sent)"
g a hole off
plane1_back blackhole
# the same per path, in the QP's restrack detail
[ "$(g a qp_attr 'p*_preqs_ans')" -gt 0 ] && [ "$(g a qp_attr 'p*_preqs')" -gt 0 ] ||
	fail_tables "no path of the QP shows its PROBE REQs (p*_preqs, p*_preqs_ans)"

# --- 4. every byte checked
g a stop
g a done_ok "$CLOG" client
g b done_ok "$SLOG" server
# b bundled its ACKs toward a, which takes bundles (5c's contrast)
[ "$(g b counter ack_bundles)" -gt "$ackb" ] ||
	fail "b sent a no ACK bundle in steps 2-4 (ack_bundles $ackb -> $(g b counter ack_bundles))"

# --- 5. interop: a peer with one plane, then a peer that predates HELLO
g b del_plane
g b server
g a client
g a wait_until "a: HELLO answered" attr_is hello_answered 1
g a wait_until "the connection streams" attr_beyond 'p*_acked' 512
[ "$(g a qp_attr planes)" = 1 ] || fail "a uses $(g a qp_attr planes) planes toward a peer of one"
[ "$(g a qp_attr plane1_tx)" = 0 ] || fail "a sent $(g a qp_attr plane1_tx) datagrams by plane 1"
g a stop
g a done_ok "$CLOG" client
g b done_ok "$SLOG" server
echo "  peer with one plane: 1 plane, data checked"

g b hello_param 0
malformed=$(g b counter rx_drop_malformed)
g b server
g a client
g a wait_until "the connection streams" attr_beyond 'p*_acked' 512
g a wait_until "a offered 5 times" attr_is hello_offers 5
[ "$(g a qp_attr hello_answered)" = 0 ] || fail "an old peer answered"
[ "$(g a qp_attr planes)" = 1 ] || fail "a uses $(g a qp_attr planes) planes toward an old peer"
# a counts an OFFER as it leaves: the fifth may still be on its way to b
g b wait_until "b dropped a's 5 HELLOs as malformed (from $malformed)" \
	counter_beyond rx_drop_malformed $((malformed + 4))
g a stop
g a done_ok "$CLOG" client
g b done_ok "$SLOG" server
g b hello_param 1
echo "  peer that predates HELLO: 5 OFFERs dropped as an unknown type, 1 plane, data checked"

# 5c: a takes no bundles ([ENC-9], [ENC-13]); b must send it none
g a bundles_param 0
rxb=$(g a counter rx_bundles)
ackb=$(g b counter ack_bundles)
txb=$(g b counter tx_bundles)
g b server
g a client
g a wait_until "the connection streams" attr_beyond 'p*_acked' 1024
g a stop
g a done_ok "$CLOG" client
g b done_ok "$SLOG" server
g a bundles_param 1
[ "$(g a counter rx_bundles)" = "$rxb" ] ||
	fail "a, which takes no bundles, received $(($(g a counter rx_bundles) - rxb))"
[ "$(g b counter ack_bundles)" = "$ackb" ] && [ "$(g b counter tx_bundles)" = "$txb" ] ||
	fail "b bundled toward a peer that takes none (ack_bundles $ackb -> $(g b counter ack_bundles), tx_bundles $txb -> $(g b counter tx_bundles))"
echo "  peer that takes no bundles: none sent to it, data checked"
echo "ok: 52-planes"
