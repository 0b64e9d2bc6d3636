#!/bin/bash
# Host suite for README.md, the user's front page: every command it shows runs in a test.
# Each command of its ```sh code blocks (tests/readme/commands.awk) must have a record in
# tests/readme/covered saying how: run here on the host (cache commands, no module), found
# in a test script that `make check` runs (what needs the module, perf, apt or systemd:
# the VM suites), or, for the commands that run the tests, checked without running them.
# A command without a record fails, and so does a record the README no longer needs.
# Also: the README stays under 200 lines; neither it nor the man page cites issue numbers
# or commit hashes; its code blocks are sh or text; the commands of its table are the
# CLI's and the man page's; the relative links of README.md and Documentation/testing.md
# lead to files and headings that exist.
# README_MD and README_COVERED name other files to check (tests/harness plants a command
# no test runs in a copy and expects this suite to fail).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
readme=${README_MD:-$top/README.md}
covered=${README_COVERED:-$top/tests/readme/covered}
man=$top/Documentation/probecache-resolve.1

if [ -z "${PC_BIN:-}" ]; then
	make -s -C "$top/user" > /dev/null || { echo "Bail out! cannot build user/"; exit 1; }
	PC_BIN=$top/user/probecache-resolve
fi
[ -r "$readme" ] || { echo "Bail out! no $readme"; exit 1; }
[ -r "$covered" ] || { echo "Bail out! no $covered"; exit 1; }
T=$(mktemp -d /tmp/pc-readme.XXXXXX)
trap 'rm -rf "$T"' EXIT

## ---- the records of tests/readme/covered
declare -A kinds=() ins=() used=()
order=()
cmd=
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	case $line in
	'' | '#'*) ;;
	'$ '*)
		cmd=${line#'$ '}
		[ -z "${kinds[$cmd]+x}" ] || not_ok "covered:$n: a second record of '$cmd'"
		kinds[$cmd]=
		ins[$cmd]=
		order+=("$cmd") ;;
	host | entry)
		[ -n "$cmd" ] || { not_ok "covered:$n: '$line' before any '\$ COMMAND'"; continue; }
		kinds[$cmd]+=" $line" ;;
	'in '*': '*)
		[ -n "$cmd" ] || { not_ok "covered:$n: '$line' before any '\$ COMMAND'"; continue; }
		kinds[$cmd]+=" in"
		ins[$cmd]+="${line#in }"$'\n' ;;
	*)
		not_ok "covered:$n: not a record line: $line" ;;
	esac
done < "$covered"
for c in "${order[@]}"; do
	[ -n "${kinds[$c]}" ] || not_ok "covered: '$c' has a record but no 'host', 'in' or 'entry' line"
done

# runs_in_check FILE: FILE (from the top) is a test script that make check runs: a host
# suite's run.sh or a script of its folder, an in-VM script, the sysboot VM's halves.
runs_in_check() {
	[ -f "$top/$1" ] || return 1
	case $1 in
	tests/readme/*) return 1 ;;
	tests/vm/t/*.sh | tests/vm/sysboot.sh | tests/vm/sysboot/*.sh) return 0 ;;
	tests/vm/*) return 1 ;;
	tests/*/*) local d=${1%/*}; [ "${d%/*}" = tests ] && [ -x "$top/$d/run.sh" ] ;;
	*) return 1 ;;
	esac
}

# check_in CMD: every "in FILE: ERE" line of CMD's record matches a line of FILE that
# is not a comment
check_in() {
	local spec file ere bad=
	while IFS= read -r spec; do
		[ -n "$spec" ] || continue
		file=${spec%%: *}
		ere=${spec#*: }
		if ! runs_in_check "$file"; then
			bad+="$file is not a test script make check runs; "
		elif ! grep -v '^[[:space:]]*#' "$top/$file" > "$T/code" ||
			! grep -Eq -- "$ere" "$T/code"; then
			bad+="no line of $file matches /$ere/; "
		fi
	done <<< "${ins[$1]}"
	if [ -z "$bad" ]; then
		ok "README: $1: in $(sed -n 's/: .*//p' <<< "${ins[$1]}" | paste -sd' ')"
	else
		not_ok "README: $1: ${bad%; }"
	fi
}

# The host's sandbox: a private cache, configuration and working directory, no module
# (PROBECACHE_SYSFS names nothing), no network for debuginfod.
mkdir -p "$T/bin" "$T/work" "$T/etc/preload.d" "$T/run" "$T/proc" "$T/tracefs"
ln -s "$PC_BIN" "$T/bin/probecache-resolve"
check_host() {
	local out rc
	# shellcheck disable=SC2086
	set -- "$1" $1
	case "$2 ${3:-}" in
	"probecache-resolve "scan | "probecache-resolve "list | "probecache-resolve "show | \
	"probecache-resolve "add | "probecache-resolve "export | "probecache-resolve "import | \
	"probecache-resolve "del | "probecache-resolve "clear | "probecache-resolve "gc | \
	"probecache-resolve "sites | "probecache-resolve "status | "probecache-resolve "help) ;;
	*) not_ok "README: $1: 'host' runs only probecache-resolve's cache and read-only commands"; return ;;
	esac
	out=$(cd "$T/work" && env -u DEBUGINFOD_URLS PATH="$T/bin:$PATH" PROBECACHE_DIR="$T/cache" \
		PROBECACHE_SYSFS="$T/nosysfs" PROBECACHE_PROC="$T/proc" PROBECACHE_TRACEFS="$T/tracefs" \
		PROBECACHE_ETC="$T/etc" PROBECACHE_RUN="$T/run" bash -c "$1" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "README: $1: runs on the host"
	else
		not_ok "README: $1: runs on the host (exit $rc)"
		printf '%s\n' "$out" | sed 's/^/#   /' | head -n 20
	fi
}

# check_entry CMD: a command that runs tests, checked without running it
kernels=$(sed -n 's/^name=.*usage: kernel\.sh \([^}]*\)}.*/\1/p' "$top/tests/vm/kernel.sh" | tr '|' ' ')
check_entry() {
	local bad='' s k c=$1
	# shellcheck disable=SC2086
	set -- $1
	case $1 in
	make)
		shift
		make -n -C "$top" "$@" > "$T/make.out" 2>&1 || bad="make -n $* fails: $(tail -n 1 "$T/make.out")" ;;
	./* | scripts/* | tests/*)
		local f=${1#./}
		if [ ! -x "$top/$f" ]; then
			bad="$f is not an executable file"
		elif ! bash -n "$top/$f" 2> "$T/sh.err"; then
			bad="bash -n $f: $(head -n 1 "$T/sh.err")"
		elif [ "$f" = tests/run-all.sh ]; then
			shift
			for s in "$@"; do
				case $s in
				unit | fuzz | kasan | vm:sysboot) ;;
				host:*) [ "$s" != host:vm ] && [ -x "$top/tests/${s#host:}/run.sh" ] || bad+="no suite $s; " ;;
				vm:*) k=${s#vm:}; k=${k%%:*}
					[[ " $kernels " == *" $k "* ]] || bad+="no kernel ${k} in tests/vm/kernel.sh; " ;;
				*) bad+="no suite $s; " ;;
				esac
			done
		fi ;;
	*) bad="no way to check an entry that is neither make nor a script of the tree" ;;
	esac
	if [ -z "$bad" ]; then
		ok "README: $c: runs the tests (checked, not run)"
	else
		not_ok "README: $c: ${bad%; }"
	fi
}

## ---- every command of the README's sh blocks
awk -f "$top/tests/readme/commands.awk" "$readme" > "$T/commands"
check "the README shows commands ($(wc -l < "$T/commands"))" test -s "$T/commands"
declare -A shown=()
while IFS=$'\t' read -r lno c; do
	[ -z "${shown[$c]+x}" ] || continue	# the same command again: checked once
	shown[$c]=1
	if [ -z "${kinds[$c]+x}" ]; then
		not_ok "README:$lno: '$c' is run by no test (give it a record in tests/readme/covered)"
		continue
	fi
	used[$c]=1
	case " ${kinds[$c]} " in *" host "*) check_host "$c" ;; esac
	case " ${kinds[$c]} " in *" in "*) check_in "$c" ;; esac
	case " ${kinds[$c]} " in *" entry "*) check_entry "$c" ;; esac
done < "$T/commands"
for c in "${order[@]}"; do
	[ -n "${used[$c]+x}" ] || not_ok "tests/readme/covered: '$c' is no longer in the README (drop its record)"
done

## ---- the README's shape
lines=$(wc -l < "$readme")
if [ "$lines" -lt 200 ]; then ok "README.md is under 200 lines ($lines)"; else not_ok "README.md is under 200 lines ($lines)"; fi
fences=$(awk '/^[ \t]*```/ { if (!f) { l = $0; sub(/^[ \t]*```/, "", l); if (l != "sh" && l != "text") print NR ": ```" l; f = 1 } else f = 0 }' "$readme")
check_eq "its code blocks are \`\`\`sh (commands) or \`\`\`text" "" "$fences"

# No issue numbers or commit hashes in the user's documents: "issue N", "#N", and any
# hexadecimal word that names a commit of this repository (build-ids in examples do not).
refs() {
	local f=$1 w
	grep -noiE '\bissues? #?[0-9]+|(^|[[:space:](])#[0-9]+\b' "$f" | sed "s|^|${f#"$top"/}:|"
	if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
		for w in $(grep -oE '\b[0-9a-f]{7,40}\b' "$f" | sort -u); do
			[[ $w == *[a-f]* && $w == *[0-9]* ]] || continue
			git -C "$top" cat-file -e "$w^{commit}" 2> /dev/null && echo "${f#"$top"/}: commit $w"
		done
	fi
}
check_eq "README.md cites no issue number or commit hash" "" "$(refs "$readme")"
check_eq "the man page cites no issue number or commit hash" "" "$(refs "$man")"

# The table of everyday commands: each command the CLI's help and the man page know.
verbs=$(awk '/^## Everyday commands/ { t = 1; next } /^## / { t = 0 }
	t && /^\| `/ { split($0, c, "|"); n = split(c[2], w, "`"); for (i = 2; i <= n; i += 2) print w[i] }' "$readme")
check "the README's table of everyday commands has rows ($(echo $verbs | wc -w))" test -n "$verbs"
helpverbs=$("$PC_BIN" help | awk '/^commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } c && /^$/ { c = 0 }')
missing=
for v in $verbs; do
	grep -qx "$v" <<< "$helpverbs" || missing+=" $v (not in probecache-resolve help)"
	grep -q "^\.SS \"$v\( \|\"\)" "$man" || missing+=" $v (no man page section)"
done
check_eq "  each is a command of probecache-resolve help and of the man page" "" "$missing"

# Relative links: [text](path) and [text](path#heading) of README.md and testing.md.
# slug TEXT: a heading's anchor, as GitHub makes it
slug() { tr 'A-Z' 'a-z' <<< "$1" | sed 's/[^a-z0-9 _-]//g; s/ /-/g'; }
# links FILE DIR: FILE's relative links that lead nowhere from DIR (FILE's folder in the tree)
links() {
	local f=$1 dir=$2 t path anchor heads bad=
	for t in $(grep -oE '\]\([^)[:space:]]+\)' "$f" | sed 's/^](//; s/)$//'); do
		case $t in http://* | https://* | mailto:*) continue ;; esac
		path=${t%%#*}
		anchor=
		[ "$path" = "$t" ] || anchor=${t#*#}
		[ -n "$path" ] || { path=$(basename "$f"); dir=$(dirname "$f"); }
		if [ ! -e "$dir/$path" ]; then
			bad+=" $t (no file)"
		elif [ -n "$anchor" ]; then
			heads=$(grep '^#' "$dir/$path" | sed 's/^#* *//' | while IFS= read -r h; do slug "$h"; done)
			grep -qx -- "$anchor" <<< "$heads" || bad+=" $t (no such heading)"
		fi
	done
	echo "${bad# }"
}
check_eq "README.md's relative links lead somewhere" "" "$(links "$readme" "$top")"
check_eq "Documentation/testing.md's relative links lead somewhere" "" \
	"$(links "$top/Documentation/testing.md" "$top/Documentation")"

tap_done
