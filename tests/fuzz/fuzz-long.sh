#!/bin/sh
# fuzz-long.sh TARGET...: run each libFuzzer TARGET for $MINUTES minutes on a
# copy of its seeds, then merge what added coverage back into seeds/NAME
# (libFuzzer's -merge=1: inputs that cover nothing the committed seeds do not
# already cover are dropped, so the corpus stays minimal; new files are named
# by their SHA-1). Prints one TAP line per target with its execs and the
# coverage (edges, features) of the seeds before and after. A crash fails the
# target and keeps its input and log; nothing is merged from a crashed run.
cd "$(dirname "$0")" || exit 1
. ../lib/tap.sh

mins=${MINUTES:?MINUTES=N: minutes per target}

# cov_of TARGET DIR: "edges features" of running DIR's inputs once
cov_of() {
	"./$1" -runs=0 "$2" 2>&1 | sed -n 's/.*INITED cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p' |
		tail -n 1
}

for t in "$@"; do
	name=${t#fuzz_}
	mkdir -p "seeds/$name"
	work=$(mktemp -d "${TMPDIR:-/tmp}/pc-long-$t.XXXXXX") || exit 1
	mkdir "$work/corpus" "$work/crash"
	cp -R "seeds/$name/." "$work/corpus/"
	dict=
	[ -f "$t.dict" ] && dict=-dict=$t.dict
	before=$(cov_of "$t" "seeds/$name")
	n0=$(ls "seeds/$name" | wc -l)
	"./$t" -max_total_time=$((mins * 60)) -timeout=10 -print_final_stats=1 $dict \
		-artifact_prefix="$work/crash/" "$work/corpus" > "$work/log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
	if [ $rc -ne 0 ] || [ -z "$execs" ]; then
		not_ok "$t ${mins} min, exit $rc, ${execs:-no} execs"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$work/log" |
			head -n 20 | sed 's/^/#   /'
		diag "log: $work/log; reproduce: tests/fuzz/$t $work/crash/*"
		continue
	fi
	"./$t" -merge=1 $dict "seeds/$name" "$work/corpus" > "$work/merge.log" 2>&1 ||
		{ not_ok "$t: merge failed (log: $work/merge.log)"; continue; }
	after=$(cov_of "$t" "seeds/$name")
	ok "$t ${mins} min, $execs execs; seeds cov/ft $before -> $after," \
		"$(( $(ls "seeds/$name" | wc -l) - n0 )) inputs added"
	rm -rf "$work"
done
tap_done
