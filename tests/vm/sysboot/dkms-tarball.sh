#!/bin/sh
# dkms-tarball.sh DKMS_DEB KVER OUT [--binaries-only]: build the module the way the package's
# postinst does in the VM (dkms add + dkms build against /usr/src/linux-headers-KVER, the
# same headers package the VM has), from the source the .deb ships, in a private DKMS tree
# (the host's /var/lib/dkms is never touched), and save dkms's result with
# `dkms mktarball` as OUT. In the VM `dkms ldtarball` loads it: the postinst does so by
# itself when /usr/share/probecache-dkms/probecache-VERSION.dkms.tar.gz exists, then
# only `dkms install` runs there. Under TCG a DKMS build takes minutes; here seconds.
set -eu
deb=${1:?usage: dkms-tarball.sh DKMS_DEB KVER OUT [--binaries-only]}
kver=${2:?}
out=${3:?}
only=${4:-}
kdir=/usr/src/linux-headers-$kver
[ -d "$kdir" ] || { echo "dkms-tarball: $kdir missing" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/pkg"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$tmp"/pkg/usr/src/probecache-*/dkms.conf)
mkdir -p "$tmp/tree" "$tmp/install"
d="dkms --dkmstree $tmp/tree --sourcetree $tmp/pkg/usr/src --installtree $tmp/install"
$d add -m probecache -v "$ver" > "$tmp/log" 2>&1 &&
	$d build -m probecache -v "$ver" -k "$kver" --kernelsourcedir "$kdir" >> "$tmp/log" 2>&1 &&
	$d mktarball -m probecache -v "$ver" -k "$kver" $only --archive "probecache-$ver.dkms.tar.gz" \
		>> "$tmp/log" 2>&1 ||
	{ cat "$tmp/log" "$tmp/tree/probecache/$ver/build/make.log" >&2 2> /dev/null; exit 1; }
mkdir -p "$(dirname "$out")"
cp "$tmp/tree/probecache/$ver/tarball/probecache-$ver.dkms.tar.gz" "$out"
