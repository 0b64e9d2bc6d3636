#!/bin/bash
# Scan benchmark (printed, not asserted): the corpus of issue 4 — every ELF under
# /usr/lib/jvm, postgres, python3.11, libstdc++ — through `probecache-resolve scan`
# and through `perf buildid-cache --add`, wall time and bytes of cache each leaves.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
cli=$top/user/probecache-resolve
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

corpus=$tmp/corpus.list
{
	find /usr/lib/jvm -type f 2>/dev/null
	ls /usr/lib/postgresql/15/bin/postgres /usr/bin/python3.11 \
		/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.* 2>/dev/null
} | while read -r f; do
	head -c 4 "$f" 2>/dev/null | grep -q 'ELF' && echo "$f"
done > "$corpus"
n=$(wc -l < "$corpus")
bytes=$(xargs du -cb < "$corpus" | tail -n 1 | cut -f1)
echo "# corpus: $n ELF files, $((bytes / 1048576)) MiB"

ms() { echo $(( ($2 - $1) / 1000000 )); }

[ "$n" -gt 0 ] || echo "# MISSING: no corpus (openjdk, postgresql-15, python3.11, libstdc++6; scripts/setup.sh)"
t0=$(date +%s%N)
xargs "$cli" --cache-dir "$tmp/pc" scan < "$corpus" > "$tmp/pc.out" 2>&1
t1=$(date +%s%N)
if need perf linux-perf; then
	for f in $(cat "$corpus"); do
		HOME=$tmp/perf perf buildid-cache --add "$f" > /dev/null 2>&1
	done
fi
t2=$(date +%s%N)

pc_bytes=$(du -sb "$tmp/pc" 2>/dev/null | cut -f1)
perf_bytes=$(du -sb "$tmp/perf/.debug" 2>/dev/null | cut -f1)
events=$(grep -o '[0-9]* events' "$tmp/pc.out" | awk '{s += $1} END {print s + 0}')
printf '%-34s %10s %14s\n' "" "wall ms" "cache bytes"
printf '%-34s %10s %14s\n' "probecache-resolve scan" "$(ms "$t0" "$t1")" "${pc_bytes:-0}"
printf '%-34s %10s %14s\n' "perf buildid-cache --add" "$(ms "$t1" "$t2")" "${perf_bytes:-0}"
echo "# probecache-resolve found $events SDT events"
fig_header
fig "scan of the corpus ($n files)" "$(ms "$t0" "$t1")" "perf buildid-cache --add" "$(ms "$t1" "$t2")" 1
