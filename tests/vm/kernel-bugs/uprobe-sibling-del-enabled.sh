#!/bin/sh
# Not part of make check: two kernel bugs of multi-probe uprobe events (one GROUP/EVENT
# over several files, append_trace_uprobe(), 5.5+) that decide how probecache gives a
# copy of a probed binary its event (Documentation/design.md, "Copies"). Shown without
# probecache. Run: VM_TESTDIR=tests/vm/kernel-bugs VM_TESTS='uprobe*' tests/vm/run.sh debug
#
# 1. A probe appended to an enabled event is not registered (register_trace_uprobe()
#    only links it): its file's hits are not traced until the event is disabled and
#    enabled again.
# 2. unregister_trace_uprobe() frees a probe that has siblings without unregistering
#    its uprobe consumer and without checking that the event is enabled
#    (unregister_trace_kprobe() does both): `-:GROUP/EVENT FILE:OFF` on an enabled event
#    leaves the uprobe calling freed memory. `-:GROUP/EVENT` alone is no better: every
#    probe but the last is removed the same way before the last one's EBUSY.
# Seen: debug kernel (6.12.118): 1. 0 of 3 hits; 2. KASAN slab-use-after-free in
# filter_chain() at the copy's next mmap, then a general protection fault in
# uprobe_dispatcher(). 7.3.4 (Debian's newest): 1. 0 of 3; 2. NULL pointer dereference
# in uprobe_dispatcher(), kernel panic.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
cp $S /tmp/copy
off=$(printf '0x%016x' $((pc_sdt_OFF_pc_add)))
ue() { echo "$1" >> $TR/uprobe_events; }
traced() { grep -c " $1: (0x" $TR/trace; }

# 1: f on the program, enabled, then the copy's probe appended
ue "p:kb/f $S:$pc_sdt_OFF_pc_add"
echo 1 > $TR/events/kb/f/enable
check "a copy's probe is appended to the enabled event" ue "p:kb/f /tmp/copy:$pc_sdt_OFF_pc_add"
/tmp/copy loop 3 > /dev/null
check_eq "the copy's hits are traced" 3 "$(traced f)"
echo 0 > $TR/events/kb/f/enable
ue "-:kb/f"

# 2: e on the program and the copy, enabled (both registered), then the copy's removed
ue "p:kb/e $S:$pc_sdt_OFF_pc_add"
ue "p:kb/e /tmp/copy:$pc_sdt_OFF_pc_add"
echo 1 > $TR/events/kb/e/enable
/tmp/copy loop 3 > /dev/null
check_eq "an event over two files traces the copy's hits (control)" 3 "$(traced e)"
if ue "-:kb/e /tmp/copy:$off" 2> /dev/null; then
	not_ok "removing one probe of an enabled event is refused"
else
	ok "removing one probe of an enabled event is refused"
fi
# After a removal the kernel accepted, this mmap and these hits use the freed probe.
/tmp/copy loop 3 > /dev/null
$S loop 3 > /dev/null
check "the event still works" test "$(traced e)" -ge 6
echo 0 > $TR/events/kb/e/enable
ue "-:kb/e"
tap_done
