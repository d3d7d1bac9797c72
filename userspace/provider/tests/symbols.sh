#!/usr/bin/env bash
# The provider .so must export nothing, bind every libibverbs private symbol
# to IBVERBS_PRIVATE_34, and carry the constructor that registers it.
# usage: symbols.sh PROVIDER.so
set -u
so=$1
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

[ -f "$so" ] || { echo "FAIL: $so missing" >&2; exit 1; }

defined=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^IBVERBS_PRIVATE_' || true)
[ -z "$defined" ] || bad "exports symbols: $(echo $defined)"

dyn=$(objdump -T "$so") || bad "objdump -T failed"
# Every IBVERBS_PRIVATE_* reference must be _34.
other=$(grep -o 'IBVERBS_PRIVATE_[0-9]*' <<<"$dyn" | sort -u | grep -vx IBVERBS_PRIVATE_34 || true)
[ -z "$other" ] || bad "binds to other private ABIs: $other"
grep -Eq 'IBVERBS_PRIVATE_34\)? +verbs_register_driver_34$' <<<"$dyn" ||
	bad "no verbs_register_driver_34@IBVERBS_PRIVATE_34 reference"
# Nothing unversioned from libibverbs (i.e. every undefined symbol is versioned).
unver=$(awk '$3 == "*UND*" && $5 !~ /^\(?[A-Z]/ {print $NF}' <<<"$dyn" | grep -v '^__gmon_start__$\|^_ITM_\|^__cxa_finalize$' || true)
[ -z "$unver" ] || bad "unversioned undefined symbols: $(echo $unver)"

readelf -d "$so" | grep -q 'NEEDED.*libibverbs\.so\.1' || bad "not linked to libibverbs.so.1"
readelf -S "$so" | grep -q '\.init_array' || bad "no constructor (.init_array)"
readelf -d "$so" | grep -q 'SONAME' && bad "has a SONAME (providers are plugins)"

[ $fail -eq 0 ] && echo ok
exit $fail
