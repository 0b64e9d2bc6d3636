#!/bin/sh
# bpftrace on probecache's per-probe trace events (issue 15): Debian bookworm's bpftrace
# 0.17, from the disk run.sh attaches (tests/vm/bpfimage.sh), attaches
# tracepoint:GROUP:EVENT programs to the probes and reads the record's typed, named fields
# as args->NAME: exact counts per value (a narrow signed field that wraps to negative
# values, a negative s64 read from memory, an SDT argument behind a semaphore), a string
# field (__data_loc char[]) through str(), and the probe armed only while bpftrace is
# attached, defined again with the original bytes once it exits.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
PEEK=$PCF/pc_peek
cd /tmp || exit 1

if ! why=$(pc_bpftrace_root 2>&1); then
	pc_missing "bookworm's bpftrace: $why"
	tap_done
	exit
fi
diag "$(pc_bpftrace --version 2>&1)"

# bt_c NAME PROGRAM CMD: bpftrace -e PROGRAM -c CMD (bpftrace starts CMD once the program
# is attached and exits after it, printing its maps), output in /tmp/NAME.out; ok if it
# exits 0. CMD goes through a script, /tmp/NAME.sh: bpftrace 0.17 splits -c's argument at
# blanks without quoting and runs only ELF files there.
bt_c() {
	echo "$3" > "/tmp/$1.sh"
	if pc_bpftrace -e "$2" -c "/bin/sh /tmp/$1.sh" > "/tmp/$1.out" 2> "/tmp/$1.err"; then
		ok "bpftrace -e '$2' -c '$3'"
	else
		not_ok "bpftrace -e '$2' -c '$3' (exit $?)"
		sed 's/^/#   /' "/tmp/$1.err" | head -n 40
	fi
}

# map NAME [MAP]: the "@MAP[KEY]: COUNT" lines of /tmp/NAME.out as "KEY COUNT", sorted
map() {
	sed -n "s/^@${2:-}\[\(.*\)\]: \([0-9]*\)\$/\1 \2/p" "/tmp/$1.out" | sort -n
}

# expect FIELD N...: "VALUE COUNT" of FIELD over runs of pc_sdt loop N (each calls
# pc_add(i, 2i), i = 1..N): a as s32, b (2i) as s8, which wraps to negative past 127
expect() {
	_f=$1
	shift
	awk -v f="$_f" -v runs="$*" 'BEGIN { split(runs, r, " ")
		for (k in r) for (i = 1; i <= r[k]; i++) {
			v = f == "a" ? i : (2 * i) % 256
			if (f == "b" && v > 127) v -= 256
			n[v]++
		}
		for (v in n) print v, n[v] }' | sort -n
}

check "insmod" pc_load
check "define bt/add (s32 a, s8 b)" kctl "add p:bt/add $B $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:s8"
check "define bt/tick (SDT + semaphore)" kctl "add p:bt/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick) $pc_sdt_SDTARGS_tick"
check "define bt/glob (s64 from .bss)" kctl "add p:bt/glob $B $S:$pc_sdt_SDT_glob($pc_sdt_SEM_glob) n=@+$pc_sdt_OFF_pc_bss:s64"
check "define bt/str (string)" kctl "add p:bt/str $B $S:$pc_sdt_SDT_str($pc_sdt_SEM_str) s=+0($pc_sdt_SDTPLACE_str_1):string"
check_eq "defined, nothing armed" "defined 0" "$(kget bt:add state) $(cat $PC_SYSFS/nr_armed)"

# Runs of 3, 2 and 70 calls: a = 1, 2 three times, 3 twice, 4 .. 70 once; b = 2a as s8.
bt_c add 'tracepoint:bt:add { @a[args->a] = count(); @b[args->b] = count(); }' \
	"$S loop 3; $S loop 2; $S loop 70"
check_eq "  s32 a: exact hits per value" "$(expect a 3 2 70)" "$(map add a)"
check_eq "  s8 b: exact hits per value, negative past 127" "$(expect b 3 2 70)" "$(map add b)"
check_eq "  bpftrace gone: defined, nothing armed" "defined 0 0" \
	"$(kget bt:add state) $(kget bt:add consumers) $(cat $PC_SYSFS/nr_armed)"

# The SDT probe fires only if its semaphore is raised: bpftrace, a consumer, raises it.
bt_c tick 'tracepoint:bt:tick { @[args->a2] = count(); }' "$S loop 4"
check_eq "  SDT tick a2 = 3i: the semaphore was raised" "3 1
6 1
9 1
12 1" "$(map tick)"

# A negative s64 read from memory: pc_sdt glob WORD stores -strlen(WORD) in pc_bss.
bt_c glob 'tracepoint:bt:glob { @[args->n] = count(); }' "$S glob abcde"
check_eq "  s64 n read from .bss: -5" "-5 1" "$(map glob)"

# The string is a __data_loc char[] field; bpftrace 0.17 reads it with str(args->s).
bt_c str 'tracepoint:bt:str { @[str(args->s)] = count(); }' "$S str hello-bpftrace"
check_eq "  string field through str()" "hello-bpftrace 1" "$(map str)"

# Armed only while attached: a process that maps pc_sdt sees the int3 at pc_add
# meanwhile, and its original byte once bpftrace exits.
orig=0x$(od -A n -t x1 -j $((pc_sdt_OFF_pc_add)) -N 1 $S | tr -d ' ')
mkfifo /tmp/bt.fifo
$S semwatch < /tmp/bt.fifo > /tmp/w.out &
w=$!
exec 3> /tmp/bt.fifo
echo >&3
wait_for 10 lines_ge /tmp/w.out 1
check_eq "defined: original byte at pc_add in a running process" "$orig" "$($PEEK $w $S $pc_sdt_OFF_pc_add)"
# chroot execs bpftrace: $! is bpftrace itself, which SIGINT must reach.
chroot "$PC_BT" /usr/bin/bpftrace -e 'tracepoint:bt:add { @ = count(); }' > /tmp/bg.out 2> /tmp/bg.err &
bt=$!
check "bpftrace attached: bt/add armed" wait_for 60 pc_test bt:add state = armed
check_eq "  one consumer, one probe armed" "armed 1 1" \
	"$(kget bt:add state) $(kget bt:add consumers) $(cat $PC_SYSFS/nr_armed)"
check_eq "  the running process has the int3" "0xcc" "$($PEEK $w $S $pc_sdt_OFF_pc_add)"
check "  del while bpftrace holds the event: EBUSY" kfail "del bt:add"
kill -INT $bt
wait $bt
check_eq "bpftrace exits 0 on SIGINT" "0" "$?"
check_eq "  defined again, nothing armed" "defined 0 0" \
	"$(kget bt:add state) $(kget bt:add consumers) $(cat $PC_SYSFS/nr_armed)"
check_eq "  the running process has its original byte back" "$orig" "$($PEEK $w $S $pc_sdt_OFF_pc_add)"
exec 3>&-
wait $w

check "clear" kctl clear
check "rmmod" pc_unload
pc_bpftrace_unbind
tap_done
