#!/bin/bash
# sysboot.sh: the Debian packages in a VM that boots a real Debian userland with systemd
# as PID 1 (issue 12). The bookworm image (tests/vm/sysimage.sh, cached) boots Debian's
# 6.1 cloud kernel from the virtio disk (-kernel, root=/dev/vda, serial console, no
# network); a second read-only disk carries this run's payload: the .debs `make deb`
# builds now, the second kernel's headers, the ops_work fixture and the in-VM script
# tests/vm/sysboot/guest.sh, which the image's hook unit runs at the end of each boot.
#   boot 1: apt-get install the .debs; scan ops_work, name sdt_ops:tick in preload.conf,
#           enable a Type=simple traced service ordered after probecache-preload.service;
#           reboot.
#   boot 2: the preload armed the probe before the service started and its first 5 calls
#           are counted; a copy started later is followed; probecache-metrics.service is
#           skipped without node_exporter's textfile directory, and once it exists the
#           timer (enabled by hand, as an administrator does) writes the probe's and the
#           copy's hits there; stop disarms exactly that probe; status clean; installing the
#           6.12 headers makes dkms's header hook (autoinstall) install the module for 6.12;
#           remove unloads the module, stops the timer, removes its file and leaves only
#           the conffile; purge removes the rest.
# Where DKMS compiles: on the host by default. Under TCG one DKMS build of the module takes
# 2.5-5 minutes, two of them would blow the budget; so sysboot/dkms-tarball.sh runs the same
# `dkms add` + `dkms build` on the host against the same headers packages, from the source
# the .deb ships, and `dkms mktarball`s the result. In the VM the package's own postinst
# loads it (`dkms ldtarball`, its binary-tarball path) and runs `dkms install`; before the
# 6.12 headers go in, `dkms ldtarball` loads the 6.12 build, so the header hook's autoinstall
# installs rather than compiles. SYSBOOT_DKMS=vm leaves the tarballs out: DKMS then compiles
# both in the VM (raise VM_TIMEOUT; about 10 minutes more).
# Prints TAP, "sysboot: N passed, N failed in Ts"; logs stay in build/vm-sysboot/.
# Environment: VM_TIMEOUT=s per boot (default 600), SYSBOOT_DKMS=host|vm (default host).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tests/vm
out=$top/build/vm-sysboot
start=$(date +%s)
read -r vmlinuz _ kver < <("$vm/kernel.sh" 6.1)
read -r _ _ kver2 < <("$vm/kernel.sh" 6.12)

die() { echo "not ok - sysboot: $*"; echo "sysboot: 0 passed, 1 failed"; exit 1; }

mkdir -p "$out"
img=$("$vm/sysimage.sh" --print-dir)
"$vm/sysimage.sh" > "$out.image.log" 2>&1 || { cat "$out.image.log" >&2; die "image build failed"; }
[ "$(cat "$img/kver")" = "$kver" ] || die "image $img has kernel $(cat "$img/kver"), want $kver"
echo "# image $img ($kver), DKMS builds: ${SYSBOOT_DKMS:-host}"

exec 9> "$out.lock"
flock 9

# Payload: what this checkout builds now.
make -s -C "$top" deb > "$out/deb.log" 2>&1 || { tail -n 30 "$out/deb.log" >&2; die "make deb failed"; }
make -s -C "$top/tests/fixtures" build/ops_work > /dev/null || die "fixture ops_work failed to build"
pay=$out/payload
# The name the package's postinst looks for: probecache-VERSION.dkms.tar.gz
tarname() { echo "probecache-$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf").dkms.tar.gz"; }
rm -rf "$pay" && mkdir -p "$pay/debs" "$pay/debs-6.12"
cp "$top"/build/deb/probecache-dkms_*_all.deb "$top"/build/deb/probecache-tools_*_"$(dpkg --print-architecture)".deb "$pay/debs/"
cp "$img"/debs-6.12/*.deb "$pay/debs-6.12/"
cp "$vm/sysboot/guest.sh" "$vm/sysboot/probecache-test-traced.service" "$top/tests/lib/tap.sh" \
	"$top/tests/fixtures/build/ops_work" "$pay/"
echo "$kver2" > "$pay/kver2"
if [ "${SYSBOOT_DKMS:-host}" = host ]; then
	ddeb=$(ls "$pay"/debs/probecache-dkms_*.deb)
	"$vm/sysboot/dkms-tarball.sh" "$ddeb" "$kver" "$pay/dkms/6.1/$(tarname)" > "$out/dkms.log" 2>&1 &&
		"$vm/sysboot/dkms-tarball.sh" "$ddeb" "$kver2" "$pay/dkms/6.12/$(tarname)" \
		--binaries-only >> "$out/dkms.log" 2>&1 ||
		{ tail -n 30 "$out/dkms.log" >&2; die "host dkms build failed"; }
fi
rm -f "$out/payload.img"
mke2fs -q -t ext4 -d "$pay" "$out/payload.img" 256M > /dev/null
# A private copy of the cached image (sparse; the cache stays pristine).
cp --sparse=always "$img/rootfs.img" "$out/disk.img"

# boot N: one QEMU run of the disk until the guest reboots or powers off (-no-reboot).
boot() {
	local rc=0
	rm -f "$out/console-$1.log" "$out/tap-$1.log"
	timeout "${VM_TIMEOUT:-600}" qemu-system-x86_64 -accel tcg -cpu max -m 1G -smp 2 \
		-no-reboot -display none -monitor none -nic none \
		-serial "file:$out/console-$1.log" -serial "file:$out/tap-$1.log" \
		-drive "file=$out/disk.img,format=raw,if=virtio" \
		-drive "file=$out/payload.img,format=raw,if=virtio,readonly=on" \
		-kernel "$vmlinuz" -initrd "$img/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 loglevel=5 panic=-1 systemd.show_status=0" \
		|| rc=$?
	[ "$rc" = 124 ] && echo "not ok - boot $1 timed out after ${VM_TIMEOUT:-600}s" >> "$out/tap-$1.log"
	return 0
}

# One VM on the machine at a time, whichever checkout it comes from (tests/vm/run.sh
# takes the same lock); both boots under one hold so no other VM runs in between.
waitstart=$(date +%s)
exec 8> /tmp/probecache-vm.lock
flock 8
vmstart=$(date +%s)
boot 1
grep -q '^### STAGE-END 1' "$out/tap-1.log" && boot 2
exec 8>&-
vmtime=$(( $(date +%s) - vmstart ))

# Kernel reports that fail the run even when every check said ok.
splat='BUG:|WARNING:|KASAN:|Kernel panic|Oops|general protection fault|UBSAN:|hung_task'
pass=0 fail=0 n=0
report() { # BOOT: its TAP renumbered, its end marker required
	local f=$out/tap-$1.log line
	touch "$f"
	while IFS= read -r line; do
		line=${line%$'\r'}
		case "$line" in
		"ok "*|"not ok "*)
			n=$((n + 1))
			if [ "${line#not ok}" != "$line" ]; then
				fail=$((fail + 1)); echo "not ok $n - boot $1: $(echo "${line#not ok }" | sed 's/^[0-9]* *- *//')"
			else
				pass=$((pass + 1)); echo "ok $n - boot $1: $(echo "${line#ok }" | sed 's/^[0-9]* *- *//')"
			fi ;;
		1..*|"### STAGE"*) ;;
		"#"*)	echo "$line" ;;
		*)	echo "# $line" ;;
		esac
	done < "$f"
	n=$((n + 1))
	if grep -q "^### STAGE-END $1 rc=0" "$f"; then
		pass=$((pass + 1)); echo "ok $n - boot $1 finished its stage"
	else
		fail=$((fail + 1)); echo "not ok $n - boot $1 finished its stage (log: $f, $out/console-$1.log)"
	fi
	n=$((n + 1))
	if grep -Eq "$splat" "$out/console-$1.log" 2> /dev/null; then
		fail=$((fail + 1)); echo "not ok $n - boot $1: kernel log is clean"
		grep -Eh -B2 -A20 "$splat" "$out/console-$1.log" | head -n 40 | sed 's/^/#   /'
	else
		pass=$((pass + 1)); echo "ok $n - boot $1: kernel log is clean"
	fi
}
report 1
report 2
echo "# VM time ${vmtime}s (2 boots, TCG), waited $((vmstart - waitstart))s for the VM lock," \
	"host preparation $((waitstart - start))s"
echo "1..$n"	# the plan: run-all fails a suite whose count disagrees or that has none
echo "sysboot: $pass passed, $fail failed in $(( $(date +%s) - start ))s"
[ "$fail" -eq 0 ]
