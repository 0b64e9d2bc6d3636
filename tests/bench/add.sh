#!/bin/bash
# Benchmark (printed, not asserted): resolving a handful of libc.so.6 probes with
# parameters (libc6-dbg debuginfo) with `probecache-resolve add -D` vs `perf probe -D`.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
CLI=${CLI:-$top/user/probecache-resolve}
PERF=${PERF:-perf}
LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
tmp=$(mktemp -d /tmp/pc-bench-add.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp	# perf's buildid cache
unset DEBUGINFOD_URLS
defs=('__libc_malloc bytes' 'getenv name' '__libc_free mem' 'strtol nptr base'
      '__libc_calloc n elem_size' 'fopen filename mode' 'getenv%return $retval')
rounds=${ROUNDS:-5}

ms() { date +%s%N | cut -c1-13; }
run() {	# run TOOL: total ms for rounds x every definition
	local t0 t1
	t0=$(ms)
	for _ in $(seq "$rounds"); do
		for d in "${defs[@]}"; do
			if [ "$1" = perf ]; then
				$PERF probe -x "$LIBC" -D "$d" > /dev/null 2>&1
			else
				"$CLI" add -x "$LIBC" -D "$d" > /dev/null 2>&1
			fi
		done
	done
	t1=$(ms)
	echo $((t1 - t0))
}
n=$((rounds * ${#defs[@]}))
ours=$(run ours)
perf=$(run perf)
printf '# add -D, %d libc probes with params (%d rounds): probecache-resolve %d ms (%.1f ms each), perf probe -D %d ms (%.1f ms each)\n' \
	"${#defs[@]}" "$rounds" "$ours" "$(echo "$ours / $n" | bc -l)" "$perf" "$(echo "$perf / $n" | bc -l)"
