#!/bin/sh
# kernel.sh NAME -> prints "VMLINUZ KDIR KVER" for a test kernel.
#   6.1    Debian bookworm cloud kernel      6.12   bookworm-backports cloud kernel
#   debug  KASAN+lockdep+kmemleak 6.12 built by tests/vm/debug-kernel.sh
set -eu
name=${1:?usage: kernel.sh 6.1|6.12|debug}

newest() { ls $1 2>/dev/null | sort -V | tail -n 1; }

case "$name" in
6.1|6.12)
	img=$(newest "/boot/vmlinuz-$name.[0-9]*-cloud-amd64")
	[ -n "$img" ] || { echo "kernel.sh: no /boot/vmlinuz-$name.*-cloud-amd64 (run scripts/setup.sh)" >&2; exit 1; }
	kver=${img#/boot/vmlinuz-}
	kdir=/usr/src/linux-headers-$kver
	[ -d "$kdir" ] || { echo "kernel.sh: $kdir missing (linux-headers-$kver)" >&2; exit 1; }
	;;
debug)
	dir=$("$(dirname "$0")/debug-kernel.sh" --print-dir)
	img=$dir/build/arch/x86/boot/bzImage
	kdir=$dir/build
	[ -f "$img" ] || { echo "kernel.sh: debug kernel not built (tests/vm/debug-kernel.sh)" >&2; exit 1; }
	kver=$(cat "$kdir/include/config/kernel.release")
	;;
*)
	echo "kernel.sh: unknown kernel '$name' (6.1, 6.12, debug)" >&2; exit 1 ;;
esac
echo "$img $kdir $kver"
