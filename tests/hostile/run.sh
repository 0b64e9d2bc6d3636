#!/bin/bash
# Host suite: probecache-resolve under hostile input (issue 14). Special files
# where files are expected, ELF files damaged or cut short while being read,
# damaged cache files and damaged copies of cached binaries, damaged archives,
# config files and add specs. Every input is made here from real Debian
# binaries or generated (tests/hostile/mkelf.py); nothing is stored.
#
# Every case runs under timeout and a memory limit and must end by itself
# with the documented exit code (never a signal) and the exact message; a
# refused operation must leave the cache directory byte for byte as it was.
# PC_BIN=... runs the suite against another build (e.g. an older main); PC_TIMEOUT
# (seconds, default 30) and PC_VMEM (ulimit -v, default 1000000; "unlimited" for ASan).
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/hostile
. "$top/tests/lib/tap.sh"

if [ -z "${PC_BIN:-}" ]; then
	make -s -C "$top/user" >/dev/null || { echo "Bail out! cannot build user/"; exit 1; }
	PC_BIN=$top/user/probecache-resolve
fi
make -s -C "$top/tests/fixtures" build/dw_app >/dev/null || { echo "Bail out! cannot build fixtures"; exit 1; }
T=$(mktemp -d /tmp/pc-hostile.XXXXXX)
trap 'rm -rf "$T" ${nobody_bin:+"$nobody_bin"}' EXIT
chmod 755 "$T"
cc -shared -fPIC -O2 -Wall -o "$T/shrink.so" "$here/shrink.c" -ldl ||
	{ echo "Bail out! cannot build the shrink shim"; exit 1; }

LIBSTDCXX=$(readlink -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6)
POSTGRES=/usr/lib/postgresql/15/bin/postgres
PYTHON=$(readlink -f /usr/bin/python3.11)
for b in "$LIBSTDCXX" "$POSTGRES" "$PYTHON"; do
	[ -f "$b" ] || { echo "Bail out! $b missing (scripts/setup.sh installs it)"; exit 1; }
done
P=probecache-resolve
export PROBECACHE_SYSFS=$T/nosysfs PROBECACHE_RUN=$T/run PROBECACHE_ETC=$T/etc

lacks() { ! grep -qF -- "$1" <<< "$2"; }
mkelf() { python3 "$here/mkelf.py" "$@"; }
bid() { readelf -n "$1" | sed -n 's/^ *Build ID: //p'; }
# cache_file BUILDID: where the cache keeps it
cache_file() { echo "$PROBECACHE_DIR/${1:0:2}/${1:2}.probes"; }
# fresh: an empty cache directory holding libstdc++ only
fresh() {
	export PROBECACHE_DIR=$T/cache.$((++ncache))
	"$PC_BIN" scan "$LIBSTDCXX" >/dev/null 2>&1
}
ncache=0

# snap: every name, type and mode under the cache, and the bytes of its regular files
snap() {
	[ -d "$PROBECACHE_DIR" ] || { echo none; return; }
	(cd "$PROBECACHE_DIR" && find . ! -name .lock -printf '%y %m %p %l\n' | sort &&
		find . -type f ! -name .lock -exec sha256sum {} + | sort)
}

# run CMD...: $out (stdout+stderr), $rc; bounded in time and memory, never interactive
run() {
	out=$(ulimit -v "${PC_VMEM:-1000000}"; timeout -k 5 "${PC_TIMEOUT:-30}" "$@" 2>&1 </dev/null)
	rc=$?
}

# expect DESC RC MSG CHANGE CMD...: one case. MSG is a line the output must
# hold exactly ("" for no check); CHANGE "same" also requires the cache untouched.
expect() {
	local desc=$1 want=$2 msg=$3 change=$4 before why=
	shift 4
	before=$(snap)
	run "$@"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		why="hung (killed by timeout)"
	elif [ "$rc" -gt 128 ]; then
		why="killed by signal $((rc - 128))"
	elif [ "$rc" -ne "$want" ]; then
		why="exit $rc, want $want"
	elif [ -n "$msg" ] && ! grep -qxF -- "$msg" <<< "$out"; then
		why="no line: $msg"
	elif [ "$change" = same ] && [ "$before" != "$(snap)" ]; then
		why="cache directory changed"
	fi
	if [ -z "$why" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "  $why"
		printf '%s\n' "$out" | head -n 8 | sed 's/^/#   | /'
	fi
}

# ===== special files, sizes and lengths (defect 1) =====
fresh
mkfifo "$T/fifo"
ln -s /dev/zero "$T/zero-link"
mkdir -p "$T/dir"
: > "$T/empty"

expect "scan FIFO: refused at once, not a regular file" 1 \
	"$P: $T/fifo: not a regular file" same "$PC_BIN" scan "$T/fifo"
expect "scan /dev/null: not a regular file" 1 \
	"$P: /dev/null: not a regular file" same "$PC_BIN" scan /dev/null
expect "scan a symlink to a FIFO: not a regular file" 1 \
	"$P: $T/fifo-link: not a regular file" same \
	sh -c "ln -sf '$T/fifo' '$T/fifo-link' && exec '$PC_BIN' scan '$T/fifo-link'"
expect "scan one good file and a FIFO: partial (3)" 3 \
	"$P: $T/fifo: not a regular file" any "$PC_BIN" scan "$LIBSTDCXX" "$T/fifo"
mkdir -p "$T/tree"
mkfifo "$T/tree/pipe"
cp "$PYTHON" "$T/tree/python3.11"
expect "scan -r over a tree holding a FIFO: the FIFO is passed over" 0 \
	"$T/tree/python3.11 ($(bid "$PYTHON")): 8 events" any "$PC_BIN" scan -r "$T/tree"

fresh
lbid=$(bid "$LIBSTDCXX")
mkdir -p "$PROBECACHE_DIR/ab"
mkfifo "$PROBECACHE_DIR/ab/cdef0123456789.probes"
expect "list with a FIFO in the cache: named, skipped, the rest listed" 0 \
	"$P: warning: $PROBECACHE_DIR/ab/cdef0123456789.probes: not a regular file, skipped" \
	same "$PC_BIN" list
expect "list with a FIFO in the cache still lists libstdc++" 0 \
	"sdt_libstdcxx:throw=throw" same "$PC_BIN" list
expect "export with a FIFO in the cache" 0 "" same "$PC_BIN" export 'sdt_libstdcxx:*'
expect "gc with a FIFO in the cache leaves it alone" 0 "" same "$PC_BIN" gc --dry-run
expect "arm with a FIFO in the cache: no hang (module not loaded)" 1 "" same \
	"$PC_BIN" arm 'sdt_libstdcxx:*'
mkdir -p "$T/etc"
echo 'sdt_libstdcxx:*' > "$T/etc/preload.conf"
expect "preload --dry-run with a FIFO in the cache: no hang" 0 "" same \
	"$PC_BIN" preload --dry-run
rm "$PROBECACHE_DIR/ab/cdef0123456789.probes"

ln -s /dev/zero "$PROBECACHE_DIR/ab/cdef0123456789.probes"
expect "list with a cache file linked to /dev/zero: refused, not read" 0 \
	"$P: warning: $PROBECACHE_DIR/ab/cdef0123456789.probes: is a symbolic link, skipped" \
	same "$PC_BIN" list
rm "$PROBECACHE_DIR/ab/cdef0123456789.probes"
ln -s "$T/nowhere" "$PROBECACHE_DIR/ab/cdef0123456789.probes"
expect "list with a dangling symlink in the cache: said, not silent" 0 \
	"$P: warning: $PROBECACHE_DIR/ab/cdef0123456789.probes: is a symbolic link, skipped" \
	same "$PC_BIN" list
rm "$PROBECACHE_DIR/ab/cdef0123456789.probes"
ln -s "$(cache_file "$lbid")" "$PROBECACHE_DIR/ab/cdef0123456789.probes"
expect "list with a symlink to another cache file: refused" 0 \
	"$P: warning: $PROBECACHE_DIR/ab/cdef0123456789.probes: is a symbolic link, skipped" \
	same "$PC_BIN" list
rm "$PROBECACHE_DIR/ab/cdef0123456789.probes"
truncate -s 65M "$PROBECACHE_DIR/ab/cdef0123456789.probes"
expect "list with a 65 MiB cache file: too large, skipped" 0 \
	"$P: warning: $PROBECACHE_DIR/ab/cdef0123456789.probes: file too large, skipped" \
	same "$PC_BIN" list
{ printf 'probecache-cache 1\nbuild-id abcdef0123456789\npath /'; head -c 70000 /dev/zero |
	tr '\0' x; printf '\n'; } > "$PROBECACHE_DIR/ab/cdef0123456789.probes"
expect "list with a 70000-byte cache line: refused by line" 0 \
	"$P: warning: $PROBECACHE_DIR/ab/cdef0123456789.probes:3: corrupt cache file, skipped: line longer than 65535 bytes" \
	same "$PC_BIN" list
rm -r "$PROBECACHE_DIR/ab"

expect "import FIFO: refused at once" 1 \
	"$P: import: $T/fifo: not a regular file; nothing imported" same \
	"$PC_BIN" import "$T/fifo"
expect "import /dev/zero (symlink): not a regular file" 1 \
	"$P: import: $T/zero-link: not a regular file; nothing imported" same \
	"$PC_BIN" import "$T/zero-link"
expect "import a directory: is a directory" 1 \
	"$P: import: $T/dir: is a directory; nothing imported" same "$PC_BIN" import "$T/dir"
expect "import - from an endless stdin: capped" 1 \
	"$P: import: -: file too large (limit 256 MiB); nothing imported" same \
	sh -c "exec '$PC_BIN' import - < /dev/zero"
expect "preload --config FIFO: refused at once" 1 \
	"$P: preload: $T/fifo: not a regular file" same \
	"$PC_BIN" preload --dry-run --config "$T/fifo"
expect "preload --config /dev/zero: not a regular file" 1 \
	"$P: preload: $T/zero-link: not a regular file" same \
	"$PC_BIN" preload --dry-run --config "$T/zero-link"
expect "preload --config DIR: is a directory" 1 \
	"$P: preload: $T/dir: is a directory" same "$PC_BIN" preload --dry-run --config "$T/dir"
expect "load with PROBECACHE_KCONFIG a FIFO: not read, no hang" 1 \
	"$P: warning: load: $T/fifo: not a regular file, not read" same \
	env PROBECACHE_KCONFIG="$T/fifo" "$PC_BIN" load --module "$T/empty"
expect "add -x FIFO: refused at once" 1 "$P: $T/fifo: not a regular file" same \
	"$PC_BIN" add -x "$T/fifo" main

# ===== ELF files damaged, hand-made or cut short while read (defect 2) =====
fresh
cp "$LIBSTDCXX" "$T/shrinking.so"
expect "scan of a file cut short while read: said, no SIGBUS" 1 \
	"$P: $T/shrinking.so: changed while being read ($(stat -c %s "$LIBSTDCXX") bytes, now 4096): nothing recorded, try again once it is complete" \
	same env PC_SHRINK="$T/shrinking.so" LD_PRELOAD="$T/shrink.so" "$PC_BIN" scan "$T/shrinking.so"
dwapp=$top/tests/fixtures/build/dw_app
for at in 1 2 3; do
	cp "$dwapp" "$T/dw_app"
	expect "add -x on a binary cut short at its fstat $at: said, no SIGBUS" 1 \
		"" same env PC_SHRINK="$T/dw_app" PC_SHRINK_AT=$at LD_PRELOAD="$T/shrink.so" \
		"$PC_BIN" add -x "$T/dw_app" main
	check "add -x cut short at fstat $at: the message says why" \
		grep -q "changed while being read" <<< "$out"
done

size=$(stat -c %s "$LIBSTDCXX")
mkelf copy-with "$LIBSTDCXX" "$T/trunc.so" truncate $((size * 6 / 10))
expect "scan truncated libstdc++: truncated, with its size" 1 \
	"$P: $T/trunc.so: truncated ELF file: header tables end past its $((size * 6 / 10)) bytes" \
	same "$PC_BIN" scan "$T/trunc.so"
mkelf copy-with "$LIBSTDCXX" "$T/hdr.so" truncate 64
expect "scan the 64-byte ELF header alone: truncated" 1 \
	"$P: $T/hdr.so: truncated ELF file: header tables end past its 64 bytes" \
	same "$PC_BIN" scan "$T/hdr.so"
mkelf copy-with "$LIBSTDCXX" "$T/magic.so" truncate 3
expect "scan 3 bytes of an ELF: not an ELF file" 1 "$P: $T/magic.so: not an ELF file" \
	same "$PC_BIN" scan "$T/magic.so"
expect "scan an empty file: not an ELF file" 1 "$P: $T/empty: not an ELF file" same \
	"$PC_BIN" scan "$T/empty"
mkelf copy-with "$LIBSTDCXX" "$T/be.so" flip-data
expect "scan with EI_DATA flipped: wrong byte order, not 'truncated'" 1 \
	"$P: $T/be.so: wrong byte order in e_ident[EI_DATA] (big-endian): the ELF header reads right only the other way" \
	same "$PC_BIN" scan "$T/be.so"
mkelf copy-with "$LIBSTDCXX" "$T/class.so" flip-class
expect "scan with EI_CLASS flipped: the class is named, not 'no build-id'" 1 \
	"$P: $T/class.so: e_ehsize is $(od -An -tu2 -j40 -N2 "$LIBSTDCXX" | tr -d ' '), ELFCLASS32 wants 52: e_ident[EI_CLASS] or the ELF header damaged" \
	same "$PC_BIN" scan "$T/class.so"
mkelf copy-with "$LIBSTDCXX" "$T/shstr.so" shstrndx 9999
expect "scan with a bogus e_shstrndx: said, not '0 events'" 1 \
	"$P: $T/shstr.so: e_shstrndx 9999 is not a string table section ($(readelf -h "$LIBSTDCXX" | sed -n 's/^ *Number of section headers: *//p') sections): section names unreadable" \
	same "$PC_BIN" scan "$T/shstr.so"
mkelf copy-with "$PYTHON" "$T/empty-sdt" empty-sdt
expect "scan with an empty .note.stapsdt: said, no stale libelf message" 0 \
	"$P: warning: $T/empty-sdt: .note.stapsdt is empty" any "$PC_BIN" scan "$T/empty-sdt"
check "empty .note.stapsdt: no 'no error' message" lacks 'no error' "$out"
fresh
mkelf copy-with "$PYTHON" "$T/cut0" cut-notes 0
expect "notes unreadable from note 0: numbered 0, not 'after note 0'" 0 \
	"$P: warning: $T/cut0: .note.stapsdt note 0: note name or descriptor runs past the end of the notes: it and the rest ignored" \
	any "$PC_BIN" scan "$T/cut0"
fresh
mkelf copy-with "$PYTHON" "$T/cut3" cut-notes 3
expect "notes unreadable from note 3: numbered 3" 0 \
	"$P: warning: $T/cut3: .note.stapsdt note 3: note name or descriptor runs past the end of the notes: it and the rest ignored" \
	any "$PC_BIN" scan "$T/cut3"
fresh
mkelf copy-with "$PYTHON" "$T/type5" bad-note-type 5
expect "a note of the wrong type: numbered, skipped" 0 \
	"$P: warning: $T/type5: .note.stapsdt note 5 has type 99, not v3 (3): skipped" \
	any "$PC_BIN" scan "$T/type5"

fresh
mkelf synth "$T/nobid" - '8@%rdi'
expect "scan an explicit file without build-id: error, exit 1 as help says" 1 \
	"$P: $T/nobid: no GNU build-id, cannot be cached" same "$PC_BIN" scan "$T/nobid"
mkdir -p "$T/nobid-tree" && cp "$T/nobid" "$T/nobid-tree/"
expect "scan -r: a file without build-id is only counted" 0 \
	"1 ELF files: 0 with SDT notes (0 events), 0 without notes, 1 without build-id; 0 other files skipped" \
	same "$PC_BIN" scan -r "$T/nobid-tree"
args40=$(for i in $(seq 1 40); do printf '8@%%rdi '; done)
mkelf synth "$T/args40" 40404040404040404040404040404040404040ab "$args40"
expect "a 40-argument note: said at scan" 0 \
	"$P: warning: $T/args40: pcfix:probe: more than 16 args, which a record cannot carry: arg17 and later left out" \
	any "$PC_BIN" scan "$T/args40"
expect "a 40-argument note: the record form lists" 0 "" any \
	"$PC_BIN" list --format=record 'sdt_pcfix:*'
check_eq "a 40-argument note: uprobe and record forms carry the same 16 args" \
	"16 16" "$("$PC_BIN" list --format=uprobe 'sdt_pcfix:*' | grep -o 'arg[0-9]*=' | wc -l) $(grep -o 'arg[0-9]*=' <<< "$out" | wc -l)"
mkelf synth "$T/badargs" badbadbadbadbadbadbadbadbadbadbadbad0001 '8@%zz9 8@%rax' \
	'8@99999999999999999999(%rbx) 4@%esi'
expect "an unknown register: said, and that the uprobe form keeps it" 0 \
	"$P: warning: $T/badargs: pcfix:probe: arg1 '8@%zz9': unknown x86 register: left out of the record, kept in the uprobe form as perf -D writes it" \
	any "$PC_BIN" scan "$T/badargs"
check "an overflowing displacement: said, and that the uprobe form keeps it" grep -qxF \
	"$P: warning: $T/badargs: pcfix:probe: arg1 '8@99999999999999999999(%rbx)': bad or out of range displacement: left out of the record, kept in the uprobe form as perf -D writes it" \
	<<< "$out"
expect "scan a non-ELF file: not an ELF file" 1 "$P: $T/etc/preload.conf: not an ELF file" same \
	"$PC_BIN" scan "$T/etc/preload.conf"
expect "scan a missing path" 1 "$P: $T/missing: No such file or directory" same \
	"$PC_BIN" scan "$T/missing"
expect "scan a directory without -r" 1 "$P: $T/tree: is a directory (use -r)" same \
	"$PC_BIN" scan "$T/tree"
fresh
ln -s tree "$T/tree-link"
expect "scan -r through a symlink to a directory (/lib on merged /usr) scans it" 0 \
	"$T/tree/python3.11 ($(bid "$PYTHON")): 8 events" any "$PC_BIN" scan -r "$T/tree-link"

# ===== cache files: damaged, hand-edited, damaged copies (defects 3 and 4) =====
fresh
pbid=$(bid "$PYTHON")
"$PC_BIN" scan "$PYTHON" >/dev/null 2>&1
pfile=$(cache_file "$pbid")
cat >> "$pfile" <<EOF
probe named probe_python hand p 0x1000 0x0
spec hand_made
args
uprobe
debuginfo $pbid
end
EOF
sed -i "3a path /opt/old/python3.11" "$pfile"
sed -i '0,/^spec /s/^spec .*/spec/; 0,/^uprobe /s/^uprobe /uprobe_bad /' "$pfile"
cp "$pfile" "$T/damaged.probes"
expect "rescan over a hand-damaged cache file: says what it kept and where the rest is" 0 \
	"$P: warning: $pfile: kept whole as $pfile.corrupt; what parses of it is carried over: 2 paths, 8 entries" \
	any "$PC_BIN" scan "$PYTHON"
check "the damaged file is kept whole as .corrupt" cmp "$pfile.corrupt" "$T/damaged.probes"
expect "the named (add) entry survived the rescan" 0 "probe_python:hand=hand_made" any \
	"$PC_BIN" list 'probe_python:*'
check "the extra path survived the rescan" grep -qx 'path /opt/old/python3.11' "$pfile"
expect "the rescan holds every SDT note again" 0 "" any "$PC_BIN" list 'sdt_python:*'
check_eq "8 SDT entries after the rescan" 8 "$(grep -c '^sdt_python:' <<< "$out")"
printf 'garbage\n' >> "$pfile"
expect "a second damage: kept without overwriting the first copy" 0 \
	"$P: warning: $pfile: kept whole as $pfile.corrupt.1; what parses of it is carried over: 2 paths, 9 entries" \
	any "$PC_BIN" scan "$PYTHON"
check "the first .corrupt copy is untouched" cmp "$pfile.corrupt" "$T/damaged.probes"
printf 'probecache-cache 2\n' > "$pfile"
expect "rescan over a file of another format version: kept as a copy, nothing carried over" 0 \
	"$P: warning: $pfile: kept whole as $pfile.corrupt.2; what parses of it is carried over: 0 paths, 0 entries" \
	any "$PC_BIN" scan "$PYTHON"
rm "$pfile"
mkfifo "$pfile"
expect "rescan over a FIFO cache file: kept as a copy, no hang" 0 \
	"$P: warning: $pfile: kept whole as $pfile.corrupt.3; what parses of it is carried over: 0 paths, 0 entries" \
	any "$PC_BIN" scan "$PYTHON"

fresh
qbid=$(bid "$POSTGRES")
"$PC_BIN" scan "$POSTGRES" >/dev/null 2>&1
mkelf copy-with "$POSTGRES" "$T/postgres-damaged" bad-note-type 10
expect "a damaged copy (same build-id) does not replace the clean copy's entries" 1 \
	"$P: $T/postgres-damaged: 1 SDT notes unreadable, 70 read; build-id $qbid keeps the 71 entries cached from $POSTGRES, this copy is not recorded" \
	same "$PC_BIN" scan "$T/postgres-damaged"
expect "the clean copy stays the newest path" 0 "$POSTGRES ($qbid):" any "$PC_BIN" list "@$qbid"
qfile=$(cache_file "$qbid")
printf 'garbage\n' >> "$qfile"
cp "$qfile" "$T/postgres.probes"
expect "a damaged copy over a corrupt cache file: refused" 1 \
	"$P: $T/postgres-damaged: 1 SDT notes unreadable, 70 read; build-id $qbid keeps the 71 entries cached from $POSTGRES, this copy is not recorded" \
	any "$PC_BIN" scan "$T/postgres-damaged"
check "  ... and the corrupt file is still in place, unchanged" cmp "$qfile" "$T/postgres.probes"
fresh
expect "a damaged copy alone is cached (nothing better known)" 0 \
	"$T/postgres-damaged ($qbid): 70 events" any "$PC_BIN" scan "$T/postgres-damaged"
expect "the same damaged copy again: not worse than itself" 0 \
	"$T/postgres-damaged ($qbid): 70 events" any "$PC_BIN" scan "$T/postgres-damaged"
expect "then the clean copy replaces it" 0 "$POSTGRES ($qbid): 71 events" any \
	"$PC_BIN" scan "$POSTGRES"

# hand-edited cache files, read by list (skipped and said) and refused by import
fresh
lfile=$(cache_file "$lbid")
cp "$lfile" "$T/libstdcxx.probes"
damage() { cp "$T/libstdcxx.probes" "$lfile" && sed -i "$1" "$lfile"; }
damage '2a build-id '"$lbid"
expect "a duplicate build-id line is refused" 0 \
	"$P: warning: $lfile:3: corrupt cache file, skipped: build-id given twice" same "$PC_BIN" list
damage '/^build-id /d'
expect "a missing build-id line is refused" 0 \
	"$P: warning: $lfile: corrupt cache file, skipped: no 'build-id' line" same "$PC_BIN" list
sed -n '/^probe /,/^end$/p' "$T/libstdcxx.probes" | head -n 5 > "$T/libstdcxx.block"
damage '$r '"$T/libstdcxx.block"
expect "a duplicated probe block is refused (was listed twice)" 0 \
	"$P: warning: $lfile: corrupt cache file, skipped: a probe block is given twice" \
	same "$PC_BIN" list
damage '4s/^/x/'
expect "an unknown keyword is refused by line" 0 \
	"$P: warning: $lfile:4: corrupt cache file, skipped: unknown keyword" same "$PC_BIN" list
damage '2s/$/ff/'
expect "a build-id not matching the file name" 0 \
	"$P: warning: $lfile:2: corrupt cache file, skipped: build-id does not match the file name" \
	same "$PC_BIN" list
cp "$T/libstdcxx.probes" "$lfile" && printf 'path /x\0y\n' >> "$lfile"
n=$(wc -l < "$lfile")
expect "a NUL byte in a line, named by line" 0 \
	"$P: warning: $lfile:$n: corrupt cache file, skipped: NUL byte in line" same "$PC_BIN" list
cp "$T/libstdcxx.probes" "$lfile" && printf 'path /x' >> "$lfile"
expect "a last line cut short" 0 \
	"$P: warning: $lfile:$((n)): corrupt cache file, skipped: truncated line" same "$PC_BIN" list
damage '$d'
expect "an entry not closed by end" 0 \
	"$P: warning: $lfile: corrupt cache file, skipped: entry not closed by 'end'" same "$PC_BIN" list
cp "$T/libstdcxx.probes" "$lfile"
"$PC_BIN" export -o "$T/good.pcar" 'sdt_libstdcxx:*' >/dev/null 2>&1
damage '4s/^/x/'
expect "import into a corrupt cache file: refused, nothing changed" 1 \
	"$P: import: cache entry $lbid in $PROBECACHE_DIR is unreadable: Bad message; nothing imported" \
	same "$PC_BIN" import "$T/good.pcar"
cp "$T/libstdcxx.probes" "$lfile"
mkdir -p "$T/shared"
cp -a "$PROBECACHE_DIR" "$T/shared/cache"
chmod -R a+rX "$T/shared"
chmod 600 "$T/shared/cache/${lbid:0:2}/${lbid:2}.probes"
# nobody runs a copy of the CLI placed where it can reach it: the checkout may sit in a
# directory nobody cannot enter (a 0700 mktemp -d, root's home).
nobody_bin=$(mktemp -d /tmp/pc-hostile-bin.XXXXXX)
chmod 755 "$nobody_bin"
cp "$PC_BIN" "$nobody_bin/$P"
expect "list as a user who cannot read a cache file: said, not an empty listing" 0 \
	"$P: warning: $T/shared/cache/${lbid:0:2}/${lbid:2}.probes: Permission denied, skipped" any \
	setpriv --reuid=nobody --regid=nogroup --clear-groups env PROBECACHE_DIR="$T/shared/cache" \
	"$nobody_bin/$P" list
rm -rf "$nobody_bin"
expect "--cache-dir '' is a usage error" 2 "$P: --cache-dir: empty directory name" same \
	"$PC_BIN" -C '' list

# ===== archives, config files, add (the wrong answers) =====
fresh
"$PC_BIN" export -o "$T/good.pcar" 'sdt_libstdcxx:*' >/dev/null 2>&1
# reseal FILE: fix the end line's checksum after an edit (python's zlib crc32 is the archive's)
reseal() {
	python3 - "$1" <<'EOF'
import sys, zlib
data = open(sys.argv[1], 'rb').read()
body, end = data[:data.rindex(b'\nend\t') + 1], data[data.rindex(b'\nend\t') + 1:].split(b'\t')
end[3] = b'crc32=%08x\n' % zlib.crc32(body)
open(sys.argv[1], 'wb').write(body + b'\t'.join(end))
EOF
}
nl=$(wc -l < "$T/good.pcar")
sed "\$s/^end\t[0-9]*/end\t99999999999999999999/" "$T/good.pcar" > "$T/a1.pcar"
expect "import: an end count too large is out of range, not 18446744073709551615" 1 \
	"$P: import: $T/a1.pcar: line $nl: end: NBINARIES '99999999999999999999' is out of range; nothing imported" \
	same "$PC_BIN" import "$T/a1.pcar"
sed "\$s/^end\t[0-9]*/end\t-1/" "$T/good.pcar" > "$T/a2.pcar"
expect "import: a negative end count" 1 \
	"$P: import: $T/a2.pcar: line $nl: end: NBINARIES '-1' is not a decimal count; nothing imported" \
	same "$PC_BIN" import "$T/a2.pcar"
sed '3s/$/\\/' "$T/good.pcar" > "$T/a3.pcar"
reseal "$T/a3.pcar"
expect "import: a trailing backslash is called that" 1 \
	"$P: import: $T/a3.pcar: line 3: field 2: trailing backslash; nothing imported" \
	same "$PC_BIN" import "$T/a3.pcar"
sed '3s/$/\\q/' "$T/good.pcar" > "$T/a4.pcar"
expect "import: a bad escape" 1 \
	"$P: import: $T/a4.pcar: line 3: field 2: bad escape '\\q'; nothing imported" \
	same "$PC_BIN" import "$T/a4.pcar"
python3 -c 'import sys; l = open(sys.argv[1], "rb").read().split(b"\n"); l[3] = b"\0" + l[3]; open(sys.argv[2], "wb").write(b"\n".join(l))' "$T/good.pcar" "$T/a5.pcar"
expect "import: a NUL byte is reported on its own line" 1 \
	"$P: import: $T/a5.pcar: line 4: NUL byte: not a text archive; nothing imported" \
	same "$PC_BIN" import "$T/a5.pcar"
head -n 3 "$T/good.pcar" > "$T/a6.pcar"
expect "import: a truncated archive" 1 \
	"$P: import: $T/a6.pcar: line 4: truncated: no end line; nothing imported" \
	same "$PC_BIN" import "$T/a6.pcar"
sed '3s/lib/LIB/' "$T/good.pcar" > "$T/a7.pcar"
expect "import: a checksum mismatch" 1 "" same "$PC_BIN" import "$T/a7.pcar"
check "import: the checksum mismatch is named" grep -q "checksum mismatch" <<< "$out"
: > "$T/a8.pcar"
expect "import: an empty file" 1 "$P: import: $T/a8.pcar: line 1: empty file; nothing imported" \
	same "$PC_BIN" import "$T/a8.pcar"
expect "import: two files is a usage error" 2 "usage: $P import FILE" same \
	"$PC_BIN" import "$T/good.pcar" "$T/good.pcar"
export PROBECACHE_DIR=$T/cache.import
expect "import: an intact archive still imports" 0 \
	"imported $T/good.pcar: 1 binaries, 3 entries added, 0 replaced, 0 unchanged" any \
	"$PC_BIN" import "$T/good.pcar"
export PROBECACHE_DIR=$T/cache.stdin
expect "import: an intact archive from stdin" 0 "" any sh -c "exec '$PC_BIN' import - < '$T/good.pcar'"

printf 'sdt_libstdcxx:*\nsdt_\0x:*\n' > "$T/nul.conf"
expect "--config with a NUL byte: named by line" 1 "$P: preload: $T/nul.conf:2: NUL byte in line" \
	same "$PC_BIN" preload --dry-run --config "$T/nul.conf"
{ echo 'sdt_libstdcxx:*'; head -c 5000 /dev/zero | tr '\0' a; echo; } > "$T/long.conf"
expect "--config with a 5000-byte line: named by line" 1 \
	"$P: preload: $T/long.conf:2: line longer than 4094 bytes" same \
	"$PC_BIN" preload --dry-run --config "$T/long.conf"
expect "--config missing" 1 "$P: preload: $T/missing.conf: No such file or directory" same \
	"$PC_BIN" preload --dry-run --config "$T/missing.conf"

usage_line=$("$PC_BIN" help add | head -n 1)
expect "add: the usage line on error is the one help add prints" 2 "$usage_line" same \
	"$PC_BIN" add
expect "help add has an Exit: line" 0 "Exit: 0 ok, 1 not resolved or not cached, 2 usage." same \
	"$PC_BIN" help add
check_eq "the man page's add synopsis is the usage line" "${usage_line#usage: $P }" \
	"$(sed -n 's/^\.SS "\(add .*\)"$/\1/p' "$top/Documentation/probecache-resolve.1" | tr -d '\\')"
size=$(stat -c %s "$dwapp")
mkelf copy-with "$dwapp" "$T/dw_trunc" truncate $((size / 2))
expect "add -x a truncated ELF: truncated, not 'no DWARF information'" 1 \
	"$P: $T/dw_trunc: truncated ELF file: header tables end past its $((size / 2)) bytes" same \
	"$PC_BIN" add -x "$T/dw_trunc" main
expect "add -x a non-ELF file" 1 "" same "$PC_BIN" add -x "$T/nul.conf" main
expect "add -x a directory" 1 "$P: $T/dir: is a directory" same "$PC_BIN" add -x "$T/dir" main

# lazy pattern in a CU whose comp_dir is relative (as Debian builds glibc: -ffile-prefix-map=...=.)
mkdir -p "$T/lazy/src/sub"
cat > "$T/lazy/src/sub/lz.c" <<'EOF'
int lz_counter;
__attribute__((noinline)) int lz_work(int n)
{
	lz_counter += n;	/* LAZY_MARK */
	return lz_counter;
}
int main(void) { return lz_work(3) == 0; }
EOF
# built inside its directory, as glibc's malloc/: comp_dir ./sub, file ./sub/lz.c
(cd "$T/lazy/src/sub" && cc -g -gdwarf-5 -O0 -ffile-prefix-map="$T/lazy/src"=. -o "$T/lazy/lz" lz.c)
expect "add with a lazy pattern under a relative comp_dir finds the source once joined" 0 "" any \
	sh -c "cd '$T/lazy/src' && exec '$PC_BIN' add -x '$T/lazy/lz' 'lz_work;*LAZY_MARK*'"
check "lazy pattern: no path joined twice" lacks './sub/./sub' "$out"

tap_done
