#!/usr/bin/env bash
# A hostile process (userspace/tools/ufuzz/README.md), short version: in
# guest a, as uid 65534, mrc_ufuzz writes garbage into its own rings and
# rings doorbells, posts WRs with bad keys, sends raw uverbs commands and
# mmaps, changes QP states under traffic, destroys objects with work
# outstanding (150 operations of every class, at most 90 s, and the
# indices of one QP taken across 2^32; then 40 operations of the memory
# window class alone: bent BIND_MW and LOCAL_INV slots); every operation
# must end in the error completion or errno the uAPI promises, each class
# must have drawn refusals, and a new QP must then move 1 MiB both ways
# with every byte right; then 221 operations of seed 11 again, which once
# left a send queue wedged in RTS. Then 200 QP/CQ/MR/AH create-destroy
# cycles with verified traffic;
# rmmod metaroce, the deletion of a macvlan under a device and of the
# namespace holding it, each under verified traffic, which the process
# must survive; and rmmod at the end. The bed checks the kernel logs.
# MRC_UFUZZ_SEED picks another seed (default 1).
# bed-timeout: 600
set -euo pipefail
# shellcheck source=lib/ufuzz.bash
. "$(dirname "$0")/lib/ufuzz.bash"

SEED=${MRC_UFUZZ_SEED:-1}

case_guest_cleanup() { uf_cleanup; }

# uf_mw SEED: the window class alone; its row of the summary (class ops
# wc_ok wc_err ...) must show every operation and its refusals.
uf_mw() {
	uf_fuzz "$1" 40 60 --classes mw
	awk '$1 == "mw" && $2 == 40 && $4 >= 30 { ok = 1 } END { exit !ok }' /tmp/uf.out ||
		fail "mw class: not 40 operations ending in bind errors"
}

case_main "$@"
g a uf_up 1
g b uf_up 2
g b uf_peer mrc0 "$UF_PORT" 600
echo "fuzzing with seed $SEED (${SECONDS}s)"
g a uf_fuzz "$SEED" 150 90
# A replay of what the long fuzzer found: seed 11's 220th operation posts
# an ATOMIC with a bad key on a QP whose responder had failed after
# acknowledging the request; the connection ran out of retries while the
# ATOMIC waited for its response, and the send queue stayed in RTS with
# every WQE behind it unreported (kernel/tx.c, mrc_tx_fail_waiters()).
echo "replay: seed 11, 221 operations (${SECONDS}s)"
g a uf_replay 11 221 150
echo "memory windows (${SECONDS}s)"
g a uf_mw "$SEED"
echo "churn (${SECONDS}s)"
g a uf_churn 200 "$SEED"
uf_teardowns_setup
uf_teardowns
g a uf_rmmod
g a uf_log_clean "$MRC_CASE"
echo "ok: 47-user-fuzz (${SECONDS}s)"
