#!/usr/bin/env bash
# bed: --fabric ecmp --links 4
# The bed's ECMP fabric (selftests/lib/guest-fabric, cases/lib/fabric.bash)
# does what the multipath tests rely on, shown with counted datagrams:
# guest a sends K UDP datagrams from each of 64 IPv4 and 64 IPv6 source
# ports to guest b's endpoint (mrc_udp_spray, every datagram's bytes checked
# by the receiver), and each step waits until every datagram sent is either
# received or counted as dropped by the impairment that dropped it.
#  - spread: every link carries some ports; per link, what a's router sent
#    and b's router received is what the ports fabric_link_of maps there
#    sent (within a few router packets: ARP, neighbour discovery), and
#    every datagram arrived;
#  - blackhole on the busiest link: its ports' datagrams all vanish (the
#    blackhole's drop count is theirs), every other port's all arrive; the
#    link carries again once it is lifted;
#  - 20% loss on another link: only its ports lose, 12-28% of what they
#    sent, and the loss qdisc dropped what they lost (and at most SLACK
#    of the router's own packets: ARP, neighbour discovery);
#  - link down (carrier off at both ends): no port maps to it and nothing
#    is sent on it, every datagram arrives on the others; up again, every
#    port maps where it did before;
#  - an ECN-marking bottleneck (100 kbit/s, red) on the busiest link, with
#    ECT(0) datagrams: its ports' datagrams arrive CE-marked, no other
#    port's does;
#  - ibv_rc_pingpong over metaroce on ep0, received buffers checked (-c),
#    over the IPv4 and the IPv6 GID, across the routers.
# bed-timeout: 600
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"
# shellcheck source=lib/fabric.bash
. "$(dirname "$0")/lib/fabric.bash"
# shellcheck source=lib/pingpong.bash
. "$(dirname "$0")/lib/pingpong.bash"

DPORT=5000
V4=40000 V6=41000 NPORTS=64
STATUS=/tmp/48-fabric.status	# in guest b: the receiver's table
SLACK=8		# router packets a link may carry besides ours (ARP, ND)
PORT=18748
SLOG=/tmp/48-fabric.server
PP_DEV=mrc0
PP_ADDR=${FABRIC_ADDR4[b]}

# ---------------------------------------------------------------- guest side
up() {
	rdma link add mrc0 type metaroce netdev "$FABRIC_EP"
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

udp_bound() {
	awk -v p="$(printf ':%04X' "$1")" '$2 ~ p "$" { f = 1 } END { exit !f }' /proc/net/udp6
}

recv_stop() {
	local p
	for p in $(pidof mrc_udp_spray); do
		kill "$p"
	done
	wait_until "the receiver gone" sh -c '! pidof mrc_udp_spray >/dev/null'
}

recv_start() {
	recv_stop
	rm -f "$STATUS"
	bg_run /tmp/48-fabric.recv 600 "$FABRIC_SPRAY" recv --port "$DPORT" --status "$STATUS"
	wait_until "the receiver bound to $DPORT" udp_bound "$DPORT"
}

case_guest_cleanup() { recv_stop; }

# drops: where else a datagram can vanish in this guest, for a step whose
# datagrams do not add up: the UDP stacks (receive buffer, other errors),
# the backlog queues (softnet's second column, hex) and every netdev's
# drop counters in both namespaces.
drops() {
	awk '$1 ~ /^Udp6?:$/ && $2 ~ /^[0-9]/ { print "  " $1, "in", $2, "no-port", $3, "in-errors", $4, "rcvbuf-errors", $6 }' \
		/proc/net/snmp
	awk '$1 ~ /^Udp6(InDatagrams|NoPorts|InErrors|RcvbufErrors)$/ { printf "  %s %s", $1, $2 } END { print "" }' \
		/proc/net/snmp6
	local ns run d n=0
	while read -r _ d _; do
		n=$((n + 0x$d))
	done < /proc/net/softnet_stat
	echo "  softnet dropped $n"
	for ns in root rtr; do
		run=()
		[ "$ns" = root ] || run=(ip netns exec "$ns")
		# shellcheck disable=SC2016 # expanded by the inner shell
		"${run[@]}" sh -c 'cd /sys/class/net && for d in *; do
			echo "  $0 $d rx_dropped $(cat "$d/statistics/rx_dropped") tx_dropped $(cat "$d/statistics/tx_dropped")"
		done' "$ns"
	done
}

# send K PPS SIZE TOS FAMILY...: K datagrams from each port, paced.
send() {
	local k=$1 pps=$2 size=$3 tos=$4 fam lo
	shift 4
	for fam in "$@"; do
		lo=$V4
		[ "$fam" = 6 ] && lo=$V6
		"$FABRIC_SPRAY" send --to "$(fabric_far_addr a "$fam")" --port "$DPORT" \
			--sports "$lo-$((lo + NPORTS - 1))" --count "$k" --pps "$pps" --size "$size" \
			--tos "$tos"
	done
}

# ----------------------------------------------------------------- host side
case_main "$@"
fabric_require || exit 1
[ "$(fabric_nlinks)" = 4 ] || fail "the fabric has $(fabric_nlinks) links, not 4"
W=$(mktemp -d)
case_host_cleanup() { rm -rf "$W"; fabric_clear; }
fabric_clear
for vm in a b; do
	g "$vm" up
done

# "SPORT LINK" of both families' ports, now.
port_map() {
	fabric_map a 4 "$DPORT" "$V4" $((V4 + NPORTS - 1)) || fail "no IPv4 port map"
	fabric_map a 6 "$DPORT" "$V6" $((V6 + NPORTS - 1)) || fail "no IPv6 port map"
}

# Everything a -> b sent is accounted for, link by link: received, or
# dropped at a's router by a qdisc (FIELD 7) or a blackhole filter (FIELD
# 8), or FIELD 0: by nothing. A link's drop counter also counts the
# router's own packets it drops (ARP, neighbour discovery), so a link is
# done when what arrived and what was dropped reach what its ports sent;
# more is those packets. Uses spray's K and FAMS and its port map.
accounted() {
	local field=$1
	g b cat "$STATUS" > "$W/rxnow" 2>/dev/null || return 1
	: > "$W/cx"
	[ "$field" = 0 ] || fabric_counters > "$W/cx"
	awk -v k="$K" -v fams="$FAMS" -v v4="$V4" -v v6="$V6" -v np="$NPORTS" -v f="$field" '
		FILENAME ~ /map$/ {
			p = $1
			if ((p >= v4 && p < v4 + np && fams ~ /4/) || (p >= v6 && p < v6 + np && fams ~ /6/)) {
				link[p] = $2; want[$2] += k
			}
			next
		}
		FILENAME ~ /rxnow$/ && $1 == "sport" && ($2 in link) { have[link[$2]] += $4; next }
		FILENAME ~ /c0$/ && $1 == "a" { c0[$2] = $f; next }
		FILENAME ~ /cx$/ && $1 == "a" { have[$2] += $f - c0[$2]; next }
		END { for (l in want) if (have[l] < want[l]) exit 1 }
	' "$W/map" "$W/rxnow" "$W/c0" "$W/cx"
}

# spray NAME K PPS SIZE TOS DROPFIELD FAMILY...: one round from a to b;
# leaves the map, the counters before and after, the receiver's table and
# the per-link summary ($W/links: "LINK PORTS SENT RX CE ATX BRX AQDROP
# AFDROP AMARKS") in $W.
spray() {
	local name=$1 k=$2 pps=$3 size=$4 tos=$5 field=$6
	shift 6
	local fams=("$@") pid
	# each of these asks a guest (0.5-1 s under TCG): at once
	port_map > "$W/map" &
	pid=$!
	fabric_counters > "$W/c0" &
	g b recv_start
	wait $! && wait $pid || fail "$name: no port map, counters or receiver"
	g a send "$k" "$pps" "$size" "$tos" "${fams[@]}" | sed 's/^/  a: /'
	SENT=$((k * NPORTS * ${#fams[@]})) K=$k FAMS=${fams[*]}
	( MRC_TIMEOUT=60 wait_until "$name: all $SENT datagrams received or dropped" accounted "$field" ) || {
		echo "  $name: received $(g b cat "$STATUS" | awk '$1 == "total" { print $3 }') of $SENT"
		for vm in a b; do
			echo "  $vm:"
			g "$vm" drops
		done
		fabric_counters | sed 's/^/  counters: /'
		fail "$name: $SENT datagrams sent, not all received or counted as dropped"
	}
	fabric_counters > "$W/c1"
	g b cat "$STATUS" > "$W/rx"
	awk -v k="$k" -v fams="${fams[*]}" -v v4="$V4" -v v6="$V6" -v np="$NPORTS" '
		FILENAME ~ /map$/ {
			p = $1
			if ((p >= v4 && p < v4 + np && fams ~ /4/) || (p >= v6 && p < v6 + np && fams ~ /6/)) {
				link[p] = $2; ports[$2]++; sent[$2] += k
			}
			next
		}
		FILENAME ~ /rx$/ && $1 == "sport" { rx[link[$2]] += $4; ce[link[$2]] += $6; next }
		FILENAME ~ /c0$/ { for (i = 3; i <= 9; i++) c0[$1, $2, i] = $i; next }
		FILENAME ~ /c1$/ { for (i = 3; i <= 9; i++) d[$1, $2, i] = $i - c0[$1, $2, i]; next }
		END {
			for (l = 0; l < 4; l++)
				print l, ports[l] + 0, sent[l] + 0, rx[l] + 0, ce[l] + 0, d["a", l, 3],
				      d["b", l, 5], d["a", l, 7], d["a", l, 8], d["a", l, 9]
		}' "$W/map" "$W/rx" "$W/c0" "$W/c1" > "$W/links"
	echo "  $name: link ports sent rx ce | a-tx b-rx a-qdrop a-fdrop a-marks"
	sed 's/^/    /' "$W/links"
}

# port_rx SPORT: what the receiver counted from that port.
port_rx() { awk -v p="$1" '$1 == "sport" && $2 == p { print $4; f = 1 } END { if (!f) print 0 }' "$W/rx"; }

# Every port of link L (or of every link but L with "not") received K.
ports_got() {
	local sel=$1 l=$2 want=$3 p pl
	while read -r p pl; do
		if { [ "$sel" = on ] && [ "$pl" = "$l" ]; } || { [ "$sel" = not ] && [ "$pl" != "$l" ]; }; then
			[ "$(port_rx "$p")" = "$want" ] || fail "port $p (link $pl) received $(port_rx "$p"), not $want"
		fi
	done < "$W/map"
}

# On each link (but link $1) a's router sent, and b's received, what its
# ports sent.
links_carry_their_ports() {
	local l ports sent rx ce atx brx
	while read -r l ports sent rx ce atx brx _; do
		[ "$l" != "${1:-}" ] || continue
		[ "$ports" -gt 0 ] || fail "no port maps to link $l"
		[ "$atx" -ge "$sent" ] && [ "$atx" -le $((sent + SLACK)) ] ||
			fail "link $l: a's router sent $atx packets, its $ports ports $sent"
		[ "$brx" -ge "$sent" ] && [ "$brx" -le $((sent + SLACK)) ] ||
			fail "link $l: b's router received $brx packets, its $ports ports sent $sent"
	done < "$W/links"
}

field() { awk -v l="$1" -v f="$2" '$1 == l { print $f }' "$W/links"; }

echo "== [${SECONDS}s] spread: 64 IPv4 + 64 IPv6 source ports over 4 links"
spray spread 10 1000 200 0 0 4 6
links_carry_their_ports
for l in 0 1 2 3; do ports_got on "$l" 10; done
# the busiest link and another one, for the impairments
BUSY=$(sort -k2,2n "$W/links" | tail -n1 | cut -d' ' -f1)
OTHER=$(( (BUSY + 1) % 4 ))
echo "ok: every link carries its ports' datagrams and only those (busiest: link $BUSY)"

echo "== [${SECONDS}s] blackhole link $BUSY (a -> b)"
fabric_blackhole "$BUSY" --dir ab
spray blackhole 10 1000 200 0 8 4 6
[ "$(field "$BUSY" 4)" = 0 ] || fail "link $BUSY black-holed, yet $(field "$BUSY" 4) datagrams arrived"
ports_got not "$BUSY" 10
[ "$(field "$BUSY" 9)" -ge "$(field "$BUSY" 3)" ] && [ "$(field "$BUSY" 9)" -le $(($(field "$BUSY" 3) + SLACK)) ] ||
	fail "the blackhole dropped $(field "$BUSY" 9), link $BUSY's ports sent $(field "$BUSY" 3)"
fabric_unblackhole "$BUSY" --dir ab
spray restored 10 1000 200 0 0 4 6
links_carry_their_ports
echo "ok: the blackhole took exactly link $BUSY's datagrams; lifted, the link carries again"

echo "== [${SECONDS}s] 20% loss on link $OTHER (a -> b)"
fabric_loss "$OTHER" 20 --dir ab
spray loss 30 1000 200 0 7 4 6
ports_got not "$OTHER" 30
sent=$(field "$OTHER" 3) rx=$(field "$OTHER" 4) qd=$(field "$OTHER" 8)
[ "$qd" -ge $((sent - rx)) ] && [ "$qd" -le $((sent - rx + SLACK)) ] ||
	fail "link $OTHER lost $((sent - rx)) datagrams, netem dropped $qd"
[ $((100 * rx)) -ge $((72 * sent)) ] && [ $((100 * rx)) -le $((88 * sent)) ] ||
	fail "link $OTHER delivered $rx of $sent at 20% loss"
fabric_loss "$OTHER" 0 --dir ab
echo "ok: link $OTHER lost $((sent - rx)) of $sent ($((100 * (sent - rx) / sent))%), the other links nothing"

echo "== [${SECONDS}s] link $BUSY down (carrier off at both ends)"
port_map > "$W/map-before"
fabric_link_down "$BUSY"
spray down 10 1000 200 0 0 4 6
[ "$(field "$BUSY" 2)" = 0 ] || fail "$(field "$BUSY" 2) ports still map to link $BUSY, which is down"
[ "$(field "$BUSY" 6)" -le "$SLACK" ] || fail "link $BUSY is down, yet a's router sent $(field "$BUSY" 6) on it"
ports_got not "$BUSY" 10
links_carry_their_ports "$BUSY"
moved=$(paste "$W/map-before" "$W/map" | awk -v b="$BUSY" '$2 != b && $2 != $4 { n++ } END { print n + 0 }')
fabric_link_up "$BUSY"
port_map > "$W/map-after"
cmp -s "$W/map-before" "$W/map-after" || fail "up again, the ports do not map as before the link went down"
echo "ok: down, link $BUSY's ports went to the others ($moved ports of healthy links moved too);" \
     "up, every port maps as before"

echo "== [${SECONDS}s] ECN-marking bottleneck on link $BUSY (100 kbit/s, red; a -> b)"
fabric_rate "$BUSY" 100kbit --ecn red --queue 2000 --dir ab
spray ecn 10 400 500 2 7 4
[ "$(field "$BUSY" 5)" -gt 0 ] || fail "no datagram of link $BUSY arrived CE-marked"
for l in 0 1 2 3; do
	[ "$l" = "$BUSY" ] || [ "$(field "$l" 5)" = 0 ] || fail "link $l's datagrams arrived CE-marked"
done
echo "ok: $(field "$BUSY" 5) of link $BUSY's $(field "$BUSY" 4) datagrams arrived CE-marked" \
     "($(field "$BUSY" 8) dropped), none of the other links'"
fabric_clear

echo "== [${SECONDS}s] ibv_rc_pingpong over metaroce, through the routers"
for fam in 4 6; do
	gid=$(fabric_gid_index a mrc0 "$fam")
	[ "$gid" = "$(fabric_gid_index b mrc0 "$fam")" ] || fail "the IPv$fam GID has different indexes in a and b"
	fabric_counters > "$W/c0"
	PP_NOTE="IPv$fam GID $gid" pp_run -g "$gid" -s 1048576 -n 5
	fabric_counters > "$W/c1"
	echo "  packets a -> b per link: $(paste "$W/c0" "$W/c1" |
		awk '$1 == "a" { printf "%s%d", s, $12 - $3; s = " / " }')"
done
echo "ok: 48-fabric-ecmp"
