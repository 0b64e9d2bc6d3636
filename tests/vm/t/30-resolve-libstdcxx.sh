# Scan Debian's libstdc++ inside the VM with the module loaded. The scan alone
# defines sdt_libstdcxx:* (the module's verified definitions and the kernel's uprobe
# events on them, nothing armed): perf stat -e counts a thrower's hits with no other
# step. The args are named and typed by sdt/libstdcxx.args (the VM has it where the
# tools package installs it): obj, tinfo, and type, the thrown type's name read through
# the type_info (+8(tinfo)); an ftrace filter on type keeps the std:: ones. arm (define
# + the module's counting) gives exactly N hits with the args the fixture knows (obj =
# exception object, tinfo = its type_info, type = the name std::type_info::name() gives:
# an int, a std::runtime_error, a class in a namespace); disarm is refused while ftrace
# has the event enabled (the kernel's EBUSY), nothing lost, and succeeds once it is
# disabled.
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
check "  named and typed by sdt/libstdcxx.args: obj, tinfo, type (the string +8(tinfo) points to)" sh -c \
	"probecache-resolve list --format=record sdt_libstdcxx:throw | grep -q ' obj=%di:x64 tinfo=%si:x64 type=+0(+8(%si)):string\$'"

cd /tmp || exit 1
check "perf list shows sdt_libstdcxx:throw as a Tracepoint event" sh -c \
	"perf list 2>/dev/null | grep -q 'sdt_libstdcxx:throw .*Tracepoint'"
perf stat -x, -e sdt_libstdcxx:throw -- /pc/fixtures/rs_throw 9 > /dev/null 2> /tmp/stat30
check_eq "scan, then perf stat -e sdt_libstdcxx:throw: 9 hits, no other step" 9 \
	"$(grep sdt_libstdcxx:throw /tmp/stat30 | cut -d, -f1)"
check_eq "after perf exits: defined, not counting" "defined 0" "$(st)"
# A filter on the string field: the std:: types only (St...), the two
# std::runtime_error among rs_throw's six mixed throws.
: > $T/trace
echo 'type ~ "St*"' > $E/filter
echo 1 > $E/enable
/pc/fixtures/rs_throw 6 mixed > /dev/null
echo 0 > $E/enable
echo 0 > $E/filter
check_eq "ftrace filter type ~ \"St*\": the 2 std::runtime_error of 6 mixed throws" \
	"St13runtime_error St13runtime_error" "$(sed -n \
	's/.* throw: (0x[0-9a-f]*) obj=.* type="\([^"]*\)"$/\1/p' $T/trace | tr '\n' ' ' | sed 's/ $//')"

out=$(probecache-resolve arm sdt_libstdcxx:throw 2>&1)
check_eq "arm reports it armed" "armed sdt_libstdcxx:throw ($REAL)" "$(echo "$out" | head -n 1)"
check_eq "kernel: armed, counting" "armed 1" "$(st)"
out=$(probecache-resolve arm sdt_libstdcxx:throw 2>&1)
check "arming again counts it as already armed" sh -c "echo '$out' | grep -q '0 armed, 1 already armed'"

# mixed: an int, a std::runtime_error and a pc::Refused in turn, each one's type name printed
echo 1 > $E/enable; : > $T/trace
/pc/fixtures/rs_throw 7 mixed > /tmp/throw.out
echo 0 > $E/enable
check_eq "fixture threw 7 times" "thrown=7" "$(tail -n 1 /tmp/throw.out)"
check_eq "exactly 7 hits" 7 "$(pc_hits $P)"
check "status shows state, its event, counting and hits" sh -c \
	"probecache-resolve status | grep -qE '^sdt_libstdcxx:throw +armed +yes +yes +7 '"

{
	# args: the event line of hit i carries the object and type_info rs_throw printed
	grep ' throw: (0x' $T/trace | sed 's/.* obj=\([0-9a-fx]*\) tinfo=\([0-9a-fx]*\).*/\1 \2/' > /tmp/args
	n=0
	bad=0
	while read -r line; do
		obj=$(echo "$line" | sed -n 's/.*obj=\(0x[0-9a-f]*\).*/\1/p')
		ti=$(echo "$line" | sed -n 's/.*tinfo=\(0x[0-9a-f]*\).*/\1/p')
		[ -n "$obj" ] || continue
		n=$((n + 1))
		set -- $(sed -n "${n}p" /tmp/args)
		# (two hex numbers, or the line was not an event with obj= and tinfo=)
		[ $# = 2 ] && [ -z "$(echo "$1$2" | tr -d '0-9a-fx')" ] &&
			[ "$(($1)) $(($2))" = "$((obj)) $((ti))" ] ||
			{ bad=$((bad + 1)); diag "hit $n: want $obj $ti got $*"; }
	done < /tmp/throw.out
	check_eq "7 event lines" 7 "$(wc -l < /tmp/args)"
	check_eq "every hit's obj/tinfo = the object and type_info the fixture saw" 0 "$bad"
	check_eq "  and type = the thrown type's name, as std::type_info::name() has it" \
		"$(sed -n 's/^throw i=.* type=//p' /tmp/throw.out)" \
		"$(sed -n 's/.* throw: (0x[0-9a-f]*) obj=.* type="\([^"]*\)"$/\1/p' $T/trace)"
	diag "e.g. $(grep -m 1 'St13runtime_error' $T/trace | sed 's/^ *//')"
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
