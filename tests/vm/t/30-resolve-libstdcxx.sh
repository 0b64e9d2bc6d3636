# Scan Debian's libstdc++ inside the VM, arm sdt_libstdcxx:throw through the
# CLI, and check that a C++ program throwing N times gives exactly N hits with
# the args it knows (arg1 = exception object, arg2 = its type_info).
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/pc30
P=/sys/kernel/probecache/probes/sdt_libstdcxx:throw
T=/sys/kernel/tracing
LIB=/usr/lib/x86_64-linux-gnu/libstdc++.so.6

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }
out=$(probecache-resolve scan $LIB 2>&1)
check "scan libstdc++: 3 events" sh -c "echo '$out' | grep -q ': 3 events\$'"
check "list shows sdt_libstdcxx:throw" sh -c \
	"probecache-resolve list | grep -qx 'sdt_libstdcxx:throw=throw'"
out=$(probecache-resolve arm sdt_libstdcxx:throw 2>&1)
check_eq "arm reports it armed" "armed sdt_libstdcxx:throw ($(readlink -f $LIB))" \
	"$(echo "$out" | head -n 1)"
check_eq "kernel state armed" armed "$(cat $P/state 2>&1)"
out=$(probecache-resolve arm sdt_libstdcxx:throw 2>&1)
check "arming again counts it as already armed" sh -c "echo '$out' | grep -q '0 armed, 1 already armed'"

echo 1 > $T/events/probecache/probecache_hit/enable
: > $T/trace
/pc/fixtures/rs_throw 7 > /tmp/throw.out
echo 0 > $T/events/probecache/probecache_hit/enable
check_eq "fixture threw 7 times" "thrown=7" "$(tail -n 1 /tmp/throw.out)"
check_eq "exactly 7 hits" 7 "$(cat $P/hits)"
check "status shows the hits" sh -c \
	"probecache-resolve status | grep -qE '^sdt_libstdcxx:throw +armed +7 '"

# args: the trace line of hit i carries the object and type_info rs_throw printed
grep 'sdt_libstdcxx:throw' $T/trace | sed 's/.* arg1=\([0-9]*\) arg2=\([0-9]*\).*/\1 \2/' > /tmp/args
n=0
bad=0
while read -r line; do
	obj=$(echo "$line" | sed -n 's/.*obj=\(0x[0-9a-f]*\).*/\1/p')
	ti=$(echo "$line" | sed -n 's/.*tinfo=\(0x[0-9a-f]*\).*/\1/p')
	[ -n "$obj" ] || continue
	n=$((n + 1))
	got=$(sed -n "${n}p" /tmp/args)
	[ "$got" = "$((obj)) $((ti))" ] || { bad=$((bad + 1)); diag "hit $n: want $((obj)) $((ti)) got $got"; }
done < /tmp/throw.out
check_eq "7 trace lines" 7 "$(wc -l < /tmp/args)"
check_eq "every hit's arg1/arg2 = the object and type_info the fixture saw" 0 "$bad"

out=$(probecache-resolve disarm 'sdt_libstdcxx:*' 2>&1)
check "disarm removes the probe" test ! -e "$P"
check_eq "disarm reports it" "disarmed sdt_libstdcxx:throw ($(readlink -f $LIB))" \
	"$(echo "$out" | head -n 1)"
pc_unload
tap_done
