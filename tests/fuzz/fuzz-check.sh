#!/bin/sh
# fuzz-check.sh TARGET...: run each libFuzzer TARGET for $FUZZ_SECONDS on a
# temporary copy of seeds/TARGET-without-fuzz_/ (seeds/ itself is never
# written), with TARGET.dict as dictionary if there is one; print one TAP
# line per target and exit non-zero if any crashed.
# $FUZZ_JOBS targets at a time (default: the CPUs, at most 4): each run is bounded by
# wall time, so two at once on two idle cores make as many executions in half the time.
# On a crash the run's log and the crashing input are kept and named.
cd "$(dirname "$0")" || exit 1
. ../lib/tap.sh

secs=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-$(nproc)}
[ "$jobs" -le 4 ] || jobs=4
top=$(mktemp -d "${TMPDIR:-/tmp}/pc-fuzz.XXXXXX") || exit 1

# start TARGET: its run in the background, in $top/TARGET (corpus, crash, log, rc)
start() {
	work=$top/$1
	mkdir -p "$work/corpus" "$work/crash"
	if [ -d "seeds/${1#fuzz_}" ]; then
		cp -R "seeds/${1#fuzz_}/." "$work/corpus/"
	else
		echo "$1: no seeds/${1#fuzz_}, starting from an empty corpus" > "$work/note"
	fi
	dict=
	[ -f "$1.dict" ] && dict=-dict=$1.dict
	("./$1" -max_total_time="$secs" -timeout=10 -print_final_stats=1 $dict \
		-artifact_prefix="$work/crash/" "$work/corpus" > "$work/log" 2>&1
	echo $? > "$work/rc") &
}

# report TARGET: its TAP line, from what its run left
report() {
	work=$top/$1
	[ ! -f "$work/note" ] || diag "$(cat "$work/note")"
	rc=$(cat "$work/rc")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
	if [ "$rc" -eq 0 ] && [ -n "$execs" ] && [ "$execs" -gt 0 ]; then
		ok "$1 ${secs}s, $execs execs, no crash"
		rm -rf "$work"
	else
		not_ok "$1 ${secs}s, exit $rc, ${execs:-no} execs"
		grep -E 'ERROR|SUMMARY|^fuzz_|runtime error|Test unit written' "$work/log" |
			head -n 20 | sed 's/^/#   /'
		diag "log: $work/log; reproduce: tests/fuzz/$1 $work/crash/*"
	fi
}

n=0
for t in "$@"; do
	start "$t"
	n=$((n + 1))
	[ $((n % jobs)) -ne 0 ] || wait
done
wait
for t in "$@"; do
	report "$t"
done
rmdir "$top" 2> /dev/null
tap_done
