# shellcheck shell=bash
# Helpers for the NVMe over Fabrics cases (selftests/cases/65-nvmeof.sh,
# selftests/long/6*-nvmeof-*.sh): an nvmet-rdma target in guest b with two
# namespaces, 1 on a memory-backed null_blk device and 2 on a loop device
# over a file, and the nvme-rdma host in guest a, both on the device that
# lib/cm.bash sets up (mrc0 on eth0; MRC_CM_* run the same steps over
# another device, e.g. rdma_rxe). Every step waits for what it needs with a
# timeout; fio verifies what it wrote (crc32c in every block) and the file
# system steps compare checksums. Source after cm.bash.
#
# NVMF_PORT (default 4420) and NVMF_NQN name the target; NVMF_PORTID is the
# nvmet port's configfs name.

NVMF_NQN=${NVMF_NQN:-nqn.2026-12.io.metaroce:nvmeof-test}
NVMF_PORT=${NVMF_PORT:-4420}
NVMF_PORTID=${NVMF_PORTID:-1}
NVMF_HOSTID=00000000-0000-4000-8000-00000000000a
NVMF_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$NVMF_HOSTID
NVMF_CFG=/sys/kernel/config
NVMF_SUB=$NVMF_CFG/nvmet/subsystems/$NVMF_NQN
NVMF_PORTDIR=$NVMF_CFG/nvmet/ports/$NVMF_PORTID
NVMF_NULLB=$NVMF_CFG/nullb/mrcnull
NVMF_IMG=/tmp/nvmf-loop.img
NVMF_LOOPDEV=/tmp/nvmf-loop.dev
# The host's reconnect delay (s): the port cases wait for a reconnect.
NVMF_RECONNECT_DELAY=${NVMF_RECONNECT_DELAY:-2}

# ------------------------------------------------------------ target (b)

nvmf_configfs() {
	grep -q " $NVMF_CFG configfs " /proc/mounts ||
		mount -t configfs configfs "$NVMF_CFG"
}

# nvmf_target_up NULL_MB LOOP_MB: both namespaces and the port, listening.
nvmf_target_up() {
	local null_mb=$1 loop_mb=$2 loopdev ns
	modprobe -a nvmet nvmet-rdma loop configfs
	modprobe null_blk nr_devices=0
	nvmf_configfs
	cm_up

	# namespace 1: null_blk that keeps what is written (memory_backed)
	mkdir "$NVMF_NULLB"
	echo "$null_mb" > "$NVMF_NULLB/size"
	echo 1 > "$NVMF_NULLB/memory_backed"
	echo 4096 > "$NVMF_NULLB/blocksize"
	echo 1 > "$NVMF_NULLB/power"
	# namespace 2: a loop device over a file (in the guest's RAM)
	rm -f "$NVMF_IMG"
	truncate -s "${loop_mb}M" "$NVMF_IMG"
	loopdev=$(losetup -f)
	losetup "$loopdev" "$NVMF_IMG"
	echo "$loopdev" > "$NVMF_LOOPDEV"

	mkdir "$NVMF_SUB"
	echo 1 > "$NVMF_SUB/attr_allow_any_host"
	for ns in 1 2; do
		mkdir "$NVMF_SUB/namespaces/$ns"
	done
	nvmf_nullb_dev > "$NVMF_SUB/namespaces/1/device_path"
	echo "$loopdev" > "$NVMF_SUB/namespaces/2/device_path"
	for ns in 1 2; do
		echo 1 > "$NVMF_SUB/namespaces/$ns/enable"
	done
	nvmf_port_add
}

# The block device null_blk made for $NVMF_NULLB (named after the
# directory since 6.1's backports, nullb<index> before).
nvmf_nullb_dev() {
	local name=${NVMF_NULLB##*/}
	if [ -b "/dev/$name" ]; then
		echo "/dev/$name"
	else
		echo "/dev/nullb$(cat "$NVMF_NULLB/index")"
	fi
}

nvmf_port_add() {
	mkdir -p "$NVMF_PORTDIR"
	echo rdma > "$NVMF_PORTDIR/addr_trtype"
	echo ipv4 > "$NVMF_PORTDIR/addr_adrfam"
	echo "$SRV4" > "$NVMF_PORTDIR/addr_traddr"
	echo "$NVMF_PORT" > "$NVMF_PORTDIR/addr_trsvcid"
	ln -s "$NVMF_SUB" "$NVMF_PORTDIR/subsystems/$NVMF_NQN"
	MRC_TIMEOUT=60 wait_until "nvmet listening on $NVMF_PORT" cm_listening "$NVMF_PORT"
}

# Remove the port: nvmet drops every controller that came through it.
nvmf_port_remove() {
	rm -f "$NVMF_PORTDIR/subsystems/$NVMF_NQN"
	[ -d "$NVMF_PORTDIR" ] && rmdir "$NVMF_PORTDIR"
	MRC_TIMEOUT=60 wait_until "nvmet no longer listening" nvmf_not_listening
}

nvmf_not_listening() { ! cm_listening "$NVMF_PORT"; }

# Undo nvmf_target_up, whatever part of it was done.
nvmf_target_down() {
	local ns p
	[ -d "$NVMF_CFG/nvmet" ] || return 0
	# every port that exports the subsystem (the bench adds a second)
	for p in "$NVMF_CFG"/nvmet/ports/*; do
		[ -L "$p/subsystems/$NVMF_NQN" ] || continue
		rm -f "$p/subsystems/$NVMF_NQN"
		rmdir "$p"
	done
	for ns in "$NVMF_SUB"/namespaces/*; do
		[ -d "$ns" ] || continue
		echo 0 > "$ns/enable"
		rmdir "$ns"
	done
	[ -d "$NVMF_SUB" ] && rmdir "$NVMF_SUB"
	if [ -e "$NVMF_LOOPDEV" ]; then
		losetup -d "$(cat "$NVMF_LOOPDEV")" 2>/dev/null || true
		rm -f "$NVMF_LOOPDEV"
	fi
	rm -f "$NVMF_IMG"
	if [ -d "$NVMF_NULLB" ]; then
		echo 0 > "$NVMF_NULLB/power"
		rmdir "$NVMF_NULLB"
	fi
	# nothing of ours may hold the RDMA device when the case deletes it
	modprobe -r nvmet-rdma 2>/dev/null || true
	return 0
}

# ------------------------------------------------------------- host (a)

# nvmf_host_up [IO_TIMEOUT]: nvme-rdma loaded, the RDMA device up. The
# I/O timeout (s, nvme_core's default 30) applies to controllers connected
# afterwards.
nvmf_host_up() {
	modprobe -a nvme-rdma
	echo "${1:-30}" > /sys/module/nvme_core/parameters/io_timeout
	cm_up
}

nvmf_hostargs() {
	echo "-t rdma -a $SRV4 -s $NVMF_PORT --hostnqn=$NVMF_HOSTNQN --hostid=$NVMF_HOSTID"
}

# The discovery log names our subsystem at the target's address.
nvmf_discover() {
	local out
	# shellcheck disable=SC2046 # a list of options
	out=$(timeout 120 nvme discover $(nvmf_hostargs) 2>&1) ||
		fail "nvme discover: $out"
	echo "$out" | grep -q "^subnqn: *$NVMF_NQN\$" ||
		fail "discovery log without $NVMF_NQN: $out"
	echo "$out" | grep -q "^traddr: *$SRV4\$" ||
		fail "discovery log without traddr $SRV4: $out"
	echo "discovered $NVMF_NQN at $SRV4:$NVMF_PORT"
}

# The nvme-subsystem sysfs directory of our NQN, if connected.
nvmf_subsys() {
	local s
	for s in /sys/class/nvme-subsystem/*; do
		[ -e "$s/subsysnqn" ] || continue
		if [ "$(cat "$s/subsysnqn")" = "$NVMF_NQN" ]; then
			echo "$s"
			return 0
		fi
	done
	return 1
}

# nvmf_dev NSID: the block device of namespace NSID of our subsystem.
nvmf_dev() {
	local s d
	s=$(nvmf_subsys) || return 1
	for d in "$s"/nvme*n*; do
		[ -e "$d/nsid" ] || continue
		case "${d##*/}" in nvme*c*n*) continue ;; esac
		if [ "$(cat "$d/nsid")" = "$1" ] && [ -b "/dev/${d##*/}" ]; then
			echo "/dev/${d##*/}"
			return 0
		fi
	done
	return 1
}

nvmf_have_ns() { nvmf_dev 1 >/dev/null && nvmf_dev 2 >/dev/null; }

# The state of our controller (live, connecting, resetting, ...).
nvmf_ctrl_state() {
	local s c
	s=$(nvmf_subsys) || return 1
	for c in "$s"/nvme[0-9]*; do
		[[ ${c##*/} =~ ^nvme[0-9]+$ ]] || continue
		[ -e "$c/state" ] && cat "$c/state" && return 0
	done
	return 1
}

nvmf_ctrl_is() { [ "$(nvmf_ctrl_state)" = "$1" ]; }
nvmf_ctrl_not() { [ "$(nvmf_ctrl_state)" != "$1" ]; }

nvmf_connect() {
	local out
	# shellcheck disable=SC2046 # a list of options
	out=$(timeout 120 nvme connect $(nvmf_hostargs) -n "$NVMF_NQN" \
		--reconnect-delay="$NVMF_RECONNECT_DELAY" 2>&1) ||
		fail "nvme connect: $out"
	MRC_TIMEOUT=60 wait_until "namespaces 1 and 2 of $NVMF_NQN" nvmf_have_ns
	MRC_TIMEOUT=60 wait_until "controller live" nvmf_ctrl_is live
	echo "connected: ns1 $(nvmf_dev 1), ns2 $(nvmf_dev 2)"
}

nvmf_gone() { ! nvmf_subsys >/dev/null; }

nvmf_disconnect() {
	local out
	out=$(timeout 120 nvme disconnect -n "$NVMF_NQN" 2>&1) ||
		fail "nvme disconnect: $out"
	MRC_TIMEOUT=60 wait_until "$NVMF_NQN disconnected" nvmf_gone
	echo "disconnected: $out"
}

nvmf_host_down() {
	local m
	for m in $(awk '$1 ~ "^/dev/nvme" { print $2 }' /proc/mounts); do
		umount "$m"
	done
	if nvmf_subsys >/dev/null; then
		timeout 120 nvme disconnect -n "$NVMF_NQN" >/dev/null 2>&1
		MRC_TIMEOUT=60 wait_until "$NVMF_NQN disconnected" nvmf_gone
	fi
	modprobe -r nvme-rdma 2>/dev/null || true
	return 0
}

# nvmf_fio NSID SIZE QD [FIO-ARGS...]: random writes of 4 KiB to 1 MiB
# blocks, each carrying its crc32c, then every block read back and
# verified; fio's JSON result on stdout (nvmf_fio_check reads it).
nvmf_fio() {
	local dev ns=$1 size=$2 qd=$3
	shift 3
	dev=$(nvmf_dev "$ns") || fail "no device for namespace $ns"
	cd /tmp || fail "no /tmp"
	timeout 3000 fio --name="ns$ns-qd$qd" --filename="$dev" --ioengine=libaio \
		--direct=1 --rw=randwrite --bsrange=4k-1m --iodepth="$qd" \
		--size="$size" --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 --randrepeat=0 --output-format=json "$@" ||
		fail "fio on $dev failed (exit $?)"
}

# nvmf_fio_bg LOG NSID SIZE QD [FIO-ARGS...]: nvmf_fio detached (JSON in
# LOG, exit status in LOG.rc); returns once the job has written to the
# namespace.
nvmf_fio_bg() {
	local log=$1 base
	shift
	nvmf_dev "$1" >/dev/null || fail "no device for namespace $1"
	base=$(nvmf_sectors_written "$1")
	rm -f "$log" "$log.rc"
	# shellcheck disable=SC2016 # expanded by the inner shell
	MRC_SELF=$MRC_SELF MRC_VM=${MRC_VM:-} setsid bash -c 'log=$1; shift; bash "$MRC_SELF" --guest nvmf_fio "$@" > "$log" 2>&1; echo $? > "$log.rc"' \
		fio-bg "$log" "$@" < /dev/null > /dev/null 2>&1 &
	MRC_TIMEOUT=120 wait_until "fio writing to namespace $1" nvmf_written_since "$1" "$base"
}

# Sectors written to namespace NSID over all paths (field 7 of the path
# devices' stat: the multipath head disk of 6.1 keeps no statistics).
nvmf_sectors_written() {
	local d n=0 w
	for d in /sys/block/nvme*; do
		[ "$(cat "$d/nsid" 2>/dev/null)" = "$1" ] || continue
		w=$(awk '{ print $7 }' "$d/stat")
		n=$((n + w))
	done
	echo "$n"
}

nvmf_written_since() { [ "$(nvmf_sectors_written "$1")" -gt "$2" ]; }

# nvmf_fio_bg_done LOG [TIMEOUT]: the detached fio exited 0; JSON on stdout.
nvmf_fio_bg_done() {
	MRC_TIMEOUT=${2:-1800} wait_until "fio finished" test -e "$1.rc"
	cat "$1"
	[ "$(cat "$1.rc")" = 0 ] || fail "fio exit status $(cat "$1.rc")"
}

# The kernel log since the last line containing $1 has a line matching the
# extended regular expression $2. Not grep -q: under pipefail, log_since
# killed by SIGPIPE after an early match would make a match look like none.
nvmf_logged() { log_since "$1" | grep -E "$2" >/dev/null; }

# ------------------------------------------------------- file system (a)

NVMF_MNT=/mnt/nvmf
NVMF_SUMS=/tmp/nvmf.sha256

# nvmf_fs_fill NSID: ext4 on the namespace, files of several sizes
# written into it; their checksums are kept in $NVMF_SUMS.
nvmf_fs_fill() {
	local dev
	dev=$(nvmf_dev "$1") || fail "no device for namespace $1"
	hostrun mkfs.ext4 -q -F "$dev" || fail "mkfs.ext4 $dev"
	mkdir -p "$NVMF_MNT"
	mount -t ext4 "$dev" "$NVMF_MNT" || fail "mount $dev"
	mkdir -p /tmp/nvmf-src
	head -c 1000 /dev/urandom > /tmp/nvmf-src/small
	head -c 70000 /dev/urandom > /tmp/nvmf-src/medium
	head -c 3000000 /dev/urandom > /tmp/nvmf-src/large
	mkdir "$NVMF_MNT/dir"
	cp /tmp/nvmf-src/* "$NVMF_MNT/dir/"
	(cd /tmp/nvmf-src && sha256sum small medium large) > "$NVMF_SUMS"
	rm -rf /tmp/nvmf-src
	umount "$NVMF_MNT"
	echo "ext4 on $dev: 3 files written"
}

# nvmf_fs_check NSID: mount again (after a reconnect: nothing cached) and
# compare every file with its checksum.
nvmf_fs_check() {
	local dev out
	dev=$(nvmf_dev "$1") || fail "no device for namespace $1"
	mkdir -p "$NVMF_MNT"
	mount -t ext4 "$dev" "$NVMF_MNT" || fail "mount $dev"
	out=$(cd "$NVMF_MNT/dir" && sha256sum -c "$NVMF_SUMS" 2>&1)
	local rc=$?
	umount "$NVMF_MNT"
	[ $rc = 0 ] || fail "checksums differ: $out"
	echo "$out" | tr '\n' ' '
	echo
}

# ------------------------------------------------------------- host side

# nvmf_fio_check SIZE < JSON: the fio job ended without error, wrote SIZE
# bytes and read every one of them back (the verify pass).
nvmf_fio_check() {
	python3 -c '
import json, re, sys
text = sys.stdin.read()
units = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
m = re.fullmatch(r"(\d+)([kmg]?)", sys.argv[1].lower())
size = int(m.group(1)) * units[m.group(2)]
res = json.loads(text[text.index("{"):])
for j in res["jobs"]:
    w, r = j["write"], j["read"]
    assert j["error"] == 0, "%s: error %d" % (j["jobname"], j["error"])
    assert w["io_bytes"] == size, "%s wrote %d of %d" % (j["jobname"], w["io_bytes"], size)
    assert r["io_bytes"] == size, "%s verified %d of %d" % (j["jobname"], r["io_bytes"], size)
    print("%s: %d MiB written and verified, 0 errors; write %.0f IOPS %.2f MiB/s"
          " (max latency %.1f s), verify read %.0f IOPS %.2f MiB/s (max %.1f s)"
          % (j["jobname"], size >> 20, w["iops"], w["bw_bytes"] / 2**20,
             w["lat_ns"]["max"] / 1e9, r["iops"], r["bw_bytes"] / 2**20,
             r["lat_ns"]["max"] / 1e9))
' "$1"
}
