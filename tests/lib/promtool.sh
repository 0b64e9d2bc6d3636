#!/bin/sh
# promtool.sh: print the path of promtool, Prometheus's own checker, from Debian bookworm's
# prometheus package, for `promtool check metrics` on probecache-resolve status
# --format=openmetrics (tests/cli on the host; tests/vm/promimage.sh puts it on a disk for
# tests/vm/t/65-metrics.sh). Only promtool is unpacked from the package (dpkg-deb: no
# maintainer script, no Prometheus server installed or started), once per machine, into
# CACHE/promtool-VERSION/promtool (CACHE: $PROBECACHE_TEST_CACHE, default
# /var/cache/probecache-test). The .deb comes through tests/vm/debs.sh (apt with a private
# configuration, from the mirror the host's apt sources name; the index refreshed once a
# day): 19 MB downloaded once, a 48 MB binary linked against libc only.
# Needs root (the cache directory) and the mirror the first time.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${PROBECACHE_TEST_CACHE:-/var/cache/probecache-test}

die() { echo "promtool.sh: $*" >&2; exit 1; }

deb=$("$top/tests/vm/debs.sh" amd64 bookworm get prometheus) || die "cannot download bookworm's prometheus"
ver=$(dpkg-deb -f "$deb" Version)
dir=$cache/promtool-$ver
[ -x "$dir/promtool" ] && { echo "$dir/promtool"; exit 0; }
mkdir -p "$cache"
exec 7> "$cache/promtool.lock"
flock 7
[ -x "$dir/promtool" ] && { echo "$dir/promtool"; exit 0; }
rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
dpkg-deb --fsys-tarfile "$deb" | tar -x -O ./usr/bin/promtool > "$dir.tmp/promtool" ||
	die "no usr/bin/promtool in $deb"
chmod 0755 "$dir.tmp/promtool"
"$dir.tmp/promtool" --version > "$dir.tmp/version" 2>&1 || { cat "$dir.tmp/version" >&2; die "promtool does not run"; }
mv "$dir.tmp" "$dir"
# Older versions are dead weight.
for d in "$cache"/promtool-*; do
	[ "$d" = "$dir" ] || [ "$d" = "$cache/promtool.lock" ] || rm -rf "$d"
done
echo "$dir/promtool"
