#!/usr/bin/env bash
# The Debian packages (make deb) installed into both guests, and verified
# data moved with the installed files only:
#
#  - metaroce-ibverbs-provider and metaroce-tools: dpkg -i. The guests are
#    no Debian system: their libraries come from the host's binaries, not
#    from packages, so dpkg has an empty database and --force-depends.
#  - metaroce-dkms: its postinst runs DKMS, and the guests have no compiler
#    and no kernel headers. So the host runs DKMS (dkms add + build, in a
#    private DKMS tree) on the package's /usr/src/metaroce-<ver> for the
#    guests' kernel, and in the guests stand-ins for DKMS's common.postinst
#    and for `dkms status|remove` install that module where `dkms install`
#    puts it (/lib/modules/KVER/updates/dkms) and remove it again: the
#    package's own maintainer scripts run as they are, up to DKMS.
#  - The build tree's module link (extra/) and driver file are removed
#    first: modprobe can only find the DKMS module, libibverbs only the
#    installed provider. The case checks the loaded module's file, and
#    which provider the verbs processes loaded (LD_DEBUG=files).
#  - The guests have no systemd: the unit's ExecStart line, read from the
#    installed unit, runs as it is, creates mrc0 from links.conf, runs again
#    (nothing changes), and bad configurations get their own errors.
#  - /usr/libexec/metaroce/mrc_verbs_check from metaroce-tools moves data
#    between the guests (SEND 1 B..1 MiB, WRITE, READ, atomics), every byte
#    checked against its pattern and both sides' checksums compared; then
#    ExecStop deletes the link, and dpkg --purge leaves none of the
#    packages' files behind.
# bed-timeout: 900
set -euo pipefail
# shellcheck source=lib/link.bash
. "$(dirname "$0")/lib/link.bash"

PORT=18790
PKGDIR=/tmp/90-packages		# in the guests: the .debs and the module
SLOG=/tmp/90-packages.server	# in guest b: output, then .rc
UNIT=/lib/systemd/system/metaroce.service
TOOL=/usr/libexec/metaroce/mrc_verbs_check
PROVIDER=/usr/lib/x86_64-linux-gnu/libibverbs/libmetaroce-rdmav34.so
PKGS="metaroce-tools metaroce-ibverbs-provider metaroce-dkms"
LINKS=/usr/libexec/metaroce/metaroce-links
LDLOG=/tmp/90-packages.ld	# LD_DEBUG output of the verbs processes

# ---------------------------------------------------------------- guest side
dkms_ko() { echo "/lib/modules/$(uname -r)/updates/dkms/metaroce.ko"; }

install_pkgs() {
	local kver ko mods
	kver=$(uname -r)
	ko=$(dkms_ko)
	mrc_delete_all
	[ ! -d /sys/module/metaroce ] || rmmod metaroce
	rm -f "/lib/modules/$kver/extra/metaroce.ko" /etc/libibverbs.d/metaroce.driver
	dpkg_base
	dkms_stand_ins
	# (the dependencies are there, as files without a package: not shown)
	dpkg --force-depends -i "$PKGDIR"/metaroce-{ibverbs-provider,tools,dkms}_*.deb 2>&1 |
		grep -Ev '(depends on|is not installed|dependency problems)|^ *$' | sed 's/^/  /'
	dpkg -l | awk '/metaroce/ { print "  " $1, $2, $3 }'
	for p in $PKGS; do
		dpkg -s "$p" | grep -qx 'Status: install ok installed' || fail "$p not installed"
	done
	[ "$(cat /etc/libibverbs.d/metaroce.driver)" = "driver metaroce" ] ||
		fail "driver file: $(cat /etc/libibverbs.d/metaroce.driver)"
	local f
	for f in "$PROVIDER" "$TOOL" "$UNIT" "$LINKS" /etc/metaroce/links.conf; do
		[ -e "$f" ] || fail "$f missing"
	done
	mods=$(find /lib/modules -name 'metaroce.ko*' | tr '\n' ' ')
	[ "$mods" = "$ko " ] || fail "metaroce modules on the guest: $mods (want only $ko)"
	[ "$(modinfo -n metaroce)" = "$ko" ] || fail "modprobe would load $(modinfo -n metaroce)"
}

# A dpkg database in which the guest's own directories and links belong to
# a package, as they belong to base-files, libc6, systemd... on Debian:
# otherwise purging the last package that lists /lib removes /lib, which is
# a link to usr/lib here as on a merged-/usr Debian.
dpkg_base() {
	local d=/var/lib/dpkg
	mkdir -p "$d/info" "$d/updates" "$d/triggers"
	: > "$d/available"
	printf '%s\n' 'Package: bed-root' 'Status: install ok installed' 'Priority: required' \
		'Maintainer: selftests/bed' 'Architecture: all' 'Version: 1' \
		"Description: the bed guest's own directories" '' > "$d/status"
	{ echo /.; find / -xdev \( -type d -o -type l \) ! -path / ! -path '/var/lib/dpkg*'; } > "$d/info/bed-root.list"
}

# DKMS in the guest: the module DKMS built on the host goes where `dkms
# install` puts it; `dkms status` and `dkms remove` (the package's prerm)
# see and remove it.
dkms_stand_ins() {
	local ko
	ko=$(dkms_ko)
	mkdir -p /usr/lib/dkms /usr/local/sbin
	cat > /usr/lib/dkms/common.postinst <<-EOF
		#!/bin/sh
		set -e
		mkdir -p "${ko%/*}"
		cp "$PKGDIR/metaroce.ko" "$ko"
		depmod -a
		echo "90-packages' DKMS stand-in: \$1/\$2 installed in $ko"
	EOF
	cat > /usr/local/sbin/dkms <<-EOF
		#!/bin/sh
		case "\$1" in
		status) [ ! -e "$ko" ] || echo "metaroce/0.1.0, $(uname -r), x86_64: installed" ;;
		remove) rm -f "$ko"; depmod -a; echo "90-packages' DKMS stand-in: removed $ko" ;;
		*) echo "dkms stand-in: \$1 not supported" >&2; exit 1 ;;
		esac
	EOF
	chmod +x /usr/lib/dkms/common.postinst /usr/local/sbin/dkms
}

# unit_cmd Start|Stop: the unit's command, as systemd would run it
unit_cmd() { sed -n "s/^Exec$1=//p" "$UNIT"; }

# expect_links WANT_RC GREP CMD...: CMD exits WANT_RC and says GREP
expect_links() {
	local want=$1 what=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	printf '%s\n' "$out" | sed 's/^/    /'
	[ "$rc" = "$want" ] || fail "$*: exit $rc, want $want"
	grep -q -- "$what" <<<"$out" || fail "$*: no \"$what\""
}

links_up() {
	local -a start
	read -ra start <<<"$(unit_cmd Start)"
	[ ${#start[@]} -gt 0 ] || fail "no ExecStart in $UNIT"
	echo "mrc0 eth0" >> /etc/metaroce/links.conf
	echo "  $(hostname): ${start[*]}"
	expect_links 0 "mrc0 on eth0: created" "${start[@]}"
	# (install_pkgs left no other metaroce.ko to load; srcversion where the
	# kernel shows it)
	[ ! -e /sys/module/metaroce/srcversion ] ||
		[ "$(cat /sys/module/metaroce/srcversion)" = "$(modinfo -F srcversion "$(dkms_ko)")" ] ||
		fail "the loaded module is not $(dkms_ko)"
	wait_until "mrc0 ACTIVE" port_is mrc0 "4: ACTIVE"
	link_line mrc0 | grep -q ' netdev eth0$' || fail "mrc0: $(link_line mrc0)"
	echo "  $(hostname): again (idempotent)"
	expect_links 0 "mrc0 on eth0: already there" "${start[@]}"
	[ "$(mrc_devices)" = mrc0 ] || fail "devices now: $(mrc_devices)"
	expect_links 0 "mrc0 eth0 ACTIVE" "$LINKS" status
	echo "  $(hostname): bad configurations"
	printf 'mrc0 eth0\nmrc9 nosuch0\n' > /tmp/90-bad.conf
	expect_links 1 "mrc9: no netdev nosuch0" "$LINKS" -c /tmp/90-bad.conf -w 0 up
	printf 'mrc5 eth0\n' > /tmp/90-bad.conf
	expect_links 1 "eth0 already carries metaroce device mrc0" "$LINKS" -c /tmp/90-bad.conf up
	printf 'mrc5 eth1\nmrc6 eth1\n' > /tmp/90-bad.conf
	expect_links 2 "netdev eth1 already on line 1" "$LINKS" -c /tmp/90-bad.conf up
	[ "$(mrc_devices)" = mrc0 ] || fail "bad configurations changed the devices: $(mrc_devices)"
	rm -f /tmp/90-bad.conf
}

links_down() {
	local -a stop
	read -ra stop <<<"$(unit_cmd Stop)"
	[ ${#stop[@]} -gt 0 ] || fail "no ExecStop in $UNIT"
	expect_links 0 "mrc0 on eth0: deleted" "${stop[@]}"
	[ -z "$(mrc_devices)" ] || fail "left after ExecStop: $(mrc_devices)"
}

# The verbs process loaded the installed provider, and nothing of the
# checkout (its LD_DEBUG=files log, one file per process).
provider_check() {
	local log
	log=$(cat "$LDLOG".* 2>/dev/null)
	rm -f "$LDLOG".*
	grep -q "file=$PROVIDER \[0\]; *dynamically loaded" <<<"$log" ||
		fail "$PROVIDER not loaded: $(grep -i 'file=.*metaroce' <<<"$log")"
	! grep -q "file=$TOP/" <<<"$log" || fail "files of the checkout loaded: $(grep "file=$TOP/" <<<"$log")"
	echo "  $(hostname): loaded $PROVIDER, nothing of $TOP"
}

VERBS_CHECK=(env LD_DEBUG=files LD_DEBUG_OUTPUT="$LDLOG" "$TOOL" -d mrc0 -g 1 -p "$PORT" -w 256)

server() {
	rm -f "$LDLOG".*
	bg_run "$SLOG" 150 "${VERBS_CHECK[@]}"
	wait_until "server listening on $PORT" tcp_listening "$PORT"
}

server_done() {
	MRC_TIMEOUT=160 wait_until "server finished" test -e "$SLOG.rc"
	[ "$(cat "$SLOG.rc")" = 0 ] || fail "server exit status $(cat "$SLOG.rc"): $(cat "$SLOG")"
	grep -q "server: all steps passed" "$SLOG" || fail "server did not pass every step"
	provider_check
}

client() {
	local out
	rm -f "$LDLOG".*
	out=$(timeout 150 "${VERBS_CHECK[@]}" 10.0.0.2 2>&1) ||
		fail "client failed: $out"
	grep -E '^(ok|fail) ' <<<"$out" | sed 's/^/  a: /'
	grep -q "client: all steps passed" <<<"$out" || fail "client did not pass every step"
	[ "$(grep -c '^ok send-sender' <<<"$out")" -eq 8 ] || fail "not every SEND size checked"
	grep -q '^ok write-sender' <<<"$out" || fail "WRITE not checked on both sides"
	provider_check
}

# dpkg --purge leaves none of the packages' files; without the module
# DKMS installed (removed as `dkms remove` would), modprobe finds none.
remove_pkgs() {
	local files f
	mrc_delete_all
	rmmod metaroce
	# shellcheck disable=SC2086 # a list of names
	files=$(dpkg -L $PKGS | sort -u)
	# shellcheck disable=SC2086
	dpkg --purge $PKGS | sed 's/^/  /'
	[ ! -e "$(dkms_ko)" ] || fail "the prerm did not remove the module ($(dkms_ko))"
	for f in $files; do
		[ -d "$f" ] || [ ! -e "$f" ] || fail "left after purge: $f"
	done
	! modinfo -n metaroce > /dev/null 2>&1 || fail "a metaroce module is still found: $(modinfo -n metaroce)"
	if [ ! -L /lib ] || [ ! -d /lib/modules ]; then
		fail "/lib is gone or no link any more"
	fi
	echo "  $(hostname): purged, $(wc -w <<<"$files") paths gone"
}

# Back to the build tree's module and provider (bed-sync), as the guest was.
case_guest_cleanup() {
	mrc_delete_all
	[ ! -d /sys/module/metaroce ] || rmmod metaroce
	local p
	for p in $PKGS; do
		! dpkg -s "$p" > /dev/null 2>&1 || dpkg --purge "$p" > /dev/null
	done
	rm -rf /var/lib/dpkg /etc/metaroce "$PKGDIR" "$(dkms_ko)" /etc/ld.so.cache \
		/usr/lib/dkms /usr/local/sbin/dkms
	bed-sync --force
}

# ----------------------------------------------------------------- host side
case_main "$@"

# The module DKMS builds from the package's source for the guests' kernel,
# cached by the checksums of the source files it holds (a build takes 1-2
# min; the package itself changes with every make deb).
dkms_build() {
	local deb=$1 kver=$2 ver sum dir tmp ksrc
	ver=$(dpkg-deb -f "$deb" Version)
	sum=$(dpkg-deb -I "$deb" md5sums | grep ' usr/src/' | sha256sum | cut -c1-16)
	dir=$TOP/.cache/pkg-dkms/$sum-$kver
	if [ ! -f "$dir/metaroce.ko" ]; then
		ksrc=/lib/modules/$kver/build
		if [ ! -e "$ksrc/Makefile" ] && grep -qs '^KERNEL=debug' "$TOP/.cache/bed/bed.env"; then
			ksrc=$("$TOP/selftests/lib/debug-kernel" dir)/build
		fi
		# a pinned series other than the host's (6.12): its headers
		# are unpacked beside its image (mk/config.mk, khdr)
		[ -e "$ksrc/Makefile" ] ||
			ksrc=$TOP/.cache/kernel/$kver/usr/src/linux-headers-$kver
		[ -e "$ksrc/Makefile" ] || fail "no kernel headers for $kver on the host ($ksrc)"
		tmp=$dir.tmp
		rm -rf "$tmp" && mkdir -p "$tmp/root" "$tmp/dkms"
		dpkg-deb -x "$deb" "$tmp/root"
		local o=(--sourcetree "$tmp/root/usr/src" --dkmstree "$tmp/dkms")
		if ! { dkms add -m metaroce -v "$ver" "${o[@]}" &&
		       nice -n 10 dkms build -m metaroce -v "$ver" -k "$kver" --kernelsourcedir "$ksrc" \
			       "${o[@]}"; } > "$tmp/dkms.log" 2>&1; then
			tail -n 30 "$tmp/dkms.log" "$tmp/dkms/metaroce/$ver/build/make.log" 2>/dev/null
			fail "dkms build for $kver failed (above)"
		fi
		dkms status -m metaroce "${o[@]}" | grep -q "$kver.*: built" || fail "dkms status: not built"
		mkdir -p "$dir"
		cp "$tmp/dkms/metaroce/$ver/$kver/x86_64/module/metaroce.ko" "$dir/"
		rm -rf "$tmp"
	fi
	echo "$dir/metaroce.ko"
}

echo "make deb"
make -s --no-print-directory -C "$TOP" deb | sed 's/^/  /'
kver=$("$BED" exec a -- uname -r)
ko=$(dkms_build "$(ls "$TOP"/build/deb/metaroce-dkms_*_all.deb)" "$kver")
echo "dkms: $ko ($(modinfo -F vermagic "$ko" | cut -d' ' -f1))"
for vm in a b; do
	"$BED" exec "$vm" -- mkdir -p "$PKGDIR"
	for f in "$TOP"/build/deb/metaroce-{dkms_*_all,ibverbs-provider_*_amd64,tools_*_amd64}.deb "$ko"; do
		"$BED" push "$vm" "$f" "$PKGDIR/"
	done
	echo "$vm: install"
	g "$vm" install_pkgs
	echo "$vm: metaroce.service's ExecStart"
	g "$vm" links_up
done

echo "mrc_verbs_check (installed) between the guests"
g b server
g a client
g b server_done

for vm in a b; do
	echo "$vm: metaroce.service's ExecStop, then dpkg --purge"
	g "$vm" links_down
	g "$vm" remove_pkgs
done
echo "ok: 90-packages"
