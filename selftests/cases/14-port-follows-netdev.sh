#!/usr/bin/env bash
# mrc0's port follows eth0: admin down gives DOWN/Disabled, carrier loss
# (QEMU set_link off) gives DOWN/Polling, and both recover to ACTIVE/LinkUp;
# sysfs and `rdma link show` agree. With the provider, ibv_asyncwatch sees
# the PORT_ERR and PORT_ACTIVE events.
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

# state phys "rdma link show" state and physical_state
port_in() {
	[ "$(port_attr mrc0 state)" = "$1" ] && [ "$(port_attr mrc0 phys_state)" = "$2" ] &&
		[ "$(link_line mrc0)" = "link mrc0/1 state $3 physical_state $4 netdev eth0" ]
}

wait_active() { wait_until "mrc0 ACTIVE" port_in "4: ACTIVE" "5: LinkUp" ACTIVE LINK_UP; }
wait_polling() { wait_until "mrc0 DOWN, Polling" port_in "1: DOWN" "2: Polling" DOWN POLLING; }

setup() {
	# Admin down would otherwise flush eth0's static IPv6 addresses.
	sysctl -n net.ipv6.conf.eth0.keep_addr_on_down > /tmp/mrc14.keep
	sysctl -qw net.ipv6.conf.eth0.keep_addr_on_down=1
	rdma link add mrc0 type metaroce netdev eth0
	wait_active
	if [ -e /etc/libibverbs.d/metaroce.driver ]; then
		# On a pty, so that each event line is flushed as it is printed.
		socat -u EXEC:"ibv_asyncwatch -d mrc0",pty,rawer CREATE:/tmp/mrc14.events \
			</dev/null >/dev/null 2>&1 &
		echo $! > /tmp/mrc14.watch
		# events are queued for a context from its opening on
		wait_until "ibv_asyncwatch has the device open" watcher_open
	fi
}

# ibv_asyncwatch holds a uverbs file open
watcher_open() {
	local p
	for p in /proc/[0-9]*; do
		grep -qa ibv_asyncwatch "$p/cmdline" 2>/dev/null || continue
		ls -l "$p/fd" 2>/dev/null | grep -q /dev/infiniband/uverbs && return 0
	done
	return 1
}

admin_down_up() {
	ip link set eth0 down
	wait_until "mrc0 DOWN, Disabled" port_in "1: DOWN" "3: Disabled" DOWN DISABLED
	ip link set eth0 up
	wait_active
	echo "$MRC_VM: admin down -> DOWN/Disabled, up -> ACTIVE/LinkUp"
}

events_seen() {
	[ "$(grep -c IBV_EVENT_PORT_ERR /tmp/mrc14.events)" -ge 2 ] &&
		[ "$(grep -c IBV_EVENT_PORT_ACTIVE /tmp/mrc14.events)" -ge 2 ]
}

check_events() {
	[ -e /tmp/mrc14.watch ] || { echo "$MRC_VM: no provider, events not watched"; return 0; }
	wait_until "2 PORT_ERR and 2 PORT_ACTIVE events" events_seen
	echo "$MRC_VM: events: $(grep -o 'IBV_EVENT_[A-Z_]*' /tmp/mrc14.events | tr '\n' ' ')"
}

case_guest_cleanup() {
	if [ -e /tmp/mrc14.watch ]; then
		kill "$(cat /tmp/mrc14.watch)" 2>/dev/null || true
		rm -f /tmp/mrc14.watch /tmp/mrc14.events
	fi
	if [ -e /tmp/mrc14.keep ]; then
		ip link set eth0 up
		sysctl -qw net.ipv6.conf.eth0.keep_addr_on_down="$(cat /tmp/mrc14.keep)"
		rm -f /tmp/mrc14.keep
	fi
}

case_host_cleanup() { "$BED" monitor a "set_link l0 on" >/dev/null; }

case_main "$@"

g a setup
g a admin_down_up
"$BED" monitor a "set_link l0 off" >/dev/null
g a wait_polling
"$BED" monitor a "set_link l0 on" >/dev/null
g a wait_active
echo "a: carrier off -> DOWN/Polling, on -> ACTIVE/LinkUp"
g a check_events
