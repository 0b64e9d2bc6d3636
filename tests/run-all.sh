#!/bin/bash
# run-all.sh [SUITE...]: every test suite, in order, each speaking TAP; one summary line,
# "N passed, N failed, N skipped", always the last line (CI parses it).
# Suites: unit fuzz host:NAME (tests/NAME/run.sh) vm:KERNEL (tests/vm/kernel.sh names them)
# vm:KERNEL:GLOB (only the in-VM scripts matching GLOB, as VM_TESTS) vm:sysboot (the .debs
# in a VM booting systemd) kasan (check-kasan: the proof that a KASAN splat fails a VM
# run) exec:PATH (any TAP program; the harness tests use it). Default: every host suite;
# the whole VM suite on the oldest (5.10), default (6.1) and newest (7.3) kernels and the
# debug kernel, the kernel-facing scripts (1x: the module, 3x: the CLI driving it) on the
# others (6.12, 7.3-rt; 6.12-deb13, the same kernel as 6.12 built by trixie's gcc-14: the
# module's 1x only), the arm64 scripts (70-arm64, 71-arm64-fs) on
# arm64-6.1 and arm64-7.3: Documentation/testing.md "Kernels"; then sysboot; the debug kernel's suite and
# kasan last: on a fresh machine that kernel's build (tests/lib/caches.sh) is the longest,
# so it gets the most time to finish beside the other suites. The host's own kernels (6.1,
# 6.12) go first among the VM suites: they need no chroot, so on a fresh machine they run
# while the bullseye and trixie chroots the next ones need are still being made.
# How a suite's output is judged: tests/lib/suite-verdict.sh. The machine-wide caches the
# suites need are built in the background from the start (tests/lib/caches.sh; logs in
# build/caches/), each suite waiting for its own before it runs.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tests/lib/suite-verdict.sh
. tests/lib/caches.sh

host_suites() {
	local d
	for d in tests/*/run.sh; do
		d=${d%/run.sh}
		[ "$d" = tests/vm ] || echo "host:${d#tests/}"
	done
}

suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
	suites=(unit fuzz $(host_suites) vm:6.1 'vm:6.12:[13]*' vm:5.10 'vm:6.12-deb13:1*'
		vm:7.3 'vm:7.3-rt:[13]*' vm:arm64-6.1 vm:arm64-7.3 vm:sysboot vm:debug kasan)
fi

# cache_of SUITE: the name of the machine-wide cache SUITE needs built, if any
cache_of() {
	case "$1" in
	vm:debug|kasan) echo debug-kernel ;;
	vm:sysboot) echo sysimage ;;
	vm:*) local k=${1#vm:}; echo "kernel-${k%%:*}" ;;
	esac
}

# start_cache NAME: its builder in the background (tests/lib/caches.sh). A kernel's:
# its chroot, headers and vmlinuz (kernel.sh), and for x86 its disk modules (kmods.sh).
# The debug kernel's build is not niced: it and then its suite, the last, are the longest
# path of a fresh machine's run, and niced, it got almost nothing while the VM suites
# and any other job on the machine ran (half its objects still to compile when they
# were done).
start_cache() {
	case "$1" in
	debug-kernel) CACHE_NICE=0 cache_start "$1" tests/vm/debug-kernel.sh ;;
	sysimage) cache_start "$1" tests/vm/sysimage.sh ;;
	kernel-*) cache_start "$1" tests/vm/kmods.sh "${1#kernel-}" ;;
	esac
}

run_suite() {
	case "$1" in
	unit)	make -s -C tests/unit check ;;
	fuzz)	make -s -C tests/fuzz check ;;
	host:*)	"tests/${1#host:}/run.sh" ;;
	vm:debug) tests/vm/debug-kernel.sh > /dev/null && tests/vm/run.sh debug ;;
	vm:sysboot) tests/vm/sysboot.sh ;;	# the .debs in a VM booting systemd
	vm:*:*)	local k=${1#vm:}; VM_TESTS=${k#*:} tests/vm/run.sh "${k%%:*}" ;;
	vm:*)	tests/vm/run.sh "${1#vm:}" ;;
	kasan)	tests/vm/check-kasan.sh ;;
	exec:*)	"${1#exec:}" ;;
	*)	echo "run-all: unknown suite $1" >&2; return 2 ;;
	esac
}

# start_caches SUITE...: every cache the suites need, the debug kernel's first (the
# longest build, about 7 minutes of both cores idle), the others in the order of their suites.
start_caches() {
	local s c
	for s in "$@"; do
		[ "$(cache_of "$s")" != debug-kernel ] || start_cache debug-kernel
	done
	for s in "$@"; do
		c=$(cache_of "$s")
		[ -z "$c" ] || start_cache "$c"
	done
}

trap cache_stop EXIT
trap 'exit 130' INT TERM
start_caches "${suites[@]}"
pass=0 fail=0 skip=0 failed_suites=()
for s in "${suites[@]}"; do
	echo "# ---- $s"
	start=$(date +%s)
	log=$(mktemp)
	# A failed cache fails the suite (its "not ok", the log tail, a plan) unrun.
	cache_wait $(cache_of "$s") > "$log"
	rc=$?
	cat "$log"
	if [ "$rc" -eq 0 ]; then
		run_suite "$s" 2>&1 | tee -a "$log"
		rc=${PIPESTATUS[0]}
	fi
	suite_verdict "$s" "$rc" "$log"
	rm -f "$log"
	todo=
	[ "${SV_TODO:-0}" -eq 0 ] || todo=", $SV_TODO TODO"
	echo "# ---- $s: $SV_PASS passed, $SV_FAIL failed, $SV_SKIP skipped$todo in $(( $(date +%s) - start ))s"
	pass=$((pass + SV_PASS))
	fail=$((fail + SV_FAIL))
	skip=$((skip + SV_SKIP))
	[ "$SV_FAIL" -eq 0 ] || failed_suites+=("$s")
done

[ ${#failed_suites[@]} -eq 0 ] || echo "# failed suites: ${failed_suites[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
