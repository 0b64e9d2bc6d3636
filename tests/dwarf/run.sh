#!/bin/bash
# `probecache-resolve add -D` against `perf probe -D` (perf 6.1 is the oracle).
#
# Every row of the table below names a fixture binary, a probe-definition and
# what must happen:
#   eq     perf succeeds and our definitions are identical, line for line (and not
#          both empty: two tools printing nothing prove nothing)
#   ours   perf refuses, we resolve (our output is shown); with "oracle BIN" as
#          REASON, perf on BIN (same source, e.g. not stripped) must print our
#          definition, the binary's path aside
#   none   both refuse; our error must name the binary (shown)
#   differ perf prints something we deliberately do not (reason given): a
#          made-up or wrong fetch, a PLT stub, an @SYMBOL uprobes cannot take;
#          where both print, each of our probe points must be one of perf's
# A row whose outcome is not the expected one fails. The summary line counts
# the classes. Every definition we print for a program (not a library) is also
# run under gdb (gdb-values.py): at each of the first hits, each fetch of ours
# must give the value gdb reads from the DWARF for that expression, so "ours"
# and "differ" rows are checked by value, not only by where they probe. Then: libc.so.6 with libc6-dbg (aliases, optimized-out args),
# stripped + .gnu_debuglink, debuginfod, storing into a cache, --force.
#
# Environment: PERF (default perf), CLI (default user/probecache-resolve).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

PERF=${PERF:-perf}
CLI=${CLI:-$top/user/probecache-resolve}
FX=$top/tests/fixtures/build
tmp=$(mktemp -d /tmp/pc-dwarf.XXXXXX)
dpid=
trap '[ -n "$dpid" ] && kill "$dpid" 2>/dev/null; rm -rf "$tmp"' EXIT
export HOME=$tmp/home	# perf's buildid cache goes here
mkdir -p "$HOME"
unset DEBUGINFOD_URLS	# no network unless the debuginfod case sets it
export PROBECACHE_DIR=$tmp/cache

make -s -C "$top/user" >/dev/null 2>"$tmp/make.log" &&
	make -s -C "$top/tests/fixtures" build/dw_app build/dw_app_O0 build/dw_app_pie_no \
		build/dw_lib.so build/dw_app_stripped build/dw_app.debug build/dw_clone >/dev/null 2>>"$tmp/make.log"
if [ ! -x "$CLI" ] || [ ! -e "$FX/dw_app_stripped" ]; then
	not_ok "build the CLI and the dw_app fixtures"
	sed 's/^/#   /' "$tmp/make.log" | head -n 30
	tap_done
	exit 1
fi

src=$top/tests/fixtures/dw_app.c
ln_acc=$(grep -n 'LAZY: acc' "$src" | cut -d: -f1)
ln_walk=$(grep -n 'LAZY: walk' "$src" | cut -d: -f1)

# EXPECT|BIN|DEFINITION|REASON (REASON only for differ)
table="eq|dw_app_O0|dw_work n scale label it
eq|dw_app|dw_work n scale label it
eq|dw_app_O0|dw_work \$params
eq|dw_app|dw_work \$params
eq|dw_app_O0|dw_work \$vars
eq|dw_app|dw_work \$vars
eq|dw_app_O0|dw_work it->id it->weight it->name:string
eq|dw_app|dw_work it->id it->weight it->name:string
eq|dw_app_O0|dw_work it->next->id it->next->name:string
eq|dw_app|dw_work it->next->id it->next->name:string
eq|dw_app|dw_work label:string lbl=label:x64
eq|dw_app_O0|dw_work it->in.s it->in.flag it->u.i
eq|dw_app|dw_work it->in.s it->in.flag it->u.i
eq|dw_app_O0|dw_sum v[0] v[2] n
eq|dw_app|dw_sum v[0] v[2] n
eq|dw_app|dw_sum v:x64 n:u16 m=n:s8
eq|dw_app_O0|dw_work%return \$retval
eq|dw_app|dw_pair%return \$retval
eq|dw_app|dw_pair%return r=\$retval:s32
eq|dw_app_O0|dw_sq v
eq|dw_app_O0|dw_sq:2 sq
eq|dw_app|dw_pair x y
eq|dw_app|dw_sq
eq|dw_app|dw_chain it->in.s
eq|dw_app_O0|dw_chain it->in.s depth
eq|dw_app_O0|dw_app.c:$ln_acc
eq|dw_app|dw_app.c:$ln_acc
eq|dw_app_O0|dw_work;acc* acc i
eq|dw_app_O0|dw_app.c;while* it
eq|dw_app|dw_app.c;while* it
eq|dw_app|dw_work+4
eq|dw_app|myev=dw_pair x
eq|dw_app|grp:ev2=dw_sum n
eq|dw_app|dw_w* n
eq|dw_app_O0|main rounds
eq|dw_app|dw_work@dw_app.c n
eq|dw_app_pie_no|dw_work n it->name:string
eq|dw_app_pie_no|dw_pair%return \$retval
eq|dw_lib.so|dw_work n it->name:string
ours|dw_app_stripped|dw_work n it->name:string|oracle dw_app
ours|dw_app|dw_chain depth
eq|dw_clone|clone_work a b s p->x p->next->y
eq|dw_clone|clone_work \$params
eq|dw_clone|clone_inl
ours|dw_clone|clone_work%return \$retval
eq|dw_app|dw_work%return \$retval
none|dw_app_O0|dw_work it->bits
none|dw_app|dw_work:5 acc
none|dw_app|dw_sq v
none|dw_app|dw_sq:2 sq
none|dw_app|dw_sq sq
none|dw_app|dw_sq%return \$retval
none|dw_app|main rounds
none|dw_app|dw_work it.id
none|dw_app|dw_work nosuch
none|dw_app|nosuch_fn
none|dw_app|nosuch.c:3
differ|dw_app|dw_work;acc* acc i|perf reads i=+0(%ax) from a computed value (breg0 breg4 breg15 mul minus stack_value)
differ|dw_clone|clone_inl q|q is rbx+rax (breg3 breg0 plus stack_value); perf reads memory at rbx
differ|dw_app|dw_work;zzz*|the pattern matches no line; perf probes the function entry instead
differ|dw_app_O0|dw_work dw_total dw_calls|perf prints @SYMBOL+0, which uprobe_events rejects; we give @+FILEOFF
differ|dw_app|dw_work dw_table[1]|perf prints @SYMBOL+4, which uprobe_events rejects; we give @+FILEOFF
differ|dw_lib.so|dw_pair%return \$retval|perf adds a return probe on the dw_pair@plt stub"

# values BIN DEF OURS: the value oracle (gdb-values.py) on each definition in file OURS
# that we made for DEF on executable BIN: at each of the first hits, gdb says from the
# DWARF what every argument expression is, and our fetch, evaluated from the registers
# and memory as uprobe_events would, must equal it. Prints a TAP line; n_values counts.
n_values=0
values() {
	local b=$1 def=$2 exprs= line out res
	case $def in *" "*) exprs=${def#* } ;; esac
	res=$tmp/values.txt
	: > "$res"
	while read -r line; do
		out=$(PC_DEF="$line" PC_EXPRS="$exprs" PC_RUN=2 timeout 120 \
			gdb -q -batch -nx -x "$top/tests/dwarf/gdb-values.py" < /dev/null 2>&1)
		grep -E '^(ok|bad|error|hits) ' <<< "$out" >> "$res"
		grep -q '^hits [1-9]' <<< "$out" || echo "bad: no hit at ${line%% *} (gdb: $(tail -n 1 <<< "$out"))" >> "$res"
	done < "$3"
	if grep -qv '^\(ok\|hits\) ' "$res"; then
		not_ok "values: $(basename "$b") '$def': ours differ from gdb's"
		grep -v '^\(ok\|hits\) ' "$res" | sed 's/^/#   /' | head -n 6
	else
		n_values=$((n_values + $(grep -c '^ok ' "$res")))
		ok "values: $(basename "$b") '$def': $(grep -c '^ok ' "$res") fetched values equal gdb's"
	fi
}

# executable BIN: a program gdb can run (an interpreter), not a library
executable() {
	readelf -l "$1" 2> /dev/null | grep -q 'program interpreter'
}

n_eq=0 n_ours=0 n_none=0 n_differ=0
while IFS='|' read -r want bin def why; do
	b=$FX/$bin
	$PERF probe -x "$b" -D "$def" > "$tmp/perf.out" 2> "$tmp/perf.err"
	prc=$?
	"$CLI" add -x "$b" -D "$def" > "$tmp/ours.out" 2> "$tmp/ours.err"
	orc=$?
	grep -v '^$' "$tmp/perf.out" > "$tmp/perf.txt"
	if [ $prc = 0 ] && [ $orc = 0 ] && [ ! -s "$tmp/perf.txt" ] && [ ! -s "$tmp/ours.out" ]; then
		got="eq-but-both-printed-nothing"	# two empty outputs agree on nothing
	elif [ $prc = 0 ] && [ $orc = 0 ] && cmp -s "$tmp/perf.txt" "$tmp/ours.out"; then
		got=eq
	elif [ $prc != 0 ] && [ $orc = 0 ]; then
		got=ours
	elif [ $prc != 0 ] && [ $orc != 0 ]; then
		got=none
	else
		got=differ
	fi
	# Where both print, they must still agree on where: every probe point of ours is
	# one of perf's (perf may add one, e.g. a PLT stub); only the fetches may differ.
	if [ $got = differ ] && [ $prc = 0 ] && [ $orc = 0 ] &&
		[ -n "$(comm -23 <(cut -d' ' -f2 "$tmp/ours.out" | sort -u) <(cut -d' ' -f2 "$tmp/perf.txt" | sort -u))" ]; then
		got=differ-at-another-address
	fi
	if [ $got = none ] && ! grep -q "$b" "$tmp/ours.err"; then
		got="none-without-a-clear-error"
	fi
	if [ "$got" = ours ] && [ "${why#oracle }" != "$why" ]; then
		$PERF probe -x "$FX/${why#oracle }" -D "$def" 2> /dev/null | grep -v '^$' |
			sed "s|^\([pr]\):probe_${why#oracle }/|\1:probe_$bin/|; s| $FX/${why#oracle }:| $b:|" \
			> "$tmp/oracle.txt"
		[ -s "$tmp/oracle.txt" ] && cmp -s "$tmp/oracle.txt" "$tmp/ours.out" ||
			got="ours-but-not-what-perf-prints-for-${why#oracle }"
	fi
	if [ "$got" = "$want" ]; then
		ok "$want: $bin '$def'"
	else
		not_ok "$bin '$def': expected $want, got $got"
	fi
	# Same place is not the same value: every definition we print, on a program, is
	# checked against gdb's reading of the DWARF (perf's "ours" rows have no other oracle).
	if [ $orc = 0 ] && executable "$b"; then
		values "$b" "$def" "$tmp/ours.out"
	fi
	case $got in
	eq) n_eq=$((n_eq + 1)) ;;
	ours) n_ours=$((n_ours + 1)); sed 's/^/#   ours: /' "$tmp/ours.out" ;;
	none) n_none=$((n_none + 1)); sed 's/^/#   ours: /' "$tmp/ours.err" | head -n 3 ;;
	*)
		[ "$got" = differ ] && n_differ=$((n_differ + 1))
		[ -n "$why" ] && diag "  why: $why"
		sed 's/^/#   perf: /' "$tmp/perf.txt" "$tmp/perf.err" | head -n 6
		sed 's/^/#   ours: /' "$tmp/ours.out" "$tmp/ours.err" | head -n 6 ;;
	esac
done <<< "$table"
diag "parity: $n_eq equal, $n_ours perf refuses and we resolve, $n_none both refuse," \
	"$n_differ perf wrong and we differ"
diag "values: $n_values fetched values equal gdb's"

# ---- libc.so.6 with libc6-dbg (/usr/lib/debug/.build-id) ----
LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
def_of() {	# def_of BIN DEFINITION [-f]: our -D output, errors to $tmp/err
	"$CLI" add -x "$1" -D ${3:-} "$2" 2> "$tmp/err"
}
strip_event() {	# "p:G/E rest" -> "rest"
	sed 's/^[pr]:[^ ]* //'
}
if [ ! -e /usr/lib/debug/.build-id ]; then
	not_ok "libc6-dbg installed (/usr/lib/debug/.build-id)"
else
	for def in '__libc_malloc bytes' 'getenv name' 'getenv%return $retval' '__libc_free mem'; do
		p=$($PERF probe -x "$LIBC" -D "$def" 2>/dev/null | grep -v '^$')
		o=$(def_of "$LIBC" "$def")
		check_eq "libc eq: '$def'" "$p" "$o"
	done
	for pair in 'malloc bytes|__libc_malloc bytes' 'free mem|__libc_free mem' \
		'fopen filename mode|_IO_new_fopen filename mode'; do
		alias=${pair%%|*} target=${pair#*|}
		if $PERF probe -x "$LIBC" -D "$alias" > /dev/null 2>&1; then
			diag "perf now resolves '$alias' itself"
		fi
		o=$(def_of "$LIBC" "$alias")
		t=$(def_of "$LIBC" "$target")
		check_eq "libc alias '$alias' resolves to the place and args of '$target'" \
			"$(echo "$t" | strip_event)" "$(echo "$o" | strip_event)"
		check_eq "libc alias '$alias' keeps its own event name" "${alias%% *}" \
			"$(echo "$o" | sed -n 's/^p:probe_libc\/\([^ ]*\) .*/\1/p')"
	done
	p=$($PERF probe -x "$LIBC" -D 'atoi nptr' 2>/dev/null)
	case $p in *deade12d*) diag "perf on 'atoi nptr' invents \\deade12d for $(echo "$p" | grep -c deade12d) inlined instances";; esac
	if o=$(def_of "$LIBC" 'atoi nptr'); then
		not_ok "libc 'atoi nptr' without -f must fail: inlined instances have no nptr"
	else
		check "libc 'atoi nptr': error names the instance and the variable" \
			grep -q "atoi at 0x[0-9a-f]*: argument nptr: " "$tmp/err"
	fi
	o=$(def_of "$LIBC" 'atoi nptr' -f)
	check "libc 'atoi nptr' -f: out-of-line atoi keeps nptr=%di" \
		sh -c "echo '$o' | grep -q ' nptr=%di:x64\$'"
	check "libc 'atoi nptr' -f: no made-up value anywhere" \
		sh -c "! echo '$o' | grep -q 'nptr=\\\\'"
	check_eq "libc 'atoi nptr' -f: the same $(echo "$p" | grep -c .) locations as perf" \
		"$(echo "$p" | grep -v '^$' | cut -d' ' -f2 | sort)" "$(echo "$o" | cut -d' ' -f2 | sort)"
fi

# ---- optimized out, computed, --force ----
def_of "$FX/dw_app" 'dw_sq v' > /dev/null
check "inlined dw_sq v at -O2: reported as optimized out at its address" \
	grep -q "argument v: optimized out at 0x[0-9a-f]* (no location list entry covers it)" "$tmp/err"
def_of "$FX/dw_app" 'dw_work;acc* acc i' > /dev/null
check "computed 'i': the error names the DWARF operations" \
	grep -q "argument i: location (DW_OP_breg0 0; .*DW_OP_stack_value) at 0x[0-9a-f]* is computed" "$tmp/err"
o=$(def_of "$FX/dw_app" 'dw_work;acc* acc i' -f)
check_eq "-f keeps what can be fetched ('acc') and leaves out 'i'" \
	"p:probe_dw_app/dw_work $FX/dw_app:0x$(echo "$o" | sed -n 's/.*:0x\([0-9a-f]*\) .*/\1/p') acc=%bx:s64" "$o"
check "-f warns about what it left out" grep -q "argument i left out: location" "$tmp/err"

# ---- debuginfo found elsewhere: .gnu_debuglink, debuginfod ----
o=$(def_of "$FX/dw_app_stripped" 'dw_work n it->name:string $params')
t=$(def_of "$FX/dw_app" 'dw_work n it->name:string $params')
check_eq "stripped + .gnu_debuglink: same offset and args as the unstripped build" \
	"$(echo "$t" | strip_event | sed 's/^[^:]*://')" "$(echo "$o" | strip_event | sed 's/^[^:]*://')"

mkdir -p "$tmp/srv" "$tmp/bin" "$tmp/dcache"
cp "$FX/dw_app.debug" "$tmp/srv/"
cp "$FX/dw_app_stripped" "$tmp/bin/app"	# its debuglink resolves to nothing here
bid=$(readelf -n "$tmp/bin/app" | awk '/Build ID/ { print $3 }')
def_of "$tmp/bin/app" 'dw_work n' > /dev/null
check "stripped copy alone: 'no debuginfo found' names the places looked in" \
	grep -q "app: no debuginfo found (looked in the binary, .gnu_debuglink" "$tmp/err"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F "$tmp/srv" -p "$port" -d "$tmp/dbgd.sqlite" > "$tmp/debuginfod.log" 2>&1 &
dpid=$!
for _ in $(seq 1 60); do
	python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' \
		"http://127.0.0.1:$port/buildid/$bid/debuginfo" 2> /dev/null && break
	sleep 0.5
done
export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$tmp/dcache
o=$(def_of "$tmp/bin/app" 'dw_work n it->name:string $params')
check_eq "debuginfod: definition equals the one from local debuginfo" \
	"$(echo "$t" | strip_event | sed 's/^[^:]*://')" "$(echo "$o" | strip_event | sed 's/^[^:]*://')"
out=$("$CLI" add -x "$tmp/bin/app" 'fromdbgd=dw_work n' 2>&1)
check_eq "debuginfod: add stores it, debuginfo from the debuginfod cache" \
	"debuginfo $bid ($tmp/dcache/$bid/debuginfo)" "$(echo "$out" | grep '^debuginfo ')"
check_eq "debuginfod: the cache entry records the debuginfo build-id" "$bid" \
	"$("$CLI" list --json --available | python3 -c 'import json,sys
print(*[p["debuginfo"] for p in json.load(sys.stdin)["events"] if p["event"] == "fromdbgd"])')"
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null
dpid=
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH

# ---- storing named probes ----
out=$("$CLI" add -x "$FX/dw_app_O0" 'dw_app.c;while* it' 2>&1)
check_eq "two locations are stored as EVENT and EVENT_1" "probe_dw_app_O0:dw_chain
probe_dw_app_O0:dw_chain_1" "$(echo "$out" | sed -n 's/^added \([^ ]*\) .*/\1/p')"
"$CLI" add -x "$FX/dw_app_O0" 'dw_app.c;while* it' > /dev/null 2>&1
check_eq "adding the same definition again replaces its entries" 2 \
	"$("$CLI" list | grep -c '^probe_dw_app_O0:dw_chain')"
if "$CLI" add -x "$FX/dw_app_O0" 'dw_chain depth' > /dev/null 2> "$tmp/err"; then
	not_ok "a different definition for a cached event name is refused"
else
	check "a different definition for a cached event name is refused" \
		grep -q "probe_dw_app_O0:dw_chain is already cached (from 'dw_app.c;while\* it')" "$tmp/err"
fi
check_eq "the refused add changed nothing" 2 "$("$CLI" list | grep -c '^probe_dw_app_O0:')"
# FUNC+OFFS must be an instruction boundary of the binary's code (objdump is the
# oracle for where dw_work's second instruction starts and how long it is).
set -- $(objdump -d --no-show-raw-insn "$FX/dw_app" | awk '/<dw_work>:/ { f = 1; next }
	f && /^ *[0-9a-f]+:/ { sub(":", "", $1); print $1; if (++n == 3) exit }')
i2=$((0x$2 - 0x$1)) i3=$((0x$3 - 0x$1))
check "dw_work+$i2 (an instruction boundary) resolves" "$CLI" add -x "$FX/dw_app" -D "dw_work+$i2"
if "$CLI" add -x "$FX/dw_app" -D "dw_work+$((i2 + 1))" > /dev/null 2> "$tmp/err"; then
	not_ok "dw_work+$((i2 + 1)) (inside an instruction) is refused"
else
	check "dw_work+$((i2 + 1)) (inside an instruction) is refused, naming it" grep -q \
		"dw_work+$((i2 + 1)) (0x[0-9a-f]*) is inside the $((i3 - i2))-byte instruction at dw_work+$i2 (" "$tmp/err"
fi
check "--force skips the boundary proof" "$CLI" add -x "$FX/dw_app" -D --force "dw_work+$((i2 + 1))"
"$CLI" add -x "$FX/dw_app" 'dw_work n it->id it->name:string' > /dev/null 2>&1
check_eq "list --format=record: record args of the stored probe" \
	"p:probe_dw_app/dw_work $(readelf -n "$FX/dw_app" | awk '/Build ID/ { print $3 }') $FX/dw_app:0x$(def_of "$FX/dw_app" 'dw_work n' | sed -n 's/.*:0x\([0-9a-f]*\) .*/\1/p') n=%di:s32 id=+0(%cx):s32 name=+16(%cx):string" \
	"$("$CLI" list --format=record 'probe_dw_app:dw_work')"
if "$CLI" add -x "$FX/dw_app" 'dw_sq v' > /dev/null 2>&1; then
	not_ok "an unresolvable probe is not stored"
else
	check_eq "an unresolvable probe is not stored" "" "$("$CLI" list 'probe_dw_app:dw_sq*')"
fi
# ---- uncompressed debuginfo copies and their function index (DIR/debug) ----
lbid=$(readelf -n "$LIBC" | sed -n 's/^ *Build ID: //p')
if [ ! -e "/usr/lib/debug/.build-id/${lbid:0:2}/${lbid:2}.debug" ]; then
	not_ok "libc6-dbg installed: debuginfo copies are tested on it"
else
	dc=$tmp/dcache copy=$tmp/dcache/debug/.build-id/${lbid:0:2}/${lbid:2}.debug
	funcs=${copy%.debug}.funcs
	defs=('__libc_malloc bytes' 'getenv%return $retval' 'malloc bytes' 'tcache_init'
	      'printf $params' 'str*cpy' 'malloc.c:3287' '__libc_malloc:3' 'nosuch_fn')
	# without copies, from libc6-dbg's compressed file each time: the reference
	ref=$(for d in "${defs[@]}"; do PROBECACHE_DEBUG_MAX_MB=0 PROBECACHE_DIR=$tmp/nocopy \
		"$CLI" add -x "$LIBC" -D "$d" 2>&1 | sed "s|/usr/lib/debug/.build-id/|DBG/|"; done)
	check "PROBECACHE_DEBUG_MAX_MB=0 keeps no copy" test ! -e "$tmp/nocopy/debug"
	PROBECACHE_DIR=$dc "$CLI" add -x "$LIBC" -D 'getenv name' > /dev/null 2>&1
	check "the first add keeps an uncompressed copy by build-id" test -s "$copy"
	check_eq "the copy has libc's build-id" "$lbid" \
		"$(readelf -n "$copy" | sed -n 's/^ *Build ID: //p')"
	check_eq "the copy has no compressed section" "0" \
		"$(readelf -S -W "$copy" | awk '$NF ~ /^[0-9]+$/ && / C / ' | wc -l)"
	check "its function index is saved beside it" grep -qx 'probecache-funcs 1' "$funcs"
	got() { for d in "${defs[@]}"; do PROBECACHE_DIR=$dc "$CLI" add -x "$LIBC" -D "$d" 2>&1 |
		sed "s|$dc/debug/.build-id/|DBG/|"; done; }
	check_eq "every definition resolves the same through the copy and its index" "$ref" "$(got)"
	sed -i '3,$d' "$funcs"	# damaged: no lines, no end
	check_eq "a damaged function index is not used (same results)" "$ref" "$(got)"
	check "and is written anew" grep -qx 'end' "$funcs"
	mkdir -p "$dc/debug/.build-id/00"
	head -c 3000000 /dev/zero > "$dc/debug/.build-id/00/0000.debug"
	touch -d '2001-01-01' "$dc/debug/.build-id/00/0000.debug"
	rm "$copy"
	PROBECACHE_DEBUG_MAX_MB=12 PROBECACHE_DIR=$dc "$CLI" add -x "$LIBC" -D 'getenv name' >/dev/null 2>&1
	check "over PROBECACHE_DEBUG_MAX_MB the least recently used copy goes" \
		test ! -e "$dc/debug/.build-id/00/0000.debug" -a -s "$copy"
	rm "$copy"
	PROBECACHE_DEBUG_MAX_MB=5 PROBECACHE_DIR=$dc "$CLI" add -x "$LIBC" -D 'getenv name' >/dev/null 2>&1
	check "a copy larger than PROBECACHE_DEBUG_MAX_MB is not kept" test ! -e "$copy"
	PROBECACHE_DIR=$dc "$CLI" add -x "$LIBC" 'getenv name' > /dev/null 2>&1
	PROBECACHE_DIR=$dc "$CLI" gc > /dev/null
	check "gc keeps a copy a cached probe uses" test -s "$copy" -a -s "$funcs"
	PROBECACHE_DIR=$dc "$CLI" del 'probe_libc:*' > /dev/null
	out=$(PROBECACHE_DIR=$dc "$CLI" gc)
	check "gc removes a copy no cached probe uses, with its index" \
		test ! -e "$copy" -a ! -e "$funcs"
	check "gc says so" grep -q "removed debuginfo copy $copy" <<< "$out"
fi
tap_done
