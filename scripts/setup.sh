#!/bin/sh
# Install every Debian package probecache builds, tests and demos with. Idempotent; as root.
# The 6.12 kernel and QEMU 10 come from bookworm-backports, added on the mirror that the
# system's own apt sources already use (no host name is written here).
set -eu

[ "$(id -u)" = 0 ] || { echo "setup: must run as root" >&2; exit 1; }

. /etc/os-release
codename=${VERSION_CODENAME:-bookworm}
export DEBIAN_FRONTEND=noninteractive

PKGS="build-essential gcc g++ make pkg-config clang llvm libclang-rt-14-dev bc flex bison
	libelf-dev libdw-dev libkmod-dev libcapstone-dev libdebuginfod-dev elfutils debuginfod systemtap-sdt-dev
	busybox-static cpio kmod dkms xz-utils zstd file python3 perl e2fsprogs xfsprogs
	linux-image-cloud-amd64 linux-headers-cloud-amd64 linux-source-6.1 linux-source-6.12 libssl-dev
	linux-perf gdb libc6-dbg postgresql-15 openjdk-17-jre-headless python3.11 gcc-aarch64-linux-gnu
	g++-aarch64-linux-gnu libc6-dev-arm64-cross
	libpython3.11 libruby3.1 php8.2-cli libvirt0 postgresql-server-dev-15 php8.2-dev libpython3.11-dev
	groff-base man-db systemd debhelper dh-dkms lintian debootstrap"
# linux-source-6.12 (the debug kernel's tree) is in PKGS, not here: bookworm-security has
# it, and installing it with -t backports drags linux-perf (the SDT parity oracle) and
# linux-libc-dev up to 6.12 with it. Where only backports has it, PKGS still finds it.
# qemu-system-arm: the arm64 VM runs (QEMU >= 10: virt's second PL011 carries their TAP).
BPO_PKGS="qemu-system-x86 qemu-system-arm"

# mirror_uri (shared with tests/vm/sysimage.sh and tests/vm/chroot.sh, which debootstrap
# from the same mirror)
. "$(dirname "$0")/mirror.sh"

add_backports() {
	grep -rqs "$codename-backports" /etc/apt/sources.list /etc/apt/sources.list.d/ && return 1
	uri=$(mirror_uri | head -n 1)
	[ -n "$uri" ] || { echo "setup: cannot derive a Debian mirror from apt sources" >&2; exit 1; }
	printf 'Types: deb\nURIs: %s\nSuites: %s-backports\nComponents: main\nSigned-By: %s\n' \
		"$uri" "$codename" /usr/share/keyrings/debian-archive-keyring.gpg \
		> /etc/apt/sources.list.d/probecache-backports.sources
	echo "setup: added $codename-backports on $uri"
}

all_installed() {
	# shellcheck disable=SC2086
	dpkg-query -W -f='${Status}\n' $PKGS $BPO_PKGS 2>/dev/null | grep -vc 'install ok installed' |
		grep -qx 0 || return 1
	ls /boot/vmlinuz-6.12.*-cloud-amd64 > /dev/null 2>&1 || return 1
	qemu-system-x86_64 --version | grep -q 'version \(9\|[1-9][0-9]\)\.'
}

added=0
add_backports && added=1
if [ "$added" = 0 ] && all_installed; then
	echo "setup: everything already installed"
	exit 0
fi

apt-get update -q
# Newest 6.12 cloud kernel in backports, with headers of the same flavour and version.
bpo_image=$(apt-cache search --names-only '^linux-image-6\.12\..*-cloud-amd64$' |
	awk '{print $1}' | grep -v -- '-dbg$' | sort -V | tail -n 1)
[ -n "$bpo_image" ] || { echo "setup: no 6.12 cloud kernel in $codename-backports" >&2; exit 1; }
bpo_headers=$(echo "$bpo_image" | sed 's/linux-image/linux-headers/')

# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $PKGS
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends -t "$codename-backports" \
	$BPO_PKGS "$bpo_image" "$bpo_headers"
echo "setup: done"
