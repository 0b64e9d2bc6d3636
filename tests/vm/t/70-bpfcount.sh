#!/bin/sh
# pc_bpfcount, the suite's BPF consumer (a BPF_PROG_TYPE_TRACEPOINT program on a perf
# tracepoint event, the way bpftrace attaches): exact hits per field value against
# static kernel tracepoints with known workloads (pc_bpfwork), on both CPUs, unsigned,
# signed 64-bit and sign-extended 32-bit fields, -t mode and its error reports.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
BC=$PCF/pc_bpfcount
W=$PCF/pc_bpfwork
cd /tmp || exit 1

# counts OUT MIN: the "VALUE COUNT" lines of OUT whose value is >= MIN, space-joined
counts() {
	awk -v m="$2" '$1 >= m { printf "%s%s:%s", s, $1, $2; s = " " }' "$1"
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

ncpu=$(grep -c '^processor' /proc/cpuinfo)
diag "$ncpu CPUs"
# fds 100+ are closed by nothing else in the VM: their counts are exact.
for cpu in $(seq 0 $((ncpu - 1))); do
	bc_run close$cpu syscalls:sys_enter_close fd -- $W @$cpu close 100:3 101:1 150:7 1000:2
	check_eq "  workload on CPU $cpu: exact closes per fd" "100:3 101:1 150:7 1000:2" \
		"$(counts /tmp/close$cpu.out 100)"
done
check_eq "values are sorted" "$(sort -n /tmp/close0.out)" "$(cat /tmp/close0.out)"

# A signed 64-bit field: close of a closed fd returns -EBADF (-9).
bc_run exit syscalls:sys_exit_close ret -- $W badclose 150 4
check_eq "  sys_exit_close ret: -9 exactly 4 times" "4" "$(awk '$1 == -9 { print $2 }' /tmp/exit.out)"
check_eq "  negative value printed signed, sorted first" "-9" "$(head -n 1 /tmp/exit.out | cut -d' ' -f1)"

# A signed 32-bit field, sign-extended in the program: si_code of tgkill is SI_TKILL (-6),
# of kill SI_USER (0).
bc_run sig -v signal:signal_generate code -- $W signal 5 3
check_eq "  signal_generate code: -6 x5 (tgkill), 0 x3 (kill)" "-6:5 0:3" \
	"$(awk '$1 == -6 || $1 == 0 { printf "%s%s:%s", s, $1, $2; s = " " }' /tmp/sig.out)"
check "  -v names the field's place" grep -q 'field code offset [0-9]* size 4 signed 1' /tmp/sig.err

# A uprobe_events event takes kprobe-type programs (pt_regs): the field is read from the
# register the definition fetches, typed as its format says. pc_sdt loop N calls
# pc_add(i, 2i) for i = 1..N; b as s8 wraps past 127.
kenv pc_sdt
S=$PCF/pc_sdt
echo "p:bcu/add $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:s8" >> $TR/uprobe_events
bc_run ua -v bcu:add a -- sh -c "$S loop 3 && $S loop 2"
check_eq "  uprobe_events s32 arg: exact hits per value" "1:2 2:2 3:1" "$(counts /tmp/ua.out -1000)"
check "  read as a kprobe program from %di" grep -q 'kprobe program, %di:s32 from pt_regs+112' /tmp/ua.err
bc_run ub bcu:add b -- $S loop 70
check_eq "  s8 arg: 2i wraps to negative past 127, sorted signed" \
	"$(awk 'BEGIN { for (i = 1; i <= 70; i++) { v = 2 * i; if (v > 127) v -= 256; print v " 1" } }' | sort -n)" \
	"$(cat /tmp/ub.out)"
echo '-:bcu/add' >> $TR/uprobe_events

# -t SECONDS: system-wide for a while; SIGINT would end it early.
attached() { grep -q 'attached' "$1"; }
$BC -v syscalls:sys_enter_close fd -t 4 > /tmp/timed.out 2> /tmp/timed.err &
bpid=$!
wait_for 20 attached /tmp/timed.err
$W @0 close 120:2 > /dev/null
$W @$((ncpu - 1)) close 120:3 121:1 > /dev/null
wait $bpid
rc=$?
check_eq "-t 4 exits 0" "0" "$rc"
check_eq "  counts what ran meanwhile" "120:5 121:1" "$(counts /tmp/timed.out 100)"
$BC -v syscalls:sys_enter_close fd -t 60 > /tmp/int.out 2> /tmp/int.err &
bpid=$!
wait_for 20 attached /tmp/int.err
$W close 130:1 > /dev/null
kill -INT $bpid
wait $bpid
check_eq "  SIGINT ends -t early with the counts" "0 130:1" "$? $(counts /tmp/int.out 100)"

# Errors name the step.
$BC nosuch:event fd -- true > /dev/null 2> /tmp/e1
check_eq "missing event: exit 1" "1" "$?"
check "  says which event and path" grep -q 'no event nosuch:event: .*/events/nosuch/event/id' /tmp/e1
$BC syscalls:sys_enter_close nofield -- true > /dev/null 2> /tmp/e2
check_eq "missing field: exit 1" "1" "$?"
check "  says so and shows the format" grep -q "has no field 'nofield'" /tmp/e2
$BC signal:signal_generate comm -- true > /dev/null 2> /tmp/e3
check_eq "array field: exit 1" "1" "$?"
check "  refused as not an integer" grep -q 'field comm is a string or array' /tmp/e3
$BC syscalls:sys_enter_close fd -- $W badclose 150 1 > /dev/null 2>&1
check_eq "command succeeded: exit 0" "0" "$?"
$BC syscalls:sys_enter_close fd -- $W close nonsense > /dev/null 2> /tmp/e4
check_eq "command failed: exit 3" "3" "$?"
check "  says how it exited" grep -q 'pc_bpfwork exited 2' /tmp/e4
$BC -m 2 syscalls:sys_enter_close fd -- $W close 100:1 101:1 102:1 103:1 > /dev/null 2> /tmp/e5
check_eq "map full (-m 2): exit 3" "3" "$?"
check "  says how many hits were lost" grep -q 'hits not counted: the map.s 2 entries were full' /tmp/e5
$BC > /dev/null 2>&1
check_eq "usage: exit 2" "2" "$?"
tap_done
