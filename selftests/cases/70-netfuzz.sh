#!/usr/bin/env bash
# Hostile network ([SEC-11]): the network fuzzer (mrc_netfuzz, userspace/
# tools/netfuzz) in guest b sends up to 16,000 valid, nearly valid and
# random datagrams, ACK and packet bundles among them, to guest a's mrc0,
# in 4 rounds of at most 30 s each (a loaded host sends fewer): to QP 0,
# QP 1, random QPNs, the live RC and UD QPs with right and wrong
# cookies, PSNs and MSNs, destroyed and lingering QPs, from the right and
# from wrong source addresses and many source ports. Meanwhile
# mrc_verbs_check runs every verbs operation and a stream of verified
# WRITEs into guest a, again and again, and sacrificial pingpongs come and
# go. Guest a must stay up, every verified byte must be right, its drop
# counters must have grown by what the fuzzer sent for each reason
# (rx_drop_malformed exactly) and its kernel log may hold nothing but the
# device's rate-limited reports. NETFUZZ_SEED (default 1) picks the
# datagrams; on a failure the case prints the seed, the command that sends
# the round again and the last datagrams it sent (lib/netfuzz.bash).
# NETFUZZ_NVME=1 adds NVMe-oF fio verify jobs; the 1,000,000-datagram run
# has them: selftests/long/70-netfuzz-1m.sh.
# bed-timeout: 600
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"
# shellcheck source=lib/nvmeof.bash
. "$(dirname "$0")/lib/nvmeof.bash"
# shellcheck source=lib/netfuzz.bash
. "$(dirname "$0")/lib/netfuzz.bash"

# shellcheck disable=SC2034 # read by lib/netfuzz.bash
NF_SEED=${NETFUZZ_SEED:-1}
# shellcheck disable=SC2034
NF_ROUNDS=4 NF_COUNT=4000 NF_RATE=500 NF_ROUND_S=30 NF_NVME=${NETFUZZ_NVME:-0} NF_FIO_SIZE=8M

case_main "$@"
nf_run
echo "ok: 70-netfuzz"
