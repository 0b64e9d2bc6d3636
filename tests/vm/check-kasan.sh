#!/bin/bash
# Proves the harness fails a run on a KASAN report: boots the debug kernel with the
# planted use-after-free module (tests/vm/kasan-uaf) and expects run.sh to fail with
# a KASAN line. Not part of `make check`: run it as `make check-kasan`.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/tests/vm/debug-kernel.sh" > /dev/null || exit 1
out=$(VM_TESTDIR="$top/tests/vm/kasan-uaf/t" VM_EXTRA_MODULES="$top/tests/vm/kasan-uaf" \
	"$top/tests/vm/run.sh" debug 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
if [ "$rc" -ne 0 ] && printf '%s\n' "$out" | grep -q 'KASAN'; then
	echo "ok 1 - harness failed the run on the planted KASAN report"
	echo "1 passed, 0 failed"
	exit 0
fi
echo "not ok 1 - harness did not catch the planted KASAN report (rc=$rc)"
echo "0 passed, 1 failed"
exit 1
