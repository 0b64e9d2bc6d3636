#!/bin/bash
# Benchmark (printed, not asserted): resolving libc.so.6 probes with parameters
# (libc6-dbg debuginfo). Figures, each beside its anchor and goal (issue 13):
#   one definition: `add -D` vs `perf probe -D` on the same definitions, <= 0.5x
#   500 definitions in one `add --from`: vs one definition, <= 20x
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
CLI=${CLI:-$top/user/probecache-resolve}
PERF=${PERF:-perf}
LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
tmp=$(mktemp -d /tmp/pc-bench-add.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp	# perf's buildid cache
export PROBECACHE_DIR=$tmp/cache
unset DEBUGINFOD_URLS
defs=('__libc_malloc bytes' 'getenv name' '__libc_free mem' 'strtol nptr base'
      '__libc_calloc n elem_size' 'fopen filename mode' 'getenv%return $retval')
rounds=${ROUNDS:-5}

bid=$(readelf -n "$LIBC" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ ! -e "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ]; then
	echo "# MISSING: libc6-dbg (debuginfo of $LIBC; scripts/setup.sh) — no add figures"
	exit 0
fi
run() {	# run TOOL: total ms for rounds x every definition
	local t0 t1
	t0=$(ms_now)
	for _ in $(seq "$rounds"); do
		for d in "${defs[@]}"; do
			if [ "$1" = perf ]; then
				$PERF probe -x "$LIBC" -D "$d" > /dev/null 2>&1
			else
				"$CLI" add -x "$LIBC" -D "$d" > /dev/null 2>&1
			fi
		done
	done
	t1=$(ms_now)
	echo $((t1 - t0))
}
# The first resolve against compressed debuginfo (libc6-dbg ships it zlib-compressed)
# keeps an uncompressed copy in the cache (DIR/debug, user/lib/debuginfo.h); shown apart,
# the figures below are the ones after it, as for every later add on that machine.
t0=$(ms_now); "$CLI" add -x "$LIBC" -D "${defs[0]}" > /dev/null 2>&1; t1=$(ms_now)
first=$((t1 - t0))
t0=$(ms_now); PROBECACHE_DEBUG_MAX_MB=0 PROBECACHE_DIR=$tmp/nocopy \
	"$CLI" add -x "$LIBC" -D "${defs[0]}" > /dev/null 2>&1; t1=$(ms_now)
nocopy=$((t1 - t0))
[ -n "$(find "$PROBECACHE_DIR/debug" -name '*.debug' 2>/dev/null)" ] ||
	echo "# no uncompressed debuginfo copy was kept in $PROBECACHE_DIR/debug"
n=$((rounds * ${#defs[@]}))
ours=$(run ours)
fig_header
fig_abs "add -D, first (keeps the uncompressed copy)" "$first"
fig_abs "add -D, without the copy (zlib each time)" "$nocopy"
if need "$PERF" linux-perf; then
	# a definition perf refuses would make its mean look fast: compare on what both resolve
	keep=()
	for d in "${defs[@]}"; do
		if $PERF probe -x "$LIBC" -D "$d" > /dev/null 2>&1; then
			keep+=("$d")
		else
			echo "#   left out, perf probe -D refuses it: $d"
		fi
	done
	defs=("${keep[@]}")
	n=$((rounds * ${#defs[@]}))
	ours=$(run ours)
	perf=$(run perf)
	fig "add -D, one libc def (mean of $n)" $((ours / n)) "perf probe -D" $((perf / n)) 0.5
else
	fig "add -D, one libc def (mean of $n)" $((ours / n)) "perf probe -D (missing)" 0 0.5
fi
if need nm binutils; then
	nm -D --defined-only "$LIBC" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' |
		grep -E '^[a-z][a-z0-9_]*$' | sort -u | head -n 500 | sed 's/$/ $params/' > "$tmp/500"
	t0=$(ms_now)
	"$CLI" add -f -x "$LIBC" --from "$tmp/500" > "$tmp/out" 2>&1
	t1=$(ms_now)
	fig "add --from, $(wc -l < "$tmp/500") libc defs in one run" $((t1 - t0)) \
		"one definition (above)" $((ours / n)) 20
	echo "#   ($(grep -c '^added' "$tmp/out") probes added; perf would need $(wc -l < "$tmp/500") runs: ~$(( ${perf:-0} / n * 500 )) ms)"
fi
