#!/bin/bash
# `probecache-resolve add -D` against `perf probe -D` (perf 6.1 is the oracle).
#
# Every row of the table below names a fixture binary, a probe-definition and
# what must happen:
#   eq     perf succeeds and our definitions are identical, line for line
#   ours   perf refuses, we resolve (our output is shown)
#   none   both refuse; our error must name the binary (shown)
#   differ perf prints something we deliberately do not (reason given): a
#          made-up or wrong fetch, a PLT stub, an @SYMBOL uprobes cannot take
# A row whose outcome is not the expected one fails. The summary line counts
# the classes. Then: libc.so.6 with libc6-dbg (aliases, optimized-out args),
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
	make -s -C "$top/tests/fixtures" "$FX/dw_app" "$FX/dw_app_O0" "$FX/dw_app_pie_no" \
		"$FX/dw_lib.so" "$FX/dw_app_stripped" "$FX/dw_app.debug" >/dev/null 2>>"$tmp/make.log"
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
ours|dw_app_stripped|dw_work n it->name:string
ours|dw_app|dw_chain depth
eq|dw_app|dw_work%return \$retval
none|dw_app_O0|dw_work it->bits
none|dw_app|dw_work:5 acc
none|dw_app|dw_sq v
none|dw_app|dw_sq:2 sq
none|dw_app|main rounds
none|dw_app|dw_work it.id
none|dw_app|dw_work nosuch
none|dw_app|nosuch_fn
none|dw_app|nosuch.c:3
differ|dw_app|dw_work;acc* acc i|perf reads i=+0(%ax) from a computed value (breg0 breg4 breg15 mul minus stack_value)
differ|dw_app|dw_work;zzz*|the pattern matches no line; perf probes the function entry instead
differ|dw_app_O0|dw_work dw_total dw_calls|perf prints @SYMBOL+0, which uprobe_events rejects; we give @+FILEOFF
differ|dw_app|dw_work dw_table[1]|perf prints @SYMBOL+4, which uprobe_events rejects; we give @+FILEOFF
differ|dw_lib.so|dw_pair%return \$retval|perf adds a return probe on the dw_pair@plt stub"

n_eq=0 n_ours=0 n_none=0 n_differ=0
while IFS='|' read -r want bin def why; do
	b=$FX/$bin
	$PERF probe -x "$b" -D "$def" > "$tmp/perf.out" 2> "$tmp/perf.err"
	prc=$?
	"$CLI" add -x "$b" -D "$def" > "$tmp/ours.out" 2> "$tmp/ours.err"
	orc=$?
	grep -v '^$' "$tmp/perf.out" > "$tmp/perf.txt"
	if [ $prc = 0 ] && [ $orc = 0 ] && cmp -s "$tmp/perf.txt" "$tmp/ours.out"; then
		got=eq
	elif [ $prc != 0 ] && [ $orc = 0 ]; then
		got=ours
	elif [ $prc != 0 ] && [ $orc != 0 ]; then
		got=none
	else
		got=differ
	fi
	if [ $got = none ] && ! grep -q "$b" "$tmp/ours.err"; then
		got="none-without-a-clear-error"
	fi
	if [ "$got" = "$want" ]; then
		ok "$want: $bin '$def'"
	else
		not_ok "$bin '$def': expected $want, got $got"
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
