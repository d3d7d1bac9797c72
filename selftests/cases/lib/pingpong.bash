# shellcheck shell=bash
# ibv_rc_pingpong between the guests with every received buffer checked by
# the tool (-c): server in guest b, client in guest a. Both ends must exit 0
# and print their iteration count. Source after link.bash and set, at the top
# of the case (it runs on the host and in the guests):
#   PORT        TCP port of the pingpong handshake
#   SLOG        server output file in guest b (exit status in $SLOG.rc)
#   PP_DEV      RDMA device in both guests
#   PP_ADDR     the server's address as the client dials it
#   PP_TIMEOUT  seconds one run may take (default 120)
#   PP_NOTE     shown beside each run (optional)

pp_server() {
	bg_run "$SLOG" "${PP_TIMEOUT:-120}" ibv_rc_pingpong -p "$PORT" -d "$PP_DEV" -g 1 -c "$@"
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

pp_server_done() {
	MRC_TIMEOUT=$((${PP_TIMEOUT:-120} + 10)) wait_until "server finished" test -e "$SLOG.rc"
	cat "$SLOG"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc")"
	grep -q "iters in" "$SLOG" || fail "server printed no result"
}

pp_client() {
	local out
	out=$(timeout "${PP_TIMEOUT:-120}" ibv_rc_pingpong -p "$PORT" -d "$PP_DEV" -g 1 -c "$@" \
		"$PP_ADDR" 2>&1) || fail "client failed: $out"
	echo "$out" | tail -1
	echo "$out" | grep -q "iters in" || fail "client printed no result"
}

# Host side: one verified exchange with the given ibv_rc_pingpong options.
pp_run() {
	echo "ibv_rc_pingpong $*${PP_NOTE:+ ($PP_NOTE)}"
	g b pp_server "$@"
	g a pp_client "$@"
	g b pp_server_done
}
