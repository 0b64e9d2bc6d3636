#!/bin/bash
# run.sh KERNEL: build the module for KERNEL (5.10 6.1 6.12 6.12-deb13 7.3 7.3-rt debug), pack an initramfs
# with the CLI, fixtures and in-VM tests, boot it under QEMU (TCG) and report TAP.
#
# Environment:
#   VM_TESTS='glob'          only in-VM scripts matching glob (default: all)
#   VM_TESTDIR=dir           take in-VM scripts from dir instead of tests/vm/t
#   VM_EXTRA_MODULES='d...'  also build these out-of-tree module dirs; .ko go to /pc/extra/
#   VM_TIMEOUT=s             whole-boot limit (default 900), VM_TEST_TIMEOUT=s per script (300)
#   VM_QUIET=1               print only failures and the summary
#   VM_RAW=1                 print the scripts' non-TAP output as is (the demo)
#
# Exit status: 0 only if every script finished, every result is ok, and the kernel log
# has no BUG/WARNING/KASAN/lockdep/sleep-in-atomic/kmemleak report.
set -euo pipefail

kernel=${1:?usage: run.sh KERNEL (tests/vm/kernel.sh names them)}
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tests/vm
testdir=${VM_TESTDIR:-$vm/t}
out=$top/build/vm-$kernel
read -r vmlinuz kdir kver chroot < <("$vm/kernel.sh" "$kernel")

log() { [ -n "${VM_QUIET:-}" ] || echo "# $*"; }
die() { echo "run.sh: $*" >&2; exit 1; }

build_module() { # SRC_DIR DEST_DIR: out-of-tree build in a private copy
	rm -rf "$2" && mkdir -p "$2"
	cp -a "$1/." "$2/"
	# Kernels of other Debian releases: in that release's chroot, with their own compiler.
	local run=()
	[ -z "$chroot" ] || run=("$vm/chroot.sh" "$chroot" --run "$out")
	"${run[@]}" make -s -C "$kdir" M="$2" W=1 modules > "$2.log" 2>&1 ||
		{ cat "$2.log" >&2; die "module build failed in $1 for $kver"; }
	# The module must build warning-free with W=1 on every test kernel.
	! grep -q 'warning:' "$2.log" || { cat "$2.log" >&2; die "W=1 warnings in $1 for $kver"; }
}

build_all() {
	rm -rf "$out/src" && mkdir -p "$out/src"
	cp -a "$top/kmod" "$top/include" "$out/src/"
	rm -f "$out/src/kmod/"*.o "$out/src/kmod/"*.ko
	build_module "$top/kmod" "$out/src/kmod"
	make -s -C "$top/user" > /dev/null
	make -s -C "$top/tests/fixtures" > /dev/null
}

# copy_host PATH...: copy host files (and symlink targets, and the libraries ldd
# names for ELF files) to the same paths under the initramfs root.
copy_host() {
	local f real lib
	for f in "$@"; do
		[ -e "$f" ] || die "files.d names $f, which does not exist"
		# cp --parents misbehaves with -a relative to some working directories: copy from /.
		(cd / && cp -a --parents "${f#/}" "$root/")
		real=$(readlink -f "$f")
		[ "$real" = "$f" ] || (cd / && cp -a --parents "${real#/}" "$root/")
		file -bL "$f" | grep -q '^ELF' || continue
		for lib in $(ldd "$real" 2>/dev/null | grep -o '/[^ ]*' || true); do
			[ -e "$root$lib" ] || copy_host "$lib"
		done
	done
}

make_initramfs() {
	root=$out/root
	rm -rf "$root" && mkdir -p "$root"/{bin,sbin,usr/bin,usr/lib,usr/lib64,pc/t,pc/extra,pc/fixtures,etc}
	# Merged /usr as on the host, so the loader's and libraries' absolute and relative
	# symlinks resolve the same way inside the VM (busybox keeps real /bin and /sbin).
	ln -s usr/lib "$root/lib"
	ln -s usr/lib64 "$root/lib64"
	cp /bin/busybox "$root/bin/busybox"
	cp "$vm/init" "$root/init"
	cp "$out/src/kmod/probecache.ko" "$root/pc/"
	cat "$top/tests/lib/tap.sh" "$vm/lib-vm.sh" > "$root/pc/lib.sh"
	cp "$top/user/probecache-resolve" "$root/usr/bin/"
	copy_host "$top/user/probecache-resolve"
	cp -a "$top/tests/fixtures/build/." "$root/pc/fixtures/"
	for f in "$root"/pc/fixtures/*; do
		file -b "$f" | grep -q '^ELF.*dynamic' || continue
		copy_host $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true)
	done
	local f list
	for list in "$vm"/files.d/*.list; do
		[ -f "$list" ] || continue
		for f in $(sed 's/#.*//' "$list"); do
			copy_host "$f"
		done
	done
	local t
	for t in "$testdir"/${VM_TESTS:-*}.sh; do
		[ -f "$t" ] && cp "$t" "$root/pc/t/"
	done
	ls "$root"/pc/t/*.sh > /dev/null 2>&1 || die "no in-VM test matches ${VM_TESTS:-*} in $testdir"
	local d
	for d in ${VM_EXTRA_MODULES:-}; do
		build_module "$d" "$out/extra/$(basename "$d")"
		cp "$out/extra/$(basename "$d")"/*.ko "$root/pc/extra/"
	done
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initrd.gz"
}

boot() {
	rm -f "$out/console.log" "$out/tap.log"
	log "booting $kver ($(du -h "$out/initrd.gz" | cut -f1) initramfs)"
	local rc=0
	timeout "${VM_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg -cpu max -m 1G -smp 2 \
		-no-reboot -display none -monitor none \
		-serial "file:$out/console.log" -serial "file:$out/tap.log" \
		-kernel "$vmlinuz" -initrd "$out/initrd.gz" \
		-append "console=ttyS0 loglevel=5 panic=-1 oops=panic panic_on_warn=0 pc_timeout=${VM_TEST_TIMEOUT:-300}" \
		|| rc=$?
	[ "$rc" = 124 ] && echo "not ok - VM timed out after ${VM_TIMEOUT:-900}s" >> "$out/tap.log"
	return 0
}

mkdir -p "$out"
# One run per kernel at a time: concurrent runs would rebuild each other's initramfs.
exec 9> "$out.lock"
flock 9
log "kernel $kernel: $kver"
build_all
make_initramfs
# One VM on the machine at a time, whichever checkout it comes from: two TCG guests
# on two cores would each run at half speed and time out (build steps may overlap).
exec 8> /tmp/probecache-vm.lock
flock 8
start=$(date +%s)
boot
exec 8>&-
log "VM finished in $(( $(date +%s) - start ))s"
"$vm/report.sh" "$kernel" "$out/tap.log" "$out/console.log"
