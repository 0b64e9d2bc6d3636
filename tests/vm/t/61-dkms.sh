#!/bin/sh
# The module as DKMS builds it (tests/fixtures/ops_dkms.mk: dkms add + build against this
# kernel's headers) loads through `probecache-resolve load --module` and works.
. /pc/lib.sh
P=probecache-resolve
R=$(uname -r)
W=/pc/fixtures/ops_work
ko=/pc/fixtures/dkms/$R/probecache.ko
export PROBECACHE_DIR=/tmp/c61
pc_unload

case "$R" in
*-cloud-amd64) ;;
*)	ok "# SKIP $R is no DKMS test kernel (6.1 and 6.12 are)"
	tap_done
	exit ;;
esac
if [ ! -s "$ko" ]; then
	not_ok "DKMS-built module for $R present (see tests/fixtures/build/dkms/$R.log)"
	tap_done
	exit
fi
ok "DKMS-built module for $R present"
out=$($P load --module "$ko" 2>&1); rc=$?
check_eq "load --module DKMS-built module" "0 probecache loaded" "$rc $out"
check_eq "  sysfs version" "0.1" "$(cat $PC_SYSFS/version 2>&1)"
check_eq "  it is the DKMS build (srcversion)" "$(cat /sys/module/probecache/srcversion 2>&1)" \
	"$(strings "$ko" 2>/dev/null | sed -n 's/^srcversion=//p')"
$P scan "$W" > /dev/null 2>&1
check "arm through the DKMS-built module" $P arm -q sdt_ops:tick
"$W" 4 > /dev/null
check_eq "  4 hits" "4" "$(pc_hits sdt_ops:tick)"
out=$($P unload 2>&1); rc=$?
check_eq "unload" "0 probecache unloaded" "$rc $out"
pc_unload
tap_done
