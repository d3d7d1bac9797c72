#!/usr/bin/env bash
# UD QPs from user space over metaroce (mrc0 on eth0 in both guests):
#  - ibv_ud_pingpong with received buffers checked (-c), over the IPv4 and
#    the IPv6 (fd00::) RoCE v2 GID, message sizes 1 B up to the port's
#    active MTU, busy polling and with completion events (-e);
#  - udaddy (librdmacm: SIDR through QP1, then UD QPs, replies to an AH
#    made from the receive completion's GRH), two connections, IPv4 and IPv6;
#  - our mrc_ud_check in guest a, to b's IPv4 and IPv6 GID: AH numbers of
#    another PD, another context, a destroyed AH, or none at all, an
#    oversized SEND and a controlled Q_Key are refused (error completion,
#    QP in ERR, EINVAL or EPERM), a good AH works.
# Both ends must exit 0 and print their success lines. That the data had
# the size asked for is checked on the wire, in the device counters of
# each receiver: a UD_SEND of S payload bytes is S + 44 bytes after the
# UDP header (32 base + 8 UD_SEND + 4 ICRC, packets.rst [PKT-85]), which
# rx_bytes counts (udaddy sends with immediate data: 4 more); the only
# other UD packets are udaddy's CM MADs, 256 bytes of payload each (300),
# however many the CM sends.
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"

PORT=18746
UDADDY_PORT=7174	# udaddy's fixed port
SLOG=/tmp/46-ud.server	# in guest b: output, then .rc
UD_HDR=44		# base + UD_SEND + ICRC
UD_IMM=4		# ... + the immediate (udaddy's SEND_WITH_IMM)
MAD_PKT=300		# a MAD (256 bytes) as a UD_SEND

# ---------------------------------------------------------------- guest side


ud_up() {
	cm_up
	wait_until "IPv4 GID" gid_index "$DEV" "$(gid_of_ipv4 "$NET4.$1")" >/dev/null
	wait_until "IPv6 GID" gid_index "$DEV" "$(gid_of_ipv6 "${NET6}$1")" >/dev/null
}

# The -g index of this guest's (N: 1 in a, 2 in b) IPv4 or IPv6 GID.
my_gid() {
	local n=$1 fam=$2
	if [ "$fam" = 4 ]; then
		gid_index "$DEV" "$(gid_of_ipv4 "$NET4.$n")"
	else
		gid_index "$DEV" "$(gid_of_ipv6 "${NET6}$n")"
	fi
}

# The port's active MTU in bytes, e.g. 1024.
active_mtu() {
	ibv_devinfo -d "$DEV" | awk '$1 == "active_mtu:" { print $2; exit }'
}

# counters: "rx_packets rx_bytes rx_dropped" of DEV.
counters() {
	rdma statistic show link "$DEV/1" | awk '{
		for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		print v["rx_packets"], v["rx_bytes"], v["rx_dropped"] }'
}

save_counters() { counters > "/tmp/46-ud.counters"; }

# check_pingpong_rx ITERS SIZE: since save_counters, exactly ITERS
# datagrams of SIZE payload bytes arrived, and none was dropped.
check_pingpong_rx() {
	local iters=$1 size=$2 p0 b0 d0 p1 b1 d1
	read -r p0 b0 d0 < /tmp/46-ud.counters
	read -r p1 b1 d1 < <(counters)
	[ $((p1 - p0)) = "$iters" ] || fail "received $((p1 - p0)) packets, not $iters"
	[ $((b1 - b0)) = $((iters * (size + UD_HDR))) ] ||
		fail "received $((b1 - b0)) bytes, not $iters x ($size + $UD_HDR)"
	[ "$d1" = "$d0" ] || fail "$((d1 - d0)) packets dropped"
}

# check_udaddy_rx MSGS SIZE: since save_counters, MSGS datagrams of SIZE
# bytes with an immediate arrived besides any number of CM MADs, and none
# was dropped.
check_udaddy_rx() {
	local msgs=$1 size=$(($2 + UD_IMM)) p0 b0 d0 p1 b1 d1 p b k
	read -r p0 b0 d0 < /tmp/46-ud.counters
	read -r p1 b1 d1 < <(counters)
	p=$((p1 - p0)) b=$((b1 - b0))
	[ $((size + UD_HDR)) != "$MAD_PKT" ] || fail "size $2 is a MAD's: pick another"
	# b = k * (size + UD_HDR) + (p - k) * MAD_PKT
	k=$(((b - p * MAD_PKT) / (size + UD_HDR - MAD_PKT)))
	if [ $((k * (size + UD_HDR) + (p - k) * MAD_PKT)) != "$b" ] || [ "$k" != "$msgs" ]; then
		fail "received $p packets, $b bytes: not $msgs x $2 bytes + MADs"
	fi
	[ "$d1" = "$d0" ] || fail "$((d1 - d0)) packets dropped"
	echo "$MRC_VM: $k datagrams of $2 bytes, $((p - k)) MADs"
}

pp_server() {	# FAMILY ARGS...
	local g
	g=$(my_gid 2 "$1")
	shift
	save_counters
	bg_run "$SLOG" 120 ibv_ud_pingpong -p "$PORT" -d "$DEV" -g "$g" -c "$@"
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

# check_pp_output FILE ITERS SIZE: the result lines of what was asked
check_pp_output() {
	grep -q "^$(($2 * $3 * 2)) bytes in " "$1" ||
		fail "no line '$(($2 * $3 * 2)) bytes in': $(cat "$1")"
	grep -q "^$2 iters in " "$1" || fail "no line '$2 iters in': $(cat "$1")"
}

pp_client() {	# FAMILY ITERS SIZE ARGS...
	local g out iters=$2 size=$3
	g=$(my_gid 1 "$1")
	shift 3
	save_counters
	out=$(timeout 120 ibv_ud_pingpong -p "$PORT" -d "$DEV" -g "$g" -c "$@" \
		"$SRV4" 2>&1) || fail "client failed: $out"
	echo "$out" > /tmp/46-ud.client
	check_pp_output /tmp/46-ud.client "$iters" "$size"
	check_pingpong_rx "$iters" "$size"
	echo "$out" | grep "remote address"
	echo "$out" | tail -2
}

pp_server_done() {	# ITERS SIZE
	MRC_TIMEOUT=130 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
	check_pp_output "$SLOG" "$1" "$2"
	check_pingpong_rx "$1" "$2"
}

ua_server() {	# ADDR CONNS COUNT SIZE
	save_counters
	cm_server "$SLOG" "$UDADDY_PORT" udaddy -b "$1" -c "$2" -C "$3" -S "$4"
}

ua_client() {	# SERVER BIND CONNS COUNT SIZE
	local out
	save_counters
	out=$(timeout 120 udaddy -s "$1" -b "$2" -c "$3" -C "$4" -S "$5" 2>&1) ||
		fail "client failed: $out"
	if ! grep -q "^data transfers complete" <<<"$out" ||
		! grep -q "^return status 0" <<<"$out"; then
		fail "client: $out"
	fi
	check_udaddy_rx $(($3 * $4)) "$5"
}

ua_server_done() {	# CONNS COUNT SIZE
	cm_server_done "$SLOG" > /dev/null
	if ! grep -q "^sending replies" "$SLOG" || ! grep -q "^return status 0" "$SLOG"; then
		fail "server: $(cat "$SLOG")"
	fi
	check_udaddy_rx $(($1 * $2)) "$3"
}

ud_check() {	# FAMILY
	local out dest
	if [ "$1" = 4 ]; then
		dest=::ffff:$SRV4
	else
		dest=$SRV6
	fi
	out=$(timeout 60 "$TOP/build/userspace/tools/mrc_ud_check" -d "$DEV" \
		-g "$(my_gid 1 "$1")" "$dest" 2>&1) || fail "mrc_ud_check: $out"
	grep -q "^all steps passed" <<<"$out" || fail "mrc_ud_check: $out"
	grep -c "^ok " <<<"$out" | sed 's/$/ steps ok/'
}

case_guest_cleanup() { cm_kill ibv_ud_pingpong udaddy mrc_ud_check; }

# ----------------------------------------------------------------- host side
case_main "$@"
g a ud_up 1
g b ud_up 2
MTU=$(g a active_mtu)
if [ -z "$MTU" ] || [ "$MTU" -lt 256 ]; then
	fail "no active MTU: '$MTU'"
fi

# pp FAMILY ITERS SIZE [-e]: one verified ibv_ud_pingpong exchange
pp() {
	local fam=$1 iters=$2 size=$3
	shift 3
	echo "ibv_ud_pingpong IPv$fam GID, -s $size -n $iters $*"
	g b pp_server "$fam" -s "$size" -n "$iters" "$@"
	g a pp_client "$fam" "$iters" "$size" -s "$size" -n "$iters" "$@"
	g b pp_server_done "$iters" "$size"
}

pp 4 50 1
pp 4 20 256
pp 4 20 "$MTU"
pp 4 20 "$MTU" -e
pp 6 50 1
pp 6 20 "$MTU"
pp 6 20 "$MTU" -e

# ua SERVER CLIENT CONNS COUNT SIZE
ua() {
	echo "udaddy $1 <- $2, $3 connections x $4 messages of $5 bytes"
	g b ua_server "$1" "$3" "$4" "$5"
	g a ua_client "$1" "$2" "$3" "$4" "$5"
	g b ua_server_done "$3" "$4" "$5"
}

ua "$SRV4" "$CLI4" 2 5 100
ua "$SRV4" "$CLI4" 2 5 "$MTU"
ua "$SRV6" "$CLI6" 2 5 100
ua "$SRV6" "$CLI6" 2 5 "$MTU"

# last: its datagrams to a QP b does not have count as drops there
echo "mrc_ud_check to b's IPv4 GID"
g a ud_check 4
echo "mrc_ud_check to b's IPv6 GID"
g a ud_check 6
echo "ok: 46-ud"
