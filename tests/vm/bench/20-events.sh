#!/bin/sh
# Events before and after the second kernel design, against a plain uprobe_events probe
# (printed; TAP checks only that every consumer saw the hits and every definition was
# made, so that the figures mean something). In one boot, side by side:
#  - before: the baseline module (scripts/bench.sh builds BENCH_BASE into
#    /pc/extra/probecache.ko), whose "add" made its own trace event;
#  - after: this module's "add" (verification, write denial, the table) and the kernel's
#    uprobe event of the same probe written to uprobe_events, as the CLI does
#    (user/lib/kevent.c);
#  - plain: the same probe through uprobe_events alone, no module (the floor).
# Measured:
#  - ns per call of pc_sdt's pc_add() loop with a probe on it (a=%di:s32 b=%si:s32)
#    consumed by ftrace (events/G/E/enable), perf (perf stat -e G:E), a BPF program
#    (pc_bpfcount) and the module's own hit counter (count G:E); the sides rotate run by
#    run, each run loading its module afresh; best of PC_BENCH_RUNS runs of
#    PC_BENCH_CALLS calls;
#  - time and kernel memory (Slab: delta of /proc/meminfo) to define 1 000 and 10 000
#    probes on one file, and the time to delete them again: before, "add" lines, then
#    "clear"; after, "add" and uprobe_events lines, then "-:" lines and "clear" (the
#    CLI's order); plain, uprobe_events lines, then "-:" lines. One buffer each, as the
#    CLI batches them;
#  - PC_BENCH_EXECS runs of a process (pc_many 0: exec, map the sled, exit) while 2 000
#    probes are counted in its binary, against none, before and after.
# A missing tool or module is said as "# MISSING: ..." and its figures left out.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
kenv pc_many
S=$PCF/pc_sdt
BC=$PCF/pc_bpfcount
BASE=/pc/extra/probecache.ko
N=${PC_BENCH_CALLS:-20000}
R=${PC_BENCH_RUNS:-3}
X=${PC_BENCH_EXECS:-50}
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
		grep -q " ${E#*:}: (0x[0-9a-f]*) a=" $TR/trace && echo "$N" > /tmp/count
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

# side_up b|a|u: that side's module loaded and $E defined through it
side_up() {
	case $1 in
	b) insmod $BASE && kctl "add $REC" ;;
	a) insmod "$PC_KO" && kctl "add $REC" && kue "$UPROBE" ;;
	u) kue "$UPROBE" ;;
	esac
}

side_down() {
	[ "$1" = b ] || kue "-:${E%%:*}/${E#*:}"
	[ "$1" = u ] || { kctl "del $E" && rmmod probecache; }
}

consumers="ftrace perf bpf count"
command -v perf > /dev/null || { consumers="ftrace bpf count"; missing "perf: the perf row is left out"; }
echo 1 > $TR/tracing_on
bare=$(ns "$S" bench "$N")
check "bare loop ran" test -n "$bare"

# run SIDE: every consumer once on SIDE; keeps the least ns per consumer in ${SIDE}_C
run() {
	check "$1: $E defined" side_up "$1" || return
	for c in $consumers; do
		[ "$1:$c" != u:count ] || continue
		v=$(one $c)
		[ -n "$v" ] || { sed 's/^/# /' /tmp/bench.err; continue; }
		eval "_o=\${${1}_$c:-}"
		eval "${1}_$c=$(awk -v a="$_o" -v v="$v" 'BEGIN { print (a == "" || v + 0 < a + 0) ? v : a }')"
	done
	check "$1: $E deleted" side_down "$1"
}
i=0
while [ $i -lt "$R" ]; do
	case $((i % 3)) in
	0) run b; run a; run u ;;
	1) run a; run u; run b ;;
	*) run u; run b; run a ;;
	esac
	i=$((i + 1))
done
check_eq "every run of every consumer saw the hits" "" "$(cat /tmp/bad)"
echo > $TR/trace

# ratio A B: A/B with two decimals, "-" when either is missing
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 <= 0) print "-"; else printf "%.2f", a / b }'
}
# row LABEL B A U: one line of a before/after/plain table
row() {
	printf 'bench:   %-34s %10s %10s %10s %12s %11s\n' "$1" "${2:--}" "${3:--}" "${4:--}" \
		"$(ratio "$3" "$2")" "$(ratio "$3" "$4")"
}
echo "bench: ns per call of pc_add() with a probe on it (best of $R x $N calls, sides rotating); bare $bare ns"
printf 'bench:   %-34s %10s %10s %10s %12s %11s\n' consumer before after plain after/before after/plain
row "ftrace (events/G/E/enable)" "${b_ftrace:-}" "${a_ftrace:-}" "${u_ftrace:-}"
row "perf stat -e G:E" "${b_perf:-}" "${a_perf:-}" "${u_perf:-}"
row "BPF program (pc_bpfcount)" "${b_bpf:-}" "${a_bpf:-}" "${u_bpf:-}"
row "count G:E (plain: perf stat)" "${b_count:-}" "${a_count:-}" "${u_perf:-}"

# ---- define and delete M probes on one file, M = 1 000 and 10 000
lines() { # M: /tmp/adds, /tmp/uprobes and /tmp/unprobes for M probes
	awk -v b=$pc_many_BUILD_ID -v p=$PCF/pc_many -v s=$((pc_many_OFF_pc_sled_start)) -v m="$1" \
		'BEGIN { for (i = 0; i < m; i++) printf "add p:many/p%d %s %s:0x%x\n", i, b, p, s + i }' > /tmp/adds
	awk -v p=$PCF/pc_many -v s=$((pc_many_OFF_pc_sled_start)) -v m="$1" \
		'BEGIN { for (i = 0; i < m; i++) printf "p:many/p%d %s:0x%x\n", i, p, s + i }' > /tmp/uprobes
	awk -v m="$1" 'BEGIN { for (i = 0; i < m; i++) printf "-:many/p%d\n", i }' > /tmp/unprobes
}
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
nevents() {
	ls $TR/events/many 2> /dev/null | grep -c '^p[0-9]'
}
ko() { # SIDE: its module
	if [ "$1" = b ]; then echo $BASE; else echo "$PC_KO"; fi
}
# define SIDE M: "US_DEFINE SLAB_KB US_DELETE" for M probes on SIDE
define() {
	[ "$1" = u ] || insmod "$(ko "$1")" || return 1
	settle
	_s0=$(slab_kb)
	_d=0 _u=0 _x=0 _c=0
	[ "$1" = u ] || _d=$(us /tmp/adds $PC_SYSFS/control)
	[ "$1" = b ] || _u=$(us /tmp/uprobes $TR/uprobe_events)
	_kb=$(($(slab_kb) - _s0))
	_n=$(nevents)
	[ "$1" = b ] || _x=$(us /tmp/unprobes $TR/uprobe_events)
	if [ "$1" != u ]; then
		_c=$(echo clear | PC_WRITE_TIME=1 $PCF/pc_write $PC_SYSFS/control | sed -n 's/^write_us=//p')
		rmmod probecache
	fi
	[ "$_n" = "$2" ] && [ "$(nevents)" = 0 ] || { echo "define $1 $2: $_n events" >&2; return 1; }
	echo "$((${_d:-0} + ${_u:-0})) $_kb $((${_x:-0} + ${_c:-0}))"
}
for m in 1000 10000; do
	lines $m
	for side in b a u; do
		read -r t kb del <<EOF
$(define $side $m)
EOF
		check "$side: $m probes defined and deleted, $m events made" test -n "$del"
		eval "d_${side}_$m=\$t k_${side}_$m=\$kb x_${side}_$m=\$del"
	done
done
echo "bench: define and delete M probes on one file"
printf 'bench:   %-34s %10s %10s %10s %12s %11s\n' "" before after plain after/before after/plain
for m in 1000 10000; do
	eval "row \"define $m (us)\" \"\${d_b_$m:-}\" \"\${d_a_$m:-}\" \"\${d_u_$m:-}\""
	eval "row \"  kernel memory (Slab: kB)\" \"\${k_b_$m:-}\" \"\${k_a_$m:-}\" \"\${k_u_$m:-}\""
	eval "row \"delete $m (us)\" \"\${x_b_$m:-}\" \"\${x_a_$m:-}\" \"\${x_u_$m:-}\""
done

# ---- a process's exec and exit while 2 000 probes are counted in its binary
lines 2000
sed 's/^add p:\([^/]*\)\/\([^ ]*\) .*/count \1:\2/' /tmp/adds > /tmp/counts
execs_cs() { # centiseconds for X runs of pc_many 0
	_t0=$(awk '{ printf "%d", $1 * 100 }' /proc/uptime)
	_i=0
	while [ $_i -lt "$X" ]; do
		"$PCF/pc_many" 0 > /dev/null
		_i=$((_i + 1))
	done
	echo $(($(awk '{ printf "%d", $1 * 100 }' /proc/uptime) - _t0))
}
exits() { # SIDE: "CS_NONE CS_COUNTED"
	insmod "$(ko "$1")" || return 1
	_none=$(execs_cs)
	$PCF/pc_write $PC_SYSFS/control < /tmp/adds && $PCF/pc_write $PC_SYSFS/control < /tmp/counts
	_armed=$(execs_cs)
	_n=$(cat $PC_SYSFS/nr_armed)
	echo clear > $PC_SYSFS/control
	rmmod probecache
	[ "$_n" = 2000 ] || { echo "exits $1: $_n armed" >&2; return 1; }
	echo "$_none $_armed"
}
read -r eb0 eb1 <<EOF
$(exits b)
EOF
check "before: $X runs with 2000 counted probes" test -n "$eb1"
read -r ea0 ea1 <<EOF
$(exits a)
EOF
check "after: $X runs with 2000 counted probes" test -n "$ea1"
echo "bench: $X runs of pc_many 0 (exec, map, exit), ms"
printf 'bench:   %-34s %10s %14s %7s\n' "" "no probe" "2000 counted" ratio
printf 'bench:   %-34s %10s %14s %7s\n' before "$((${eb0:-0} * 10))" "$((${eb1:-0} * 10))" "$(ratio "$eb1" "$eb0")"
printf 'bench:   %-34s %10s %14s %7s\n' after "$((${ea0:-0} * 10))" "$((${ea1:-0} * 10))" "$(ratio "$ea1" "$ea0")"
echo 0 > $TR/tracing_on
tap_done
