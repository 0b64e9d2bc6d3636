#!/bin/bash
# Style gates for the module: checkpatch.pl (from Debian's linux-source-6.1) clean on
# every kmod/ and common/ file (common/: the parsers the module shares with the CLI),
# and kernel-version logic only in kmod/compat.h. The layers of the tree and the
# include circles between its units (tests/style/layers.py, rule there).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

# Pinned to 6.1's checkpatch, not the debug kernel's (6.12) tree: a newer checkpatch
# adds checks (e.g. unused macro arguments, which compat.h needs) the gate never had.
cp_dir=$top/build/checkpatch-6.1
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	mkdir -p "$cp_dir"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cp_dir" --strip-components=1 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi

for f in "$top"/common/*.[ch] "$top"/kmod/*.[ch] "$top"/kmod/Kbuild; do
	# Kbuild is no C; *.mod.c is kbuild's own output of an in-tree `make module`.
	case "$f" in */Kbuild|*.mod.c) continue ;; esac
	rel=${f#"$top"/}
	if out=$(cd "$cp_dir" && perl scripts/checkpatch.pl --no-tree -q --terse -f "$f" 2>&1); then
		ok "checkpatch clean: $rel"
	else
		not_ok "checkpatch clean: $rel"
		printf '%s\n' "$out" | sed "s|$top/||; s/^/#   /" | head -n 20
	fi
done

n=$(grep -l 'LINUX_VERSION_CODE\|KERNEL_VERSION(' "$top"/common/*.[ch] "$top"/kmod/*.[ch] |
	grep -v '/kmod/compat\.h$' || true)
check_eq "version logic only in kmod/compat.h" "" "$n"
n=$(grep -l '^#define pr_fmt' "$top"/common/*.[ch] "$top"/kmod/*.[ch] || true)
check_eq "pr_fmt only set in Kbuild" "" "$n"

# The layers and include circles (rule and output: tests/style/layers.py; tests/harness
# plants a circle in a copy of the tree and expects it to fail).
layers=$(python3 "$top/tests/style/layers.py" "$top" 2>&1)
# none_found DESC PREFIX: ok if layers.py reported no line starting with PREFIX
none_found() {
	local found
	found=$(grep "^$2" <<< "$layers")
	if [ -z "$found" ]; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/#   /' <<< "$found" | head -n 40
	fi
}
none_found "layers: no library (user/lib) includes a command header (user/cmd)" "lib-includes-cmd: "
none_found "layers: no include circle between units of common/, kmod/ or user/" "circle: "
none_found "layers: every .c and .h of user/ is in user/cmd or user/lib" "no-layer: "
n_up=$(grep '^upward-count: ' <<< "$layers" | awk '{ print $2 }')
if [ -n "$n_up" ] && [ "$n_up" -le 3 ]; then
	ok "layers: $n_up includes from a lower layer to a higher one (at most 3)"
else
	not_ok "layers: at most 3 includes from a lower layer to a higher one"
	sed 's/^/#   /' <<< "$layers" | head -n 40
fi
tap_done
