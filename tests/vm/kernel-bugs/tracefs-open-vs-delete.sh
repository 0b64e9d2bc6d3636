#!/bin/sh
# Not part of make check: a kernel bug the stress test (t/22-kmod-stress.sh) works
# around, shown without probecache. Run: VM_TESTDIR=tests/vm/kernel-bugs tests/vm/run.sh 6.1
#
# Before eventfs (6.6), tracing_open_file_tr() reads the inode's trace_event_file and
# takes a reference on its trace_array before it takes event_mutex; an event deleted
# meanwhile frees that trace_event_file, a new event reuses the memory for another
# instance, the open takes its reference there, and the close puts the other
# trace_array: WARNING in tracing_release_file_tr (trace_array_put of a zero count),
# and the first instance keeps a reference nobody drops (rmdir: EBUSY for good).
# Here: kprobe events added and deleted in a loop while event files are opened in
# the global buffer and in three instances. On 6.6 and later both checks pass.
. /pc/lib.sh
TR=/sys/kernel/tracing
mkdir $TR/instances/k1 $TR/instances/k2 $TR/instances/k3
end=$(($(date +%s) + 24))
(while [ "$(date +%s)" -lt $end ]; do
	echo 'p:kp/e do_sys_openat2' >> $TR/kprobe_events
	echo 'p:kp/f do_sys_openat2' >> $TR/kprobe_events
	echo '-:kp/e' >> $TR/kprobe_events
	echo '-:kp/f' >> $TR/kprobe_events
done 2> /dev/null) &
for i in k1 k2 k3; do
	(while [ "$(date +%s)" -lt $end ]; do
		echo 0 > $TR/instances/$i/events/kp/e/enable
		echo 0 > $TR/events/kp/f/enable
		echo 0 > $TR/instances/$i/events/kp/f/enable
	done 2> /dev/null) &
done
wait
n=$(dmesg | grep -c 'WARNING.*tracing_release_file_tr')
if rmdir $TR/instances/k1 $TR/instances/k2 $TR/instances/k3 2> /tmp/rmdir.err; then
	ok "the instances can be removed"
else
	not_ok "the instances can be removed"
	diag "$(cat /tmp/rmdir.err)"
fi
check_eq "no WARNING in tracing_release_file_tr" 0 "$n"
tap_done
