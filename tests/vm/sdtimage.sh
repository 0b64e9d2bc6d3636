#!/bin/bash
# sdtimage.sh [--print-path] SET: a read-only disk image of Debian programs that carry
# SDT notes, which tests/vm/run.sh attaches to x86-64 VMs as a virtio disk (/init mounts
# it on /mnt/sdt-SET) for the scripts named *-sdt-SET.sh; they chroot into it to run
# those programs while the VM's own probecache-resolve, perf and ftrace trace them. The
# programs and their libraries (python's stdlib, postgres with its LLVM and ICU, the
# JDK) are far too big for the initramfs.
#   SET apps    python3.11, postgresql-15, util-linux (setpriv) and a cluster initdb made
#               in /var/lib/pc-pgdata, owned by the image's user postgres (uid 70):
#               tests/vm/t/39-resolve-sdt-apps.sh, in make check
#   SET langs   ruby3.1 (libruby3.1), php8.2-cli, openjdk-17-jre-headless and
#               /opt/pc/PcJava.class (tests/vm/sdt/PcJava.java, compiled by the javac of
#               openjdk-17-jdk-headless, which is removed again):
#               tests/vm/sdt/*-sdt-langs.sh, make check-sdt-vm
#   --print-path  print the path it has or would have, build nothing
# As tests/vm/bpfimage.sh does: the closure apt resolves for the packages and busybox on
# an empty system (tests/vm/debs.sh, from the mirror the host's apt sources name),
# unpacked without maintainer scripts, with an ld.so.cache; busybox is /bin/sh. It lives
# in CACHE/sdt-SET-KEY/sdt.img (CACHE: $PROBECACHE_TEST_CACHE, default
# /var/cache/probecache-test); KEY hashes this script, what it compiles into the image
# and the NAME=VERSION list of the closure, so a new package version rebuilds it.
# What it costs, once per machine and per run: Documentation/testing.md, "How long it
# takes" (the figures are not written here: a change of this script rebuilds the images).
# Needs root (the cache directory, the chroot, initdb as uid 70 in a private mount
# namespace) and network to the mirror.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tests/vm
cache=${PROBECACHE_TEST_CACHE:-/var/cache/probecache-test}
release=bookworm

die() { echo "sdtimage: $*" >&2; exit 1; }

print=
[ "${1:-}" != --print-path ] || { print=1; shift; }
set=${1:?usage: sdtimage.sh [--print-path] apps|langs}
# build: the packages in the image; tools: packages needed only while building it
# (removed again); inputs: files whose content goes into the image.
case "$set" in
apps)	pkgs="python3.11 postgresql-15 util-linux" tools= inputs= ;;
langs)	pkgs="ruby3.1 php8.2-cli openjdk-17-jre-headless" tools=openjdk-17-jdk-headless
	inputs=$vm/sdt/PcJava.java ;;
*)	die "unknown set $set (apps, langs)" ;;
esac

# busybox: /bin/sh. util-linux (apps): setpriv, as postgres refuses to run as root
# (busybox's setpriv cannot change the uid).
# The closures are resolved again once a day, as debs.sh refreshes its index (apt takes
# seconds over postgres's, and run.sh asks at every run that attaches the image): kept
# in CACHE/sdt-SET.closure, first line the hash of this script and its inputs, then
# the image's closure, "--", and the closure with the build's tools.
# shellcheck disable=SC2086
me=$(cat "$0" $inputs | sha256sum | cut -c1-12)
resolved=$cache/sdt-$set.closure
if [ -n "$(find "$resolved" -mtime -1 2> /dev/null)" ] && [ "$(head -n 1 "$resolved")" = "$me" ]; then
	closure=$(sed '1d; /^--$/,$d' "$resolved")
	full=$(sed '1,/^--$/d' "$resolved")
else
	# shellcheck disable=SC2086
	closure=$("$vm/debs.sh" amd64 "$release" closure $pkgs busybox) || die "cannot resolve $pkgs"
	full=$closure
	# shellcheck disable=SC2086
	[ -z "$tools" ] || full=$("$vm/debs.sh" amd64 "$release" closure $pkgs $tools busybox) ||
		die "cannot resolve $tools"
	! [ -w "$cache" ] || printf '%s\n%s\n--\n%s\n' "$me" "$closure" "$full" > "$resolved"
fi
for p in $pkgs; do
	echo "$closure" | grep -q "^$p=" || die "no $p in $release"
done
key=$(echo "$me $full" | sha256sum | cut -c1-12)
dir=$cache/sdt-$set-$key
img=$dir/sdt.img
if [ -n "$print" ]; then
	echo "$img"
	exit 0
fi
[ -f "$img" ] && { echo "$img"; exit 0; }
[ "$(id -u)" = 0 ] || die "must run as root to build $img"

# Only one build of a set at a time; a second caller waits and then finds the image.
mkdir -p "$cache"
exec 7> "$cache/sdt-$set.lock"
flock 7
[ -f "$img" ] && { echo "$img"; exit 0; }

t0=$(date +%s)
work=$dir.tmp
root=$work/root
rm -rf "$work" && mkdir -p "$work/debs" "$root"/{usr/bin,usr/lib,usr/lib64,usr/sbin,etc,proc,sys,dev,tmp,pc}
# proc, sys, dev, tmp, pc: where the tests bind the VM's own. Merged /usr.
for d in bin lib lib64 sbin; do
	ln -s "usr/$d" "$root/$d"
done
# shellcheck disable=SC2086
debs=$("$vm/debs.sh" amd64 "$release" fetch "$work/debs" $full) || die "download failed"
mb_debs=$(du -sm "$work/debs" | cut -f1)
t_dl=$(($(date +%s) - t0))
for deb in $debs; do
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" --keep-directory-symlink ||
		die "cannot unpack $deb"
done
ln -sf busybox "$root/usr/bin/sh"
# No postinst ran: the loader cache that libc6's trigger would make.
ldconfig -r "$root" || die "ldconfig -r $root failed"
printf 'root:x:0:0:root:/root:/bin/sh\npostgres:x:70:70:PostgreSQL:/var/lib/postgresql:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\npostgres:x:70:\n' > "$root/etc/group"

# in_root CMD...: CMD chrooted into the image, with /proc and /dev in a private mount
# namespace (nothing stays mounted on the host when it ends).
in_root() {
	unshare --mount --propagation private --fork sh -c \
		'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && exec chroot "$0" "$@"' \
		"$root" "$@"
}

case "$set" in
apps)
	# A cluster for `postgres --single` (the VM copies it to a writable /tmp): C locale,
	# 1 MB WAL segments (the default 16 MB would be copied at every run).
	mkdir -p "$root/var/lib/pc-pgdata" "$root/var/lib/postgresql"
	chown 70:70 "$root/var/lib/pc-pgdata" "$root/var/lib/postgresql"
	chmod 0700 "$root/var/lib/pc-pgdata"
	in_root /usr/bin/setpriv --reuid=70 --regid=70 --clear-groups \
		/usr/lib/postgresql/15/bin/initdb --no-instructions -N -A trust -U postgres \
		--locale=C -E UTF8 --wal-segsize=1 -D /var/lib/pc-pgdata > "$work/initdb.log" 2>&1 ||
		{ cat "$work/initdb.log" >&2; die "initdb failed"; }
	in_root /usr/bin/python3.11 -c 'import sys; print("python", sys.version.split()[0])' > "$work/version"
	in_root /usr/lib/postgresql/15/bin/postgres --version >> "$work/version"
	;;
langs)
	jvm=/usr/lib/jvm/java-17-openjdk-amd64
	mkdir -p "$root/opt/pc"
	cp "$vm/sdt/PcJava.java" "$root/opt/pc/"
	in_root "$jvm/bin/javac" -d /opt/pc /opt/pc/PcJava.java > "$work/javac.log" 2>&1 ||
		{ cat "$work/javac.log" >&2; die "javac failed"; }
	rm "$root/opt/pc/PcJava.java"
	# What only the build needed goes again: the files of the tools' packages that are
	# not in the image's own closure (directories stay; Debian packages share no file).
	for p in $(comm -13 <(echo "$closure") <(echo "$full")); do
		dpkg-deb --fsys-tarfile "$work/debs/${p%%=*}_$(echo "${p#*=}" | sed 's/:/%3a/')_"*.deb |
			tar -t | grep -v '/$' | sed 's|^\./||' | while read -r f; do
				rm -f "$root/$f"
			done
	done
	[ ! -e "$root$jvm/bin/javac" ] || die "javac is still in the image"
	# The JDK's class data sharing archive (Debian's postinst makes it; no postinst ran):
	# without it every JVM start parses the JDK's classes, seconds under TCG.
	[ -f "$root$jvm/lib/server/classes.jsa" ] ||
		in_root "$jvm/bin/java" -Xshare:dump > "$work/cds.log" 2>&1 ||
		{ cat "$work/cds.log" >&2; die "java -Xshare:dump failed"; }
	in_root /usr/bin/ruby3.1 --version > "$work/version"
	in_root /usr/bin/php8.2 -n --version | head -n 1 >> "$work/version"
	in_root "$jvm/bin/java" -version 2>&1 | head -n 1 >> "$work/version"
	;;
esac
rm -rf "$work/debs" "$root"/usr/share/{doc,man,info,locale,lintian,bug}
# ext4 from the directory (no loop device), without a journal: mounted read-only,
# possibly by several VMs at once. Sized to its content plus room for ext4's metadata.
mb=$(du -sm "$root" | cut -f1)
mke2fs -q -t ext4 -L "pc-sdt-$set" -O ^has_journal,^orphan_file,^metadata_csum_seed \
	-d "$root" "$work/sdt.img" "$((mb + mb / 5 + 16))M" > /dev/null || die "mke2fs failed"
rm -rf "$root"
echo "$closure" > "$work/closure"
echo "downloaded ${mb_debs} MB in ${t_dl}s; built in $(($(date +%s) - t0))s; ${mb} MB of files" > "$work/build.log"
mv "$work" "$dir"
# Images of older keys are dead weight.
for d in "$cache"/sdt-"$set"-*; do
	[ "$d" = "$dir" ] || rm -rf "$d"
done
echo "sdtimage: built $dir ($(tr '\n' ';' < "$dir/version"); $(cat "$dir/build.log"))" >&2
echo "$img"
