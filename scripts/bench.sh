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
# base_module REV DIR: the module of git revision REV as a flat out-of-tree source in
# DIR (common/ folded into it, the UAPI include made absolute) for tests/vm/bench/
# 15-base.sh to compare with; fails with a message when REV cannot be read.
base_module() {
	rm -rf "$2" && mkdir -p "$2"
	git archive "$1" kmod include $(git ls-tree --name-only "$1" common) 2> /dev/null |
		tar -x -C "$2" || { echo "# MISSING: baseline module: no git revision $1 here"; return 1; }
	[ ! -d "$2/common" ] || mv "$2"/common/* "$2/kmod/"
	sed -i -e "s|\.\./common/||g" -e "s|\$(src)/\.\./common|\$(src)|g" \
		-e "s|\$(src)/\.\./include|$2/include|g" "$2/kmod/Kbuild"
}
if [ "${BENCH_VM:-1}" = 1 ] && ls tests/vm/bench/*.sh > /dev/null 2>&1; then
	# The baseline: the module before the second kernel design, whose own trace events
	# tests/vm/bench/20-events.sh compares with the kernel's uprobe events;
	# BENCH_BASE=REV for another.
	base=${BENCH_BASE:-0bb43f1}
	extra=
	! base_module "$base" "$PWD/build/bench-base" || extra=$PWD/build/bench-base/kmod
	echo "# ---- in-VM benchmarks (${BENCH_KERNEL:-6.1}; baseline module: $base)"
	VM_EXTRA_MODULES=$extra VM_RAW=1 VM_TESTDIR=tests/vm/bench tests/vm/run.sh "${BENCH_KERNEL:-6.1}"
fi
