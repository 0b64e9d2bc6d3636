# suite_verdict NAME RC LOG: judge one suite's TAP output (bash; sourced by
# tests/run-all.sh and tests/harness/run.sh, which tests it with fake suites).
# Prints a "not ok - NAME: why" line for every way the suite can fail besides its own
# "not ok" lines (and "# NAME: ..." comments for expected failures and skipped streams),
# and sets SV_PASS SV_FAIL SV_SKIP SV_TODO (SV_FAIL includes those lines).
#
# The rules are tests/lib/tap-verdict.pl's (Debian's TAP::Parser reads the lines): each
# stream's plan first or last; a failing result, a plan that disagrees, results with no
# plan, Bail out!, no result at all, a non-zero exit, or under CI=true any skip fail the
# suite; "ok ... # SKIP" and "1..0 # SKIP why" count as skipped, never as passed;
# "not ok ... # TODO" is an expected failure (SV_TODO), not a failure.
suite_verdict() {
	local out
	out=$(perl "${BASH_SOURCE[0]%/*}/tap-verdict.pl" "$1" "$2" "$3" 2>&1) ||
		out+=$'\n'"not ok - $1: tests/lib/tap-verdict.pl failed"$'\n'"0 1 0 0"
	# The last line holds the counts, the lines before it the problems.
	[ "$out" = "${out%$'\n'*}" ] || printf '%s\n' "${out%$'\n'*}"
	read -r SV_PASS SV_FAIL SV_SKIP SV_TODO <<< "${out##*$'\n'}"
}
