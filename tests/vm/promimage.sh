#!/bin/bash
# promimage.sh: the disk image with Debian bookworm's promtool that tests/vm/run.sh attaches
# to x86-64 VMs as a read-only virtio disk where a selected script is named *-metrics.sh
# (/init mounts it on /mnt/promtool; tests/vm/t/65-metrics.sh runs `promtool check
# metrics` on probecache-resolve status --format=openmetrics). promtool is a 48 MB Go
# binary: too large for the initramfs every run unpacks into the VM's memory. It needs
# only libc, which the initramfs has (the CLI's), so the image holds promtool alone.
#   promimage.sh   build it once per machine, print its path
# The binary comes from tests/lib/promtool.sh (the prometheus .deb through
# tests/vm/debs.sh, promtool alone unpacked). The image lives in
# CACHE/promimage-KEY/promtool.img (CACHE: $PROBECACHE_TEST_CACHE, default
# /var/cache/probecache-test); KEY hashes this script and promtool's version.
# Cost (measured on a 2-core machine): 19 MB downloaded once; the image 2 s to make,
# 56 MB (ext4 without a journal); 0.1 s per run once cached.
# Needs root (the cache directory) and, the first time, the mirror the host's apt
# sources name.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${PROBECACHE_TEST_CACHE:-/var/cache/probecache-test}

die() { echo "promimage: $*" >&2; exit 1; }

pt=$("$top/tests/lib/promtool.sh") || die "no promtool (tests/lib/promtool.sh failed)"
key=$(cat "$0" "$(dirname "$pt")/version" | sha256sum | cut -c1-12)
dir=$cache/promimage-$key
img=$dir/promtool.img
[ -f "$img" ] && { echo "$img"; exit 0; }
[ "$(id -u)" = 0 ] || die "must run as root to build $img"

# Only one build at a time; a second caller waits and then finds the image.
mkdir -p "$cache"
exec 7> "$cache/promimage.lock"
flock 7
[ -f "$img" ] && { echo "$img"; exit 0; }
work=$dir.tmp
rm -rf "$work" && mkdir -p "$work/root"
cp "$pt" "$work/root/promtool"
# ext4 from the directory (no loop device), without a journal: mounted read-only,
# possibly by several VMs at once. Sized to its content plus room for ext4's metadata.
mb=$(du -sm "$work/root" | cut -f1)
mke2fs -q -t ext4 -L pc-promtool -O ^has_journal,^orphan_file,^metadata_csum_seed \
	-d "$work/root" "$work/promtool.img" "$((mb + mb / 10 + 4))M" > /dev/null || die "mke2fs failed"
rm -rf "$work/root"
mv "$work" "$dir"
# Images of older keys are dead weight.
for d in "$cache"/promimage-*; do
	[ "$d" = "$dir" ] || [ "$d" = "$cache/promimage.lock" ] || rm -rf "$d"
done
echo "promimage: built $dir" >&2
echo "$img"
