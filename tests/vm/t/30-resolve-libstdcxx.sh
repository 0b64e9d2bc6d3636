# Scan Debian's libstdc++ inside the VM with the module loaded. The scan alone
# defines sdt_libstdcxx:* (the module's verified definitions and the kernel's uprobe
# events on them, nothing armed): perf stat -e counts a thrower's hits with no other
# step. arm (define + the module's counting) gives exactly N hits with the args the
# fixture knows (arg1 = exception object, arg2 = its type_info); disarm is refused
# while ftrace has the event enabled (the kernel's EBUSY), nothing lost, and succeeds
# once it is disabled.
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/pc30
P=sdt_libstdcxx:throw
T=/sys/kernel/tracing
E=$T/events/sdt_libstdcxx/throw
LIB=/usr/lib/x86_64-linux-gnu/libstdc++.so.6
REAL=$(readlink -f $LIB)
st() { echo "$(pc_field $P state) $(pc_field $P counting)"; }

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }
out=$(probecache-resolve scan $LIB 2>&1)
check "scan libstdc++: 3 events" sh -c "echo '$out' | grep -q ': 3 events\$'"
check_eq "scan with the module loaded defines them" \
	"scan: 3 defined in probecache.ko, 0 already, 0 skipped, 0 failed" "$(echo "$out" | tail -n 1)"
check_eq "defined, not counting" "defined 0" "$(st)"
check "its event is the kernel's uprobe event on the verified file" \
	grep -q "^p:sdt_libstdcxx/throw $REAL:0x" $T/uprobe_events
check "list shows sdt_libstdcxx:throw" sh -c \
	"probecache-resolve list | grep -qx 'sdt_libstdcxx:throw=throw'"

cd /tmp || exit 1
check "perf list shows sdt_libstdcxx:throw as a Tracepoint event" sh -c \
	"perf list 2>/dev/null | grep -q 'sdt_libstdcxx:throw .*Tracepoint'"
perf stat -x, -e sdt_libstdcxx:throw -- /pc/fixtures/rs_throw 9 > /dev/null 2> /tmp/stat30
check_eq "scan, then perf stat -e sdt_libstdcxx:throw: 9 hits, no other step" 9 \
	"$(grep sdt_libstdcxx:throw /tmp/stat30 | cut -d, -f1)"
check_eq "after perf exits: defined, not counting" "defined 0" "$(st)"

out=$(probecache-resolve arm sdt_libstdcxx:throw 2>&1)
check_eq "arm reports it armed" "armed sdt_libstdcxx:throw ($REAL)" "$(echo "$out" | head -n 1)"
check_eq "kernel: armed, counting" "armed 1" "$(st)"
out=$(probecache-resolve arm sdt_libstdcxx:throw 2>&1)
check "arming again counts it as already armed" sh -c "echo '$out' | grep -q '0 armed, 1 already armed'"

echo 1 > $E/enable; : > $T/trace
/pc/fixtures/rs_throw 7 > /tmp/throw.out
echo 0 > $E/enable
check_eq "fixture threw 7 times" "thrown=7" "$(tail -n 1 /tmp/throw.out)"
check_eq "exactly 7 hits" 7 "$(pc_hits $P)"
check "status shows state, its event, counting and hits" sh -c \
	"probecache-resolve status | grep -qE '^sdt_libstdcxx:throw +armed +yes +yes +7 '"

{
	# args: the event line of hit i carries the object and type_info rs_throw printed
	grep ' throw: (0x' $T/trace | sed 's/.* arg1=\([0-9a-fx]*\) arg2=\([0-9a-fx]*\).*/\1 \2/' > /tmp/args
	n=0
	bad=0
	while read -r line; do
		obj=$(echo "$line" | sed -n 's/.*obj=\(0x[0-9a-f]*\).*/\1/p')
		ti=$(echo "$line" | sed -n 's/.*tinfo=\(0x[0-9a-f]*\).*/\1/p')
		[ -n "$obj" ] || continue
		n=$((n + 1))
		set -- $(sed -n "${n}p" /tmp/args)
		[ "$(($1)) $(($2))" = "$((obj)) $((ti))" ] ||
			{ bad=$((bad + 1)); diag "hit $n: want $obj $ti got $*"; }
	done < /tmp/throw.out
	check_eq "7 event lines" 7 "$(wc -l < /tmp/args)"
	check_eq "every hit's arg1/arg2 = the object and type_info the fixture saw" 0 "$bad"
	[ "$bad" = 0 ] || head -n 3 $T/trace | sed 's/^/#   /'

	echo 1 > $E/enable
	out=$(probecache-resolve disarm 'sdt_libstdcxx:*' 2>&1); rc=$?
	check_eq "disarm while ftrace has the event enabled: exit 1" 1 "$rc"
	check "  names the probe, who may hold it, and that nothing changed" sh -c "echo '$out' | grep -q \
'sdt_libstdcxx:throw ($REAL): in use by perf, ftrace or a BPF program: not deleted, nothing changed'"
	check_eq "  nothing lost: armed, counting, 7 hits, its event" "armed 1 7 yes" \
		"$(st) $(pc_hits $P) $(test -d $E && echo yes)"
	check_eq "  the two probes nobody used were deleted by the same call" \
		"2 disarmed, 1 in use (unchanged), 0 already gone" "$(echo "$out" | tail -n 1)"
	echo 0 > $E/enable
}

out=$(probecache-resolve disarm 'sdt_libstdcxx:*' 2>&1)
check "disarm (no other consumer) removes the probe" pc_unlisted $P
check "  and its event" test ! -e $E
check_eq "disarm reports it" "disarmed sdt_libstdcxx:throw ($REAL)" "$(echo "$out" | grep ':throw ')"
n=1
check_eq "  and what else the scan defined" "$n disarmed, 0 in use (unchanged), 0 already gone" \
	"$(echo "$out" | tail -n 1)"
pc_unload
tap_done
