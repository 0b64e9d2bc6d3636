#!/bin/sh
# Events before and after the second kernel design (printed; TAP checks only that every
# consumer saw every hit, so that the figures mean something). In one boot, side by side:
#  - before: the baseline module (scripts/bench.sh builds BENCH_BASE into
#    /pc/extra/probecache.ko), whose "add" made its own trace event;
#  - after: this module's "add" (verification, write denial, the table) and the kernel's
#    uprobe event of the same probe written to uprobe_events, as the CLI does
#    (user/lib/kevent.c).
# Measured:
#  - ns per call of pc_sdt's pc_add() loop with a probe on it (a=%di:s32 b=%si:s32)
#    consumed by ftrace (events/G/E/enable), perf (perf stat -e G:E), a BPF program
#    (pc_bpfcount) and the module's own hit counter (count G:E); the sides alternate
#    run by run (ABBA), each run loading its module afresh, best of PC_BENCH_RUNS runs of
#    PC_BENCH_CALLS calls;
#  - time and kernel memory (Slab: delta of /proc/meminfo) to define PC_BENCH_DEFINE
#    (10 000) probes on one file: before, M "add" lines; after, M "add" lines and M
#    uprobe_events lines. Both written in one buffer each, as the CLI batches them.
# A missing tool or module is said as "# MISSING: ..." and its figures left out.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
kenv pc_many
S=$PCF/pc_sdt
BC=$PCF/pc_bpfcount
BASE=/pc/extra/probecache.ko
N=${PC_BENCH_CALLS:-20000}
R=${PC_BENCH_RUNS:-4}
M=${PC_BENCH_DEFINE:-10000}
ARGS="a=%di:s32 b=%si:s32"
E=pbench:padd
cd /tmp || exit 1
: > /tmp/bad

missing() {
	echo "# MISSING: $*"
}

if [ ! -f $BASE ]; then
	missing "no baseline module in $BASE (scripts/bench.sh builds BENCH_BASE)"
	tap_done
	exit 0
fi

# ns CMD...: ns_per_call printed by CMD (a command running "pc_sdt bench N")
ns() {
	"$@" 2> /tmp/bench.err | sed -n 's/^ns_per_call=//p'
}

# perf_stat G:E: perf stat on pc_sdt bench N; its hit count in /tmp/count
perf_stat() {
	perf stat -x, -o /tmp/perf.csv -e "$1" -- "$S" bench "$N"
	_c=$(awk -F, -v e="$1" '$3 == e { print $1 }' /tmp/perf.csv)
	echo "${_c:-none}" > /tmp/count
}

# bpf_count G:E: pc_bpfcount on field b (always 1 in the bench loop); count in /tmp/count
bpf_count() {
	"$BC" -o /tmp/bpf.out "$1" b -- "$S" bench "$N"
	_c=$(awk '$1 == 1 { print $2 }' /tmp/bpf.out)
	echo "${_c:-none}" > /tmp/count
}

# one CONSUMER: ns per call of one run of "pc_sdt bench N" with $E consumed by
# CONSUMER; a wrong hit count is noted in /tmp/bad
one() {
	echo "none" > /tmp/count
	case $1 in
	ftrace)
		echo > $TR/trace
		echo 1 > "$(tev $E)/enable"
		ns "$S" bench "$N"
		echo 0 > "$(tev $E)/enable"
		[ "$(grep -c " ${E#*:}: (0x[0-9a-f]*) a=" $TR/trace)" = "$N" ] && echo "$N" > /tmp/count
		;;
	perf) ns perf_stat $E ;;
	bpf) ns bpf_count $E ;;
	count)
		_h=$(kget $E hits)
		kctl "count $E" && ns "$S" bench "$N"
		kctl "nocount $E"
		echo $(($(kget $E hits) - _h)) > /tmp/count
		;;
	esac
	[ "$(cat /tmp/count)" = "$N" ] || echo "$1 $2: $(cat /tmp/count) hits of $N" >> /tmp/bad
}

REC="p:${E%%:*}/${E#*:} $pc_sdt_BUILD_ID $S:$pc_sdt_OFF_pc_add $ARGS"
UPROBE="p:${E%%:*}/${E#*:} $S:$pc_sdt_OFF_pc_add $ARGS"

# side b|a: load that side's module and define $E on it
side_up() {
	if [ "$1" = b ]; then
		insmod $BASE && kctl "add $REC"
	else
		insmod "$PC_KO" && kctl "add $REC" && kue "$UPROBE"
	fi
}

side_down() {
	[ "$1" = b ] || kue "-:${E%%:*}/${E#*:}"
	kctl "del $E" && rmmod probecache
}

consumers="ftrace perf bpf count"
command -v perf > /dev/null || { consumers="ftrace bpf count"; missing "perf: the perf row is left out"; }
echo 1 > $TR/tracing_on
bare=$(ns "$S" bench "$N")
check "bare loop ran" test -n "$bare"

# run SIDE: every consumer once on SIDE; keeps the least ns per consumer in ${SIDE}_C
run() {
	check "$1: module loaded, $E defined" side_up "$1" || return
	for c in $consumers; do
		v=$(one $c)
		[ -n "$v" ] || { sed 's/^/# /' /tmp/bench.err; continue; }
		eval "_o=\${${1}_$c:-}"
		eval "${1}_$c=$(awk -v a="$_o" -v v="$v" 'BEGIN { print (a == "" || v + 0 < a + 0) ? v : a }')"
	done
	check "$1: $E deleted, module removed" side_down "$1"
}
i=0
while [ $i -lt "$R" ]; do
	if [ $((i % 2)) = 0 ]; then run b; run a; else run a; run b; fi
	i=$((i + 1))
done
check_eq "every run of every consumer saw all $N hits" "" "$(cat /tmp/bad)"
echo > $TR/trace

# ratio A B: A/B with two decimals, "-" when either is missing
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 <= 0) print "-"; else printf "%.2f", a / b }'
}
echo "bench: ns per call of pc_add() with a probe on it (best of $R x $N calls, sides alternating); bare $bare ns"
printf 'bench:   %-34s %10s %10s %7s\n' consumer before after ratio
row() { # LABEL CONSUMER
	eval "_b=\${b_$2:-} _a=\${a_$2:-}"
	printf 'bench:   %-34s %10s %10s %7s\n' "$1" "${_b:--}" "${_a:--}" "$(ratio "$_a" "$_b")"
}
row "ftrace (events/G/E/enable)" ftrace
row "perf stat -e G:E" perf
row "BPF program (pc_bpfcount)" bpf
row "count G:E (the module's counter)" count

# ---- define M probes on one file
awk -v b=$pc_many_BUILD_ID -v p=$PCF/pc_many -v s=$((pc_many_OFF_pc_sled_start)) -v m="$M" \
	'BEGIN { for (i = 0; i < m; i++) printf "add p:many/p%d %s %s:0x%x\n", i, b, p, s + i }' > /tmp/adds
awk -v p=$PCF/pc_many -v s=$((pc_many_OFF_pc_sled_start)) -v m="$M" \
	'BEGIN { for (i = 0; i < m; i++) printf "p:many/p%d %s:0x%x\n", i, p, s + i }' > /tmp/uprobes

slab_kb() {
	awk '/^Slab:/ { print $2 }' /proc/meminfo
}
# settle: drop reclaimable caches so the Slab: deltas are what definitions pinned
settle() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
}
us() { # FILE TARGET: microseconds to write FILE to TARGET in one buffer
	PC_WRITE_TIME=1 $PCF/pc_write "$2" < "$1" | sed -n 's/^write_us=//p'
}
# define SIDE: "US_ADD US_UPROBE SLAB_KB" for M probes on SIDE, then all removed
define() {
	insmod "$([ "$1" = b ] && echo $BASE || echo "$PC_KO")" || return 1
	settle
	_s0=$(slab_kb)
	_a=$(us /tmp/adds $PC_SYSFS/control)
	_u=0
	[ "$1" = b ] || _u=$(us /tmp/uprobes $TR/uprobe_events)
	_kb=$(($(slab_kb) - _s0))
	_n=$(ls $TR/events/many 2> /dev/null | grep -c '^p[0-9]')
	[ "$1" = b ] || : > $TR/uprobe_events
	echo clear > $PC_SYSFS/control
	rmmod probecache
	[ "$_n" = "$M" ] || { echo "define $1: $_n events of $M" >&2; return 1; }
	echo "${_a:-0} ${_u:-0} $_kb"
}
read -r db_add db_up db_kb <<EOF
$(define b)
EOF
check "before: $M probes, $M events" test -n "$db_kb"
read -r da_add da_up da_kb <<EOF
$(define a)
EOF
check "after: $M probes, $M events" test -n "$da_kb"
db=$((db_add + db_up))
da=$((da_add + da_up))
echo "bench: define $M probes on one file      before      after   ratio"
printf 'bench:   %-30s %10s %10s %7s\n' "time (us)" "$db" "$da" "$(ratio "$da" "$db")"
printf 'bench:   %-30s %10s %10s\n' "  of which control add" "$db_add" "$da_add"
printf 'bench:   %-30s %10s %10s\n' "  of which uprobe_events" "-" "$da_up"
printf 'bench:   %-30s %10s %10s %7s\n' "kernel memory (Slab: kB)" "$db_kb" "$da_kb" "$(ratio "$da_kb" "$db_kb")"
echo 0 > $TR/tracing_on
tap_done
