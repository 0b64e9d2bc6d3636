#!/bin/sh
# Harness self-test, run with VM_TESTDIR=tests/vm/kasan-uaf/t and
# VM_EXTRA_MODULES=tests/vm/kasan-uaf on the debug kernel: loading kasan_uaf.ko makes
# KASAN report a use-after-free on the console. Every TAP line here passes; the run as a
# whole must still FAIL, because the harness scans the console for KASAN reports.
. /pc/lib.sh

if out=$(insmod /pc/extra/kasan_uaf.ko 2>&1); then
	ok "planted module loaded"
else
	not_ok "planted module loaded"
	diag "insmod /pc/extra/kasan_uaf.ko: $out"
fi
if grep -q '^kasan_uaf ' /proc/modules; then
	check "planted module unloaded" rmmod kasan_uaf
fi
tap_done
