#!/bin/sh
# arm64 kernels only (tests/vm/run.sh arm64-6.1, arm64-7.3): the cross-built module with
# records that the x86-64 host's CLI made from the arm64 binaries (arm64 register names):
# define/arm, exact hits on Debian's arm64 libstdc++ throw probe, every aarch64 SDT operand
# form fetched as the fixture prints it, wrong build-id and foreign e_machine refused,
# rewrite refused, rmmod under hits.
. /pc/lib.sh
F=/pc/fixtures
TR=/sys/kernel/tracing

# rec GROUP:EVENT: its record (probecache-resolve list --format=record, run on the host)
rec() {
	awk -v p="p:${1%%:*}/${1#*:}" '$1 == p { print; exit }' $F/arm64.rec
}

# uline RECORD: RECORD's uprobe_events line as probecache-resolve writes it
# (user/lib/uprobedef.c): no build-id, no pid=, every arg typed (u64 by default), and
# index-register operands ([xN, xM, lsl #k]) left out: uprobe_events has no form for them.
uline() {
	set -f
	# shellcheck disable=SC2086
	set -- $1
	set +f
	_l="$1 $3"
	shift 3
	for _a in "$@"; do
		case "$_a" in
		pid=*|*"("*,*")"*) continue ;;
		*:*) ;;
		*) _a=$_a:u64 ;;
		esac
		_l="$_l $_a"
	done
	echo "$_l"
}

# pc_arm_line RECORD: define RECORD as the CLI does (the module's "add", then the kernel's
# uprobe event) and arm it with the module's hit counter ("count GROUP:EVENT").
pc_arm_line() {
	_ge=${1%% *}
	_ge=${_ge#*:}
	pc_ctl "add $1" "count ${_ge%%/*}:${_ge#*/}" && uline "$1" >> $TR/uprobe_events
}

# kget GROUP:EVENT FIELD: the field of the probe's listing line (lib.sh pc_field)
kget() {
	pc_field "$1" "$2"
}

# refused RECORD: the module refuses "add RECORD"; last_error without "line 1 col C: "
refused() {
	printf 'add %s\n' "$1" > "$PC_SYSFS/control" 2> /dev/null && return 1
	sed 's/^line 1 col [0-9]*: //' "$PC_SYSFS/last_error"
}

# pc_trace_args GROUP:EVENT CMD...: run CMD (its stdout to /tmp/out) with the probe's
# trace event (the kernel's uprobe event GROUP/EVENT) enabled; prints the "argN=V ..." part of each hit's
# trace line ("EVENT: (0xADDR) arg1=V ...").
pc_trace_args() {
	_ev=$1
	shift
	_e=$TR/events/${_ev%%:*}/${_ev#*:}
	echo 0 > $TR/tracing_on
	echo > $TR/trace
	echo 1 > "$_e/enable"
	echo 1 > $TR/tracing_on
	"$@" > /tmp/out
	echo 0 > "$_e/enable"
	grep " ${_ev#*:}: (0x" $TR/trace | sed -n 's/.* \(arg1=\)/\1/p'
}

check_eq "machine" "aarch64" "$(uname -m)"
LIB=$(ls /usr/lib/aarch64-linux-gnu/libstdc++.so.6.*)
check "Debian's arm64 libstdc++ is there" test -f "$LIB"
check "insmod" pc_load
throw=$(rec sdt_libstdcxx:throw)
check_eq "host CLI's throw record: arm64 path and register names" \
	"$LIB arg1=%x0:u64 arg2=%x1:u64" "$(echo "$throw" | sed 's/^[^ ]* [^ ]* \([^:]*\):0x[0-9a-f]*/\1/')"

# Exact hits on the real SDT binary.
check "arm sdt_libstdcxx:throw" pc_arm_line "$throw"
check_eq "state" "armed" "$(kget sdt_libstdcxx:throw state)"
check_eq "rs_throw 7 runs" "thrown=7" "$($F/rs_throw 7 | tail -n 1)"
check_eq "throw hits exactly 7" "7" "$(kget sdt_libstdcxx:throw hits)"
$F/rs_throw 5 > /dev/null
check_eq "hits accumulate: 12" "12" "$(kget sdt_libstdcxx:throw hits)"
got=$(pc_trace_args sdt_libstdcxx:throw $F/rs_throw 3)
want=$(sed -n 's/^throw i=[0-9]* obj=\(0x[0-9a-f]*\) tinfo=\(0x[0-9a-f]*\)$/\1 \2/p' /tmp/out |
	while read -r o t; do echo "arg1=$((o)) arg2=$((t))"; done)
check_eq "throw args (%x0 %x1) equal the objects rs_throw printed" "$want" "$got"
check_eq "3 more hits" "15" "$(kget sdt_libstdcxx:throw hits)"

# Every aarch64 operand form: xN, [xN], [xN, #off], [xN, xM, lsl #k], [xN, xM],
# [sp, #off], immediates, wN.
forms=$(rec sdt_pcfix:forms)
check_eq "forms record" "arg1=%x9:u64 arg2=+0(%x9):s64 arg3=+8(%x9):s32 arg4=+0(%x9,%x10,8):u64 arg5=+0(%x9,%x10,1):u16 arg6=+16(%sp):u64 arg7=\\-7:s32 arg8=\\42:u64 arg9=%x10:u32" \
	"$(echo "$forms" | cut -d ' ' -f 4-)"
check "arm sdt_pcfix:forms" pc_arm_line "$forms"
got=$(pc_trace_args sdt_pcfix:forms $F/a64_args forms)
check_eq "each operand form fetched as the fixture prints it (the two index forms left out)" \
	"$(sed 's/ arg4=[^ ]* arg5=[^ ]*//' /tmp/out)" "$got"
check_eq "forms hit once" "1" "$(kget sdt_pcfix:forms hits)"
check "arm sdt_pcfix:tick" pc_arm_line "$(rec sdt_pcfix:tick)"
check_eq "a64_args loop 1000" "ticks=1000" "$($F/a64_args loop 1000)"
check_eq "tick hits exactly 1000" "1000" "$(kget sdt_pcfix:tick hits)"
got=$(pc_trace_args sdt_pcfix:tick $F/a64_args loop 3)
check_eq "tick's arg (%x0) is the iteration" "arg1=1
arg1=2
arg1=3" "$got"
# %pc, %sp, %x30 at the same location, from a record of our own.
. $F/a64_args.env
pcrec=$(rec sdt_pcfix:tick | sed 's|^p:sdt_pcfix/tick|p:pcx/tickpc|; s| arg1=.*| arg1=%pc:x64 arg2=%x0:s64 arg3=%sp:x64 arg4=%x30:x64|')
check "arm pcx:tickpc (%pc %x0 %sp %x30)" pc_arm_line "$pcrec"
got=$(pc_trace_args pcx:tickpc $F/a64_args loop 2)
check_eq "%pc reads the probe's address ($A64_TICK_PC)" "arg1=$A64_TICK_PC arg2=1
arg1=$A64_TICK_PC arg2=2" "$(echo "$got" | sed 's/ arg3=.*//')"
sp=$(echo "$got" | sed -n '1s/.* arg3=\(0x[0-9a-f]*\).*/\1/p')
lr=$(echo "$got" | sed -n '1s/.* arg4=\(0x[0-9a-f]*\).*/\1/p')
check "%sp reads a stack address ($sp), %x30 a return address into the program ($lr)" \
	test "$((sp > 0x100000000))$((lr > A64_TICK_PC - 0x100000 && lr < A64_TICK_PC + 0x100000))" = 11
check_eq "both probes at one location counted" "1005 2" "$(kget sdt_pcfix:tick hits) $(kget pcx:tickpc hits)"

# Refusals: another build-id, another machine's ELF.
bad=$(echo "$throw" | sed 's|^p:sdt_libstdcxx/throw [0-9a-f]*|p:pcx/badbid 0000000000000000000000000000000000000000|')
check_eq "wrong build-id refused" \
	"build-id: build-id mismatch: file has $(echo "$throw" | cut -d ' ' -f 2), record wants 0000000000000000000000000000000000000000" \
	"$(refused "$bad")"
x86=$(rec sdt_pcfix:scalars | sed 's/ arg.*//')
check "an x86-64 record is there" test -n "$x86"
check_eq "x86-64 ELF refused" "path: ELF header: e_machine 62 is not this machine's (183)" \
	"$(refused "$x86")"
check_eq "x86-64 register names refused" "arg1: unknown register" \
	"$(refused "p:pcx/r $(echo "$forms" | cut -d ' ' -f 2,3) a=%di")"

# Writers excluded from definition to deletion; timestamps change nothing.
cp $F/a64_args /tmp/rw
rw=$(rec sdt_pcfix:tick | sed 's|^p:sdt_pcfix/tick|p:rw/tick|; s| /pc/fixtures/a64_args:| /tmp/rw:|')
check "arm a copy" pc_arm_line "$rw"
check_eq "copy runs, counted" "ticks=3 3" "$(/tmp/rw loop 3) $(kget rw:tick hits)"
check "in-place rewrite refused (ETXTBSY)" sh -c "! cat $F/rs_throw 2> /dev/null > /tmp/rw"
sleep 1	# let the coarse file timestamps move
touch /tmp/rw
check_eq "touched copy runs, counted" "ticks=3 6" "$(/tmp/rw loop 3) $(kget rw:tick hits)"

# rmmod while probes are being hit.
$F/a64_args spin 4 > /tmp/spin.out &
spin=$!
$F/rs_throw 20000 > /tmp/thr.out &
thr=$!
h0=$(kget sdt_pcfix:tick hits)
check "hits flowing" wait_for 20 pc_test sdt_pcfix:tick hits -gt $((h0 + 100))
check "rmmod under hits" pc_unload
check "module gone" test ! -d $PC_SYSFS
wait $spin
check_eq "spinning program unharmed" "0 spun" "$? $(cat /tmp/spin.out)"
wait $thr
check_eq "throwing program unharmed" "0 thrown=20000" "$? $(tail -n 1 /tmp/thr.out)"
tap_done
