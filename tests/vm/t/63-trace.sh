#!/bin/sh
# trace: arms what is not armed, prints one line per probecache:probecache_hit, stops with CMD or
# SIGINT, leaves the global tracing state alone and disarms only what it armed.
. /pc/lib.sh
P=probecache-resolve
W=/pc/fixtures/ops_work
T=/sys/kernel/tracing
export PROBECACHE_DIR=/tmp/c63
pc_unload
$P scan "$W" > /dev/null 2>&1
check "load" $P load --module "$PC_KO"
armed() { [ -d "$PC_SYSFS/probes/$1" ] && echo yes || echo no; }
is_armed() { [ -d "$PC_SYSFS/probes/$1" ]; }

$P trace sdt_ops:tick -- "$W" 5 > /tmp/t63.out 2> /tmp/t63.err; rc=$?
check_eq "trace -- CMD: exit 0" "0" "$rc"
check_eq "  one line per hit" "5" "$(grep -c ' sdt_ops:tick ' /tmp/t63.out)"
[ "$(grep -c ' sdt_ops:tick ' /tmp/t63.out)" = 5 ] || sed 's/^/#   /' /tmp/t63.out /tmp/t63.err
first=$(grep ' sdt_ops:tick ' /tmp/t63.out | head -n 1)
last=$(grep ' sdt_ops:tick ' /tmp/t63.out | tail -n 1)
# "        ops_work    123 [001]   12.345678: sdt_ops:tick ip=0x... arg1=1 arg2=10"
if echo "$first" | grep -Eq '^ *ops_work +[0-9]+ \[[0-9]+\] +[0-9]+\.[0-9]+: sdt_ops:tick ip=0x[0-9a-f]+ arg1=1 arg2=10$'; then
	ok "  line: comm pid [cpu] time: event ip args"
else
	not_ok "  line: comm pid [cpu] time: event ip args"
	diag "got: $first"
fi
check_eq "  last hit carries the last args" "arg1=5 arg2=50" "$(echo "$last" | grep -o 'arg1=.*')"
check_eq "  what trace armed is disarmed" "no" "$(armed sdt_ops:tick)"
check_eq "  no tracefs instance left" "" "$(ls $T/instances 2>&1)"
check_eq "  global probecache:probecache_hit stays disabled" "0" "$(cat $T/events/probecache/probecache_hit/enable)"

check "arm sdt_ops:done by hand" $P arm -q sdt_ops:done
$P trace sdt_ops:done -- "$W" 2 > /tmp/t63.out 2>&1
check_eq "trace of a probe armed already" "1" "$(grep -c ' sdt_ops:done .*arg1=2' /tmp/t63.out)"
check_eq "  stays armed afterwards" "yes" "$(armed sdt_ops:done)"

$P trace -- "$W" 2 > /tmp/t63.out 2>&1
check_eq "trace without PATTERN shows every armed probe" "1 0" \
	"$(grep -c ' sdt_ops:done ' /tmp/t63.out) $(grep -c ' sdt_ops:tick ' /tmp/t63.out)"
$P trace sdt_ops:tick > /tmp/t63.out 2>&1 &
tpid=$!
wait_for 20 is_armed sdt_ops:tick
check_eq "  a running trace armed its probe" "yes" "$(armed sdt_ops:tick)"
kill -TERM $tpid
wait $tpid; rc=$?
check_eq "trace stops on SIGTERM with exit 0" "0" "$rc"
check_eq "  and disarms" "no" "$(armed sdt_ops:tick)"

echo 1 > $T/events/probecache/probecache_hit/enable
"$W" 200 50 > /dev/null &
wpid=$!
"$W" 3 > /dev/null &	# another process: not traced with -p
$P trace -p $wpid sdt_ops:tick > /tmp/t63.out 2> /tmp/t63.err &
tpid=$!
wait_for 20 is_armed sdt_ops:tick
sleep 3
"$W" 3 > /dev/null
kill -INT $tpid
wait $tpid; rc=$?
kill $wpid 2> /dev/null
wait $wpid 2> /dev/null
check_eq "trace -p PID stops on SIGINT with exit 0" "0" "$rc"
n=$(grep -c ' sdt_ops:tick ' /tmp/t63.out)
check "  printed hits while running ($n)" test "$n" -gt 5
check_eq "  only from PID" "$n" "$(grep -c "^ *ops_work *$wpid " /tmp/t63.out)"
check_eq "  disarmed what it armed" "no" "$(armed sdt_ops:tick)"
check_eq "  global enable it did not own is untouched" "1" "$(cat $T/events/probecache/probecache_hit/enable)"
echo 0 > $T/events/probecache/probecache_hit/enable
check_eq "  no tracefs instance left" "" "$(ls $T/instances 2>&1)"

$P trace nothing_matches -- true > /dev/null 2> /tmp/t63.err; rc=$?
check_eq "trace of a pattern matching nothing fails" "1" "$rc"
check_eq "  and the command never ran without tracing" "" "$(ls $T/instances 2>&1)"
$P unload > /dev/null 2>&1
pc_unload
tap_done
