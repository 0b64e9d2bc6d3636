#!/bin/sh
# A probe's event deleted while its uprobe stays registered (the module's counter holds
# it) must not free what a hit still reads. A hit that read the event's ftrace file from
# its list is held there (the test build's one-shot spin, kmod/testhook.c) while, on the
# other CPU, ftrace disables the event and del deletes it: del must not free the file
# before that hit is done with it. Another event stays enabled: disabling the last one
# stops ftrace's task-name recorder, whose unregister waits for every RCU reader and
# hides the bug. Seen failing on 6.1 before event.c waited for a grace period before
# removing events: a general protection fault at 0x6b6b6b6b6b6b6c2b (the freed
# trace_event_file, poisoned: run.sh boots with slub_debug for that cache) in
# trace_event_buffer_reserve() under pc_emit_ftrace(). (The debug kernel's eventfs
# keeps the file a while longer: no report there.)
# Then the natural recipe, without the hook: preempt=full where the kernel can switch
# (PREEMPT_DYNAMIC), a hitter pinned to CPU 1, an RT task waking every 100 us there so
# the hitter is preempted anywhere in its hit path, and on CPU 0 rounds of add, count,
# enable, disable, del.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
PARAM=/sys/module/probecache/parameters
UAF="add p:pcfix/uaf $B $S:$pc_sdt_OFF_pc_add a=%di:u64 b=%si:u64"

# spun_since N: a hit began spinning since the count was N
spun_since() {
	[ "$(cat $PARAM/test_hit_spun)" -gt "$1" ]
}

check "insmod" pc_load
if ! pc_events; then
	diag "no trace events here: nothing to check"
	pc_unload
	tap_done
	exit 0
fi
if [ -w $PARAM/test_hit_spin_ms ]; then
	check "define and count pcfix/uaf" kctl "$UAF" "count pcfix:uaf"
	# Another event stays enabled, as for a tracer of many events: disabling
	# the last one stops ftrace's task-name recorder, whose unregister waits
	# for every RCU reader, the held hit included.
	echo 1 > $TR/events/sched/sched_process_exec/enable
	echo 1 > $TR/events/pcfix/uaf/enable
	spun=$(cat $PARAM/test_hit_spun)
	echo $(($(pc_scaled 2) * 1000)) > $PARAM/test_hit_spin_ms
	taskset -c 1 $S loop 1 > /dev/null &
	hitter=$!
	check "a hit holds the event's ftrace file" wait_for 30 spun_since "$spun"
	taskset -c 0 sh -c "echo 0 > $TR/events/pcfix/uaf/enable"
	check "disable, then del while counting" taskset -c 0 sh -c ". /pc/lib.sh; . /pc/fixtures/pc_kmod.sh; kctl 'del pcfix:uaf'"
	wait $hitter
	check_eq "the hitter is unharmed" 0 "$?"
	echo 0 > $TR/events/sched/sched_process_exec/enable
else
	diag "a build without test hooks: the held hit is not checked"
fi

PRE=/sys/kernel/debug/sched/preempt
if [ -w $PRE ]; then
	model=$(sed 's/.*(\(.*\)).*/\1/' $PRE)
	echo full > $PRE
	diag "preempt: $(cat $PRE)"
fi
taskset -c 1 $S loop 1000000000 > /dev/null &
hitter=$!
chrt -f 50 taskset -c 1 sh -c 'while :; do usleep 100; done' &
waker=$!
taskset -p -c 0 $$ > /dev/null
end=$(($(date +%s) + $(pc_scaled 2)))
n=0
fails=0
while [ "$(date +%s)" -lt "$end" ]; do
	kctl "$UAF" "count pcfix:uaf" 2> /dev/null || fails=$((fails + 1))
	echo 1 > $TR/events/pcfix/uaf/enable 2> /dev/null
	usleep 2000
	echo 0 > $TR/events/pcfix/uaf/enable 2> /dev/null
	kctl "del pcfix:uaf" 2> /dev/null || fails=$((fails + 1))
	n=$((n + 1))
done
kill $waker $hitter
wait $waker $hitter 2> /dev/null
[ ! -w $PRE ] || echo "$model" > $PRE
check_eq "$n rounds of add, count, enable, disable, del: every control write applied" 0 "$fails"
check_eq "no use-after-free reported" 0 "$(dmesg | grep -c 'KASAN: .*use-after-free')"
check_eq "no oops" 0 "$(dmesg | grep -c -e 'BUG:' -e 'Oops')"
kctl clear
tap_done
