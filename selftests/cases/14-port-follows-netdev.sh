#!/usr/bin/env bash
# mrc0's port follows eth0: admin down gives DOWN/Disabled, carrier loss
# (QEMU set_link off) gives DOWN/Polling, and both recover to ACTIVE/LinkUp;
# sysfs and `rdma link show` agree. With the provider, ibv_asyncwatch sees
# a PORT_ERR and a PORT_ACTIVE event for each, and exactly those four.
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
		# ibv_asyncwatch prints its async event FD once its context, with
		# the handler that queues its events, exists: events from then on
		# reach it (an open uverbs file alone does not have that handler)
		wait_until "ibv_asyncwatch has its context" \
			grep -qs "async event FD" /tmp/mrc14.events
	fi
}

admin_down_up() {
	ip link set eth0 down
	wait_until "mrc0 DOWN, Disabled" port_in "1: DOWN" "3: Disabled" DOWN DISABLED
	wait_events PORT_ERR 1
	ip link set eth0 up
	wait_active
	wait_events PORT_ACTIVE 1
	echo "$MRC_VM: admin down -> DOWN/Disabled, up -> ACTIVE/LinkUp"
}

# wait_events TYPE N: the watcher has seen N IBV_EVENT_TYPE events. Each
# transition waits for its event before the next one: the port's state
# reads the carrier at once, while its events follow what the netdev
# notifier announces, and linkwatch announces a carrier flap shorter than
# its delay (up to a second) as no change at all.
wait_events() {
	[ -e /tmp/mrc14.watch ] || return 0
	( wait_until "$2 IBV_EVENT_$1 events" events_at_least "$1" "$2" ) ||
		fail "events seen: $(grep -o 'IBV_EVENT_[A-Z_]*' /tmp/mrc14.events | tr '\n' ' ')"
}

events_at_least() { [ "$(grep -c "IBV_EVENT_$1\b" /tmp/mrc14.events)" -ge "$2" ]; }

check_events() {
	[ -e /tmp/mrc14.watch ] || { echo "$MRC_VM: no provider, events not watched"; return 0; }
	echo "$MRC_VM: events: $(grep -o 'IBV_EVENT_[A-Z_]*' /tmp/mrc14.events | tr '\n' ' ')"
	[ "$(grep -c IBV_EVENT_ /tmp/mrc14.events)" = 4 ] || fail "not 4 events"
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
g a wait_events PORT_ERR 2
"$BED" monitor a "set_link l0 on" >/dev/null
g a wait_active
g a wait_events PORT_ACTIVE 2
echo "a: carrier off -> DOWN/Polling, on -> ACTIVE/LinkUp"
g a check_events
