# shellcheck shell=bash
# mrc_verbs_check (userspace/tools/verbs_check.cc) between the guests over
# mrc0, for the cases that need a verified RC connection beside what they
# check (82, 83): started detached, its output in LOG.PORT and its exit
# status in LOG.PORT.rc, one TCP port per connection.
# shellcheck source=selftests/cases/lib/link.bash
. "$(dirname "${BASH_SOURCE[0]}")/link.bash"

VERBS_TOOL=$TOP/build/userspace/tools/mrc_verbs_check

# verbs_start LOG PORT [OPTION...] [SERVER]: a server, or with SERVER (its
# IPv4 address) a client, on GID 1 of mrc0
verbs_start() {
	local log=$1 port=$2
	shift 2
	[ -x "$VERBS_TOOL" ] || fail "no $VERBS_TOOL (make userspace)"
	bg_run "$log.$port" 300 "$VERBS_TOOL" -d mrc0 -g 1 -p "$port" "$@"
}

# verbs_done WHO LOG PORT: WHO (client or server) on PORT exited 0 and
# passed every step; prints its first checksums
verbs_done() {
	local who=$1 log=$2.$3
	MRC_TIMEOUT=300 wait_until "$who on port $3 finished" test -e "$log.rc"
	[ "$(cat "$log.rc")" = 0 ] ||
		fail "$who on $3: exit status $(cat "$log.rc"): $(grep -E '^fail' "$log"; tail -3 "$log")"
	grep -q "$who: all steps passed" "$log" || fail "$who on $3 did not pass every step"
	grep -E '^ok .*fnv' "$log" | head -2 | sed "s/^/  $MRC_VM $3: /"
}
