#!/bin/bash
# report.sh KERNEL TAP_LOG CONSOLE_LOG: turn the VM's per-script TAP into one TAP
# stream, check the kernel log for splats, print "N passed, N failed".
set -uo pipefail
kernel=$1 tap=$2 console=$3

# Kernel reports that fail a run even when every test said ok.
splat='BUG:|WARNING:|KASAN:|Kernel panic|Oops|general protection fault|'\
'sleeping function called from invalid context|INFO: possible|INFO: trying to register|'\
'INFO: lockdep|inconsistent lock state|circular locking dependency|'\
'suspicious RCU usage|unreferenced object|UBSAN:|watchdog: BUG|hung_task'

touch "$tap" "$console"
awk -v k="$kernel" -v raw="${VM_RAW:-}" '
	function fail(msg) { n++; bad++; printf "not ok %d - %s: %s\n", n, k, msg }
	{ sub(/\r+$/, "") }	# the serial line discipline turns \n into \r\n
	/^### BEGIN / { script = $3; seen = 0; plan = -1; next }
	/^### END / {
		rc = $4; sub(/rc=/, "", rc)
		if (plan >= 0 && plan != seen) fail(script ": planned " plan " tests, ran " seen)
		else if (rc != 0 && !sfail[script]) fail(script ": exited " rc)
		else if (plan < 0 && seen == 0) fail(script ": reported no result")
		done[script] = 1; script = ""; next
	}
	/^### VM-DONE/ { vmdone = 1; next }
	/^### KMEMLEAK/ { script = ""; next }
	script != "" && /^(not )?ok [0-9]+/ {
		seen++; n++
		line = $0; isok = (line !~ /^not /)
		sub(/^(not )?ok [0-9]+/, "", line)
		sub(/^ *- */, "", line)
		if (isok) { good++; printf "ok %d - %s: %s: %s\n", n, k, script, line }
		else { bad++; sfail[script] = 1; printf "not ok %d - %s: %s: %s\n", n, k, script, line }
		next
	}
	script != "" && /^1\.\.[0-9]+/ { plan = substr($0, 4) + 0; next }
	/^not ok - / { fail(substr($0, 10)); next }
	script != "" && /^#/ { print; next }
	script != "" { print (raw ? "" : "# ") $0; next }
	END {
		if (script != "") fail(script ": did not finish (VM died or timed out)")
		if (!vmdone) fail("VM did not reach the end of its tests")
		printf "%d %d\n", good, bad > "/dev/stderr"
	}
' "$tap" 2> "$tap.counts"
read -r pass failn < "$tap.counts"
pass=${pass:-0} failn=${failn:-0}

if grep -Eq "$splat" "$console" "$tap"; then
	failn=$((failn + 1))
	echo "not ok $((pass + failn)) - $kernel: kernel log is clean"
	grep -Eh -B2 -A20 "$splat" "$console" "$tap" | head -n 60 | sed 's/^/#   /'
else
	pass=$((pass + 1))
	echo "ok $((pass + failn)) - $kernel: kernel log is clean"
fi

if [ "$failn" -ne 0 ]; then
	echo "# $kernel: console log kept in $console, test output in $tap"
fi
echo "$kernel: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
