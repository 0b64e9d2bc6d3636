#!/bin/bash
# Benchmark: `probecache-resolve follow` (issue 27, later mappings), against the
# fake module of tests/cli (tests/cli/fakemod.c: the host cannot load modules;
# the module's own verify time is in tests/vm/t/38's latencies):
#  - follow latency: a process started on a copy of libstdc++ at another path,
#    until its site line reaches the control file (median of 5). Goal: <= 1000 ms.
#  - syscall overhead: getppid, open+close (unrelated syscalls: goal <= 1 %) and an
#    executable mmap+munmap (the one path the perf MMAP2 watch adds work to),
#    ns per op without and with follow watching (probes defined), runs alternating,
#    best of 5 each.
# Printed, not asserted.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
CLI=${CLI:-$top/user/probecache-resolve}
if [ "$(id -u)" != 0 ]; then
	echo "# follow: needs root (a system-wide perf watch, map_files): not measured"
	exit 0
fi
need cc gcc || exit 0
tmp=$(mktemp -d /tmp/pc-bench-follow.XXXXXX)
fp=
cleanup() {
	[ -z "$fp" ] || kill "$fp" 2> /dev/null
	wait 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cc -O2 -o "$tmp/sysloop" "$top/tests/bench/sysloop.c" &&
	cc -shared -fPIC -o "$tmp/fakemod.so" "$top/tests/cli/fakemod.c" -ldl || exit 1
lib=$(readlink -f "$(g++ -print-file-name=libstdc++.so.6 2> /dev/null || echo /usr/lib/x86_64-linux-gnu/libstdc++.so.6)")
bid=$(readelf -n "$lib" | sed -n 's/^ *Build ID: //p')
mkdir -p "$tmp/sys" "$tmp/proc"
: > "$tmp/sys/control"
echo 0.1 > "$tmp/sys/version"
echo "sdt_libstdcxx:throw state=defined consumers=0 hits=0 counting=0 type=p pid=0 unlinked=0 build_id=$bid offset=0x1000 ref_ctr_offset=0x0 path=$lib args=" > "$tmp/proc/probecache_probes"
# PROBECACHE_RUN: its counters file (follower.stats) in $tmp, never the host's /run
export PROBECACHE_SYSFS=$tmp/sys PROBECACHE_PROC=$tmp/proc PROBECACHE_RUN=$tmp/run

follow_start() {
	LD_PRELOAD=$tmp/fakemod.so "$CLI" follow -q > "$tmp/follow.out" 2>&1 &
	fp=$!
	for _ in $(seq 100); do grep -q '^follow: watching' "$tmp/follow.out" && return 0; sleep 0.05; done
	return 1
}
follow_stop() { kill "$fp"; wait "$fp" 2> /dev/null; fp=; }

fig_header
follow_start || { echo "# follow did not start: $(cat "$tmp/follow.out")"; exit 0; }
lat=()
for i in 1 2 3 4 5; do
	cp "$lib" "$tmp/copy$i.so"
	: > "$tmp/sys/control"
	t0=$(date +%s%N)
	LD_PRELOAD=$tmp/copy$i.so sleep 3 &
	until grep -q "copy$i.so" "$tmp/sys/control"; do sleep 0.002; done
	lat+=($((($(date +%s%N) - t0) / 1000000)))
done
med=$(printf '%s\n' "${lat[@]}" | sort -n | sed -n 3p)
echo "# follow latencies (ms): ${lat[*]}"
fig_abs "follow latency, process started later (median)" "$med" 1000

# ns OP: best of 5 of sysloop OP, alternating with and without follow
declare -A with without
for round in 1 2 3 4 5; do
	for op in getppid open mmap; do
		n=200000; [ $op = mmap ] && n=50000
		v=$("$tmp/sysloop" $op $n "$lib" | sed 's/ns_per_op=//')
		with[$op]=$(awk -v a="${with[$op]:-}" -v v="$v" 'BEGIN { print (a == "" || v < a) ? v : a }')
	done
	follow_stop
	for op in getppid open mmap; do
		n=200000; [ $op = mmap ] && n=50000
		v=$("$tmp/sysloop" $op $n "$lib" | sed 's/ns_per_op=//')
		without[$op]=$(awk -v a="${without[$op]:-}" -v v="$v" 'BEGIN { print (a == "" || v < a) ? v : a }')
	done
	[ $round = 5 ] || follow_start || exit 0
done
for op in getppid open mmap; do
	awk -v n="$op" -v w="${with[$op]}" -v o="${without[$op]}" 'BEGIN {
		r = o > 0 ? w / o : 0
		g = n == "mmap" ? "(shown)" : "<= 1.01x"
		v = n == "mmap" ? "" : (r <= 1.01 ? "met" : "MISSED")
		printf "# %-42s %8.1f ns  %-26s %8.1f ns  %7.3fx  %-10s %s\n",
			"syscall " n ", follow watching", w, "without follow", o, r, g, v
	}'
done
