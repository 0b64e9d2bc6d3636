#!/bin/sh
# Every probe is a trace event, armed only while a consumer listens: defined
# probes leave processes untouched; perf stat, perf record (per task too),
# ftrace with a filter and the module's counter each arm it and give it
# back; deleting an event a tracer holds is EBUSY; a defined probe's file
# refuses writers.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
PEEK=$PCF/pc_peek

check "insmod" pc_load
check "define tick (SDT + semaphore)" kctl "add p:pcfix/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick) $pc_sdt_SDTARGS_tick"
check "define add with typed args" kctl "add p:pcfix/add $B $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:u32 ax=%di:x16"
check "define glob (negative .bss value)" kctl "add p:pcfix/glob $B $S:$pc_sdt_SDT_glob($pc_sdt_SEM_glob) b=@+$pc_sdt_OFF_pc_bss:s64"
check "define str" kctl "add p:pcfix/str $B $S:$pc_sdt_SDT_str($pc_sdt_SEM_str) s=+0($pc_sdt_SDTPLACE_str_1):string"
check "define add_ret" kctl "add r:pcfix/add_ret $B $S:$pc_sdt_OFF_pc_add rv=\$retval:s32"
check_eq "defined, not armed" "defined defined 0" "$(kget pcfix:tick state) $(kget pcfix:add state) $(cat $PC_SYSFS/nr_armed)"
check_eq "no consumers" "0" "$(kget pcfix:tick consumers)"

# The event: typed, named fields and perf probe's print format.
F=$(tev pcfix:add)/format
check "event pcfix/add in tracefs" test -f "$F"
check "field s32 a" grep -q 'field:s32 a;.*size:4;.*signed:1;' "$F"
check "field u32 b" grep -q 'field:u32 b;.*size:4;.*signed:0;' "$F"
check "field __probe_ip" grep -q 'field:unsigned long __probe_ip;' "$F"
check "string field is __data_loc char[]" grep -q 'field:__data_loc char\[\] s;' "$(tev pcfix:str)/format"
check_eq "print fmt" 'print fmt: "(0x%lx) a=%d b=%u ax=0x%x", REC->__probe_ip, REC->a, REC->b, REC->ax' "$(grep '^print fmt' "$F")"
check_eq "r: print fmt" 'print fmt: "(0x%lx <- 0x%lx) rv=%d", REC->__probe_ret_ip, REC->__probe_func, REC->rv' "$(grep '^print fmt' "$(tev pcfix:add_ret)/format")"
check "perf list shows pcfix:tick as a Tracepoint event" sh -c 'perf list 2>/dev/null | grep -q "pcfix:tick .*\[Tracepoint event\]"'

# Defined: a process mapping the file keeps its bytes and a 0 semaphore.
orig=0x$(od -A n -t x1 -j $((pc_sdt_SDT_tick)) -N 1 $S | tr -d ' ')
mkfifo /tmp/w1 /tmp/w2
$S semwatch < /tmp/w1 > /tmp/w1.out &
w1=$!
$S semwatch < /tmp/w2 > /tmp/w2.out &
w2=$!
exec 3> /tmp/w1 4> /tmp/w2
echo >&3
echo >&4
wait_for 10 lines_ge /tmp/w1.out 1
wait_for 10 lines_ge /tmp/w2.out 1
check_eq "defined: original instruction byte in a running process" "$orig" "$($PEEK $w1 $S $pc_sdt_SDT_tick)"
check_eq "defined: semaphore 0" "0x0000" "$($PEEK $w1 $S $pc_sdt_SEM_tick 2)"

# perf stat on a command: exact count, breakpoints only in that task.
perf stat -x, -e pcfix:add -o /tmp/stat -- $S loop 1000 > /dev/null
check_eq "perf stat -e pcfix:add counts exactly 1000" "1000" "$(awk -F, '/pcfix:add/ { print $1 }' /tmp/stat)"
check_eq "perf's task saw the semaphore raised" "sem=1" "$(perf stat -e pcfix:tick -o /dev/null -- $S sem)"
check_eq "after perf: defined, nothing armed" "defined 0" "$(kget pcfix:add state) $(cat $PC_SYSFS/nr_armed)"
check_eq "after perf: semaphore 0 again" "sem=0" "$($S sem)"

# perf record -p: the breakpoint goes into that process only.
perf record -q -e pcfix:tick -p $w1 -o /tmp/p.data > /dev/null 2>&1 &
pr=$!
check "perf record -p arms the probe" wait_for 20 pc_test pcfix:tick state = armed
check_eq "the recorded process has the int3" "0xcc" "$($PEEK $w1 $S $pc_sdt_SDT_tick)"
check_eq "the recorded process has the semaphore raised" "0x0001" "$($PEEK $w1 $S $pc_sdt_SEM_tick 2)"
check_eq "another process mapping the file: original byte" "$orig" "$($PEEK $w2 $S $pc_sdt_SDT_tick)"
check_eq "another process: semaphore 0" "0x0000" "$($PEEK $w2 $S $pc_sdt_SEM_tick 2)"
check "del while perf holds the event: EBUSY" kfail "del pcfix:tick"
check "last_error says it is in use" sh -c "grep -q 'in use by ftrace or perf' $PC_SYSFS/last_error"
check "rmmod while perf holds an event is refused" sh -c "! rmmod probecache 2> /dev/null"
kill -INT $pr
wait $pr
check_eq "perf gone: original byte back" "$orig" "$($PEEK $w1 $S $pc_sdt_SDT_tick)"
check_eq "perf gone: semaphore 0" "0x0000" "$($PEEK $w1 $S $pc_sdt_SEM_tick 2)"
check_eq "perf gone: defined" "defined" "$(kget pcfix:tick state)"
exec 3>&- 4>&-
wait $w1 $w2

# perf record + script: named, typed values equal to what the program did.
cd /tmp || exit 1
perf record -q -e pcfix:add -e pcfix:glob -e pcfix:str -o /tmp/r.data -- \
	sh -c "$S loop 2 > /dev/null; $S glob abcde > /dev/null; $S str hello-perf > /dev/null" 2> /dev/null
perf script -i /tmp/r.data > /tmp/script 2> /dev/null
check_eq "perf script: unsigned, signed and hex fields" "a=1 b=2 ax=0x1
a=2 b=4 ax=0x2" "$(sed -n 's/.*pcfix:add: ([0-9a-fx]*) //p' /tmp/script)"
check_eq "perf script: negative value" "b=-5" "$(sed -n 's/.*pcfix:glob: ([0-9a-fx]*) //p' /tmp/script)"
check_eq "perf script: string" 's="hello-perf"' "$(sed -n 's/.*pcfix:str: ([0-9a-fx]*) //p' /tmp/script)"

# ftrace: a field filter drops the right hits; disabling disarms.
echo 'a > 5' > "$(tev pcfix:add)/filter"
trace_on pcfix:add
check_eq "ftrace enable arms: state, consumers" "armed 1" "$(kget pcfix:add state) $(kget pcfix:add consumers)"
$S loop 8 > /dev/null
trace_off
check_eq "filter a > 5 kept a=6..8" "a=6 b=12 ax=0x6
a=7 b=14 ax=0x7
a=8 b=16 ax=0x8" "$(trace_hits pcfix:add)"
echo 0 > "$(tev pcfix:add)/filter"
check_eq "ftrace disabled: defined" "defined 0" "$(kget pcfix:add state) $(kget pcfix:add consumers)"
trace_on pcfix:add_ret
$S loop 2 > /dev/null
trace_off
check_eq "r: event values" "rv=3
rv=6" "$(trace_hits pcfix:add_ret)"

# The module's counter is a consumer like the others.
check "count pcfix:add" kctl "count pcfix:add"
check_eq "counting arms" "armed 1 1" "$(kget pcfix:add state) $(kget pcfix:add consumers) $(kget pcfix:add counting)"
$S loop 1000 > /dev/null
check_eq "counted exactly 1000" "1000" "$(kget pcfix:add hits)"
trace_on pcfix:add
check_eq "ftrace and counter: 2 consumers" "2" "$(kget pcfix:add consumers)"
check "del while ftrace has it enabled: EBUSY" kfail "del pcfix:add"
trace_off
check "nocount pcfix:add" kctl "nocount pcfix:add"
check_eq "no consumer left: defined" "defined 0 0" "$(kget pcfix:add state) $(kget pcfix:add consumers) $(kget pcfix:add counting)"
check "del once unused" kctl "del pcfix:add"
check "its event is gone" test ! -e "$(tev pcfix:add)"

# A defined probe's file refuses writers: enabling finds the verified content.
cp $S /tmp/st
check "define on a copy" kctl "add p:st/tick $B /tmp/st:$pc_sdt_SDT_tick($pc_sdt_SEM_tick)"
check "a rewrite after definition: ETXTBSY" sh -c "! echo x 2> /dev/null >> /tmp/st"
check "enabling arms it" sh -c "echo 1 > $(tev st:tick)/enable"
check_eq "armed" "armed" "$(kget st:tick state)"
echo 0 > $(tev st:tick)/enable
check "del" kctl "del st:tick"
check "writable again" sh -c "echo x >> /tmp/st"

# An event another subsystem already has is refused, nothing defined.
echo "p:dup/ev $S:$pc_sdt_OFF_pc_add" > $TR/uprobe_events
check "GROUP/EVENT of a uprobe_events event refused" kfail "add p:dup/ev $B $S:$pc_sdt_OFF_pc_add"
check "last_error: exists" sh -c "grep -q 'trace event dup/ev already exists' $PC_SYSFS/last_error"
# The name check looks events/GROUP/EVENT up in tracefs at /sys/kernel/tracing; where
# something else is mounted there (a tmpfs, in a mount namespace of its own) it must ask
# the tracing core instead: the clash is still refused, a look-alike directory is no clash.
notracefs() { # LINE: write LINE to control with a tmpfs over /sys/kernel/tracing
	unshare -m sh -c "mount -t tmpfs none $TR && mkdir -p $TR/events/fake/ev &&
		echo '$1' | $PCF/pc_write $PC_SYSFS/control 2> /dev/null"
}
refused_notracefs() { ! notracefs "$1"; }
check "refused where /sys/kernel/tracing is not tracefs" refused_notracefs "add p:dup/ev $B $S:$pc_sdt_OFF_pc_add"
check "a look-alike events/fake/ev there is no clash" notracefs "add p:fake/ev $B $S:$pc_sdt_OFF_pc_add"
check "fake/ev is a trace event" test -f "$(tev fake:ev)/id"
check "del fake/ev" kctl "del fake:ev"
echo > $TR/uprobe_events
check "clear" kctl clear
check_eq "nothing defined" "0" "$(cat $PC_SYSFS/nr_probes)"
check "rmmod" pc_unload
check "events gone with the module" test ! -e "$TR/events/pcfix"
tap_done
