#!/usr/bin/env bash
# NFS over RDMA on metaroce at full size (selftests/cases/66-nfs-rdma.sh
# is the short CI version, run here with bigger sets): files of 0 B ..
# 16 MiB + 7 and 1000 small ones written, checked on the server and read
# back; 64 MiB through mrc0 and through rxe0 for the throughput; files up
# to 16 MiB + 7 and 200 small ones under 1% receive loss on both guests.
# bed-timeout: 1800
export NFS_CASE_SIZES="0 1 1023 4095 4096 4097 65537 1048589 4194311 16777223"
export NFS_CASE_LOSSY_SIZES="4097 1048589 4194311 16777223"
export NFS_CASE_SMALL=1000 NFS_CASE_LOSSY_SMALL=200 NFS_CASE_BIG_MB=64
exec "$(dirname "$0")/../cases/66-nfs-rdma.sh" "$@"
