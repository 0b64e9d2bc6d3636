#!/bin/sh
# probecache.ko: exact hit counts, semaphores and the pid filter of the module's counter;
# each probe's trace event (the kernel's uprobe event, defined as the CLI does: kdef):
# fetched args = printed values, return values, @+FILEOFF (.data and .bss: made relative
# for uprobe_events), strings, SIB args dropped (no uprobe_events form).
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID

check "insmod" pc_load

check "add tick (SDT + semaphore)" kdefc "p:pcfix/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick) $pc_sdt_SDTARGS_tick"
check "add pc_add entry" kdefc "p:pcfix/add $B $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:s32"
check "add pc_add return" kdefc "r:pcfix/add_ret $B $S:$pc_sdt_OFF_pc_add rv=\$retval:s32"

check_eq "program output with probes counting" "0" "$($S loop 1000 > /dev/null; echo $?)"
check_eq "tick hits exactly 1000" "1000" "$(kget pcfix:tick hits)"
check_eq "pc_add hits exactly 1000" "1000" "$(kget pcfix:add hits)"
check_eq "pc_add return hits exactly 1000" "1000" "$(kget pcfix:add_ret hits)"
$S loop 234 > /dev/null
check_eq "hits accumulate: 1234" "1234" "$(kget pcfix:tick hits)"

trace_on
$S loop 3 v > /tmp/out
trace_off
check_eq "program printed 3 ticks" "3" "$(wc -l < /tmp/out)"
check_eq "SDT args equal the printed values" "$(sed 's/^tick //' /tmp/out)" "$(trace_hits pcfix:tick)"
check_eq "function args" "a=1 b=2
a=2 b=4
a=3 b=6" "$(trace_hits pcfix:add)"
check_eq "return values" "rv=3
rv=6
rv=9" "$(trace_hits pcfix:add_ret)"
check "trace line carries pid and ip" grep -q 'pc_sdt-[0-9]* .* tick: (0x[0-9a-f]*) ' $TR/trace

# @+FILEOFF: a .data global (rip-relative SDT operand) and a .bss one.
foffs_ok
fo=$?
check "add glob with @+FILEOFF in .data and .bss" kdefc "p:pcfix/glob $B $S:$pc_sdt_SDT_glob($pc_sdt_SEM_glob) g=$pc_sdt_SDTPLACE_glob_1:s64 b=@+$pc_sdt_OFF_pc_bss:s64 gx=@+$pc_sdt_OFF_pc_global:x64"
trace_on
$S glob abcde > /tmp/out
trace_off
if [ $fo = 0 ]; then
	check_eq "@+FILEOFF values" "g=1234605616436508552 b=-5 gx=0x1122334455667788" "$(trace_hits pcfix:glob)"
else
	diag "$FOFFS_BUG"
	# So the CLI leaves them out there: pc_sdt's glob probe has two rip-relative operands.
	PROBECACHE_DIR=/tmp/pc11 probecache-resolve scan --no-define $S > /dev/null 2>&1
	PROBECACHE_DIR=/tmp/pc11 probecache-resolve define sdt_pcfix:glob > /dev/null 2> /tmp/w11
	check_eq "  so the CLI's event of pcfix:glob has neither @+ arg" "p:sdt_pcfix/glob|0" \
		"$(sed -n 's/ .*//; /^p:sdt_pcfix\/glob$/p' $TR/uprobe_events)|$(grep -c '^p:sdt_pcfix/glob .*@+' $TR/uprobe_events)"
	check_eq "  and a warning names each" 2 "$(grep -c 'sdt_pcfix:glob: arg arg[12] not fetched: .*before 6.1' /tmp/w11)"
	PROBECACHE_DIR=/tmp/pc11 probecache-resolve disarm -q sdt_pcfix:glob
fi
check_eq "program saw the same" "glob a1=1234605616436508552 a2=-5" "$(cat /tmp/out)"
check_eq "  counted" "1" "$(kget pcfix:glob hits)"

check "add str with a string arg" kdefc "p:pcfix/str $B $S:$pc_sdt_SDT_str($pc_sdt_SEM_str) s=+0($pc_sdt_SDTPLACE_str_1):string c=+1($pc_sdt_SDTPLACE_str_1):u8"
trace_on
$S str hello-probes > /dev/null
trace_off
check_eq "string arg" 's="hello-probes" c=101' "$(trace_hits pcfix:str)"

check "add SIB-addressed arg" kdefc "p:pcfix/index $B $S:$pc_sdt_OFF_pc_index v=+0(%di,%si,4):s32 i=%si:u8 vx=+0(%di,%si,4):x16"
trace_on
$S index 3 > /tmp/out
trace_off
check_eq "the event has the other args, the SIB ones dropped" "i=3" "$(trace_hits pcfix:index)"
check_eq "program printed" "index v=-40" "$(cat /tmp/out)"
check "SIB probe hit counted once" test "$(kget pcfix:index hits)" = 1

# Semaphore: non-zero only while armed (the counter's own registration here).
check_eq "semaphore set while armed" "sem=1" "$($S sem)"
check "the event of tick, then the module's definition, deleted" kundef pcfix:tick
karm "add p:pcfix/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick)"
mkfifo /tmp/semfifo
$S semwatch < /tmp/semfifo > /tmp/sem.out &
watch=$!
exec 3> /tmp/semfifo
echo >&3
wait_for 10 lines_ge /tmp/sem.out 1
kctl "del pcfix:tick"
echo >&3
wait_for 10 lines_ge /tmp/sem.out 2
karm "add p:pcfix/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick)"
echo >&3
exec 3>&-
wait $watch
check_eq "running process: semaphore follows arm/disarm" "sem=1
sem=0
sem=1" "$(cat /tmp/sem.out)"
kctl "del pcfix:tick"
check_eq "semaphore 0 once disarmed" "sem=0" "$($S sem)"
check_eq "file's semaphore bytes untouched" "0" "$(hex_le16 $S $pc_sdt_SEM_tick)"

# pid filter: only the chosen process hits the counter (uprobe_events has no pid=).
kclear
mkfifo /tmp/pidfifo
$S semwatch < /tmp/pidfifo > /tmp/pid.out &
target=$!
exec 4> /tmp/pidfifo
echo >&4
wait_for 10 lines_ge /tmp/pid.out 1
check "add with pid=target" karm "add p:pcfix/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick) pid=$target"
check "add counting probe for every process" karm "add p:pcfix/all $B $S:$pc_sdt_OFF_pc_add"
check_eq "pid file" "$target" "$(kget pcfix:tick pid)"
echo >&4
exec 4>&-
wait $target
check_eq "target's semaphore set (breakpoint in its mm)" "sem=0
sem=1" "$(cat /tmp/pid.out)"
check_eq "another process: no breakpoint, semaphore 0" "sem=0" "$($S sem)"
$S loop 50 > /dev/null
check_eq "another process's ticks not counted" "0" "$(kget pcfix:tick hits)"
check_eq "while the unfiltered probe counts them" "50" "$(kget pcfix:all hits)"
check "pid of a gone process refused" sh -c "! printf 'add p:pcfix/gone $B $S:$pc_sdt_OFF_pc_add pid=$target\n' > $PC_SYSFS/control"
check_eq "its reason" "pid: no process with pid $target" "$(kerr | sed 's/^line 1 col [0-9]*: //')"

check "rmmod" kunload
tap_done
