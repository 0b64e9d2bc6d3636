#!/bin/sh
# fuzz-check.sh TARGET...: run each libFuzzer TARGET for $FUZZ_SECONDS on a
# temporary copy of seeds/TARGET-without-fuzz_/ (seeds/ itself is never
# written), with TARGET.dict as dictionary if there is one; print one TAP
# line per target and exit non-zero if any crashed.
# On a crash the run's log and the crashing input are kept and named.
cd "$(dirname "$0")" || exit 1
. ../lib/tap.sh

secs=${FUZZ_SECONDS:-20}
for t in "$@"; do
	name=${t#fuzz_}
	work=$(mktemp -d "${TMPDIR:-/tmp}/pc-$t.XXXXXX") || exit 1
	mkdir "$work/corpus" "$work/crash"
	if [ -d "seeds/$name" ]; then
		cp -R "seeds/$name/." "$work/corpus/"
	else
		diag "$t: no seeds/$name, starting from an empty corpus"
	fi
	dict=
	[ -f "$t.dict" ] && dict=-dict=$t.dict
	"./$t" -max_total_time="$secs" -timeout=10 -print_final_stats=1 $dict \
		-artifact_prefix="$work/crash/" "$work/corpus" >"$work/log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
	if [ $rc -eq 0 ] && [ -n "$execs" ] && [ "$execs" -gt 0 ]; then
		ok "$t ${secs}s, $execs execs, no crash"
		rm -rf "$work"
	else
		not_ok "$t ${secs}s, exit $rc, ${execs:-no} execs"
		grep -E 'ERROR|SUMMARY|^fuzz_|runtime error|Test unit written' "$work/log" |
			head -n 20 | sed 's/^/#   /'
		diag "log: $work/log; reproduce: tests/fuzz/$t $work/crash/*"
	fi
done
tap_done
