#!/bin/sh
# debs.sh ARCH RELEASE CMD...: Debian packages of another architecture (arm64 on an amd64
# host), through apt with a private configuration: the host's dpkg never sees ARCH.
#
#   debs.sh ARCH RELEASE search REGEX      package names matching REGEX (apt-cache search
#                                          --names-only), one a line, sorted -V
#   debs.sh ARCH RELEASE get PKG...        download PKG (newest of RELEASE, RELEASE-updates,
#                                          RELEASE-backports) once; prints each .deb's path
#   debs.sh ARCH RELEASE closure PKG...    NAME=VERSION of PKG and everything it needs on an
#                                          empty system (Depends, Pre-Depends), sorted
#   debs.sh ARCH RELEASE fetch DIR NAME=VERSION...
#                                          download exactly these into DIR (not kept here);
#                                          prints each .deb's path
#
# State lives in $PROBECACHE_TEST_CACHE (default /var/cache/probecache-test)/apt-ARCH-RELEASE
# (the index is refreshed once a day); the mirrors are the ones the host's apt sources use
# (main archive and security).
set -eu

arch=${1:?usage: debs.sh ARCH RELEASE search REGEX | get PKG... | closure PKG... | fetch DIR NAME=VERSION...}
release=${2:?usage: debs.sh ARCH RELEASE search REGEX | get PKG... | closure PKG... | fetch DIR NAME=VERSION...}
cmd=${3:?usage: debs.sh ARCH RELEASE search REGEX | get PKG... | closure PKG... | fetch DIR NAME=VERSION...}
shift 3
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${PROBECACHE_TEST_CACHE:-/var/cache/probecache-test}
dir=$cache/apt-$arch-$release
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

die() { echo "debs.sh: $*" >&2; exit 1; }

apt_() {
	apt-get -q -o APT::Architecture="$arch" -o APT::Architectures="$arch" \
		-o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::State="$dir/state" -o Dir::State::status="$dir/status" \
		-o Dir::Cache="$dir/cache" -o Debug::NoLocking=1 "$@"
}

setup() {
	mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial" "$dir/debs"
	: > "$dir/status"
	if [ ! -f "$dir/sources.list" ]; then
		codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
		. "$top/scripts/mirror.sh"
		mirror=$(mirror_uri | head -n 1)
		[ -n "$mirror" ] || die "cannot derive a Debian mirror from the host's apt sources"
		codename=$codename-security
		security=$(mirror_uri | head -n 1)
		{
			for s in "$release" "$release-updates" "$release-backports"; do
				echo "deb [signed-by=$keyring] $mirror $s main"
			done
			[ -z "$security" ] || echo "deb [signed-by=$keyring] $security $release-security main"
		} > "$dir/sources.list"
	fi
	# Refresh the index once a day (a new kernel ABI replaces the old packages).
	if [ -z "$(find "$dir/state/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
		apt_ update > "$dir/update.log" 2>&1 || { tail -n 20 "$dir/update.log" >&2; die "apt-get update ($arch $release) failed"; }
	fi
}

mkdir -p "$cache"
exec 6> "$dir.lock"
flock 6
setup
case "$cmd" in
search)
	apt-cache -o APT::Architecture="$arch" -o APT::Architectures="$arch" \
		-o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State="$dir/state" -o Dir::State::status="$dir/status" \
		-o Dir::Cache="$dir/cache" search --names-only "${1:?search REGEX}" |
		awk '{print $1}' | sort -V ;;
get)
	for p in "$@"; do
		f=$(ls "$dir/debs/${p}_"*.deb 2>/dev/null | sort -V | tail -n 1 || true)
		if [ -z "$f" ]; then
			(cd "$dir/debs" && apt_ download "$p:$arch") > "$dir/download.log" 2>&1 ||
				(cd "$dir/debs" && apt_ -t "$release-backports" download "$p:$arch") \
				>> "$dir/download.log" 2>&1 ||
				{ tail -n 5 "$dir/download.log" >&2; die "cannot download $p ($arch $release)"; }
			f=$(ls "$dir/debs/${p}_"*.deb | sort -V | tail -n 1)
		fi
		echo "$f"
	done ;;
closure)
	# The status file is empty: apt resolves the whole closure, libc6 included.
	apt_ install -s --no-install-recommends "$@" > "$dir/closure.log" 2>&1 ||
		{ tail -n 20 "$dir/closure.log" >&2; die "cannot resolve $* ($arch $release)"; }
	sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1=\2/p' "$dir/closure.log" | sort ;;
fetch)
	d=${1:?fetch DIR NAME=VERSION...}
	shift
	(cd "$d" && apt_ download "$@") > "$dir/download.log" 2>&1 ||
		{ tail -n 5 "$dir/download.log" >&2; die "cannot download $* ($arch $release)"; }
	for p in "$@"; do
		# apt names the file NAME_VERSION_ARCH.deb, an epoch's colon as %3a
		f=$d/${p%%=*}_$(echo "${p#*=}" | sed 's/:/%3a/')_
		ls "$f"*.deb 2> /dev/null || die "downloaded no $f*.deb"
	done ;;
*) die "unknown command $cmd" ;;
esac
