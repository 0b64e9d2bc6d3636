#!/bin/bash
# run.sh KERNEL: build the module for KERNEL (5.10 6.1 6.12 6.12-deb13 7.3 7.3-rt debug), pack an initramfs
# with the CLI, fixtures and in-VM tests, boot it under QEMU (TCG) and report TAP.
# arm64-6.1, arm64-7.3: the module cross-built, an arm64 initramfs (Debian's busybox-static,
# libc6, libstdc++6 .debs; cross-built fixtures; records made by the host's CLI) with the
# arm64 scripts only (tests/vm/t/7*-arm64*.sh), booted in qemu-system-aarch64 -M virt
# with the same two disks as the x86 runs (make_disks; the arm64 kernel's disk modules).
#
# Environment:
#   VM_TESTS='glob'          only in-VM scripts matching glob (default: all)
#   VM_TESTDIR=dir           take in-VM scripts from dir instead of tests/vm/t
#   VM_EXTRA_MODULES='d...'  also build these out-of-tree module dirs; .ko go to /pc/extra/
#   VM_FACTOR=f              fix the speed factor (e.g. 2.5) instead of calibrating in the VM
#   VM_TIMEOUT=s             fix the whole-VM limit (default: derived, see watch_vm)
#   VM_BOOT_TIMEOUT=s        limit until /init has calibrated (default 300)
#   VM_QUIET=1               print only failures and the summary
#   VM_RAW=1                 print the scripts' non-TAP output as is (the demo)
#   VM_FIXTURES='K...'       build the DKMS-built fixture modules of these kernels (default:
#                            KERNEL's, 6.1's and 6.12's only if 60-load or 61-dkms is selected)
#
# Exit status: 0 only if every script finished, every result is ok, and the kernel log
# is complete and has no BUG/WARNING/KASAN/lockdep/sleep-in-atomic/kmemleak/stall report.
#
# Time limits: /init times a fixed workload and scales each script's budget
# (tests/vm/budgets, seconds at factor 1.0) by the measured factor; the whole-VM limit is
# the sum of the scaled budgets plus slack. Workload sizes per kernel: workload_env.
set -euo pipefail

kernel=${1:?usage: run.sh KERNEL (tests/vm/kernel.sh names them)}
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tests/vm
. "$vm/splat.sh"
testdir=${VM_TESTDIR:-$vm/t}
out=$top/build/vm-$kernel
read -r vmlinuz kdir kver chroot arch < <("$vm/kernel.sh" "$kernel")
arch=${arch:-$(dpkg --print-architecture)}
foreign=
[ "$arch" = "$(dpkg --print-architecture)" ] || foreign=$(dpkg-architecture -a "$arch" -q DEB_HOST_GNU_TYPE 2> /dev/null)

log() { [ -n "${VM_QUIET:-}" ] || echo "# $*"; }
die() { echo "run.sh: $*" >&2; exit 1; }

build_module() { # SRC_DIR DEST_DIR: out-of-tree build in a private copy
	rm -rf "$2" && mkdir -p "$2"
	cp -a "$1/." "$2/"
	# Kernels of other Debian releases: in that release's chroot, with their own compiler.
	local run=()
	[ -z "$chroot" ] || run=("$vm/chroot.sh" "$chroot" --run "$out")
	local cross=()
	[ -z "$foreign" ] || cross=(CROSS_COMPILE="$foreign-")
	"${run[@]}" make -s -C "$kdir" M="$2" W=1 PROBECACHE_TEST_HOOKS=y "${cross[@]}" modules > "$2.log" 2>&1 ||
		{ cat "$2.log" >&2; die "module build failed in $1 for $kver"; }
	# The module must build warning-free with W=1 on every test kernel.
	! grep -q 'warning:' "$2.log" || { cat "$2.log" >&2; die "W=1 warnings in $1 for $kver"; }
}

# workload_env KERNEL: the sizes the in-VM scripts read from /pc/env (lib.sh sources
# it). The debug kernel runs every check on fewer objects: KASAN, lockdep and kmemleak
# make each arm/unregister 10-50x slower, and 1000 probes prove the same paths.
workload_env() {
	case "$1" in
	debug)	echo "PC_MANY=1000 PC_RACE_ROUNDS=10" ;;
	*)	echo "PC_MANY=10000 PC_RACE_ROUNDS=25" ;;
	esac
	echo "PC_KERNEL=$1"
	# 22-kmod-stress: its length and seed (make stress MINUTES=N SEED=S); without
	# them, the script's own (60 s on debug, 30 s on the others).
	[ -z "${PC_STRESS_SECONDS:-}" ] || echo "PC_STRESS_SECONDS=$PC_STRESS_SECONDS"
	[ -z "${PC_STRESS_SEED:-}" ] || echo "PC_STRESS_SEED=$PC_STRESS_SEED"
	# Scripts missing something they need fail under CI=true instead of skipping.
	echo "PC_CI=${CI:-}"
}

# not_applicable KERNEL SCRIPT: why SCRIPT is left out on KERNEL (empty: it runs).
# Left out, not skipped inside the VM: a SKIP fails CI, and these cannot run there.
not_applicable() {
	case "$1:$2" in
	debug:61-dkms.sh) echo "DKMS builds against a distribution headers package; the debug kernel has none" ;;
	debug:34-resolve-batch.sh|debug:50-dwarf-named.sh|debug:6[345]-*.sh)
		echo "the CLI's own work (batches, DWARF, trace, export, metrics) on kernel paths the debug kernel's other scripts take: the stock kernels run it (CI's 50 minutes)" ;;
	debug:71-bpftrace.sh|5.10:71-bpftrace.sh)
		echo "bpftrace 0.17 types tracepoint args from BTF or kernel headers; this kernel has neither (clang: 'linux/types.h' file not found)" ;;
	arm64-*:7[0-9]-arm64*.sh) ;;
	arm64-*:*) echo "an x86-64 script (its CLI, fixtures and tools are x86-64 binaries)" ;;
	*:7[0-9]-arm64*.sh) echo "an arm64 script" ;;
	# Debian's programs with the provider files: what they check is the files and the
	# CLI, on the host's kernel; the kernel's side of it (string and memory fetches,
	# filters on strings, perf, semaphores) is checked on every kernel by 11, 17, 20, 30
	# and 31.
	6.1:39-resolve-sdt-apps.sh) ;;
	*:39-resolve-sdt-apps.sh) echo "Debian's python and postgres run on the 6.1 suite only (a test of sdt/*.args, not of the kernel)" ;;
	esac
}

# Calibration time (centiseconds) of /init's workload on the stock 6.1 kernel on an idle
# 2-core machine: factor 1.0. The budgets in tests/vm/budgets are for that speed.
# (Measured: 431 on 6.1 with a -j2 kernel build beside it, i.e. about 2x slower.)
REF_CS=200

write_budgets() { # DEST: the budget table /init reads
	{
		echo "#ref $REF_CS"
		sed 's/#.*//' "$vm/budgets" | awk 'NF == 2'
		# A longer stress run (make stress) gets its length plus 120 s.
		[ -z "${PC_STRESS_SECONDS:-}" ] || echo "22-kmod-stress.sh $((PC_STRESS_SECONDS + 120))"
	} > "$1"
}

build_all() {
	rm -rf "$out/src" && mkdir -p "$out/src"
	cp -a "$top/kmod" "$top/common" "$top/include" "$out/src/"
	rm -f "$out/src/kmod/"*.o "$out/src/kmod/"*.ko "$out/src/common/"*.o
	build_module "$top/kmod" "$out/src/kmod"
	make -s -C "$top/user" > /dev/null
	# The DKMS-built modules (tests/fixtures/ops_dkms.mk) the scripts run need: 61-dkms
	# loads this kernel's, 60-load refuses one built for another kernel (the host's 6.1
	# or 6.12). Never another release's: building every kernel's waited on those chroots,
	# so on a fresh machine the first VM suite sat behind the trixie debootstrap. None
	# where neither script is selected from $testdir (the demo's has neither); VM_FIXTURES
	# names the kernels instead.
	local dkms= t
	if [ -n "${VM_FIXTURES+set}" ]; then
		dkms=$VM_FIXTURES
	else
		for t in "$testdir"/${VM_TESTS:-*}.sh; do
			case ${t##*/} in 60-load.sh|61-dkms.sh) dkms="$kernel 6.1 6.12" ;; esac
		done
	fi
	make -s -C "$top/tests/fixtures" OPS_DKMS_FOR="$dkms" > /dev/null
	[ "$arch" != arm64 ] || make -s -C "$top/tests/fixtures/arm64" > /dev/null
}

# unpack_debs ARCH RELEASE PKG...: Debian's ARCH packages into the initramfs root, keeping
# its merged-/usr symlinks (lib -> usr/lib).
unpack_debs() {
	local a=$1 r=$2 deb
	shift 2
	for deb in $("$vm/debs.sh" "$a" "$r" get "$@"); do
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" --keep-directory-symlink ||
			die "cannot unpack $deb"
	done
}

# make_initramfs_arm64: no host binary runs there. Debian's arm64 busybox, libc and
# libstdc++ (the real SDT binary); the cross-built fixtures; the module; and the records
# (/pc/fixtures/arm64.rec) the host's CLI makes by scanning those very files, as a fleet's
# build host does for its arm64 machines. Userland from bookworm for both arm64 kernels.
make_initramfs_arm64() {
	root=$out/root
	rm -rf "$root" && mkdir -p "$root"/{bin,sbin,usr/bin,usr/lib,usr/sbin,pc/t,pc/extra,pc/fixtures,etc}
	ln -s usr/lib "$root/lib"
	unpack_debs arm64 bookworm busybox-static libc6 libgcc-s1 libstdc++6
	rm -rf "$root/usr/share/doc" "$root/usr/share/lintian" "$root/usr/share/locale"
	cp "$vm/init" "$root/init"
	cp "$out/src/kmod/probecache.ko" "$root/pc/"
	cat "$top/tests/lib/tap.sh" "$vm/lib-vm.sh" > "$root/pc/lib.sh"
	cp -a "$top/tests/fixtures/build/arm64/." "$root/pc/fixtures/"
	# An x86-64 ELF with SDT notes: the arm64 module must refuse its records.
	cp "$top/tests/fixtures/build/sdt_args" "$root/pc/fixtures/x86_sdt_args"
	local cli=$top/user/probecache-resolve cache=$out/cache f
	rm -rf "$cache" "$out/scan.log"
	for f in "$root"/pc/fixtures/a64_args "$root"/pc/fixtures/ct_app "$root"/pc/fixtures/x86_sdt_args \
		"$root"/usr/lib/aarch64-linux-gnu/libstdc++.so.6.*; do
		# (warnings about x86_sdt_args' deliberately bad operands: in scan.log)
		"$cli" --cache-dir "$cache" scan "$f" > /dev/null 2>> "$out/scan.log" ||
			{ cat "$out/scan.log" >&2; die "probecache-resolve scan $f failed"; }
	done
	"$cli" --cache-dir "$cache" list --format=record | sed "s| $root/| /|" > "$root/pc/fixtures/arm64.rec"
	# The run-time address of a64_args' tick probe (static, non-PIE): what %pc reads there.
	printf 'A64_TICK_PC=0x%x\n' "$(readelf -nW "$root/pc/fixtures/a64_args" |
		awk '$1 == "Name:" { n = $2 } $1 == "Location:" && n == "tick" { sub(/,$/, "", $2); print $2 }')" \
		> "$root/pc/fixtures/a64_args.env"
	[ -s "$root/pc/fixtures/arm64.rec" ] || die "no records for the arm64 fixtures"
	disk_modules "$root/pc/kmods"
	workload_env "$kernel" | tr ' ' '\n' > "$root/pc/env"
	write_budgets "$root/pc/budgets"
	local t why
	for t in "$testdir"/${VM_TESTS:-*}.sh; do
		[ -f "$t" ] || continue
		why=$(not_applicable "$kernel" "${t##*/}")
		[ -z "$why" ] || continue
		cp "$t" "$root/pc/t/"
	done
	ls "$root"/pc/t/*.sh > /dev/null 2>&1 || die "no arm64 in-VM test matches ${VM_TESTS:-*} in $testdir"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initrd.gz"
}

# The disk tests (19-kmod-fs, 35-container; 71-arm64-fs on arm64) need a virtio disk
# with ext4 and xfs and overlayfs. Where a kernel builds these as modules, their .ko files
# (with what modules.dep says they need, decompressed) go to /pc/kmods/ and /init insmods
# them in the order of /pc/kmods/order; tests/vm/kmods.sh names the kernel's modules
# directory. NAME:SYM:opt is loaded where the kernel has it at all: FUSE, for the
# stalling filesystem of 27-kmod-site-bounds (the debug kernel is built without it).
DISK_MODULES="virtio_pci:VIRTIO_PCI virtio_blk:VIRTIO_BLK ext4:EXT4_FS xfs:XFS_FS overlay:OVERLAY_FS fuse:FUSE_FS:opt"

kernel_config() { # the .config of the kernel under test
	local c
	for c in "${chroot:+$("$vm/chroot.sh" "$chroot" --print-dir)}$kdir/.config" "/boot/config-$kver"; do
		[ -f "$c" ] && { echo "$c"; return 0; }
	done
	die "no .config for $kver"
}

# disk_modules DEST: the .ko files of DISK_MODULES that are not built in, and their
# dependencies, into DEST with DEST/order listing them in load order.
disk_modules() {
	local dest=$1 config mdir= pair name sym opt val line dep ko
	config=$(kernel_config)
	mkdir -p "$dest" && : > "$dest/order"
	for pair in $DISK_MODULES; do
		name=${pair%%:*} sym=${pair#*:} opt=
		case "$sym" in *:opt) sym=${sym%:opt} opt=1 ;; esac
		val=$(sed -n "s/^CONFIG_$sym=//p" "$config")
		case "$val" in
		y) continue ;;
		m) ;;
		*) [ -z "$opt" ] || continue
		   die "$kver: CONFIG_$sym is '${val:-unset}': the disk tests need it" ;;
		esac
		[ -n "$mdir" ] || mdir=$("$vm/kmods.sh" "$kernel") || die "no modules directory for $kver"
		line=$(grep -E "(^|/)$name\.ko(\.xz|\.zst|\.gz)?:" "$mdir/modules.dep" | head -n 1)
		[ -n "$line" ] || die "$kver: $name is not in $mdir/modules.dep"
		# modules.dep lists a module's dependencies so that the last loads first.
		for dep in $(echo "${line#*:}" | tr ' ' '\n' | tac) "${line%%:*}"; do
			ko=$(basename "$dep" | sed 's/\.ko.*$//')
			grep -qx "$ko" "$dest/order" && continue
			case "$dep" in
			*.xz) xz -dc "$mdir/$dep" ;;
			*.zst) zstd -qdc "$mdir/$dep" ;;
			*.gz) gzip -dc "$mdir/$dep" ;;
			*) cat "$mdir/$dep" ;;
			esac > "$dest/$ko.ko" || die "cannot unpack $mdir/$dep"
			echo "$ko" >> "$dest/order"
		done
	done
}

# make_disks: fresh empty filesystems for the VM's two virtio disks (vda ext4, vdb xfs),
# sparse, made on every run so no run sees another's files. ext4 without the features
# 5.10 cannot mount read-write (orphan_file, metadata_csum_seed: e2fsprogs 1.47
# defaults); xfs at its 300 MB minimum, sparse (a few MB on disk).
make_disks() {
	rm -f "$out/ext4.img" "$out/xfs.img"
	truncate -s 128M "$out/ext4.img"
	mkfs.ext4 -q -F -L pc-ext4 -O ^orphan_file,^metadata_csum_seed "$out/ext4.img" ||
		die "mkfs.ext4 failed"
	truncate -s 300M "$out/xfs.img"
	mkfs.xfs -q -f -L pc-xfs "$out/xfs.img" || die "mkfs.xfs failed (apt-get install xfsprogs)"
}

# Tool disks: read-only images of programs too large for the initramfs, each attached as
# the next virtio disk (vdc, vdd, ...) where a selected script's name matches its glob,
# and mounted by /init (/pc/disks.extra); other runs go without them. Built once per
# machine by their scripts (TOOL_DISKS: NAME:GLOB:SCRIPT [ARG...]). Without an image the
# run goes on: /pc/NAME.missing says why, and the script reports it (a failure under
# CI=true).
#   *-bpftrace.sh   bookworm's bpftrace (tests/vm/bpfimage.sh) on /mnt/bpftrace
#   *-metrics.sh    bookworm's promtool (tests/vm/promimage.sh) on /mnt/promtool
#   *-sdt-apps.sh   Debian's python3.11 and postgres (tests/vm/sdtimage.sh apps) on
#                   /mnt/sdt-apps
#   *-sdt-langs.sh  Debian's ruby, php and OpenJDK (tests/vm/sdtimage.sh langs) on
#                   /mnt/sdt-langs
TOOL_DISKS=("bpftrace:*-bpftrace.sh:bpfimage.sh" "promtool:*-metrics.sh:promimage.sh"
	"sdt-apps:*-sdt-apps.sh:sdtimage.sh apps" "sdt-langs:*-sdt-langs.sh:sdtimage.sh langs")
tool_imgs=()
tool_disks() {
	local t name glob img dev cmd
	for t in "${TOOL_DISKS[@]}"; do
		name=${t%%:*} glob=${t#*:} glob=${glob%:*}
		ls "$root"/pc/t/$glob > /dev/null 2>&1 || continue
		read -r -a cmd <<< "${t##*:}"
		if img=$("$vm/${cmd[0]}" "${cmd[@]:1}" 2> "$out/$name-image.log"); then
			dev=vd$(echo cdefgh | cut -c$((${#tool_imgs[@]} + 1)))
			tool_imgs+=("$img")
			echo "$dev:ext4:/mnt/$name:ro" >> "$root/pc/disks.extra"
		else
			log "no $name image: $(tail -n 1 "$out/$name-image.log")"
			{ echo "tests/vm/${t##*:} failed:"; tail -n 5 "$out/$name-image.log"; } > "$root/pc/$name.missing"
		fi
	done
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
	# The SDT providers' names and types where the tools package installs them: the CLI
	# finds them beside itself, in /usr/bin/../share/probecache/sdt (sdt/README.md).
	mkdir -p "$root/usr/share/probecache/sdt"
	cp "$top"/sdt/*.args "$root/usr/share/probecache/sdt/"
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
	disk_modules "$root/pc/kmods"
	workload_env "$kernel" | tr ' ' '\n' > "$root/pc/env"
	write_budgets "$root/pc/budgets"
	local t why
	# Every script is also in /pc/all, for scripts that run another (19-kmod-fs runs
	# 13-kmod-rewrite on other filesystems) whatever VM_TESTS selects.
	mkdir -p "$root/pc/all"
	cp "$testdir"/*.sh "$root/pc/all/"
	for t in "$testdir"/${VM_TESTS:-*}.sh; do
		[ -f "$t" ] || continue
		why=$(not_applicable "$kernel" "${t##*/}")
		if [ -n "$why" ]; then
			log "${t##*/} not run on $kernel: $why"
			continue
		fi
		cp "$t" "$root/pc/t/"
	done
	ls "$root"/pc/t/*.sh > /dev/null 2>&1 || die "no in-VM test matches ${VM_TESTS:-*} in $testdir"
	tool_disks
	local d
	for d in ${VM_EXTRA_MODULES:-}; do
		build_module "$d" "$out/extra/$(basename "$d")"
		cp "$out/extra/$(basename "$d")"/*.ko "$root/pc/extra/"
	done
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initrd.gz"
}

# nmi_vm PID: where a VM past its whole limit is stuck. QEMU's monitor samples every
# CPU's instruction pointer and kernel stack (tests/vm/monitor.pl), then sends an NMI:
# /init made an unknown NMI panic (panic=-1, -no-reboot: QEMU then exits), which prints
# the interrupted context. The samples are named with the kallsyms /init saved on the
# ext4 disk at boot. A VM stuck with interrupts off on every CPU prints nothing else.
# Waits up to 20 s for QEMU.
nmi_vm() {
	local n=0
	[ -S "$out/monitor.sock" ] || return 0
	"$vm/monitor.pl" sample "$out/monitor.sock" 3 > "$out/cpus.raw" 2> /dev/null || true
	"$vm/monitor.pl" nmi "$out/monitor.sock" 2> /dev/null || true
	while kill -0 "$1" 2> /dev/null && [ $n -lt 20 ]; do
		sleep 1
		n=$((n + 1))
	done
	debugfs -R 'cat /.pc-kallsyms' "$out/ext4.img" > "$out/kallsyms" 2> /dev/null || true
	"$vm/monitor.pl" symbolize "$out/kallsyms" < "$out/cpus.raw" |
		sed 's/^/# /' > "$out/cpus.log" || true
}

# watch_vm PID START: wait for QEMU, killing it past the whole-VM limit. Until /init has
# calibrated, the limit is VM_BOOT_TIMEOUT; then it is the time calibration took plus
# the scaled sum of every budget /init reported (total=) plus slack for reboot.
watch_vm() {
	local pid=$1 start=$2 limit=${VM_TIMEOUT:-${VM_BOOT_TIMEOUT:-300}} total el cal=
	while kill -0 "$pid" 2> /dev/null; do
		el=$(($(date +%s) - start))
		if [ -z "${VM_TIMEOUT:-}" ] && [ -z "$cal" ]; then
			# tap.log appears only once QEMU has opened its serial ports.
			total=$(sed -n 's/^### CALIBRATE .*total=\([0-9]*\).*/\1/p' "$out/tap.log" 2> /dev/null || true)
			[ -z "$total" ] || { cal=$el; limit=$((el + total + 60)); log "whole-VM limit ${limit}s"; }
		fi
		# A boot that reported before /init ran is booted again (below): stop it now.
		if [ -n "${WATCH_BOOT:-}" ] && grep -q 'probecache-vm: VM-START' "$out/console.log" 2> /dev/null &&
			pc_boot_report "$out/console.log" > /dev/null; then
			kill "$pid" 2> /dev/null || true
			wait "$pid" || true
			return 0
		fi
		if [ "$el" -ge "$limit" ]; then
			nmi_vm "$pid"
			kill "$pid" 2> /dev/null || true
			wait "$pid" || true
			echo "not ok - VM timed out after ${el}s (limit ${limit}s)" >> "$out/tap.log"
			cat "$out/cpus.log" >> "$out/tap.log" 2> /dev/null || true
			return 0
		fi
		sleep 1
	done
	wait "$pid" || true
}

boot() {
	rm -f "$out/console.log" "$out/tap.log"
	log "booting $kver ($(du -h "$out/initrd.gz" | cut -f1) initramfs)"
	local fixed= f disks=()
	# The two disks of make_disks, vda and vdb (virtio-blk-pci on both machines), and the
	# tool images read-only as vdc, vdd, ... where a script needs them (tool_disks).
	for f in ext4 xfs; do
		disks+=(-drive "file=$out/$f.img,format=raw,if=virtio,cache=unsafe")
	done
	for f in ${tool_imgs[@]+"${tool_imgs[@]}"}; do
		disks+=(-drive "file=$f,format=raw,if=virtio,readonly=on")
	done
	[ -z "${VM_FACTOR:-}" ] || fixed=" pc_factor10=$(awk -v f="$VM_FACTOR" 'BEGIN { printf "%d", f * 10 }')"
	# Freed trace_event_files poisoned where KASAN does not watch them: a hit that
	# read one after its event was gone would fault (t/25-kmod-del-held's recipe, in
	# which the module's own events did; the kernel's uprobe events must not). Not on the
	# debug kernel: KASAN catches it there, and with both, an early interrupt at
	# boot drew a KASAN wild-memory-access report in do_raw_spin_lock().
	[ "$kernel" = debug ] || fixed="$fixed slub_debug=FZP,trace_event_file"
	if [ "$arch" = arm64 ]; then
		# virt's second PL011 (QEMU >= 10) is the TAP port, ttyAMA1.
		qemu-system-aarch64 -M virt -accel tcg -cpu max -m 1G -smp 2 \
			-no-reboot -display none -monitor none \
			-serial "file:$out/console.log" -serial "file:$out/tap.log" "${disks[@]}" \
			-kernel "$vmlinuz" -initrd "$out/initrd.gz" \
			-append "console=ttyAMA0 loglevel=5 panic=-1 oops=panic panic_on_warn=0 pc_tap=ttyAMA1$fixed" &
	else
		rm -f "$out/monitor.sock"
		qemu-system-x86_64 -accel tcg -cpu max -m 1G -smp 2 \
			-no-reboot -display none -monitor "unix:$out/monitor.sock,server=on,wait=off" \
			-serial "file:$out/console.log" -serial "file:$out/tap.log" "${disks[@]}" \
			-kernel "$vmlinuz" -initrd "$out/initrd.gz" \
			-append "console=ttyS0 loglevel=5 panic=-1 oops=panic panic_on_warn=0$fixed" &
	fi
	qpid=$!
	# If run.sh itself is stopped, its VM must not run on holding the CPU.
	trap 'kill "$qpid" 2> /dev/null || true' EXIT
	watch_vm "$qpid" "$(date +%s)"
	trap - EXIT
}

mkdir -p "$out"
# One run per kernel at a time: concurrent runs would rebuild each other's initramfs.
exec 9> "$out.lock"
flock 9
log "kernel $kernel: $kver"
build_all
if [ "$arch" = arm64 ]; then make_initramfs_arm64; else make_initramfs; fi
make_disks
# One VM on the machine at a time, whichever checkout it comes from: two TCG guests
# on two cores would each run at half speed and time out (build steps may overlap).
exec 8> /tmp/probecache-vm.lock
flock 8
start=$(date +%s)
WATCH_BOOT=1 boot
# A kernel report before /init ran anything of ours is the boot's own (the debug kernel
# has shown one, 1 boot in many: KASAN in do_raw_spin_lock() under an interrupt during
# identify_cpu(), 1.6 s in): boot once more, keeping that console log and saying so. A
# report in the second boot fails the run as any report does.
if first=$(pc_boot_report "$out/console.log"); then
	cp "$out/console.log" "$out/console.boot1.log"
	log "a kernel report before /init ran, kept in $out/console.boot1.log: $first"
	log "booting again once"
	boot
fi
exec 8>&-
log "VM finished in $(( $(date +%s) - start ))s"
"$vm/report.sh" "$kernel" "$out/tap.log" "$out/console.log"
