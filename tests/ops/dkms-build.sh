#!/bin/sh
# dkms-build.sh KVER OUTDIR: dkms add + build probecache against /usr/src/linux-headers-KVER
# in a private DKMS tree (the system's /var/lib/dkms is never touched); copies the
# resulting probecache.ko to OUTDIR/probecache.ko and the build log to OUTDIR/make.log.
set -eu
kver=${1:?usage: dkms-build.sh KVER OUTDIR}
out=${2:?usage: dkms-build.sh KVER OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
ver=$(sed -n 's/^#define PROBECACHE_VERSION[^"]*"\(.*\)"/\1/p' "$top/include/uapi/linux/probecache.h")
kdir=/usr/src/linux-headers-$kver
[ -d "$kdir" ] || { echo "dkms-build: $kdir missing" >&2; exit 1; }
command -v dkms > /dev/null || { echo "dkms-build: dkms not installed (scripts/setup.sh)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src/probecache-$ver
mkdir -p "$src" "$tmp/tree" "$tmp/install" "$out"
cp -a "$top/kmod" "$top/common" "$top/include" "$top/dkms.conf" "$src/"
find "$src" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
	-o -name '*.symvers' -o -name '*.order' \) -delete
d="dkms --dkmstree $tmp/tree --sourcetree $tmp/src --installtree $tmp/install"
$d add -m probecache -v "$ver" > "$tmp/add.log" 2>&1 || { cat "$tmp/add.log" >&2; exit 1; }
rc=0
# dkms 2.x (bullseye) "prepares" and cleans a tree named by --kernelsourcedir with
# make mrproper, which wrecks packaged headers, unless told not to.
case "$(dkms --version 2>/dev/null)" in
*dkms[-:]2.*) d="$d --no-prepare-kernel --no-clean-kernel" ;;
esac
$d build -m probecache -v "$ver" -k "$kver" --kernelsourcedir "$kdir" > "$tmp/build.log" 2>&1 || rc=$?
cp "$tmp/tree/probecache/$ver/build/make.log" "$out/make.log" 2>/dev/null || true
if [ "$rc" != 0 ]; then
	cat "$tmp/build.log" "$out/make.log" >&2 2>/dev/null || true
	exit 1
fi
ko=$(find "$tmp/tree/probecache/$ver/$kver" -name 'probecache.ko*' | head -n 1)
[ -n "$ko" ] || { echo "dkms-build: dkms reported success but built no probecache.ko" >&2; exit 1; }
case "$ko" in
*.xz) xz -dc "$ko" > "$out/probecache.ko" ;;
*.zst) zstd -qdc "$ko" > "$out/probecache.ko" ;;
*) cp "$ko" "$out/probecache.ko" ;;
esac
