#!/bin/sh
# probecache.ko benchmark (printed, not asserted): ns per hit of pc_sdt's
# pc_add() loop bare, with our probe counting, with its trace event enabled too,
# and with an equivalent tracefs uprobe event; time to arm 10 000 probes
# (define + count) through control vs define + enable through uprobe_events.
# tests/vm/bench/20-events.sh compares each consumer with trace_uprobe alone.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
kenv pc_many
S=$PCF/pc_sdt
N=${PC_BENCH_CALLS:-20000}

ns() { # -> ns per call of one run
	"$S" bench "$N" | sed -n 's/^ns_per_call=//p'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'
}

check "insmod" pc_load
bare=$(ns)
check "add counting probe" karm "add p:bench/add $pc_sdt_BUILD_ID $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:s32"
count=$(ns)
trace_on bench:add
traced=$(ns)
trace_off
check_eq "probe counted every call" "$((2 * N))" "$(kget bench:add hits)"
kctl clear
echo "p:pcbench/add $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:s32" >> $TR/uprobe_events
echo 1 > $TR/events/pcbench/add/enable
echo 1 > $TR/tracing_on
tracefs=$(ns)
echo 0 > $TR/events/pcbench/add/enable
echo '-:pcbench/add' >> $TR/uprobe_events
echo > $TR/trace
echo "bench: $N calls of pc_add() per run, ns per call (ratio to bare)"
echo "bench:   bare                    $bare"
echo "bench:   probecache, counting    $count ($(ratio "$count" "$bare")x)"
echo "bench:   probecache, counting + ftrace  $traced ($(ratio "$traced" "$bare")x)"
echo "bench:   tracefs uprobe event    $tracefs ($(ratio "$tracefs" "$bare")x)"
echo "bench:   tracefs / probecache counting + ftrace = $(ratio "$tracefs" "$traced")"

awk -v b=$pc_many_BUILD_ID -v p=$PCF/pc_many -v s=$((pc_many_OFF_pc_sled_start)) \
	'BEGIN { for (i = 0; i < 10000; i++) printf "add p:many/p%d %s %s:0x%x\n", i, b, p, s + i }' > /tmp/ours
awk -v p=$PCF/pc_many -v s=$((pc_many_OFF_pc_sled_start)) \
	'BEGIN { for (i = 0; i < 10000; i++) printf "p:pcmany/p%d %s:0x%x\n", i, p, s + i }' > /tmp/theirs
sed 's/^add p:\([^/]*\)\/\([^ ]*\) .*/count \1:\2/' /tmp/ours > /tmp/ourcount
o1=$(PC_WRITE_TIME=1 $PCF/pc_write $PC_SYSFS/control < /tmp/ours | sed -n 's/^write_us=//p')
o2=$(PC_WRITE_TIME=1 $PCF/pc_write $PC_SYSFS/control < /tmp/ourcount | sed -n 's/^write_us=//p')
ours=$((${o1:-0} + ${o2:-0}))
check_eq "10000 armed through control" "10000" "$(cat $PC_SYSFS/nr_armed)"
t1=$(PC_WRITE_TIME=1 $PCF/pc_write $TR/uprobe_events < /tmp/theirs | sed -n 's/^write_us=//p')
t2=$(echo 1 | PC_WRITE_TIME=1 $PCF/pc_write $TR/events/pcmany/enable | sed -n 's/^write_us=//p')
check_eq "10000 defined through uprobe_events" "10000" "$(grep -c '^p:pcmany/' $TR/uprobe_events)"
theirs=$((${t1:-0} + ${t2:-0}))
echo "bench: arm 10000 probes: control ${ours}us (define ${o1}us + count ${o2}us, verified), uprobe_events ${theirs}us (define ${t1}us + enable ${t2}us), ratio $(ratio "$ours" "$theirs")"
echo 0 > $TR/events/pcmany/enable
# Truncating uprobe_events drops every definition in one go.
: > $TR/uprobe_events
check "rmmod" pc_unload
tap_done
