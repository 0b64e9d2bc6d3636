#!/bin/sh
# del of a counted probe while a hit is inside the module's count handler must wait for
# that hit and not free what it uses. The test build's one-shot spin
# (test_hit_spin_ms, kmod/testhook.c) holds a hit in the handler (kmod/arm.c pc_hit) on
# CPU 1 while del runs on CPU 0: del returns only after the hit, which is unharmed.
# (Issue 41 item 1 was the module's own ftrace file, freed by del while a hit read it
# (6.1: a general protection fault at 0x6b6b6b6b6b6b6c2b, the freed trace_event_file, in
# trace_event_buffer_reserve() under pc_emit_ftrace()); the event is the kernel's
# uprobe event now, which its "-:" keeps until no hit uses it.)
# Then the natural recipe of item 1, without the hook: preempt=full where the kernel can
# switch (PREEMPT_DYNAMIC), a hitter pinned to CPU 1, an RT task waking every 100 us
# there so the hitter is preempted anywhere in its hit path, and on CPU 0 rounds of
# define (the module's add and the kernel's event), count, enable, disable, delete.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
PARAM=/sys/module/probecache/parameters
UAF="p:pcfix/uaf $B $S:$pc_sdt_OFF_pc_add a=%di:u64 b=%si:u64"

# spun_since N: a hit began spinning since the count was N
spun_since() {
	[ "$(cat $PARAM/test_hit_spun)" -gt "$1" ]
}

check "insmod" pc_load
if [ -w $PARAM/test_hit_spin_ms ]; then
	check "define and count pcfix/uaf" kctl "add $UAF" "count pcfix:uaf"
	spun=$(cat $PARAM/test_hit_spun)
	spin=$(pc_scaled 2)
	echo $((spin * 1000)) > $PARAM/test_hit_spin_ms
	taskset -c 1 sh -c "cut -d' ' -f1 /proc/uptime > /tmp/hit.t0; $S loop 1 > /dev/null; echo \$? > /tmp/hit.rc; cut -d' ' -f1 /proc/uptime > /tmp/hit.t1" &
	hitter=$!
	check "a hit is held in the count handler" wait_for 30 spun_since "$spun"
	d0=$(cut -d' ' -f1 /proc/uptime)
	check "del while it is held" sh -c "echo 'del pcfix:uaf' | taskset -c 0 $PCF/pc_write $PC_SYSFS/control"
	d1=$(cut -d' ' -f1 /proc/uptime)
	wait $hitter
	diag "the hitter ran $(awk -v a="$(cat /tmp/hit.t0)" -v b="$(cat /tmp/hit.t1)" 'BEGIN { print b - a }') s (a ${spin} s spin in its hit); del took $(awk -v a="$d0" -v b="$d1" 'BEGIN { print b - a }') s and returned $(awk -v a="$(cat /tmp/hit.t1)" -v b="$d1" 'BEGIN { print a - b }') s before it ended"
	check "  del returned only once the held hit was done (at most 1 s before its process ended)" \
		awk -v a="$(cat /tmp/hit.t1)" -v b="$d1" 'BEGIN { exit !(a - b < 1) }'
	check_eq "the hitter is unharmed" 0 "$(cat /tmp/hit.rc)"
	check "  the probe is gone" pc_unlisted pcfix:uaf
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
	kdefc "$UAF" 2> /dev/null || fails=$((fails + 1))
	echo 1 > $TR/events/pcfix/uaf/enable 2> /dev/null
	usleep 2000
	echo 0 > $TR/events/pcfix/uaf/enable 2> /dev/null
	kundef pcfix:uaf 2> /dev/null || fails=$((fails + 1))
	n=$((n + 1))
done
kill $waker $hitter
wait $waker $hitter 2> /dev/null
[ ! -w $PRE ] || echo "$model" > $PRE
check_eq "$n rounds of define, count, enable, disable, delete: every write applied" 0 "$fails"
check_eq "no use-after-free reported" 0 "$(dmesg | grep -c 'KASAN: .*use-after-free')"
check_eq "no oops" 0 "$(dmesg | grep -c -e 'BUG:' -e 'Oops')"
kunload
tap_done
