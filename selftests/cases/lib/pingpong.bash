# shellcheck shell=bash
# ibv_rc_pingpong (or ibv_uc_pingpong: PP_TOOL) between the guests with
# every received buffer checked by the tool (-c): server in guest b, client in guest a. Both ends must exit 0
# and print their iteration count. Source after link.bash and set, at the top
# of the case (it runs on the host and in the guests):
#   PORT        TCP port of the pingpong handshake
#   SLOG        server output file in guest b (exit status in $SLOG.rc)
#   PP_DEV      RDMA device in both guests
#   PP_ADDR     the server's address as the client dials it
#   PP_TIMEOUT  seconds one run may take (default 120)
#   PP_NOTE     shown beside each run (optional)
#   PP_TOOL     ibv_rc_pingpong (default) or ibv_uc_pingpong, per run

pp_server() {	# TOOL ARGS...
	local tool=$1
	shift
	bg_run "$SLOG" "${PP_TIMEOUT:-120}" "$tool" -p "$PORT" -d "$PP_DEV" -g 1 -c "$@"
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

pp_server_done() {
	MRC_TIMEOUT=$((${PP_TIMEOUT:-120} + 10)) wait_until "server finished" test -e "$SLOG.rc"
	cat "$SLOG"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc")"
	grep -q "iters in" "$SLOG" || fail "server printed no result"
}

pp_client() {	# TOOL ARGS...
	local tool=$1 out
	shift
	out=$(timeout "${PP_TIMEOUT:-120}" "$tool" -p "$PORT" -d "$PP_DEV" -g 1 -c "$@" \
		"$PP_ADDR" 2>&1) || fail "client failed: $out"
	echo "$out" | tail -1
	echo "$out" | grep -q "iters in" || fail "client printed no result"
}

# Host side: one verified exchange with the given ibv_rc_pingpong options.
pp_run() {
	echo "${PP_TOOL:-ibv_rc_pingpong} $*${PP_NOTE:+ ($PP_NOTE)}"
	g b pp_server "${PP_TOOL:-ibv_rc_pingpong}" "$@"
	g a pp_client "${PP_TOOL:-ibv_rc_pingpong}" "$@"
	g b pp_server_done
}

# pp_run with ibv_uc_pingpong ([OPS-40]): UC QPs, buffers checked too.
pp_run_uc() { PP_TOOL=ibv_uc_pingpong pp_run "$@"; }
