#!/bin/bash
# make bench: benchmarks, printed and never asserted. In-VM ones (tests/vm/bench/*.sh) run
# in one boot of the 6.1 kernel; host ones are tests/bench/*.sh. Each host figure is
# printed beside its anchor (perf, or our own single-item time) and its goal, with
# "met" or "MISSED"; a missing tool is said as "# MISSING: ..." and its figures are
# left out, never silently. BENCH_VM=0: the host part only.
set -uo pipefail
cd "$(dirname "$0")/.."
make -s -C user > /dev/null || { echo "# MISSING: the CLI does not build (make -C user)"; exit 1; }
for b in tests/bench/*.sh; do
	[ -x "$b" ] || continue
	echo "# ---- $b"
	"$b" || echo "# $b FAILED (exit $?): its figures are incomplete"
done
if [ "${BENCH_VM:-1}" = 1 ] && ls tests/vm/bench/*.sh > /dev/null 2>&1; then
	echo "# ---- in-VM benchmarks (${BENCH_KERNEL:-6.1})"
	VM_RAW=1 VM_TESTDIR=tests/vm/bench tests/vm/run.sh "${BENCH_KERNEL:-6.1}"
fi
