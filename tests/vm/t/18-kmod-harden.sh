#!/bin/sh
# probecache.ko hardening: records naming files that block or that the
# module itself serves return promptly; only a task with CAP_PERFMON or
# CAP_SYS_ADMIN may write control; two writers never mix their lines; r:
# probes bound to a pid leave a forked child's memory clean; a string in a
# page not yet faulted in is fetched by the probe's event; a writer racing
# with arming finds the file write-denied since its definition; the probe
# listing, which tells about other users' programs (hits, path, args, pid),
# is root-only unless public_probes=1.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
kenv pc_harden
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
OFF=$pc_sdt_OFF_pc_add
H=$PCF/pc_harden
HB=$pc_harden_BUILD_ID
FN=$pc_harden_OFF_pc_harden_fn

check "insmod" pc_load

# refused_fast DESC PATH EXPECT: a record naming PATH is refused within 10 s
# with EXPECT in last_error, and the module answers afterwards.
refused_fast() {
	printf 'add p:hang/e %s %s:0x0\n' "$B" "$2" > /tmp/hline
	if timeout 10 $PCF/pc_write $PC_SYSFS/control < /tmp/hline 2> /dev/null; then
		not_ok "$1: accepted"
		return
	fi
	_e=$(timeout 5 cat $PC_SYSFS/last_error)
	case "$_e" in
	*"$3"*) ok "$1 -> $_e" ;;
	*) not_ok "$1"; diag "expected $3, got '$_e'" ;;
	esac
}
mkfifo /tmp/hfifo
dbgf=$(find /sys/kernel/debug -maxdepth 1 -type f | head -n 1)
refused_fast "our own last_error (sysfs)" $PC_SYSFS/last_error "noexec or pseudo filesystem (sysfs)"
refused_fast "procfs" /proc/self/maps "noexec or pseudo filesystem (proc)"
refused_fast "tracefs trace_pipe (blocks when read)" $TR/trace_pipe "tracefs files cannot be read through the page cache"
refused_fast "debugfs" "$dbgf" "debugfs files cannot be read"
refused_fast "a FIFO" /tmp/hfifo "is special, not a regular file"
mkdir -p /tmp/nx && mount -t tmpfs -o noexec none /tmp/nx && cp $S /tmp/nx/s
refused_fast "a noexec mount" /tmp/nx/s "noexec or pseudo filesystem (tmpfs)"
check "module still usable" kctl "add p:hang/ok $B $S:$OFF" "count hang:ok" "del hang:ok"

# Privilege: uid 0 with every capability dropped.
line="add p:cap/e $B $S:$OFF"
check_eq "no capabilities: write refused" "EPERM" "$($H nocap $PC_SYSFS/control "$line")"
check_eq "opened privileged, written without: refused" "EPERM" \
	"$($H nocap open-first $PC_SYSFS/control "$line")"
check_eq "nothing defined" "0" "$(cat $PC_SYSFS/nr_probes)"
check "with capabilities: accepted" kctl "$line"
check "  listed" pc_listed cap:e
check_eq "the listing (hits, path, args, pid) is root-only: 0400" "-r--------" "$(ls -l $PC_LIST 2>&1 | cut -c1-10)"
check "del" kctl "del cap:e"

# Two writers in parallel, lines split across write()s at odd sizes.
mkbatch() { # NAME
	awk -v n=$1 -v b=$B -v p=$S -v o=$((OFF)) 'BEGIN {
		for (i = 0; i < 1000; i++)
			printf "add p:w%s/p%d %s %s:0x%x v=\\%d\n", n, i, b, p, o, i }'
}
mkbatch a > /tmp/wa
mkbatch b > /tmp/wb
PC_WRITE_CHUNK=7 $PCF/pc_write $PC_SYSFS/control < /tmp/wa > /tmp/wa.out 2>&1 &
wa=$!
PC_WRITE_CHUNK=13 $PCF/pc_write $PC_SYSFS/control < /tmp/wb > /tmp/wb.out 2>&1 &
wb=$!
wait $wa
ra=$?
wait $wb
check_eq "both writers succeed" "0 0 " "$ra $? $(cat /tmp/wa.out /tmp/wb.out)"
check_eq "2000 defined" "2000" "$(cat $PC_SYSFS/nr_probes)"
awk '{ match($0, / args=/); print $1 " " substr($0, RSTART + 6) }' $PC_LIST | sort > /tmp/wgot
sed 's/^add p:\([^/]*\)\/\([^ ]*\) .* \(v=.*\)$/\1:\2 \3:u64/' /tmp/wa /tmp/wb | sort > /tmp/wwant
check_eq "every probe has its own line's args" "$(md5sum < /tmp/wwant)" "$(md5sum < /tmp/wgot)"
check "clear" kctl clear

# r: bound to a pid: a forked child must lose the breakpoint, not count.
mkfifo /tmp/hfifo_in
$H forkret 1000 < /tmp/hfifo_in > /tmp/fr.out 2>&1 &
fr=$!
exec 7> /tmp/hfifo_in
wait_for 5 grep -q ready /tmp/fr.out
check "r: probe with pid=" karm "add r:fr/fn $HB $H:$FN pid=$fr"
echo armed >&7
exec 7>&-
wait $fr
orig=$(sed -n 's/.*orig=\(0x..\).*/\1/p' /tmp/fr.out)
check_eq "parent still armed (int3)" "0xcc" "$(sed -n 's/.*parent=\(0x..\).*/\1/p' /tmp/fr.out)"
check_eq "child holds the original byte" "$orig" "$(sed -n 's/.*child=\(0x..\).*/\1/p' /tmp/fr.out)"
check_eq "only the parent's return counted" "1" "$(kget fr:fn hits)"
check "del" kctl "del fr:fn"

# Faulting fetches: a string in a page the process never touched (no page
# table entry) is read by the probe's event (trace_uprobe's fetch), not reported as a
# fault.
printf 'string from a cold page\000' > /tmp/cold
check "probe with a string arg and its event" kdef "p:cold/s $HB $H:$pc_harden_OFF_pc_harden_str s=+0(%di):string"
trace_on
check_eq "fixture ran" "called" "$($H coldstr /tmp/cold)"
trace_off
check_eq "the string was fetched" 's="string from a cold page"' "$(trace_hits cold:s)"
check "del" kundef cold:s

# A writer between definition and registration: arming reads nothing, so
# the file must have refused writers since it was verified.
cp $H /tmp/hs
$H map x /tmp/hs 30 > /tmp/map.out &
mp=$!
wait_for 5 grep -q mapped /tmp/map.out
check "define ls:fn" kctl "add p:ls/fn $HB /tmp/hs:$FN"
echo 1000 > /sys/module/probecache/parameters/test_arm_delay_ms
kctl "count ls:fn" &
ap=$!
sleep 0.5
check "a write while it arms: ETXTBSY" sh -c "! cat $H 2>/dev/null > /tmp/hs"
wait $ap
check "arming returned" test $? = 0
echo 0 > /sys/module/probecache/parameters/test_arm_delay_ms
check_eq "armed" armed "$(kget ls:fn state)"
kill $mp
check "del" kctl "del ls:fn"

check "rmmod" pc_unload

# public_probes=1: every user may read the listing.
check "insmod public_probes=1" pc_load public_probes=1
check_eq "  the listing is 0444" "-r--r--r--" "$(ls -l $PC_LIST 2>&1 | cut -c1-10)"
check "rmmod" pc_unload
tap_done
