#!/bin/bash
# Style gates for the module: checkpatch.pl (from Debian's linux-source-6.1, the tree
# the debug kernel build unpacks) clean on every kmod/ file, and kernel-version logic
# only in kmod/compat.h.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

cp_dir=$top/build/checkpatch
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	src=$("$top/tests/vm/debug-kernel.sh" --print-dir)/src
	mkdir -p "$cp_dir"
	if [ -x "$src/scripts/checkpatch.pl" ]; then
		cp -a "$src/scripts" "$cp_dir/"
	else
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cp_dir" --strip-components=1 \
			--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch'
	fi
fi

for f in "$top"/kmod/*.[ch] "$top"/kmod/Kbuild; do
	case "$f" in */Kbuild) continue ;; esac
	rel=${f#"$top"/}
	if out=$(cd "$cp_dir" && perl scripts/checkpatch.pl --no-tree -q --terse -f "$f" 2>&1); then
		ok "checkpatch clean: $rel"
	else
		not_ok "checkpatch clean: $rel"
		printf '%s\n' "$out" | sed "s|$top/||; s/^/#   /" | head -n 20
	fi
done

n=$(grep -l 'LINUX_VERSION_CODE\|KERNEL_VERSION(' "$top"/kmod/*.[ch] | grep -v '/compat\.h$' || true)
check_eq "version logic only in kmod/compat.h" "" "$n"
n=$(grep -l '^#define pr_fmt' "$top"/kmod/*.[ch] || true)
check_eq "pr_fmt only set in Kbuild" "" "$n"
tap_done
