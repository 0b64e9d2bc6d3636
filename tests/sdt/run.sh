#!/bin/bash
# SDT parity suite: perf 6.1 is the oracle. For real Debian binaries, perf is asked
# about every provider the file's notes name (readelf -n), and the "p:sdt_*" lines
# `perf probe -D` prints must equal, both ways (event, path, offset, ref_ctr,
# argN=SPEC:TYPE; no line missing, none extra or different), what we produce:
#   - user/lib/sdt.c directly (tests/sdt/sdtdump), always;
#   - the CLI (`scan` + `list --format=uprobe`), once scan/list are built.
# The record form must carry every arg of every note, equal what this test translates
# from `readelf -n` itself (tests/sdt/oracle.awk), and be accepted by the module's own
# parser (common/record.c). Every arg perf drops is named, one test line each, with the
# operand and what we fetch instead (tests/sdt/drops.awk), and counted per binary.
# The provider files (sdt/*.args) are checked against every note of these binaries: each
# entry applies to every site of its probe, no warning; a file that disagrees with a note
# leaves that note its arg1..argN and says why.
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

# path:expected-note-count:args-perf-drops (what these Debian builds carry)
default_bins="/usr/lib/postgresql/15/bin/postgres:71:26
/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so:531:25
/usr/bin/python3.11:8:0
/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0:8:0
/usr/lib/x86_64-linux-gnu/libstdc++.so.6:3:0
/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1:40:3
/usr/bin/php8.2:14:1
/usr/lib/x86_64-linux-gnu/libvirt.so.0:41:0"
if [ -n "${SDT_BINS:-}" ]; then
	bins=$(printf '%s\n' $SDT_BINS)
else
	bins=$default_bins
fi

dump=$tmp/sdtdump
if ! gcc -O1 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-fsanitize=address,undefined -fno-sanitize-recover=all -I"$top/include/uapi" -I"$top/common" -I"$top/user/lib" \
	-o "$dump" "$top/tests/sdt/sdtdump.c" "$top/user/lib/sdt.c" "$top/user/lib/argspec.c" \
	"$top/user/lib/sdtnote.c" "$top/user/lib/util.c" "$top/user/lib/file.c" "$top/common/record.c" -lelf 2> "$tmp/cc.log"; then
	not_ok "build sdtdump"
	sed 's/^/#   /' "$tmp/cc.log" | head -n 30
	tap_done
	exit 1
fi
ok "build sdtdump"

cli=$top/user/probecache-resolve
# The parity checks compare the note's own arg1..argN: no provider files (names()).
export PROBECACHE_SDT_DIR=$tmp/no-sdt-dir
if make -s -C "$top/user" -j2 > "$tmp/make.log" 2>&1; then
	ok "build probecache-resolve"
else
	not_ok "build probecache-resolve"
	sed 's/^/#   /' "$tmp/make.log" | head -n 30
	tap_done
	exit 1
fi

# perf_lines BIN BUILDID: perf -D lines for every SDT provider in BIN's notes (as
# readelf reads them, not as we do: a provider we miss must still be asked about),
# cached per build-id.
perf_lines() {
	local out=$tmp/perf/$2.txt g
	if [ ! -f "$out" ]; then
		mkdir -p "$tmp/perf"
		"$PERF" buildid-cache --add "$1" > /dev/null 2>&1
		: > "$out"
		for g in $(readelf -n "$1" | sed -n 's/^ *Provider: */sdt_/p' | sort -u); do
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

# parity NAME OURS PERF: every perf line is in OURS and every line of OURS in PERF
parity() {
	local missing extra
	missing=$(comm -23 <(sort -u "$3") <(sort -u "$2"))
	extra=$(comm -13 <(sort -u "$3") <(sort -u "$2"))
	if [ -z "$missing" ]; then
		ok "$1: all $(sort -u "$3" | wc -l) perf -D lines matched"
	else
		not_ok "$1: $(printf '%s\n' "$missing" | wc -l) perf -D lines have no identical line"
		printf '%s\n' "$missing" | head -n 10 | sed 's/^/#   perf: /'
	fi
	if [ -z "$extra" ]; then
		ok "$1: no line perf does not print"
	else
		not_ok "$1: $(printf '%s\n' "$extra" | wc -l) lines perf does not print (extra or different)"
		printf '%s\n' "$extra" | head -n 10 | sed 's/^/#   ours: /'
	fi
}

# record_oracle BIN: tests/sdt/oracle.awk's translation of BIN's notes
record_oracle() {
	{
		readelf -lW "$1" | awk '$1 == "LOAD" { print "LOAD", $2, $3, $6 }'
		readelf -sW "$1" | awk 'NF >= 8 && $4 != "FILE" && $4 != "SECTION" {
			n = $8; sub(/@.*/, "", n); print "SYM", n, $2 }'
		readelf -n "$1"
	} | awk -f "$top/tests/sdt/oracle.awk"
}

# rec_key FILE: record lines as "GROUP/EVENT 0xFILEOFF args" (path and ref_ctr dropped)
rec_key() {
	awk '{ split($2, p, ":"); off = p[2]; sub(/\(.*/, "", off)
	       l = substr($1, 3) " " off; for (i = 3; i <= NF; i++) l = l " " $i; print l }' "$1"
}

# drops BIN: one test line per arg perf drops and we fetch, their count against @want
drops() {
	local bin=$1 real=$2 want=$3 n bad
	"$dump" -s "$real" | grep -v '^#' > "$tmp/ours.spec"
	awk -f "$top/tests/sdt/drops.awk" "$tmp/perf.txt" "$tmp/ours.rec2" "$tmp/ours.spec" \
		> "$tmp/drops"
	while read -r ev k spec fetch; do
		ok "$bin: $ev $k '$spec': perf drops it, we fetch $fetch"
	done < "$tmp/drops"
	n=$(wc -l < "$tmp/drops")
	[ -n "$want" ] && check_eq "$bin: $want args perf drops, all fetched" "$want" "$n"
	# perf's parser skips constants and symbol operands; anything else would be a perf
	# parity failure above.
	bad=$(awk '$3 !~ /\$|\(%rip\)$/' "$tmp/drops")
	check_eq "$bin: every arg perf drops is a constant or a symbol operand" "" "$bad"
}

check_binary() {
	local bin=$1 want=$2 wdrops=$3 real bid n rargs uargs spec_args
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
	perf_lines "$real" "$bid" > "$tmp/perf.raw"
	unsuffix "$tmp/ours.uprobe" "$tmp/perf.raw" > "$tmp/perf.txt"
	[ "$(cat "$tmp/unsuffixed")" = 0 ] ||
		diag "$bin: perf -D named $(cat "$tmp/unsuffixed") further locations EVENT_n" \
		     "(this kernel's uprobe_events cannot append to an event)"
	if [ ! -s "$tmp/perf.txt" ]; then
		not_ok "$bin: perf probe -D printed nothing"
		sed 's/^/#   /' "$tmp/perf.err" | tail -n 5
		return
	fi
	parity "$bin (sdt.c)" "$tmp/ours.uprobe" "$tmp/perf.txt"

	# Record form: every arg of every note, accepted by common/record.c.
	if "$dump" -c "$real" > "$tmp/ours.rec" 2> "$tmp/rec.err"; then
		ok "$bin: every record line accepted by common/record.c"
	else
		not_ok "$bin: common/record.c refuses record lines"
		sed 's/^/#   /' "$tmp/rec.err" | head -n 10
	fi
	grep -v '^#' "$tmp/ours.rec" > "$tmp/ours.rec2"
	record_oracle "$real" | sort > "$tmp/oracle.rec"
	rec_key "$tmp/ours.rec2" | sort > "$tmp/ours.key"
	if diff "$tmp/oracle.rec" "$tmp/ours.key" > "$tmp/oracle.diff"; then
		ok "$bin: record form of all $(wc -l < "$tmp/oracle.rec") notes equals readelf -n's operands translated here"
	else
		not_ok "$bin: record form differs from readelf -n's operands translated here"
		sed 's/^/#   /' "$tmp/oracle.diff" | head -n 10
	fi
	spec_args=$(readelf -n "$real" | sed -n 's/^ *Arguments: //p' | wc -w)
	rargs=$(nargs "$tmp/ours.rec2")
	uargs=$(nargs "$tmp/perf.txt")
	check_eq "$bin: record form has all $spec_args note args" "$spec_args" "$rargs"
	diag "$bin: perf lines $(wc -l < "$tmp/perf.txt"), perf args $uargs," \
	     "record args $rargs, args perf drops that we express $((rargs - uargs))"
	drops "$bin" "$real" "$wdrops"

	check_cli "$bin" "$real"
	names "$bin" "$real"
}

# unsuffix NAMES FILE: one provider:name with several locations is printed
# as EVENT for every location by perf -D on kernels whose uprobe_events can
# append to an event (tracefs README "Create/append", Linux >= 5.5), else as
# EVENT, EVENT_1, ...; the CLI names the n-th further location EVENT_n (one
# GROUP:EVENT per probe, as the cache and the module need). Map EVENT_n back
# to EVENT wherever NAMES (sdtdump's lines: the notes' own names) has EVENT
# and not EVENT_n; the count goes to $tmp/unsuffixed.
unsuffix() {
	awk -v cnt="$tmp/unsuffixed" '
		NR == FNR { split($1, a, "/"); known[a[1] "/" a[2]] = 1; next }
		{
			split($1, a, "/"); base = a[2]
			if (!(($1) in known) && sub(/_[0-9]+$/, "", base) &&
			    ((a[1] "/" base) in known)) {
				$1 = a[1] "/" base; n++
			}
			print
		}
		END { print n + 0 > cnt }' "$1" "$2"
}

# names BIN REAL: scanned with the provider files, every note of a probe they name has
# their names, the others arg1..argN, and nothing is warned about.
names() {
	local bin=$1 real=$2 cache=$tmp/ncache
	rm -rf "$cache"
	PROBECACHE_SDT_DIR=$top/sdt "$cli" --cache-dir "$cache" scan --no-define "$real" \
		> /dev/null 2> "$tmp/nscan.err"
	check_eq "$bin: scan with sdt/*.args: no warning" "" "$(cat "$tmp/nscan.err")"
	"$cli" --cache-dir "$cache" list --format=record > "$tmp/nrec" 2>> "$tmp/nscan.err"
	awk -f "$top/tests/sdt/names.awk" "$top"/sdt/*.args "$tmp/nrec" > "$tmp/names"
	check_eq "$bin: each probe an sdt/*.args entry names has its names, the others argN" \
		"" "$(grep '^wrong' "$tmp/names" | head -n 5)"
	diag "$bin: $(sed -n 's/^named //p' "$tmp/names") probes named by sdt/*.args," \
	     "$(sed -n 's/^unnamed //p' "$tmp/names") with arg1..argN"
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

while IFS=: read -r bin want wdrops; do
	[ -n "$bin" ] && check_binary "$bin" "$want" "$wdrops"
done <<< "$bins"

# A provider file that disagrees with the notes (as an older file would with a newer
# program): the notes it disagrees with keep arg1..argN, each warned about with the
# file's line and why; its other entries still apply.
check_mismatch() {
	local py=/usr/bin/python3.11 d=$tmp/sdt-mismatch cache=$tmp/mcache
	[ -r "$py" ] || { not_ok "python3.11 is installed (scripts/setup.sh)"; return; }
	mkdir -p "$d"
	sed -e 's/lineno=arg3:s32/lineno=arg3:s64/' -e 's/^probe gc__start .*/& extra=arg2:s32/' \
		"$top/sdt/python.args" > "$d/python.args"
	rm -rf "$cache"
	PROBECACHE_SDT_DIR=$d "$cli" --cache-dir "$cache" scan --no-define "$py" > /dev/null \
		2> "$tmp/m.err"
	check_eq "python.args with lineno s64 and a 2nd gc__start arg: 4 notes warned about" 4 \
		"$(grep -c 'python.args line [0-9]* disagrees with the note' "$tmp/m.err")"
	check "  lineno: 'arg3 is 4 bytes in the note (%ax:s32), s64 reads 8'" \
		grep -q "function__entry at 0x[0-9a-f]*: .*lineno: arg3 is 4 bytes in the note (%ax:s32), s64 reads 8: arg1..arg3 kept" "$tmp/m.err"
	check "  gc__start: 'extra: arg2, but the note has 1 args'" \
		grep -q "gc__start .*extra: arg2, but the note has 1 args" "$tmp/m.err"
	"$cli" --cache-dir "$cache" list --format=record 'sdt_python:*' > "$tmp/m.rec"
	check "  those keep arg1..argN: function__entry arg1=%bp:u64 arg2=%r12:u64 arg3=%ax:s32" \
		grep -q "function__entry .* arg1=%bp:u64 arg2=%r12:u64 arg3=%ax:s32$" "$tmp/m.rec"
	check "  the others are named: import__find__load__done modulename= found=" \
		grep -q "import__find__load__done .* modulename=+0(%ax):string found=%dx:s32$" "$tmp/m.rec"
	sed 's/^provider python/provider ruby/' "$top/sdt/python.args" > "$d/python.args"
	PROBECACHE_SDT_DIR=$d "$cli" --cache-dir "$cache" scan --no-define "$py" > /dev/null \
		2> "$tmp/m.err"
	check "a python.args that says 'provider ruby' is not used, and said so" \
		grep -q "python.args: is for provider ruby: its names are not used" "$tmp/m.err"
}
check_mismatch

# make check-sdt-data: sdt/*.args against the -dev packages' headers; a copy of php.args
# with a renamed and a retyped argument must fail it.
check_data() {
	local d=$tmp/sdt-data
	if "$top/tests/sdt/check-data.py" > "$tmp/cd.out" 2>&1; then
		ok "check-data.py: sdt/*.args agree with the -dev headers ($(grep -c '^ok' "$tmp/cd.out") checks)"
	else
		not_ok "check-data.py: sdt/*.args agree with the -dev headers"
		grep -v '^ok' "$tmp/cd.out" | sed 's/^/#   /' | head -n 20
	fi
	if ! grep -q '^ok .*php: .*zend_dtrace_gen.h' "$tmp/cd.out"; then
		not_ok "php8.2-dev is installed (scripts/setup.sh)"
		return
	fi
	mkdir -p "$d"
	cp "$top"/sdt/*.args "$d/"
	sed -i -e 's/errormsg=arg1:string/message=arg1:string/' \
		-e 's/^\(probe execute__entry\) request_file=arg1:string/\1 request_file=arg1:x64/' \
		"$d/php.args"
	"$top/tests/sdt/check-data.py" "$d" > "$tmp/cd.out" 2>&1
	check "  a renamed php argument is caught" \
		grep -q "^not ok .*php:error: .*arg1 is 'errormsg' there, 'message' here" "$tmp/cd.out"
	check "  a char * read as x64 is caught" \
		grep -q "^not ok .*php:execute__entry: .*arg1 is string 'char\*' there, x64 here" "$tmp/cd.out"
}
check_data

# ---- Fixtures: tests/fixtures/sdt_args.c in every variant (sdt_args.mk) ----
fix=$top/tests/fixtures/build
variants="sdt_args sdt_args_O0 sdt_args_clang sdt_args_nopie sdt_args_i386 sdt_args_aarch64"
if ! make -s -C "$top/tests/fixtures" $(printf 'build/%s ' $variants) > "$tmp/fix.log" 2>&1; then
	not_ok "build sdt_args fixtures"
	sed 's/^/#   /' "$tmp/fix.log" | head -n 20
	tap_done
	exit 1
fi
ok "build sdt_args fixtures ($variants)"

# fileoff BIN SYM ADD: file offset of SYM+ADD through BIN's PT_LOADs (memsz counts), as 0x...
fileoff() {
	local v t off va fsz msz rest
	v=$(readelf -sW "$1" | awk -v s="$2" '$8 == s && $4 != "FILE" { print $2; exit }')
	v=$((16#$v + $3))
	while read -r t off va rest; do
		read -r _ fsz msz _ <<< "$rest"
		if [ "$t" = LOAD ] && [ "$v" -ge $((va)) ] && [ "$v" -lt $((va + msz)) ]; then
			printf '0x%x\n' $((off + v - va))
			return
		fi
	done < <(readelf -lW "$1")
}

# Record args of the hand-written probes: the note text is fixed, so the
# translation is too (only @+FILEOFF depends on the link).
expect_x86_64() {
	cat <<EOT
regs64 arg1=%ax:u64 arg2=%bx:u64 arg3=%cx:u64 arg4=%dx:u64 arg5=%si:u64 arg6=%di:u64 arg7=%bp:u64 arg8=%sp:u64 arg9=%r8:u64 arg10=%r9:u64 arg11=%r10:u64 arg12=%r11:u64 arg13=%r12:u64 arg14=%r13:u64 arg15=%r14:u64 arg16=%r15:u64
regs32 arg1=%ax:s32 arg2=%bx:s32 arg3=%cx:s32 arg4=%dx:s32 arg5=%si:s32 arg6=%di:s32 arg7=%bp:s32 arg8=%sp:s32 arg9=%r8:s32 arg10=%r9:s32 arg11=%r10:s32 arg12=%r11:s32 arg13=%r12:s32 arg14=%r13:s32 arg15=%r14:s32 arg16=%r15:s32
regs16 arg1=%ax:u16 arg2=%bx:u16 arg3=%cx:u16 arg4=%dx:u16 arg5=%si:u16 arg6=%di:u16 arg7=%bp:u16 arg8=%sp:u16 arg9=%r8:s16 arg10=%r9:s16 arg11=%r10:s16 arg12=%r11:s16 arg13=%r12:s16 arg14=%r13:s16 arg15=%r14:s16 arg16=%r15:s16
regs8 arg1=%ax:u8 arg2=%bx:u8 arg3=%cx:u8 arg4=%dx:u8 arg5=%si:u8 arg6=%di:u8 arg7=%bp:u8 arg8=%sp:u8 arg9=%r8:s8 arg10=%r9:s8 arg11=%r10:s8 arg12=%r11:s8 arg13=%r12:s8 arg14=%r13:s8 arg15=%r14:s8 arg16=%r15:s8
hi8 arg5=%di:u64
mem arg1=+0(%ax):u64 arg2=-16(%bp):s32 arg3=+16(%di):u32 arg4=+24(%sp):s64 arg5=-8(%r15):u16 arg6=+127(%r8):u8
sib arg1=+24(%sp,%cx,8):u64 arg2=+0(%bx,%si,1):s64 arg3=-4(%ax,%dx,2):u32 arg4=+0(,%dx,1):s32 arg5=-8(,%r9,2):u64 arg6=+0(%r12,%r13,4):u16
rip arg1=@+$(fileoff "$1" fx_counter 0):s32 arg2=@+$(fileoff "$1" fx_arr 16):u64 arg3=@+$(fileoff "$1" fx_arr 8):u64 arg4=@+$(fileoff "$1" fx_bss 40):u64 arg5=+16(%ip):u32 arg6=-8(%ip):s32
imm arg1=\-1:s32 arg2=\9223372036854775807:u64 arg3=\42:u32 arg4=\-9223372036854775808:s64 arg5=\255:u8 arg6=\16:u16
sizeless arg1=%di:u64 arg2=%si:u32 arg3=%r9:u16 arg4=%ax:u8 arg5=\5:u64 arg6=+0(%ax):u64 arg7=+8(%sp):u64
bad
nobase4 arg1=+0(,%dx,4):u32 arg2=+16(,%ax,8):u64
EOT
}

expect_i386() {
	local a
	a=$(readelf -sW "$1" | awk '$8 == "fx_arr" { print $2; exit }')
	cat <<EOT
regs32 arg1=%ax:s32 arg2=%bx:s32 arg3=%cx:s32 arg4=%dx:s32 arg5=%si:s32 arg6=%di:s32 arg7=%bp:s32 arg8=%sp:s32 arg9=%si:u16 arg10=%di:u16
regs8 arg1=%ax:u8 arg2=%bx:u8 arg3=%cx:u8 arg4=%dx:u8
mem arg1=+8(%sp):u32 arg2=-12(%bp):s32 arg3=+0(%ax):u32 arg4=+0(%bx,%cx,4):u16
abs arg1=@+$(fileoff "$1" fx_counter 0):s32 arg2=@+$(fileoff "$1" fx_arr 8):u32 arg3=+$((16#$a))(%ax):u32 arg4=+$((16#$a))(,%cx,1):u32
bad arg5=+$((16#$a))(,%cx,4):u32
EOT
}

expect_aarch64() {
	cat <<'EOT'
regs64 arg1=%x0:u64 arg2=%x1:u64 arg3=%x9:u64 arg4=%x19:u64 arg5=%x29:u64 arg6=%x30:u64 arg7=%sp:u64
regs32 arg1=%x0:s32 arg2=%x1:s32 arg3=%x17:u32 arg4=%x30:u32
mem arg1=+0(%x0):u64 arg2=+8(%x1):s32 arg3=-16(%x2):s32 arg4=+0(%sp):u64 arg5=+24(%sp):u64 arg6=+32(%x29):u64
sib arg1=+0(%x1,%x2,1):u64 arg2=+0(%x3,%x4,8):u64 arg3=+0(%x5,%x6,4):u32
imm arg1=\5:s32 arg2=\-1:s32 arg3=\42:u64 arg4=\0:u64
bad
EOT
}

# Warnings each variant must give (probe:argN), and no others.
x86_64_warn="hi8:arg1 hi8:arg2 hi8:arg3 hi8:arg4 bad:arg1 bad:arg2 bad:arg3 bad:arg4 bad:arg5 bad:arg6"
warn_sdt_args=$x86_64_warn
warn_sdt_args_O0=$x86_64_warn
warn_sdt_args_clang=$x86_64_warn
# non-PIE gcc indexes a global array as fx_arr(,%rdi,8): "+ADDR(,%di,8)" in records
warn_sdt_args_nopie=$x86_64_warn
warn_sdt_args_i386="bad:arg1 bad:arg2 bad:arg3 bad:arg4"
warn_sdt_args_aarch64="bad:arg1 bad:arg2 bad:arg3 bad:arg4"

# The hand-written probes as we translate them: "event args" per line.
rec_lines() {
	sed -n 's|^p:sdt_pcfix/\([a-z0-9]*\) [^ ]*|\1|p' "$1" |
		grep -E '^(regs|hi8|mem|sib|rip|imm|sizeless|bad|nobase4|abs)'
}

check_fixture() {
	local v=$1 bin=$fix/$1 arch=$2 nnotes=$3 want got
	"$dump" -r "$bin" > "$tmp/fx.rec" 2> "$tmp/fx.err"
	check_eq "$v: $nnotes SDT notes read" "$nnotes" "$(grep -vc '^#' "$tmp/fx.rec")"
	eval "want=\$warn_$v"
	got=$(sed -n "s/.*pcfix:\([a-z0-9]*\): \(arg[0-9]*\) .*/\1:\2/p" "$tmp/fx.err" | sort | tr '\n' ' ')
	check_eq "$v: exactly the expected per-arg warnings" \
		"$(printf '%s\n' $want | sort | tr '\n' ' ')" "$got"
	if [ -n "$(grep -v 'pcfix:[a-z0-9]*: arg[0-9]* ' "$tmp/fx.err")" ]; then
		not_ok "$v: no other messages"
		grep -v 'pcfix:[a-z0-9]*: arg[0-9]* ' "$tmp/fx.err" | sed 's/^/#   /' | head -n 5
	fi
	"expect_$arch" "$bin" > "$tmp/fx.want"
	rec_lines "$tmp/fx.rec" > "$tmp/fx.got"
	if diff -u "$tmp/fx.want" "$tmp/fx.got" > "$tmp/fx.diff"; then
		ok "$v: hand-written operands translate exactly"
	else
		not_ok "$v: hand-written operands translate exactly"
		sed 's/^/#   /' "$tmp/fx.diff" | head -n 30
	fi
	if "$dump" -c "$bin" > /dev/null 2> "$tmp/fx.err"; then
		ok "$v: every record line accepted by common/record.c ($arch registers)"
	else
		not_ok "$v: common/record.c refuses record lines"
		grep 'record refused' "$tmp/fx.err" | sed 's/^/#   /' | head -n 10
	fi
	[ "$arch" = aarch64 ] && return
	"$dump" "$bin" 2> /dev/null | grep -v '^#' > "$tmp/ours.uprobe"
	perf_lines "$bin" "$(sed -n 's/^# build-id \([0-9a-f]*\) .*/\1/p' "$tmp/fx.rec")" > "$tmp/perf.raw"
	unsuffix "$tmp/ours.uprobe" "$tmp/perf.raw" > "$tmp/perf.txt"
	parity "$v (perf -D)" "$tmp/ours.uprobe" "$tmp/perf.txt"
}

# Stripped: rip-relative symbols come from the build-id debug file, if any.
check_stripped() {
	local bin=$fix/sdt_args s=$tmp/stripped bid dbg want
	strip -o "$s" "$bin"
	bid=$("$dump" "$bin" | sed -n 's/^# build-id \([0-9a-f]*\) .*/\1/p')
	"$dump" -r "$bin" 2> /dev/null | grep -v '^#' | sed 's/^[^ ]* [^ ]*//' > "$tmp/full.rec"
	PROBECACHE_DEBUG_ROOT=$tmp/nodebug "$dump" -r "$s" 2> "$tmp/strip.err" |
		grep -v '^#' | sed 's/^[^ ]* [^ ]*//' > "$tmp/strip.rec"
	# every operand naming a symbol: sym(%rip), sym+N(%rip), N+sym(%rip)
	want=$(readelf -n "$bin" | sed -n 's/^ *Arguments: //p' | tr ' ' '\n' |
		grep -Ec '^-?[0-9]*@([0-9]+\+)?[A-Za-z_.][A-Za-z0-9_.]*(\+[0-9]+)?\(%rip\)$')
	check_eq "stripped sdt_args without debug file: its $want symbol operands warned" "$want" \
		"$(grep -c "not in .symtab, .dynsym or the build-id debug file" "$tmp/strip.err")"
	dbg=$tmp/debug/.build-id/${bid:0:2}/${bid:2}.debug
	mkdir -p "${dbg%/*}"
	objcopy --only-keep-debug "$bin" "$dbg"
	PROBECACHE_DEBUG_ROOT=$tmp/debug "$dump" -r "$s" 2> /dev/null | grep -v '^#' |
		sed 's/^[^ ]* [^ ]*//' > "$tmp/strip.rec"
	check_eq "stripped sdt_args + build-id debug file: same record args as unstripped" \
		"$(md5sum < "$tmp/full.rec")" "$(md5sum < "$tmp/strip.rec")"
}
check_stripped

check_fixture sdt_args x86_64 17
check_fixture sdt_args_O0 x86_64 17
check_fixture sdt_args_clang x86_64 17
check_fixture sdt_args_nopie x86_64 17
check_fixture sdt_args_i386 i386 10
check_fixture sdt_args_aarch64 aarch64 11

tap_done
