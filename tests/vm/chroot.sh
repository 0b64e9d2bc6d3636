#!/bin/sh
# chroot.sh: cached Debian build chroots, so each test kernel's module is built with the
# compiler that kernel was built with (bullseye: gcc-10, trixie: gcc-14).
#
#   chroot.sh RELEASE                      create the chroot once, print its directory
#   chroot.sh RELEASE --print-dir          print the directory, create nothing
#   chroot.sh RELEASE --kernel SUITE VER FLAVOUR
#                                          install the newest linux-headers-VER*-FLAVOUR of
#                                          SUITE (once) and unpack its vmlinuz; prints
#                                          "VMLINUZ KDIR KVER", KDIR as seen inside the chroot
#   chroot.sh RELEASE --foreign-kernel ARCH VER FLAVOUR
#                                          the same for a kernel of another architecture
#                                          (arm64), to cross-build modules: its headers
#                                          unpacked, with the chroot's own kbuild tools
#                                          and the cross compiler the headers name
#   chroot.sh RELEASE --run DIR CMD...     run CMD inside, in a private mount namespace with
#                                          /proc mounted and DIR bind-mounted at the same path
#                                          (in the caller's directory if that is under DIR)
#
# Chroots live in CACHE/chroot-RELEASE, CACHE being $PROBECACHE_TEST_CACHE (default
# /var/cache/probecache-test): debootstrap minbase from the mirror the host's apt sources
# use; another SUITE such as RELEASE-backports is added when a kernel comes from it.
# Kernels and compilers are Debian packages.
set -eu

release=${1:?usage: chroot.sh RELEASE [--print-dir | --kernel SUITE VER FLAVOUR | --foreign-kernel ARCH VER FLAVOUR | --run DIR CMD...]}
shift
cache=${PROBECACHE_TEST_CACHE:-/var/cache/probecache-test}
dir=$cache/chroot-$release
top=$(cd "$(dirname "$0")/../.." && pwd)
# Besides the kernel headers (which bring the compiler): kernel-doc (W=1) needs perl's
# Pod::Usage, DKMS builds need dkms, xz unpacks compressed modules.
pkgs="make perl xz-utils dkms"

die() { echo "chroot.sh: $*" >&2; exit 1; }
in_chroot() { chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"; }

create() {
	[ "$(id -u)" = 0 ] || die "creating $dir needs root"
	command -v debootstrap > /dev/null || die "debootstrap missing (scripts/setup.sh)"
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	. "$top/scripts/mirror.sh"
	mirror=$(mirror_uri | head -n 1)
	[ -n "$mirror" ] || die "cannot derive a Debian mirror from the host's apt sources"
	tmp=$dir.tmp
	rm -rf "$tmp"
	echo "chroot.sh: creating $dir from $mirror (once)" >&2
	debootstrap --variant=minbase --include="$(echo $pkgs | tr ' ' ,)" "$release" "$tmp" "$mirror" \
		> "$dir.log" 2>&1 || { tail -n 20 "$dir.log" >&2; die "debootstrap $release failed"; }
	printf 'deb %s %s main\ndeb %s %s-updates main\n' \
		"$mirror" "$release" "$mirror" "$release" > "$tmp/etc/apt/sources.list"
	# Kernel packages only ever come as build dependencies here: no docs, no recommends.
	printf 'APT::Install-Recommends "false";\n' > "$tmp/etc/apt/apt.conf.d/90probecache"
	echo "$pkgs" > "$tmp/.probecache-pkgs"
	mv "$tmp" "$dir"
	in_chroot apt-get update -q >> "$dir.log" 2>&1 || die "apt-get update in $dir failed"
	in_chroot apt-get clean
}

# A chroot made with an older package list gets what is missing added.
update_pkgs() {
	[ "$(cat "$dir/.probecache-pkgs" 2>/dev/null)" != "$pkgs" ] || return 0
	[ "$(id -u)" = 0 ] || die "adding packages to $dir needs root"
	{ in_chroot apt-get update -q && in_chroot apt-get install -y -q $pkgs; } >> "$dir.log" 2>&1 ||
		die "installing $pkgs in $dir failed"
	in_chroot apt-get clean
	echo "$pkgs" > "$dir/.probecache-pkgs"
}

# kernel SUITE VER FLAVOUR: newest linux-headers-VER.*-FLAVOUR, installed once; its vmlinuz
# from linux-image-K (or linux-binary-K, where the image package is split) unpacked in /kimg.
kernel() {
	suite=$1 ver=$2 flav=$3
	re="^linux-headers-$(echo "$ver" | sed 's/\./\\./g')[.][0-9]+[-+][-+.a-z0-9]*-$flav\$"
	kver=$(ls "$dir/usr/src" 2>/dev/null | grep -E "$re" | sed 's/^linux-headers-//' |
		sort -V | tail -n 1 || true)
	if [ -z "$kver" ]; then
		[ "$(id -u)" = 0 ] || die "installing a $suite $ver $flav kernel in $dir needs root"
		if [ "$suite" != "$release" ] && [ ! -f "$dir/etc/apt/sources.list.d/$suite.list" ]; then
			head -n 1 "$dir/etc/apt/sources.list" | sed "s/ $release / $suite /" \
				> "$dir/etc/apt/sources.list.d/$suite.list"
		fi
		in_chroot apt-get update -q >> "$dir.log" 2>&1 || die "apt-get update in $dir failed"
		pkg=$(in_chroot apt-cache search --names-only "^linux-headers-$ver.*-$flav\$" |
			awk '{print $1}' | grep -E "$re" | sort -V | tail -n 1)
		[ -n "$pkg" ] || die "no linux-headers-*-$flav in $suite"
		kver=${pkg#linux-headers-}
		echo "chroot.sh: installing $pkg from $suite into $dir" >&2
		in_chroot apt-get install -y -q -t "$suite" "$pkg" >> "$dir.log" 2>&1 ||
			{ tail -n 20 "$dir.log" >&2; die "installing $pkg failed"; }
		in_chroot apt-get clean
	fi
	# Where the headers pull in the image package (trixie) its vmlinuz is already there.
	img=/boot/vmlinuz-$kver
	[ -f "$dir$img" ] || img=/kimg/boot/vmlinuz-$kver
	if [ ! -f "$dir$img" ]; then
		rm -rf "$dir/kimg/deb" && mkdir -p "$dir/kimg/deb"
		in_chroot sh -c "cd /kimg/deb && { apt-get download -q linux-binary-$kver ||
			apt-get download -q linux-image-$kver; }" >> "$dir.log" 2>&1 ||
			die "no linux-binary-$kver or linux-image-$kver"
		deb=$(ls "$dir"/kimg/deb/*.deb)
		# linux-image-K: /boot/vmlinuz-K; linux-binary-K (7.x): /usr/lib/modules/K/vmlinuz.
		path=$(dpkg-deb -c "$deb" | awk '{print $NF}' |
			grep -x -F -e "./boot/vmlinuz-$kver" -e "./usr/lib/modules/$kver/vmlinuz" | head -n 1)
		[ -n "$path" ] || die "no vmlinuz for $kver in $deb"
		mkdir -p "$dir/kimg/boot"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -O "$path" > "$dir$img.tmp" &&
			mv "$dir$img.tmp" "$dir$img" || die "cannot unpack $path from $deb"
		rm -rf "$dir/kimg/deb"
	fi
	echo "$dir$img /usr/src/linux-headers-$kver $kver"
}

# foreign_kernel ARCH VER FLAVOUR: newest linux-headers-VER.*-FLAVOUR of ARCH in RELEASE
# (tests/vm/debs.sh: -updates, -security and -backports count). Its package cannot be
# installed here (it depends on ARCH's compiler), so it and its -common are unpacked into
# /usr/src; the host-side scripts/ come from this machine's linux-kbuild of the same
# version and the compiler from gcc-N-GNUTYPE, N as the headers' .kernelvariables name it.
# The vmlinuz (linux-image-K, or linux-binary-K where the image is split) goes to /kimg.
foreign_kernel() {
	arch=$1 ver=$2 flav=$3 debs="$top/tests/vm/debs.sh"
	re="^linux-headers-$(echo "$ver" | sed 's/\./\\./g')[.][0-9]+[-+][-+.a-z0-9]*-$flav\$"
	kver=$(ls "$dir/usr/src" 2>/dev/null | grep -E "$re" | sed 's/^linux-headers-//' |
		sort -V | tail -n 1 || true)
	if [ -z "$kver" ] || [ ! -f "$dir/usr/src/linux-headers-$kver/.probecache-ok" ]; then
		[ "$(id -u)" = 0 ] || die "installing a $arch $ver $flav kernel in $dir needs root"
		pkg=$("$debs" "$arch" "$release" search "$re" | tail -n 1)
		[ -n "$pkg" ] || die "no linux-headers-$ver*-$flav for $arch in $release"
		kver=${pkg#linux-headers-}
		echo "chroot.sh: unpacking $pkg ($arch) into $dir" >&2
		hdeb=$("$debs" "$arch" "$release" get "$pkg")
		deps=$(dpkg-deb -f "$hdeb" Depends | tr ',' '\n' | sed 's/^ *//;s/ .*//')
		common=$(echo "$deps" | grep -E '^linux-headers-.*-common$')
		kbuild=$(echo "$deps" | grep -E '^linux-kbuild-')
		[ -n "$common" ] && [ -n "$kbuild" ] || die "$pkg: no -common or linux-kbuild dependency"
		cdeb=$("$debs" "$arch" "$release" get "$common")
		# The kbuild tools run here: this machine's architecture, the headers' version.
		kdeb=$("$debs" "$(dpkg --print-architecture)" "$release" get "$kbuild")
		# Only usr/src (a plain dpkg-deb -x would turn the merged-/usr /lib into a directory).
		for d in "$cdeb" "$hdeb"; do
			dpkg-deb --fsys-tarfile "$d" | tar -x -C "$dir" --keep-directory-symlink ./usr/src ||
				die "cannot unpack ${d##*/}"
		done
		gcc=$(sed -n 's/^CC = .*)gcc-\([0-9]*\)$/\1/p' \
			"$dir/usr/src/linux-headers-$kver/.kernelvariables")
		[ -n "$gcc" ] || die "$pkg: cannot tell its compiler from .kernelvariables"
		gnu=$(dpkg-architecture -a "$arch" -q DEB_HOST_GNU_TYPE 2> /dev/null)
		mkdir -p "$dir/kimg/deb"
		cp "$kdeb" "$dir/kimg/deb/"
		{ in_chroot apt-get update -q &&
		  in_chroot apt-get install -y -q "/kimg/deb/${kdeb##*/}" "gcc-$gcc-$gnu"; } \
			>> "$dir.log" 2>&1 ||
			{ tail -n 20 "$dir.log" >&2; die "installing $kbuild, gcc-$gcc-$gnu failed"; }
		in_chroot apt-get clean
		rm -rf "$dir/kimg/deb"
		echo "$gnu" > "$dir/usr/src/linux-headers-$kver/.probecache-ok"
	fi
	img=/kimg/boot/vmlinuz-$kver
	if [ ! -f "$dir$img" ]; then
		deb=$("$debs" "$arch" "$release" get "linux-binary-$kver" 2> /dev/null ||
			"$debs" "$arch" "$release" get "linux-image-$kver") ||
			die "no linux-binary-$kver or linux-image-$kver for $arch"
		path=$(dpkg-deb -c "$deb" | awk '{print $NF}' |
			grep -x -F -e "./boot/vmlinuz-$kver" -e "./usr/lib/modules/$kver/vmlinuz" | head -n 1)
		[ -n "$path" ] || die "no vmlinuz for $kver in $deb"
		mkdir -p "$dir/kimg/boot"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -O "$path" > "$dir$img.tmp" &&
			mv "$dir$img.tmp" "$dir$img" || die "cannot unpack $path from $deb"
	fi
	echo "$dir$img /usr/src/linux-headers-$kver $kver"
}

case "${1:-}" in
--print-dir)
	echo "$dir"; exit 0 ;;
--run)
	d=${2:?--run DIR CMD...}
	shift 2
	[ -d "$dir" ] || die "$dir missing"
	exec unshare --mount --propagation private sh -c '
		c=$1 d=$2; shift 2
		mount -t proc proc "$c/proc" && mkdir -p "$c$d" && mount --bind "$d" "$c$d" &&
		exec chroot "$c" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C \
			HOME=/root sh -c '\''cd "$0" 2> /dev/null || cd /; exec "$@"'\'' "$PWD" "$@"
		' sh "$dir" "$d" "$@" ;;
esac

# Creation and kernel installs are serialised per chroot; readers of a ready one are not.
mkdir -p "$cache"
exec 7> "$dir.lock"
flock 7
[ -d "$dir" ] || create
update_pkgs
case "${1:-}" in
'') echo "$dir" ;;
--kernel)
	[ $# = 4 ] || die "usage: chroot.sh RELEASE --kernel SUITE VER FLAVOUR"
	kernel "$2" "$3" "$4" ;;
--foreign-kernel)
	[ $# = 4 ] || die "usage: chroot.sh RELEASE --foreign-kernel ARCH VER FLAVOUR"
	foreign_kernel "$2" "$3" "$4" ;;
*) die "unknown option $1" ;;
esac
