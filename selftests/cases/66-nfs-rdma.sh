#!/usr/bin/env bash
# NFS over RDMA on metaroce: the kernel NFS server (nfsd, svcrdma) in guest
# b exports a tmpfs over NFSv4.2, listening on RDMA port 20049 only; the
# kernel client (xprtrdma) in guest a mounts it with proto=rdma through mrc0
# (eth0). svcrdma and xprtrdma use what the NVMe-oF case does not: RPC
# calls in SENDs with the payload placed by RDMA WRITE (reads, replies) and
# pulled by RDMA READ (writes), chunk lists, the 4.1 backchannel.
#   - 73 files (0 B .. 4 MiB + 7, 64 small ones) written, their
#     checksums on the server equal the source's, then read back through a
#     fresh mount (client caches dropped) and compared
#   - mrc0's byte counters grew by at least what moved, no TCP socket to
#     NFS's port and almost no TCP traffic at all
#   - an 8 MiB file written and read back (compared) through mrc0, then
#     through rdma_rxe (rxe0 on eth1, the same export): MB/s side by side
#   - 1% of the datagrams each guest receives dropped (the module's fault
#     injection): files up to 1 MiB and 16 small ones, written, read
#     back, compared; the drops counted
# The long variant (selftests/long/68-nfs-rdma-64m.sh) moves files up to
# 16 MiB, 1000 small ones, 64 MiB for the throughput, 16 MiB under loss.
# bed-timeout: 300
set -euo pipefail
# shellcheck source=lib/cm.bash
. "$(dirname "$0")/lib/cm.bash"
# shellcheck source=lib/kconsumer.bash
. "$(dirname "$0")/lib/kconsumer.bash"
# shellcheck source=lib/nfs.bash
. "$(dirname "$0")/lib/nfs.bash"

# The sizes, smaller than the long variant's (selftests/long/68-nfs-rdma-64m.sh
# sets NFS_CASE_* and runs this file): the files of the first set and of
# the set that moves under loss (bytes), how many small files each has,
# the MiB of the throughput file.
SIZES=${NFS_CASE_SIZES:-0 1 1023 4095 4096 4097 65537 1048589 4194311}
LOSSY_SIZES=${NFS_CASE_LOSSY_SIZES:-4097 1048589}
SMALL=${NFS_CASE_SMALL:-64}
LOSSY_SMALL=${NFS_CASE_LOSSY_SMALL:-16}
BIG_MB=${NFS_CASE_BIG_MB:-8}
# the export through rxe0 (eth1)
NFS_RXE_SRV=10.0.1.2

# ---------------------------------------------------------------- guest side
rxe_up() {
	modprobe -a crc32_generic rdma_rxe
	rdma link add rxe0 type rxe netdev eth1
	wait_until "rxe0 ACTIVE" port_is rxe0 "4: ACTIVE"
}

rxe_down() { rdma link delete rxe0 2>/dev/null || true; }

rxe_pkts() {
	local c=$IB/rxe0/ports/1/hw_counters
	echo $(($(cat "$c/sent_pkts") + $(cat "$c/rcvd_pkts")))
}

# big_rates ADDR TAG MB: MB MiB written through the mount of ADDR and read
# back through a fresh one, verified; prints "TAG write MB/s read MB/s".
big_rates() {
	local w r
	[ -e "$NFS_SRC/big" ] || head -c $(($3 << 20)) /dev/urandom > "$NFS_SRC/big"
	rm -f "$NFS_MNT/big" /tmp/nfs-big.back
	w=$(dd_rate "$NFS_SRC/big" "$NFS_MNT/big")
	nfs_remount "$1"
	r=$(dd_rate "$NFS_MNT/big" /tmp/nfs-big.back)
	cmp "$NFS_SRC/big" /tmp/nfs-big.back || fail "$2: the $3 MiB file read back differs"
	rm -f /tmp/nfs-big.back "$NFS_MNT/big"
	echo "$2 $w $r"
}

case_guest_cleanup() {
	[ -e "$FAULT/mode" ] && echo 0 > "$FAULT/mode"
	case $MRC_VM in
	a) nfs_client_down ;;
	b) nfs_server_down ;;
	esac
	rxe_down
}

# ----------------------------------------------------------------- host side
case_main "$@"
# the two guests' modules load at the same time
g b nfs_server_up &
g a nfs_client_up &
wait -n && wait -n
g a nfs_mount "$SRV4"

# ---- files of several sizes, checked on the server and read back
# shellcheck disable=SC2086 # lists of sizes
g a nfs_make_files base "$SMALL" $SIZES
src=$(g a nfs_sums base)
g a stat_mark
g a nfs_write base
[ "$(g b nfs_export_sums base)" = "$src" ] || fail "the server stores other bytes than were written"
echo "server: $(wc -l <<<"$src") files stored, checksums equal the source's"
g a nfs_remount "$SRV4"
g a nfs_check base
read -r tx rx segs < <(g a stat_delta)
bytes=$(g a bytes_of "$NFS_SRC/base")
echo "mrc0 on a: $tx bytes sent, $rx received for $bytes bytes each way; $segs TCP segments"
[ "$tx" -ge "$bytes" ] || fail "mrc0 sent $tx bytes, less than the $bytes written"
[ "$rx" -ge "$bytes" ] || fail "mrc0 received $rx bytes, less than the $bytes read"
# an RDMA mount's bytes go nowhere else: the client's only TCP is none
[ "$segs" -lt 100 ] || fail "$segs TCP segments while NFS ran"
! g a nfs_tcp_socket || fail "a TCP socket to or from port 2049 on a"

# ---- throughput: metaroce, then rdma_rxe on eth1 to the same export
mrc=$(g a big_rates "$SRV4" metaroce "$BIG_MB")
g a nfs_umount
g a rxe_up &
g b rxe_up &
wait -n && wait -n
g a stat_mark
p0=$(g a rxe_pkts)
g a nfs_mount "$NFS_RXE_SRV" >/dev/null
rxe=$(g a big_rates "$NFS_RXE_SRV" rxe "$BIG_MB")
read -r tx rx _ < <(g a stat_delta)
p1=$(g a rxe_pkts)
[ $((p1 - p0)) -gt $((2 * (BIG_MB << 20) / 4096)) ] ||
	fail "rxe0 moved only $((p1 - p0)) packets for 2 x $BIG_MB MiB"
[ $((tx + rx)) -lt $((1 << 20)) ] || fail "mrc0 moved $((tx + rx)) bytes while rxe0 ran"
g a nfs_umount
g a rxe_down
g b rxe_down
python3 - "$mrc" "$rxe" "$BIG_MB" <<-'EOF'
	import sys
	m, r = (s.split() for s in sys.argv[1:3])
	mw, mr, rw, rr = float(m[1]), float(m[2]), float(r[1]), float(r[2])
	print("throughput (dd of %s MiB, 1 MiB blocks, NFSv4.2 over RDMA, verified): "
	      "metaroce write %.1f MB/s read %.1f MB/s; rxe write %.1f MB/s read %.1f MB/s; "
	      "metaroce / rxe: write %.2f, read %.2f" % (sys.argv[3], mw, mr, rw, rr, mw / rw, mr / rr))
EOF

# ---- 1% of every guest's received datagrams dropped
g a nfs_mount "$SRV4" >/dev/null
g a fault_set 10000 66
g b fault_set 10000 67
# shellcheck disable=SC2086 # lists of sizes
g a nfs_make_files lossy "$LOSSY_SMALL" $LOSSY_SIZES
src=$(g a nfs_sums lossy)
g a nfs_write lossy
[ "$(g b nfs_export_sums lossy)" = "$src" ] || fail "under loss the server stores other bytes than were written"
g a nfs_remount "$SRV4"
g a nfs_check lossy
da=$(g a fault_dropped)
db=$(g b fault_dropped)
echo "1% loss: dropped $da on a, $db on b; retransmits on a: $(g a dev_stat mrc0 retransmits)"
[ "$da" -gt 0 ] || fail "nothing dropped on a"
[ "$db" -gt 0 ] || fail "nothing dropped on b"
g a fault_set 0
g b fault_set 0
g a nfs_umount
g a nfs_client_down
g b nfs_server_down
echo "ok: 66-nfs-rdma"
