#!/bin/bash
# run-all.sh [SUITE...]: every test suite, in order, each speaking TAP; one summary line.
# Suites: unit fuzz host:NAME (tests/NAME/run.sh) vm:KERNEL vm:sysboot. Default: all of them.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

host_suites() {
	local d
	for d in tests/*/run.sh; do
		d=${d%/run.sh}
		[ "$d" = tests/vm ] || echo "host:${d#tests/}"
	done
}

suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
	suites=(unit fuzz $(host_suites) vm:6.1 vm:6.12 vm:debug vm:sysboot)
fi

run_suite() {
	case "$1" in
	unit)	make -s -C tests/unit check ;;
	fuzz)	make -s -C tests/fuzz check ;;
	host:*)	"tests/${1#host:}/run.sh" ;;
	vm:debug) tests/vm/debug-kernel.sh > /dev/null && tests/vm/run.sh debug ;;
	vm:sysboot) tests/vm/sysboot.sh ;;	# the .debs in a VM booting systemd
	vm:*)	tests/vm/run.sh "${1#vm:}" ;;
	*)	echo "run-all: unknown suite $1" >&2; return 2 ;;
	esac
}

pass=0 fail=0 failed_suites=()
for s in "${suites[@]}"; do
	echo "# ---- $s"
	start=$(date +%s)
	log=$(mktemp)
	run_suite "$s" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	rm -f "$log"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $s: exited $rc"
		f=1
	fi
	echo "# ---- $s: $p passed, $f failed in $(( $(date +%s) - start ))s"
	pass=$((pass + p))
	fail=$((fail + f))
	[ "$f" -eq 0 ] || failed_suites+=("$s")
done

[ ${#failed_suites[@]} -eq 0 ] || echo "# failed suites: ${failed_suites[*]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
