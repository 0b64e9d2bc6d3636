#!/bin/bash
# Proves the harness fails a run on a KASAN report: boots the debug kernel with the
# planted use-after-free module (tests/vm/kasan-uaf) and passes only if run.sh fails that
# run for exactly that reason: the kernel-log check is the one failing result and the
# reports it names include KASAN's use-after-free (CI once saw an unrelated KASAN
# report at boot, in an interrupt during identify_cpu(), fill the excerpt before it). A run-all suite ("kasan", after
# vm:debug in make check) and `make check-kasan`.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
"$top/tests/vm/debug-kernel.sh" > /dev/null || { not_ok "debug kernel built"; tap_done; exit 1; }
out=$(VM_TESTDIR="$top/tests/vm/kasan-uaf/t" VM_EXTRA_MODULES="$top/tests/vm/kasan-uaf" \
	"$top/tests/vm/run.sh" debug 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
check_eq "run.sh fails the run" 1 "$([ "$rc" -ne 0 ] && echo 1 || echo "0 (rc=$rc)")"
check_eq "its only failing result is the kernel-log check" \
	"not ok - debug: kernel log is clean" \
	"$(printf '%s\n' "$out" | grep '^not ok' | sed 's/^not ok [0-9]* /not ok /')"
check "the kernel log check names KASAN's use-after-free report" \
	grep -q '^# #   report: .*BUG: KASAN: .*use-after-free' <<< "$out"
check "the planted module's own checks passed" \
	grep -q '^ok [0-9]* - debug: 00-kasan.sh: planted module loaded' <<< "$out"
tap_done
