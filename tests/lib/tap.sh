# TAP helpers for shell test suites, host and VM alike (busybox ash compatible).
# Source it; call ok/not_ok/check; end with tap_done (prints the plan line, returns status).
tap_n=0
tap_failed=0

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

# diag MSG...: a TAP comment line
diag() {
	echo "# $*"
}

# check DESC CMD...: ok if CMD exits 0; on failure its output is shown as diagnostics.
check() {
	_d=$1
	shift
	if _out=$("$@" 2>&1); then
		ok "$_d"
	else
		not_ok "$_d"
		printf '%s\n' "$_out" | sed 's/^/#   /' | head -n 40
	fi
}

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "  expected: $2"
		diag "  got:      $3"
	fi
}

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
