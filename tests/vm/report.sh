#!/bin/bash
# report.sh KERNEL TAP_LOG CONSOLE_LOG: turn the VM's per-script TAP into one TAP
# stream (with each script's wall time and the VM's speed factor as comments), check
# the kernel log for splats and for being complete, print the plan and
# "KERNEL: N passed, N failed, N skipped".
set -uo pipefail
kernel=$1 tap=$2 console=$3

# Kernel reports that fail a run even when every test said ok.
. "$(dirname "$0")/splat.sh"
splat=$PC_SPLAT

touch "$tap" "$console"
awk -v k="$kernel" -v raw="${VM_RAW:-}" '
	function fail(msg) { n++; bad++; printf "not ok %d - %s: %s\n", n, k, msg }
	function secs(cs) { return sprintf("%d.%d", cs / 100, (cs % 100) / 10) }
	function field(name,   i) {	# value of NAME=VALUE on the current line
		for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
		return ""
	}
	{ sub(/\r+$/, "") }	# the serial line discipline turns \n into \r\n
	/^### VM-START/ { vmstart = 1; next }
	/^### CALIBRATE / {
		printf "# %s: speed factor %s (calibration %s s, reference %s s), in-VM budget %d s\n",
			k, field("factor"), secs(field("cs")), secs(field("ref")), field("total")
		next
	}
	/^### BEGIN / { script = $3; seen = 0; plan = -1; next }
	/^### END / {
		rc = field("rc"); limit = field("limit")
		printf "# %s: %s s (limit %s s)\n", script, secs(field("cs")), limit
		if ((rc == 143 || rc == 124) && limit != "") fail(script ": killed at its " limit " s limit")
		else if (plan >= 0 && plan != seen) fail(script ": planned " plan " tests, ran " seen)
		else if (rc != 0 && !sfail[script]) fail(script ": exited " rc)
		else if (plan < 0 && seen == 0) fail(script ": reported no result")
		else if (plan < 0) fail(script ": no plan line (1..N)")
		script = ""; next
	}
	/^### VM-DONE/ { vmdone = 1; next }
	/^### KMEMLEAK/ { script = ""; printf "# kmemleak scan: %s s\n", secs(field("cs")); next }
	script != "" && /^(not )?ok [0-9]+/ {
		seen++; n++
		line = $0; isok = (line !~ /^not /)
		sub(/^(not )?ok [0-9]+/, "", line)
		sub(/^ *- */, "", line)
		if (!isok) { bad++; sfail[script] = 1; printf "not ok %d - %s: %s: %s\n", n, k, script, line }
		else {
			if (tolower(line) ~ /^[^#]*# *skip/) skipped++; else good++
			printf "ok %d - %s: %s: %s\n", n, k, script, line
		}
		next
	}
	script != "" && /^1\.\.[0-9]+/ { plan = substr($0, 4) + 0; next }
	/^not ok - / { fail(substr($0, 10)); next }
	script != "" && /^#/ { print; next }
	script != "" { print (raw ? "" : "# ") $0; next }
	END {
		if (script != "") fail(script ": did not finish (VM died or timed out)")
		if (!vmstart) fail("test log has no VM-START: /init never ran or the log is lost")
		if (!vmdone) fail("VM did not reach the end of its tests")
		printf "%d %d %d %d\n", good, bad, skipped, n > "/dev/stderr"
	}
' "$tap" 2> "$tap.counts"
read -r pass failn skipn n < "$tap.counts"
pass=${pass:-0} failn=${failn:-0} skipn=${skipn:-0} n=${n:-0}

# result OK DESC: one more numbered result after the scripts' ones
result() {
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		pass=$((pass + 1))
		echo "ok $n - $kernel: $2"
	else
		failn=$((failn + 1))
		echo "not ok $n - $kernel: $2"
	fi
}

# The console must show the whole run: /init writes both marks to /dev/kmsg, so a log
# cut short (QEMU killed, serial file lost) cannot pass as a clean one.
if [ ! -s "$console" ]; then
	result 0 "console log is complete (it is empty)"
elif ! grep -q 'probecache-vm: VM-START' "$console" || ! grep -q 'probecache-vm: VM-DONE' "$console"; then
	result 0 "console log is complete (VM-START or VM-DONE missing)"
	tail -n 5 "$console" | sed 's/^/#   /'
else
	result 1 "console log is complete"
fi

if grep -Eq "$splat" "$console" "$tap"; then
	result 0 "kernel log is clean"
	# Every report's first line, then the first report: a second report (the one
	# a test provoked, after an unrelated one at boot) is named even when the
	# excerpt is all the first one's.
	grep -Eh "$splat" "$console" "$tap" | head -n 10 | sed 's/^/#   report: /'
	grep -Eh -B2 -A20 "$splat" "$console" "$tap" | head -n 60 | sed 's/^/#   /'
else
	result 1 "kernel log is clean"
fi

if [ "$failn" -ne 0 ]; then
	echo "# $kernel: console log kept in $console, test output in $tap"
fi
echo "1..$n"
echo "$kernel: $pass passed, $failn failed, $skipn skipped"
[ "$failn" -eq 0 ]
