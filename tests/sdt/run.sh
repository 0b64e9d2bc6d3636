#!/bin/bash
# SDT parity suite: perf 6.1 is the oracle. For real Debian binaries, every
# "p:sdt_*" line `perf probe -D` prints must appear, identical (event, path,
# offset, ref_ctr, argN=SPEC:TYPE), in what we produce:
#   - user/sdt.c directly (tests/sdt/sdtdump), always;
#   - the CLI (`scan` + `list --format=uprobe`), once scan/list are built.
# The record form must carry every arg of every note and be accepted by the
# module's own parser (kmod/record.c); args perf drops are counted.
#
# Environment: SDT_BINS="bin..." overrides the binary list (then no note counts
# are checked); PERF (default perf).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

PERF=${PERF:-perf}
tmp=$(mktemp -d /tmp/pc-sdt.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home	# perf's buildid cache goes here, not into the real ~/.debug
mkdir -p "$HOME"

# path:expected-note-count (the counts are what these Debian builds carry)
default_bins="/usr/lib/postgresql/15/bin/postgres:71
/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so:531
/usr/bin/python3.11:8
/usr/lib/x86_64-linux-gnu/libstdc++.so.6:3"
if [ -n "${SDT_BINS:-}" ]; then
	bins=$(printf '%s\n' $SDT_BINS)
else
	bins=$default_bins
fi

dump=$tmp/sdtdump
if ! gcc -O1 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-fsanitize=address,undefined -I"$top/include/uapi" -I"$top/kmod" -I"$top/user" \
	-o "$dump" "$top/tests/sdt/sdtdump.c" "$top/user/sdt.c" "$top/user/argspec.c" \
	"$top/user/sdtnote.c" "$top/user/util.c" "$top/kmod/record.c" -lelf 2> "$tmp/cc.log"; then
	not_ok "build sdtdump"
	sed 's/^/#   /' "$tmp/cc.log" | head -n 30
	tap_done
	exit 1
fi
ok "build sdtdump"

# The CLI takes part once its scan and list commands exist.
cli=$top/user/probecache-resolve
have_cli=
if [ -f "$top/user/scan.c" ] && [ -f "$top/user/list.c" ] &&
   make -s -C "$top/user" -j2 > "$tmp/make.log" 2>&1; then
	have_cli=1
fi

# perf_lines BIN BUILDID: perf -D lines for every SDT group of BIN, cached per build-id.
perf_lines() {
	local out=$tmp/perf/$2.txt g
	if [ ! -f "$out" ]; then
		mkdir -p "$tmp/perf"
		"$PERF" buildid-cache --add "$1" > /dev/null 2>&1
		: > "$out"
		for g in $(grep -o '^p:sdt_[A-Za-z0-9_]*' "$tmp/ours.uprobe" | sort -u | sed 's/^p://'); do
			"$PERF" probe --max-probes=4096 -x "$1" -D "$g:*" 2>> "$tmp/perf.err" |
				grep '^p:' >> "$out"
		done
	fi
	cat "$out"
}

# key FILE: "group offset(refctr) args" per line, event names dropped (record
# names carry per-location suffixes), lines sorted.
key() {
	awk '{ split($1, g, "[:/]"); loc = ""; args = ""
	       for (i = 2; i <= NF; i++) {
		       if ($i ~ /^arg[0-9]+=/) args = args " " $i
		       else if ($i ~ /:0x[0-9a-f]+/) { loc = $i; sub(/.*:/, "", loc) }
	       }
	       print g[2], loc args }' "$1" | sort
}

# nargs FILE: total argN= fields
nargs() {
	grep -o ' arg[0-9]*=' "$1" | wc -l
}

# parity NAME OURS PERF: every perf line is in OURS
parity() {
	local missing
	missing=$(comm -23 <(sort -u "$3") <(sort -u "$2"))
	if [ -z "$missing" ]; then
		ok "$1: all $(sort -u "$3" | wc -l) perf -D lines matched"
	else
		not_ok "$1: $(printf '%s\n' "$missing" | wc -l) perf -D lines have no identical line"
		printf '%s\n' "$missing" | head -n 10 | sed 's/^/#   perf: /'
	fi
}

check_binary() {
	local bin=$1 want=$2 real bid n rargs uargs spec_args
	real=$(readlink -f "$bin")
	if [ ! -r "$real" ]; then
		not_ok "$bin: not installed (scripts/setup.sh installs it)"
		return
	fi
	if ! "$dump" "$real" > "$tmp/ours.raw" 2> "$tmp/dump.err"; then
		not_ok "$bin: sdtdump failed"
		sed 's/^/#   /' "$tmp/dump.err" | head -n 20
		return
	fi
	bid=$(sed -n 's/^# build-id \([0-9a-f]*\) .*/\1/p' "$tmp/ours.raw")
	grep -v '^#' "$tmp/ours.raw" > "$tmp/ours.uprobe"
	n=$(wc -l < "$tmp/ours.uprobe")
	if [ -n "$want" ]; then
		check_eq "$bin: $want SDT notes read" "$want" "$n"
	fi
	check_eq "$bin: no warnings reading notes" "" "$(cat "$tmp/dump.err")"
	perf_lines "$real" "$bid" > "$tmp/perf.txt"
	if [ ! -s "$tmp/perf.txt" ]; then
		not_ok "$bin: perf probe -D printed nothing"
		sed 's/^/#   /' "$tmp/perf.err" | tail -n 5
		return
	fi
	parity "$bin (sdt.c)" "$tmp/ours.uprobe" "$tmp/perf.txt"

	# Record form: every arg of every note, accepted by kmod/record.c.
	if "$dump" -c "$real" > "$tmp/ours.rec" 2> "$tmp/rec.err"; then
		ok "$bin: every record line accepted by kmod/record.c"
	else
		not_ok "$bin: kmod/record.c refuses record lines"
		sed 's/^/#   /' "$tmp/rec.err" | head -n 10
	fi
	grep -v '^#' "$tmp/ours.rec" > "$tmp/ours.rec2"
	spec_args=$(readelf -n "$real" | sed -n 's/^ *Arguments: //p' | wc -w)
	rargs=$(nargs "$tmp/ours.rec2")
	uargs=$(nargs "$tmp/perf.txt")
	check_eq "$bin: record form has all $spec_args note args" "$spec_args" "$rargs"
	diag "$bin: perf lines $(wc -l < "$tmp/perf.txt"), perf args $uargs," \
	     "record args $rargs, args perf drops that we express $((rargs - uargs))"

	if [ -n "$have_cli" ]; then
		check_cli "$bin" "$real"
	else
		ok "$bin: CLI parity # SKIP user/scan.c and user/list.c not built yet"
	fi
}

check_cli() {
	local bin=$1 real=$2 cache=$tmp/cache
	rm -rf "$cache"
	if ! "$cli" --cache-dir "$cache" scan "$real" > "$tmp/scan.out" 2>&1; then
		not_ok "$bin: probecache-resolve scan"
		sed 's/^/#   /' "$tmp/scan.out" | head -n 10
		return
	fi
	"$cli" --cache-dir "$cache" list --format=uprobe > "$tmp/cli.uprobe" 2> "$tmp/cli.err"
	parity "$bin (CLI list --format=uprobe)" "$tmp/cli.uprobe" "$tmp/perf.txt"
	"$cli" --cache-dir "$cache" list --format=record > "$tmp/cli.rec" 2>> "$tmp/cli.err"
	check_eq "$bin: CLI list --format=record has every note and arg of sdt.c" \
		"$(key "$tmp/ours.rec2" | md5sum)" "$(key "$tmp/cli.rec" | md5sum)"
}

if ! command -v "$PERF" > /dev/null || ! command -v readelf > /dev/null; then
	not_ok "perf and readelf are installed (scripts/setup.sh: linux-perf, binutils)"
	tap_done
	exit 1
fi

while IFS=: read -r bin want; do
	[ -n "$bin" ] && check_binary "$bin" "$want"
done <<< "$bins"

tap_done
