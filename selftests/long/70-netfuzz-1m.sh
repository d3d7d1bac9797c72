#!/usr/bin/env bash
# The network fuzzer at full scale: as selftests/cases/70-netfuzz.sh, with
# 1,000,000 datagrams in 50 rounds and NVMe-oF beside the verified verbs
# runs (nvme-rdma in guest a, nvmet-rdma in guest b: fio jobs that write
# namespace 1 and read every block back, one after another while the
# fuzzer runs). The seed is new each run unless NETFUZZ_SEED says which
# (printed, with every round's replay command on a failure). On a slow
# guest kernel (the debug one, MRC_SLOW > 1: about 100 datagrams/s) the
# rounds end once 1,000,000 packets are sent (about 17 rounds, an hour
# instead of 3.5 h); NETFUZZ_PACKETS sets that goal on any kernel.
# bed-timeout: 7200
set -euo pipefail
# shellcheck source=../cases/lib/cm.bash
. "$(dirname "$0")/../cases/lib/cm.bash"
# shellcheck source=../cases/lib/nvmeof.bash
. "$(dirname "$0")/../cases/lib/nvmeof.bash"
# shellcheck source=../cases/lib/netfuzz.bash
. "$(dirname "$0")/../cases/lib/netfuzz.bash"

# shellcheck disable=SC2034 # read by lib/netfuzz.bash
NF_SEED=${NETFUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
# shellcheck disable=SC2034
NF_ROUNDS=50 NF_COUNT=20000 NF_RATE=1000 NF_ROUND_S=600 NF_NVME=${NETFUZZ_NVME:-1} NF_FIO_SIZE=16M
# shellcheck disable=SC2034
NF_PACKETS=${NETFUZZ_PACKETS:-}

case_main "$@"
[ -n "$NF_PACKETS" ] || [ "$MRC_SLOW" = 1 ] || NF_PACKETS=1000000
nf_run
echo "ok: 70-netfuzz-1m"
