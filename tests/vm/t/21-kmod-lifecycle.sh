#!/bin/sh
# The lifecycle under the interleavings of issue 26 (Documentation/design.md, "Event
# lifecycle"). Each block says what the module before that design did:
#  1. concurrent writers: add bursts, clear, two dels of one probe (soft lockup,
#     list_del on poison, nr_probes wrapping: ENOSPC for ever);
#  2. holders that took only a module reference (enable_event trigger, eprobe):
#     del succeeded and freed an event they still pointed to; the event is now the
#     kernel's uprobe event, whose "-:" is EBUSY while anything holds it, and the
#     CLI's del stops there with the definition kept (kundef);
#  6. a same-size rewrite with mtime put back and the ctime re-baselined by a
#     link count change: armed on bytes nobody verified (build B's int3 inside
#     an instruction of build A); now refused: writes are denied from the
#     definition on;
#  7. an overlayfs copy-up while the file was verified: the build-id read came
#     from the upper file (build A), the uprobe went on the lower inode (build B);
#  9. rmmod with probes defined: exit had to delete events tracers could hold;
# 10. a fetch sleeping on a page fault (a userfaultfd page kept missing, as a
#     stalled FUSE file would) held its CPU's scratch mutex: every other hit on
#     that CPU waited behind it (the fetch is now trace_uprobe's, which sizes its
#     strings before it takes its per-CPU buffer).
# Items 3, 4, 5 and 8 were about the module's own events (its gate probecache_ctl, a
# failed publication, inherited perf events of a stale probe, its own perf capability
# rule): the module has none now. Item 7 widens its window with the test build's hooks
# (kmod/testhook.h).
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
ADD="$B $S:$pc_sdt_OFF_pc_add a=%di:s32"
DUR=${PC_LIFECYCLE_SECONDS:-4}
PARAM=/sys/module/probecache/parameters

# fresh_byte FILE OFFSET: the byte at OFFSET that a process mapping FILE now sees
fresh_byte() {
	: > /tmp/lc_map.out
	$PCF/pc_harden map r "$1" "$(pc_scaled 30)" > /tmp/lc_map.out &
	_m=$!
	wait_for 10 grep -q mapped /tmp/lc_map.out
	$PCF/pc_peek $_m "$1" "$2"
	kill $_m
	wait $_m 2> /dev/null
}

check "insmod" pc_load

burst() {
	_l=""
	for _i in $(seq 40); do
		_l="$_l
add p:cw/b$_i $ADD"
	done
	kctl "$_l"
}

# 1. Concurrent control writers.
end=$(($(date +%s) + DUR))
until_deadline $end burst &
w1=$!
until_deadline $end kctl clear &
w2=$!
until_deadline $end kctl "del cw:b1" &
w3=$!
until_deadline $end kctl "del cw:b1" &
w4=$!
# Their last operations may end long after the deadline on a slow machine; a hang is
# also caught by the hung-task detector (the kernel log check).
wait_for $((DUR + $(pc_scaled 10))) gone $w1 $w2 $w3 $w4 || pc_stuck $w1 $w2 $w3 $w4
check "4 concurrent writers (add x40, clear, del, del) all finish" wait_for $(pc_scaled 120) gone $w1 $w2 $w3 $w4
diag "concurrent writers: $(($(date +%s) - end + DUR)) s"
check "clear after them" kctl clear
check_eq "nr_probes 0 after clear" "0" "$(cat $PC_SYSFS/nr_probes)"
check_eq "listing empty after clear" "" "$(cat $PC_LIST)"
check "a define still works (no ENOSPC from a wrapped count)" kctl "add p:cw/again $ADD"
check_eq "nr_probes 1" "1" "$(cat $PC_SYSFS/nr_probes)"
check "del it" kctl "del cw:again"
check "a second del of it: refused" kfail "del cw:again"
check_eq "nr_probes 0 again" "0" "$(cat $PC_SYSFS/nr_probes)"

# 2. Holders of the event: an enable_event trigger, a hist trigger, an eprobe.
check "define lc/ep and lc/other" kdef "p:lc/ep $ADD" "p:lc/other $ADD"
check "an enable_event trigger on lc/other naming lc/ep" sh -c "echo 'enable_event:lc:ep' > $(tev lc:other)/trigger"
check "del while a trigger holds the event: EBUSY, the definition kept" kbusy lc:ep
check "remove the trigger" sh -c "echo '!enable_event:lc:ep' > $(tev lc:other)/trigger"
if grep -qw hist "$(tev lc:ep)/trigger"; then
	check "a hist trigger on lc/ep" sh -c "echo 'hist:keys=a' > $(tev lc:ep)/trigger"
	check "del while a hist trigger is on it: EBUSY, the definition kept" kbusy lc:ep
	check "remove the hist trigger" sh -c "echo '!hist:keys=a' > $(tev lc:ep)/trigger"
else
	diag "no hist triggers in this kernel's config: not checked here"
fi
if echo 'e:lcep/ep lc/ep' 2> /dev/null >> $TR/dynamic_events; then
	check "del while an eprobe holds the event: EBUSY, the definition kept" kbusy lc:ep
	check "remove the eprobe" sh -c "echo '-:lcep/ep' >> $TR/dynamic_events"
else
	diag "no eprobe on a uprobe event here (trace_eprobe skips uprobe events; 5.10 has no eprobes): not checked"
fi
check "now del succeeds" kundef lc:ep lc:other

# 6. Writes are denied from the definition on: no same-size rewrite with its
# times put back can reach an armed probe's bytes.
kenv pc_rewrite
kenv pc_rewrite_b
cp $PCF/pc_rewrite /tmp/lc_rw
check "define lc/six on build A" kctl "add p:lc/six $pc_rewrite_BUILD_ID /tmp/lc_rw:$(printf '0x%x' $((pc_rewrite_OFF_pc_mark + 3)))"
check "rewrite it in place with build B: ETXTBSY" sh -c "! cat $PCF/pc_rewrite_b 2> /dev/null > /tmp/lc_rw"
check "count arms it" kctl "count lc:six"
check_eq "build A runs, counted" "variant=a value=0x01020304 1" "$(/tmp/lc_rw) $(kget lc:six hits)"
kctl "nocount lc:six" "del lc:six"

# 7. A copy-up while a file is being verified: refused, nothing armed on the
# lower inode (build B) for build A's record.
O=/tmp/lc_ov
mkdir -p $O/lower $O/upper $O/work $O/m
cp $PCF/pc_rewrite_b $O/lower/f
if mount -t overlay overlay -o lowerdir=$O/lower,upperdir=$O/upper,workdir=$O/work $O/m 2> /dev/null; then
	OFF=$(printf '0x%x' $((pc_rewrite_OFF_pc_mark + 3)))
	orig=0x$(od -A n -t x1 -j $((OFF)) -N 1 $O/lower/f | tr -d ' ')
	echo $(($(pc_scaled 3) * 1000)) > $PARAM/test_verify_delay_ms
	kctl "add p:lc/ov $pc_rewrite_BUILD_ID $O/m/f:$OFF" 2> /dev/null &
	av=$!
	sleep $(pc_scaled 1)
	check "copy-up: build A written through the overlay while its lower file (B) is verified" \
		cp $PCF/pc_rewrite $O/m/f
	wait $av
	check_eq "the add is refused" "1" "$?"
	echo 0 > $PARAM/test_verify_delay_ms
	check "  last_error says it was copied up" sh -c "grep -q 'copied up' $PC_SYSFS/last_error || ! cat $PC_SYSFS/last_error"
	check "  count: refused" kfail "count lc:ov"
	check_eq "  a process mapping the lower file (B): the original byte" "$orig" "$(fresh_byte $O/lower/f $OFF)"
	check_eq "  build B runs unharmed" "variant=b value=0x01020304" "$($O/lower/f)"
	kctl "nocount lc:ov" "del lc:ov" 2> /dev/null
	umount $O/m
else
	diag "no overlayfs in this kernel: item 7 not checked"
fi

# 10. A hit whose fetch sleeps does not hold up the other hits on its CPU.
# (The debug kernel's config has no userfaultfd: the sysctl exists only with it.)
if [ ! -e /proc/sys/vm/unprivileged_userfaultfd ]; then
	diag "no userfaultfd in this kernel: item 10 is checked on the stock kernels"
else
	kenv pc_harden
	H=$PCF/pc_harden
	hold=$(pc_scaled 6)
	printf 'a string\000' > /tmp/lc_str
	check "define lc/park (a string argument) and its event" kdef "p:lc/park $pc_harden_BUILD_ID $H:$pc_harden_OFF_pc_harden_str s=+0(%di):string"
	trace_on lc:park
	taskset -c 0 $H uffd-park "$hold" > /tmp/lc_park.out &
	pk=$!
	wait_for 10 grep -q parking /tmp/lc_park.out
	sleep 1
	t0=$(date +%s)
	taskset -c 0 $H coldstr /tmp/lc_str > /dev/null
	t1=$(date +%s)
	check "a hit on the CPU where another hit's fetch sleeps ${hold} s: not held up ($((t1 - t0)) s)" \
		test $((t1 - t0)) -lt $((hold / 2))
	wait $pk
	trace_off
	check_eq "the parked process resumed" "parking resumed" "$(tr '\n' ' ' < /tmp/lc_park.out | sed 's/ $//')"
	check_eq "  both hits traced" "2" "$(grep -c ' park: (0x' $TR/trace)"
	kundef lc:park
fi

# 9. A defined probe keeps the module loaded (its file stays write-denied until clear).
check "define lc/mod" kctl "add p:lc/mod $ADD" "count lc:mod"
check "rmmod while a probe is defined: refused" sh -c "! rmmod probecache 2> /dev/null"
check "  the module still answers" kctl "nocount lc:mod"
end=$(($(date +%s) + DUR))
until_deadline $end kctl "count lc:mod" "nocount lc:mod" &
w1=$!
until_deadline $end rmmod probecache &
w2=$!
wait_for $((DUR + $(pc_scaled 10))) gone $w1 $w2 || pc_stuck $w1 $w2
check "rmmod attempts racing count/nocount finish" wait_for $(pc_scaled 120) gone $w1 $w2
check "  the module is still loaded, its probe listed" pc_listed lc:mod
check "clear" kctl clear
check "rmmod once nothing is defined" rmmod probecache
tap_done
