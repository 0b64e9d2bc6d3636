# make demo, inside the VM: a real binary scanned, its probes as perf/ftrace events,
# a breakpoint present only while someone listens, a rewrite refused and an upgrade
# reported stale. Readable output first; the TAP lines at the end are for the harness.
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/demo-cache
P=probecache-resolve
LIB=/usr/lib/x86_64-linux-gnu/libstdc++.so.6
W=/pc/fixtures/ops_work	# fires sdt_ops:tick(i, i*10) N times
T=/sys/kernel/tracing
app=/tmp/demo-app/rs_ver
t0=$(date +%s)
fail=0

say() { printf '\n### %s\n' "$*"; }
run() { echo "\$ $*"; "$@"; }
need() { "$@" || { fail=1; echo "!!! failed: $*"; }; }

say "1. Scan a real binary (Debian's libstdc++) and a small app: SDT notes + build-id, no debuginfo"
need run $P load --module "$PC_KO"
need run $P scan $LIB $W

say "2. The module loaded, each cached probe is a trace event: perf list shows them"
echo "\$ perf list | grep sdt_"
perf list 2> /dev/null | grep -E 'sdt_(libstdcxx|ops):'

say "3. perf stat -e counts exact hits: a C++ program throwing 5 times"
echo "\$ perf stat -e sdt_libstdcxx:throw -- rs_throw 5"
perf stat -e sdt_libstdcxx:throw -o /tmp/stat -- /pc/fixtures/rs_throw 5 > /dev/null
grep -v '^ *$' /tmp/stat | grep -v '^#'
throws=$(awk '/sdt_libstdcxx:throw/ { print $1 }' /tmp/stat)

say "4. perf record -e + perf script: each hit with its typed, named arguments"
cd /tmp || exit 1
echo "\$ perf record -e sdt_ops:tick -- ops_work 3 && perf script"
perf record -q -e sdt_ops:tick -o /tmp/r.data -- $W 3 > /dev/null 2>&1
perf script -i /tmp/r.data 2> /dev/null | tee /tmp/script
script_args=$(sed -n 's/.*sdt_ops:tick: ([0-9a-fx]*) //p' /tmp/script | tr '\n' ' ')

say "5. The breakpoint (0xcc) is in the process only while someone listens"
off=$($P list --format=uprobe sdt_ops:tick | sed -n 's/.*:\(0x[0-9a-f]*\) .*/\1/p')
$W 600 100 > /dev/null &
wpid=$!
sleep 0.3
before=$(/pc/fixtures/pc_peek $wpid $W $off)
echo "byte at sdt_ops:tick in a running ops_work, nobody listening: $before"
perf record -q -e sdt_ops:tick -p $wpid -o /tmp/p.data > /dev/null 2>&1 &
ppid=$!
wait_for 20 pc_test sdt_ops:tick state = armed || true
during=$(/pc/fixtures/pc_peek $wpid $W $off)
echo "while perf record -p $wpid runs:                               $during"
kill -INT $ppid
wait $ppid
after=$(/pc/fixtures/pc_peek $wpid $W $off)
echo "perf gone:                                                    $after"
kill $wpid
wait $wpid 2> /dev/null

say "6. ftrace: a filter on a named field keeps only the hits you want (arg1 > 3)"
echo "\$ echo 'arg1 > 3' > $T/events/sdt_ops/tick/filter; enable; ops_work 5"
echo 0 > $T/tracing_on
echo > $T/trace
echo 'arg1 > 3' > $T/events/sdt_ops/tick/filter
echo 1 > $T/tracing_on
echo 1 > $T/events/sdt_ops/tick/enable
$W 5 > /dev/null
echo 0 > $T/events/sdt_ops/tick/enable
echo 0 > $T/events/sdt_ops/tick/filter
echo "\$ cat $T/trace"
grep ' tick: (0x' $T/trace | sed 's/^ *//'
filtered=$(grep ' tick: (0x' $T/trace | grep -o 'arg1=[0-9]*' | tr '\n' ' ')

say "7. An armed binary refuses writers, like a running executable (ETXTBSY)"
mkdir -p /tmp/demo-app && cp /pc/fixtures/rs_ver_v1 $app
$P scan $app > /dev/null
need run $P arm -q sdt_rs_ver:step
echo "\$ cp rs_ver_v2 $app"
cp /pc/fixtures/rs_ver_v2 $app 2>&1
cp_rc=$?

say "8. A package upgrade renames a new file over it: the cache reports it stale"
run cp /pc/fixtures/rs_ver_v2 $app.new
run mv $app.new $app
run $P status --stale
stale=$($P status --stale 2> /dev/null | grep -c "^$app (.*): changed")
$P disarm sdt_rs_ver:step > /dev/null 2>&1
echo "\$ $P disarm sdt_rs_ver:step; $P arm sdt_rs_ver:step"
$P arm sdt_rs_ver:step 2>&1
arm_rc=$?

$P unload > /dev/null 2>&1
pc_unload
echo
echo "demo: the VM part took $(($(date +%s) - t0)) s"
echo
check_eq "demo: every step ran" 0 "$fail"
check_eq "demo: perf stat counted 5 throws" 5 "$throws"
check_eq "demo: perf script shows the typed args of 3 ticks" "arg1=1 arg2=10 arg1=2 arg2=20 arg1=3 arg2=30 " "$script_args"
check_eq "demo: 0xcc only while perf records" "no 0xcc no" \
	"$([ "$before" = 0xcc ] && echo 0xcc || echo no) $during $([ "$after" = 0xcc ] && echo 0xcc || echo no)"
check_eq "demo: the ftrace filter kept arg1 4 and 5" "arg1=4 arg1=5 " "$filtered"
check "demo: the rewrite of the armed file failed" test "$cp_rc" -ne 0
check_eq "demo: status --stale reports the renamed-over file" 1 "$stale"
check_eq "demo: arm refuses the stale entry (exit 3)" 3 "$arm_rc"
tap_done
