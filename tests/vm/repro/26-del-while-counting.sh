#!/bin/sh
# A probe's event deleted while its uprobe stays registered (the module's counter holds
# it) must not free what a hit still reads. Recipe: preempt=full (set at run time where
# the kernel has PREEMPT_DYNAMIC), a hitter pinned to CPU 1, an RT task waking every
# 100 us on CPU 1 so the hitter is preempted anywhere in its hit path, and on CPU 0 a
# loop of add, count, enable, disable, del of one event. A read of freed memory is a
# KASAN report (debug kernel), which fails the run; on stock kernels the check below
# counts what the kernel log shows.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID

check "insmod" pc_load
if [ -w /sys/kernel/debug/sched/preempt ]; then
	echo full > /sys/kernel/debug/sched/preempt
	diag "preempt: $(cat /sys/kernel/debug/sched/preempt)"
fi
taskset -c 1 $S loop 1000000000 > /dev/null &
hitter=$!
chrt -f 50 taskset -c 1 sh -c 'while :; do usleep 100; done' &
waker=$!
taskset -p -c 0 $$ > /dev/null
end=$(($(date +%s) + $(pc_scaled ${PC_REPRO_SECONDS:-20})))
n=0
fails=0
while [ "$(date +%s)" -lt "$end" ]; do
	kctl "add p:pcfix/uaf $B $S:$pc_sdt_OFF_pc_add a=%di:u64 b=%si:u64" \
		"count pcfix:uaf" 2> /dev/null || fails=$((fails + 1))
	echo 1 > $TR/events/pcfix/uaf/enable 2> /dev/null
	usleep 2000
	echo 0 > $TR/events/pcfix/uaf/enable 2> /dev/null
	kctl "del pcfix:uaf" 2> /dev/null || fails=$((fails + 1))
	n=$((n + 1))
done
kill $waker $hitter
wait $waker $hitter 2> /dev/null
diag "$n rounds, $fails control writes refused, $(kget pcfix:uaf hits 2> /dev/null) hits left"
check_eq "no use-after-free reported" 0 "$(dmesg | grep -c 'KASAN: .*use-after-free')"
check_eq "no oops" 0 "$(dmesg | grep -c -e 'BUG:' -e 'Oops')"
kctl clear
tap_done
