#!/usr/bin/env bash
# The hostile process of selftests/cases/47-user-fuzz.sh at length: for
# each seed of MRC_UFUZZ_SEEDS (default "11 12"), mrc_ufuzz runs up to
# MRC_UFUZZ_OPS operations (default 1500; at most 20 minutes each) as uid
# 65534, with the same checks (every refusal the uAPI promises, each class
# refused at least once, a verified transfer after); then 10,000
# QP/CQ/MR/AH create-destroy cycles with verified traffic
# (MRC_UFUZZ_CYCLES); then rmmod, netdev deletion and namespace deletion
# under verified traffic, MRC_UFUZZ_TEARDOWNS times (default 5) each; and
# rmmod at the end. The bed checks the kernel logs.
# bed-timeout: 5400
set -euo pipefail
# shellcheck source=../cases/lib/ufuzz.bash
. "$(dirname "$0")/../cases/lib/ufuzz.bash"

SEEDS=${MRC_UFUZZ_SEEDS:-11 12}
OPS=${MRC_UFUZZ_OPS:-1500}
CYCLES=${MRC_UFUZZ_CYCLES:-10000}
TEARDOWNS=${MRC_UFUZZ_TEARDOWNS:-5}

case_guest_cleanup() { uf_cleanup; }

case_main "$@"
g a uf_up 1
g b uf_up 2
g b uf_peer mrc0 "$UF_PORT" 5400
for seed in $SEEDS; do
	echo "fuzzing with seed $seed"
	g a uf_fuzz "$seed" "$OPS" 1200
done
echo "churn: $CYCLES cycles"
g a uf_churn "$CYCLES" "${SEEDS%% *}"
uf_teardowns_setup
for ((i = 1; i <= TEARDOWNS; i++)); do
	echo "teardowns, round $i"
	uf_teardowns
done
g a uf_rmmod
g a uf_log_clean "$MRC_CASE"
echo "ok: 47-user-fuzz-long"
