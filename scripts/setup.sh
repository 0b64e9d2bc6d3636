#!/bin/sh
# Install every Debian package probecache builds and tests with. Idempotent; run as root.
# bookworm-backports (6.12 kernel, QEMU 10) is added on the mirror the system already uses.
set -eu

[ "$(id -u)" = 0 ] || { echo "setup: must run as root" >&2; exit 1; }

. /etc/os-release
codename=${VERSION_CODENAME:-bookworm}
bpo_list=/etc/apt/sources.list.d/probecache-backports.sources

mirror_uri() {
	# First deb URI serving the main archive (not -security), from deb822 or one-line sources.
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v c="$codename" '
			/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) s = 1 }
			/^$/ { if (s && u) { print u; exit } u = ""; s = 0 }
			END { if (s && u) print u }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v c="$codename" '$1 == "deb" && $0 !~ /security/ {
			for (i = 2; i <= NF; i++) if ($i == c) { for (j = 2; j < i; j++) if ($j !~ /^\[/) u = $j; print u; exit } }' "$f"
	done
}

if ! grep -rqs "$codename-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
	uri=$(mirror_uri | head -n 1)
	[ -n "$uri" ] || { echo "setup: cannot derive a Debian mirror from apt sources" >&2; exit 1; }
	printf 'Types: deb\nURIs: %s\nSuites: %s-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$uri" "$codename" > "$bpo_list"
	stamp=
fi

export DEBIAN_FRONTEND=noninteractive
if [ ! -e /var/lib/apt/lists/partial ] || [ -z "$(find /var/lib/apt/lists -name "*${codename}-backports*Packages*" 2>/dev/null | head -n 1)" ] || [ "${stamp-x}" = "" ]; then
	apt-get update -q
fi

# Newest 6.12 cloud kernel in backports, and its exact headers.
bpo_image=$(apt-cache search --names-only '^linux-image-6\.12\..*-cloud-amd64$' | awk '{print $1}' | grep -v -- -dbg | sort -V | tail -n 1)
bpo_headers=$(echo "$bpo_image" | sed 's/linux-image/linux-headers/')

pkgs="build-essential gcc g++ make pkg-config clang llvm libclang-rt-14-dev bc flex bison
	libelf-dev libdw-dev libkmod-dev libdebuginfod-dev elfutils debuginfod systemtap-sdt-dev
	busybox-static cpio kmod dkms xz-utils zstd file
	linux-image-cloud-amd64 linux-headers-cloud-amd64 linux-source-6.1 libssl-dev
	linux-perf libc6-dbg postgresql-15 openjdk-17-jre-headless python3.11 gcc-aarch64-linux-gnu
	groff-base man-db systemd"

# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $pkgs
apt-get install -y -q --no-install-recommends -t "$codename-backports" \
	qemu-system-x86 $bpo_image $bpo_headers
echo "setup: done"
