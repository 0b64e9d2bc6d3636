# suite_verdict NAME RC LOG: judge one suite's TAP output (bash; sourced by
# tests/run-all.sh and tests/harness/run.sh, which tests it with fake suites).
# Prints a "not ok - NAME: why" line for every way the suite can fail besides its own
# "not ok" lines, and sets SV_PASS SV_FAIL SV_SKIP (SV_FAIL includes those lines).
#
# A suite is one or more TAP streams, each ending with its plan (tap_done and
# tests/unit/tap.h print it last). It fails when
#   - it printed "not ok",
#   - a plan disagrees with the results since the previous plan, or results follow
#     the last plan (a stream without a plan: it died before tap_done),
#   - it printed no result at all,
#   - it exited non-zero,
#   - CI=true and it skipped anything ("ok ... # SKIP"): CI must run everything.
# "ok ... # SKIP" counts as skipped, never as passed.
suite_verdict() {
	local name=$1 rc=$2 log=$3 out
	out=$(awk -v name="$name" -v rc="$rc" -v ci="${CI:-}" '
		function problem(msg) { bad++; printf "not ok - %s: %s\n", name, msg }
		/^(not )?ok([ \t]|$)/ {
			seg++; total++
			if ($0 ~ /^not /) fail++
			else if (tolower($0) ~ /^ok[^#]*#[ \t]*skip/) skip++
			else pass++
			next
		}
		/^1\.\.[0-9]+/ {
			n = substr($0, 4) + 0
			if (n != seg) problem("plan says 1.." n " but " seg " results came before it")
			seg = 0; plans++
			next
		}
		END {
			if (seg > 0) problem(seg " results without a plan line after them (died before its plan?)")
			if (total == 0) problem("reported no result")
			if (rc != 0 && fail == 0 && bad == 0) problem("exited " rc " without a failing result")
			if (ci == "true" && skip > 0) problem(skip " skipped under CI=true (CI must run everything)")
			printf "%d %d %d\n", pass, fail + bad, skip
		}' "$log")
	# The last line holds the counts, the lines before it the problems.
	[ "$out" = "${out%$'\n'*}" ] || printf '%s\n' "${out%$'\n'*}"
	read -r SV_PASS SV_FAIL SV_SKIP <<< "${out##*$'\n'}"
}
