# shellcheck shell=bash
# Helpers for the cases of the kernel's RDMA consumers over metaroce
# (selftests/cases/66-nfs-rdma.sh, 67-rds-rdma.sh): the device's counters
# against the bytes a consumer moved and the TCP it did not use, and the
# module's fault injection (receive loss) on mrc0. Source after cm.bash.

FAULT=/sys/kernel/debug/metaroce/mrc0/fault
STAT=/tmp/kconsumer-stat

# dev_stat DEV NAME: one counter of DEV's `rdma statistic`.
dev_stat() {
	rdma statistic show link "$1/1" | tr ' ' '\n' |
		awk -v n="$2" 'p { print; exit } $0 == n { p = 1 }'
}

# The TCP segments this guest sent and received (init_net).
tcp_segs() { awk '$1 == "Tcp:" && $2 ~ /^[0-9]/ { print $11 + $12 }' /proc/net/snmp; }

# stat_mark: mrc0's byte counters and the TCP segments now, for stat_delta.
stat_mark() {
	echo "$(dev_stat mrc0 tx_bytes) $(dev_stat mrc0 rx_bytes) $(tcp_segs)" > "$STAT"
}

# stat_delta: mrc0's bytes sent and received, and TCP segments, since
# stat_mark.
stat_delta() {
	local tx rx segs
	read -r tx rx segs < "$STAT"
	echo "$(($(dev_stat mrc0 tx_bytes) - tx)) $(($(dev_stat mrc0 rx_bytes) - rx)) $(($(tcp_segs) - segs))"
}

# fault_set PPM SEED: mrc0 drops PPM per million of the datagrams it
# receives, chosen by a generator seeded with SEED; fault_set 0: none.
fault_set() {
	[ -d "$FAULT" ] || fail "no $FAULT (debugfs mounted? DEBUG_FS?)"
	if [ "$1" = 0 ]; then
		echo 0 > "$FAULT/mode"
		return 0
	fi
	echo "$2" > "$FAULT/seed"
	echo "$1" > "$FAULT/drop_ppm"
	echo 0 > "$FAULT/duplicate_ppm"
	echo 1 > "$FAULT/mode"
}

# How many datagrams the fault injection dropped.
fault_dropped() { cat "$FAULT/dropped"; }

