#!/bin/bash
# The harness's own tests: tests/run-all.sh must fail every kind of broken suite and
# count skips honestly; tests/vm/report.sh must fail broken VM logs. Fake suites and
# logs are written to a temp dir; the inner runs' output is only ever shown as comments
# so its "ok" lines cannot be counted by the outer run-all.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/suite-verdict.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fake NAME LINE...: an executable suite printing LINEs, exiting with $FAKE_RC (0)
fake() {
	local f=$tmp/$1
	shift
	{
		echo '#!/bin/sh'
		printf "echo '%s'\n" "$@"
		echo "exit ${FAKE_RC:-0}"
	} > "$f"
	chmod +x "$f"
}

# runall CI SUITE...: run-all on exec: suites with CI=CI; sets rc and out
runall() {
	local ci=$1
	shift
	out=$(cd "$tmp" && CI=$ci "$top/tests/run-all.sh" "${@/#/exec:$tmp/}" 2>&1)
	rc=$?
}

# expect_fail DESC CI SUITE WHY: run-all fails SUITE and says WHY
expect_fail() {
	runall "$2" "$3"
	if [ "$rc" -ne 0 ] && grep -q "^not ok.*$4" <<< "$out" &&
		grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$' <<< "$(tail -n 1 <<< "$out")"; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/#   /' <<< "$out" | tail -n 15
	fi
}

## ---- run-all: every broken suite fails the run
fake mismatch 'ok 1 - a' 'ok 2 - b' '1..3'
expect_fail "run-all fails a suite whose plan disagrees with its count" "" mismatch "plan says 1..3 but 2"
fake empty '# nothing here'
expect_fail "run-all fails a suite with zero results" "" empty "reported no result"
fake noplan 'ok 1 - a' 'ok 2 - b'
expect_fail "run-all fails a suite without a plan line" "" noplan "without a plan line"
fake twostreams 'ok 1 - a' '1..1' 'ok 1 - b' 'ok 2 - c'
expect_fail "run-all fails a second stream that died before its plan" "" twostreams "without a plan line"
fake skip 'ok 1 - a' 'ok 2 - # SKIP not here' '1..2'
expect_fail "run-all fails a SKIP under CI=true" true skip "skipped under CI=true"
fake notok 'ok 1 - a' 'not ok 2 - b' '1..2'
expect_fail "run-all fails a suite with a failing result" "" notok "2 - b"
FAKE_RC=3 fake exit3 'ok 1 - a' '1..1'
expect_fail "run-all fails a suite that exits non-zero with every result ok" "" exit3 "exited 3"
runall "" nosuchsuite-is-not-there
check "run-all fails a suite that cannot be run" test "$rc" -ne 0

## ---- run-all: clean suites pass, skips are counted as skipped
runall "" skip
check_eq "a non-CI skip passes and counts as skipped (last line)" "0 1 passed, 0 failed, 1 skipped" \
	"$rc $(tail -n 1 <<< "$out")"
fake units 'ok 1 - a' '1..1' 'ok 1 - b' 'ok 2 - # skip lower case' '1..2'
runall "" units skip
check_eq "two streams with their plans, two suites: summed" "0 3 passed, 0 failed, 2 skipped" \
	"$rc $(tail -n 1 <<< "$out")"
check "each suite's line shows its skips" grep -q '^# ---- exec:.*/units: 2 passed, 0 failed, 1 skipped in' <<< "$out"

## ---- run-all: TAP as the standard has it (tests/lib/tap-verdict.pl, TAP::Parser)
# expect_pass DESC CI SUITE... SUMMARY: run-all passes the SUITEs with SUMMARY as its last line
expect_pass() {
	local desc=$1 ci=$2 want=${*: -1}
	runall "$ci" "${@:3:$#-3}"
	check_eq "$desc" "0 $want" "$rc $(tail -n 1 <<< "$out")"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' <<< "$out" | tail -n 15
}
fake planfirst '1..3' 'ok 1 - a' 'ok 2 - b' 'ok 3 - c # SKIP not here'
expect_pass "a plan-first suite passes with its counts" "" planfirst "2 passed, 0 failed, 1 skipped"
fake mixed '1..1' 'ok 1 - a' 'ok 1 - b' 'ok 2 - c' '1..2' '1..2' 'ok 1 - d' 'ok 2 - e'
expect_pass "plan-first, plan-last, plan-first streams in one suite: summed" "" mixed \
	"5 passed, 0 failed, 0 skipped"
fake firstshort '1..3' 'ok 1 - a' 'ok 2 - b'
expect_fail "run-all fails a plan-first stream with fewer results than planned" "" firstshort \
	"plan says 1..3 but 2 results came after it"
fake firstlong '1..1' 'ok 1 - a' 'ok 2 - b'
expect_fail "run-all fails a plan-first stream with more results than planned" "" firstlong \
	"plan says 1..1 but 2 results came after it"
fake bailafter 'ok 1 - a' '1..1' 'Bail out! the disk went away'
expect_fail "run-all fails a suite that bailed out after a complete stream, with its reason" "" \
	bailafter "Bail out! the disk went away"
fake bailmid 'ok 1 - a' 'Bail out! no fixtures' 'ok 2 - b' '1..2'
expect_fail "run-all fails a suite that bailed out mid-stream, with its reason" "" bailmid \
	"Bail out! no fixtures"
fake todo 'ok 1 - a' 'not ok 2 - b # TODO known bug 7' '1..2'
expect_pass "not ok with a TODO directive is an expected failure, not a failure" "" todo "1 passed, 0 failed, 0 skipped"
check "... said as one in a comment" grep -q '^# exec:.*/todo: expected failure (TODO): not ok 2 - b # TODO known bug 7$' <<< "$out"
check "... counted on the suite's line" grep -q '^# ---- exec:.*/todo: 1 passed, 0 failed, 0 skipped, 1 TODO in' <<< "$out"
expect_pass "... under CI=true too (a TODO is no skip)" true todo "1 passed, 0 failed, 0 skipped"
fake todonot 'ok 1 - a' 'not ok 2 - b' '1..2'
expect_fail "a not ok without TODO still fails (control)" "" todonot "2 - b"
fake skipall '1..0 # SKIP no such device'
expect_pass "1..0 with a SKIP directive is a skipped suite, not one without results" "" skipall "0 passed, 0 failed, 1 skipped"
check "... with its reason in a comment" grep -q '^# exec:.*/skipall: skipped a whole stream: no such device$' <<< "$out"
expect_fail "run-all fails a suite of 1..0 with a SKIP directive under CI=true" true skipall "1 skipped under CI=true"

## ---- report.sh: broken VM logs fail
# vmlogs DIR [SCRIPT_RC]: a complete, clean VM run's tap and console logs in DIR
vmlogs() {
	mkdir -p "$1"
	printf '%s\r\n' '### VM-START 6.1.0-test' \
		'### CALIBRATE cs=130 ref=100 factor=1.3 total=200' \
		'### BEGIN 10-a.sh' 'ok 1 - first' 'ok 2 - # SKIP not on this kernel' '1..2' \
		"### END 10-a.sh rc=${2:-0} cs=1234 limit=78" '### VM-DONE' > "$1/tap.log"
	printf '%s\n' '[    0.000000] Linux version 6.1.0-test' \
		'[    1.000000] probecache-vm: VM-START' '[    9.000000] probecache-vm: VM-DONE' \
		> "$1/console.log"
}

# report DIR: report.sh on DIR's logs; sets rc and out
report() {
	out=$("$top/tests/vm/report.sh" test "$1/tap.log" "$1/console.log" 2>&1)
	rc=$?
}

# report_fails DESC DIR WHY: report.sh fails DIR's logs and says WHY
report_fails() {
	report "$2"
	if [ "$rc" -ne 0 ] && grep -q "^not ok.*$3" <<< "$out"; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/#   /' <<< "$out" | tail -n 15
	fi
}

vmlogs "$tmp/vm/good"
report "$tmp/vm/good"
check_eq "report.sh passes a clean run, counting the skip (control)" \
	"0 test: 3 passed, 0 failed, 1 skipped" "$rc $(tail -n 1 <<< "$out")"
check "report.sh prints the script's wall time and limit" grep -q '^# 10-a.sh: 12.3 s (limit 78 s)' <<< "$out"
check "report.sh prints the speed factor" grep -q '^# test: speed factor 1.3 ' <<< "$out"
check "report.sh ends its stream with a plan" grep -q '^1\.\.4$' <<< "$out"

vmlogs "$tmp/vm/empty" && : > "$tmp/vm/empty/console.log"
report_fails "report.sh fails an empty console log" "$tmp/vm/empty" "console log is complete"
vmlogs "$tmp/vm/trunc" && sed -i '/VM-DONE/d' "$tmp/vm/trunc/console.log"
report_fails "report.sh fails a console log without VM-DONE" "$tmp/vm/trunc" "console log is complete"
vmlogs "$tmp/vm/nodone" && sed -i '/VM-DONE/d' "$tmp/vm/nodone/tap.log"
report_fails "report.sh fails a test log without VM-DONE" "$tmp/vm/nodone" "did not reach the end"
vmlogs "$tmp/vm/nostart" && sed -i '/VM-START/d' "$tmp/vm/nostart/tap.log"
report_fails "report.sh fails a test log without VM-START" "$tmp/vm/nostart" "no VM-START"
vmlogs "$tmp/vm/hung" && sed -i '2a [  200.000000] INFO: task sh:93 blocked for more than 120 seconds.' "$tmp/vm/hung/console.log"
report_fails "report.sh fails a hung-task report" "$tmp/vm/hung" "kernel log is clean"
vmlogs "$tmp/vm/rcu" && sed -i '2a [  300.000000] rcu: INFO: rcu_sched self-detected stall on CPU' "$tmp/vm/rcu/console.log"
report_fails "report.sh fails an RCU stall" "$tmp/vm/rcu" "kernel log is clean"
# CI saw this: a KASAN report at boot, 60 lines of it, then the one a test provoked.
vmlogs "$tmp/vm/two" && sed -i "2a [    1.6] BUG: KASAN: wild-memory-access in do_raw_spin_lock\\
$(for i in $(seq 70); do printf '[    1.6]  frame%d\\\n' "$i"; done)[   30.0] BUG: KASAN: slab-use-after-free in pc_uaf_read" "$tmp/vm/two/console.log"
report_fails "report.sh fails a run with two KASAN reports" "$tmp/vm/two" "kernel log is clean"
check "... and names the second one, past the first one's excerpt" \
	grep -q '^#   report: .*slab-use-after-free in pc_uaf_read' <<< "$out"
# run.sh boots again once on a report before /init ran (pc_boot_report), not after.
. "$top/tests/vm/splat.sh"
vmlogs "$tmp/vm/early" && sed -i '1a [    0.5] BUG: KASAN: wild-memory-access in do_raw_spin_lock' "$tmp/vm/early/console.log"
check_eq "a report before VM-START is the boot's own (run.sh boots again once)" \
	"[    0.5] BUG: KASAN: wild-memory-access in do_raw_spin_lock" \
	"$(pc_boot_report "$tmp/vm/early/console.log")"
check "a report after VM-START is not (the run fails)" \
	sh -c "! (. '$top/tests/vm/splat.sh'; pc_boot_report '$tmp/vm/hung/console.log')"
check "a clean boot has none" \
	sh -c "! (. '$top/tests/vm/splat.sh'; pc_boot_report '$tmp/vm/good/console.log')"
vmlogs "$tmp/vm/killed" 143
report_fails "report.sh fails a script killed at its limit" "$tmp/vm/killed" "killed at its 78 s limit"

## ---- caches: suites wait for their background builders; a failed builder fails them
# caches SCRIPT [TIMEOUT]: SCRIPT in a bash that sourced tests/lib/caches.sh, builder logs
# in $tmp/caches; sets rc, out and secs (its wall time)
caches() {
	local t0=$SECONDS
	out=$(cd "$tmp" && CACHE_LOGDIR=$tmp/caches CACHE_TIMEOUT=${2:-60} \
		bash -c ". '$top/tests/lib/caches.sh'; $1" 2>&1)
	rc=$?
	secs=$((SECONDS - t0))
}

caches "cache_start good sh -c 'sleep 1; echo built-it'; cache_wait good"
check_eq "a suite whose builder succeeds runs after it (control)" 0 "$rc"
check "the wait is a comment naming the cache and its log" \
	grep -qx "# cache good: waited [0-9]*s for its builder (started [0-9]*s earlier; log $tmp/caches/good.log)" <<< "$out"
check_eq "the builder's output goes to its log, not the TAP stream" \
	"built-it|$(grep -c built-it <<< "$out")" "$(cat "$tmp/caches/good.log")|0"

caches "cache_start bad sh -c 'echo step-one; echo broken-here >&2; exit 3'; cache_wait bad"
check_eq "a suite whose builder failed fails" 1 "$rc"
check_eq "it says which cache failed, how, and where its log is" \
	"not ok 1 - cache bad built (exit 3; log $tmp/caches/bad.log)" "$(grep '^not ok' <<< "$out")"
check "it shows the log's tail as comments" grep -qx '#   broken-here' <<< "$out"
printf '%s\n' "$out" > "$tmp/bad.tap"
suite_verdict vm:x 1 "$tmp/bad.tap" > "$tmp/bad.verdict"
check_eq "run-all counts it as one failure, with no other complaint (a plan ends it)" \
	"0 1 0|" "$SV_PASS $SV_FAIL $SV_SKIP|$(cat "$tmp/bad.verdict")"

caches "cache_start bad sh -c 'exit 2'; cache_wait bad > /dev/null; cache_wait bad"
check_eq "every suite waiting for a failed cache fails, not only the first" \
	"1 1" "$rc $(grep -c '^not ok 1 - cache bad built (exit 2' <<< "$out")"

caches "cache_start hung sleep 30; cache_wait hung" 1
check_eq "a hung builder fails its suite at CACHE_TIMEOUT instead of hanging the run" \
	"1 1" "$rc $(grep -c "^not ok 1 - cache hung built (exit 124: timed out after 1s" <<< "$out")"
check "... promptly" test "$secs" -lt 10

# CI saw this: a builder done early, its pid reused by a later child of run-all, and
# bash's wait answering "pid N is not a child of this shell" (127) for it.
caches "cache_start done sh -c 'exit 0'; sleep 1; wait; CACHE_PID[done]=1; cache_wait done"
check_eq "a builder whose status bash forgot (its pid reused) is judged by its exit status" \
	"0|" "$rc|$(grep -v '^# cache done: waited' <<< "$out")"

caches "cache_start slow sh -c 'echo started; sleep 3; echo finished'; sleep 1; cache_stop; wait"
check_eq "cache_stop (run-all's exit) ends a running builder" \
	"started" "$(cat "$tmp/caches/slow.log")"

caches "cache_start lo nice; CACHE_NICE=0 cache_start hi nice; cache_wait lo hi"
check_eq "builders run niced 10 more than run-all, CACHE_NICE=0 ones (the debug kernel) not" \
	"$(($(nice) + 10)) $(nice)" "$(cat "$tmp/caches/lo.log") $(cat "$tmp/caches/hi.log")"

# A VM's fixtures (tests/vm/run.sh build_all): no other kernel's DKMS module, since asking
# for one waits on its release's chroot; for "" (neither 60-load nor 61-dkms run) or a
# kernel with no DKMS build, none at all.
for k in "" debug 7.3-rt; do
	check_eq "a VM's fixtures ask for no DKMS module for OPS_DKMS_FOR='$k'" "OPS_DKMS_KVERS := " \
		"$(make -s -C "$top/tests/fixtures" -pn OPS_DKMS_FOR="$k" 2>/dev/null | grep '^OPS_DKMS_KVERS :=')"
done

caches "cache_wait; cache_wait not-started"
check_eq "a suite needing no cache, or one not started here, does not wait" "0|" "$rc|$out"

## ---- tests/style/layers.py: planted include circles and a library including a command fail
# layers TREE: the style suite's layers check on TREE (a copy: the real tree is never
# touched); sets rc and out
layers() {
	out=$(python3 "$top/tests/style/layers.py" "$1" 2>&1)
	rc=$?
}
# layers_fails DESC TREE LINE: the check fails on TREE and reports LINE (a whole line)
layers_fails() {
	layers "$2"
	if [ "$rc" -eq 1 ] && grep -qxF "$3" <<< "$out"; then
		ok "$1"
	else
		not_ok "$1"
		diag "  exit $rc, expected 1 and the line: $3"
	fi
	sed 's/^/#   /' <<< "$out"
}
tree=$tmp/tree
mkdir -p "$tree"
cp -a "$top/include" "$top/common" "$top/kmod" "$top/user" "$tree/"
layers "$tree"
check_eq "layers: the tree's copy passes as it is" "0 circles: 0" "$rc $(grep '^circles:' <<< "$out")"
cp -a "$tree" "$tmp/circle"
sed -i '/^#define _PC_CANON_H/a #include "pattern.h"' "$tmp/circle/user/lib/canon.h"
layers_fails "layers: a circle planted in user/lib (canon.h includes pattern.h) fails" \
	"$tmp/circle" "circle: user/lib/canon <-> user/lib/pattern"
# kmod/ planted with units of its own (the module's files change under other hands)
cp -a "$tree" "$tmp/kcircle"
for u in planta:plantb plantb:planta; do
	printf '#include "%s.h"\n' "${u%%:*}" > "$tmp/kcircle/kmod/${u%%:*}.c"
	printf '#include "%s.h"\n' "${u#*:}" > "$tmp/kcircle/kmod/${u%%:*}.h"
done
layers_fails "layers: a circle planted in kmod (planta.h <-> plantb.h) fails" \
	"$tmp/kcircle" "circle: kmod/planta <-> kmod/plantb"
cp -a "$tree" "$tmp/up"
sed -i '/^#include "pc.h"/a #include "arm.h"' "$tmp/up/user/lib/util.c"
layers_fails "layers: a library including a command header (util.c: arm.h) fails" \
	"$tmp/up" "lib-includes-cmd: user/lib/util.c:12 includes the command header user/cmd/arm.h"
cp -a "$tree" "$tmp/up4"
for n in 1 2 3 4; do
	printf '#include "../user/lib/pc.h"\n' > "$tmp/up4/kmod/plant$n.c"
done
layers_fails "layers: four includes from a lower layer to a higher one (kmod -> user/lib) fail" \
	"$tmp/up4" "too-many-upward: 4 includes from a lower layer to a higher one (at most 3)"

## ---- tests/readme/run.sh: a README command no test runs fails the suite
# readme_suite VAR=VALUE...: the readme suite on copies (README_MD, README_COVERED); sets
# rc and out
readme_suite() {
	out=$(env "$@" "$top/tests/readme/run.sh" 2>&1)
	rc=$?
}
# readme_fails DESC ERE VAR=VALUE...: the suite fails and has a "not ok" line matching ERE
readme_fails() {
	local desc=$1 ere=$2
	shift 2
	readme_suite "$@"
	if [ "$rc" -ne 0 ] && grep -Eq "^not ok [0-9]+ - $ere" <<< "$out"; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "  exit $rc, expected a failure and a not ok line matching: $ere"
	fi
	grep -v '^ok ' <<< "$out" | sed 's/^/#   /'
}
cp "$top/README.md" "$tmp/README.md"
cp "$top/tests/readme/covered" "$tmp/covered"
readme_suite README_MD="$tmp/README.md" README_COVERED="$tmp/covered"
check_eq "readme: the README's copy passes as it is" "0 0" "$rc $(grep -c '^not ok' <<< "$out")"
cp "$tmp/README.md" "$tmp/README-planted.md"
printf '\n```sh\nprobecache-resolve frobnicate --all   # planted\n```\n' >> "$tmp/README-planted.md"
readme_fails "readme: a command planted in the README that no test runs fails" \
	"README:[0-9]+: 'probecache-resolve frobnicate --all' is run by no test" \
	README_MD="$tmp/README-planted.md" README_COVERED="$tmp/covered"
sed 's|^in tests/vm/t/60-load.sh: .*|in tests/vm/t/60-load.sh: probecache-resolve frobnicate|' \
	"$tmp/covered" > "$tmp/covered-nomatch"
readme_fails "readme: a record whose expression matches no line of its test script fails" \
	"README: probecache-resolve load: no line of tests/vm/t/60-load.sh matches" \
	README_MD="$tmp/README.md" README_COVERED="$tmp/covered-nomatch"
sed 's|^in tests/vm/t/60-load.sh: |in tests/vm/demo/00-demo.sh: |' "$tmp/covered" > "$tmp/covered-demo"
readme_fails "readme: a record naming a script make check does not run (the demo's) fails" \
	"README: probecache-resolve load: tests/vm/demo/00-demo.sh is not a test script make check runs" \
	README_MD="$tmp/README.md" README_COVERED="$tmp/covered-demo"

tap_done
