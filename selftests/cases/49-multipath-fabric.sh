#!/usr/bin/env bash
# bed: --fabric ecmp --links 4
# One RC connection over the ECMP fabric of 4 links (selftests/cases/lib/
# fabric.bash) keeps moving verified data while a link it uses is silently
# black-holed in both directions and then restored, and while a link it
# uses loses 20% of its packets ([PATH-5], [PATH-6], [PATH-7], [PATH-11]).
#
# The data: mrc_verbs_check -V streams rounds of 256 4 KiB WRITEs, each
# round with its own pattern, reads every round back with one 1 MiB READ
# and checks it; around the stream it runs every other verbs step with
# each byte checked on the side that receives it. The stream runs until
# this case has seen what it waits for (-T STOP).
#
# The conditions, each waited for: the connection is streaming; after the
# blackhole of the link one of its paths hashes onto, a path failed and
# moved to a new port (restrack p<i>_reentropies), no path's data (a's
# routes of its ports) nor ACKs (b's routes of the ports it answers on)
# take the dark link any more, and the stream moved 2 MiB more; after the
# repair 2 MiB more; with 20% loss on a link a path uses, 2 MiB more;
# then the run ends with every step passed on both sides.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"
# shellcheck source=lib/fabric.bash
. "$(dirname "$0")/lib/fabric.bash"

PORT=18749
TOOL=$TOP/build/userspace/tools/mrc_verbs_check
SLOG=/tmp/49-multipath.server	# guest b
CLOG=/tmp/49-multipath.client	# guest a
STOP=/tmp/49-multipath.stop	# guest a

# ---------------------------------------------------------------- guest side
up() {
	[ -x "$TOOL" ] || fail "no $TOOL (make userspace)"
	rm -f "$STOP"
	rdma link add mrc0 type metaroce netdev "$FABRIC_EP"
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
}

server() {
	bg_run "$SLOG" 600 "$TOOL" -d mrc0 -g "$1" -p "$PORT" -w 0
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

client() {
	bg_run "$CLOG" 600 "$TOOL" -d mrc0 -g "$1" -p "$PORT" -w 0 -V -T "$STOP" "$2"
}

# The client's RC QP's driver attribute NAME (restrack), summed over the
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

# acked_beyond N: the client's paths acknowledged more than N packets
acked_beyond() { [ "$(qp_attr 'p*_acked')" -gt "$1" ]; }
moved_beyond() { [ "$(qp_attr 'p*_reentropies')" -gt "$1" ]; }

# off_link ATTR L: no path of this guest's QP sends on link L with the
# UDP source port restrack names p<i>_ATTR (a: sport, its data; b:
# ack_sport, its ACKs of a's paths, [PATH-11]), to metaroce's port
off_link() {
	local attr=$1 l=$2 i port link
	for ((i = 0; i < 4; i++)); do
		port=$(qp_attr "p${i}_$attr")
		[ "$port" -gt 0 ] || return 1
		link=$(fabric_g_map 4 61791 "$port" "$port" | awk '{ print $2 }')
		[ -n "$link" ] && [ "$link" != "$l" ] || return 1
	done
}

stop() { touch "$STOP"; }

done_ok() {
	local log=$1 who=$2
	MRC_TIMEOUT=300 wait_until "$who finished" test -e "$log.rc"
	grep -E '^(ok|fail) ' "$log" | sed "s/^/  $who: /"
	[ "$(cat "$log.rc")" = 0 ] || fail "$who exit status $(cat "$log.rc"): $(tail -5 "$log")"
	grep -q "$who: all steps passed" "$log" || fail "$who did not pass every step"
}

case_guest_cleanup() { touch "$STOP"; }

# ----------------------------------------------------------------- host side
case_main "$@"
fabric_require
case_host_cleanup() { fabric_clear; }
for vm in a b; do
	g "$vm" up
done
ga=$(fabric_gid_index a mrc0 4)
gb=$(fabric_gid_index b mrc0 4)
g b server "$gb"
g a client "$ga" "$(fabric_far_addr a 4)"

# 512 packets: the stream's first 2 MiB
g a wait_until "the connection streams" acked_beyond 512

# [PATH-5] a link one of the paths takes goes dark both ways
sport=$(g a qp_attr p0_sport)
link=$(fabric_link_of a "$sport" 61791)
echo "  path 0 (port $sport) takes link $link: black-holed"
moves=$(g a qp_attr 'p*_reentropies')
fabric_blackhole "$link"
g a wait_until "a path failed and moved to a new port" moved_beyond "$moves"
g a wait_until "no path's data on link $link" off_link sport "$link"
g b wait_until "no path's ACKs on link $link" off_link ack_sport "$link"
acked=$(g a qp_attr 'p*_acked')
g a wait_until "2 MiB more while link $link is dark" acked_beyond $((acked + 512))
fabric_counters "$link" | sed 's/^/  counters: /'
fabric_unblackhole "$link"
acked=$(g a qp_attr 'p*_acked')
g a wait_until "2 MiB more after the repair" acked_beyond $((acked + 512))

# [PATH-6] a link a path takes loses 20%
sport=$(g a qp_attr p1_sport)
link=$(fabric_link_of a "$sport" 61791)
echo "  path 1 (port $sport) takes link $link: 20% loss"
fabric_loss "$link" 20
acked=$(g a qp_attr 'p*_acked')
g a wait_until "2 MiB more at 20% loss on link $link" acked_beyond $((acked + 512))
fabric_counters "$link" | sed 's/^/  counters: /'
fabric_loss "$link" 0

echo "  paths moved $(g a qp_attr 'p*_reentropies') times after failures, $(g a qp_attr 'p*_repaths') to spread ([PATH-10])"
g a stop
g a done_ok "$CLOG" client
g b done_ok "$SLOG" server
echo "ok: 49-multipath-fabric"
