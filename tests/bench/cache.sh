#!/bin/bash
# Benchmark: the cache at scale. Generates caches of 1k, 10k and 100k named probes
# (10 per binary, so 100 to 10 000 cache files, text as `add` writes them) and times
# `list --format=record`, `arm` of one GROUP:EVENT (selection and the file check only:
# PROBECACHE_SYSFS points nowhere, so no module is needed; the binaries do not exist,
# so the one selected probe is skipped as missing), `export` of everything and
# `import` of that archive into an empty cache. The generated cache has no GROUP:EVENT
# index (DIR/names): the first arm builds it (shown as arm-first), the goal is on the
# arm after it (arm-1), as after any add/scan/import. Goals at 100k: list <= 1 s, arm <= 50 ms,
# import <= 3 s, and no step more than linear (time per
# probe at 100k <= 2x that at 10k).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
CLI=${CLI:-$top/user/probecache-resolve}
tmp=$(mktemp -d /tmp/pc-bench-cache.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export PROBECACHE_SYSFS=$tmp/no-sysfs

# gen DIR NBIN: NBIN cache files of 10 named probes each
gen() {
	awk -v dir="$1" -v n="$2" 'BEGIN {
		for (b = 0; b < n; b++) {
			id = sprintf("%08x%032x", b + 1, b * 2654435761 % 4294967296)
			d = dir "/" substr(id, 1, 2); f = d "/" substr(id, 3) ".probes"
			if (!(d in made)) { system("mkdir -p " d); made[d] = 1 }
			print "probecache-cache 1\nbuild-id " id "\npath /nonexistent/bin" b > f
			for (e = 0; e < 10; e++)
				printf "probe named probe_bin%d ev%d p 0x%x 0x0\nspec fn%d n\nargs n=%%di:s32\nuprobe n=%%di:s32\ndebuginfo %s\nend\n", b, e, 4096 + 16 * e, e, id > f
			close(f)
		}
	}'
}
# timed VAR CMD...: run CMD, store its ms in VAR, say if it failed
timed() {
	local var=$1 t0 t1 rc
	shift
	t0=$(ms_now); "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?; t1=$(ms_now)
	[ "$rc" -le 3 ] || { echo "# FAILED (exit $rc): $*"; head -n 3 "$tmp/err" | sed 's/^/#   /'; }
	printf -v "$var" %d $((t1 - t0))
}
printf '# %-8s %10s %10s %10s %10s %10s %10s\n' probes files list-rec arm-first arm-1 export import
declare -A L A I F
for n in 1000 10000 100000; do
	c=$tmp/c$n; mkdir -p "$c"
	gen "$c" $((n / 10))
	export PROBECACHE_DIR=$c
	timed l "$CLI" list --format=record
	lines=$(wc -l < "$tmp/out")
	[ "$lines" -eq "$n" ] || echo "# list printed $lines records, not $n"
	timed f "$CLI" arm "probe_bin$((n / 20)):ev3"
	[ -e "$c/names" ] || echo "# the first arm wrote no index ($c/names)"
	timed a "$CLI" arm "probe_bin$((n / 20)):ev3"
	grep -q "probe_bin$((n / 20)):ev3 .*skipped: the file is gone" "$tmp/err" ||
		echo "# arm did not select probe_bin$((n / 20)):ev3"
	timed e "$CLI" export -o "$tmp/a$n" '*'
	export PROBECACHE_DIR=$tmp/i$n; mkdir -p "$PROBECACHE_DIR"
	timed i "$CLI" import "$tmp/a$n"
	L[$n]=$l A[$n]=$a I[$n]=$i F[$n]=$f
	printf '# %-8d %10d %8d ms %7d ms %7d ms %7d ms %7d ms\n' $n $((n / 10)) $l $f $a $e $i
	rm -rf "$c" "$tmp/i$n" "$tmp/a$n"
done
fig_header
for n in 1000 10000; do	# the goals are set at 100k; smaller sizes show the growth
	fig_abs "list --format=record, $n probes" "${L[$n]}"
	fig_abs "arm one GROUP:EVENT, $n probes" "${A[$n]}"
	fig_abs "import, $n probes" "${I[$n]}"
done
fig_abs "list --format=record, 100000 probes" "${L[100000]}" 1000
fig_abs "arm, first (builds the index), 100000 probes" "${F[100000]}"
fig_abs "arm one GROUP:EVENT, 100000 probes" "${A[100000]}" 50
fig_abs "import, 100000 probes" "${I[100000]}" 3000
lin() {	# lin NAME 10k 100k: time per probe at 100k at most twice that at 10k
	[ "$3" -le $((20 * ($2 > 0 ? $2 : 1))) ] && echo "linear" || echo "WORSE than linear"
}
echo "# growth 10k -> 100k: list $(lin l "${L[10000]}" "${L[100000]}"), arm $(lin a "${A[10000]}" "${A[100000]}"), import $(lin i "${I[10000]}" "${I[100000]}")"
