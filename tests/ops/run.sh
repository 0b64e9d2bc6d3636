#!/bin/bash
# Host suite for the operations side: docs (man page / --help sync, groff warnings),
# the systemd unit, load/unload refusals, preload config and --dry-run, export/import
# (round trip and refusals that change nothing), make install/uninstall, DKMS builds.
# PC_CLI=path overrides the CLI under test (default: user/probecache-resolve, built if absent).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cli=${PC_CLI:-$top/user/probecache-resolve}
[ -n "${PC_CLI:-}" ] || make -s -C "$top/user" > /dev/null 2>&1 || true
man=$top/Documentation/probecache-resolve.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PROBECACHE_SYSFS=$tmp/no-module PROBECACHE_RUN=$tmp/run PROBECACHE_DIR=$tmp/cache

if [ ! -x "$cli" ]; then
	not_ok "CLI $cli built"
	tap_done
	exit 1
fi

# run CMD...: sets $rc, $out (stdout) and $err (stderr)
run() {
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# expect_fail DESC RC PATTERN CMD...: exit status RC and stderr matching PATTERN (grep -E)
expect_fail() {
	local d=$1 want=$2 pat=$3
	shift 3
	run "$@"
	if [ "$rc" = "$want" ] && printf '%s\n' "$err" | grep -Eq -- "$pat"; then
		ok "$d"
	else
		not_ok "$d"
		diag "  exit $rc (want $want), stderr: $err"
	fi
}

tree_sum() { (cd "$1" 2>/dev/null && find . -type f ! -name .lock -exec sha256sum {} + | sort); }

## ---- documentation
w=$(groff -man -ww -z "$man" 2>&1)
check_eq "man page renders without groff warnings" "" "$w"

# The man source with roff escapes of '-' undone, for option look-ups.
mantext=$(sed 's/\\-/-/g; s/\\(em/-/g' "$man")
cmds=$("$cli" --help | sed -n '/^commands:/,/^$/p' | awk 'NF >= 2 { print $1 }')
[ -n "$cmds" ] || not_ok "--help lists the commands"
for c in $cmds; do
	if ! printf '%s\n' "$mantext" | grep -q "^\.SS \"$c\( \|\"\)"; then
		not_ok "man page documents command '$c'"
		continue
	fi
	run "$cli" help "$c"
	if [ "$rc" != 0 ] || ! printf '%s\n' "$out" | grep -q "usage: probecache-resolve $c"; then
		not_ok "help $c prints its usage (exit $rc: $err)"
		continue
	fi
	missing=
	for o in $(printf '%s\n' "$out" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		printf '%s\n' "$mantext" | grep -q -- "$o" || missing="$missing $o"
	done
	check_eq "man page has command '$c' and its long options" "" "$missing"
done
for o in $("$cli" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	printf '%s\n' "$mantext" | grep -q -- "$o" || not_ok "man page documents global option $o"
done

## ---- systemd unit
unit=$top/systemd/probecache-preload.service
mkdir -p "$tmp/unit" "$tmp/man/man1"
sed "s|@BINDIR@|$(dirname "$cli")|g" "$unit" > "$tmp/unit/probecache-preload.service"
cp "$man" "$tmp/man/man1/"
if command -v systemd-analyze > /dev/null; then
	w=$(MANPATH=$tmp/man systemd-analyze verify "$tmp/unit/probecache-preload.service" 2>&1)
	check_eq "systemd-analyze verify probecache-preload.service is clean" "" "$w"
else
	not_ok "systemd-analyze installed (package systemd, scripts/setup.sh)"
fi
for kv in Type=oneshot RemainAfterExit=yes After=local-fs.target WantedBy=multi-user.target \
	"ExecStart=@BINDIR@/probecache-resolve preload" \
	"ExecStop=@BINDIR@/probecache-resolve preload --stop"; do
	check "unit has $kv" grep -qx -- "$kv.*" "$unit"
done
check "unit is ordered before the services it traces" grep -q '^Before=.*sysinit.target' "$unit"

## ---- the follow unit: /run/probecache (its counters, the preload's state) made, kept
funit=$top/systemd/probecache-follow.service
sed "s|@BINDIR@|$(dirname "$cli")|g" "$funit" > "$tmp/unit/probecache-follow.service"
if command -v systemd-analyze > /dev/null; then
	w=$(cd "$tmp/unit" && MANPATH=$tmp/man systemd-analyze verify probecache-follow.service 2>&1)
	check_eq "systemd-analyze verify probecache-follow.service is clean" "" "$w"
fi
for kv in "ExecStart=@BINDIR@/probecache-resolve follow" RuntimeDirectory=probecache \
	RuntimeDirectoryPreserve=yes; do
	check "follow unit has $kv" grep -qxF -- "$kv" "$funit"
done
# Its sandbox (design.md, "Following a build-id"): root keeps exactly these capabilities,
# the ones follow --help, the man page and design.md name; the exposure systemd-analyze
# measured (252: 9.6 unsandboxed, 2.2 now) may not grow.
fcaps="CAP_CHECKPOINT_RESTORE CAP_DAC_READ_SEARCH CAP_PERFMON CAP_SYS_ADMIN CAP_SYS_PTRACE"
check_eq "follow unit: the bounding set is exactly $fcaps" "$fcaps" \
	"$(sed -n 's/^CapabilityBoundingSet=//p' "$funit" | tr ' ' '\n' | sort | xargs)"
for c in $fcaps; do
	[ "$c" = CAP_DAC_READ_SEARCH ] ||
		check "follow --help names $c" sh -c '"$1" follow --help | grep -q "$2"' _ "$cli" "$c"
	check "design.md names $c" grep -q "\`$c\`" "$top/Documentation/design.md"
done
for kv in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=read-only PrivateTmp=no \
	PrivateDevices=yes PrivateNetwork=yes RestrictAddressFamilies=none \
	"SystemCallFilter=@system-service perf_event_open" Restart=on-failure; do
	check "follow unit has $kv" grep -qxF -- "$kv" "$funit"
done
if command -v systemd-analyze > /dev/null; then
	sec=$(cd "$tmp/unit" && systemd-analyze security --offline=yes ./probecache-follow.service 2>&1)
	exp=$(printf '%s\n' "$sec" | sed -n 's/.*Overall exposure level for probecache-follow.service: \([0-9.]*\) .*/\1/p')
	check "follow unit: systemd-analyze security exposure ${exp:-none} is at most 2.2" \
		awk -v e="${exp:-99}" 'BEGIN { exit !(e + 0 <= 2.2) }'
fi

## ---- the metrics timer and its service (node_exporter's textfile collector)
for u in probecache-metrics.service probecache-metrics.timer; do
	sed "s|@BINDIR@|$(dirname "$cli")|g" "$top/systemd/$u" > "$tmp/unit/$u"
done
if command -v systemd-analyze > /dev/null; then
	w=$(cd "$tmp/unit" && MANPATH=$tmp/man systemd-analyze verify probecache-metrics.timer \
		probecache-metrics.service 2>&1)
	check_eq "systemd-analyze verify probecache-metrics.timer and .service is clean" "" "$w"
else
	not_ok "systemd-analyze installed (package systemd, scripts/setup.sh)"
fi
munit=$top/systemd/probecache-metrics.service
tunit=$top/systemd/probecache-metrics.timer
prom=/var/lib/prometheus/node-exporter
for kv in Type=oneshot "ConditionPathIsDirectory=$prom" "ReadWritePaths=-$prom" \
	"ExecStart=@BINDIR@/probecache-resolve status --format=openmetrics --output=$prom/probecache.prom"; do
	check "metrics service has $kv" grep -qxF -- "$kv" "$munit"
done
check_eq "  no [Install]: only its timer starts it" "" "$(grep -n '^\[Install\]' "$munit")"
for kv in OnBootSec=15s OnUnitActiveSec=15s AccuracySec=1s WantedBy=timers.target; do
	check "metrics timer has $kv" grep -qxF -- "$kv" "$tunit"
done
# What the service runs, as it runs it, against a module that is not there: the file
# is written all the same, whole, 0644, and says so.
mkdir -p "$tmp/textfile"
cmd=$(sed -n 's/^ExecStart=@BINDIR@\///p' "$munit" | sed "s|$prom|$tmp/textfile|")
run sh -c "umask 077; '$(dirname "$cli")'/$cmd"
check_eq "  its command without the module: exit 0, a 0644 file saying so, ending with # EOF" \
	"0 644 probecache_module_loaded 0 # EOF" \
	"$rc $(stat -c %a "$tmp/textfile/probecache.prom" 2>&1) $(grep '^probecache_module_loaded' "$tmp/textfile/probecache.prom") $(tail -n 1 "$tmp/textfile/probecache.prom")"

## ---- dkms.conf
ver=$(sed -n 's/^#define PROBECACHE_VERSION[^"]*"\(.*\)"/\1/p' "$top/include/uapi/linux/probecache.h")
check_eq "dkms.conf PACKAGE_VERSION is PROBECACHE_VERSION" "$ver" \
	"$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")"
for kv in 'PACKAGE_NAME="probecache"' 'BUILT_MODULE_LOCATION\[0\]="kmod/"' \
	'DEST_MODULE_LOCATION\[0\]="/updates"' 'AUTOINSTALL="yes"' \
	'BUILD_EXCLUSIVE_CONFIG="CONFIG_UPROBES"' 'MAKE\[0\]=.*KDIR=[$][{]kernel_source_dir[}].*'; do
	check "dkms.conf: $kv" grep -qx -- "$kv" "$top/dkms.conf"
done

## ---- load / unload (the host cannot load modules: refusals found before insert)
expect_fail "load --module of a missing file names it" 1 "load: $tmp/nope.ko: No such file" \
	"$cli" load --module "$tmp/nope.ko"
expect_fail "load rejects a parameter without =" 2 "'max_probes': expected PARAM=VALUE" \
	"$cli" load --module "$tmp/nope.ko" max_probes
printf 'CONFIG_MODULES=y\n# CONFIG_UPROBES is not set\n' > "$tmp/kconfig"
other=$(ls /lib/modules/*/kernel/fs/fat/vfat.ko* 2>/dev/null | grep -v "/$(uname -r)/" | head -n 1)
if [ -n "$other" ]; then
	PROBECACHE_KCONFIG=$tmp/kconfig expect_fail "load refuses a kernel without CONFIG_UPROBES" \
		1 "has no CONFIG_UPROBES \($tmp/kconfig\)" "$cli" load --module "$other"
	rel=$(echo "$other" | cut -d/ -f4)
	printf 'CONFIG_UPROBES=y\n' > "$tmp/kconfig"
	PROBECACHE_KCONFIG=$tmp/kconfig expect_fail "load refuses a module built for another kernel" \
		1 "built for another kernel: vermagic '$rel .*', running kernel is $(uname -r)" \
		"$cli" load --module "$other"
else
	ok "# SKIP no module of another kernel release installed"
	ok "# SKIP no module of another kernel release installed"
fi
run "$cli" unload
check_eq "unload when not loaded says so and exits 0" "0 probecache not loaded" "$rc $out"
mkdir -p "$tmp/fakesys" && : > "$tmp/fakesys/control"
run env PROBECACHE_SYSFS="$tmp/fakesys" "$cli" load
check_eq "load when loaded (not from modules.dep) says so and exits 0" \
	"0 probecache already loaded" "$rc $out"
mkdir -p "$tmp/nodep"
run env -u PROBECACHE_KCONFIG "$cli" load
if [ -e "/lib/modules/$(uname -r)/updates/probecache.ko" ]; then
	ok "# SKIP probecache is installed for this kernel"
else
	check_eq "load without --module looks in modules.dep and says how to install" \
		"1 yes" "$rc $(printf '%s' "$err" | grep -q 'not found in /lib/modules/.*/modules.dep: install it' && echo yes)"
fi

## ---- export / import
# mkarchive BODY-FILE: append the end line (counts + CRC-32) the way export writes it.
mkarchive() {
	python3 - "$1" <<'PY'
import sys, zlib
body = open(sys.argv[1], 'rb').read()
lines = body.decode().splitlines()
nb = sum(1 for l in lines if l.startswith('binary\t'))
ne = sum(1 for l in lines if l.startswith('entry\t'))
sys.stdout.write(body.decode() + 'end\t%d\t%d\tcrc32=%08x\n' % (nb, ne, zlib.crc32(body)))
PY
}
truebid=$(readelf -n /usr/bin/true | sed -n 's/.*Build ID: //p')
T=$(printf '\t')
{
	printf 'probecache-archive\t1\n'
	printf 'binary\t%s\npath\t/usr/bin/true\n' "$truebid"
	printf 'entry\tsdt\tsdt_t\tok\tp\t0x1130\t0x0\targ1=%%di:s32\targ1=%%di:s32\tt:ok\t-\n'
	printf 'entry\tnamed\tprobe_true\tmain\tr\t0x1200\t0x0\tret=$retval:u64\t\tmain%%return\tabcdef0123\n'
	printf 'binary\t00112233445566778899aabbccddeeff00112233\npath\t/usr/bin/true\n'
	printf 'entry\tsdt\tsdt_t\tstale\tp\t0x1130\t0x4010\t\t\tt:stale\t-\n'
	printf 'binary\t00112233445566778899aabbccddeeff00112244\npath\t/nonexistent/tab\\there\n'
	printf 'entry\tsdt\tsdt_t\tgone\tp\t0x1130\t0x0\t\t\tt:gone\t-\n'
} > "$tmp/body"
mkarchive "$tmp/body" > "$tmp/good.pca"
run "$cli" import "$tmp/good.pca"
check_eq "import of a valid archive adds every entry" \
	"0 imported $tmp/good.pca: 3 binaries, 4 entries added, 0 replaced, 0 unchanged" "$rc $out"
run "$cli" export -o "$tmp/all.pca" '*'
check_eq "export '*' holds exactly the imported lines" "$(grep -v '^end' "$tmp/good.pca" | sort)" \
	"$(grep -v '^end' "$tmp/all.pca" | sort)"
run env PROBECACHE_DIR="$tmp/cache2" "$cli" import "$tmp/all.pca"
run env PROBECACHE_DIR="$tmp/cache2" "$cli" export '*'
check_eq "export -> import -> export is byte-identical" "$(cat "$tmp/all.pca")" "$out"
run "$cli" export -o "$tmp/sel.pca" 'sdt_t:*@/usr/bin/true'
check_eq "export -o selects by GLOB@/path" "0 2" "$rc $(grep -c '^entry' "$tmp/sel.pca")"
run "$cli" export "probe_true:*@${truebid:0:8}"
check_eq "export selects by @BUILDID prefix" "1" "$(printf '%s\n' "$out" | grep -c '^entry')"
expect_fail "export of a pattern matching nothing fails" 1 "no cached entry matches" \
	"$cli" export 'nothing:here'
run "$cli" import "$tmp/good.pca"
check_eq "re-import reports the entries as unchanged" \
	"0 imported $tmp/good.pca: 3 binaries, 0 entries added, 0 replaced, 4 unchanged" "$rc $out"
sed 's/\t0x1130\t0x0\targ1=%di:s32/\t0x1134\t0x0\targ1=%di:s32/' "$tmp/body" > "$tmp/body2"
mkarchive "$tmp/body2" > "$tmp/changed.pca"
run "$cli" import "$tmp/changed.pca"
check_eq "import replaces a changed entry and says so" "0 1 1 replaced" \
	"$rc $(printf '%s' "$err" | grep -c 'sdt_t:ok of .*replaced by the archive') $(printf '%s' "$out" | grep -o '1 replaced')"
"$cli" import "$tmp/good.pca" > /dev/null 2>&1

before=$(tree_sum "$PROBECACHE_DIR")
# refuse NAME LINE WHY-PATTERN: the archive in $tmp/bad.pca is refused and the cache unchanged.
refuse() {
	expect_fail "import refuses $1 (line $2)" 1 "import: $tmp/bad.pca: line $2: (.*[ :])?$3.*nothing imported" \
		"$cli" import "$tmp/bad.pca"
	check_eq "  ... and the cache is unchanged" "$before" "$(tree_sum "$PROBECACHE_DIR")"
}
# badbody SED-EXPR: good body edited, with a correct end line.
badbody() { sed "$1" "$tmp/body" > "$tmp/b" && mkarchive "$tmp/b" > "$tmp/bad.pca"; }

printf 'hello\n' > "$tmp/bad.pca"; refuse "a file that is no archive" 1 "not a probecache archive"
badbody '1s/\t1$/\t2/'; refuse "an unknown version" 1 "version '2' is not supported"
badbody '2s/binary\t.*/binary\txyz/'; refuse "a bad build-id" 2 "binary: want"
badbody '3s/path\t.*/path\trelative/'; refuse "a relative path" 3 "path: want"
badbody '4s/0x1130/1130/'; refuse "an offset without 0x" 4 "offset: '1130' is not a 0x hex offset"
badbody '4s/arg1=%di:s32\targ1/arg1=%zz:s32\targ1/'; refuse "args the module would reject" 4 "entry sdt_t:ok: "
badbody '4s/\tsdt_t\tok\t/\tsdt-t\tok\t/'; refuse "a bad group name" 4 "is not GROUP:EVENT"
badbody '4s/\tp\t/\tx\t/'; refuse "a bad probe type" 4 "probe type 'x' is neither p nor r"
badbody '4s/\tsdt\t/\tusdt\t/'; refuse "an unknown kind" 4 "kind 'usdt' is neither sdt nor named"
badbody '4s/\t-$/\tnot-hex/'; refuse "a bad debuginfo id" 4 "debuginfo 'not-hex'"
badbody '5s/.*/&\n&/'; refuse "a duplicate entry" 6 "entry probe_true:main appears twice"
badbody '4s/$/\textra/'; refuse "an entry with too many fields" 4 "entry: 12 fields"
badbody '4s/t:ok/t\\qok/'; refuse "a bad escape" 4 "field 10: bad escape '.q'"
badbody '8d'; refuse "a binary without entries" 8 "binary 00112233445566778899aabbccddeeff00112233 has no entry line"
badbody '3d'; refuse "entries before a path" 5 "binary $truebid has no path line"
badbody '1d'; refuse "a missing header" 1 "not a probecache archive"
badbody '4s/t:ok/t\\nok/'; refuse "a line break the cache cannot store" 4 "field 10: line break"
badbody '2s/binary\t.*/binary\tab/'; refuse "a build-id too short to name a cache file" 2 "4..40 hex digits"
sed 's/\t0x1130\t0x4010/\t0x1131\t0x4010/' "$tmp/good.pca" > "$tmp/bad.pca"
refuse "an edited archive (checksum)" 12 "checksum mismatch"
sed 's/^end\t3\t4/end\t3\t5/' "$tmp/good.pca" > "$tmp/bad.pca"
refuse "wrong counts in the end line" 12 "archive says 3 binaries . 5 entries, found 3 . 4"
head -n 10 "$tmp/good.pca" > "$tmp/bad.pca"; refuse "a truncated archive" 11 "truncated: no end line"
head -c -1 "$tmp/good.pca" > "$tmp/bad.pca"; refuse "a last line without newline" 12 "truncated"
{ cat "$tmp/good.pca"; echo junk; } > "$tmp/bad.pca"; refuse "data after the end line" 13 "data after the end line"
printf 'probecache-archive\t1\n\0\n' > "$tmp/bad.pca"; refuse "a binary file" 2 "NUL byte"
expect_fail "import of a missing file names it" 1 "import: $tmp/none.pca: No such file" \
	"$cli" import "$tmp/none.pca"

## ---- preload: config parsing and --dry-run against the imported cache
etc=$tmp/etc
mkdir -p "$etc/preload.d"
printf '# boot probes\n\n  sdt_t:ok   # the good one\n' > "$etc/preload.conf"
run env PROBECACHE_ETC="$etc" "$cli" preload --dry-run
check_eq "preload --dry-run: a verifying entry would be armed, exit 0" \
	"0 would arm sdt_t:ok (/usr/bin/true $truebid)" "$rc $out"
printf 'sdt_t:stale count\ngone define\nnomatch_*\n' > "$etc/preload.d/10-more.conf"
printf 'ignored\n' > "$etc/preload.d/README"
run env PROBECACHE_ETC="$etc" "$cli" preload --dry-run
check_eq "preload --dry-run reads preload.d/*.conf only, exit 3 when some are skipped" "3 4" \
	"$rc $(printf '%s\n' "$out" | grep -c '^would ')"
check "  ... a stale entry is reported with the build-id the file has now" \
	grep -q "would skip sdt_t:stale (/usr/bin/true 00112233445566778899aabbccddeeff00112233): stale: file now has build-id $truebid" "$tmp/out"
check "  ... a missing binary is reported" \
	grep -q "would skip sdt_t:gone (/nonexistent/tab.here [0-9a-f]*): missing" "$tmp/out"
check "  ... a pattern matching nothing is reported with its file and line" \
	grep -q "would skip nomatch_\* ($etc/preload.d/10-more.conf:3): matches no cached probe" "$tmp/out"
run env PROBECACHE_ETC="$etc" "$cli" preload --dry-run --config "$etc/preload.conf"
check_eq "preload --config reads only that file" "0 1" "$rc $(printf '%s\n' "$out" | grep -c '^would ')"
printf 'sdt_t:ok extra\n' > "$etc/preload.d/20-bad.conf"
expect_fail "preload refuses a config line with two words, naming file:line" 1 \
	"$etc/preload.d/20-bad.conf:1: 'sdt_t:ok extra': want one PATTERN per line, optionally followed by 'count' or 'define'" \
	env PROBECACHE_ETC="$etc" "$cli" preload
check "  ... and created no state" test ! -e "$PROBECACHE_RUN/preloaded"
printf 'x@notapath\n' > "$etc/preload.d/20-bad.conf"
expect_fail "preload refuses a bad PATTERN qualifier" 1 "20-bad.conf:1: bad PATTERN 'x@notapath'" \
	env PROBECACHE_ETC="$etc" "$cli" preload --dry-run
expect_fail "preload without any config says which files it looked for" 1 \
	"neither $tmp/none/preload.conf nor $tmp/none/preload.d/\*.conf exists" \
	env PROBECACHE_ETC="$tmp/none" "$cli" preload
run "$cli" preload --stop
check_eq "preload --stop with nothing preloaded exits 0" "0" "$rc"
expect_fail "preload --stop with --dry-run is a usage error" 2 "usage:" "$cli" preload --stop -n

## ---- make install / uninstall
dest=$tmp/dest
if make -s -C "$top" install DESTDIR="$dest" PREFIX=/usr CLI="$cli" > "$tmp/inst.log" 2>&1; then
	ok "make install DESTDIR PREFIX=/usr"
else
	not_ok "make install DESTDIR PREFIX=/usr"
	sed 's/^/#   /' "$tmp/inst.log"
fi
for f in usr/bin/probecache-resolve usr/share/man/man1/probecache-resolve.1 \
	usr/include/linux/probecache.h lib/systemd/system/probecache-preload.service \
	lib/systemd/system/probecache-metrics.service lib/systemd/system/probecache-metrics.timer \
	etc/probecache/preload.conf; do
	check "  installs /$f" test -s "$dest/$f"
done
check "  the installed unit runs /usr/bin/probecache-resolve" \
	grep -qx 'ExecStart=/usr/bin/probecache-resolve preload' "$dest/lib/systemd/system/probecache-preload.service"
check "  the installed metrics service runs /usr/bin/probecache-resolve" \
	grep -q '^ExecStart=/usr/bin/probecache-resolve status --format=openmetrics ' \
	"$dest/lib/systemd/system/probecache-metrics.service"
check "  the installed UAPI header compiles" \
	sh -c "echo '#include <linux/probecache.h>' | cc -fsyntax-only -I'$dest/usr/include' -x c -"
check_eq "  installs sdt/*.args in /usr/share/probecache/sdt" \
	"$(cd "$top/sdt" && ls *.args)" "$(ls "$dest/usr/share/probecache/sdt" 2>&1)"
check "  the installed CLI finds them beside itself: python's function__entry has filename" \
	sh -c "env -u PROBECACHE_SDT_DIR '$dest/usr/bin/probecache-resolve' show -x /usr/bin/python3.11 \
		--sdt --json 'function__entry' | grep -q '\"name\":\"filename\",\"location\":\"+0(%bp)\"'"
echo 'sdt_mine:*' >> "$dest/etc/probecache/preload.conf"
make -s -C "$top" install DESTDIR="$dest" PREFIX=/usr CLI="$cli" > /dev/null 2>&1
check "  a second install keeps an edited preload.conf" grep -qx 'sdt_mine:\*' "$dest/etc/probecache/preload.conf"
make -s -C "$top" uninstall DESTDIR="$dest" PREFIX=/usr > /dev/null 2>&1
check_eq "make uninstall removes everything but the edited config" "./etc/probecache/preload.conf" \
	"$(cd "$dest" && find . -type f)"

## ---- DKMS: add + build in a private tree against each test kernel's headers
for k in 6.1 6.12; do
	kver=$("$top/tests/vm/kernel.sh" "$k" 2>/dev/null | cut -d' ' -f3)
	if [ -z "$kver" ]; then
		not_ok "dkms build for $k: no kernel/headers (scripts/setup.sh)"
		continue
	fi
	if "$top/tests/ops/dkms-build.sh" "$kver" "$tmp/dkms-$k" > "$tmp/dkms.log" 2>&1; then
		vm=$(modinfo -F vermagic "$tmp/dkms-$k/probecache.ko" 2>/dev/null)
		check_eq "dkms add/build against $kver headers: module for $kver" "$kver" "${vm%% *}"
	else
		not_ok "dkms add/build against $kver headers"
		tail -n 30 "$tmp/dkms.log" | sed 's/^/#   /'
	fi
done

# make dkms-install: source tree + dkms add/build/install, here into private trees
# (dkms still runs depmod for that kernel, which regenerates the same modules.dep).
kver=$("$top/tests/vm/kernel.sh" 6.1 2>/dev/null | cut -d' ' -f3)
if [ -n "$kver" ]; then
	d=$tmp/dkms-install
	mkdir -p "$d/tree" "$d/inst/$kver"
	if make -s -C "$top" dkms-install DESTDIR="$d/root" DKMS_ARGS="--dkmstree $d/tree \
		--sourcetree $d/root/usr/src --installtree $d/inst -k $kver \
		--kernelsourcedir /usr/src/linux-headers-$kver" > "$d.log" 2>&1; then
		ok "make dkms-install (private DKMS tree, $kver)"
	else
		not_ok "make dkms-install (private DKMS tree, $kver)"
		tail -n 20 "$d.log" | sed 's/^/#   /'
	fi
	check "  source tree /usr/src/probecache-$ver has kmod/, common/, include/, dkms.conf" \
		test -f "$d/root/usr/src/probecache-$ver/dkms.conf" -a \
		-f "$d/root/usr/src/probecache-$ver/include/uapi/linux/probecache.h" -a \
		-f "$d/root/usr/src/probecache-$ver/kmod/Kbuild" -a \
		-f "$d/root/usr/src/probecache-$ver/common/record.c"
	ko=$(find "$d/inst/$kver" -name 'probecache.ko*' | head -n 1)
	check_eq "  installed under /lib/modules/$kver/updates" "yes" \
		"$(case "$ko" in "$d/inst/$kver/updates/"*) echo yes ;; *) echo "no: $ko" ;; esac)"
fi

tap_done
