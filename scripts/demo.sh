#!/bin/bash
# make demo: set up if needed, build, boot the 6.1 test VM and run the demo script in it:
# scan real SDT binaries, arm, fire, show hits, then a rewritten binary being refused.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then
	scripts/setup.sh | grep -v '^setup: everything already installed' || true
else
	echo "demo: not root: skipping setup (run scripts/setup.sh as root if packages are missing)"
fi
make -s user fixtures
VM_RAW=1 VM_TESTDIR=tests/vm/demo exec tests/vm/run.sh "${DEMO_KERNEL:-6.1}"
