# shellcheck shell=bash disable=SC1091 # /etc/bed.env is the guests'
# The ECMP fabric of the bed (selftests/bed up --fabric ecmp --links N, built
# by selftests/lib/guest-fabric): addresses, which link a UDP source port
# takes, per-link impairments and per-link counters. Sourced on the host by
# cases and benches (which need BED, the path of selftests/bed); the guests
# source it too, for the fabric_g_* steps the host functions run there.
#
#   guest a: ep0 10.1.0.1/24 fd01::1/64 --veth-- rtr: rep0 .254 ::fe
#            rtr: eth<i> 10.0.<i>.1/24 fd00:<i>::1/64  == link i ==
#   guest b: rtr: eth<i> 10.0.<i>.2/24 fd00:<i>::2/64, rep0, ep0 10.2.0.1 fd02::1
#
# Link L is eth<L> of both routers. An impairment of link L applies at a
# router's egress of that link: on both routers (both directions) unless
# `--dir ab` (a's router: traffic a -> b only) or `--dir ba` says otherwise.
# Impairments combine (loss, delay, then rate with its queue) and can be set,
# changed and cleared while traffic runs; only a change of the queue's kind
# (plain, red, fq_codel) drops what is queued at that moment.
#
# Host side:
#   fabric_require                       fail unless the bed is up with the ECMP fabric
#   fabric_nlinks                        N
#   fabric_addr G [4|6]                  guest G's endpoint address (ep0)
#   fabric_far_addr G [4|6]              the far endpoint's address, as G dials it
#   fabric_link_of G SPORT [DPORT] [4|6] the link G's router sends that UDP flow
#                                        on (DPORT default 4791, the RoCE v2
#                                        port); look it up every time, the
#                                        hash changes at every boot
#   fabric_map G FAMILY DPORT LO HI      "SPORT LINK" lines for LO..HI, one round trip
#   fabric_map_ports G FAMILY DPORT SPORT...  the same for the ports listed
#   fabric_loss L PCT [--dir D]          random loss (netem), 0 to remove
#   fabric_delay L MS [--dir D]          added one-way delay (netem), 0 to remove
#   fabric_rate L RATE [--ecn red|fq_codel] [--queue MS] [--dir D]
#                                        tbf at RATE (tc units: 20mbit), its queue
#                                        MS long (default 50) at that rate, plain
#                                        or CE-marking ECT packets when it builds;
#                                        RATE none removes the limit
#   fabric_ecn L RATE [red|fq_codel] [--dir D]
#                                        an ECN-marking bottleneck (default red:
#                                        one FIFO shared by every flow, as a
#                                        switch's WRED; fq_codel isolates flows)
#   fabric_blackhole L [--dir D]         drop every IP packet of the link silently:
#                                        carrier up, routes unchanged, ARP and
#                                        IPv6 neighbour discovery still pass
#   fabric_unblackhole L [--dir D]
#   fabric_link_down L [--admin [--dir D]]   the link fails: by default its carrier
#                                        drops on both ends (QEMU set_link off, a
#                                        pulled cable); both routers stop using it
#                                        (ignore_routes_with_linkdown) and re-hash
#                                        its flows onto the other links. --admin:
#                                        `ip link set down` on the routers instead
#                                        (with --dir only one router knows: the
#                                        other keeps sending into the dead NIC)
#   fabric_link_up L [--admin [--dir D]]
#   fabric_cross L (--mbit R [--tos T] [--size B] [--time S] | --tcp) [--dir D]
#                                        competing traffic on link L only, between
#                                        the routers: paced UDP (mrc_udp_spray,
#                                        --tos 2 makes it ECT; for S seconds, or
#                                        until stopped) or one greedy TCP flow
#   fabric_cross_stop L
#   fabric_cross_status L [--dir D]      "ab|ba RX CE": what the UDP cross traffic's
#                                        receiver counted (datagrams, CE-marked)
#   fabric_clear [L]                     every impairment and cross flow of L (all)
#   fabric_counters [L]                  lines "G L TXP TXB RXP RXB QDROPS FDROPS
#                                        MARKS": G's router's eth<L> packets and
#                                        bytes sent and received (netdev stats),
#                                        dropped by its impairment qdiscs and by
#                                        the blackhole, and CE marks set there
#   fabric_gid_index G DEV [4|6]         DEV's GID index of G's endpoint address

FABRIC_LIB=$(readlink -f "${BASH_SOURCE[0]}")
FABRIC_TOP=${TOP:-$(cd "${FABRIC_LIB%/*}/../../.." && pwd)}
FABRIC_SPRAY=$FABRIC_TOP/build/userspace/tools/mrc_udp_spray
FABRIC_EP=ep0	# for the cases: the endpoint netdev of both guests
export FABRIC_EP
FABRIC_RUN=/run/bed-fabric	# in the guests: per-link state, cross traffic pids
# The namespace of the links fabric_g_set shapes: the router's; empty, the
# guest's own (the links of a bed without the ECMP fabric: the planes bench)
FABRIC_NS=${FABRIC_NS-rtr}
declare -A FABRIC_ADDR4=([a]=10.1.0.1 [b]=10.2.0.1)
declare -A FABRIC_ADDR6=([a]=fd01::1 [b]=fd02::1)
declare -A FABRIC_NODE=([a]=1 [b]=2)

fabric_fail() { echo "FAIL (fabric): $*" >&2; return 1; }

fabric_peer() { if [ "$1" = a ]; then echo b; else echo a; fi; }

fabric_addr() {
	if [ "${2:-4}" = 6 ]; then echo "${FABRIC_ADDR6[$1]}"; else echo "${FABRIC_ADDR4[$1]}"; fi
}

fabric_far_addr() { fabric_addr "$(fabric_peer "$1")" "${2:-4}"; }

# The address of guest G's router on link L.
fabric_link_addr() {
	if [ "${3:-4}" = 6 ]; then echo "fd00:$2::${FABRIC_NODE[$1]}"; else echo "10.0.$2.${FABRIC_NODE[$1]}"; fi
}

# ------------------------------------------------------------- guest side

# fabric_g_map_ports FAMILY DPORT SPORT...: "SPORT LINK" for each source
# port, in one process.
fabric_g_map_ports() {
	local fam=$1 dport=$2 me far p
	shift 2
	. /etc/bed.env
	me=$(fabric_addr "$BED_NAME" "$fam")
	far=$(fabric_far_addr "$BED_NAME" "$fam")
	for p in "$@"; do
		echo "route get $far from $me iif rep0 ipproto 17 sport $p dport $dport"
	done | ip -n rtr -batch - |
		awk -v ports="$*" -v far="$far" '
			BEGIN { split(ports, port, " ") }
			$1 == far { for (i = 1; i < NF; i++) if ($i == "dev") { sub("eth", "", $(i + 1)); print port[++n], $(i + 1) } }
			END { if (n != '"$#"') exit 1 }'
}

# fabric_g_map FAMILY DPORT LO HI: the same for LO..HI.
fabric_g_map() {
	local fam=$1 dport=$2
	# shellcheck disable=SC2046 # the ports are words on purpose
	fabric_g_map_ports "$fam" "$dport" $(seq "$3" "$4")
}

fabric_g_rate_bytes() {	# tc rate -> bytes/s
	local v=${1,,} mult=1
	case "$v" in
	*gbit) mult=1000000000; v=${v%gbit} ;;
	*mbit) mult=1000000; v=${v%mbit} ;;
	*kbit) mult=1000; v=${v%kbit} ;;
	*bit) v=${v%bit} ;;
	*) echo "bad rate $1 (use tc units: 20mbit)" >&2; return 1 ;;
	esac
	[[ $v =~ ^[0-9]+$ ]] || { echo "bad rate $1" >&2; return 1; }
	echo $((v * mult / 8))
}

# The link's impairment state: shell assignments in $FABRIC_RUN/eth<L>.
fabric_g_load() {
	loss=0 delay=0 rate="" leaf=plain queue=50
	# shellcheck source=/dev/null
	[ -f "$FABRIC_RUN/eth$1" ] && . "$FABRIC_RUN/eth$1"
	return 0
}

# tc and ip in FABRIC_NS
fabric_g_tc() {
	if [ -n "$FABRIC_NS" ]; then tc -n "$FABRIC_NS" "$@"; else tc "$@"; fi
}
fabric_g_ip() {
	if [ -n "$FABRIC_NS" ]; then ip -n "$FABRIC_NS" "$@"; else ip "$@"; fi
}

# fabric_g_set L KEY=VALUE...: change the link's state and apply it: a root
# netem (loss, delay), under it a tbf (the rate; 100gbit when unlimited),
# under that the queue. Each replace of a qdisc of the same kind and handle
# is a change that keeps its queue; each queue kind has its own handle.
fabric_g_set() {
	local l=$1 kv mtu bps burst qbytes min max leafq
	local loss delay rate leaf queue
	shift
	fabric_g_load "$l"
	for kv in "$@"; do
		case "${kv%%=*}" in
		loss | delay | rate | leaf | queue) printf -v "${kv%%=*}" '%s' "${kv#*=}" ;;
		*) echo "fabric_g_set: unknown $kv" >&2; return 1 ;;
		esac
	done
	mkdir -p "$FABRIC_RUN"
	printf 'loss=%q delay=%q rate=%q leaf=%q queue=%q\n' "$loss" "$delay" "$rate" "$leaf" "$queue" \
		> "$FABRIC_RUN/eth$l"
	if [ "$loss" = 0 ] && [ "$delay" = 0 ] && [ -z "$rate" ] && [ "$leaf" = plain ]; then
		fabric_g_tc qdisc del dev "eth$l" root 2>/dev/null
		rm -f "$FABRIC_RUN/eth$l"
		return 0
	fi
	mtu=$(fabric_g_ip link show dev "eth$l" | awk '{ for (i = 1; i < NF; i++) if ($i == "mtu") { print $(i + 1); exit } }')
	[ -n "$mtu" ] || return 1
	bps=$(fabric_g_rate_bytes "${rate:-100gbit}") || return 1
	# a burst of 5 ms at the rate, at least 4 frames: a TCG guest's timers
	# fire late, and the credit a small bucket cannot hold is lost
	burst=$((bps / 200))
	[ $burst -ge $((4 * (mtu + 14))) ] || burst=$((4 * (mtu + 14)))
	qbytes=$((bps * queue / 1000))
	[ $qbytes -ge $((4 * (mtu + 14))) ] || qbytes=$((4 * (mtu + 14)))
	case "$leaf" in
	plain)
		if [ -n "$rate" ]; then leafq="handle 3: bfifo limit $qbytes"; else leafq="handle 3: pfifo limit 1000"; fi ;;
	red)
		# marks from a fifth of the queue on, all past three fifths; the
		# queue holds what arrives above that (unresponsive traffic)
		min=$((qbytes / 5))
		[ $min -ge $((2 * (mtu + 14))) ] || min=$((2 * (mtu + 14)))
		max=$((3 * min))
		leafq="handle 4: red limit $((4 * max > qbytes ? 4 * max : qbytes)) min $min max $max"
		leafq+=" avpkt $((mtu + 14)) burst $(((2 * min + max) / (3 * (mtu + 14)) + 1))"
		leafq+=" probability 0.2 bandwidth ${rate:-100gbit} ecn" ;;
	fq_codel)
		# its packet limit bounds the queue as the others' bytes do:
		# with the default 10240 it marks unresponsive traffic and
		# never drops it, the queue growing by seconds
		leafq="handle 5: fq_codel ecn limit $((qbytes / (mtu + 14))) quantum $((mtu + 14))" ;;
	*) echo "fabric: queue kind $leaf (plain, red or fq_codel)" >&2; return 1 ;;
	esac
	fabric_g_tc -batch - <<-EOF
		qdisc replace dev eth$l root handle 1: netem limit 100000 loss $loss% delay ${delay}ms
		qdisc replace dev eth$l parent 1:1 handle 2: tbf rate ${rate:-100gbit} burst $burst limit $qbytes
		qdisc replace dev eth$l parent 2:1 $leafq
	EOF
}

# fabric_g_blackhole_batch L [HOOK...]: the tc batch that black-holes link
# L at each hook of a new clsact (default egress; ingress drops what
# arrives on L instead, for a step that switches both directions on one
# router at once, e.g. from a tc -batch reading a FIFO: no process to wait
# for when it matters).
fabric_g_blackhole_batch() {
	local l=$1 h
	shift
	echo "qdisc add dev eth$l clsact"
	for h in "${@:-egress}"; do
		# IPv6 neighbour solicitations and advertisements pass, as ARP
		# does: the routers keep their neighbours, nothing tells them of
		# the hole
		printf '%s\n' \
			"filter add dev eth$l $h protocol ipv6 pref 1 flower ip_proto icmpv6 type 135 action pass" \
			"filter add dev eth$l $h protocol ipv6 pref 1 flower ip_proto icmpv6 type 136 action pass" \
			"filter add dev eth$l $h protocol ipv6 pref 2 matchall action drop" \
			"filter add dev eth$l $h protocol ip pref 3 matchall action drop"
	done
}

fabric_g_blackhole() {
	local l=$1
	tc -n rtr qdisc del dev "eth$l" clsact 2>/dev/null
	[ "$2" = on ] || return 0
	fabric_g_blackhole_batch "$l" | tc -n rtr -batch -
}

fabric_g_admin() { ip -n rtr link set dev "eth$1" "$2"; }

# fabric_g_carrier_is L 0|1: the router sees link L's carrier so.
fabric_g_carrier_is() {
	[ "$(ip netns exec rtr cat "/sys/class/net/eth$1/carrier" 2>/dev/null)" = "$2" ]
}

# fabric_g_routes_follow L 0|1: the router's routes have caught up with
# link L's carrier: its nexthops via eth<L> (both families) are flagged
# linkdown when the carrier is 0, and not when it is 1. The carrier file
# changes at once, the routes only when linkwatch passes the event on
# (up to a second later); a port map taken in between is the old one.
fabric_g_routes_follow() {
	local l=$1 carrier=$2 fam hops
	for fam in 4 6; do
		hops=$(ip -n rtr -"$fam" route show | grep -E "dev eth$l( |$)") || return 1
		if [ "$carrier" = 1 ]; then
			! grep -q linkdown <<< "$hops" || return 1
		else
			! grep -vq linkdown <<< "$hops" || return 1
		fi
	done
}

# Background processes of link L's cross traffic, detached, their pids kept.
fabric_g_spawn() {
	local l=$1
	shift
	mkdir -p "$FABRIC_RUN"
	# /usr/sbin/ip: busybox setsid would run its own ip applet for "ip"
	setsid /usr/sbin/ip netns exec rtr "$@" </dev/null >/dev/null 2>&1 &
	echo $! >> "$FABRIC_RUN/cross$l.pids"
}

fabric_g_udp_bound() {	# PORT: a UDP socket of rtr is bound to it
	ip netns exec rtr cat /proc/net/udp /proc/net/udp6 |
		awk -v p="$(printf ':%04X' "$1")" '$2 ~ p "$" { f = 1 } END { exit !f }'
}

fabric_g_tcp_listening() {
	ip netns exec rtr cat /proc/net/tcp |
		awk -v p="$(printf ':%04X' "$1")" '$2 ~ p "$" && $4 == "0A" { f = 1 } END { exit !f }'
}

fabric_g_wait() {	# DESC CMD...: poll CMD for 20 s (times the bed's slowness)
	local desc=$1 i
	shift
	. /etc/bed.env
	for ((i = 0; i < 200 * ${BED_SLOW:-1}; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	echo "fabric: still not $desc" >&2
	return 1
}

# fabric_g_cross_sink L PORT udp|tcp
fabric_g_cross_sink() {
	local l=$1 port=$2 me
	. /etc/bed.env
	me=$(fabric_link_addr "$BED_NAME" "$l")
	if [ "$3" = tcp ]; then
		fabric_g_spawn "$l" socat -u "TCP-LISTEN:$port,bind=$me,reuseaddr" /dev/null
		fabric_g_wait "listening on TCP $port" fabric_g_tcp_listening "$port"
	else
		fabric_g_spawn "$l" "$FABRIC_SPRAY" recv --bind "$me" --port "$port" \
			--status "$FABRIC_RUN/cross$port.status"
		fabric_g_wait "bound to UDP $port" fabric_g_udp_bound "$port"
	fi
}

# fabric_g_cross_source L PORT tcp | udp MBIT TOS SIZE SECONDS
fabric_g_cross_source() {
	local l=$1 port=$2 far
	. /etc/bed.env
	far=$(fabric_link_addr "$(fabric_peer "$BED_NAME")" "$l")
	if [ "$3" = tcp ]; then
		fabric_g_spawn "$l" socat -u /dev/zero "TCP:$far:$port"
	else
		fabric_g_spawn "$l" "$FABRIC_SPRAY" send --to "$far" --port "$port" \
			--sports "$port" --mbit "$4" --tos "$5" --size "$6" --time "$7"
	fi
}

fabric_g_cross_stop() {
	local l=$1 p
	[ -f "$FABRIC_RUN/cross$l.pids" ] || return 0
	while read -r p; do
		# the setsid'd `ip netns exec` became the tool (exec), so the
		# pid is the tool's
		kill "$p" 2>/dev/null
	done < "$FABRIC_RUN/cross$l.pids"
	rm -f "$FABRIC_RUN/cross$l.pids"
}

# Prints the links whose carrier is down (the host restores those).
fabric_g_clear() {
	local l tcq=() ipq=() car=()
	. /etc/bed.env
	for ((l = 0; l < BED_LINKS; l++)); do
		[ -z "${1:-}" ] || [ "$1" = "$l" ] || continue
		fabric_g_cross_stop "$l"
		rm -f "$FABRIC_RUN/eth$l" "$FABRIC_RUN/cross$((5300 + l)).status" \
			"$FABRIC_RUN/cross$((5310 + l)).status"
		tcq+=("qdisc del dev eth$l root" "qdisc del dev eth$l clsact")
		ipq+=("link set dev eth$l up")
		car+=("/sys/class/net/eth$l/carrier")
	done
	printf '%s\n' "${tcq[@]}" | tc -n rtr -force -batch - 2>/dev/null
	printf '%s\n' "${ipq[@]}" | ip -n rtr -batch - || return 1
	ip netns exec rtr grep -H '^0' "${car[@]}" | sed 's|.*/eth\([0-9]*\)/carrier:0|\1|'
	return 0
}

# "L TXP TXB RXP RXB QDROPS FDROPS MARKS" for each link (or link $1): its
# netdev counters, the drops of its root qdisc (the plain FIFO of a healthy
# link, or netem, which counts every drop below it too), of its blackhole
# filters, and the CE marks of its queue.
# Few processes: each costs ~0.1 s under TCG.
fabric_g_counters() {
	local l dev qd filt=""
	. /etc/bed.env
	dev=$(ip netns exec rtr cat /proc/net/dev)
	qd=$(tc -n rtr -s qdisc show)
	for ((l = 0; l < BED_LINKS; l++)); do
		if [[ $qd == *"qdisc clsact ffff: dev eth$l "* ]]; then
			filt+=$(tc -n rtr -s filter show dev "eth$l" egress | sed "s/^/eth$l /")$'\n'
		fi
	done
	{
		echo "$dev" | sed 's/^/dev /'
		echo "$qd" | sed 's/^/qdisc /'
		echo -n "$filt" | sed 's/^/filter /'
	} | awk -v name="$BED_NAME" -v n="$BED_LINKS" -v only="${1:-}" '
		# /proc/net/dev: "ethL: rx_bytes rx_packets (6 more) tx_bytes tx_packets"
		$1 == "dev" && $2 ~ /^eth[0-9]+:$/ {
			d = $2; sub(":", "", d); c[d] = $12 " " $11 " " $4 " " $3 }
		$1 == "qdisc" && $2 == "qdisc" { d = $6; root = ($7 == "root") }
		$1 == "qdisc" && root && $2 == "Sent" { x = $8; sub(",", "", x); qdrop[d] = x }
		$1 == "qdisc" && $2 == "marked" { mark[d] += $3 }
		$1 == "qdisc" { for (i = 2; i < NF; i++) if ($i == "ecn_mark") mark[d] += $(i + 1) }
		$1 == "filter" && /action order/ { drop = / gact action drop/ }
		$1 == "filter" && drop && $3 == "Sent" { x = $9; sub(",", "", x); fdrop[$2] += x }
		END {
			for (l = 0; l < n; l++) {
				if (only != "" && only != l) continue
				d = "eth" l
				print name, l, c[d], qdrop[d] + 0, fdrop[d] + 0, mark[d] + 0
			}
		}'
}

# ------------------------------------------------------------- host side

# fabric_g_run G FUNC ARGS...: a guest-side step of this file in guest G.
fabric_g_run() {
	local vm=$1
	shift
	# shellcheck disable=SC2016 # expanded in the guest
	"$BED" exec "$vm" -- bash -c '. "$0"; "$@"' "$FABRIC_LIB" "$@"
}

fabric_bed_env() {
	local f=$FABRIC_TOP/.cache/bed/bed.env
	[ -f "$f" ] || return 1
	(
		# shellcheck source=/dev/null
		. "$f"
		echo "${FABRIC:-direct} $LINKS"
	)
}

fabric_require() {
	local fab n
	read -r fab n < <(fabric_bed_env) || fabric_fail "the bed is not up" || return 1
	[ "$fab" = ecmp ] || fabric_fail "the bed's fabric is $fab, not ecmp (bed up --fabric ecmp)"
}

fabric_nlinks() {
	local fab n
	read -r fab n < <(fabric_bed_env) && echo "$n"
}

fabric_map() { fabric_g_run "$1" fabric_g_map "$2" "$3" "$4" "$5"; }

fabric_map_ports() { fabric_g_run "$1" fabric_g_map_ports "${@:2}"; }

fabric_link_of() {
	local g=$1 sport=$2 dport=${3:-4791} fam=${4:-4}
	fabric_map "$g" "$fam" "$dport" "$sport" "$sport" | awk '{ print $2 }'
}

# fabric_routers DIR: the guests whose routers' egress DIR names.
fabric_routers() {
	case "$1" in
	both) echo a b ;;
	ab) echo a ;;
	ba) echo b ;;
	*) fabric_fail "--dir must be ab, ba or both, not '$1'" ;;
	esac
}

# fabric_on DIR FUNC ARGS...: FUNC in the routers DIR names, at once.
fabric_on() {
	local dir=$1 vm rc=0 pids=()
	shift
	for vm in $(fabric_routers "$dir"); do
		fabric_g_run "$vm" "$@" &
		pids+=($!)
	done
	for vm in "${pids[@]}"; do
		wait "$vm" || rc=1
	done
	[ ${#pids[@]} -gt 0 ] && return $rc
}

# Split "--dir D" (and other options) out of the arguments: FABRIC_DIR and
# FABRIC_ARGS.
fabric_args() {
	FABRIC_DIR=both FABRIC_ARGS=()
	while [ $# -gt 0 ]; do
		if [ "$1" = --dir ]; then FABRIC_DIR=$2; shift 2; else FABRIC_ARGS+=("$1"); shift; fi
	done
}

fabric_loss() {
	fabric_args "$@"
	fabric_on "$FABRIC_DIR" fabric_g_set "${FABRIC_ARGS[0]}" "loss=${FABRIC_ARGS[1]}"
}

fabric_delay() {
	fabric_args "$@"
	fabric_on "$FABRIC_DIR" fabric_g_set "${FABRIC_ARGS[0]}" "delay=${FABRIC_ARGS[1]}"
}

fabric_rate() {
	local l rate leaf=plain queue=50
	fabric_args "$@"
	set -- "${FABRIC_ARGS[@]}"
	l=$1 rate=$2
	shift 2
	while [ $# -gt 0 ]; do
		case "$1" in
		--ecn) leaf=$2; shift 2 ;;
		--queue) queue=$2; shift 2 ;;
		*) fabric_fail "fabric_rate: unknown option $1"; return 1 ;;
		esac
	done
	[ "$rate" != none ] || rate=""
	fabric_on "$FABRIC_DIR" fabric_g_set "$l" "rate=$rate" "leaf=$leaf" "queue=$queue"
}

fabric_ecn() {
	fabric_args "$@"
	fabric_rate "${FABRIC_ARGS[0]}" "${FABRIC_ARGS[1]}" --ecn "${FABRIC_ARGS[2]:-red}" \
		--dir "$FABRIC_DIR"
}

fabric_blackhole() {
	fabric_args "$@"
	fabric_on "$FABRIC_DIR" fabric_g_blackhole "${FABRIC_ARGS[0]}" on
}

fabric_unblackhole() {
	fabric_args "$@"
	fabric_on "$FABRIC_DIR" fabric_g_blackhole "${FABRIC_ARGS[0]}" off
}

# fabric_link_set L up|down [--admin] [--dir D]
fabric_link_set() {
	local l=$1 state=$2 admin=0 vm carrier=1
	shift 2
	fabric_args "$@"
	[ "${FABRIC_ARGS[0]:-}" = --admin ] && admin=1
	if [ $admin = 1 ]; then
		fabric_on "$FABRIC_DIR" fabric_g_admin "$l" "$state"
		return
	fi
	[ "$FABRIC_DIR" = both ] || fabric_fail "a carrier drops on both ends (--dir needs --admin)" || return 1
	[ "$state" = down ] && carrier=0
	for vm in a b; do
		"$BED" monitor "$vm" "set_link l$l $([ $carrier = 1 ] && echo on || echo off)" >/dev/null
	done
	fabric_on both fabric_g_wait "carrier $carrier on eth$l" fabric_g_carrier_is "$l" "$carrier"
	fabric_on both fabric_g_wait "routes of eth$l following carrier $carrier" \
		fabric_g_routes_follow "$l" "$carrier"
}

fabric_link_down() { fabric_link_set "$1" down "${@:2}"; }
fabric_link_up() { fabric_link_set "$1" up "${@:2}"; }

# The cross traffic of link L from router X to router Y uses UDP/TCP port
# 5300 + L (X -> Y) or 5310 + L (Y -> X).
fabric_cross() {
	local l mode=udp mbit="" tos=0 size=1400 secs=86400 vm port
	fabric_args "$@"
	set -- "${FABRIC_ARGS[@]}"
	l=$1
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--mbit) mbit=$2; shift 2 ;;
		--tos) tos=$2; shift 2 ;;
		--size) size=$2; shift 2 ;;
		--time) secs=$2; shift 2 ;;
		--tcp) mode=tcp; shift ;;
		*) fabric_fail "fabric_cross: unknown option $1"; return 1 ;;
		esac
	done
	[ $mode = tcp ] || [ -n "$mbit" ] || fabric_fail "fabric_cross: --mbit R or --tcp" || return 1
	for vm in $(fabric_routers "$FABRIC_DIR"); do
		port=$((5300 + l))
		[ "$vm" = b ] && port=$((5310 + l))
		fabric_g_run "$(fabric_peer "$vm")" fabric_g_cross_sink "$l" "$port" "$mode" || return 1
		fabric_g_run "$vm" fabric_g_cross_source "$l" "$port" "$mode" "$mbit" "$tos" "$size" "$secs" ||
			return 1
	done
}

fabric_cross_stop() { fabric_on both fabric_g_cross_stop "$1"; }

# fabric_cross_status L [--dir D]: "ab|ba RX CE" of link L's UDP cross
# traffic, as its receiver counted it so far (datagrams, CE-marked ones).
fabric_cross_status() {
	local vm port
	fabric_args "$@"
	for vm in $(fabric_routers "$FABRIC_DIR"); do
		port=$((5300 + FABRIC_ARGS[0]))
		[ "$vm" = b ] && port=$((5310 + FABRIC_ARGS[0]))
		echo "$vm$(fabric_peer "$vm") $("$BED" exec "$(fabric_peer "$vm")" -- \
			awk '$1 == "total" { print $3, $5 }' "$FABRIC_RUN/cross$port.status")"
	done
}

fabric_clear() {
	local down l
	down=$( (fabric_g_run a fabric_g_clear "${1:-}" & fabric_g_run b fabric_g_clear "${1:-}"; wait) |
		sort -u) || return 1
	for l in $down; do
		fabric_link_up "$l" || return 1
	done
}

fabric_counters() {
	local a rc=0
	a=$(mktemp)
	fabric_g_run a fabric_g_counters "${1:-}" > "$a" &
	fabric_g_run b fabric_g_counters "${1:-}" > "$a.b" || rc=1
	wait $! || rc=1
	cat "$a" "$a.b"
	rm -f "$a" "$a.b"
	return $rc
}

fabric_gid_index() {
	local g=$1 dev=$2 addr
	addr=$(fabric_addr "$g" "${3:-4}")
	# shellcheck disable=SC2016 # expanded in the guest
	"$BED" exec "$g" -- bash -c '
		. "$0"
		want=$(if [ "$2" = 6 ]; then gid_of_ipv6 "$1"; else gid_of_ipv4 "$1"; fi)
		gid_index "$3" "$want"' "${FABRIC_LIB%/*}/link.bash" "$addr" "${3:-4}" "$dev"
}
