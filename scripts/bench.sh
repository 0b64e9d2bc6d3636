#!/bin/bash
# make bench: benchmarks, printed and never asserted. In-VM ones (tests/vm/bench/*.sh) run
# in one boot of the 6.1 kernel; host ones are tests/bench/*.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
for b in tests/bench/*.sh; do
	[ -x "$b" ] || continue
	echo "# ---- $b"
	"$b"
done
if ls tests/vm/bench/*.sh > /dev/null 2>&1; then
	echo "# ---- in-VM benchmarks (${BENCH_KERNEL:-6.1})"
	VM_RAW=1 VM_TESTDIR=tests/vm/bench tests/vm/run.sh "${BENCH_KERNEL:-6.1}"
fi
