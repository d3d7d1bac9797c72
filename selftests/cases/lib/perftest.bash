# shellcheck shell=bash
# perftest between the guests: server in guest b, client in guest a, over
# the TCP exchange. Both must exit 0 and print their result line, which
# starts with the message size and the iteration count. Source after
# link.bash and set, at the top of the case (it runs on the host and in the
# guests):
#   SLOG      server output file in guest b (exit status in $SLOG.rc)
#   PT_ARGS   arguments of every run, e.g. (-d mrc0 -x 1 -F)
#   PT_SERVER the server's address as the client dials it (default 10.0.0.2)

# pt_server TOOL PORT ARGS...
pt_server() {
	local tool=$1 port=$2
	shift 2
	bg_run "$SLOG" 150 "$tool" "${PT_ARGS[@]}" "$@" -p "$port"
	wait_until "$tool server listening on $port" tcp_listening "$port"
}

# pt_server_done [SIZE ITERS]: exit 0 and, given SIZE, its result line
# (ib_read_lat's server only answers READs and prints none)
pt_server_done() {
	MRC_TIMEOUT=160 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
	[ $# = 0 ] || grep -Eq "^ *$1 +$2 " "$SLOG" || fail "server printed no result: $(cat "$SLOG")"
}

# pt_client TOOL PORT SIZE ITERS ARGS...
pt_client() {
	local tool=$1 port=$2 size=$3 iters=$4 out
	shift 4
	out=$(timeout 150 "$tool" "${PT_ARGS[@]}" "$@" -p "$port" "${PT_SERVER:-10.0.0.2}" 2>&1) ||
		fail "$tool client failed: $out"
	echo "$out" | grep -E "^ *$size +$iters " || fail "$tool printed no result: $out"
}

# pt_run TOOL PORT SIZE ITERS ARGS... (host side): one run, both ends.
pt_run() {
	echo "$1 ${PT_ARGS[*]} -s $3 -n $4 ${*:5}"
	g b pt_server "$1" "$2" -s "$3" -n "$4" "${@:5}"
	g a pt_client "$1" "$2" "$3" "$4" -s "$3" -n "$4" "${@:5}"
	if [ "$1" = ib_read_lat ]; then
		g b pt_server_done
	else
		g b pt_server_done "$3" "$4"
	fi
}
