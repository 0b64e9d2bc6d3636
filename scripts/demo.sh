#!/bin/bash
# make demo: set up if needed, boot the 6.1 test VM and run the demo script in it
# (tests/vm/demo/00-demo.sh): a real binary scanned, its probes in perf list, perf stat
# and perf record/script, the breakpoint only while perf listens, an ftrace filter, a
# rewrite refused and an upgrade reported stale. It builds only what it runs:
# tests/vm/run.sh builds the module, the CLI and the fixtures, none of the DKMS-built
# ones (no other kernel's, no chroot: the demo runs neither 60-load nor 61-dkms).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
if [ "$(id -u)" = 0 ]; then
	scripts/setup.sh | grep -v '^setup: everything already installed' || true
else
	echo "demo: not root: skipping setup (run scripts/setup.sh as root if packages are missing)"
fi
rc=0
VM_RAW=1 VM_TESTDIR=tests/vm/demo tests/vm/run.sh "${DEMO_KERNEL:-6.1}" || rc=$?
echo "demo: $((SECONDS - start)) s from ./scripts/demo.sh to here (build, boot, demo)"
exit "$rc"
