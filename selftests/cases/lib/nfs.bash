# shellcheck shell=bash
# Helpers for the NFS over RDMA case (selftests/cases/66-nfs-rdma.sh): the
# kernel NFS server (nfsd with svcrdma) in guest b exporting a tmpfs, NFSv4.2
# only, listening on RDMA port 20049 and on nothing else; the kernel client
# (xprtrdma) in guest a mounting it with proto=rdma through the device that
# lib/cm.bash sets up (mrc0 on eth0; NFS_ADDR picks the address, so the
# same export is reached through an rxe device on eth1 too).
#
# nfs-utils comes from the host (make deps): mount.nfs is in the initramfs
# (it must mount in the guest's own mount namespace), the daemons run with
# hostrun. NFSv4 only, so neither rpcbind, statd nor lockd is needed.
# nfsdcld keeps the client records: with it and no client to reclaim, the
# server skips its grace period (90 s otherwise, in which OPEN fails).
# Source after cm.bash.

NFS_PORT=20049
NFS_EXPORT=/srv/nfs
NFS_MNT=/mnt/nfs
NFS_SRC=/tmp/nfs-src
NFS_VERS=4.2
NFSD=/proc/fs/nfsd
NFS_LIB=/var/lib/nfs
NFS_PIPEFS=$NFS_LIB/rpc_pipefs

# ------------------------------------------------------------ server (b)

nfs_server_up() {
	modprobe -a nfsd rpcrdma
	cm_up
	mkdir -p "$NFS_EXPORT" "$NFS_LIB/nfsdcld" "$NFS_PIPEFS" /etc/exports.d
	grep -q " $NFSD nfsd " /proc/mounts || mount -t nfsd nfsd "$NFSD"
	grep -q " $NFS_PIPEFS rpc_pipefs " /proc/mounts ||
		mount -t rpc_pipefs rpc_pipefs "$NFS_PIPEFS"
	grep -q " $NFS_EXPORT tmpfs " /proc/mounts ||
		mount -t tmpfs -o size=512m nfs-export "$NFS_EXPORT"
	# tmpfs has no UUID: the export needs an fsid
	echo "$NFS_EXPORT *(rw,no_root_squash,no_subtree_check,insecure,fsid=1)" > /etc/exports
	: > "$NFS_LIB/etab"
	: > "$NFS_LIB/rmtab"
	hostrun exportfs -ra || fail "exportfs"
	hostrun nfsdcld || fail "nfsdcld"
	hostrun rpc.mountd -N 2 -N 3 --no-udp || fail "rpc.mountd"
	echo "-2 -3 +4 +4.1 +4.2" > "$NFSD/versions"
	echo "rdma $NFS_PORT" > "$NFSD/portlist"
	echo 4 > "$NFSD/threads"
	MRC_TIMEOUT=60 wait_until "nfsd listening on rdma $NFS_PORT" cm_listening "$NFS_PORT"
	# svcrdma's listeners only (IPv4 and IPv6): no TCP or UDP socket
	! grep -vqx "rdma $NFS_PORT" "$NFSD/portlist" ||
		fail "nfsd listens on more than rdma $NFS_PORT: $(tr '\n' ' ' < "$NFSD/portlist")"
	echo "nfsd: versions $(cat "$NFSD/versions"), listening on $(sort -u "$NFSD/portlist")"
}

nfs_pids() { pidof nfsdcld rpc.mountd 2>/dev/null || true; }

nfs_server_down() {
	local p
	[ -e "$NFSD/threads" ] && echo 0 > "$NFSD/threads"
	for p in $(nfs_pids); do
		kill "$p" 2>/dev/null
	done
	[ -e "$NFSD/portlist" ] && hostrun exportfs -ua 2>/dev/null
	grep -q " $NFS_EXPORT tmpfs " /proc/mounts && umount "$NFS_EXPORT"
	grep -q " $NFS_PIPEFS rpc_pipefs " /proc/mounts && umount "$NFS_PIPEFS"
	grep -q " $NFSD nfsd " /proc/mounts && umount "$NFSD"
	# the listener holds the RDMA device: nothing of ours may when the
	# case deletes it
	modprobe -r nfsd rpcrdma 2>/dev/null || true
	return 0
}

# nfs_export_sums DIR: the checksums of what the server stores, as
# nfs_sums prints them for the client's source (the write path's check).
nfs_export_sums() { sums_of "$NFS_EXPORT/$1"; }

# sums_of DIR: the checksum of every file under DIR, by relative path
# (the test's file names have no blanks).
sums_of() { (cd "$1" && find . -type f | sort | xargs -r sha256sum); }

# bytes_of DIR: the bytes in all files under DIR.
bytes_of() { find "$1" -type f -exec stat -c %s {} + | awk '{ n += $1 } END { print n + 0 }'; }

# ------------------------------------------------------------- client (a)

nfs_client_up() {
	modprobe -a nfsv4 rpcrdma
	cm_up
	[ -e /etc/mtab ] || ln -s /proc/self/mounts /etc/mtab
	mkdir -p "$NFS_MNT"
}

nfs_mounted() { grep -q " $NFS_MNT nfs4 " /proc/mounts; }

# nfs_mount ADDR: the export through ADDR, over RDMA; the mount's options
# must say so.
nfs_mount() {
	local out opts o
	out=$(timeout 120 mount.nfs "$1:$NFS_EXPORT" "$NFS_MNT" \
		-o "vers=$NFS_VERS,proto=rdma,port=$NFS_PORT" 2>&1) || fail "mount.nfs $1: $out"
	nfs_mounted || fail "no nfs4 mount on $NFS_MNT"
	opts=$(awk -v m="$NFS_MNT" '$2 == m { print $4 }' /proc/mounts)
	for o in "vers=$NFS_VERS" proto=rdma "port=$NFS_PORT" "addr=$1"; do
		[[ ,$opts, == *,$o,* ]] || fail "mount options without $o: $opts"
	done
	echo "mounted $1:$NFS_EXPORT: $opts"
}

nfs_umount() {
	umount "$NFS_MNT" || fail "umount $NFS_MNT: $(grep " $NFS_MNT " /proc/mounts)"
	! nfs_mounted || fail "$NFS_MNT still mounted"
}

# nfs_remount ADDR: nothing of the files left in the client's caches.
nfs_remount() {
	nfs_umount
	sync
	echo 3 > /proc/sys/vm/drop_caches
	nfs_mount "$1" >/dev/null
}

nfs_client_down() {
	nfs_mounted && umount -f "$NFS_MNT"
	rm -rf "$NFS_SRC"
	modprobe -r nfsv4 rpcrdma 2>/dev/null || true
	return 0
}

# nfs_make_files DIR SMALL SIZE...: source files in $NFS_SRC/DIR, one of
# each SIZE (bytes), and SMALL files of 1 byte to 8 KiB.
nfs_make_files() {
	local d=$NFS_SRC/$1 n=$2 s i
	shift 2
	rm -rf "$d"
	mkdir -p "$d/small"
	for s in "$@"; do
		head -c "$s" /dev/urandom > "$d/f$s"
	done
	for ((i = 0; i < n; i++)); do
		head -c $((1 + RANDOM % 8192)) /dev/urandom > "$d/small/s$i"
	done
}

# nfs_sums DIR: checksums of the source files (the reference).
nfs_sums() { sums_of "$NFS_SRC/$1"; }

# nfs_write DIR: the source files copied onto the export, flushed to the
# server.
nfs_write() {
	rm -rf "${NFS_MNT:?}/$1"
	cp -r "$NFS_SRC/$1" "$NFS_MNT/$1" || fail "cp to $NFS_MNT/$1"
	sync
	echo "wrote $(find "$NFS_SRC/$1" -type f | wc -l) files, $(bytes_of "$NFS_SRC/$1") bytes"
}

# nfs_check DIR: every file read back through the mount matches its source.
nfs_check() {
	local out n
	out=$(cd "$NFS_MNT/$1" && nfs_sums "$1" | sha256sum -c 2>&1) ||
		fail "read back differs: $(grep -v ': OK$' <<<"$out" | head -n 5)"
	n=$(cd "$NFS_MNT/$1" && find . -type f | wc -l)
	[ "$n" = "$(cd "$NFS_SRC/$1" && find . -type f | wc -l)" ] || fail "$n files on the export"
	echo "read back $n files, all checksums match"
}

# Whether any TCP socket has NFS's port at either end.
nfs_tcp_socket() { awk '$2 ~ /:0801$/ || $3 ~ /:0801$/ { f = 1 } END { exit !f }' /proc/net/tcp /proc/net/tcp6; }

# dd_rate FROM TO: copy with 1 MiB blocks, print the MB/s (10^6 bytes/s).
dd_rate() {
	local t0 t1 bytes
	bytes=$(stat -c %s "$1")
	t0=$(cut -d' ' -f1 /proc/uptime)
	dd if="$1" of="$2" bs=1M conv=fsync 2>/dev/null || fail "dd $1 $2"
	t1=$(cut -d' ' -f1 /proc/uptime)
	awk -v b="$bytes" -v a="$t0" -v z="$t1" 'BEGIN { printf "%.1f\n", b / (z - a) / 1e6 }'
}
