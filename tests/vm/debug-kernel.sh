#!/bin/sh
# debug-kernel.sh [--print-dir | --force]
# Builds the KASAN + lockdep + kmemleak test kernel once per machine and prints its
# directory DIR: DIR/build/arch/x86/boot/bzImage is the kernel, DIR/build the KDIR for
# out-of-tree modules.
#   (no args)    build if DIR is missing, then print DIR
#   --print-dir  print DIR, build nothing
#   --force      rebuild even if DIR exists, then print DIR
# DIR = ${PROBECACHE_TEST_CACHE:-/var/cache/probecache-test}/debug-SRCVER-HASH, SRCVER being
# the linux-source-$series package version and HASH covering the fragment's option lines and
# the recipe below, so changing either builds a new kernel beside the old one.
# The build log is DIR.log; on failure its tail goes to stderr.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
frag=$here/debug-kernel.config
# The newest series Debian ships a source package for: 6.12 carries the uprobe API that
# 6.1 lacks (compat.h PC_HAVE_*), so those paths run under KASAN/lockdep; 6.1 and 6.12
# stock kernels are booted as they are.
series=6.12
tarball=/usr/src/linux-source-$series.tar.xz
cache=${PROBECACHE_TEST_CACHE:-/var/cache/probecache-test}
# Everything that shapes .config besides the fragment: bump it when the steps change.
recipe="tinyconfig + fragment; olddefconfig; bzImage modules"

die() {
	echo "debug-kernel.sh: $*" >&2
	exit 1
}

mode=build
case "${1-}" in
"") ;;
--print-dir) mode=print ;;
--force) mode=force ;;
*) die "unknown argument '$1' (usage: debug-kernel.sh [--print-dir|--force])" ;;
esac

[ -f "$frag" ] || die "$frag missing"
srcver=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null) ||
	die "linux-source-$series is not installed (scripts/setup.sh)"
# Only option lines count, so editing a comment in the fragment does not cost a rebuild.
hash=$({ grep -E '^(CONFIG_|# CONFIG_.* is not set)' "$frag"; echo "$recipe"; } |
	sha256sum | cut -c1-12)
dir=$cache/debug-$srcver-$hash
log=$dir.log

if [ "$mode" = print ]; then
	echo "$dir"
	exit 0
fi

# A complete DIR holds all of these; the rename below makes them appear together.
is_built() {
	[ -f "$1/build/arch/x86/boot/bzImage" ] && [ -f "$1/build/Module.symvers" ] &&
		[ -f "$1/build/include/config/kernel.release" ]
}

# check_fragment CONFIG: every assignment in the fragment must be in CONFIG verbatim
# and every "is not set" option must be absent; Kconfig silently drops options whose
# dependencies are unmet, which would quietly leave out e.g. KASAN.
check_fragment() {
	_bad=
	while IFS= read -r _l; do
		case "$_l" in
		CONFIG_*=*)
			grep -qxF -- "$_l" "$1" || _bad="$_bad ${_l}(got: $(grep -m1 "^${_l%%=*}=" "$1" || echo unset))"
			;;
		"# CONFIG_"*" is not set")
			_o=${_l#\# }
			_o=${_o%% *}
			! grep -q "^$_o=" "$1" || _bad="$_bad $_o(not disabled: $(grep -m1 "^$_o=" "$1"))"
			;;
		esac
	done < "$frag"
	[ -z "$_bad" ] || { echo "dropped or changed by olddefconfig:$_bad"; return 1; }
}

# The objtree lives inside the source tree (src/build) so Kbuild refers to the source
# as ".." everywhere (srctree := ..); the finished tree can then be renamed into place
# and used as KDIR without any absolute temp path baked in. DIR/build links to it.
build_into() {
	_t=$1
	rm -rf "$_t"
	mkdir -p "$_t/src"
	tar -xJf "$tarball" -C "$_t/src" --strip-components=1
	mkdir "$_t/src/build"
	ln -s src/build "$_t/build"
	_m="make -C $_t/src/build -j$(nproc)"
	make -C "$_t/src" O="$_t/src/build" tinyconfig
	(cd "$_t/src/build" && ../scripts/kconfig/merge_config.sh -m -O . .config "$frag")
	$_m olddefconfig
	check_fragment "$_t/build/.config"
	$_m bzImage
	# modules also runs modpost over vmlinux, writing the Module.symvers that
	# out-of-tree module builds resolve kernel symbols against.
	$_m modules
	$_m modules_prepare
	is_built "$_t"
}

if [ "$mode" = build ] && is_built "$dir"; then
	echo "$dir"
	exit 0
fi

mkdir -p "$cache"
# Serialise builders: several test runs may ask for the kernel at once.
exec 9> "$dir.lock"
flock 9
if [ "$mode" = build ] && is_built "$dir"; then
	echo "$dir"
	exit 0
fi

tmp=$dir.tmp
start=$(date +%s)
echo "debug-kernel.sh: building $dir from $tarball ($(date -u))" > "$log"
# errexit must govern the subshell, and it would be ignored inside an if condition.
set +e
(set -e; build_into "$tmp") >> "$log" 2>&1
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
	echo "debug-kernel.sh: build failed, partial tree left in $tmp; tail of $log:" >&2
	tail -n 40 "$log" >&2
	exit 1
fi
if [ -e "$dir" ]; then
	mv "$dir" "$dir.old"
	rm -rf "$dir.old"
fi
mv "$tmp" "$dir"
echo "debug-kernel.sh: built in $(($(date +%s) - start)) s" >> "$log"
echo "$dir"
