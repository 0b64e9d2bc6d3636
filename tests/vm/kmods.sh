#!/bin/sh
# kmods.sh KERNEL: prints the directory holding kernel/ and modules.dep of test kernel
# KERNEL (tests/vm/kernel.sh names them), where tests/vm/run.sh takes the disk modules
# (virtio, ext4, xfs, overlay) that kernel does not build in. Modules come from the
# installed kernel (host or chroot), or, where only the vmlinuz was unpacked (5.10, 7.3,
# 7.3-rt, arm64-*), from that kernel's linux-modules-K (7.x) or linux-image-K package,
# unpacked once per machine into $PROBECACHE_TEST_CACHE (default
# /var/cache/probecache-test)/kmods-K. Another architecture's package comes through
# tests/vm/debs.sh: the chroot's apt knows only the host's.
# A script of its own so that tests/run-all.sh can build that cache ahead of the suite.
set -eu
name=${1:?usage: kmods.sh KERNEL}
vm=$(cd "$(dirname "$0")" && pwd)
cache=${PROBECACHE_TEST_CACHE:-/var/cache/probecache-test}

die() { echo "kmods.sh: $*" >&2; exit 1; }

# The output is checked: set -e does not see a failure inside $(...) of a set --.
k=$("$vm/kernel.sh" "$name") || exit 1
set -- $k
[ $# -ge 3 ] || die "kernel.sh $name printed '$k'"
kver=$3 chroot=${4:-} arch=${5:-$(dpkg --print-architecture)}

# download TMP: the kernel's linux-modules-K, else linux-image-K; prints the .deb's path.
download() {
	if [ "$arch" != "$(dpkg --print-architecture)" ]; then
		"$vm/debs.sh" "$arch" "$chroot" get "linux-modules-$kver" 2> /dev/null ||
			"$vm/debs.sh" "$arch" "$chroot" get "linux-image-$kver" ||
			die "no linux-modules-$kver or linux-image-$kver ($arch)"
		return
	fi
	# Under the chroot's own lock (chroot.sh's DIR.lock): another kernel's install may be
	# running apt-get update there (tests/run-all.sh builds caches side by side).
	flock "$("$vm/chroot.sh" "$chroot" --print-dir).lock" \
		"$vm/chroot.sh" "$chroot" --run "$1" sh -c "cd '$1' &&
		{ apt-get download -q linux-modules-$kver || apt-get download -q linux-image-$kver; }" \
		> "$1.log" 2>&1 ||
		{ cat "$1.log" >&2; die "no linux-modules-$kver or linux-image-$kver"; }
	ls "$1"/*.deb | head -n 1
}

# unpack DIR: the kernel's modules package into DIR/root, depmod'ed; DIR/.done when complete.
unpack() {
	d=$1 tmp=$1.tmp
	rm -rf "$d" "$tmp" && mkdir -p "$tmp"
	deb=$(download "$tmp") || exit 1
	[ -n "$deb" ] || die "no package downloaded for $kver"
	mkdir -p "$d"
	dpkg-deb -x "$deb" "$d/root" || die "cannot unpack $deb"
	rm -rf "$tmp" "$tmp.log"
	m=$d/root/lib/modules/$kver
	[ -d "$m" ] || m=$d/root/usr/lib/modules/$kver
	[ -d "$m" ] || die "no modules directory in the package of $kver"
	depmod -b "${m%/lib/modules/*}" "$kver" 2> /dev/null || die "depmod for $kver failed"
	touch "$d/.done"
}

base=
[ -z "$chroot" ] || base=$("$vm/chroot.sh" "$chroot" --print-dir)
for m in "$base/lib/modules/$kver" "$base/usr/lib/modules/$kver"; do
	[ -f "$m/modules.dep" ] && [ -d "$m/kernel" ] && { echo "$m"; exit 0; }
done
[ -n "$chroot" ] || die "no modules for $kver in /lib/modules (linux-image-$kver)"
d=$cache/kmods-$kver
if [ ! -f "$d/.done" ]; then
	mkdir -p "$cache"
	exec 7> "$d.lock"
	flock 7
	[ -f "$d/.done" ] || unpack "$d"
	exec 7>&-
fi
for m in "$d/root/lib/modules/$kver" "$d/root/usr/lib/modules/$kver"; do
	[ ! -f "$m/modules.dep" ] || { echo "$m"; exit 0; }
done
die "no modules.dep under $d"
