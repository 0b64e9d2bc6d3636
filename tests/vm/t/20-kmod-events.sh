#!/bin/sh
# Every probe's trace event is the kernel's own uprobe event, defined as the CLI defines
# it (kdef: the module's add, then uprobe_events), and armed only while a consumer
# listens: defined probes leave processes untouched; perf stat, perf record (per task
# too), ftrace with a filter and the module's counter each arm it and give it back;
# deleting an event a tracer holds is the kernel's EBUSY, which keeps the definition;
# perf probe -l, uprobe_profile and perf probe -d see the events; a name uprobe_events
# already has is refused and undone, never appended to; a defined probe's file refuses
# writers.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
PEEK=$PCF/pc_peek

check "insmod" pc_load
check "define tick (SDT + semaphore)" kdef "p:pcfix/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick) $pc_sdt_SDTARGS_tick"
check "define add with typed args" kdef "p:pcfix/add $B $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:u32 ax=%di:x16"
check "define glob (negative .bss value)" kdef "p:pcfix/glob $B $S:$pc_sdt_SDT_glob($pc_sdt_SEM_glob) b=@+$pc_sdt_OFF_pc_bss:s64"
check "define str" kdef "p:pcfix/str $B $S:$pc_sdt_SDT_str($pc_sdt_SEM_str) s=+0($pc_sdt_SDTPLACE_str_1):string"
check "define add_ret" kdef "r:pcfix/add_ret $B $S:$pc_sdt_OFF_pc_add rv=\$retval:s32"
check_eq "defined, not armed" "defined defined 0" "$(kget pcfix:tick state) $(kget pcfix:add state) $(cat $PC_SYSFS/nr_armed)"

# The event: typed, named fields and perf probe's print format.
F=$(tev pcfix:add)/format
check "event pcfix/add in tracefs" test -f "$F"
check "field s32 a" grep -q 'field:s32 a;.*size:4;.*signed:1;' "$F"
check "field u32 b" grep -q 'field:u32 b;.*size:4;.*signed:0;' "$F"
check "field __probe_ip" grep -q 'field:unsigned long __probe_ip;' "$F"
check "string field is __data_loc char[]" grep -q 'field:__data_loc char\[\] s;' "$(tev pcfix:str)/format"
check_eq "print fmt" 'print fmt: "(%lx) a=%d b=%u ax=0x%x", REC->__probe_ip, REC->a, REC->b, REC->ax' "$(grep '^print fmt' "$F")"
check_eq "r: print fmt" 'print fmt: "(%lx <- %lx) rv=%d", REC->__probe_func, REC->__probe_ret_ip, REC->rv' "$(grep '^print fmt' "$(tev pcfix:add_ret)/format")"
check "perf list shows pcfix:tick as a Tracepoint event" sh -c 'perf list 2>/dev/null | grep -q "pcfix:tick .*\[Tracepoint event\]"'
check "perf probe -l lists pcfix:add on the fixture" sh -c "perf probe -l 2> /dev/null | grep -q 'pcfix:add .* in $S'"

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
check_eq "after perf: semaphore 0 again" "sem=0" "$($S sem)"
check "uprobe_profile counts pcfix:add's hits" sh -c "grep -q '^ *$S *add *1000\$' $TR/uprobe_profile"

# perf record -p: the breakpoint goes into that process only.
int3() { [ "$($PEEK $w1 $S $pc_sdt_SDT_tick)" = 0xcc ]; }
perf record -q -e pcfix:tick -p $w1 -o /tmp/p.data > /dev/null 2>&1 &
pr=$!
check "perf record -p: the recorded process gets the int3" wait_for 20 int3
check_eq "the recorded process has the semaphore raised" "0x0001" "$($PEEK $w1 $S $pc_sdt_SEM_tick 2)"
check_eq "another process mapping the file: original byte" "$orig" "$($PEEK $w2 $S $pc_sdt_SDT_tick)"
check_eq "another process: semaphore 0" "0x0000" "$($PEEK $w2 $S $pc_sdt_SEM_tick 2)"
check "del while perf holds the event: EBUSY, the definition kept" kbusy pcfix:tick
check "  its file still refuses writers" sh -c "! true 2> /dev/null >> $S"
kill -INT $pr
wait $pr
check_eq "perf gone: original byte back" "$orig" "$($PEEK $w1 $S $pc_sdt_SDT_tick)"
check_eq "perf gone: semaphore 0" "0x0000" "$($PEEK $w1 $S $pc_sdt_SEM_tick 2)"
exec 3>&- 4>&-
wait $w1 $w2

# perf record + script: named, typed values equal to what the program did.
cd /tmp || exit 1
perf record -q -e pcfix:add -e pcfix:glob -e pcfix:str -o /tmp/r.data -- \
	sh -c "$S loop 2 > /dev/null; $S glob abcde > /dev/null; $S str hello-perf > /dev/null" 2> /dev/null
perf script -i /tmp/r.data > /tmp/script 2> /dev/null
check_eq "perf script: unsigned, signed and hex fields" "a=1 b=2 ax=0x1
a=2 b=4 ax=0x2" "$(sed -n 's/.*pcfix:add: ([0-9a-fx]*) //p' /tmp/script)"
if foffs_ok; then
	check_eq "perf script: negative value" "b=-5" "$(sed -n 's/.*pcfix:glob: ([0-9a-fx]*) //p' /tmp/script)"
else
	diag "$FOFFS_BUG"
fi
check_eq "perf script: string" 's="hello-perf"' "$(sed -n 's/.*pcfix:str: ([0-9a-fx]*) //p' /tmp/script)"

# ftrace: a field filter drops the right hits.
echo 'a > 5' > "$(tev pcfix:add)/filter"
trace_on pcfix:add
$S loop 8 > /dev/null
trace_off
check_eq "filter a > 5 kept a=6..8" "a=6 b=12 ax=0x6
a=7 b=14 ax=0x7
a=8 b=16 ax=0x8" "$(trace_hits pcfix:add)"
echo 0 > "$(tev pcfix:add)/filter"
trace_on pcfix:add_ret
$S loop 2 > /dev/null
trace_off
check_eq "r: event values" "rv=3
rv=6" "$(trace_hits pcfix:add_ret)"

# The module's counter beside ftrace: two consumers of one uprobe, each exact.
check "count pcfix:add" kctl "count pcfix:add"
check_eq "counting arms" "armed 1" "$(kget pcfix:add state) $(kget pcfix:add counting)"
trace_on pcfix:add
$S loop 1000 > /dev/null
check_eq "counted exactly 1000, traced 1000" "1000 1000" "$(kget pcfix:add hits) $(grep -c ' add: (0x' $TR/trace)"
check "del while ftrace has it enabled: EBUSY, the definition kept" kbusy pcfix:add
trace_off
check "nocount pcfix:add" kctl "nocount pcfix:add"
check_eq "no counter: defined" "defined 0" "$(kget pcfix:add state) $(kget pcfix:add counting)"
check "del once unused" kundef pcfix:add
check "its event is gone" test ! -e "$(tev pcfix:add)"
check "  and its definition" pc_unlisted pcfix:add

# Someone else deletes the event (root's perf probe -d, or "-:" on uprobe_events): the
# definition, its pin and its write denial stay until del.
check "perf probe -d pcfix:add_ret" sh -c "perf probe -q -d pcfix:add_ret"
check "  its event is gone" test ! -e "$(tev pcfix:add_ret)"
check "  its definition stays" pc_listed pcfix:add_ret
check "del then deletes the definition" kundef pcfix:add_ret

# A defined probe's file refuses writers: enabling finds the verified content.
cp $S /tmp/st
check "define on a copy" kdef "p:st/tick $B /tmp/st:$pc_sdt_SDT_tick($pc_sdt_SEM_tick)"
check "a rewrite after definition: ETXTBSY" sh -c "! echo x 2> /dev/null >> /tmp/st"
trace_on st:tick
check_eq "its event enabled: the copy's hits traced" "2" "$(/tmp/st loop 2 > /dev/null; grep -c ' tick: (0x' $TR/trace)"
trace_off
check "del" kundef st:tick
check "writable again" sh -c "echo x >> /tmp/st"

# An event uprobe_events already has, with the same args on another copy: the define is
# refused and undone (nothing defined, no write denial left), never appended to it as a
# second probe (append_trace_uprobe(): a multi-probe event, which cannot lose a file
# safely while in use).
cp $S /tmp/dupf
cp $S /tmp/dupo
echo "p:dup/ev /tmp/dupo:$pc_sdt_OFF_pc_add a=%di:s32" >> $TR/uprobe_events
dup() { ! kdef "p:dup/ev $B /tmp/dupf:$pc_sdt_OFF_pc_add a=%di:s32" 2> /tmp/dup.err; }
check "GROUP/EVENT of a uprobe_events event refused" dup
check_eq "  not appended to it" "1" "$(grep -c '^p:dup/ev ' $TR/uprobe_events)"
check "  not defined in the module" pc_unlisted dup:ev
check "  its file is writable" sh -c ": >> /tmp/dupf"
echo '-:dup/ev' >> $TR/uprobe_events
check "clear" kclear
check_eq "nothing defined" "0" "$(cat $PC_SYSFS/nr_probes)"
check "rmmod" pc_unload
check_eq "no event left" "" "$(grep ':pcfix/\|:st/' $TR/uprobe_events)"
tap_done
