#!/bin/bash
# Host suite for probecache-resolve's cache commands: scan, list, del, clear,
# patterns, clashes A and B, staleness/gc, and what arm/disarm/status write to
# and read from a fake sysfs tree (PROBECACHE_SYSFS) and its probe listing
# (PROBECACHE_PROC/probecache_probes, one line a probe). The lazy-arming commands
# (define, arm = define + count, disarm and its EBUSY, scan/add defining,
# preload markers, trace's refusals, the copies' events) run against
# tests/cli/fakemod.c, an LD_PRELOAD stand-in that applies control lines to the
# fake listings as the module's ABI says, and uprobe_events lines to a fake
# tracefs (PROBECACHE_TRACEFS) as the kernel does: what the kernel's uprobe event
# of each probe is, and that it goes before the module's del. Real arming is in
# the VM.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

if [ -z "${PC_BIN:-}" ]; then
	make -s -C "$top/user" >/dev/null || { echo "Bail out! cannot build user/"; exit 1; }
	PC_BIN=$top/user/probecache-resolve
fi
make -s -C "$top/tests/fixtures" build/rs_sem build/rs_twin build/rs_ver_v1 build/rs_ver_v2 build/dw_app build/sdt_args_nopie >/dev/null || { echo "Bail out! cannot build fixtures"; exit 1; }
FX=$top/tests/fixtures/build
T=$(mktemp -d /tmp/pc-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
# Every --json output of the suite is kept (with its command line) and checked
# against Documentation/probecache-resolve.schema.json at the end. The wrapper
# hands LD_PRELOAD (tests/cli/fakemod.c) to the binary only, not to bash or cat.
mkdir "$T/json"
cat > "$T/pc-json" <<WRAP
#!/bin/bash
pre=\$LD_PRELOAD; unset LD_PRELOAD
case " \$* " in
*" --json "*|*" -j "*) ;;
*) LD_PRELOAD=\$pre exec "$PC_BIN" "\$@" ;;
esac
out=\$(mktemp "$T/json/XXXXXX")
printf '%s\\n' "probecache-resolve \$*" > "\$out.cmd"
LD_PRELOAD=\$pre "$PC_BIN" "\$@" > "\$out"; r=\$?
cat "\$out"
[ -s "\$out" ] || rm -f "\$out" "\$out.cmd"
exit \$r
WRAP
chmod +x "$T/pc-json"
PC_BIN=$T/pc-json
cc -Wall -Wextra -Werror -shared -fPIC -o "$T/fakemod.so" "$top/tests/cli/fakemod.c" -ldl ||
	{ echo "Bail out! cannot build tests/cli/fakemod.c"; exit 1; }
export PROBECACHE_DIR=$T/cache
export PROBECACHE_SYSFS=$T/nosysfs
export PROBECACHE_TRACEFS=$T/tracefs	# never the host's
export PROBECACHE_PROC=$T/proc	# the module's listing: never the host's
export PROBECACHE_SDT_DIR=$T/no-sdt	# no provider files but the ones a check gives
export PROBECACHE_RUN=$T/run	# run-time state (follow's counters): never the host's /run
export PROBECACHE_ETC=$T/etc	# configuration (follow.conf): never the host's /etc
LIBSTDCXX=/usr/lib/x86_64-linux-gnu/libstdc++.so.6

# arm, define and scan sweep every process for copies of the probed files: where
# another process maps a copy of a probed library (CI's chroot builds run beside
# this suite), the CLI hands it to the module through a second open of control,
# which in the plain files these checks read overwrites what the first wrote
# (sysfs has no such offset: each write is its own command). As root, pc runs
# in a PID namespace of its own, whose sweep sees only itself. fk (below) goes
# through fakemod, which appends, and its checks look for their own copies.
if [ "$(id -u)" = 0 ] && unshare -pf --mount-proc true 2> /dev/null; then
	pc() { unshare -pf --mount-proc "$PC_BIN" "$@"; }
else
	pc() { "$PC_BIN" "$@"; }
fi
bid() { readelf -n "$1" | sed -n 's/^ *Build ID: //p'; }
json_ok() { python3 -m json.tool >/dev/null; }
# rc CMD...: run, print the exit status only
rc() { "$@" >/dev/null 2>&1; echo $?; }

# ---- scan ----
out=$(pc scan "$LIBSTDCXX" 2> "$T/scan.err")
real=$(readlink -f "$LIBSTDCXX")
check_eq "scan prints canonical path, build-id and event count" \
	"$real ($(bid "$real")): 3 events" "$out"
check_eq "scan without the module says it cached without defining, and how to define" \
	"probecache-resolve: scan: cached, not defined: $T/nosysfs/control: probecache.ko is not loaded; run 'probecache-resolve load', then 'probecache-resolve define PATTERN' (or scan again) to make them trace events" \
	"$(cat "$T/scan.err")"
check_eq "  scan --no-define asked for that: says nothing of it" "" \
	"$(pc scan --no-define "$LIBSTDCXX" 2>&1 >/dev/null)"
check "cache holds one small text file for libstdc++" \
	test "$(find "$T/cache" -name '*.probes' | wc -l)" = 1
size=$(find "$T/cache" -name '*.probes' -exec cat {} + | wc -c)
check "cache file is metadata only ($size bytes)" test "$size" -lt 4096
check "cache file starts with its format version" \
	grep -qx 'probecache-cache 1' "$(find "$T/cache" -name '*.probes')"

mkdir -p "$T/tree/sub"
cp "$FX/rs_sem" "$FX/rs_twin" "$T/tree/"
cp /usr/bin/true "$T/tree/sub/nonotes"
echo "not an elf" > "$T/tree/sub/readme.txt"
out=$(pc scan -r "$T/tree" 2>&1)
check "scan -r reports both fixtures" \
	test "$(echo "$out" | grep -cE '/tree/rs_(sem|twin) \([0-9a-f]+\): [12] events$')" = 2
check_eq "scan -r summary counts ELF without notes and skips non-ELF" \
	"3 ELF files: 2 with SDT notes (3 events), 1 without notes; 1 other files skipped" \
	"$(echo "$out" | tail -n 1)"
check_eq "scan of a non-ELF file is an error naming it" \
	"probecache-resolve: $T/tree/sub/readme.txt: not an ELF file" \
	"$(pc scan "$T/tree/sub/readme.txt" 2>&1)"
check_eq "scan of a directory without -r is a usage-level error" 1 \
	"$(rc pc scan "$T/tree")"
check_eq "scan of one good and one missing path exits 3 (partial)" 3 \
	"$(rc pc scan "$T/tree/rs_sem" "$T/missing")"

# ---- list ----
out=$(pc list 2>&1)
check "list text: perf-style binary header" \
	grep -qxF "$real ($(bid "$real")):" <<< "$out"
check "list text: GROUP:EVENT=NAME lines" grep -qx 'sdt_libstdcxx:throw=throw' <<< "$out"
check_eq "list uprobe: perf -D line for libstdcxx:throw" \
	"p:sdt_libstdcxx/throw $real:0xa90a1 arg1=%di:u64 arg2=%si:u64" \
	"$(pc list --format=uprobe sdt_libstdcxx:throw)"
line=$(pc list --format=uprobe 'sdt_rs:tick')
check "list uprobe: semaphore printed as (0xREF)" \
	grep -qE "^p:sdt_rs/tick $T/tree/rs_sem:0x[0-9a-f]+\(0x[0-9a-f]+\) arg1=" <<< "$line"
rec=$(pc list --format=record 'sdt_libstdcxx:throw')
check_eq "list record: RECORD with build-id, path, offset and args" \
	"p:sdt_libstdcxx/throw $(bid "$real") $real:0xa90a1 arg1=%di:u64 arg2=%si:u64" "$rec"
check "list --json is valid JSON" sh -c "'$PC_BIN' list --json | python3 -m json.tool"
check "list --json has stable field names" sh -c \
	"'$PC_BIN' list --json | python3 -c 'import json,sys; d=json.load(sys.stdin); \
p=d[\"binaries\"][0][\"probes\"][0]; \
assert set(p) >= {\"group\",\"event\",\"kernel_event\",\"offset\",\"ref_ctr\",\"args\",\"uprobe\",\"record\"}'"
check "list --available marks events, JSON valid" sh -c \
	"'$PC_BIN' list --available | grep -q 'sdt_libstdcxx:throw .*\[SDT event\]' &&
	 '$PC_BIN' list --available --json | python3 -m json.tool >/dev/null"
# issue 30 point 8: one shape per entity. A cached probe is the same object in
# list --json (under its binary) and list --json --available (flat), args a list
check_eq "list --json and --available --json: the same probe object, same keys and values" "same" \
	"$(python3 -c 'import json,sys
a = json.load(open(sys.argv[1]))["binaries"][0]["probes"]
b = json.load(open(sys.argv[2]))["events"]
print("same" if a == b else "differ: %r / %r" % (a, b))' \
	<(pc list --json sdt_libstdcxx:throw) <(pc list --json --available sdt_libstdcxx:throw) 2>&1)"
check_eq "  args: a list of {name, location, type}" \
	'[{"name": "arg1", "location": "%di", "type": "u64"}, {"name": "arg2", "location": "%si", "type": "u64"}]' \
	"$(pc list --json sdt_libstdcxx:throw | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["binaries"][0]["probes"][0]["args"]))' 2>&1)"
check_eq "  event is the cache's EVENT, kernel_event the name to type, path and build_id the binary's" \
	"sdt_libstdcxx throw throw $real $(bid "$real")" \
	"$(pc list --json --available sdt_libstdcxx:throw | python3 -c 'import json,sys; p=json.load(sys.stdin)["events"][0]; print(p["group"], p["event"], p["kernel_event"], p["path"], p["build_id"])' 2>&1)"
check_eq "list of a pattern matching nothing exits 1" 1 "$(rc pc list 'nosuch:*')"
check_eq "list --format=bogus is a usage error (2)" 2 "$(rc pc list --format=bogus)"

# perf parity on libstdc++, when perf is here
if command -v perf >/dev/null; then
	export HOME=$T/perfhome && mkdir -p "$HOME"
	perf buildid-cache --add "$real" >/dev/null 2>&1
	perf probe -D 'sdt_libstdcxx:*' 2>/dev/null | sort > "$T/perf.txt"
	pc list --format=uprobe 'sdt_libstdcxx:*' | sort > "$T/ours.txt"
	check "list uprobe matches perf probe -D for every libstdcxx event" \
		diff "$T/perf.txt" "$T/ours.txt"
fi

# one SDT name at several locations: NAME, NAME_1, ... (perf's names); the
# name selects them all, NAME_N one
PG=/usr/lib/postgresql/15/bin/postgres
if [ -x "$PG" ]; then
	pc scan "$PG" >/dev/null
	check_eq "postgres lwlock__wait__start: 3 locations, perf's names" \
		"lwlock__wait__start lwlock__wait__start_1 lwlock__wait__start_2" \
		"$(pc list --format=record sdt_postgresql:lwlock__wait__start | sed 's|^p:sdt_postgresql/\([^ ]*\) .*|\1|' | xargs)"
	check_eq "NAME_N selects one location" 1 \
		"$(pc list --format=uprobe sdt_postgresql:lwlock__wait__start_2 | wc -l)"
	check_eq "postgres: 71 cached events" 71 "$(pc list "@$PG" | grep -c =)"
	pc del "@$PG" >/dev/null
else
	diag "skip: $PG not installed (scripts/setup.sh installs postgresql-15)"
fi

# ---- patterns ----
check_eq "bare EVENT glob matches in any group" "sdt_rs:tick=tick" \
	"$(pc list tick | grep =)"
check_eq "@/path selects one binary" 1 \
	"$(pc list "always@$T/tree/rs_twin" | grep -c =)"
check_eq "@BUILDID-PREFIX selects one version" 1 \
	"$(pc list "always@$(bid "$FX/rs_twin" | cut -c1-6)" | grep -c =)"
check_eq "a pattern with two ':' is a usage error" 2 "$(rc pc list 'a:b:c')"
check_eq "@ neither path nor hex is a usage error" 2 "$(rc pc list 'x@zz')"
# every form a tracer types selects the same probes (issue 30)
uthrow="p:sdt_libstdcxx/throw $real:0xa90a1 arg1=%di:u64 arg2=%si:u64"
check_eq "GROUP alone selects the group's probes" 3 "$(pc list --format=uprobe sdt_libstdcxx | wc -l)"
check_eq "GROUP:* too" 3 "$(pc list --format=uprobe 'sdt_libstdcxx:*' | wc -l)"
check_eq "GROUP/EVENT (ftrace's form)" "$uthrow" "$(pc list --format=uprobe sdt_libstdcxx/throw)"
check_eq "PROVIDER:NAME (bpftrace's form)" "$uthrow" "$(pc list --format=uprobe libstdcxx:throw)"
check_eq "usdt:PATH:PROVIDER:NAME (bpftrace's full form)" "$uthrow" \
	"$(pc list --format=uprobe "usdt:$LIBSTDCXX:libstdcxx:throw")"
check_eq "a path alone selects that binary's probes" 3 "$(pc list --format=uprobe "$LIBSTDCXX" | wc -l)"
check_eq "@PATH too" 3 "$(pc list --format=uprobe "@$LIBSTDCXX" | wc -l)"
check_eq "a relative path too" 3 \
	"$(cd "$(dirname "$LIBSTDCXX")" && "$PC_BIN" list --format=uprobe "./$(basename "$LIBSTDCXX")" | wc -l)"
check_eq "GROUP/EVENT@PATH" "$uthrow" "$(pc list --format=uprobe "sdt_libstdcxx/throw@$LIBSTDCXX")"
check_eq "no match: exit 1 and the closest names offered" \
	"1 probecache-resolve: list: no cached probe matches in $T/cache; did you mean sdt_libstdcxx:throw?" \
	"$(pc list sdt_libstdcxx:thorw 2> "$T/err"; echo "$? $(cat "$T/err")")"
check "  del offers them too" sh -c "'$PC_BIN' del libstdcxx:rethrw 2>&1 | grep -q 'did you mean sdt_libstdcxx:rethrow?'"
check "  so do arm and export" sh -c "'$PC_BIN' arm sdt_libstdcxx:thro 2>&1 | grep -q 'did you mean sdt_libstdcxx:throw?' &&
	'$PC_BIN' export -o '$T/no.pca' thorw 2>&1 | grep -q 'did you mean sdt_libstdcxx:throw?'"
check_eq "  nothing close: no suggestion" "probecache-resolve: list: no cached probe matches in $T/cache" \
	"$(pc list zzzzzzzzzzzz 2>&1)"
check_eq "the man page's export example 'sdt_*' exports the sdt_ groups" 0 "$(rc pc export -o "$T/sdt.pca" 'sdt_*')"

# ---- clash A: rs:always in rs_sem and rs_twin ----
out=$(pc list 'sdt_rs:always')
check_eq "clash A: both binaries list sdt_rs:always under their kernel names" 2 "$(grep -cE '^sdt_rs:always_[0-9a-f]{8}=always$' <<< "$out")"
recs=$(pc list --format=record 'sdt_rs:always')
names=$(echo "$recs" | awk '{print $1}' | sort -u | wc -l)
check_eq "clash A: kernel names are distinct (build-id suffix)" 2 "$names"
check "clash A: suffix is the build-id prefix" \
	grep -q "^p:sdt_rs/always_$(bid "$T/tree/rs_twin" | cut -c1-8) " <<< "$recs"
check_eq "clash A: the probe without a clash keeps its name" \
	"p:sdt_rs/tick" "$(pc list --format=record sdt_rs:tick | awk '{print $1}')"

# ---- corrupt cache file ----
twin=$(find "$T/cache" -name "$(bid "$T/tree/rs_twin" | cut -c3-).probes")
cp "$twin" "$T/twin.save"
echo "garbage line" >> "$twin"
out=$(pc list 2>&1 >/dev/null)
check "corrupt cache file reported by name and line" grep -qF "$twin:" <<< "$out"
check "the rest of the cache still lists" sh -c "'$PC_BIN' list 2>/dev/null | grep -q sdt_libstdcxx:throw"
check_eq "list with a corrupt file still exits 0" 0 "$(rc pc list)"
printf 'probecache-cache 9\n' > "$twin"
check "unknown format version is reported" sh -c "'$PC_BIN' list 2>&1 | grep -q 'format version 1'"
cp "$T/twin.save" "$twin"

# ---- a cached record the module's parser refuses (for a live binary) ----
tru=$(readlink -f /usr/bin/true)
bad_bid=$(bid "$tru")
bad_file=$T/cache/${bad_bid:0:2}/${bad_bid:2}.probes
mkdir -p "$T/cache/${bad_bid:0:2}"
printf '%s\n' 'probecache-cache 1' "build-id $bad_bid" "path $tru" \
	'probe sdt sdt_bad ev p 0x1000 0x0' 'spec bad:ev' 'args arg1=%zz:u64' 'uprobe ' 'end' \
	> "$bad_file"
out=$(pc list --format=record 'sdt_bad:*' 2>&1); r=$?
check_eq "list --format=record of an invalid cached record exits 1" 1 "$r"
check "the invalid record is named with the parser's column and field" \
	grep -q "sdt_bad:ev ($tru): cached record is invalid: col [0-9]*: arg1: " <<< "$out"
check "list --json shows it with record null" sh -c \
	"'$PC_BIN' list --json 'sdt_bad:*' 2>/dev/null | python3 -c 'import json,sys; \
assert json.load(sys.stdin)[\"binaries\"][0][\"probes\"][0][\"record\"] is None'"
mkdir -p "$T/sys0" && : > "$T/sys0/control"
out=$(PROBECACHE_SYSFS=$T/sys0 "$PC_BIN" arm 'sdt_bad:*' 2>&1); r=$?
check_eq "arm of an invalid cached record exits 1" 1 "$r"
check "arm names it and sends nothing" sh -c \
	"echo '$out' | grep -q 'sdt_bad:ev ($tru): invalid record: col' && test ! -s '$T/sys0/control'"
rm -f "$bad_file"

# ---- del / clear ----
check_eq "del of nothing matching exits 1 and changes nothing" 1 "$(rc pc del 'nosuch:*')"
n_before=$(pc list | grep -c =)
out=$(pc del "sdt_rs:always@$T/tree/rs_twin")
check "del PATTERN@path deletes only that binary's probe" \
	test "$(pc list | grep -c =)" = $((n_before - 1))
check "del removes a cache file left without entries" \
	test -z "$(find "$T/cache" -name "$(bid "$T/tree/rs_twin" | cut -c3-).probes")"
check_eq "kernel name of rs_sem's always is plain again (clash gone)" "p:sdt_rs/always" \
	"$(pc list --format=record 'sdt_rs:always' | awk '{print $1}')"

# ---- concurrent scans ----
mkdir -p "$T/conc"
for i in 1 2 3 4 5 6; do cp "$FX/rs_twin" "$T/conc/t$i"; done
for i in 1 2 3 4 5 6; do pc scan "$T/conc/t$i" "$real" >/dev/null 2>&1 & done
wait
out=$(pc list 2>&1)
check "concurrent scans: no corrupt or leftover temp file" \
	sh -c "! echo '$out' | grep -q corrupt && test -z \"\$(find '$T/cache' -name '.tmp*')\""
check_eq "concurrent scans: every path of the shared binary recorded" 6 \
	"$(grep -c '^path ' "$(find "$T/cache" -name "$(bid "$FX/rs_twin" | cut -c3-).probes")")"

# ---- clash B: two builds of one program at one path ----
app=$T/app/rs_ver
mkdir -p "$T/app"
cp "$FX/rs_ver_v1" "$app" && pc scan "$app" >/dev/null
cp "$FX/rs_ver_v2" "$app" && pc scan "$app" >/dev/null
v1=$(bid "$FX/rs_ver_v1") v2=$(bid "$FX/rs_ver_v2")
check_eq "clash B: both versions listed under the same path" 2 \
	"$(pc list "sdt_rs_ver:step@$app" | grep -c "^$app (")"

mkdir -p "$T/sys" "$T/tracefs" "$T/proc"
: > "$T/sys/control"; : > "$T/proc/probecache_probes"; : > "$T/tracefs/uprobe_events"
export PROBECACHE_SYSFS=$T/sys
# site_line NAME PATH: the module's site 0 of NAME, on the inode at PATH (what a plain
# file cannot answer to an add; the CLI defines the kernel's event only on that inode)
site_line() {
	echo "$1 site=0 state=defined hits=0 error=0 unlinked=0 dev=$(stat -c '%Hd:%Ld ino=%i' "$2") path=$2"
}
site_line sdt_rs_ver:step "$app" > "$T/proc/probecache_sites"
out=$(pc arm "sdt_rs_ver:step@$app" 2>&1)
check "clash B: arm says which build-id it chose and why" \
	grep -q "arming $v2, the one the file has now ($v1 is stale)" <<< "$out"
check_eq "clash B: only the current version's record is written" \
	"add p:sdt_rs_ver/step $v2 $app:" "$(grep '^add ' "$T/sys/control" | cut -d: -f1-3 | sed 's/0x.*//')"
check_eq "  its kernel event defined on the verified file, as the record says" \
	"$(grep '^add ' "$T/sys/control" | cut -d' ' -f2,4-)" "$(cat "$T/tracefs/uprobe_events")"
check_eq "arm then starts counting it" "count sdt_rs_ver:step" "$(grep -v '^add ' "$T/sys/control")"
: > "$T/sys/control"; : > "$T/tracefs/uprobe_events"
site_line sdt_rs_ver:step "$FX/rs_ver_v2" > "$T/proc/probecache_sites"
check_eq "the module's site 0 another inode than the file the CLI opened: exit 1, the add undone, no event" \
	"1 add del||sdt_rs_ver:step ($app): kernel: $app was replaced while it was defined; try again" \
	"$(pc arm "sdt_rs_ver:step@$app" > /dev/null 2> "$T/arm.err"; echo $?) $(cut -d' ' -f1 "$T/sys/control" | paste -sd' ')|$(cat "$T/tracefs/uprobe_events")|$(sed 's/^probecache-resolve: //' "$T/arm.err")"
rm "$T/proc/probecache_sites"

: > "$T/sys/control"
pc arm -p 4242 'sdt_libstdcxx:throw' >/dev/null 2>&1
check "arm -p writes pid=PID into the record" grep -q " pid=4242 arg1=" "$T/sys/control"
: > "$T/sys/control"
pc arm 'sdt_rs:*' 'sdt_libstdcxx:*' >/dev/null 2>&1
check_eq "arm writes a record for every selected probe (clash A: both always)" 6 "$(grep -c '^add ' "$T/sys/control")"

# ---- the GROUP:EVENT index (DIR/names/XX): arm reads only the cache files it names ----
names=$T/cache/names
idx() { cat "$names"/?? 2>/dev/null; }	# every shard, bucket by bucket
keys() { idx | grep -v '^probecache-names 1$\|^bucket \|^keys \|^end$'; }
# arm_rec PATTERN: the records arm writes for it, sorted
arm_rec() { : > "$T/sys/control"; pc arm "$1" >/dev/null 2>&1; sort "$T/sys/control"; }
check_eq "writers keep one index shard per bucket" "$(cd "$T/cache" && ls -d ?? | paste -sd' ')" \
	"$(cd "$names" && ls | paste -sd' ')"
check "the index names the cache file of an SDT event" \
	grep -qx "sdt_libstdcxx:throw $(bid "$real")" <<< "$(idx)"
pt=$(bid "$FX/rs_twin" | cut -c1-8)
check "clash A through the index: the other binary's always is loaded for the name" \
	grep -q "^add p:sdt_rs/always_$pt " <<< "$(arm_rec "sdt_rs:al*@$pt")"
pats=('sdt_libstdcxx:throw' "sdt_rs:always@$pt" "sdt_rs:al*@$pt" 'sdt_rs:*' 'always' "step@$app"
	"sdt_rs_ver:step@$v1" 'sdt_libstdcxx:throw@/nonexistent' '*')
declare -A via
for p in "${pats[@]}"; do via[$p]=$(arm_rec "$p"); done
check "arm through the index writes records" test -n "${via['sdt_rs:*']}"
# a change no writer announced (bucket mtimes differ): the index is stale, arm reads every file
before=$(idx)
touch -d '2001-02-03 04:05:06' "$T"/cache/??
for p in "${pats[@]}"; do
	check_eq "arm '${p//$T/\$T}': the same records through the index as from every file" \
		"${via[$p]}" "$(arm_rec "$p")"
done
check_eq "a stale index is left for the next writer, not rewritten by a reader" \
	"$before" "$(idx)"
pc scan "$real" >/dev/null	# a writer that changes no selection
check "the next writer rebuilds every stale shard, not only its own" \
	test -z "$(comm -12 <(grep '^bucket ' <<< "$before") <(idx | grep '^bucket '))"
check_eq "the rebuilt index has every key of the old one" \
	"$(grep -v '^probecache-names 1$\|^bucket \|^keys \|^end$' <<< "$before")" "$(keys)"
# a writer that dies between its changes and the new index leaves shards missing
rm -r "$names"
check_eq "without an index arm selects the same" "${via['sdt_rs:*']}" "$(arm_rec 'sdt_rs:*')"
check "a reader rebuilds a missing index" grep -qx "sdt_libstdcxx:throw $(bid "$real")" <<< "$(idx)"
one=$(ls "$names" | grep -vx "$(bid "$real" | cut -c1-2)" | head -n 1)	# del below leaves it alone
rm "$names/$one"	# what a writer that died leaves in an index
check_eq "with a shard missing arm selects the same" "${via['sdt_rs:*']}" "$(arm_rec 'sdt_rs:*')"
check "... and a reader leaves the missing shard to the next writer" test ! -e "$names/$one"
pc export -o "$T/throw.pca" 'sdt_libstdcxx:throw' >/dev/null
pc del 'sdt_libstdcxx:throw' >/dev/null
check_eq "del takes the event out of the index" "" "$(keys | grep '^sdt_libstdcxx:throw ')"
check "the next writer builds a missing shard of a bucket it did not change" test -s "$names/$one"
check_eq "arm of a deleted event writes nothing" "" "$(arm_rec 'sdt_libstdcxx:throw')"
pc import "$T/throw.pca" >/dev/null
check_eq "import puts it back in the index, and arm finds it" "${via['sdt_libstdcxx:throw']}" \
	"$(arm_rec 'sdt_libstdcxx:throw')"
check_eq "an index damaged by hand is not used (same records)" "${via['sdt_rs:*']}" \
	"$(sed -i 's/^keys .*/keys 999999999/' "$names"/??; arm_rec 'sdt_rs:*')"
pc scan "$real" >/dev/null
check_eq "the next writer replaces every damaged shard" "" "$(grep -l '^keys 999999999' "$names"/??)"

# staleness: v1 is stale (path holds v2); rs_sem copy removed -> missing
rm "$T/tree/rs_sem"
out=$(pc status --stale)
check "status --stale: changed binary with the build-id there now" \
	grep -q "^$app ($v1): changed, now $v2" <<< "$out"
check "status --stale: missing binary" grep -q "^$T/tree/rs_sem (.*): missing" <<< "$out"
check "status --stale --json is valid" sh -c "'$PC_BIN' status --stale --json | python3 -m json.tool"

: > "$T/sys/control"
out=$(pc arm "sdt_rs:tick" 2>&1); r=$?
check_eq "arm of a probe whose binary is gone exits 3 (skipped)" 3 "$r"
check "arm names the missing binary" grep -q "sdt_rs:tick ($T/tree/rs_sem): skipped: the file is gone" <<< "$out"
check "nothing written for a skipped probe" test ! -s "$T/sys/control"
cp "$FX/rs_ver_v1" "$T/app/only_v1"
pc scan "$T/app/only_v1" >/dev/null
cp /usr/bin/true "$T/app/only_v1"
out=$(pc arm "sdt_rs_ver:step@$T/app/only_v1" 2>&1); r=$?
check_eq "arm of a rewritten, uncached binary exits 3" 3 "$r"
check "arm reports it stale with the build-id found" \
	grep -q "stale: the file now has build-id $(bid /usr/bin/true)" <<< "$out"

out=$(pc gc --dry-run)
check "gc --dry-run shows what it would remove" grep -q "would remove $v1" <<< "$out"
check "gc --dry-run removes nothing" sh -c "'$PC_BIN' list 'step@$v1' >/dev/null"
pc gc >/dev/null
check_eq "gc removes stale versions, keeps the current one" "$app ($v2):" \
	"$(pc list "sdt_rs_ver:step@$app" | head -n 1)"
check "gc removes binaries that are gone" sh -c "! '$PC_BIN' list 'sdt_rs:tick' 2>/dev/null"
check_eq "after gc nothing is stale" "nothing stale in $T/cache" "$(pc status --stale)"

# ---- fake sysfs and listing: status, disarm, --available ----
lst=$T/proc/probecache_probes
echo 0.1 > "$T/sys/version"; echo 1 > "$T/sys/nr_probes"; echo 1 > "$T/sys/nr_armed"
throw_line="sdt_libstdcxx:throw state=armed hits=7 counting=1 type=p pid=0 unlinked=0 build_id=$(bid "$real") offset=0xa90a1 ref_ctr_offset=0x0 path=$real args=arg1=%di:u64 arg2=%si:u64"
echo "$throw_line" > "$lst"
mkdir -p "$T/tracefs/events/sdt_libstdcxx/throw"	# its kernel uprobe event
out=$(pc status)
check "status shows module version and probe counts" grep -q "^probecache 0.1 (.*): 1 probes defined, 1 armed" <<< "$out"
check "status shows state, that its kernel event exists, counting and hits" grep -qE '^sdt_libstdcxx:throw +armed +yes +yes +7 ' <<< "$out"
check "status --json is valid with state, kernel_event, counting and hits" sh -c \
	"'$PC_BIN' status --json | python3 -c 'import json,sys; d=json.load(sys.stdin); p=d[\"probes\"][0]; \
assert (p[\"state\"],p[\"kernel_event\"],p[\"counting\"],p[\"hits\"],d[\"nr_armed\"])==(\"armed\",True,True,7,1)'"
rmdir "$T/tracefs/events/sdt_libstdcxx/throw"	# removed behind the CLI's back (perf probe -d)
check "  an event removed from tracefs: EVENT no, kernel_event false" sh -c \
	"'$PC_BIN' status | grep -qE '^sdt_libstdcxx:throw +armed +no +yes +7 ' &&
	 '$PC_BIN' status --json | python3 -c 'import json,sys; assert json.load(sys.stdin)[\"probes\"][0][\"kernel_event\"] is False'"
# The module's sites (issue 27): the copies a probe follows, under it. Before
# status read them (3be924f), none of these passed.
printf '%s\n' "sdt_libstdcxx:throw site=0 state=armed hits=5 error=0 unlinked=0 dev=8:1 ino=12 path=$real" \
	"sdt_libstdcxx:throw site=1 state=armed hits=2 error=0 unlinked=1 dev=0:44 ino=7 path=/proc/1/map_files/7f00-7f10" \
	"sdt_libstdcxx:throw site=2 state=defined hits=0 error=-26 unlinked=0 dev=8:1 ino=99 path=/srv/copy.so" \
	"sdt_libstdcxx:throw site=3 state=defined hits=0 error=0 unlinked=0 dev=8:1 ino=98 path=/proc/4194305/root/srv/c.so" \
	> "$T/proc/probecache_sites"
out=$(pc status)
# pid 1: as root pc runs in a PID namespace of its own, where pid 1 is itself
check "status lists a followed copy under its probe, its inode and mount namespace" \
	grep -Eqx "  \+ copy /proc/1/map_files/7f00-7f10 armed, 2 hits, deleted, inode 0:44/7, (mount ns [0-9]+ of pid 1|pid 1, mount ns not readable)" <<< "$out"
check "  and one the module could not arm, with the errno's name" \
	grep -qx "  + copy /srv/copy.so defined, 0 hits, inode 8:1/99, not armed: ETXTBSY" <<< "$out"
check "  and one whose process is gone (no pid is above 4194304)" \
	grep -qx "  + copy /proc/4194305/root/srv/c.so defined, 0 hits, inode 8:1/98, pid 4194305 gone" <<< "$out"
check_eq "  status --json: every site, its own file first, pid and mount ns of one through /proc" \
	"0 1 2 3|$real|-26 ETXTBSY|0:44|1 True|0 0|4194305 0" \
	"$(pc status --json | python3 -c 'import json,sys; s=json.load(sys.stdin)["probes"][0]["sites"]
print(" ".join(str(x["site"]) for x in s), s[0]["path"], "%d %s" % (s[2]["error"], s[2]["error_name"]), s[1]["dev"],
      "%d %s" % (s[1]["via_pid"], s[1]["mntns"] > 0), "%d %d" % (s[2]["via_pid"], s[2]["mntns"]),
      "%d %d" % (s[3]["via_pid"], s[3]["mntns"]), sep="|")')"
echo "sdt_libstdcxx:throw site=0 state=armed" > "$T/proc/probecache_sites"
check_eq "  a malformed sites line: exit 1, named by file and line" \
	"1 probecache-resolve: $T/proc/probecache_sites:1: not a site line" "$(pc status > /dev/null 2>&1; echo -n "$? ")$(pc status 2>&1 >/dev/null)"
rm "$T/proc/probecache_sites"
check "list --available marks the armed event" sh -c \
	"'$PC_BIN' list --available | grep -q 'sdt_libstdcxx:throw .*\[SDT event, armed\]'"
: > "$T/sys/control"
out=$(pc disarm 'sdt_libstdcxx:*')
check_eq "disarm writes del GROUP:EVENT" "del sdt_libstdcxx:throw" "$(cat "$T/sys/control")"
: > "$T/sys/control"
out=$(pc disarm --keep-defined 'sdt_libstdcxx:*')
check_eq "disarm --keep-defined writes nocount GROUP:EVENT" "nocount sdt_libstdcxx:throw" "$(cat "$T/sys/control")"
: > "$T/sys/control"

# the listing parser: every field of a line; args is the rest of the line
# json_probes: each listed probe as NAME|STATE|KERNEL_EVENT|COUNTING|HITS|PID|UNLINKED|BUILD_ID|OFFSET|REF|PATH|ARGS
json_probes() {
	"$PC_BIN" status --json | python3 -c 'import json,sys
for p in json.load(sys.stdin)["probes"]:
	p["args"] = " ".join("%s=%s:%s" % (a["name"], a["location"], a["type"]) for a in p["args"])
	print("|".join(str(p[k]) for k in ("name","state","kernel_event","counting","hits","pid","unlinked","build_id","offset","ref_ctr","path","args")))'
}
mkdir -p "$T/tracefs/events/g/sp"
# g:sp as a module with trace events of its own printed it: consumers= after state=
{
	echo "$throw_line"
	echo "g:e state=defined hits=18446744073709551615 counting=0 type=r pid=42 unlinked=1 build_id=00AB offset=0x10 ref_ctr_offset=0x4010 path=/x args="
	echo "g:sp state=stale consumers=1 hits=0 counting=0 type=p pid=0 unlinked=0 build_id=ab offset=0x0 ref_ctr_offset=0x0 path=/y args=a=%di:s32  b=+8(%sp):u64 x=y= "
} > "$lst"
check_eq "listing: every field parsed; build-id lower-cased; empty args; args with spaces and '='; an older module's consumers= skipped (JSON: a list, u64 where no type)" \
	"g:e|defined|False|False|18446744073709551615|42|True|00ab|16|16400|/x|
g:sp|stale|True|False|0|0|False|ab|0|0|/y|a=%di:s32 b=+8(%sp):u64 x=y=:u64
sdt_libstdcxx:throw|armed|False|True|7|0|False|$(bid "$real")|692385|0|$real|arg1=%di:u64 arg2=%si:u64" \
	"$(json_probes)"
rm -r "$T/tracefs/events"
check_eq "  status --json counts the listed probes" 3 "$("$PC_BIN" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["probes"]))')"
: > "$lst"
check_eq "an empty listing: no probes, exit 0" "0 probecache 0.1 ($T/sys): 0 probes defined, 1 armed" \
	"$(pc status > "$T/st.out" 2>&1; echo $?) $(cat "$T/st.out")"
# bad_listing DESC LINE2 WANT: the listing's second line is LINE2 (printf format);
# status exits 1 with "PATH:2: WANT" and nothing else
bad_listing() {
	{ echo "$throw_line"; printf "$2"; } > "$lst"
	check_eq "malformed listing, $1: exit 1, error names file, line and field" \
		"1 probecache-resolve: $lst:2: $3" "$(pc status > /dev/null 2> "$T/st.err"; echo $?) $(cat "$T/st.err")"
}
g='g:e state=defined hits=0 counting=0 type=p pid=0 unlinked=0 build_id=ab'
bad_listing "line cut short" "$g offset=0x1\n" "ref_ctr_offset: missing (the line ends before it)"
bad_listing "last line without its newline" "$g offset=0x1 ref_ctr_offset=0x0 path=/x args=a=%%di" \
	"no newline at its end: cut short"
bad_listing "no args=" "$g offset=0x1 ref_ctr_offset=0x0 path=/x\n" "args: missing (the line ends before it)"
bad_listing "a number that is not one" "${g/hits=0/hits=7x} offset=0x1 ref_ctr_offset=0x0 path=/x args=\n" \
	"hits: want a decimal number: 'hits=7x'"
bad_listing "a number out of range" "${g/hits=0/hits=18446744073709551616} offset=0x1 ref_ctr_offset=0x0 path=/x args=\n" \
	"hits: out of range: 'hits=18446744073709551616'"
bad_listing "offset without 0x" "$g offset=1 ref_ctr_offset=0x0 path=/x args=\n" "offset: want 0x and hex digits: 'offset=1'"
bad_listing "fields out of order" "${g/hits=0 counting=0/counting=0 hits=0} offset=0x1 ref_ctr_offset=0x0 path=/x args=\n" \
	"hits: expected here: 'counting=0'"
bad_listing "an older module's consumers= anywhere but after state=" "${g/hits=0 counting=0/hits=0 consumers=0 counting=0} offset=0x1 ref_ctr_offset=0x0 path=/x args=\n" \
	"counting: expected here: 'consumers=0'"
bad_listing "two spaces" "${g/ hits/  hits} offset=0x1 ref_ctr_offset=0x0 path=/x args=\n" \
	"hits: empty (two spaces in a row)"
bad_listing "an odd build-id" "${g/build_id=ab/build_id=abc} offset=0x1 ref_ctr_offset=0x0 path=/x args=\n" \
	"build_id: want an even number of hex digits, 2 to 40: 'build_id=abc'"
bad_listing "a name without its group" "${g/g:e/e} offset=0x1 ref_ctr_offset=0x0 path=/x args=\n" \
	"GROUP:EVENT: want GROUP:EVENT, each 1 to 63 characters: 'e'"
bad_listing "an empty line" "\n" "GROUP:EVENT: missing (the line ends before it)"
bad_listing "a line of garbage" "$(head -c 300 /dev/zero | tr '\0' x)\n" \
	"GROUP:EVENT: want GROUP:EVENT, each 1 to 63 characters: '$(head -c 64 /dev/zero | tr '\0' x)...'"
check_eq "  disarm with a malformed listing: exit 1, nothing sent" "1 " \
	"$(rc pc disarm 'sdt_libstdcxx:*') $(cat "$T/sys/control")"
echo "$throw_line" > "$lst"
mv "$lst" "$lst.away"
check_eq "module loaded, listing missing: exit 1, names the path and says the module is too old" \
	"1 probecache-resolve: $lst: No such file or directory: the loaded probecache.ko predates its probe listing; load this version's module" \
	"$(pc status > /dev/null 2> "$T/st.err"; echo $?) $(cat "$T/st.err")"
check_eq "  arm then sends nothing" "1 " "$(rc pc arm 'sdt_libstdcxx:throw') $(cat "$T/sys/control")"
check "  status --json still says the module is loaded" sh -c \
	"'$PC_BIN' status --json 2>/dev/null | python3 -c 'import json,sys; assert json.load(sys.stdin)[\"loaded\"]'"
mv "$lst.away" "$lst"
check_eq "disarm of nothing armed matching exits 1" 1 "$(rc pc disarm 'nosuch:*')"
: > "$lst"
export PROBECACHE_SYSFS=$T/nosysfs
check "status without the module says it is not loaded" sh -c \
	"'$PC_BIN' status 2>&1 | grep -q 'probecache.ko is not loaded'"
check_eq "status without the module exits 1" 1 "$(rc pc status)"
check_eq "status --json without the module: the exit status of text mode, JSON saying so, the reason on stderr" \
	'1 {"loaded": false, "probes": []} yes' \
	"$(pc status --json > "$T/st.out" 2> "$T/st.err"; echo -n "$? ")$(python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))' < "$T/st.out" 2>&1) $(grep -q 'probecache.ko is not loaded' "$T/st.err" && echo yes)"
check "arm without the module says so" sh -c \
	"'$PC_BIN' arm 'sdt_libstdcxx:throw' 2>&1 | grep -q 'not loaded'"

# ---- status --format=openmetrics: metrics for node_exporter's textfile collector ----
# The fake module again ($T/sys, the listing and sites in $T/proc) and tracefs's
# uprobe_profile in $T/tracefs, in the kernel's format ("  FILE EVENT HITS", EVENT alone)
# and with GROUP/EVENT. Each output is checked by Debian's promtool where it can be had
# (tests/lib/promtool.sh), and here for what promtool does not check: repeated series,
# exact values, the end line.
promtool=$("$top/tests/lib/promtool.sh" 2> "$T/promtool.err") || promtool=
# om_valid DESC FILE: promtool check metrics accepts FILE, no series is repeated (promtool
# lets that pass, node_exporter refuses the whole file), every sample's family has
# HELP and TYPE before it, and the last line is "# EOF"
om_valid() {
	if [ -n "$promtool" ]; then
		check "$1: promtool check metrics passes" sh -c "'$promtool' check metrics < '$2' 2>&1"
	elif [ "${CI:-}" = true ]; then
		not_ok "$1: promtool check metrics (no promtool under CI=true: $(tail -n 1 "$T/promtool.err"))"
	else
		ok "# SKIP $1: promtool check metrics (no promtool: $(tail -n 1 "$T/promtool.err"))"
	fi
	check_eq "$1: no series repeated" "" "$(grep -v '^#' "$2" | sed 's/ [0-9]*$//' | sort | uniq -d)"
	check_eq "$1: each sample after its family's HELP and TYPE" "" "$(awk '
		/^# HELP / { h[$3] = 1; next } /^# TYPE / { t[$3] = 1; next } /^#/ { next }
		{ n = $0; sub(/[{ ].*/, "", n); if (!h[n] || !t[n]) print }' "$2")"
	check_eq "$1: ends with # EOF" "# EOF" "$(tail -n 1 "$2")"
}
om() { PROBECACHE_SYSFS=$T/sys pc status --format=openmetrics "$@"; }
echo "$throw_line" > "$lst"
# A path with a double quote, a backslash, UTF-8 and a byte that is not UTF-8 (the
# listing's PATH has no blanks, nothing else is excluded).
printf '%s\n' "g:e state=defined consumers=0 hits=0 counting=0 type=p pid=0 unlinked=0 build_id=ab offset=0x10 ref_ctr_offset=0x0 path=/x/we\"ird\\path/caf$(printf '\303\251')$(printf '\377') args=" \
	"ct:req state=armed consumers=1 hits=3 counting=1 type=p pid=0 unlinked=0 build_id=cd offset=0x10 ref_ctr_offset=0x0 path=/proc/4194305/root/srv/app args=" >> "$lst"
printf '%s\n' "sdt_libstdcxx:throw site=0 state=armed hits=5 error=0 unlinked=0 dev=8:1 ino=12 path=$real" \
	"sdt_libstdcxx:throw site=1 state=armed hits=2 error=0 unlinked=1 dev=0:44 ino=7 path=/proc/1/map_files/7f00-7f10" \
	"sdt_libstdcxx:throw site=2 state=defined hits=0 error=-26 unlinked=0 dev=8:1 ino=99 path=/srv/copy.so" \
	"sdt_libstdcxx:throw site=3 state=armed hits=4 error=0 unlinked=0 dev=8:1 ino=98 path=/proc/4194305/root/srv/c.so" \
	"sdt_libstdcxx:throw site=4 state=armed hits=6 error=0 unlinked=0 dev=8:1 ino=97 path=/proc/4194306/root/srv/c.so" \
	"sdt_libstdcxx:throw site=5 state=armed hits=1 error=0 unlinked=0 dev=0:45 ino=96 path=/proc/4194307/map_files/7f-8f" \
	"ct:req site=0 state=armed hits=3 error=0 unlinked=0 dev=8:1 ino=50 path=/proc/4194305/root/srv/app" \
	"gone:probe site=0 state=armed hits=9 error=0 unlinked=0 dev=8:1 ino=51 path=/gone" \
	> "$T/proc/probecache_sites"
# The kernel's rows: ours by EVENT and one of its files, or by GROUP/EVENT; others not.
printf '  %s %-44s %15s\n' "$real" throw 11 /srv/copy.so throw 3 /other/file throw 100 \
	/usr/bin/foo sdt_libstdcxx/throw 2 /x/y probe_other/e 9 \
	/proc/4194305/root/srv/c.so throw 5 /proc/4194306/root/srv/c.so throw 6 \
	/proc/4194305/root/srv/app req 8 > "$T/tracefs/uprobe_profile"
mkdir -p "$T/tracefs/events/sdt_libstdcxx/throw"	# its kernel uprobe event
om > "$T/om.prom" 2> "$T/om.err"
check_eq "status --format=openmetrics: exit 0, nothing on stderr" "0 " "$? $(cat "$T/om.err")"
om_valid "openmetrics" "$T/om.prom"
B=$(bid "$real")
L="event=\"sdt_libstdcxx:throw\",build_id=\"$B\""
om_has() { check "  $1" grep -qxF -- "$2" "$T/om.prom"; }
om_has "the module loaded, its version" 'probecache_module_info{version="0.1"} 1'
om_has "probes by state" 'probecache_probes{state="armed"} 2'
om_has "  defined" 'probecache_probes{state="defined"} 1'
om_has "a probe's state, as a state set" "probecache_probe_state{$L,path=\"$real\",state=\"armed\"} 1"
om_has "  its other states 0" "probecache_probe_state{$L,path=\"$real\",state=\"defined\"} 0"
om_has "whether its kernel event exists" "probecache_probe_event{$L,path=\"$real\"} 1"
om_has "whether it counts" "probecache_probe_counting{$L,path=\"$real\"} 1"
om_has "the hits the module counted" "probecache_probe_hits_total{$L,path=\"$real\"} 7"
om_has "a path escaped: quote, backslash, UTF-8 kept, a byte not UTF-8 as \\\\xff" \
	"probecache_probe_hits_total{event=\"g:e\",build_id=\"ab\",path=\"/x/we\\\"ird\\\\path/caf$(printf '\303\251')\\\\xff\"} 0"
om_has "a probe defined through /proc/PID/root: the path in that root, no pid" \
	'probecache_probe_hits_total{event="ct:req",build_id="cd",path="/srv/app"} 3'
om_has "sites by kind and state: its own file" "probecache_sites{$L,site=\"own\",state=\"armed\"} 1"
om_has "  two containers' copies and one through map_files" "probecache_sites{$L,site=\"container\",state=\"armed\"} 3"
om_has "  a deleted one" "probecache_sites{$L,site=\"deleted\",state=\"armed\"} 1"
om_has "  a copy not armed" "probecache_sites{$L,site=\"copy\",state=\"defined\"} 1"
om_has "hits per site: its own file" "probecache_site_hits_total{$L,path=\"$real\",site=\"own\"} 5"
om_has "  the containers' copies at one path in their roots: one series, summed (4 + 6)" \
	"probecache_site_hits_total{$L,path=\"/srv/c.so\",site=\"container\"} 10"
om_has "  a copy known only through map_files: no path" \
	"probecache_site_hits_total{$L,path=\"\",site=\"container\"} 1"
om_has "  the deleted copy" "probecache_site_hits_total{$L,path=\"\",site=\"deleted\"} 2"
om_has "a site the module could not arm, by errno name" \
	"probecache_sites_failed{$L,site=\"copy\",error=\"ETXTBSY\"} 1"
check_eq "  a site of a probe no longer listed: left out" "" "$(grep 'gone:probe' "$T/om.prom")"
om_has "the kernel's own count (uprobe_profile): EVENT rows in our files, GROUP/EVENT rows, summed" \
	"probecache_uprobe_hits_total{$L} 27"
om_has "  by file: its own" "probecache_uprobe_file_hits_total{$L,path=\"$real\"} 11"
om_has "  a copy's" "probecache_uprobe_file_hits_total{$L,path=\"/srv/copy.so\"} 3"
om_has "  a GROUP/EVENT row, whatever its file" "probecache_uprobe_file_hits_total{$L,path=\"/usr/bin/foo\"} 2"
om_has "  the containers' copies, summed (5 + 6)" "probecache_uprobe_file_hits_total{$L,path=\"/srv/c.so\"} 11"
om_has "  a probe defined through /proc/PID/root" \
	'probecache_uprobe_file_hits_total{event="ct:req",build_id="cd",path="/srv/app"} 8'
check_eq "  not an EVENT row in a file none of ours is in, nor another group's GROUP/EVENT" "" \
	"$(grep -E '/other/file|/x/y' "$T/om.prom")"
# -o FILE: atomically (a temporary file beside it, renamed over it), 0644 under any umask
mkdir -p "$T/textfile"
echo old > "$T/textfile/probecache.prom"
ino=$(stat -c %i "$T/textfile/probecache.prom")
check_eq "-o FILE: exit 0, stdout empty" "0 " \
	"$(umask 077; om -o "$T/textfile/probecache.prom" > "$T/om.out" 2>&1; echo $?) $(cat "$T/om.out")"
check "  FILE holds what stdout had" cmp "$T/om.prom" "$T/textfile/probecache.prom"
check_eq "  mode 0644 (node_exporter reads it as its own user), a new inode renamed over the old" \
	"644 new" "$(stat -c %a "$T/textfile/probecache.prom") $([ "$(stat -c %i "$T/textfile/probecache.prom")" != "$ino" ] && echo new)"
check_eq "  no temporary file left beside it" "probecache.prom" "$(ls "$T/textfile")"
echo "g:bad state=armed" >> "$lst"
check_eq "  a listing it cannot read: exit 1, FILE kept as it was, nothing left beside it" \
	"1 probecache.prom" "$(rc om -o "$T/textfile/probecache.prom") $(cmp -s "$T/om.prom" "$T/textfile/probecache.prom" && ls "$T/textfile")"
echo "$throw_line" > "$lst"
check_eq "--format=json is --json" "$(PROBECACHE_SYSFS=$T/sys pc status --json 2>&1)" \
	"$(PROBECACHE_SYSFS=$T/sys pc status --format=json 2>&1)"
check_eq "  a directory that does not exist: exit 1, said" \
	"1 probecache-resolve: status: $T/nodir/x.prom: No such file or directory" \
	"$(om -o "$T/nodir/x.prom" > /dev/null 2> "$T/om.err"; echo $?) $(cat "$T/om.err")"
printf '  /a throw\n' > "$T/tracefs/uprobe_profile"
check_eq "an uprobe_profile line it cannot read: exit 0, the kernel's counts left out, said" \
	"0 0 probecache-resolve: $T/tracefs/uprobe_profile:1: not a line of FILE EVENT HITS" \
	"$(om > "$T/om.prom" 2> "$T/om.err"; echo $?) $(grep -c '^probecache_uprobe' "$T/om.prom") $(head -n 1 "$T/om.err")"
om_valid "  that output" "$T/om.prom"
rm "$T/tracefs/uprobe_profile" "$T/proc/probecache_sites"
: > "$lst"
om > "$T/om.prom"
check_eq "a module with no probes: exit 0" 0 "$?"
om_valid "  no probes" "$T/om.prom"
om_has "  none in any state" 'probecache_probes{state="armed"} 0'
PROBECACHE_SYSFS=$T/nosysfs pc status --format=openmetrics > "$T/om.prom" 2> "$T/om.err"
check_eq "no module loaded: exit 0, nothing on stderr (the timer writes a file all the same)" "0 " \
	"$? $(cat "$T/om.err")"
om_valid "  no module" "$T/om.prom"
om_has "  it says so" "probecache_module_loaded 0"
check_eq "  and has no sample of a probe" "" "$(grep -v '^#' "$T/om.prom" | grep -v '^probecache_module_loaded \|^probecache_probes{\|^probecache_follower_up ')"

# The follower's counters (issue 44): `follow`, a daemon, writes them to
# $PROBECACHE_RUN/follower.stats (here $T/run; the follower itself writes it in
# "follow" below), status reads that file. omh: status in this PID namespace (pc's
# own, as root, would not see the pid the file names).
fs=$PROBECACHE_RUN/follower.stats
omh() { PROBECACHE_SYSFS=$T/sys "$PC_BIN" status --format=openmetrics "$@"; }
check_eq "  no follower ever wrote $fs: probecache_follower_up 0, no other follower sample" \
	"probecache_follower_up 0" "$(grep '^probecache_follower_' "$T/om.prom")"
mkdir -p "$PROBECACHE_RUN"
sh -c 'exit 0' & gone=$!
wait $gone	# a pid no process has now
printf '%s\n' "# written by hand" "pid $gone" "start_time 1700000000" "mappings 120" "queued 30" \
	"sweeps 12" "full 2" "added 5" "refused 1" "lost 3" "last_ms 12.5" "a_newer_key 1" > "$fs"
omh > "$T/om.prom" 2> "$T/om.err"
check_eq "a follower's file: exit 0, nothing on stderr" "0 " "$? $(cat "$T/om.err")"
om_valid "  follower's counters" "$T/om.prom"
check_eq "  its counters, start and last sweep (seconds); up 0: its pid is gone (stale)" \
	"probecache_follower_up 0
probecache_follower_start_time_seconds 1700000000
probecache_follower_last_sweep_seconds 0.0125
probecache_follower_mappings_total 120
probecache_follower_queued_total 30
probecache_follower_sweeps_total 12
probecache_follower_full_sweeps_total 2
probecache_follower_sites_added_total 5
probecache_follower_sites_refused_total 1
probecache_follower_records_lost_total 3" "$(grep '^probecache_follower_' "$T/om.prom")"
check_eq "  counters of TYPE counter, the rest gauges" "counter 7 gauge 3" \
	"$(grep '^# TYPE probecache_follower_' "$T/om.prom" | awk '{ n[$4]++ } END { print "counter", n["counter"], "gauge", n["gauge"] }')"
sleep 60 &
np=$!
sed -i "s/^pid .*/pid $np/" "$fs"
check_eq "  a pid that lives but is no follower (reused): up 0" "probecache_follower_up 0" \
	"$(omh 2>&1 | grep '^probecache_follower_up')"
kill $np; wait $np 2> /dev/null
sed -i 's/^sweeps 12$/sweeps 12x/' "$fs"
omh > "$T/om.prom" 2> "$T/om.err"
check_eq "a follower's file with a bad value: exit 0, a warning naming its line and why" \
	"0 probecache-resolve: warning: status: $fs:6: 'sweeps' is not a count: '12x'; the follower's counters left out" \
	"$? $(cat "$T/om.err")"
om_valid "  that output" "$T/om.prom"
check_eq "  no follower sample, up included; the families' HELP and TYPE kept" "0 10" \
	"$(grep -c '^probecache_follower_' "$T/om.prom") $(grep -c '^# TYPE probecache_follower_' "$T/om.prom")"
check_eq "  the probes' samples kept" "probecache_module_loaded 1" "$(grep '^probecache_module_loaded' "$T/om.prom")"
sed -i '/^sweeps /d' "$fs"
check_eq "a follower's file without a key: said, for the file" \
	"probecache-resolve: warning: status: $fs: no 'sweeps' line; the follower's counters left out" \
	"$(omh 2>&1 > /dev/null)"
rm "$fs"
ln -s /dev/zero "$fs"
check_eq "a symbolic link there: not followed, said" \
	"probecache-resolve: warning: status: $fs: is a symbolic link; the follower's counters left out" \
	"$(omh 2>&1 > /dev/null)"
rm "$fs"
check_eq "--output without --format=openmetrics: usage error" 2 "$(rc pc status -o "$T/x.prom")"
check_eq "--stale --format=openmetrics: usage error" 2 "$(rc pc status --stale --format=openmetrics)"
check_eq "an unknown format: usage error naming the known ones" \
	"2 probecache-resolve: status: unknown format 'prom' (text, json, openmetrics)" \
	"$(pc status --format=prom > /dev/null 2> "$T/om.err"; echo -n "$? "; head -n 1 "$T/om.err")"

# the index kept step by step (scan, del, gc, import, concurrent scans) is the one rebuilt from the files
kept=$(idx | grep -v '^bucket ')
rm -r "$names"; pc list >/dev/null 2>&1; pc arm 'nosuch:nosuch' >/dev/null 2>&1
check_eq "the index kept by every writer above equals one rebuilt from the files" \
	"$kept" "$(idx | grep -v '^bucket ')"
check "it is not empty" test "$(echo "$kept" | wc -l)" -gt 3

# ---- arm64 binaries on this x86-64 host (a fleet's build host exports for arm64) ----
make -s -C "$top/tests/fixtures" build/sdt_args_aarch64 > /dev/null 2>&1 ||
	{ echo "Bail out! cannot build sdt_args_aarch64"; exit 1; }
A64=$FX/sdt_args_aarch64
export PROBECACHE_DIR=$T/cache64
check "scan an aarch64 binary" sh -c "'$PC_BIN' scan '$A64' > /dev/null 2>&1"
out=$(pc list --format=record 'sdt_pcfix:mem' 2>&1)
check_eq "its record: the aarch64 binary's path" "$A64" "$(cut -d ' ' -f 3 <<< "$out" | sed 's/:0x.*//')"
check_eq "its record carries arm64 register names, accepted as such" \
	"arg1=+0(%x0):u64 arg2=+8(%x1):s32 arg3=-16(%x2):s32 arg4=+0(%sp):u64 arg5=+24(%sp):u64 arg6=+32(%x29):u64" \
	"$(cut -d ' ' -f 4- <<< "$out")"
check_eq "export the aarch64 entries" 0 "$(rc pc export -o "$T/a64.pca" 'sdt_pcfix:*')"
PROBECACHE_DIR=$T/cache64b
check "import them into another cache" sh -c "'$PC_BIN' import '$T/a64.pca' 2>&1 | grep -q ' 0 replaced'"
check_eq "same records after the round trip" "$(PROBECACHE_DIR=$T/cache64 pc list --format=record)" \
	"$(pc list --format=record)"
# A record mixing the machines' register names is valid on neither.
sed 's/arg1=+0(%x0):u64/arg1=+0(%di):u64/' "$T/a64.pca" > "$T/mixed.pca"
out=$(pc import "$T/mixed.pca" 2>&1)
check_eq "an entry mixing x86-64 and arm64 registers is refused" 1 "$?"
check "naming the register" grep -q "entry sdt_pcfix:mem: arg2: unknown register; nothing imported" <<< "$out"
export PROBECACHE_DIR=$T/cache

# ---- add: perf's words (issue 30, points 5 and 10) ----
aw() { PROBECACHE_DIR=$T/addw "$PC_BIN" add -x "$FX/dw_app" "$@"; }
wdef=$(aw -D 'dw_work n' 2>&1)
check "add -D 'FUNC ARG': one definition with its argument" grep -q '^p:probe_dw_app/dw_work .* n=%di:s32$' <<< "$wdef"
check_eq "add -D FUNC ARG unquoted: the same one definition, exit 0 (perf joins the words)" "0 $wdef" \
	"$(aw -D dw_work n > "$T/aw.out" 2>&1; echo $?) $(cat "$T/aw.out")"
check_eq "add FUNC ARG unquoted: one probe added with its argument, exit 0" "0 1 yes" \
	"$(aw dw_work n > "$T/aw.out" 2>&1; echo $?) $(grep -c '^added ' "$T/aw.out") $(grep -q '^added probe_dw_app:dw_work .* n=%di:s32$' "$T/aw.out" && echo yes)"
check_eq "repeated -D: one definition each" 2 "$(aw -D 'dw_work n' -D 'dw_sum n' 2>/dev/null | grep -c '^p:')"
rm -rf "$T/addw"
aw -a 'dw_work n' -a dw_sum n > "$T/aw.out" 2> "$T/aw.err"
check_eq "repeated -a, the last one's words joined: exit 0, two probes added" "0 2" "$? $(grep -c '^added ' "$T/aw.out")"
check "  the last one has its argument" grep -q '^added probe_dw_app:dw_sum .* n=%si:x32$' "$T/aw.out"
check_eq "  the debuginfo line once, not after every definition" 1 "$(grep -c '^debuginfo ' "$T/aw.out")"
check_eq "  'cached, not defined' said once" 1 "$(grep -c 'cached, not defined' "$T/aw.err")"
printf 'dw_work n\ndw_sum n\n' > "$T/aw.defs"
check_eq "--from: the debuginfo line once" 1 "$(rm -rf "$T/addw"; aw --from "$T/aw.defs" 2>/dev/null | grep -c '^debuginfo ')"
check_eq "-D as a flag before other options still prints (-D --force DEF)" "$wdef" "$(aw -D --force 'dw_work n' 2>&1)"
check_eq "-a and -D together: usage error (exit 2)" 2 "$(rc aw -a 'dw_work n' -D 'dw_sum n')"

# ---- getopt discipline (issue 30, point 7) ----
check_eq "a mistyped command: exit 2, did you mean, and a short line (not the usage)" \
	"2 probecache-resolve: unknown command 'lsit'; did you mean list?|Run 'probecache-resolve help' for the list of commands." \
	"$(pc lsit > /dev/null 2> "$T/o.err"; echo $?) $(paste -sd'|' "$T/o.err")"
check_eq "  help of a mistyped command too" \
	"2 probecache-resolve: help: unknown command 'stauts'; did you mean status?" \
	"$(pc help stauts > /dev/null 2> "$T/o.err"; echo $?) $(head -n 1 "$T/o.err")"
check_eq "a mistyped option: exit 2, did you mean, then the command's usage line" \
	"2 probecache-resolve: list: unknown option '--jsno'; did you mean --json?|usage: probecache-resolve list [--format=text|uprobe|record] [--available] [--json] [--names] [PATTERN...]" \
	"$(pc list --jsno > /dev/null 2> "$T/o.err"; echo $?) $(paste -sd'|' "$T/o.err")"
check_eq "  a short option the command lacks offers its long one" \
	"probecache-resolve: scan: unknown option '-n'; did you mean --no-define?" \
	"$(pc scan -n "$FX/rs_sem" 2>&1 | head -n 1)"
check_eq "  an option missing its argument" "2 probecache-resolve: export: option '--output' needs an argument" \
	"$(pc export --output 2> "$T/o.err"; echo $?) $(head -n 1 "$T/o.err")"
check_eq "help --help: exit 0, help's usage" "0 usage: probecache-resolve help [COMMAND]" \
	"$(pc help --help > "$T/o.out" 2>&1; echo $?) $(head -n 1 "$T/o.out")"
: > "$T/bad"
for c in "lsit" "list --jsno" "list -z" "scan -n x" "gc -x" "add -x" "trace -p" "status --bogus" "help nope" "--bogus list" "list a:b:c"; do
	# shellcheck disable=SC2086
	"$PC_BIN" $c > /dev/null 2> "$T/o.err"
	grep -v "^probecache-resolve: \|^usage: probecache-resolve \|^Run 'probecache-resolve help" "$T/o.err" | sed "s/^/$c: /" >> "$T/bad"
done
check_eq "one error prefix: every message is 'probecache-resolve: ', a usage line or the help hint" "" "$(head -n 5 "$T/bad")"
short() { "$PC_BIN" help "$1" | grep -oE "^ +$2, --[a-z-]+" | sed 's/.*--//'; }
check_eq "-f means --force in add and nothing else (list's --format has no short form)" "force|" \
	"$(short add -f)|$(short list -f)"
check_eq "-n means --dry-run in gc and preload, and nothing else (scan's --no-define has no short form)" \
	"dry-run dry-run|" "$(short gc -n) $(short preload -n)|$(short scan -n)"
check_eq "-a means --add in add; list's --available has no short form" "add|" "$(short add -a)|$(short list -a)"
check_eq "global options after the command: list -C DIR" "sdt_libstdcxx:throw" \
	"$(PROBECACHE_DIR=/nonexistent "$PC_BIN" list -C "$T/cache" --names sdt_libstdcxx:throw)"
check_eq "  and after its operands: list PATTERN --cache-dir DIR" "sdt_libstdcxx:throw" \
	"$(PROBECACHE_DIR=/nonexistent "$PC_BIN" list --names sdt_libstdcxx:throw --cache-dir "$T/cache")"
bad=""
for c in scan list add show del clear define arm disarm status gc load unload preload trace export import help; do
	for o in -v -vv -q --verbose --quiet; do
		"$PC_BIN" $c $o --help > /dev/null 2>&1 || bad+=" $c $o"
	done
done
check_eq "every command accepts -v, -vv, -q, --verbose, --quiet" "" "$bad"
v1=$(pc -v list sdt_libstdcxx:throw 2>&1 >/dev/null | wc -l)
v2=$(pc -vv list sdt_libstdcxx:throw 2>&1 >/dev/null | wc -l)
check "-vv says more than -v (the cache files read: $v2 lines vs $v1)" test "$v2" -gt "$v1"
check_eq "-q before the command too" 0 "$(rc pc -q list sdt_libstdcxx:throw)"
qc=$T/qcache
check_eq "-q: scan, add, del, gc and import say nothing on success" "0 0 0 0 0 0|" \
	"$(PROBECACHE_DIR=$qc "$PC_BIN" scan -q --no-define "$LIBSTDCXX" 2>&1; echo -n "$? "
	PROBECACHE_DIR=$qc "$PC_BIN" add -q --no-define -x "$FX/dw_app" dw_work n 2>&1; echo -n "$? "
	PROBECACHE_DIR=$qc "$PC_BIN" export -q -o "$T/q.pca" 'sdt_*' 2>&1; echo -n "$? "
	PROBECACHE_DIR=$qc "$PC_BIN" del -q sdt_libstdcxx:throw 2>&1; echo -n "$? "
	PROBECACHE_DIR=$qc "$PC_BIN" import -q "$T/q.pca" 2>&1; echo -n "$? "
	PROBECACHE_DIR=$qc "$PC_BIN" gc -q 2>&1; echo -n "$?|")"
check_eq "  without -q they report" 1 "$(PROBECACHE_DIR=$qc "$PC_BIN" del sdt_libstdcxx:throw | grep -c '^deleted ')"

# ---- trace: says why it refuses, loads nothing (issue 30, point 9) ----
check_eq "trace -p PID -- CMD: exit 2, says the two exclude each other, then the usage line" \
	"2 probecache-resolve: trace: -p 1 and -- ls: give one; -- CMD traces CMD's own process, -p PID a running one|usage: probecache-resolve trace [-p PID] [PATTERN...] [-- CMD ARGS...]" \
	"$(pc trace -p 1 -- ls > /dev/null 2> "$T/o.err"; echo $?) $(paste -sd'|' "$T/o.err")"
check_eq "trace PATTERN -- (no CMD): exit 2, says so" \
	"2 probecache-resolve: trace: '--' needs a command after it" \
	"$(pc trace sdt_libstdcxx:throw -- > /dev/null 2> "$T/o.err"; echo $?) $(head -n 1 "$T/o.err")"
check_eq "trace without the module: exit 1, loads nothing, names the command that would" \
	"1 probecache-resolve: trace: $T/nosysfs/control: probecache.ko is not loaded; trace loads nothing: run 'probecache-resolve load' first" \
	"$(pc trace sdt_libstdcxx:throw -- true > /dev/null 2> "$T/o.err"; echo $?) $(paste -sd'|' "$T/o.err")"

# ---- show: discovery without the cache (issue 30, point 6) ----
sc=$T/showcache	# show must not create, read or write any cache
sh_() { PROBECACHE_DIR=$sc "$PC_BIN" show "$@"; }
shrc() { sh_ "$@" > "$T/sh.out" 2> "$T/sh.err"; echo $?; }
check_eq "show -F: dw_app's functions, one a line, sorted (perf probe -F)" \
	"atoi dw_chain dw_pair dw_sq dw_sum dw_work main" "$(sh_ -x "$FX/dw_app" -F | xargs)"
check_eq "  GLOB filters them" "dw_sq dw_sum" "$(sh_ -x "$FX/dw_app" -F 'dw_s*' | xargs)"
check_eq "  every one is a FUNC add resolves" "" \
	"$(for f in $(sh_ -x "$FX/dw_app" -F); do aw -D "$f" > /dev/null 2>&1 || echo -n "$f "; done)"
check_eq "  --json: name, declaring file and line" "dw_work $top/tests/fixtures/dw_app.c 35" \
	"$(sh_ -x "$FX/dw_app" -F dw_work --json | python3 -c 'import json,sys; f=json.load(sys.stdin)["functions"][0]; print(f["name"], f["file"], f["line"])' 2>&1)"
check_eq "  a GLOB matching nothing: exit 1, naming the file" \
	"1 probecache-resolve: $FX/dw_app: no function matches 'nosuch*'" "$(shrc -x "$FX/dw_app" -F 'nosuch*') $(cat "$T/sh.err")"
check_eq "  a binary without debuginfo: exit 1, says where it looked" "1 yes" \
	"$(shrc -x /usr/bin/true -F) $(grep -q '^probecache-resolve: /usr/bin/true: no debuginfo found (looked in the binary, .gnu_debuglink, /usr/lib/debug/.build-id' "$T/sh.err" && echo yes)"
mkdir -p "$T/dbglink"
objcopy --only-keep-debug "$FX/dw_app" "$T/dbglink/app.debug"
objcopy --strip-debug --add-gnu-debuglink="$T/dbglink/app.debug" "$FX/dw_app" "$T/dbglink/app"
check_eq "  debuginfo found as add finds it: a stripped copy through .gnu_debuglink" \
	"$(sh_ -x "$FX/dw_app" -F | xargs)" "$(sh_ -x "$T/dbglink/app" -F 2>&1 | xargs)"
LIBC=/lib/x86_64-linux-gnu/libc.so.6
if sh_ -x "$LIBC" -F __libc_malloc > /dev/null 2>&1; then	# libc6-dbg
	check_eq "show -F: ELF aliases add resolves (libc's malloc is __libc_malloc's)" "malloc" \
		"$(sh_ -x "$LIBC" -F 'malloc')"
	lines=$(sh_ -x "$LIBC" -L qsort_r --json | python3 -c 'import json,sys; print(" ".join(str(x["line"]) for x in json.load(sys.stdin)["lines"]))')
	check "show -L of an alias (qsort_r): its function's lines, some ($(wc -w <<< "$lines"))" test -n "$lines"
	check_eq "  add accepts qsort_r:N for each" "" \
		"$(for n in $lines; do PROBECACHE_DIR=$T/addw "$PC_BIN" add -D -x "$LIBC" "qsort_r:$n" > /dev/null 2>&1 || echo -n "$n "; done)"
else
	diag "skip: no debuginfo for $LIBC (libc6-dbg): show's ELF aliases untested"
fi
check_eq "show -V dw_work: perf -V's listing, TYPE NAME and where it is" \
	"Available variables at dw_work|	@<dw_work+0> (file offset 0x$(aw -D dw_work | sed -n 's/^p:[^ ]* [^:]*:0x\([0-9a-f]*\).*/\1/p'))|		s32    n                %di|		s64    scale            %si|		x64    label            %dx|		x64    it               %cx" \
	"$(sh_ -x "$FX/dw_app" -V dw_work 2>&1 | paste -sd'|')"
check_eq "  --json: the variables are what add fetches for \$vars there" \
	"$(aw -D 'dw_work:7 $vars' | cut -d' ' -f3-)" \
	"$(sh_ -x "$FX/dw_app" -V dw_work:7 --json | python3 -c 'import json,sys
l=json.load(sys.stdin)["locations"][0]
print(" ".join("%s=%s:%s" % (v["name"], v["location"], v["type"]) for v in l["variables"]))' 2>&1)"
check_eq "  an inlined function: each instance at its caller" "dw_pair dw_pair" \
	"$(sh_ -x "$FX/dw_app" -V dw_sq --json | python3 -c 'import json,sys; print(*[l["function"] for l in json.load(sys.stdin)["locations"]])' 2>&1)"
check_eq "  a line without code: exit 1, says so as add does" \
	"1 probecache-resolve: $FX/dw_app: dw_pair:3 is $top/tests/fixtures/dw_app.c:61, which has no code (no statement in the line table)" \
	"$(shrc -x "$FX/dw_app" -V dw_pair:3) $(cat "$T/sh.err")"
check_eq "  FUNC%return: the return value, the one thing a return probe fetches" \
	"0 \$retval:u64" "$(shrc -x "$FX/dw_app" -V 'dw_work%return' --json) $(python3 -c 'import json,sys
print(*["%s:%s" % (v["location"], v["type"]) for l in json.load(sys.stdin)["locations"] for v in l["variables"]])' < "$T/sh.out" 2>&1)"
check_eq "  a point with arguments is a usage error" 2 "$(shrc -x "$FX/dw_app" -V 'dw_work n')"
check_eq "show -L dw_work: perf -L's header, then the source with FUNC-relative numbers" \
	"<dw_work@$top/tests/fixtures/dw_app.c:0>|      0  __attribute__((noinline)) long dw_work(int n, long scale, const char *label," \
	"$(sh_ -x "$FX/dw_app" -L dw_work | head -n 2 | paste -sd'|')"
lines=$(sh_ -x "$FX/dw_app" -L dw_work | sed -n 's/^ *\([0-9][0-9]*\)  .*/\1/p' | xargs)
check_eq "  numbered: the lines with a statement of their own (-O2)" "0 7 8 9 10 13" "$lines"
check_eq "  add accepts FUNC:N for each" "" \
	"$(for n in $lines; do aw -D "dw_work:$n" > /dev/null 2>&1 || echo -n "$n "; done)"
check_eq "  a line left unnumbered (the for, sharing the entry's address) add refuses" 1 \
	"$(rc aw -D dw_work:6)"
check_eq "  --json: line and abs_line" "0:35 7:42" \
	"$(sh_ -x "$FX/dw_app" -L dw_work --json | python3 -c 'import json,sys; print(*["%d:%d" % (l["line"], l["abs_line"]) for l in json.load(sys.stdin)["lines"][:2]])' 2>&1)"
check_eq "  no such function: exit 1, naming the file" \
	"1 probecache-resolve: $FX/dw_app: no function nosuch in $FX/dw_app" "$(shrc -x "$FX/dw_app" -L nosuch) $(cat "$T/sh.err")"
check_eq "show --sdt: bpftrace -l's usdt lines, once per PROVIDER:NAME" \
	"usdt:$FX/rs_sem:rs:tick usdt:$FX/rs_sem:rs:always" "$(sh_ -x "$FX/rs_sem" --sdt | cut -d' ' -f1 | xargs)"
check_eq "  GLOB on PROVIDER:NAME; a semaphore said after '  # '" \
	"usdt:$FX/rs_sem:rs:always  # semaphore" "$(sh_ -x "$FX/rs_sem" -S 'rs:al*')"
PROBECACHE_DIR=$T/showscan pc scan --no-define "$FX/rs_sem" > /dev/null
check_eq "  --json: offset, semaphore and args as scan caches them" \
	"$(PROBECACHE_DIR=$T/showscan pc list --json | python3 -c 'import json,sys
for b in json.load(sys.stdin)["binaries"]:
	for p in b["probes"]:
		print(p["spec"], p["offset"], p["ref_ctr"], p["args"])' 2>&1)" \
	"$(sh_ -x "$FX/rs_sem" --sdt --json | python3 -c 'import json,sys
for p in json.load(sys.stdin)["probes"]:
	print("%s:%s" % (p["provider"], p["name"]), p["offset"], p["ref_ctr"], p["args"])' 2>&1)"
check_eq "  a binary without SDT notes: exit 1, naming it" \
	"1 probecache-resolve: $FX/dw_app: no SDT probe (no .note.stapsdt)" "$(shrc -x "$FX/dw_app" --sdt) $(cat "$T/sh.err")"
check_eq "  a missing binary: exit 1, naming it" "1 probecache-resolve: $T/nosuch: No such file or directory" \
	"$(shrc -x "$T/nosuch" --sdt) $(cat "$T/sh.err")"
check "show wrote nothing into the cache directory (libc6-dbg's compressed DWARF gets no copy there)" test ! -e "$sc"
check_eq "show: usage errors exit 2 (no mode, two modes, no -x, a GLOB after -L)" "2 2 2 2" \
	"$(shrc -x "$FX/dw_app") $(shrc -x "$FX/dw_app" -F -L dw_work) $(shrc -F) $(shrc -x "$FX/dw_app" -L dw_work dw_pair)"

# ---- bash completion (issue 30, point 10) ----
mkdir -p "$T/bin" && ln -sf "$PC_BIN" "$T/bin/probecache-resolve"
# comp LINE: what bash completes at the end of LINE, one a line, sorted. The
# words are split as readline splits them: at blanks, ':' a word of its own.
comp() {
	PATH=$T/bin:$PATH bash -c '
		. "$1" || exit 1
		line=$2 COMP_LINE=$2 COMP_POINT=${#2}
		read -ra COMP_WORDS <<< "${line//:/ : }"
		[[ $line == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		fn=$(complete -p probecache-resolve | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
		"$fn" probecache-resolve "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$top/completion/probecache-resolve" "$1" | sort | paste -sd' '
}
check_eq "completion: complete -p shows the function registered for probecache-resolve" \
	"complete -F _probecache_resolve probecache-resolve" \
	"$(bash -c '. "$1" && complete -p probecache-resolve' _ "$top/completion/probecache-resolve")"
check_eq "  commands" "list" "$(comp 'probecache-resolve li')"
check_eq "  commands sharing a prefix" "define del disarm" "$(comp 'probecache-resolve d')"
check_eq "  commands after a global option and its argument" "status" "$(comp "probecache-resolve -C $T/cache st")"
check_eq "  global options before the command" "--cache-dir" "$(comp 'probecache-resolve --ca')"
check_eq "  a command's options, from its help" "--format" "$(comp 'probecache-resolve list --fo')"
check_eq "  add's" "--force --from" "$(comp 'probecache-resolve add -x /bin/true --f')"
check_eq "  global options after the command" "--cache-dir" "$(comp 'probecache-resolve arm --cac')"
check_eq "  --format's values" "record" "$(comp 'probecache-resolve list --format r')"
check_eq "  ... after --format= too" "uprobe" "$(comp 'probecache-resolve list --format=u')"
check_eq "  status's --format values" "json openmetrics text" "$(comp 'probecache-resolve status --format ')"
check_eq "  ... after --format= too" "openmetrics" "$(comp 'probecache-resolve status --format=o')"
check_eq "  status's options, from its help" "--output" "$(comp 'probecache-resolve status --ou')"
check_eq "  cached GROUP:EVENT names (list --names), after the ':' bash splits at" "catch rethrow throw" \
	"$(comp 'probecache-resolve arm sdt_libstdcxx:')"
check_eq "  a name's prefix" "sdt_libstdcxx:throw" "$(comp 'probecache-resolve define sdt_libstdcxx:th' | sed 's/^/sdt_libstdcxx:/')"
check_eq "  from the cache given with -C" "" "$(comp "probecache-resolve -C $T/empty-cache arm sdt_libstdcxx:th")"
check_eq "  files for scan" "$T/tree/sub/nonotes $T/tree/sub/readme.txt" "$(comp "probecache-resolve scan $T/tree/sub/")"
check_eq "  files for -x" "$FX/rs_ver_v1 $FX/rs_ver_v2" "$(comp "probecache-resolve add -x $FX/rs_ver_v")"
check_eq "  show -L: the functions of -x BIN" "dw_sq dw_sum" "$(comp "probecache-resolve show -x $FX/dw_app -L dw_s")"
check_eq "  show's options, from its help" "--sdt" "$(comp 'probecache-resolve show --sd')"
check_eq "  trace -- CMD: commands" "true" "$(comp 'probecache-resolve trace sdt_libstdcxx:throw -- tru' | tr ' ' '\n' | grep -x true | sort -u)"

# ---- the man page's examples (.EX blocks), issue 30 ----
# Every example line is run or skipped with its reason. Run: the cache verbs
# and the example patterns and preload lines, in a fresh cache, in $T/ex (export
# writes probes.pca there, import reads it back). Skipped: what needs
# probecache.ko loaded (load, define, arm, disarm, status, trace) or its trace
# events (perf, bpftrace): the VM suite runs those (tests/vm/t/3*, 63-trace,
# 71-bpftrace); sample output lines (a trace line) are no commands.
man=$top/Documentation/probecache-resolve.1
# ex_block N: the N-th .EX block, groff escapes undone
ex_block() {
	awk -v n="$1" '/^\.EX/ { k++; next } /^\.EE/ { if (k == n) exit } k == n' "$man" |
		sed -e 's/\\(aq/'"'"'/g' -e 's/\\(dq/"/g' -e 's/\\-/-/g' -e 's/\\\\/\\/g'
}
nex=$(grep -c '^\.EX' "$man")
check "the man page has .EX blocks ($nex)" test "$nex" -ge 6
mkdir -p "$T/ex"
exdir=$T/excache
exrun() { (cd "$T/ex" && PROBECACHE_DIR=$exdir PROBECACHE_SDT_DIR=$top/sdt PATH=$T/bin:$PATH eval "$1"); }
exskip() { diag "skip man example '$1': $2"; }
ran=0 skipped=0
# the patterns and preload lines presuppose a cache holding what they name
exrun "probecache-resolve scan --no-define $LIBSTDCXX" > /dev/null 2>&1
[ -x "$PG" ] && exrun "probecache-resolve scan --no-define $PG" > /dev/null 2>&1
# ex_pattern PATTERN: the PATTERNS section's examples, each one list accepts
ex_pattern() {
	case $1 in
	*@/usr/lib/postgresql/*)
		[ -x "$PG" ] || { exskip "$1" "$PG not installed"; skipped=$((skipped + 1)); return; } ;;
	esac
	r=$(exrun "probecache-resolve list '$1'" > "$T/ex.out" 2>&1; echo $?)
	case $1 in
	*@0123abcd) check_eq "man example pattern $1: parsed (no such build-id here: exit 1, not 2)" 1 "$r" ;;
	*) check_eq "man example pattern $1: selects cached probes" 0 "$r" ;;
	esac
	ran=$((ran + 1))
}
# ex_line LINE: a command line of an example, or a preload.conf line
ex_line() {
	cmd=${1%%#*}; cmd=${cmd%"${cmd##*[![:space:]]}"}
	# shellcheck disable=SC2086
	set -- $cmd
	# add of an SDT probe's names scans: no debuginfo, no module (with --no-define)
	case $cmd in
	"probecache-resolve add "*"--no-define "*"'sdt_"*) set -- probecache-resolve scan ;;
	esac
	case "$1 ${2:-}" in
	"probecache-resolve "scan | "probecache-resolve "list | "probecache-resolve "export | \
	"probecache-resolve "import | "probecache-resolve "del | "probecache-resolve "gc | \
	"probecache-resolve "show)
		check_eq "man example: $cmd" 0 "$(exrun "$cmd" > "$T/ex.out" 2>&1; echo $?)"
		ran=$((ran + 1)) ;;
	"probecache-resolve "*)
		exskip "$cmd" "needs probecache.ko loaded (VM suite)"; skipped=$((skipped + 1)) ;;
	perf* | bpftrace*)
		exskip "$cmd" "needs probecache.ko's trace events and $1 (VM suite)"; skipped=$((skipped + 1)) ;;
	systemctl*)
		exskip "$cmd" "needs systemd as PID 1 and the package (tests/vm/sysboot)"; skipped=$((skipped + 1)) ;;
	*"@/usr/lib/postgresql/"*)
		[ -x "$PG" ] || { exskip "$cmd" "$PG not installed"; skipped=$((skipped + 1)); return; } ;&
	sdt_*:*)	# a preload.conf line
		echo "$cmd" > "$T/ex/preload.conf"
		check_eq "man example preload line '$cmd': preload --dry-run accepts it" 0 \
			"$(exrun "probecache-resolve preload --dry-run --config $T/ex/preload.conf" > "$T/ex.out" 2>&1; echo $?)"
		ran=$((ran + 1)) ;;
	*)
		exskip "$cmd" "sample output, not a command" ;;
	esac
}
for n in $(seq 1 "$nex"); do
	while IFS= read -r line; do
		if [ "$n" = 1 ]; then
			ex_pattern "$(eval "printf %s $line")"
		else
			ex_line "$line"
		fi
	done <<< "$(ex_block "$n")"
done
check "man examples: some run ($ran), the rest skipped with a reason ($skipped)" test "$ran" -ge 10

# ---- lazy arming against the fake module (fakemod.so) ----
# fakemod also plays the kernel's tracefs uprobe_events: a p:/r: line makes
# events/GROUP/EVENT, a -: line removes it (EBUSY while events/GROUP/EVENT/in_use
# exists: how these checks play perf, ftrace or BPF holding the event). Every line
# written to control or uprobe_events is journaled in order in $F/ops.
F=$T/fk
mkdir -p "$F/sys" "$F/etc" "$F/run" "$F/tracefs" "$F/proc"
FL=$F/proc/probecache_probes
: > "$F/sys/control"; echo 0 > "$F/sys/nr_probes"; echo 0.1 > "$F/sys/version"; : > "$FL"
: > "$F/tracefs/uprobe_events"
export PROBECACHE_TRACEFS=$F/tracefs
export PROBECACHE_PROC=$F/proc
export PROBECACHE_FAKEMOD_LOG=$F/ops
fk() { env PROBECACHE_SYSFS="$F/sys" LD_PRELOAD="$T/fakemod.so" "$PC_BIN" "$@"; }
fkrc() { fk "$@" > "$T/fk.out" 2> "$T/fk.err"; echo $?; }
# probe NAME KEY: KEY of NAME's line in the fake listing (the ABI's own recipe)
probe() {
	awk -v n="$1" -v k="$2" '$1 == n { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) {
		if (k == "args") { sub(/^[^ ]* .* args=/, ""); print } else print substr($i, length(k) + 2)
		exit } }' "$FL"
}
listed() { [ -n "$(awk -v n="$1" '$1 == n' "$FL")" ] && echo yes || echo no; }
evdir() { echo "$F/tracefs/events/${1%%:*}/${1#*:}"; }
# ev GROUP:EVENT: does the kernel's uprobe event GROUP/EVENT exist?
ev() { [ -d "$(evdir "$1")" ] && echo yes || echo no; }
# busy GROUP:EVENT / idle GROUP:EVENT: perf (ftrace, BPF) starts / stops using its event
busy() { : > "$(evdir "$1")/in_use"; }
idle() { rm -f "$(evdir "$1")/in_use"; }
# uline GROUP:EVENT: the uprobe_events line the add sent for it asks for: the record
# without build-id and pid= (the module counts for one pid; the event has no filter)
uline() {
	local g=${1%%:*} e=${1#*:}
	grep "^add [pr]:$g/$e " "$F/sys/control" | tail -n 1 | cut -d' ' -f2,4- | sed 's/ pid=[0-9]*//'
}
# written: the lines uprobe_events accepted since the journal was emptied
written() { sed -n 's/^uprobe_events //p' "$F/ops" | grep -v ' -> E[A-Z]*$'; }
# jr GROUP:EVENT: the journal's lines about it, in order, as "control COMMAND" or
# "uprobe_events p:" ("r:", "-:"), each followed by " -> ERRNO" if refused
jr() {
	awk -v a="$1" -v b="${1%%:*}/${1#*:}" '{
		for (i = 2; i <= 3; i++) if ($i == a || $i ~ ("^[-pr]:" b "$")) {
			w = $1 " " ($1 == "control" ? $2 : substr($2, 1, 2))
			if ($(NF - 1) == "->") w = w " -> " $NF
			print w; next } }' "$F/ops" | paste -sd'|'
}
# fresh: the module reloaded, no uprobe events left
fresh() {
	: > "$FL"; : > "$F/proc/probecache_sites"; echo 0 > "$F/sys/nr_probes"; : > "$F/sys/control"
	rm -rf "$F/tracefs/events"; : > "$F/tracefs/uprobe_events"; : > "$F/tracefs/error_log"; : > "$F/ops"
}
cp "$FX/rs_sem" "$T/tree/rs_sem"
sem_bid=$(bid "$T/tree/rs_sem")

check_eq "scan with the module loaded: exit 0" 0 "$(fkrc scan "$T/tree/rs_sem")"
check_eq "  defines exactly the scanned file's probes (libstdc++, rs_twin are cached too)" \
	"add $sem_bid|add $sem_bid" "$(cut -d' ' -f1,3 "$F/sys/control" | paste -sd'|')"
alw=$(cut -d' ' -f1 "$FL" | grep '^sdt_rs:always')
check_eq "  under the clash-A name where rs_twin has the same probe" "sdt_rs:always_${sem_bid:0:8}" "$alw"
check_eq "  and says so" "scan: 2 defined in probecache.ko, 0 already, 0 skipped, 0 failed" \
	"$(tail -n 1 "$T/fk.out")"
check_eq "  state defined, its kernel event made, not counting" "defined yes 0" \
	"$(probe sdt_rs:tick state) $(ev sdt_rs:tick) $(probe sdt_rs:tick counting)"
check_eq "  each kernel event: p:GROUP/EVENT PATH:0xOFF(0xREF) ARGS, the record's path, offsets and args" \
	"$(uline sdt_rs:tick)|$(uline "$alw")" "$(written | paste -sd'|')"
check "  (the record's, not empty)" grep -q "^p:sdt_rs/tick $T/tree/rs_sem:0x[0-9a-f]*(0x[0-9a-f]*) arg1=%[a-z]*:s32 arg2=%[a-z]*:s32$" <<< "$(written)"
check_eq "  uprobe_events lists them as the kernel does (offset 0x%016lx)" \
	"$(written | python3 -c 'import re,sys; sys.stdout.write(re.sub(r":0x([0-9a-f]+)", lambda m: ":0x%016x" % int(m.group(1), 16), sys.stdin.read()))')" \
	"$(cat "$F/tracefs/uprobe_events")"
check_eq "  each event written once the module accepted the add" \
	"control add|uprobe_events p:,control add|uprobe_events p:" "$(jr sdt_rs:tick),$(jr "$alw")"
check_eq "  site 0 of each: the record's file, its dev and inode" \
	"$(stat -c '%Hd:%Ld ino=%i' "$T/tree/rs_sem") path=$T/tree/rs_sem" \
	"$(grep '^sdt_rs:tick site=0 ' "$F/proc/probecache_sites" | sed 's/.* dev=/dev=/; s/^dev=//')"
: > "$F/sys/control"; : > "$F/ops"
check_eq "a rescan: exit 0, both already defined" "0 scan: 0 defined in probecache.ko, 2 already, 0 skipped, 0 failed" \
	"$(fkrc scan "$T/tree/rs_sem") $(tail -n 1 "$T/fk.out")"
check_eq "  no event written again" "" "$(written)"
fresh
check_eq "scan --no-define with the module loaded writes nothing" "0 " \
	"$(fkrc scan --no-define "$T/tree/rs_sem") $(cat "$F/sys/control")"

check_eq "define: exit 0" 0 "$(fkrc define sdt_rs:tick)"
check_eq "  says what it defined" "defined sdt_rs:tick ($T/tree/rs_sem)" "$(head -n 1 "$T/fk.out")"
check_eq "  sends add only, no count" "add" "$(cut -d' ' -f1 "$F/sys/control" | paste -sd' ')"
check_eq "  then defines the kernel's event as the record says" "$(uline sdt_rs:tick)" "$(written)"
tick_args=$(cut -d' ' -f5- "$F/sys/control")
check "  the fake listing holds the record's args (spaces and '=')" grep -qx 'arg1=%[a-z]*:s32 arg2=%[a-z]*:s32' <<< "$(probe sdt_rs:tick args)"
check_eq "  status reads them back whole from the listing" "$tick_args" \
	"$(fk status --json | python3 -c 'import json,sys; print(" ".join("%s=%s:%s" % (a["name"], a["location"], a["type"]) for a in json.load(sys.stdin)["probes"][0]["args"]))')"
check_eq "define again: already defined, exit 0" "0 0 defined, 1 already defined, 0 skipped, 0 failed" \
	"$(fkrc define sdt_rs:tick) $(tail -n 1 "$T/fk.out")"
: > "$F/sys/control"
check_eq "arm of a defined probe: exit 0" 0 "$(fkrc arm sdt_rs:tick)"
check_eq "  sends add (EEXIST, the same probe) then count" "count sdt_rs:tick" "$(cat "$F/sys/control")"
check_eq "  reports it armed" "armed sdt_rs:tick ($T/tree/rs_sem)" "$(head -n 1 "$T/fk.out")"
check_eq "  module: armed, counting; the event stays" "armed 1 yes" \
	"$(probe sdt_rs:tick state) $(probe sdt_rs:tick counting) $(ev sdt_rs:tick)"
check_eq "arm again: already armed, nothing sent" "0 0 armed, 1 already armed, 0 skipped, 0 failed|" \
	"$(: > "$F/sys/control"; fkrc arm sdt_rs:tick) $(tail -n 1 "$T/fk.out")|$(cat "$F/sys/control")"
check_eq "arm of an undefined probe defines and counts it" "add count" \
	"$(: > "$F/sys/control"; fk arm -q "sdt_rs:always@$T/tree/rs_sem"; cut -d' ' -f1 "$F/sys/control" | paste -sd' ')"
check_eq "  the event made between the add and the count" "control add|uprobe_events p:|control count" "$(jr "$alw")"

# perf, ftrace or BPF use the event: the kernel refuses its removal, nothing lost
busy sdt_rs:tick
: > "$F/ops"
check_eq "disarm while perf holds the event: exit 1" 1 "$(fkrc disarm sdt_rs:tick)"
check_eq "  names the probe, perf/ftrace and that nothing changed" \
	"probecache-resolve: sdt_rs:tick ($T/tree/rs_sem): in use by perf, ftrace or a BPF program: not deleted, nothing changed; run disarm again once they have stopped" \
	"$(cat "$T/fk.err")"
check_eq "  summary counts it in use" "0 disarmed, 1 in use (unchanged), 0 already gone" "$(tail -n 1 "$T/fk.out")"
check_eq "  the probe is still there, still counting, its event too" "armed 1 yes" \
	"$(probe sdt_rs:tick state) $(probe sdt_rs:tick counting) $(ev sdt_rs:tick)"
check_eq "  the kernel refused the event's removal; the module's del never sent" \
	"uprobe_events -: -> EBUSY" "$(jr sdt_rs:tick)"
idle sdt_rs:tick
: > "$F/ops"
check_eq "disarm again once perf is gone: exit 0" 0 "$(fkrc disarm sdt_rs:tick)"
check_eq "  the probe is deleted, its event too" "no no" "$(listed sdt_rs:tick) $(ev sdt_rs:tick)"
check_eq "  the event removed before the module's del (which lifts the write denial)" \
	"uprobe_events -:|control del" "$(jr sdt_rs:tick)"
check_eq "disarm --keep-defined: stops counting, keeps the event" "0 defined 0 yes" \
	"$(fkrc disarm -k "$alw") $(probe "$alw" state) $(probe "$alw" counting) $(ev "$alw")"
check_eq "  again: nothing to stop, exit 0" "0 $alw ($T/tree/rs_sem): not counting" \
	"$(fkrc disarm -k "$alw") $(head -n 1 "$T/fk.out")"
busy "$alw"
: > "$F/ops"
check_eq "unload while perf holds a probe: exit 1, nothing unloaded" 1 "$(fkrc unload)"
check "  says which probe is in use and that nothing was unloaded" sh -c \
	"grep -q 'unload: sdt_rs:${alw#*:} is in use by ftrace, perf or BPF' '$T/fk.err' &&
	 grep -q 'unload: nothing unloaded, every probe still defined' '$T/fk.err'"
check_eq "  the probe and its event stay, no clear sent" "yes yes|uprobe_events -:sdt_rs/${alw#*:} -> EBUSY" \
	"$(listed "$alw") $(ev "$alw")|$(paste -sd'|' "$F/ops")"
idle "$alw"
: > "$F/ops"
fkrc unload > /dev/null	# no module to remove on this host: only its clear is looked at
check_eq "unload: every probe's event removed, then clear" "uprobe_events -:sdt_rs/${alw#*:}|control clear" \
	"$(paste -sd'|' "$F/ops")"
check_eq "  nothing left defined, no event" "no no" "$(listed "$alw") $(ev "$alw")"
fk define -q sdt_rs:tick
rm -r "$(evdir sdt_rs:tick)"	# root removed it behind us (perf probe -d)
: > "$F/ops"
check_eq "disarm of a probe whose event is gone: exit 0, the definition deleted" "0 no" \
	"$(fkrc disarm sdt_rs:tick) $(listed sdt_rs:tick)"
check_eq "  the kernel said no such event, the module's del followed" "uprobe_events -: -> ENOENT|control del" \
	"$(jr sdt_rs:tick)"

# the file changed since define: count is refused with ESTALE
fk define -q sdt_rs:tick
touch "$F/sys/stale_on_count.sdt_rs:tick"
check_eq "arm of a probe whose file changed since define: exit 1" 1 "$(fkrc arm sdt_rs:tick)"
check "  says the file changed since it was defined, with the module's reason" \
	grep -q "sdt_rs:tick ($T/tree/rs_sem): the file changed since it was defined, not armed (kernel: count: .*build-id changed since add)" "$T/fk.err"
check_eq "  not counting" 0 "$(probe sdt_rs:tick counting)"
fk disarm -q 'sdt_rs:*'
fk define -q sdt_rs:tick
check_eq "arm -p of a probe defined for every process is refused" 1 "$(fkrc arm -p 4242 sdt_rs:tick)"
check "  says why" grep -q "already defined for every process; disarm it first" "$T/fk.err"
fk disarm -q 'sdt_rs:*'
: > "$F/sys/control"; : > "$F/ops"
r=$(fkrc arm -p 4242 sdt_rs:tick)
check_eq "arm -p: pid= in the record, none in the kernel's event (uprobe_events has no pid filter)" \
	"0 1 $(uline sdt_rs:tick)" \
	"$r $(grep -c '^add p:sdt_rs/tick .* pid=4242 ' "$F/sys/control") $(written)"
fk disarm -q 'sdt_rs:*'

# ---- the kernel's event: the line define writes, and what it does when it cannot ----
# want_uprobe BIN: the uprobe_events line of each "add RECORD" on stdin, computed apart
# from the CLI: @+FILEOFF becomes vaddr(FILEOFF) - (vaddr(probe) - probe) from BIN's
# PT_LOADs (what translate_user_vaddr() adds to), args with an index register left out
want_uprobe() {
	python3 -c '
import re, subprocess, sys
segs = []
for l in subprocess.run(["readelf", "-lW", sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
	f = l.split()
	if f and f[0] == "LOAD":
		segs.append((int(f[1], 16), int(f[2], 16), int(f[5], 16)))	# memsz: .bss too
def va(off):
	for o, v, n in segs:
		if o <= off < o + n:
			return v + off - o
	sys.exit("offset %#x in no PT_LOAD" % off)
for line in sys.stdin:
	w = line.split()
	probe = int(re.search(r":0x([0-9a-f]+)", w[3]).group(1), 16)
	args = [a for a in w[4:] if not a.startswith("pid=") and not re.search(r"\([^)]*,", a)]
	args = [re.sub(r"@\+0x([0-9a-f]+)", lambda m: "@+%#x" % (va(int(m.group(1), 16)) - (va(probe) - probe)), a)
		for a in args]
	print(" ".join([w[1], w[3]] + args))' "$1"
}
NP=$FX/sdt_args_nopie	# its data segment's vaddr - offset is not its text's
PROBECACHE_DIR=$T/cachenp fk scan --no-define "$NP" > /dev/null 2>&1
: > "$F/sys/control"; : > "$F/ops"
check_eq "define of records with @+ and index-register args: exit 0" 0 \
	"$(PROBECACHE_DIR=$T/cachenp fkrc define sdt_pcfix:rip sdt_pcfix:globals sdt_pcfix:sib)"
check_eq "  each event: @+ made relative as the kernel adds it, index-register args left out" \
	"$(want_uprobe "$NP" < "$F/sys/control" | sort)" "$(sort <(written))"
check "  (the translation matters here: an @+ of the record is not the event's)" \
	test "$(grep -o '@+0x[0-9a-f]*' "$F/sys/control" | sort -u)" != "$(grep -o '@+0x[0-9a-f]*' <(written) | sort -u)"
check_eq "  every arg left out is named in a warning" \
	"$(grep '^add ' "$F/sys/control" | tr ' ' '\n' | grep -c '^[a-z0-9]*=[^=]*(.*,')" \
	"$(grep -c '^probecache-resolve: warning: sdt_pcfix:[a-z]*: arg arg[0-9] not fetched: an index register has no uprobe_events form$' "$T/fk.err")"
check_eq "  a probe left with no args still has its event" "p:sdt_pcfix/sib $NP" \
	"$(grep '^p:sdt_pcfix/sib ' <(written) | sed 's/:0x.*//')"
PROBECACHE_DIR=$T/cachenp fk disarm -q 'sdt_pcfix:*'

fresh
mkdir -p "$(evdir sdt_rs:tick)"	# someone else's event of that name (perf probe, uprobe_events)
check_eq "define where the kernel refuses the event: exit 1" 1 "$(fkrc define sdt_rs:tick)"
check "  says the event exists, and how to remove it" grep -qF \
	"probecache-resolve: sdt_rs:tick ($T/tree/rs_sem): kernel: an event sdt_rs/tick exists already ('perf probe -d sdt_rs:tick' removes it if it is not probecache's)" "$T/fk.err"
# The kernel would append our probe to that event (append_trace_uprobe()): never written.
check_eq "  nothing written to uprobe_events; the module's add undone; the other event left alone" \
	"control add|control del|no yes" \
	"$(jr sdt_rs:tick)|$(listed sdt_rs:tick) $(ev sdt_rs:tick)"
rmdir "$(evdir sdt_rs:tick)"
# Definers take flock(uprobe_events) around what they read of the module and write
# (kevent.h): a define or a disarm while another holds it waits for it.
fresh
# held_then CMD...: CMD while another process holds the lock for 3 s; prints CMD's exit
# status and whether the holder had let go before CMD returned
held_then() {
	rm -f "$T/lk.held" "$T/lk.gone"
	flock "$F/tracefs/uprobe_events" sh -c ": > '$T/lk.held'; sleep 3; : > '$T/lk.gone'" &
	while [ ! -e "$T/lk.held" ]; do sleep 0.05; done
	"$@" > /dev/null 2>&1
	echo "$? $([ -e "$T/lk.gone" ] && echo waited || echo "did not wait")"
	wait
}
check_eq "define while another definer holds the events lock: waits for it" "0 waited" \
	"$(held_then fk define sdt_rs:tick)"
check_eq "disarm too" "0 waited" "$(held_then fk disarm sdt_rs:tick)"
check_eq "  the probe and its event gone" "no no" "$(listed sdt_rs:tick) $(ev sdt_rs:tick)"
fresh
cp "$T/tree/rs_sem" "$T/tree/rs_sem.new"
echo "$T/tree/rs_sem.new" > "$F/sys/replace_before_add.sdt_rs:tick"
check_eq "define of a file replaced between the CLI's open and the module's add: exit 1" 1 \
	"$(fkrc define sdt_rs:tick)"
check_eq "  says so" "probecache-resolve: sdt_rs:tick ($T/tree/rs_sem): kernel: $T/tree/rs_sem was replaced while it was defined; try again" \
	"$(cat "$T/fk.err")"
check_eq "  the module's add undone, no event" "control add|control del|no no" \
	"$(jr sdt_rs:tick)|$(listed sdt_rs:tick) $(ev sdt_rs:tick)"
fresh
cp "$T/tree/rs_sem" "$T/tree/rs_sem.new"
echo "$T/tree/rs_sem.new" > "$F/sys/replace_after_add.sdt_rs:tick"
check_eq "define of a file replaced once the module verified it: exit 0" 0 "$(fkrc define sdt_rs:tick)"
check_eq "  the event names the verified file through the CLI's open fd, not the path" \
	"$(uline sdt_rs:tick | sed "s|$T/tree/rs_sem:|/proc/self/fd/N:|")" \
	"$(sed -E 's|/proc/self/fd/[0-9]+:|/proc/self/fd/N:|' <(written))"
fk disarm -q 'sdt_rs:*'
fresh

# add defines what it caches when the module is loaded
: > "$F/sys/control"
check_eq "add with the module loaded: exit 0" 0 "$(fkrc add -x "$FX/dw_app" 'dwt:work=dw_work n')"
check_eq "  defines the new probe" "defined dwt:work ($FX/dw_app)" "$(grep '^defined' "$T/fk.out")"
check_eq "  sent add only" "add p:dwt/work" "$(cut -d' ' -f1-2 "$F/sys/control")"
: > "$F/sys/control"
check_eq "add --no-define only caches" "0 " \
	"$(fkrc add --no-define -x "$FX/dw_app" 'dwt:pair=dw_pair x') $(cat "$F/sys/control")"
check_eq "add --arm defines and counts" "0 1" \
	"$(fkrc add --arm -x "$FX/dw_app" 'dwt:pair=dw_pair x') $(probe dwt:pair counting)"
check_eq "add --arm without the module: exit 1, says so" "1 yes" \
	"$(PROBECACHE_SYSFS=$T/nosysfs "$PC_BIN" add --arm -x "$FX/dw_app" 'dwt:pair=dw_pair x' > /dev/null 2> "$T/fk.err"; echo $?) $(grep -q 'not loaded' "$T/fk.err" && echo yes)"
fk disarm -q 'dwt:*'
# a return probe at a function's entry is not the entry probe (one address, two events):
# before, the return probe was taken for dwt:work, already defined, and never sent
fk add -q -x "$FX/dw_app" 'dwt:work=dw_work n' > /dev/null
: > "$F/sys/control"
check_eq "add of a return probe where an entry probe is defined: exit 0" 0 \
	"$(fkrc add -x "$FX/dw_app" 'dwt:work_ret=dw_work%return r=$retval:s64')"
check_eq "  defines it under its own name" "add r:dwt/work_ret__return" \
	"$(cut -d' ' -f1-2 "$F/sys/control")"
check_eq "  list shows both kernel names" "dwt:work dwt:work_ret__return" \
	"$(fk list --names 'dwt:work*' | tr '\n' ' ' | sed 's/ $//')"
fk disarm -q 'dwt:*'

# preload: every entry defined, "count" (the default) ones counted; --stop undoes exactly that
printf 'sdt_rs:tick          # unmarked: counted, as before\nsdt_rs:always@%s define\n' "$T/tree/rs_sem" > "$F/etc/preload.conf"
fk define -q sdt_libstdcxx:throw
printf 'sdt_libstdcxx:throw count\n' > "$F/etc/10.conf"
pl() { env PROBECACHE_ETC="$F/etc" PROBECACHE_RUN="$F/run" PROBECACHE_SYSFS="$F/sys" \
	LD_PRELOAD="$T/fakemod.so" "$PC_BIN" preload "$@"; }
check_eq "preload --dry-run says arm for counted entries, define for the others" \
	"would arm sdt_rs:tick|would define $alw" \
	"$(pl --dry-run | cut -d' ' -f1-3 | paste -sd'|')"
check_eq "preload: exit 0" 0 "$(pl > "$T/fk.out" 2>&1; echo $?)"
check_eq "  summary: the define-only entry said apart, then the line the unit's log always had" \
	"preload: 1 defined only (armed while perf, ftrace or BPF listen), 0 already defined|preload: 1 armed, 0 already armed, 0 skipped, 0 failed" \
	"$(tail -n 2 "$T/fk.out" | paste -sd'|')"
check_eq "  unmarked entry: defined and counting" "armed 1" "$(probe sdt_rs:tick state) $(probe sdt_rs:tick counting)"
check_eq "  'define' entry: defined, not counting" "defined 0" "$(probe "$alw" state) $(probe "$alw" counting)"
pl --config "$F/etc/10.conf" > /dev/null 2>&1
check_eq "  the state file: what it defined, and nocount for what it only counted" \
	"nocount sdt_libstdcxx:throw|$alw|sdt_rs:tick" "$(sort "$F/run/preloaded" | paste -sd'|')"
check_eq "preload --stop: exit 0, counts what it undid once" "0 preload: stopped, 3 preloaded probes disarmed" \
	"$(pl --stop > "$T/fk.out" 2>&1; echo $?) $(tail -n 1 "$T/fk.out")"
check_eq "  deleted what it defined, stopped counting what it only counted" "no no defined 0" \
	"$(listed sdt_rs:tick) $(listed "$alw") $(probe sdt_libstdcxx:throw state) $(probe sdt_libstdcxx:throw counting)"
check "  removed the state file" test ! -e "$F/run/preloaded"
check_eq "  and removed their events, not the one of what it only counted" "no no yes" \
	"$(ev sdt_rs:tick) $(ev "$alw") $(ev sdt_libstdcxx:throw)"
pl > /dev/null 2>&1
busy "$alw"
check_eq "preload --stop while perf uses a preloaded probe: exit 1" 1 "$(pl --stop > /dev/null 2> "$T/fk.err"; echo $?)"
check "  names the probe in use and keeps the state file" sh -c \
	"grep -q '$alw .*in use by perf, ftrace or a BPF program' '$T/fk.err' && test -s '$F/run/preloaded'"
check_eq "  that probe and its event stay" "yes yes" "$(listed "$alw") $(ev "$alw")"
idle "$alw"
check_eq "  a second --stop succeeds" 0 "$(pl --stop > /dev/null 2>&1; echo $?)"
printf 'sdt_rs:tick sometimes\n' > "$F/etc/10.conf"
check_eq "preload refuses an unknown marker, naming file:line" 1 "$(pl --config "$F/etc/10.conf" > /dev/null 2> "$T/fk.err"; echo $?)"
check "  and says what is allowed" grep -q "$F/etc/10.conf:1: 'sdt_rs:tick sometimes': want one PATTERN per line, optionally followed by 'count' or 'define'" "$T/fk.err"
rm "$F/etc/10.conf"

# trace: the probe's event removed behind our back, or tracefs not mounted
mkdir -p "$F/tracefs/instances"
fk disarm -q sdt_libstdcxx:throw	# what preload left: tick alone is defined below
fk define -q sdt_rs:tick
rm -r "$(evdir sdt_rs:tick)"	# root's -: line, or perf probe -d
check_eq "trace (of every defined probe) where a probe's kernel event was removed: exit 1" 1 \
	"$(PROBECACHE_TRACEFS=$F/tracefs fkrc trace -- true)"
check "  says the event was removed, naming it, and that define makes it again" grep -q \
	"sdt_rs:tick is defined in probecache.ko but $F/tracefs/events/sdt_rs/tick/enable does not exist: its uprobe event was removed .*'probecache-resolve define sdt_rs:tick'" "$T/fk.err"
check_eq "  created no instance" "" "$(ls "$F/tracefs/instances")"
check_eq "  trace PATTERN makes it again (its define does), and leaves the probe defined" "yes yes" \
	"$(PROBECACHE_TRACEFS=$F/tracefs fk trace sdt_rs:tick -- true > /dev/null 2>&1; ev sdt_rs:tick) $(listed sdt_rs:tick)"
rm -rf "$(evdir sdt_rs:tick)"
: > "$F/ops"
check_eq "  define makes it again: exit 0, the add refused (the same probe), the event as before" \
	"0 yes|control add -> EEXIST|uprobe_events p:|$(uline sdt_rs:tick)" \
	"$(: > "$F/sys/control"; fkrc define sdt_rs:tick) $(ev sdt_rs:tick)|$(jr sdt_rs:tick)|$(written)"
check_eq "trace without tracefs: exit 1, says mount it" "1 yes" \
	"$(PROBECACHE_TRACEFS=$F/none fkrc trace sdt_rs:tick) $(grep -q 'is tracefs mounted' "$T/fk.err" && echo yes)"
check_eq "trace of a pattern nothing matches: exit 1" 1 "$(PROBECACHE_TRACEFS=$F/tracefs fkrc trace 'nomatch:*' -- true)"
mkdir -p "$F/tracefs/events/sdt_rs/tick"
: > "$F/tracefs/events/sdt_rs/tick/enable"
check_eq "trace whose instance lacks the event cannot enable it: exit 1" 1 \
	"$(PROBECACHE_TRACEFS=$F/tracefs fkrc trace sdt_rs:tick)"
check "  names the probe and the enable file" grep -q "trace: sdt_rs:tick: cannot enable $F/tracefs/instances/probecache-[0-9]*/events/sdt_rs/tick/enable" "$T/fk.err"
check_eq "  and removed its instance" "" "$(ls "$F/tracefs/instances")"
fk disarm -q 'sdt_rs:*'
fk define -q "sdt_rs:always@$T/tree/rs_sem"
PROBECACHE_TRACEFS=$F/tracefs fkrc trace sdt_rs:tick > /dev/null
check_eq "trace deletes what it defined, keeps what was defined before" "$alw" \
	"$(cut -d' ' -f1 "$FL" | grep sdt_rs | paste -sd' ')"
check_eq "  their events too" "no yes" "$(ev sdt_rs:tick) $(ev "$alw")"

# ---- a probe follows its build-id: other copies a process maps become sites ----
# (issue 27; the module's side is tests/vm/t/23-kmod-sites.sh). Before the follow
# (38434af) define sent only the add line: none of these site checks passed.
cp "$real" "$T/libcopy.so.6"
LD_PRELOAD="$T/libcopy.so.6" sleep 60 &
sp=$!
until grep -q "$T/libcopy.so.6" /proc/$sp/maps 2> /dev/null; do sleep 0.05; done
fk disarm -q 'sdt_libstdcxx:throw'	# preload left it defined: a fresh define
: > "$F/sys/control"; : > "$F/ops"
out=$(fk define 'sdt_libstdcxx:throw' 2>&1)
# Other processes on this machine may map copies of the same libstdc++ (CI's chroot
# builds run beside this suite): they are sites too, rightly; look for ours.
check "define: a site line for the copy a process maps" \
	grep -Fqx "site sdt_libstdcxx:throw $T/libcopy.so.6" "$F/sys/control"
check "  and says it followed it, with the pid" grep -q "^followed sdt_libstdcxx:throw to $T/libcopy.so.6 (pid $sp)$" <<< "$out"
# copy_event PATH-ERE: the name of the event uprobe_events got for the copy at PATH
copy_event() { sed -En "s#^p:sdt_libstdcxx/(throw_copy[0-9]+) $1:0x.*#\1#p" <(written); }
cpev=$(copy_event "$T/libcopy.so.6")
check_eq "  the copy gets an event of its own, EVENT_copyN, on the copy, as the probe's" \
	"$(uline sdt_libstdcxx:throw | sed "s#^p:sdt_libstdcxx/throw [^:]*:#p:sdt_libstdcxx/throw_copyN $T/libcopy.so.6:#")" \
	"$(grep " $T/libcopy.so.6:" <(written) | sed 's#/throw_copy[0-9]* #/throw_copyN #')"
check_eq "  made once the module accepted the site" "control site sdt_libstdcxx:throw $T/libcopy.so.6|uprobe_events p:sdt_libstdcxx/$cpev" \
	"$(grep -E "^control site .* $T/libcopy.so.6\$|^uprobe_events p:sdt_libstdcxx/$cpev " "$F/ops" | cut -d' ' -f1-4 | sed 's/^\(uprobe_events [^ ]*\) .*/\1/' | paste -sd'|')"
check_eq "  the module lists the copy as a site of the probe, on the copy's inode" \
	"dev=$(stat -c '%Hd:%Ld ino=%i' "$T/libcopy.so.6")" \
	"$(grep "^sdt_libstdcxx:throw site=[1-9].* path=$T/libcopy.so.6$" "$F/proc/probecache_sites" | grep -o 'dev=.* ino=[0-9]*')"
busy "sdt_libstdcxx:$cpev"
: > "$F/ops"
check_eq "disarm while perf uses a copy's event: exit 1, the probe and both events stay" "1 yes yes yes" \
	"$(fkrc disarm sdt_libstdcxx:throw) $(listed sdt_libstdcxx:throw) $(ev sdt_libstdcxx:throw) $(ev "sdt_libstdcxx:$cpev")"
check_eq "  the kernel refused the copy's; the probe's event and del never sent" "uprobe_events -: -> EBUSY|" \
	"$(jr "sdt_libstdcxx:$cpev")|$(jr sdt_libstdcxx:throw)"
idle "sdt_libstdcxx:$cpev"
: > "$F/ops"
check_eq "disarm once it stopped: exit 0, the probe and every event gone" "0 no no no" \
	"$(fkrc disarm sdt_libstdcxx:throw) $(listed sdt_libstdcxx:throw) $(ev sdt_libstdcxx:throw) $(ev "sdt_libstdcxx:$cpev")"
check_eq "  the copies' events first (ours among them), then the probe's, then the module's del" \
	"uprobe_events -:sdt_libstdcxx/throw_copy*|uprobe_events -:sdt_libstdcxx/throw|control del sdt_libstdcxx:throw|1" \
	"$(sed -E 's#^(uprobe_events -:sdt_libstdcxx/throw_copy)[0-9]+$#\1*#' "$F/ops" | uniq | paste -sd'|')|$(grep -cx "uprobe_events -:sdt_libstdcxx/$cpev" "$F/ops")"
fk define -q 'sdt_libstdcxx:throw'
rm "$T/libcopy.so.6"
fk disarm -q 'sdt_libstdcxx:throw'
: > "$F/sys/control"
out=$(fk define 'sdt_libstdcxx:throw' 2>&1)
check_eq "  deleted while mapped: followed through map_files" \
	"site sdt_libstdcxx:throw /proc/$sp/map_files/" \
	"$(grep -o "^site [^ ]* /proc/$sp/map_files/" "$F/sys/control")"
check "  and said deleted" grep -q "^followed sdt_libstdcxx:throw to /proc/$sp/map_files/[0-9a-f-]*, deleted (pid $sp)$" <<< "$out"
check "  its event names it through map_files" test -n "$(copy_event "/proc/$sp/map_files/[0-9a-f]+-[0-9a-f]+")"
fk disarm -q 'sdt_libstdcxx:throw'
: > "$F/sys/control"
cp "$real" "$T/libpath.so.6"
out=$(fk define --path "$T/libpath.so.6" 'sdt_libstdcxx:throw' 2>&1)
check_eq "define --path: the probe on that file only, no site" "add $T/libpath.so.6:" \
	"$(cut -d' ' -f1,4 "$F/sys/control" | cut -d: -f1 | paste -sd'|'):"
check_eq "define --path with a relative path: exit 2" 2 "$(fkrc define --path lib.so 'sdt_libstdcxx:throw')"
check "  naming the option" grep -q "define: --path 'lib.so': not an absolute path" "$T/fk.err"
fk disarm -q 'sdt_libstdcxx:throw'
kill $sp
wait $sp 2> /dev/null
rm -f "$T/libpath.so.6"

# ---- follow: copies mapped after the define (a process started, a dlopen, a namespace) ----
# Before `follow` existed these copies got no site line at all (define sweeps once).
fk define -q 'sdt_libstdcxx:throw'
: > "$F/sys/control"
cp "$real" "$T/later.so.6"
cp "$real" "$T/dl.so.6"
cp "$real" "$T/off.so.6"
python3 "$top/tests/lib/flipbid.py" "$T/off.so.6"
mkdir -p "$T/fns"
PROBECACHE_SYSFS="$F/sys" LD_PRELOAD="$T/fakemod.so" "$PC_BIN" follow > "$T/follow.out" 2> "$T/follow.err" &
fp=$!
for _ in $(seq 100); do grep -q '^follow: watching' "$T/follow.out" && break; sleep 0.1; done
check "follow: starts watching executable mappings" grep -q '^follow: watching executable mappings on [0-9]* CPUs$' "$T/follow.out"
check_eq "  publishes its counters at start: $fs, its pid, mode 0644" "pid $fp 644" \
	"$(grep '^pid ' "$fs" 2>&1) $(stat -c %a "$fs" 2>&1)"
# sited PATH-ERE: a site line matching it reaches the control file within 5 s
sited() {
	for _ in $(seq 50); do grep -Eq "^site sdt_libstdcxx:throw $1$" "$F/sys/control" && return 0; sleep 0.1; done
	return 1
}
LD_PRELOAD="$T/later.so.6" sleep 60 &
lp=$!
check "  a process started later on a copy: site line by its path" sited "$T/later.so.6"
check "  and says so, with the pid" grep -q "^followed sdt_libstdcxx:throw to $T/later.so.6 (pid $lp)$" "$T/follow.out"
# evented PATH-ERE: the copy at PATH gets its event within 5 s
evented() {
	for _ in $(seq 50); do [ -n "$(copy_event "$1")" ] && return 0; sleep 0.1; done
	return 1
}
check "  and its own event, EVENT_copyN" evented "$T/later.so.6"
python3 -c "import ctypes, time; ctypes.CDLL('$T/dl.so.6'); time.sleep(60)" &
dp=$!
check "  a copy dlopen'ed later: site line" sited "$T/dl.so.6"
unshare -m sh -c "mount -t tmpfs none $T/fns && cp $real $T/fns/lib.so.6 && LD_PRELOAD=$T/fns/lib.so.6 exec sleep 60" &
np=$!
check "  a copy in a private mount namespace started later: through map_files" sited "/proc/$np/map_files/[0-9a-f]+-[0-9a-f]+"
check "  its event too" evented "/proc/$np/map_files/[0-9a-f]+-[0-9a-f]+"
LD_PRELOAD="$T/off.so.6" sleep 60 &
op=$!
sleep 1
check_eq "  a copy whose build-id is one byte off: never handed" "" "$(grep "off.so.6\|/proc/$op/" "$F/sys/control")"
# within SECONDS CMD...: CMD succeeds within SECONDS (tried every 0.1 s)
within() {
	local n=$(($1 * 10))
	shift
	until "$@"; do n=$((n - 1)); [ $n -gt 0 ] || return 1; sleep 0.1; done
}
check "  its file counts the copies it followed within about a second (3 or more added)" \
	within 3 awk '$1 == "added" && $2 >= 3 { ok = 1 } END { exit !ok }' "$fs"
fk status --format=openmetrics > "$T/omf.prom" 2> "$T/omf.err"
check_eq "  status while it runs: exit 0, probecache_follower_up 1 (its pid lives, 'follow' its argument)" \
	"0 probecache_follower_up 1" "$? $(grep '^probecache_follower_up' "$T/omf.prom")$(cat "$T/omf.err")"
check "  and its sites added (3 or more)" \
	awk '$1 == "probecache_follower_sites_added_total" && $2 >= 3 { ok = 1 } END { exit !ok }' "$T/omf.prom"
om_valid "  status while a follower runs" "$T/omf.prom"
# Every exec maps: the counts change all the time, the file is written once a second at
# most. Its versions (mtime, in ns) seen over ~3 s of execs: 2 to the seconds + 1.
t0=$(date +%s%N)
for _ in $(seq 30); do stat -c %y "$fs"; /bin/true; sleep 0.1; done > "$T/mtimes"
el=$((($(date +%s%N) - t0) / 1000000))
n=$(sort -u "$T/mtimes" | wc -l)
check "  rewritten while mappings come, at most once a second ($n versions in $el ms)" \
	test "$n" -ge 2 -a "$n" -le $((el / 1000 + 2))
kill -TERM $fp; wait $fp; r=$?
check_eq "  SIGTERM ends it: exit 0" 0 "$r"
# At least our 3 copies: other processes may map copies of their own (above).
check "  printing its counts" awk '/^follow: [0-9]+ mappings, [0-9]+ queued a sweep, [0-9]+ sweeps \([0-9]+ of every process\), [0-9]+ copies followed, 0 refused, 0 records lost$/ && $14 >= 3 { ok = 1 } END { exit !ok }' "$T/follow.out"
check_eq "  nothing on stderr" "" "$(cat "$T/follow.err")"
# the counts line's mappings, queued, sweeps, full, copies followed, refused, lost
counts=$(awk '/^follow: [0-9]/ { print $2, $4, $8, substr($10, 2), $14, $17, $19 }' "$T/follow.out")
check_eq "  at its exit its file holds the counts it printed (${counts:-none})" "${counts:-none}" \
	"$(awk '{ v[$1] = $2 } END { print v["mappings"], v["queued"], v["sweeps"], v["full"], v["added"], v["refused"], v["lost"] }' "$fs")"
check_eq "  no temporary file left beside it" "follower.stats" "$(ls "$PROBECACHE_RUN")"
fk status --format=openmetrics > "$T/omf.prom" 2> "$T/omf.err"
check_eq "  status once it exited: up 0, its last counts kept" \
	"probecache_follower_up 0 $(awk '/^follow: [0-9]/ { print $14 }' "$T/follow.out")" \
	"$(grep '^probecache_follower_up' "$T/omf.prom") $(awk '$1 == "probecache_follower_sites_added_total" { print $2 }' "$T/omf.prom")$(cat "$T/omf.err")"
kill $lp $dp $np $op 2> /dev/null
wait $lp $dp $np $op 2> /dev/null
check_eq "follow with an argument: exit 2" 2 "$(fkrc follow extra)"
check_eq "follow --once: exit 0, no counters file (it would overwrite a running follower's)" \
	"0 no" "$(PROBECACHE_RUN=$T/once fkrc follow --once) $([ -e "$T/once" ] && echo yes || echo no)"
# A counters file it cannot write ($PROBECACHE_RUN under a regular file): said once, the
# follower goes on; at least two tries (the start, the exit) in between.
: > "$T/notadir"
PROBECACHE_RUN=$T/notadir/run PROBECACHE_SYSFS="$F/sys" LD_PRELOAD="$T/fakemod.so" "$PC_BIN" follow -q \
	> "$T/follow2.out" 2> "$T/follow2.err" &
fp=$!
check "follow with a counters file it cannot write: watches all the same" \
	within 10 grep -q '^follow: watching' "$T/follow2.out"
for _ in $(seq 15); do /bin/true; sleep 0.1; done
kill -TERM $fp; wait $fp; r=$?
check_eq "  exit 0 at SIGTERM, the failure said once" \
	"0 probecache-resolve: warning: follow: $T/notadir/run/follower.stats: Not a directory; its counters are not published (said once)" \
	"$r $(cat "$T/follow2.err")"
fk disarm -q 'sdt_libstdcxx:throw'

# ---- follow: a site lives while a process maps it; retries; whose copies (issue 42) ----
# The module lists mapped=0|1 and uid= per site and takes "unsite GROUP:EVENT MAJ:MIN
# INO" (the kernel side: tests/vm); here fakemod plays it, a test setting mapped=0 in
# the listing as the module would once the copy's processes exited. Before issue 42 no
# site was ever released by the CLI, a refusal for the moment was never tried again and
# every owner's copies were handed: the checks marked (new) failed then.
fk define -q 'sdt_libstdcxx:throw'
# mapcopy NAME: a copy of libstdc++ at $T/NAME that a sleep maps; its pid in $cp
mapcopy() {
	cp "$real" "$T/$1"
	LD_PRELOAD="$T/$1" sleep 60 &
	cp=$!
	until grep -q "$T/$1" /proc/$cp/maps 2> /dev/null; do sleep 0.05; done
}
# unmap PATH: the module lists the site at PATH as mapped by no process
unmap() {
	sed -i "s#^\(sdt_libstdcxx:throw site=[1-9][0-9]* .*\) mapped=1 \(.* path=$1\)\$#\1 mapped=0 \2#" \
		"$F/proc/probecache_sites"
}
# siteof PATH: is the inode at PATH a site of the probe?
siteof() {
	grep -q "^sdt_libstdcxx:throw site=[1-9].* dev=$(stat -c '%Hd:%Ld ino=%i' "$1") " \
		"$F/proc/probecache_sites" && echo yes || echo no
}
ino_of() { stat -c '%Hd:%Ld %i' "$1"; }
mapcopy idle.so.6
ip=$cp
fk follow --once -q > /dev/null 2>&1
iev=$(copy_event "$T/idle.so.6")
check_eq "follow --once: the copy a process maps is a site, with its event, uid= listed" \
	"yes yes uid=0" "$(siteof "$T/idle.so.6") $(ev "sdt_libstdcxx:$iev") $(grep -o "uid=[0-9]* dev=$(stat -c '%Hd:%Ld ino=%i' "$T/idle.so.6") " "$F/proc/probecache_sites" | cut -d' ' -f1)"
kill $ip; wait $ip 2> /dev/null
unmap "$T/idle.so.6"
busy "sdt_libstdcxx:$iev"
: > "$F/ops"
check_eq "a site no process maps whose copy event a tracer uses: exit 0 (new)" 0 "$(fkrc follow --once -q)"
check_eq "  the event's removal refused, no unsite sent: the site and event stay (new)" \
	"uprobe_events -:sdt_libstdcxx/$iev -> EBUSY| yes yes" \
	"$(grep -E "unsite|/$iev" "$F/ops" | paste -sd'|')| $(siteof "$T/idle.so.6") $(ev "sdt_libstdcxx:$iev")"
idle "sdt_libstdcxx:$iev"
: > "$F/ops"; : > "$F/sys/lock_log"
check_eq "once the tracer is gone: exit 0 (new)" 0 "$(fkrc follow --once)"
check_eq "  its copy event removed first, then unsite written (new)" \
	"uprobe_events -:sdt_libstdcxx/$iev|control unsite sdt_libstdcxx:throw $(ino_of "$T/idle.so.6")" \
	"$(grep -E "unsite|/$iev" "$F/ops" | paste -sd'|')"
check_eq "  both under the events lock (new)" \
	"-:sdt_libstdcxx/$iev locked|unsite sdt_libstdcxx:throw $(ino_of "$T/idle.so.6") locked" \
	"$(paste -sd'|' "$F/sys/lock_log")"
rm "$F/sys/lock_log"
check_eq "  the site and its event are gone (new)" "no no" "$(siteof "$T/idle.so.6") $(ev "sdt_libstdcxx:$iev")"
check "  and it says so (new)" grep -qx "released sdt_libstdcxx:throw from $T/idle.so.6 (no process maps it)" "$T/fk.out"

mapcopy again.so.6
ap=$cp
fk follow --once -q > /dev/null 2>&1
aev=$(copy_event "$T/again.so.6")
unmap "$T/again.so.6"
: > "$F/sys/mapped_on_unsite.sdt_libstdcxx:throw"
: > "$F/ops"
check_eq "a site listed idle but mapped again before the unsite: exit 0 (new)" 0 "$(fkrc follow --once -q)"
check_eq "  event removed, unsite refused (EBUSY), the copy's event defined again (new)" \
	"uprobe_events -:|control unsite -> EBUSY|uprobe_events p:" \
	"$(grep -E "unsite|$T/again.so.6:|/$aev\$" "$F/ops" | sed -E 's/^(uprobe_events ..).*/\1/; s/^(control unsite).* -> /\1 -> /' | paste -sd'|')"
check_eq "  the site stays, with an event on it (new)" "yes yes" \
	"$(siteof "$T/again.so.6") $([ -n "$(copy_event "$T/again.so.6")" ] && echo yes || echo no)"

# A site whose event went (removed behind our back, or its definition failed)
aev=$(copy_event "$T/again.so.6")
rm -rf "$(evdir "sdt_libstdcxx:$aev")"
sed -i "\#/$aev #d" "$F/tracefs/uprobe_events"
: > "$F/ops"
check_eq "a site the module has whose copy event is gone: follow --once exit 0" 0 "$(fkrc follow --once)"
check "  defines its event again (new)" test -n "$(copy_event "$T/again.so.6")"
check "  and says so (new)" grep -qx "sdt_libstdcxx:throw: copy $T/again.so.6 had no event: defined again" "$T/fk.out"
check_eq "  no site line for it: the module has it" "" "$(grep "control site .* $T/again.so.6" "$F/ops")"
kill $ap; wait $ap 2> /dev/null

# An upgrade renames a new copy over the old one: two sites under one name, whose events
# uprobe_events cannot tell apart. The old one released: the new one keeps an event.
mapcopy up.so.6; op1=$cp
fk follow --once -q > /dev/null 2>&1
oldino=$(stat -c %i "$T/up.so.6")
cp "$real" "$T/up.tmp" && mv "$T/up.tmp" "$T/up.so.6"
LD_PRELOAD="$T/up.so.6" sleep 60 &
op2=$!
until grep -q "$T/up.so.6" /proc/$op2/maps 2> /dev/null; do sleep 0.05; done
fk follow --once -q > /dev/null 2>&1
check_eq "a copy renamed over another: both sites, one event each, one name" "2 2" \
	"$(grep -c "^sdt_libstdcxx:throw site=[1-9].* path=$T/up.so.6\$" "$F/proc/probecache_sites") $(grep -c " $T/up.so.6:0x" "$F/tracefs/uprobe_events")"
# The follower running (its start swept every process): no sweep after the release
# would give the new copy its event back.
PROBECACHE_SYSFS="$F/sys" LD_PRELOAD="$T/fakemod.so" "$PC_BIN" follow -q > "$T/follow4.out" 2> "$T/follow4.err" &
fp=$!
within 10 grep -q '^follow: watching' "$T/follow4.out"
kill $op1; wait $op1 2> /dev/null
sed -i "s#^\(sdt_libstdcxx:throw site=[1-9][0-9]* .*\) mapped=1 \(.* ino=$oldino path=$T/up.so.6\)\$#\1 mapped=0 \2#" \
	"$F/proc/probecache_sites"
check "  the old one's processes exited: the follower releases its site" \
	within 5 sh -c "! grep -q 'ino=$oldino path=$T/up.so.6\$' '$F/proc/probecache_sites'"
sleep 0.5
check_eq "  the new one stays, with its event (removed with the old one's, defined again) (new)" \
	"yes 1" "$(siteof "$T/up.so.6") $(grep -c " $T/up.so.6:0x" "$F/tracefs/uprobe_events")"
kill -TERM $fp; wait $fp
kill $op2; wait $op2 2> /dev/null

# Refusals: one for the moment is tried again after its backoff, a proof never.
PROBECACHE_SYSFS="$F/sys" LD_PRELOAD="$T/fakemod.so" "$PC_BIN" follow > "$T/follow3.out" 2> "$T/follow3.err" &
fp=$!
within 10 grep -q '^follow: watching' "$T/follow3.out"
echo "EIO 1" > "$F/sys/fail_site.eio.so.6"
echo "ESTALE" > "$F/sys/fail_site.stale.so.6"
echo "EREMOTE" > "$F/sys/fail_site.remote.so.6"
t0=$(date +%s%N)	# before its mapping: the refusal comes after, the retry 1 s later still
mapcopy eio.so.6; ep=$cp
mapcopy stale.so.6; sp2=$cp
mapcopy remote.so.6; rp=$cp
check "follow: a copy refused with EIO is handed again and becomes a site (new)" \
	within 8 grep -q "^control site sdt_libstdcxx:throw $T/eio.so.6\$" "$F/ops"
el=$((($(date +%s%N) - t0) / 1000000))
check_eq "  refused once, accepted at the retry (after ${el} ms)" \
	"control site sdt_libstdcxx:throw $T/eio.so.6 -> EIO|control site sdt_libstdcxx:throw $T/eio.so.6" \
	"$(grep "^control site .* $T/eio.so.6" "$F/ops" | paste -sd'|')"
check "  after its backoff (1 s or more)" test "$el" -ge 900
check "  its event too (new)" evented "$T/eio.so.6"
sleep 3	# past the 1 s and 2 s backoffs
check_eq "  ESTALE (a proof): refused once, never handed again" 1 \
	"$(grep -c "^control site .* $T/stale.so.6 -> ESTALE" "$F/ops")"
check_eq "  EREMOTE (a filesystem whose server can stall): the same" 1 \
	"$(grep -c "^control site .* $T/remote.so.6 -> EREMOTE" "$F/ops")"
check "  each refusal said, with the module's reason" \
	grep -q "warning: sdt_libstdcxx:throw: site $T/stale.so.6 (pid $sp2): .*ESTALE" "$T/follow3.err"
kill -TERM $fp; wait $fp
kill $ep $sp2 $rp; wait $ep $sp2 $rp 2> /dev/null
rm -f "$F"/sys/fail_site.*

# Whose copies: $PROBECACHE_ETC/follow.conf
mkdir -p "$T/fetc"
mapcopy mine.so.6; mp=$cp
mapcopy theirs.so.6; tp=$cp
chown 4242 "$T/theirs.so.6"
printf '# root only\nowners root\n' > "$T/fetc/follow.conf"
: > "$F/ops"
check_eq "follow.conf 'owners root': exit 0" 0 "$(PROBECACHE_ETC=$T/fetc fkrc follow --once -q)"
check_eq "  root's copy handed, uid 4242's not (new)" "yes no" \
	"$(siteof "$T/mine.so.6") $(grep -q "control site .* $T/theirs.so.6" "$F/ops" && echo yes || echo no)"
check_eq "  define's own sweep leaves uid 4242's copy out too (new)" "0 no" \
	"$(PROBECACHE_ETC=$T/fetc fkrc define -q 'sdt_libstdcxx:throw') $(grep -q "control site .* $T/theirs.so.6" "$F/ops" && echo yes || echo no)"
printf 'owners nosuchuser42\n' > "$T/fetc/follow.conf"
check_eq "  a bad follow.conf: define defines, follows no other copy, names the file (new)" \
	"0 no|probecache-resolve: $T/fetc/follow.conf:1: owner 'nosuchuser42': no such user (getpwnam)|probecache-resolve: warning: no other copy followed: $T/fetc/follow.conf must be fixed first" \
	"$(PROBECACHE_ETC=$T/fetc fkrc define -q 'sdt_libstdcxx:throw') $(grep -q "control site .* $T/theirs.so.6" "$F/ops" && echo yes || echo no)|$(paste -sd'|' "$T/fk.err")"
printf 'owners 4242  # a uid\n' > "$T/fetc/follow.conf"
check_eq "follow.conf 'owners 4242': uid 4242's copy handed" "0 yes" \
	"$(PROBECACHE_ETC=$T/fetc fkrc follow --once -q) $(siteof "$T/theirs.so.6")"
printf 'owners all\n\nowners root nosuchuser42\n' > "$T/fetc/follow.conf"
check_eq "a follow.conf naming no user: follow refuses to start, exit 1 (new)" "1 " \
	"$(PROBECACHE_ETC=$T/fetc PROBECACHE_SYSFS="$F/sys" LD_PRELOAD="$T/fakemod.so" timeout 10 "$PC_BIN" follow > "$T/fk.out" 2> "$T/fk.err"; echo $?) $(cat "$T/fk.out")"
check_eq "  naming file:line, the owner and why (new)" \
	"probecache-resolve: $T/fetc/follow.conf:3: owner 'nosuchuser42': no such user (getpwnam)|probecache-resolve: follow: not started: $T/fetc/follow.conf must be fixed first" \
	"$(paste -sd'|' "$T/fk.err")"
printf 'owner root\n' > "$T/fetc/follow.conf"
check_eq "  an unknown setting: the same (new)" \
	"1 probecache-resolve: $T/fetc/follow.conf:1: 'owner root': unknown setting; want 'owners all' or 'owners USER|UID...'" \
	"$(PROBECACHE_ETC=$T/fetc fkrc follow --once) $(head -n 1 "$T/fk.err")"
printf 'owners all 0\n' > "$T/fetc/follow.conf"
check_eq "  'all' with owners: the same (new)" \
	"1 probecache-resolve: $T/fetc/follow.conf:1: 'all' with owners listed: 'all' stands alone" \
	"$(PROBECACHE_ETC=$T/fetc fkrc follow --once) $(head -n 1 "$T/fk.err")"

# The per-owner bound: uid 4242 may hold 1 site (max_sites_per_owner); its second copy
# waits (EDQUOT) until the first one's processes exit and its site goes.
kill $mp; wait $mp 2> /dev/null
mapcopy theirs2.so.6; t2=$cp
chown 4242 "$T/theirs2.so.6"
echo 1 > "$F/sys/max_sites_per_owner"
: > "$F/ops"
check_eq "a second copy of an owner at max_sites_per_owner: exit 0, refused EDQUOT" \
	"0 control site sdt_libstdcxx:throw $T/theirs2.so.6 -> EDQUOT" \
	"$(fkrc follow --once -q) $(grep "^control site .* $T/theirs2.so.6" "$F/ops")"
kill $tp; wait $tp 2> /dev/null
unmap "$T/theirs.so.6"
: > "$F/ops"
check_eq "  once the first copy's processes exited: its site goes, the second is handed (new)" \
	"0 no yes" "$(fkrc follow --once -q) $(siteof "$T/theirs.so.6") $(siteof "$T/theirs2.so.6")"
kill $t2; wait $t2 2> /dev/null
rm -f "$F/sys/max_sites_per_owner"
fk disarm -q 'sdt_libstdcxx:throw'

# ---- del / clear / gc of probes defined in the kernel (as perf probe -d) ----
fk define -q sdt_rs:tick
check_eq "del of a probe defined in probecache.ko: exit 0" 0 "$(fkrc del sdt_rs:tick)"
check_eq "  deletes the module's definition and the kernel's event too" "no no" "$(listed sdt_rs:tick) $(ev sdt_rs:tick)"
check "  and says so" grep -qxF "disarmed sdt_rs:tick ($T/tree/rs_sem)" "$T/fk.out"
check_eq "  and the cache entry" "" "$(pc list --format=record sdt_rs:tick 2>/dev/null)"
fk scan --no-define "$T/tree/rs_sem" > /dev/null
fk define -q sdt_rs:tick
busy sdt_rs:tick
check_eq "del of a probe perf still uses: exit 1" 1 "$(fkrc del sdt_rs:tick)"
check "  refuses, naming the command that would delete it" \
	grep -q "del: nothing removed from the cache: 1 of its probes are defined in probecache.ko .* run 'probecache-resolve disarm PATTERN', then 'del' again" "$T/fk.err"
check_eq "  the cache entry, the definition and the kernel event all stay" "yes yes p:sdt_rs/tick" \
	"$(listed sdt_rs:tick) $(ev sdt_rs:tick) $(pc list --format=record sdt_rs:tick | cut -d' ' -f1)"
idle sdt_rs:tick
mkdir -p "$T/gcd"; cp "$FX/rs_ver_v1" "$T/gcd/rs_gc"
fk scan --no-define "$T/gcd/rs_gc" > /dev/null
fk define -q "*@$T/gcd/rs_gc"
gcname=$(awk -v p="$T/gcd/rs_gc" '$0 ~ p { print $1 }' "$FL")
rm "$T/gcd/rs_gc"
check_eq "gc of a gone binary whose probe is defined: exit 0" 0 "$(fkrc gc)"
check "  deletes its definition and kernel event too" sh -c "test -n '$gcname' && ! grep -q '$T/gcd/rs_gc' '$FL' && test ! -e '$(evdir "$gcname")'"
check_eq "  keeps the others'" "yes yes" "$(listed sdt_rs:tick) $(ev sdt_rs:tick)"
check_eq "clear with probes defined: exit 0" 0 "$(fkrc clear)"
check_eq "  deletes every definition and kernel event defined from the cache" "|" \
	"$(grep -E '^sdt_rs:(tick|always)' "$FL")|$(ls "$F/tracefs/events/sdt_rs" 2> /dev/null)"

# ---- clash names: the set of clashing binaries decides, never the order of the scans ----
twin_bid=$(bid "$T/tree/rs_twin")
clash_run() {	# clash_run A B: scan A then B with the module loaded, into a fresh cache
	fresh
	PROBECACHE_DIR=$T/clash.$1 fk scan "$T/tree/$1" > /dev/null
	PROBECACHE_DIR=$T/clash.$1 fk scan "$T/tree/$2" > "$T/clash.$1.out"
	echo "$(PROBECACHE_DIR=$T/clash.$1 fk list --names | sort | paste -sd' ')|$(cut -d' ' -f1 "$FL" | sort | paste -sd' ')|$(cd "$F/tracefs/events" && ls -d */* | tr / : | sort | paste -sd' ')"
}
one=$(clash_run rs_sem rs_twin)
two=$(clash_run rs_twin rs_sem)
check_eq "two scans in opposite orders give identical names (list --names|kernel)" "$one" "$two"
clashed=$(printf '%s\n' "sdt_rs:always_${sem_bid:0:8}" "sdt_rs:always_${twin_bid:0:8}" sdt_rs:tick | sort | paste -sd' ')
check_eq "  every clashing probe is EVENT_BUILDID8, in the cache, the module and the kernel's events" \
	"$clashed|$clashed|$clashed" "$one"
check "  the second scan says it renamed the first one's unused event" \
	grep -qF "scan: sdt_rs:always ($T/tree/rs_sem) is now sdt_rs:always_${sem_bid:0:8}: another cached binary has sdt_rs:always" "$T/clash.rs_sem.out"
check_eq "  the renamed one's old event removed before its del, the new one made after its add" \
	"uprobe_events p:|uprobe_events -:|control del,control add|uprobe_events p:" \
	"$(jr sdt_rs:always | sed 's/^control add|//'),$(jr "sdt_rs:always_${sem_bid:0:8}")"
fresh
export PROBECACHE_DIR=$T/clash.used
fk scan "$T/tree/rs_sem" > /dev/null
busy sdt_rs:always
fk scan "$T/tree/rs_twin" > /dev/null
check_eq "a name in use in the kernel stays (perf records it)" "yes yes" "$(listed sdt_rs:always) $(ev sdt_rs:always)"
check_eq "  list shows the kernel event name a consumer must type" \
	"sdt_rs:always=always sdt_rs:always_${twin_bid:0:8}=always" "$(fk list 'sdt_rs:always*' | grep = | paste -sd' ')"
check_eq "  define of it again: already defined under that name, nothing sent" \
	"already defined sdt_rs:always ($T/tree/rs_sem)|" \
	"$(: > "$F/sys/control"; fk define "sdt_rs:always@$T/tree/rs_sem" | head -n 1)|$(cat "$F/sys/control")"
check "  a kernel name from list selects its entry" sh -c \
	"'$PC_BIN' list --format=record 'sdt_rs:always_${twin_bid:0:8}' | grep -q '$T/tree/rs_twin'"
idle sdt_rs:always
fk disarm -q 'sdt_rs:*'
export PROBECACHE_DIR=$T/cache

# ---- SDT argument names and types (issue 43) ----
# Provider files (sdt/*.args format) for the rs fixture, and the user's own names.
S=$T/sdt43
mkdir -p "$S"
cat > "$S/rs.args" <<'ARGS'
probecache-sdt-args 1
provider rs
source tests/fixtures/rs_sem.c
switch tick RS_TRACE=1 in the environment
probe tick count=arg1:s32 step=arg2:u32
from rs_sem.c: STAP_PROBE2(rs, tick, int, int)
probe always n=arg1:s64
from rs_sem.c: STAP_PROBE1(rs, always, int), declared 8 bytes here: must not apply
ARGS
export PROBECACHE_DIR=$T/cache43
cp "$FX/rs_sem" "$T/tree/rs43"
n43() { PROBECACHE_SDT_DIR=$S pc "$@"; }
rec43() { pc list --format=record "$1" | cut -d' ' -f4-; }
n43 scan --no-define "$T/tree/rs43" > /dev/null 2> "$T/n43.err"
check_eq "scan names a note as its provider file says: tick count=%ax:s32 step=%dx:u32" \
	"count=%ax:s32 step=%dx:u32" "$(rec43 sdt_rs:tick)"
check_eq "  an entry that disagrees with the note keeps arg1..argN" "arg1=%ax:s32" "$(rec43 sdt_rs:always)"
check "  and is warned about: its file, line, argument and the note's size" grep -q \
	"rs:always at 0x[0-9a-f]*: $S/rs.args line 7 disagrees with the note: n: arg1 is 4 bytes in the note (%ax:s32), s64 reads 8: arg1..arg1 kept" "$T/n43.err"
check_eq "  without provider files: arg1..argN" "arg1=%ax:s32 arg2=%dx:s32" \
	"$(PROBECACHE_DIR=$T/cache43b pc scan --no-define "$T/tree/rs43" > /dev/null; PROBECACHE_DIR=$T/cache43b rec43 sdt_rs:tick)"
check_eq "list says which probes need a runtime switch" \
	"sdt_rs:tick=tick  # needs RS_TRACE=1 in the environment|sdt_rs:always=always" \
	"$(n43 list 'sdt_rs:*' | tail -n 2 | paste -sd'|')"
check "list --available says semaphore in the kind, and the switch" \
	sh -c "PROBECACHE_SDT_DIR='$S' '$PC_BIN' list --available sdt_rs:tick | grep -q '\[SDT event, semaphore\]  $T/tree/rs43  # needs RS_TRACE=1 in the environment$'"
check_eq "list --json: names, semaphore, needs" \
	"count=%ax:s32 step=%dx:u32 True RS_TRACE=1 in the environment|arg1=%ax:s32 True None" \
	"$(n43 list --json 'sdt_rs:*' | python3 -c 'import json,sys
for b in json.load(sys.stdin)["binaries"]:
	for p in b["probes"]:
		print(" ".join("%s=%s:%s" % (a["name"], a["location"], a["type"]) for a in p["args"]), p["semaphore"], p["needs"])' | paste -sd'|')"
check_eq "show --sdt: '  # semaphore; needs SWITCH'" \
	"usdt:$T/tree/rs43:rs:tick  # semaphore; needs RS_TRACE=1 in the environment" \
	"$(n43 show -x "$T/tree/rs43" --sdt 'rs:tick')"
check_eq "show --sdt --json: args named as scan caches them, note_args the note's own" \
	"count step|arg1 arg2|True RS_TRACE=1 in the environment" \
	"$(n43 show -x "$T/tree/rs43" --sdt --json 'rs:tick' | python3 -c 'import json,sys
p = json.load(sys.stdin)["probes"][0]
print(" ".join(a["name"] for a in p["args"]), " ".join(a["name"] for a in p["note_args"]), str(p["semaphore"]) + " " + p["needs"], sep="|")')"

# The user's names: scan -a, add -x BIN sdt_P:N, define 'sdt_P:N ARGS'
check_eq "scan -a 'sdt_rs:always v=arg1:u32': exit 0" 0 \
	"$(rc n43 scan --no-define -a 'sdt_rs:always v=arg1:u32' "$T/tree/rs43")"
check_eq "  the user's names win over the file's" "v=%ax:u32" "$(rec43 sdt_rs:always)"
check_eq "  list shows them as the probe's definition" "sdt_rs:always=always v=arg1:u32" \
	"$(pc list 'sdt_rs:always' | tail -n 1)"
n43 scan --no-define "$T/tree/rs43" > /dev/null 2>&1
check_eq "  a rescan keeps them" "v=%ax:u32" "$(rec43 sdt_rs:always)"
check_eq "  and the index still finds the probe by its note's name" "sdt_rs:always" \
	"$(pc list --names 'rs:always')"
pc export -o "$T/n43.pca" 'sdt_rs:*' > /dev/null
check_eq "  export + import into an empty cache keeps them" "v=%ax:u32" \
	"$(PROBECACHE_DIR=$T/cache43c pc import "$T/n43.pca" > /dev/null; PROBECACHE_DIR=$T/cache43c rec43 sdt_rs:always)"
check_eq "  and a scan there too" "v=%ax:u32" \
	"$(PROBECACHE_DIR=$T/cache43c pc scan --no-define "$T/tree/rs43" > /dev/null; PROBECACHE_DIR=$T/cache43c rec43 sdt_rs:always)"
n43 scan --no-define -a 'sdt_rs:always' "$T/tree/rs43" > /dev/null 2>&1
check_eq "scan -a 'sdt_rs:always' without ARGs drops them: back to the file's (here argN)" \
	"arg1=%ax:s32|sdt_rs:always=always" "$(rec43 sdt_rs:always)|$(pc list 'sdt_rs:always' | tail -n 1)"
check_eq "scan -a whose ARG disagrees with the note: exit 1, nothing changed" \
	"1 count=%ax:s32 step=%dx:u32" \
	"$(rc n43 scan --no-define -a 'sdt_rs:tick s=arg1:string' "$T/tree/rs43") $(rec43 sdt_rs:tick)"
check "  and says why" sh -c "PROBECACHE_SDT_DIR='$S' '$PC_BIN' scan --no-define -a 'sdt_rs:tick s=arg1:string' '$T/tree/rs43' 2>&1 |
	grep -q 'rs:tick at 0x[0-9a-f]*: s: arg1 is 4 bytes in the note (%ax:s32), not a 8-byte pointer'"
check_eq "scan -a naming no note: exit 3, the others cached" 3 \
	"$(rc n43 scan --no-define -a 'sdt_rs:nosuch a=arg1' "$T/tree/rs43")"
check_eq "scan -a with a bad ARG or no probe: usage (2)" "2 2 2" \
	"$(rc pc scan -a 'sdt_rs:tick a=arg99' "$T/tree/rs43") $(rc pc scan -a 'tick a=arg1' "$T/tree/rs43") $(rc pc scan -a 'sdt_rs:tick a=arg1' -a 'sdt_rs:tick b=arg2' "$T/tree/rs43")"
check_eq "add -x BIN 'sdt_rs:tick c=arg1 d=arg2:x32' (no debuginfo needed): exit 0" 0 \
	"$(rc n43 add -x "$T/tree/rs43" --no-define 'sdt_rs:tick c=arg1 d=arg2:x32')"
check_eq "  the note named so" "c=%ax:s32 d=%dx:x32" "$(rec43 sdt_rs:tick)"
check_eq "  add -D with one is a usage error" 2 "$(rc pc add -x "$T/tree/rs43" -D 'sdt_rs:tick c=arg1')"
check_eq "define 'sdt_rs:always w=arg1:x32' without the module: names stored, exit 1 (not loaded)" \
	"1 w=%ax:x32" "$(rc n43 define 'sdt_rs:always w=arg1:x32') $(rec43 sdt_rs:always)"
check_eq "define 'sdt_rs:nosuch a=arg1': no cached binary has it, exit 1" 1 \
	"$(rc pc define 'sdt_rs:nosuch a=arg1')"
check_eq "define 'tick a=arg1' (no sdt_PROVIDER:NAME) or with a bad ARG: usage (2)" "2 2" \
	"$(rc pc define 'tick a=arg1') $(rc pc define 'sdt_rs:tick a=arg0')"
check_eq "define 'sdt_rs:always w=arg1:string' disagreeing with the note: exit 1, unchanged" \
	"1 w=%ax:x32" "$(rc n43 define 'sdt_rs:always w=arg1:string') $(rec43 sdt_rs:always)"
fresh
check_eq "define 'sdt_rs:tick e=arg1 f=arg2:x32' with the module: exit 0" 0 \
	"$(PROBECACHE_SDT_DIR=$S fkrc define 'sdt_rs:tick e=arg1 f=arg2:x32')"
check_eq "  the record it sends carries the names" "e=%ax:s32 f=%dx:x32" \
	"$(grep '^add p:sdt_rs/tick ' "$F/sys/control" | cut -d' ' -f5-)"
fk disarm -q 'sdt_rs:*'
export PROBECACHE_DIR=$T/cache

# ---- help, clear ----
for c in scan list show del clear define arm disarm status gc trace preload; do
	check "help $c prints its usage" sh -c "'$PC_BIN' help $c | grep -q '^usage: probecache-resolve $c'"
done
out=$(pc clear)
check "clear removes every cache file" \
	test -z "$(find "$T/cache" -name '*.probes')"
check_eq "list after clear is empty" "" "$(pc list)"
check_eq "clear leaves an index without keys" "" "$(keys)"
check "... and every bucket left keeps its shard" \
	test -z "$(cd "$T/cache" && for d in ??; do [ -e "names/$d" ] || echo "$d"; done)"

# ---- JSON schema ----
schema=$top/Documentation/probecache-resolve.schema.json
njson=$(ls "$T/json" | grep -vc '\.cmd$')
check "the suite printed JSON of list, list --available, status and show -F, -V, -L, --sdt ($njson documents)" sh -c \
	"cd '$T'/json && grep -q ' list .*--json' *.cmd && grep -q ' list .*--available' *.cmd &&
	 grep -q ' status .*--json' *.cmd && grep -q ' show .* -F .*--json' *.cmd && grep -q ' show .* -V .*--json' *.cmd &&
	 grep -q ' show .* -L .*--json' *.cmd && grep -q ' show .* --sdt .*--json' *.cmd"
check "every JSON output of the suite fits $(basename "$schema")" \
	python3 "$top/tests/cli/schema_check.py" "$schema" $(ls "$T"/json/* | grep -v '\.cmd$')

tap_done
