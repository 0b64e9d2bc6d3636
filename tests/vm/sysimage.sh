#!/bin/bash
# sysimage.sh [--print-dir]: the disk image tests/vm/sysboot.sh boots with systemd as PID 1.
# A bookworm rootfs (debootstrap --variant=minbase) with systemd, dkms, the compiler DKMS
# needs, the 6.1 cloud kernel package with its headers (the test kernel, so /lib/modules
# is the real one and DKMS builds for it) and the 6.12 cloud kernel without headers (the
# test installs those to see DKMS autoinstall rebuild). Built once per machine into
# CACHE/sysimage-KEY/{rootfs.img,initrd.img,kver}, CACHE being $PROBECACHE_TEST_CACHE
# (default /var/cache/probecache-test); KEY hashes this script, scripts/mirror.sh, both
# kernel versions and the CLI's library packages, so changing any rebuilds it.
# Needs root, debootstrap, network to the mirror apt's sources name, and the kernel
# packages installed on the host (scripts/setup.sh); the .debs of the headers the test
# installs in the VM are left in the same directory, debs-6.12/.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tests/vm
cache=${PROBECACHE_TEST_CACHE:-/var/cache/probecache-test}
codename=bookworm

# cli_lib_pkgs: the Debian packages owning the libraries probecache-resolve links,
# comma-separated (the VM has no network to fetch them, and a new dependency of the
# CLI must change the key and so rebuild the image).
cli_lib_pkgs() {
	local lib
	make -s -C "$top/user" > /dev/null
	for lib in $(ldd "$top/user/probecache-resolve" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
		# merged /usr: dpkg knows a library by one of its names only
		dpkg -S "$lib" 2> /dev/null || dpkg -S "$(realpath "$lib")" 2> /dev/null ||
			dpkg -S "/usr$lib" 2> /dev/null || echo "$lib: unowned" >&2
	done | cut -d: -f1 | sort -u | paste -sd, -
}

read -r _ _ kver < <("$vm/kernel.sh" 6.1)
read -r _ _ kver2 < <("$vm/kernel.sh" 6.12)
libs=$(cli_lib_pkgs)
[ -n "$libs" ] || { echo "sysimage: cannot tell which packages the CLI's libraries are in" >&2; exit 1; }
key=$(cat "$0" "$top/scripts/mirror.sh" <(echo "$kver $kver2 $libs") | sha256sum | cut -c1-12)
dir=$cache/sysimage-$key
if [ "${1:-}" = --print-dir ]; then
	echo "$dir"
	exit 0
fi
[ -f "$dir/rootfs.img" ] && exit 0
[ "$(id -u)" = 0 ] || { echo "sysimage: must run as root to build $dir" >&2; exit 1; }

# Only one build at a time; a second caller waits and then finds the image.
mkdir -p "$cache"
exec 7> "$cache/sysimage.lock"
flock 7
[ -f "$dir/rootfs.img" ] && exit 0

. "$top/scripts/mirror.sh"
mirror=$(mirror_uri | head -n 1)
[ -n "$mirror" ] || { echo "sysimage: cannot derive a Debian mirror from apt sources" >&2; exit 1; }

work=$dir.tmp
root=$work/root
rm -rf "$work" && mkdir -p "$work/debs" "$work/debs-6.12"
cleanup() {
	for m in proc sys dev/pts dev; do
		mountpoint -q "$root/$m" 2> /dev/null && umount -l "$root/$m"
	done
	return 0
}
trap cleanup EXIT

# linux_deps PKG...: PKG and, recursively, the linux-* packages it depends on, as the
# host has them installed (the test kernels come from bookworm-security and -backports,
# which the chroot's sources do not name): NAME=VERSION lines.
linux_deps() {
	local p v seen=" "
	local -a todo=("$@")
	while [ ${#todo[@]} -gt 0 ]; do
		p=${todo[0]}
		todo=("${todo[@]:1}")
		case "$seen" in *" $p "*) continue ;; esac
		seen="$seen$p "
		# Alternatives the host did not install (linux-initramfs-tool) are skipped.
		v=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$p" 2> /dev/null) || continue
		[ "${v%% *}" = installed ] || continue
		echo "$p=${v#* }"
		todo+=($(dpkg-query -W -f='${Depends}' "$p" | tr ',|' '\n\n' |
			sed -n 's/^ *\(linux-[^ ]*\).*/\1/p' | sort -u))
	done
}

fetch_debs() { # DIR PKG...
	local d=$1; shift
	# The sandbox user _apt cannot write into a root-owned cache directory.
	(cd "$d" && apt-get download -q -o APT::Sandbox::User=root $(linux_deps "$@") > /dev/null)
}

fetch_debs "$work/debs" "linux-image-$kver" "linux-headers-$kver"
fetch_debs "$work/debs" "linux-image-$kver2"
fetch_debs "$work/debs-6.12" "linux-headers-$kver2"
# debs-6.12 keeps only what the 6.12 image does not already bring.
for f in "$work"/debs-6.12/*.deb; do
	[ ! -e "$work/debs/${f##*/}" ] || rm "$f"
done

# systemd + udev: a real boot; dkms with the compiler, make and libc headers it builds
# with; initramfs-tools for the kernel package's initrd (virtio_blk is a module); the
# libraries probecache-tools depends on (the VM has no network to fetch them).
debootstrap --variant=minbase \
	--include=systemd,systemd-sysv,udev,dbus,kmod,dkms,make,gcc,libc6-dev,initramfs-tools,zstd,xz-utils,"$libs" \
	"$codename" "$root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
	{ tail -n 30 "$work/debootstrap.log" >&2; exit 1; }

# Only the modules the root disk needs go into the initrd (MODULES=dep cannot see the
# VM's hardware from a chroot).
mkdir -p "$root/etc/initramfs-tools/conf.d"
echo MODULES=list > "$root/etc/initramfs-tools/conf.d/probecache-test.conf"
printf 'virtio_pci\nvirtio_blk\n' >> "$root/etc/initramfs-tools/modules"

mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp "$work"/debs/*.deb "$root/tmp/"
# What the 6.12 headers need besides each other (pahole, ...): in the image, so that the
# offline VM can install them. First alternative of each, without versions.
deps2=$(for f in "$work"/debs-6.12/*.deb; do dpkg-deb -f "$f" Depends; done | tr ',' '\n' |
	sed 's/|.*//; s/(.*)//; s/ //g' | grep -v '^linux-' | grep . | sort -u | tr '\n' ' ')
chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive sh -c \
	"apt-get install -y -q --no-install-recommends /tmp/*.deb $deps2 && rm -f /tmp/*.deb && apt-get clean" \
	> "$work/apt.log" 2>&1 || { tail -n 40 "$work/apt.log" >&2; exit 1; }
cleanup

# A quiet, deterministic boot: no timers waking up apt or e2scrub mid-test, no login
# prompts, the root disk from fstab.
echo probecache-vm > "$root/etc/hostname"
echo '/dev/vda / ext4 defaults 0 1' > "$root/etc/fstab"
for u in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
	fstrim.timer getty@tty1.service serial-getty@ttyS0.service systemd-timesyncd.service; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done

# The test hook: at the end of every boot, run /pc/guest.sh from the second disk (the
# per-run payload sysboot.sh builds), its output on the second serial port.
cat > "$root/usr/local/sbin/probecache-test-hook" <<'EOF'
#!/bin/sh
mkdir -p /pc
mount -o ro /dev/vdb /pc || { echo "not ok - payload disk /dev/vdb mounts" > /dev/ttyS1; exit 1; }
exec /bin/sh /pc/guest.sh > /dev/ttyS1 2>&1
EOF
chmod 755 "$root/usr/local/sbin/probecache-test-hook"
cat > "$root/etc/systemd/system/probecache-test-hook.service" <<'EOF'
[Unit]
Description=probecache VM test stage (payload on /dev/vdb)
Requires=dev-vdb.device
After=dev-vdb.device multi-user.target

[Service]
Type=oneshot
# apt-get install with a DKMS build under TCG takes minutes; sysboot.sh bounds each boot.
TimeoutStartSec=infinity
ExecStart=/usr/local/sbin/probecache-test-hook

[Install]
WantedBy=multi-user.target
EOF
ln -sf ../probecache-test-hook.service \
	"$root/etc/systemd/system/multi-user.target.wants/probecache-test-hook.service"

[ -f "$root/boot/initrd.img-$kver" ] || { echo "sysimage: no initrd for $kver built" >&2; exit 1; }
cp "$root/boot/initrd.img-$kver" "$work/initrd.img"
echo "$kver" > "$work/kver"
# ext4 populated from the directory as root (owners, modes, device nodes kept): no loop
# device or mount needed. Sparse: about 1 GB used of 3.
mke2fs -q -t ext4 -L pcroot -d "$root" "$work/rootfs.img" 3G
rm -rf "$root"
mv "$work" "$dir"
# Images of older keys are dead weight (about 1 GB each).
for d in "$cache"/sysimage-*; do
	[ "$d" = "$dir" ] || [ "$d" = "$cache/sysimage.lock" ] || rm -rf "$d"
done
echo "sysimage: built $dir"
