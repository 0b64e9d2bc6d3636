# make demo, inside the VM: scan real SDT binaries, arm, run a workload, show
# the hits, then a rewritten binary being refused by the CLI and by the module.
# Readable output first; the TAP lines at the end are for the harness.
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/demo-cache
LIB=/usr/lib/x86_64-linux-gnu/libstdc++.so.6
app=/tmp/demo-app/rs_ver
fail=0

say() { printf '\n### %s\n' "$*"; }
run() { echo "\$ $*"; "$@"; }
need() { "$@" || { fail=1; echo "!!! failed: $*"; }; }

say "1. load the module and scan real binaries (metadata only, keyed by build-id)"
need pc_load
mkdir -p /tmp/demo-app && cp /pc/fixtures/rs_ver_v1 $app
run probecache-resolve scan $LIB /pc/fixtures/rs_throw /pc/fixtures/rs_sem $app
say "2. what the cache knows, perf-style"
run probecache-resolve list
run probecache-resolve list --format=uprobe 'sdt_libstdcxx:*'

say "3. arm: each binary's build-id is checked now, then the module checks it again"
need run probecache-resolve arm sdt_libstdcxx:throw sdt_rs:tick sdt_rs_ver:step

say "4. workload: a C++ program throwing 5 times, a semaphore-guarded probe, the app"
echo "\$ /pc/fixtures/rs_throw 5"
/pc/fixtures/rs_throw 5 | tail -n 1
run /pc/fixtures/rs_sem 3
run $app 4

say "5. status: hits per armed probe"
run probecache-resolve status
throws=$(pc_hits sdt_libstdcxx:throw)
ticks=$(pc_hits sdt_rs:tick)

say "6. the app is rewritten (new build); its cached probe is now stale"
run probecache-resolve disarm sdt_rs_ver:step
run cp /pc/fixtures/rs_ver_v2 $app
run probecache-resolve arm sdt_rs_ver:step
arm_rc=$?
rec=$(probecache-resolve list --format=record sdt_rs_ver:step)
echo "\$ echo 'add <the old record>' > /sys/kernel/probecache/control"
if echo "add $rec" > /sys/kernel/probecache/control 2>/dev/null; then
	kernel_refused=0
else
	kernel_refused=1
fi
run cat /sys/kernel/probecache/last_error
run probecache-resolve status --stale

say "7. done"
pc_unload

echo
check_eq "demo: every step ran" 0 "$fail"
check_eq "demo: 5 throws -> 5 hits on sdt_libstdcxx:throw" 5 "$throws"
check_eq "demo: 3 semaphore-guarded ticks -> 3 hits" 3 "$ticks"
check_eq "demo: arm refuses the rewritten binary (exit 3)" 3 "$arm_rc"
check_eq "demo: the module refuses the old record too" 1 "$kernel_refused"
tap_done
