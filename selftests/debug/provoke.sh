#!/usr/bin/env bash
# A bed case that makes the debug kernel report a bug on purpose, so that
# selftests/debug-detectors can check that run-bed fails on it. PROVOKE says
# which: WARNING, READ_AFTER_FREE, SPINLOCKUP (its first call returns to user
# space holding a spinlock: a lockdep report), SOFTLOCKUP, HUNG_TASK (lkdtm
# crash types), or KMEMLEAK (kmemleak-test's deliberate leaks). Never part of
# make test-debug.
set -euo pipefail
: "${BED:?}" "${PROVOKE:?PROVOKE names what to provoke}"
MRC_TIMEOUT=${MRC_TIMEOUT:-60}
# shellcheck source=selftests/cases/lib/link.bash
. "$(dirname "$0")/../cases/lib/link.bash"

DIRECT=/sys/kernel/debug/provoke-crash/DIRECT
KMEMLEAK=/sys/kernel/debug/kmemleak

# kmemleak reports an object only once it is 5 s old: scan until it does.
leaks_listed() {
	"$BED" exec a -- sh -c "echo scan > $KMEMLEAK && grep -q kmemleak_test $KMEMLEAK"
}

guest_a_gone() { ! "$BED" exec a -- true 2>/dev/null; }

case "$PROVOKE" in
KMEMLEAK)
	"$BED" exec a -- modprobe kmemleak-test
	"$BED" exec a -- rmmod kmemleak-test
	wait_until "kmemleak lists kmemleak-test's leaks" leaks_listed
	;;
SOFTLOCKUP | HUNG_TASK)
	# The guest panics: the write never returns.
	"$BED" exec a -- sh -c "modprobe lkdtm && echo $PROVOKE > $DIRECT" &
	MRC_TIMEOUT=150 wait_until "guest a panicked" guest_a_gone
	;;
*)
	"$BED" exec a -- sh -c "modprobe lkdtm && echo $PROVOKE > $DIRECT" || true
	;;
esac
