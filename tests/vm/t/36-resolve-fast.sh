# Issue 28: USDT hits on the kernel's fast path. pc_fast's pcfast:fast site is the note's
# nop followed by the 10-byte nop that 7.x kernels (x86-64 uprobe syscall) turn into
# "lea -0x80(%rsp),%rsp; call <uprobe trampoline>"; pcfast:slow has the plain nop. Where
# the kernel has the uprobe syscall (7.3) the CLI defines the fast probe at the note's
# pc + 1 and the process gets a [uprobes-trampoline] mapping; elsewhere (5.10, 6.1, the
# debug 6.12) both stay at the note's pc, as before. Either way: exact hit counts, and
# the arguments (-N(%rbp), in the red zone of a leaf) exact in every event line. The
# module's SDT self-check takes exactly pc + 1 over those 11 bytes and nothing else, and
# only on a kernel whose uprobe core optimizes it (before the change: 6.1 armed pc + 1,
# where the uprobe core refuses the nop10 at install, so the probe never hit).
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
export PROBECACHE_DIR=/tmp/pc36
kenv pc_fast
F=$PCF/pc_fast
B=$pc_fast_BUILD_ID
N=40
case "${PC_KERNEL:-}" in
7.3*) fast=yes ;;
*) fast=no ;;
esac
hex() { printf '0x%x' "$(($1))"; }

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }

# -- the module's self-check: exactly pc + 1, only over the fast site, only where the
# uprobe core optimizes it (elsewhere it refuses the nop10's 0x2e prefix at install
# and a probe there would never hit)
if [ $fast = yes ]; then
	check "self-check: an SDT record at the fast site's pc + 1 is accepted" \
		kctl "add p:sdt_t36/plus1 $B $F:$(hex "$pc_fast_SDT_fast + 1")"
	check "  and armed (re-proven at count)" kctl "count sdt_t36:plus1"
else
	check "self-check: the fast site's pc + 1 is refused (no optimizing uprobe core)" \
		kfail "add p:sdt_t36/plus1 $B $F:$(hex "$pc_fast_SDT_fast + 1")"
	check "  saying why and where to define instead" \
		sh -c "grep -q 'do not optimize it (no arch_uprobe_optimize): define at' $PC_SYSFS/last_error"
fi
check "self-check: pc + 2 of the fast site is refused" \
	kfail "add p:sdt_t36/plus2 $B $F:$(hex "$pc_fast_SDT_fast + 2")"
check "  as no SDT probe of the file" sh -c "grep -q 'is not an SDT probe of this file' $PC_SYSFS/last_error"
check "self-check: pc + 1 of a plain-nop site is refused" \
	kfail "add p:sdt_t36/slow1 $B $F:$(hex "$pc_fast_SDT_slow + 1")"
check "self-check: pc - 1 is refused" \
	kfail "add p:sdt_t36/minus1 $B $F:$(hex "$pc_fast_SDT_fast - 1")"
kctl "del sdt_t36:plus1" > /dev/null 2>&1

# -- the CLI picks the offset
out=$(probecache-resolve scan $F 2>&1)
check "scan pc_fast: 2 events" sh -c "echo '$out' | grep -q ': 2 events\$'"
if [ $fast = yes ]; then
	want_fast=$(hex "$pc_fast_SDT_fast + 1")
else
	want_fast=$(hex "$pc_fast_SDT_fast")
fi
check_eq "sdt_pcfast:fast defined at $([ $fast = yes ] && echo "the note's pc + 1" || echo "the note's pc (no uprobe syscall)")" \
	"$want_fast" "$(pc_field sdt_pcfast:fast offset)"
check_eq "sdt_pcfast:slow defined at the note's pc" "$(hex "$pc_fast_SDT_slow")" \
	"$(pc_field sdt_pcfast:slow offset)"
check "arm both" probecache-resolve arm -q 'sdt_pcfast:*'
check_eq "list shows both armed (found at their kernel offsets)" 2 \
	"$(probecache-resolve list --available 2>/dev/null | grep -c 'sdt_pcfast:.*armed')"

if pc_events; then
	echo 1 > "$(tev sdt_pcfast:fast)/enable"
	echo 1 > "$(tev sdt_pcfast:slow)/enable"
	: > $TR/trace
fi
$F $N both -v > /tmp/fast36.out
rc=$?
if pc_events; then
	echo 0 > "$(tev sdt_pcfast:fast)/enable"
	echo 0 > "$(tev sdt_pcfast:slow)/enable"
fi
check_eq "the fixture computed every value right (nothing clobbered)" "0 hits=$N bad=0" "$rc $(tail -n 1 /tmp/fast36.out)"
check_eq "exactly $N hits at the fast site" $N "$(pc_hits sdt_pcfast:fast)"
check_eq "exactly $N hits at the plain site" $N "$(pc_hits sdt_pcfast:slow)"

# args: event line i of each probe = line i the fixture printed (x y a b)
grep '^x=' /tmp/fast36.out | sed 's/[a-z]=//g' > /tmp/want36
for p in fast slow; do
	grep " $p: (0x" $TR/trace 2> /dev/null |
		sed 's/.* arg1=\([-0-9]*\) arg2=\([-0-9]*\) arg3=\([-0-9]*\) arg4=\([-0-9]*\).*/\1 \2 \3 \4/' \
		> /tmp/got36.$p
	tcheck_eq "$p: $N event lines" $N "$(wc -l < /tmp/got36.$p)"
	tcheck_eq "$p: every hit's -N(%rbp) args exact" "" "$(diff /tmp/want36 /tmp/got36.$p | head -n 3)"
done
[ ! -s /tmp/got36.fast ] || diag "first fast event: $(grep -m1 ' fast: (0x' $TR/trace)"
: > $TR/trace 2> /dev/null

# -- optimized or not: the trampoline mapping, only with the fast probe hit
# maps PC_FAST_MODE: the [uprobes-trampoline] lines of a pc_fast that hit MODE 5 times
# (A file of its own per MODE: the shell truncates it only once the child runs, and
# the previous call's hits= line read before that killed the process before any hit.)
maps() {
	$F 5 "$1" -w > /tmp/w36.$1.out &
	_p=$!
	wait_for 10 grep -q '^hits=' /tmp/w36.$1.out
	grep -c 'uprobes-trampoline' /proc/$_p/maps
	kill $_p
	wait $_p 2> /dev/null
}
if [ $fast = yes ]; then
	check_eq "7.3: a process hitting the fast site has the uprobe trampoline mapped" 1 "$(maps fast)"
else
	check_eq "no uprobe syscall: no trampoline" 0 "$(maps fast)"
fi
check_eq "a process hitting only the plain site has none" 0 "$(maps slow)"
check_eq "hits still exact afterwards" "$((N + 5)) $((N + 5))" \
	"$(pc_hits sdt_pcfast:fast) $(pc_hits sdt_pcfast:slow)"

check "disarm finds both (the fast one at pc + 1)" probecache-resolve disarm -q 'sdt_pcfast:*'
check "both gone" sh -c "! grep -q '^sdt_pcfast:' $PC_LIST"
pc_unload
tap_done
