#!/bin/sh
# kernel.sh NAME -> prints "VMLINUZ KDIR KVER [CHROOT [ARCH]]" for a test kernel. With CHROOT
# the module is built inside tests/vm/chroot.sh CHROOT (KDIR is a path inside it), so with the
# compiler that kernel was built with; without, on the host (bookworm's gcc-12). ARCH (Debian's
# name) is given for a kernel of another architecture than the host's: arm64, cross-built
# with the cross gcc of the version the kernel was built with, booted in qemu-system-aarch64.
#   5.10        Debian bullseye cloud kernel             (bullseye chroot, gcc-10)
#   6.1         Debian bookworm cloud kernel             (host)
#   6.12        bookworm-backports cloud kernel          (host)
#   6.12-deb13  Debian trixie cloud kernel               (trixie chroot, gcc-14)
#   7.3         trixie-backports cloud kernel            (trixie chroot, gcc-14)
#   7.3-rt      trixie-backports PREEMPT_RT kernel       (trixie chroot, gcc-14)
#   debug       KASAN+lockdep+kmemleak 6.12 built by tests/vm/debug-kernel.sh
#   arm64-6.1   Debian bookworm cloud-arm64 kernel       (bookworm chroot, gcc-12-aarch64-linux-gnu)
#   arm64-7.3   trixie-backports cloud-arm64 kernel      (trixie chroot, gcc-14-aarch64-linux-gnu)
# Chroots and their kernels are created on first use (as root), cached afterwards.
set -eu
name=${1:?usage: kernel.sh 5.10|6.1|6.12|6.12-deb13|7.3|7.3-rt|debug|arm64-6.1|arm64-7.3}
vm=$(dirname "$0")

newest() { ls $1 2>/dev/null | sort -V | tail -n 1; }

# in_chroot RELEASE SUITE VER FLAVOUR
in_chroot() {
	set -- "$1" $("$vm/chroot.sh" "$1" --kernel "$2" "$3" "$4")
	[ $# = 4 ] || exit 1
	echo "$2 $3 $4 $1"
	exit 0
}

# in_chroot_foreign RELEASE ARCH VER FLAVOUR
in_chroot_foreign() {
	set -- "$1" "$2" $("$vm/chroot.sh" "$1" --foreign-kernel "$2" "$3" "$4")
	[ $# = 5 ] || exit 1
	echo "$3 $4 $5 $1 $2"
	exit 0
}

case "$name" in
6.1|6.12)
	img=$(newest "/boot/vmlinuz-$name.[0-9]*-cloud-amd64")
	[ -n "$img" ] || { echo "kernel.sh: no /boot/vmlinuz-$name.*-cloud-amd64 (run scripts/setup.sh)" >&2; exit 1; }
	kver=${img#/boot/vmlinuz-}
	kdir=/usr/src/linux-headers-$kver
	[ -d "$kdir" ] || { echo "kernel.sh: $kdir missing (linux-headers-$kver)" >&2; exit 1; }
	;;
5.10)		in_chroot bullseye bullseye 5.10 cloud-amd64 ;;
6.12-deb13)	in_chroot trixie trixie 6.12 cloud-amd64 ;;
7.3)		in_chroot trixie trixie-backports 7.3 cloud-amd64 ;;
7.3-rt)		in_chroot trixie trixie-backports 7.3 rt-amd64 ;;
arm64-6.1)	in_chroot_foreign bookworm arm64 6.1 cloud-arm64 ;;
arm64-7.3)	in_chroot_foreign trixie arm64 7.3 cloud-arm64 ;;
debug)
	dir=$("$vm/debug-kernel.sh" --print-dir)
	img=$dir/build/arch/x86/boot/bzImage
	kdir=$dir/build
	[ -f "$img" ] || { echo "kernel.sh: debug kernel not built (tests/vm/debug-kernel.sh)" >&2; exit 1; }
	kver=$(cat "$kdir/include/config/kernel.release")
	;;
*)
	echo "kernel.sh: unknown kernel '$name' (5.10, 6.1, 6.12, 6.12-deb13, 7.3, 7.3-rt, debug, arm64-6.1, arm64-7.3)" >&2; exit 1 ;;
esac
echo "$img $kdir $kver"
