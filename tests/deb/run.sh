#!/bin/bash
# Host suite for the Debian packaging: `make deb` builds probecache-dkms and
# probecache-tools into build/deb/; their file lists, conffiles, maintainer scripts and
# versions are what debian/ promises; a version disagreeing with PROBECACHE_VERSION is
# refused; lintian (its whole output is in this log) reports no error and no warning
# that is not overridden with a reason. tests/vm/sysboot.sh installs them in a VM.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
out=$top/build/deb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ver=$(sed -n 's/^#define PROBECACHE_VERSION[^"]*"\(.*\)"/\1/p' "$top/include/uapi/linux/probecache.h")
debver=$(cd "$top" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)

## ---- versions agree before anything is built
check_eq "debian/changelog's upstream version is PROBECACHE_VERSION" "$ver" "${debver%-*}"
check_eq "dkms.conf PACKAGE_VERSION is PROBECACHE_VERSION" "$ver" \
	"$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")"

# A copy whose UAPI header says another version: debian/rules must refuse to build it.
mkdir -p "$tmp/skew"
cp -a "$top/debian" "$top/dkms.conf" "$top/include" "$tmp/skew/"
sed -i 's/^\(#define PROBECACHE_VERSION[^"]*"\).*"/\19.9"/' "$tmp/skew/include/uapi/linux/probecache.h"
if (cd "$tmp/skew" && debian/rules override_dh_auto_configure) > "$tmp/skew.log" 2>&1; then
	not_ok "debian/rules refuses a changelog that disagrees with PROBECACHE_VERSION"
else
	check "debian/rules refuses a changelog that disagrees with PROBECACHE_VERSION" \
		grep -q "debian/changelog is $ver, PROBECACHE_VERSION is 9.9" "$tmp/skew.log"
fi

## ---- make deb
if make -s -C "$top" deb > "$tmp/build.log" 2>&1; then
	ok "make deb"
else
	not_ok "make deb"
	tail -n 40 "$tmp/build.log" | sed 's/^/#   /'
fi
dkms_deb=$out/probecache-dkms_${debver}_all.deb
tools_deb=$out/probecache-tools_${debver}_$arch.deb
check "  built $(basename "$dkms_deb")" test -s "$dkms_deb"
check "  built $(basename "$tools_deb")" test -s "$tools_deb"
check "  the build left nothing outside build/deb (no ../*.deb)" \
	sh -c "! ls '$top'/../probecache*_${debver}_* 2> /dev/null | grep -q ."
for d in "$dkms_deb" "$tools_deb"; do
	check_eq "  $(basename "$d"): Version" "$debver" "$(dpkg-deb -f "$d" Version 2>&1)"
done

# files DEB: the regular files and symlinks it ships, one path a line, sorted.
files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $6 }' | sort; }
# perm DEB PATH: "MODE OWNER" of PATH in DEB
perm() { dpkg-deb -c "$1" | awk -v p="./$2" '$6 == p { print $1, $2 }'; }

## ---- probecache-dkms: the module source and dkms.conf under /usr/src
src=usr/src/probecache-$ver
# (not kbuild's probecache.mod.c, left by an in-tree make module)
want=$( (cd "$top" && ls kmod/*.[ch] kmod/Kbuild kmod/Makefile common/*.[ch] | grep -v '\.mod\.c$') | sed "s|^|$src/|"
	echo "$src/dkms.conf"
	echo "$src/include/uapi/linux/probecache.h"
	printf 'usr/share/doc/probecache-dkms/%s\n' changelog.Debian.gz copyright
	echo usr/share/lintian/overrides/probecache-dkms)
check_eq "probecache-dkms files: the kmod and common sources, UAPI header and dkms.conf" \
	"$(echo "$want" | sort)" "$(files "$dkms_deb")"
dpkg-deb -x "$dkms_deb" "$tmp/dkms"
check "  $src/dkms.conf is the repository's" cmp "$top/dkms.conf" "$tmp/dkms/$src/dkms.conf"
check "  its kmod/ sources are the repository's" diff -r -x '*.o' -x '*.ko' -x '*.mod*' \
	-x '.*' -x '*.order' -x '*.symvers' "$top/kmod" "$tmp/dkms/$src/kmod"
check "  its common/ sources are the repository's" diff -r -x '*.o' -x '.*' \
	"$top/common" "$tmp/dkms/$src/common"
check_eq "  Architecture" "all" "$(dpkg-deb -f "$dkms_deb" Architecture)"
check "  Depends on dkms" sh -c "dpkg-deb -f '$dkms_deb' Depends | grep -q '^dkms'"
dpkg-deb -e "$dkms_deb" "$tmp/dkms-ctl"
check "  postinst: dkms add/build/install (common.postinst probecache $ver)" \
	grep -q "DKMS_NAME=probecache" "$tmp/dkms-ctl/postinst"
check "  prerm: unloads the module, then dkms remove" \
	sh -c "grep -n 'rmmod probecache' '$tmp/dkms-ctl/prerm' | cut -d: -f1 > '$tmp/a' &&
		grep -n 'dkms remove' '$tmp/dkms-ctl/prerm' | cut -d: -f1 > '$tmp/b' &&
		[ \$(cat '$tmp/a') -lt \$(cat '$tmp/b') ]"

## ---- probecache-tools: CLI, man page, bash completion, header, unit, config, cache directory
want="etc/probecache/preload.conf
lib/systemd/system/probecache-follow.service
lib/systemd/system/probecache-metrics.service
lib/systemd/system/probecache-metrics.timer
lib/systemd/system/probecache-preload.service
usr/bin/probecache-resolve
usr/include/linux/probecache.h
usr/share/bash-completion/completions/probecache-resolve
usr/share/doc/probecache-tools/changelog.Debian.gz
usr/share/doc/probecache-tools/copyright
usr/share/lintian/overrides/probecache-tools
usr/share/man/man1/probecache-resolve.1.gz
usr/share/probecache/probecache-resolve.schema.json
$(cd "$top/sdt" && ls *.args | sed 's|^|usr/share/probecache/sdt/|')"
check_eq "probecache-tools files" "$want" "$(files "$tools_deb")"
dpkg-deb -x "$tools_deb" "$tmp/tools"
dpkg-deb -e "$tools_deb" "$tmp/tools-ctl"
check_eq "  conffiles: /etc/probecache/preload.conf" "/etc/probecache/preload.conf" \
	"$(cat "$tmp/tools-ctl/conffiles" 2>&1)"
check "  preload.conf is the repository's etc/preload.conf" \
	cmp "$top/etc/preload.conf" "$tmp/tools/etc/probecache/preload.conf"
check_eq "  /etc/probecache/preload.d/ shipped, root 0755" "drwxr-xr-x root/root" \
	"$(perm "$tools_deb" etc/probecache/preload.d/)"
check_eq "  /var/cache/probecache/ shipped, root 0755 (the CLI writes it as root)" \
	"drwxr-xr-x root/root" "$(perm "$tools_deb" var/cache/probecache/)"
check_eq "  CLI reports PROBECACHE_VERSION" "probecache-resolve $ver" \
	"$("$tmp/tools/usr/bin/probecache-resolve" --version 2>&1)"
check "  the unit runs /usr/bin/probecache-resolve preload and preload --stop" sh -c \
	"grep -qx 'ExecStart=/usr/bin/probecache-resolve preload' '$tmp/tools/lib/systemd/system/probecache-preload.service' &&
	 grep -qx 'ExecStop=/usr/bin/probecache-resolve preload --stop' '$tmp/tools/lib/systemd/system/probecache-preload.service'"
check "  the follow unit runs /usr/bin/probecache-resolve follow" \
	grep -qx 'ExecStart=/usr/bin/probecache-resolve follow' "$tmp/tools/lib/systemd/system/probecache-follow.service"
check "  the man page is the repository's" \
	sh -c "zcat '$tmp/tools/usr/share/man/man1/probecache-resolve.1.gz' | cmp - '$top/Documentation/probecache-resolve.1'"
check "  the bash completion is the repository's completion/probecache-resolve" \
	cmp "$top/completion/probecache-resolve" "$tmp/tools/usr/share/bash-completion/completions/probecache-resolve"
check_eq "  ... root 0644" "-rw-r--r-- root/root" \
	"$(perm "$tools_deb" usr/share/bash-completion/completions/probecache-resolve)"
check "  the header is the UAPI header" \
	cmp "$top/include/uapi/linux/probecache.h" "$tmp/tools/usr/include/linux/probecache.h"
check "  the SDT provider files are the repository's" diff -r -x README.md "$top/sdt" \
	"$tmp/tools/usr/share/probecache/sdt"
check "  its probecache-resolve finds them: python's function__entry has filename" \
	sh -c "env -u PROBECACHE_SDT_DIR '$tmp/tools/usr/bin/probecache-resolve' show \
		-x /usr/bin/python3.11 --sdt --json function__entry | grep -q '\"name\":\"filename\"'"
check "  postinst enables probecache-preload.service" \
	grep -q "deb-systemd-helper enable 'probecache-preload.service'" "$tmp/tools-ctl/postinst"
check "  postinst enables probecache-follow.service" \
	grep -q "deb-systemd-helper enable 'probecache-follow.service'" "$tmp/tools-ctl/postinst"
check "  the metrics timer's service writes node_exporter's textfile directory" \
	grep -qx 'ExecStart=/usr/bin/probecache-resolve status --format=openmetrics --output=/var/lib/prometheus/node-exporter/probecache.prom' \
	"$tmp/tools/lib/systemd/system/probecache-metrics.service"
# (dh_installsystemd --no-enable: an enabling is only kept up to date once the
# administrator made it; tests/vm/sysboot checks it is disabled once installed)
check "  postinst does not enable probecache-metrics.timer (the administrator does)" \
	grep -q "^	if deb-systemd-helper debian-installed 'probecache-metrics.timer'; then" \
	"$tmp/tools-ctl/postinst"
check "  nor its service (its timer starts it)" \
	sh -c "! grep -q \"enable 'probecache-metrics.service'\" '$tmp/tools-ctl/postinst'"
check "  postrm purge disables it" grep -q "deb-systemd-helper purge 'probecache-metrics.timer'" \
	"$tmp/tools-ctl/postrm"
check "  prerm stops it and its service on remove" \
	grep -q 'deb-systemd-invoke stop probecache-metrics.timer probecache-metrics.service' "$tmp/tools-ctl/prerm"
check "  prerm removes the metrics node_exporter would go on exporting" \
	grep -q 'rm -f /var/lib/prometheus/node-exporter/probecache.prom' "$tmp/tools-ctl/prerm"
check "  postinst does not start it (that would load the module mid-install)" \
	sh -c "! grep -q 'deb-systemd-invoke.*start' '$tmp/tools-ctl/postinst'"
check "  prerm stops it on remove (ExecStop disarms)" \
	grep -q 'deb-systemd-invoke stop probecache-preload.service' "$tmp/tools-ctl/prerm"
check "  prerm stops probecache-follow.service on remove" \
	grep -q 'deb-systemd-invoke stop probecache-follow.service' "$tmp/tools-ctl/prerm"
check "  postrm purge removes the cache" grep -q 'rm -rf /var/cache/probecache' "$tmp/tools-ctl/postrm"
check "  Recommends probecache-dkms of the same version" \
	sh -c "dpkg-deb -f '$tools_deb' Recommends | grep -qx 'probecache-dkms (= $debver)'"

## ---- lintian
changes=$out/probecache_${debver}_$arch.changes
if command -v lintian > /dev/null; then
	lintian -I --pedantic --show-overrides "$changes" > "$tmp/lintian" 2>&1
	diag "lintian -I --pedantic --show-overrides $(basename "$changes"):"
	grep -v '^running with root privileges' "$tmp/lintian" | sed 's/^/#   /'
	check_eq "lintian: no error" "" "$(grep '^E:' "$tmp/lintian")"
	check_eq "lintian: no warning that is not overridden" "" "$(grep '^W:' "$tmp/lintian")"
	check_eq "lintian: no info or pedantic tag that is not overridden" "" \
		"$(grep '^[IP]:' "$tmp/lintian")"
	# Every override shows its comment (N: lines) right before its O: line.
	check_eq "lintian: every override carries a reason" "" \
		"$(awk '/^O:/ && prev !~ /^N:/ { print } { prev = $0 }' "$tmp/lintian")"
else
	not_ok "lintian installed (scripts/setup.sh)"
fi

tap_done
