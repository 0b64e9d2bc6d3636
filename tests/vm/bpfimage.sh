#!/bin/bash
# bpfimage.sh: the disk image with bookworm's bpftrace (0.17) that tests/vm/run.sh attaches
# to x86-64 VMs as a third virtio disk, read-only (/init mounts it on /mnt/bpftrace and
# tests/vm/t/71-bpftrace.sh chroots into it). bpftrace with its LLVM and clang libraries
# is about 300 MB unpacked: far too much for the initramfs.
#   bpfimage.sh               build it once per machine, print its path
#   bpfimage.sh --print-path  print the path it has or would have, build nothing
# The image holds bpftrace, busybox as /bin/sh and the closure apt resolves for them on
# an empty system (tests/vm/debs.sh closure: libc6 included), unpacked without maintainer
# scripts, with an ld.so.cache: no debootstrap, no package manager run in a chroot. It
# lives in CACHE/bpftrace-KEY/bpftrace.img (CACHE: $PROBECACHE_TEST_CACHE, default
# /var/cache/probecache-test); KEY hashes this script and the NAME=VERSION list of the
# closure, so a new package version rebuilds it.
# Cost (measured on a 2-core machine): 61 MB downloaded, 18 s; a 346 MB image (272 MB
# used, sparse); 1.8 s per run once cached (the closure is resolved again for the key).
# Needs root (the cache directory) and network to the mirror the host's apt sources name.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tests/vm
cache=${PROBECACHE_TEST_CACHE:-/var/cache/probecache-test}
release=bookworm

die() { echo "bpfimage: $*" >&2; exit 1; }

# busybox for /bin/sh: bpftrace popen()s "clang-14 -Wp,-v ..." to find include directories
# and crashes (fclose(NULL)) where popen fails for want of a shell; the test's commands
# (bpftrace -c) run under it too.
closure=$("$vm/debs.sh" amd64 "$release" closure bpftrace busybox) || die "cannot resolve bpftrace's closure"
echo "$closure" | grep -q '^bpftrace=' || die "no bpftrace in $release"
key=$(cat "$0" <(echo "$closure") | sha256sum | cut -c1-12)
dir=$cache/bpftrace-$key
img=$dir/bpftrace.img
if [ "${1:-}" = --print-path ]; then
	echo "$img"
	exit 0
fi
[ -f "$img" ] && { echo "$img"; exit 0; }
[ "$(id -u)" = 0 ] || die "must run as root to build $img"

# Only one build at a time; a second caller waits and then finds the image.
mkdir -p "$cache"
exec 7> "$cache/bpftrace.lock"
flock 7
[ -f "$img" ] && { echo "$img"; exit 0; }

work=$dir.tmp
root=$work/root
rm -rf "$work" && mkdir -p "$work/debs" "$root"/{usr/bin,usr/lib,usr/lib64,usr/sbin,etc,proc,sys,dev,tmp,pc}
# proc, sys, dev, tmp, pc: where the test binds the VM's own (its fixtures in /pc, so that
# bpftrace -c can start them). Merged /usr, as the packages expect (their files are under
# /usr, the loader's path is /lib64/ld-linux-x86-64.so.2).
for d in bin lib lib64 sbin; do
	ln -s "usr/$d" "$root/$d"
done
debs=$("$vm/debs.sh" amd64 "$release" fetch "$work/debs" $closure) || die "download failed"
for deb in $debs; do
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" --keep-directory-symlink ||
		die "cannot unpack $deb"
done
rm -rf "$work/debs" "$root"/usr/share/{doc,man,info,locale,lintian,bug}
ln -s busybox "$root/usr/bin/sh"
# No postinst ran: the loader cache that libc6's trigger would make.
ldconfig -r "$root" || die "ldconfig -r $root failed"
chroot "$root" /usr/bin/bpftrace --version > "$work/version" 2>&1 ||
	{ cat "$work/version" >&2; die "bpftrace does not run in $root"; }
# ext4 from the directory (no loop device), without a journal: mounted read-only,
# possibly by several VMs at once. Sized to its content plus room for ext4's metadata.
mb=$(du -sm "$root" | cut -f1)
mke2fs -q -t ext4 -L pc-bpftrace -O ^has_journal,^orphan_file,^metadata_csum_seed \
	-d "$root" "$work/bpftrace.img" "$((mb + mb / 5 + 16))M" > /dev/null || die "mke2fs failed"
rm -rf "$root"
echo "$closure" > "$work/closure"
mv "$work" "$dir"
# Images of older keys are dead weight.
for d in "$cache"/bpftrace-*; do
	[ "$d" = "$dir" ] || [ "$d" = "$cache/bpftrace.lock" ] || rm -rf "$d"
done
echo "bpfimage: built $dir ($(cat "$dir/version"))" >&2
echo "$img"
