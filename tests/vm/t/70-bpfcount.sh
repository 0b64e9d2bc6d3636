#!/bin/sh
# pc_bpfcount, the suite's BPF consumer (a BPF_PROG_TYPE_TRACEPOINT program on a perf
# tracepoint event, the way bpftrace attaches): exact hits per field value against
# static kernel tracepoints with known workloads (pc_bpfwork), on both CPUs, signed
# 32-bit (sign-extended) and unsigned 64-bit fields, a uprobe_events event (a kprobe-type
# program reading pt_regs) and probecache's probes, which are such events, -t mode and its
# error reports.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
BC=$PCF/pc_bpfcount
W=$PCF/pc_bpfwork
cd /tmp || exit 1

# counts OUT VALUE...: "VALUE:COUNT" of OUT's lines for these values, in OUT's order
counts() {
	_f=$1
	shift
	awk -v want=" $* " 'index(want, " " $1 " ") { printf "%s%s:%s", s, $1, $2; s = " " }' "$_f"
}

# bc_run NAME ARGS...: pc_bpfcount -o /tmp/NAME.out ARGS (CMD's output: /tmp/NAME.cmd),
# ok if it exits 0
bc_run() {
	_n=$1
	shift
	if "$BC" -o "/tmp/$_n.out" "$@" > "/tmp/$_n.cmd" 2> "/tmp/$_n.err"; then
		ok "pc_bpfcount $*"
	else
		not_ok "pc_bpfcount $* (exit $?)"
		sed 's/^/#   /' "/tmp/$_n.err" | head -n 40
	fi
}

# attached ERRFILE: pc_bpfcount -v has attached its program
attached() { grep -q 'attached' "$1"; }

ncpu=$(grep -c '^processor' /proc/cpuinfo)
diag "$ncpu CPUs"
# Signal tracepoints exist on every test kernel (the debug kernel has no syscalls:*).
# SIGUSR1 (10), SIGUSR2 (12) and SIGRTMIN+2 (36) are sent by nothing else in the VM
# (SIGCHLD, 17, is): their counts are exact.
for cpu in $(seq 0 $((ncpu - 1))); do
	bc_run sigs$cpu signal:signal_generate sig -- $W @$cpu sigs 10:3 12:1 36:7
	check_eq "  workload on CPU $cpu: exact hits per signal" "10:3 12:1 36:7" \
		"$(counts /tmp/sigs$cpu.out 10 12 36)"
done
check_eq "values are sorted" "$(sort -n /tmp/sigs0.out)" "$(cat /tmp/sigs0.out)"

# A signed 32-bit field, sign-extended in the program: si_code of tgkill is SI_TKILL (-6),
# of kill SI_USER (0).
bc_run code -v signal:signal_generate code -- $W code 5 3
check_eq "  signal_generate code: -6 x5 (tgkill), 0 x3 (kill)" "-6:5 0:3" "$(counts /tmp/code.out -6 0)"
check_eq "  negative value printed signed, sorted first" "-6" "$(head -n 1 /tmp/code.out | cut -d' ' -f1)"
check "  -v names the field's place" grep -q 'field code offset [0-9]* size 4 signed 1' /tmp/code.err

# An unsigned 64-bit field with bit 31 set (no sign extension): signal_deliver sa_flags.
bc_run flags signal:signal_deliver sa_flags -- $W flags 3 4
check_eq "  sa_flags: 0x84000000 x3, 0x44000004 x4" "1140850692:4 2214592512:3" \
	"$(counts /tmp/flags.out 2214592512 1140850692)"

# A uprobe_events event takes kprobe-type programs (pt_regs): the field is read from the
# register the definition fetches, typed as its format says. pc_sdt loop N calls
# pc_add(i, 2i) for i = 1..N; b as s8 wraps past 127.
kenv pc_sdt
S=$PCF/pc_sdt
# the values of 2i, i = 1..70, as s8 (past 127 they wrap), one hit each, sorted
wrap8='awk "BEGIN { for (i = 1; i <= 70; i++) { v = 2 * i; if (v > 127) v -= 256; print v \" 1\" } }" | sort -n'
echo "p:bcu/add $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:s8" >> $TR/uprobe_events
bc_run ua -v bcu:add a -- sh -c "$S loop 3 && $S loop 2"
check_eq "  uprobe_events s32 arg: exact hits per value" "1 2
2 2
3 1" "$(cat /tmp/ua.out)"
check "  read as a kprobe program from %di" grep -q 'kprobe program, %di:s32 from pt_regs+112' /tmp/ua.err
bc_run ub bcu:add b -- $S loop 70
check_eq "  s8 arg: 2i wraps to negative past 127, sorted signed" \
	"$(eval "$wrap8")" "$(cat /tmp/ub.out)"
echo '-:bcu/add' >> $TR/uprobe_events

# probecache's probes: their events are the kernel's uprobe events, so BPF attaches as
# above (kprobe type), to the definition's file; the SDT semaphore is raised while the
# program is attached; the module's counter and the program each see every hit; the
# event cannot be deleted while the program holds it (the kernel's EBUSY).
B=$pc_sdt_BUILD_ID
check "insmod" pc_load
check "define bc/add" kdef "p:bc/add $B $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:s8"
check "define bc/tick (SDT + semaphore)" kdef "p:bc/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick) $pc_sdt_SDTARGS_tick"
bc_run pa -v bc:add a -- sh -c "$S loop 3 && $S loop 2"
check_eq "  s32 a: exact hits per value" "1 2
2 2
3 1" "$(cat /tmp/pa.out)"
bc_run pb bc:add b -- $S loop 70
check_eq "  s8 b: 2i wraps to negative past 127, sorted signed" "$(eval "$wrap8")" "$(cat /tmp/pb.out)"
bc_run ps bc:tick a1 -- $S sem
check_eq "  the BPF consumer raised the SDT semaphore" "sem=1" "$(cat /tmp/ps.cmd)"
check_eq "  and it is 0 again" "sem=0" "$($S sem)"
check "count bc:add" kctl "count bc:add"
bc_run pc bc:add a -- $S loop 5
check_eq "  counter and BPF program each saw every hit" "5 5" \
	"$(kget bc:add hits) $(awk '{ n += $2 } END { print n }' /tmp/pc.out)"
check "nocount bc:add" kctl "nocount bc:add"
$BC -v bc:add a -t 60 > /tmp/busy.out 2> /tmp/busy.err &
bpid=$!
wait_for 20 attached /tmp/busy.err
if kundef bc:add 2> /dev/null; then
	not_ok "  deleting its event while a program is attached: EBUSY"
else
	ok "  deleting its event while a program is attached: EBUSY"
fi
check "  the definition stays" pc_listed bc:add
kill -INT $bpid
wait $bpid
check "  detached: deleted" kundef bc:add
check "delete bc:tick" kundef bc:tick
check "clear" kctl clear
check "rmmod" pc_unload

# -t SECONDS: system-wide for a while; SIGINT would end it early.
$BC -v signal:signal_generate sig -t 4 > /tmp/timed.out 2> /tmp/timed.err &
bpid=$!
wait_for 20 attached /tmp/timed.err
$W @0 sigs 10:2 > /dev/null
$W @$((ncpu - 1)) sigs 10:3 12:1 > /dev/null
wait $bpid
rc=$?
check_eq "-t 4 exits 0" "0" "$rc"
check_eq "  counts what ran meanwhile" "10:5 12:1" "$(counts /tmp/timed.out 10 12 36)"
$BC -v signal:signal_generate sig -t 60 > /tmp/int.out 2> /tmp/int.err &
bpid=$!
wait_for 20 attached /tmp/int.err
$W sigs 36:1 > /dev/null
kill -INT $bpid
wait $bpid
check_eq "  SIGINT ends -t early with the counts" "0 36:1" "$? $(counts /tmp/int.out 10 12 36)"

# Errors name the step.
$BC nosuch:event sig -- true > /dev/null 2> /tmp/e1
check_eq "missing event: exit 1" "1" "$?"
check "  says which event and path" grep -q 'no event nosuch:event: .*/events/nosuch/event/id' /tmp/e1
$BC signal:signal_generate nofield -- true > /dev/null 2> /tmp/e2
check_eq "missing field: exit 1" "1" "$?"
check "  says so and shows the format" grep -q "has no field 'nofield'" /tmp/e2
$BC signal:signal_generate comm -- true > /dev/null 2> /tmp/e3
check_eq "array field: exit 1" "1" "$?"
check "  refused as not an integer" grep -q 'field comm is a string or array' /tmp/e3
$BC signal:signal_generate sig -- $W sigs 10:1 > /dev/null 2>&1
check_eq "command succeeded: exit 0" "0" "$?"
$BC signal:signal_generate sig -- $W sigs nonsense > /dev/null 2> /tmp/e4
check_eq "command failed: exit 3" "3" "$?"
check "  says how it exited" grep -q 'pc_bpfwork exited 2' /tmp/e4
$BC -m 1 signal:signal_generate sig -- $W sigs 10:1 12:1 36:1 > /dev/null 2> /tmp/e5
check_eq "map full (-m 1): exit 3" "3" "$?"
check "  says how many hits were lost" grep -q 'hits not counted: the map.s 1 entries were full' /tmp/e5
$BC > /dev/null 2>&1
check_eq "usage: exit 2" "2" "$?"
tap_done
