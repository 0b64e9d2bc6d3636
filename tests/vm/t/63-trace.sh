#!/bin/sh
# trace: enables the probes' kernel events in a private tracefs instance (which arms
# them), prints one line per hit with the event's named fields, stops with CMD or
# SIGINT/SIGTERM, disables and removes its instance, leaves the global tracing state
# alone and deletes only what it defined. A probe trace has enabled cannot be disarmed
# (the kernel's EBUSY). A probe whose kernel event root removed: trace makes it again.
. /pc/lib.sh
P=probecache-resolve
W=/pc/fixtures/ops_work
T=/sys/kernel/tracing
export PROBECACHE_DIR=/tmp/c63
pc_unload
$P scan "$W" > /dev/null 2>&1	# module not loaded: only cached
check "load" $P load --module "$PC_KO"
# present GROUP:EVENT: yes or no, as the listing says ("no listing" without one)
present() {
	if pc_listed "$1"; then echo yes; elif pc_unlisted "$1"; then echo no; else echo "no listing"; fi
}
state() { pc_field "$1" state; }
# inst_enabled GROUP/EVENT: enabled in some tracefs instance (trace's own)
inst_enabled() { grep -qx 1 $T/instances/*/events/$1/enable 2> /dev/null; }

# Root removed a defined probe's kernel event behind its back: trace makes it again.
$P define -q sdt_ops:tick
echo '-:sdt_ops/tick' >> $T/uprobe_events
$P trace sdt_ops:tick -- "$W" 1 > /tmp/t63.out 2> /tmp/t63.err; rc=$?
check_eq "a probe whose event root removed: trace exits 0" "0" "$rc"
check_eq "  with its hit: the event was made again" "1 yes" \
	"$(grep -c ' sdt_ops:tick: ' /tmp/t63.out) $(test -d $T/events/sdt_ops/tick && echo yes)"
check "disarm" $P disarm -q sdt_ops:tick

$P trace sdt_ops:tick -- "$W" 5 > /tmp/t63.out 2> /tmp/t63.err; rc=$?
check_eq "trace -- CMD: exit 0" "0" "$rc"
check_eq "  one line per hit" "5" "$(grep -c ' sdt_ops:tick: ' /tmp/t63.out)"
[ "$(grep -c ' sdt_ops:tick: ' /tmp/t63.out)" = 5 ] || sed 's/^/#   /' /tmp/t63.out /tmp/t63.err
first=$(grep ' sdt_ops:tick: ' /tmp/t63.out | head -n 1)
last=$(grep ' sdt_ops:tick: ' /tmp/t63.out | tail -n 1)
# "        ops_work    123 [001]   12.345678: sdt_ops:tick: (0x55d0c3a1b130) arg1=1 arg2=10"
if echo "$first" | grep -Eq '^ *ops_work +[0-9]+ \[[0-9]+\] +[0-9]+\.[0-9]+: sdt_ops:tick: \(0x[0-9a-f]+\) arg1=1 arg2=10$'; then
	ok "  line: comm pid [cpu] time: GROUP:EVENT: (address) named fields"
else
	not_ok "  line: comm pid [cpu] time: GROUP:EVENT: (address) named fields"
	diag "got: $first"
fi
check_eq "  last hit carries the last args" "arg1=5 arg2=50" "$(echo "$last" | grep -o 'arg1=.*')"
check_eq "  what trace defined is deleted again" "no" "$(present sdt_ops:tick)"
check_eq "  no tracefs instance left" "" "$(ls $T/instances 2>&1)"

check "define sdt_ops:done by hand" $P define -q sdt_ops:done
$P trace sdt_ops:done -- "$W" 2 > /tmp/t63.out 2>&1
check_eq "trace of a probe defined already" "1" "$(grep -c ' sdt_ops:done: .*arg1=2' /tmp/t63.out)"
check_eq "  stays defined afterwards, not counted, its event disabled" "defined 0 0" \
	"$(state sdt_ops:done) $(pc_field sdt_ops:done counting) $(cat $T/events/sdt_ops/done/enable)"

$P trace -- "$W" 2 > /tmp/t63.out 2>&1
check_eq "trace without PATTERN shows every defined probe" "1 0" \
	"$(grep -c ' sdt_ops:done: ' /tmp/t63.out) $(grep -c ' sdt_ops:tick: ' /tmp/t63.out)"
$P trace sdt_ops:tick > /tmp/t63.out 2>&1 &
tpid=$!
check "  a running trace enables its probe's event in its own instance" \
	wait_for 20 inst_enabled sdt_ops/tick
out=$($P disarm sdt_ops:tick 2>&1); rc=$?
check_eq "disarm while trace has it enabled: exit 1 (EBUSY)" "1" "$rc"
check "  says it is in use and nothing changed" sh -c \
	"echo '$out' | grep -q 'sdt_ops:tick (.*): in use by perf, ftrace or a BPF program: not deleted, nothing changed'"
check_eq "  still defined, its event still enabled" "defined yes" \
	"$(state sdt_ops:tick) $(inst_enabled sdt_ops/tick && echo yes)"
kill -TERM $tpid
wait $tpid; rc=$?
check_eq "trace stops on SIGTERM with exit 0" "0" "$rc"
check_eq "  and deletes the probe it defined" "no" "$(present sdt_ops:tick)"

$P define -q sdt_ops:tick
echo 1 > $T/events/sdt_ops/tick/enable
"$W" 200 50 > /dev/null &
wpid=$!
"$W" 3 > /dev/null &	# another process: not traced with -p
$P trace -p $wpid sdt_ops:tick > /tmp/t63.out 2> /tmp/t63.err &
tpid=$!
wait_for 20 inst_enabled sdt_ops/tick
sleep 3
"$W" 3 > /dev/null
kill -INT $tpid
wait $tpid; rc=$?
kill $wpid 2> /dev/null
wait $wpid 2> /dev/null
check_eq "trace -p PID stops on SIGINT with exit 0" "0" "$rc"
n=$(grep -c ' sdt_ops:tick: ' /tmp/t63.out)
check "  printed hits while running ($n)" test "$n" -gt 5
check_eq "  only from PID (set_event_pid)" "$n" "$(grep -c "^ *ops_work *$wpid " /tmp/t63.out)"
check_eq "  the global enable it did not own is untouched" "1" "$(cat $T/events/sdt_ops/tick/enable)"
check_eq "  the probe defined before stays defined" "defined" "$(state sdt_ops:tick)"
echo 0 > $T/events/sdt_ops/tick/enable
check_eq "  no tracefs instance left" "" "$(ls $T/instances 2>&1)"

$P trace nothing_matches -- true > /dev/null 2> /tmp/t63.err; rc=$?
check_eq "trace of a pattern matching nothing fails" "1" "$rc"
check_eq "  and the command never ran without tracing" "" "$(ls $T/instances 2>&1)"
$P unload > /dev/null 2>&1
pc_unload
tap_done
