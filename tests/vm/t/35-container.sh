#!/bin/sh
# Containers on a real filesystem: overlayfs roots whose lower layer (on the ext4 virtio
# disk) holds ct_app, Debian's libstdc++ and what they need to run, each started with
# busybox unshare --mount --pid --fork + chroot, its ct_app as PID 1.
#   A: overlay mounted in the host's mount namespace (as Docker and containerd do),
#      scanned and armed from the host through /proc/PID/root with the CLI, and armed
#      kernel-side with a /proc/PID/root path: exact hit counts from inside; the
#      breakpoint, the write denial and the hits belong to the lower layer's inode
#      (the lower files run from the host, outside any overlay, hit too); a copy-up
#      (a write inside the container) makes a new file that never gets the breakpoint
#      while the processes still mapping the lower inode keep it and their hits.
#   C: overlay mounted only in the container's own namespace, its lower layer holding
#      a libstdc++ of another build-id: a record for Debian's build is refused (ESTALE).
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv ct_app
export PROBECACHE_DIR=/tmp/pc35
C=/mnt/ext4/ct
LIBP=/usr/lib/x86_64-linux-gnu/libstdc++.so.6	# inside the containers (a file, no link)

# lower DIR [LIBSTDCXX]: a container root with ct_app, its libraries (the loader's own
# list: no ldd in the VM) and a static busybox; LIBSTDCXX replaces Debian's.
lower() {
	mkdir -p "$1/bin" "$1/app" "$1/usr/lib" "$1/usr/lib64" "$1/proc" "$1/tmp"
	ln -s usr/lib "$1/lib"
	ln -s usr/lib64 "$1/lib64"
	cp /bin/busybox "$1/bin/busybox"
	ln -s busybox "$1/bin/sh"
	cp "$PCF/ct_app" "$1/app/ct_app"
	for _l in $(LD_TRACE_LOADED_OBJECTS=1 "$PCF/ct_app" | grep -o '/[^ ]*'); do
		mkdir -p "$1${_l%/*}"
		cp -L "$_l" "$1$_l"
	done
	[ -z "${2:-}" ] || cp "$2" "$1$LIBP"
	test -f "$1$LIBP" && test -x "$1/app/ct_app"
}

if ! check "ext4 disk mounted" pc_disk ext4; then
	tap_done
	exit 1
fi
rm -rf "$C"
mkdir -p "$C/a.up" "$C/a.wk" "$C/a.m" "$C/c.up" "$C/c.wk" "$C/c.m"
check "lower layer A: ct_app, libstdc++, libc, loader, busybox" lower "$C/lower"
check "lower layer C: the same with libstdc++ of another build-id" lower "$C/lower-c" "$PCF/ct_libstdcxx_otherid.so"
check "insmod" pc_load

# Container A.
mount -t overlay overlay -o "lowerdir=$C/lower,upperdir=$C/a.up,workdir=$C/a.wk" "$C/a.m"
check "overlay mounted on $C/a.m" sh -c "grep -q '^overlay $C/a.m overlay ' /proc/mounts"
rm -f /tmp/a.in && mkfifo /tmp/a.in
unshare --mount --pid --fork chroot "$C/a.m" /app/ct_app < /tmp/a.in > /tmp/a.out 2>&1 &
ua=$!
exec 7> /tmp/a.in
check "container A started" wait_for 20 grep -qx ready /tmp/a.out
PA=$(child_of $ua)
check_eq "A's ct_app is PID 1 of its own pid namespace" "1" \
	"$(sed -n 's/^NSpid:.*[[:space:]]\([0-9]*\)$/\1/p' /proc/$PA/status 2>&1)"
check "A has its own mount namespace" test "$(readlink /proc/$PA/ns/mnt)" != "$(readlink /proc/self/ns/mnt)"
check "A's root is the overlay" test "$(stat -c %d:%i /proc/$PA/root/)" = "$(stat -c %d:%i $C/a.m/)"

# Scan and arm from the host, through /proc/PID/root, with the CLI.
check "CLI scans A's ct_app through /proc/PID/root" probecache-resolve scan "/proc/$PA/root/app/ct_app"
check "CLI scans A's libstdc++ through /proc/PID/root" probecache-resolve scan "/proc/$PA/root$LIBP"
check "CLI arms both" probecache-resolve arm -q sdt_ct_app:request sdt_libstdcxx:throw
check_eq "both armed" "armed armed" "$(kget sdt_ct_app:request state) $(kget sdt_libstdcxx:throw state)"
# And kernel-side with the /proc/PID/root path itself (the kernel follows the link).
rec=$(probecache-resolve list --format=record sdt_ct_app:request | head -n 1)
OFF_APP=$(echo "$rec" | sed -n 's/^[^ ]* [0-9a-f]* [^ ]*:\(0x[0-9a-f]*\).*/\1/p')
check "arm ctproc:request at /proc/$PA/root/app/ct_app:$OFF_APP" \
	pc_arm_line "p:ctproc/request $ct_app_APP_BUILD_ID /proc/$PA/root/app/ct_app:$OFF_APP"
rec=$(probecache-resolve list --format=record sdt_libstdcxx:throw | head -n 1)
OFF_THROW=$(echo "$rec" | sed -n 's/^[^ ]* [0-9a-f]* [^ ]*:\(0x[0-9a-f]*\).*/\1/p')
check_eq "libstdc++ in A is Debian's build" "$ct_app_LIBSTDCXX_BUILD_ID" "$(echo "$rec" | cut -d ' ' -f 2)"

check "5 requests inside A" ct_send 7 /tmp/a.out 5 5
check_eq "hits counted exactly: request (CLI), request (/proc path), throw" "5 5 5" \
	"$(pc_hits sdt_ct_app:request) $(pc_hits ctproc:request) $(pc_hits sdt_libstdcxx:throw)"

# The probed inode is the lower layer's: A's mappings carry int3 at the probe addresses,
# the lower files refuse writers, and run from the host by their lower-layer paths
# (no overlay, no container) they hit.
out=$($PCF/ct_peek $PA $LIBP $OFF_THROW)
check_eq "A's libstdc++ has the breakpoint at the probe address ($out)" \
	"0xcc" "$(echo "$out" | sed -n 's/^mem=\(0x..\) file=0x..$/\1/p')"
check "the file byte there is no int3 ($out)" sh -c "echo '$out' | grep -q 'file=0x' && ! echo '$out' | grep -q 'file=0xcc'"
check_eq "A's ct_app has the breakpoint at the probe address" \
	"0xcc" "$($PCF/ct_peek $PA /app/ct_app $OFF_APP | sed -n 's/^mem=\(0x..\) .*/\1/p')"
check "the lower libstdc++ refuses a writer (ETXTBSY)" sh -c "! echo 2>/dev/null >> '$C/lower$LIBP'"
check "the lower ct_app refuses a writer (ETXTBSY)" sh -c "! echo 2>/dev/null >> '$C/lower/app/ct_app'"
check_eq "the lower ct_app with the lower libstdc++, run on the host: 2 requests" "ready done 2 total 2" \
	"$(echo 2 | LD_LIBRARY_PATH=$C/lower${LIBP%/*} $C/lower/app/ct_app | tr '\n' ' ' | sed 's/ $//')"
check_eq "they hit: the probes are on the lower inodes" "7 7 7" \
	"$(pc_hits sdt_ct_app:request) $(pc_hits ctproc:request) $(pc_hits sdt_libstdcxx:throw)"

# Copy-up: a write inside the container makes an upper file, a different inode.
check "a write to libstdc++ inside A succeeds (copy-up)" \
	nsenter -t $PA -m -r /bin/sh -c "echo >> $LIBP"
check "the copy is in the upper layer" test -f "$C/a.up$LIBP"
check "a different inode" test "$(stat -c %d:%i "$C/a.up$LIBP")" != "$(stat -c %d:%i "$C/lower$LIBP")"
check "the lower file is unchanged" cmp -s "$C/lower$LIBP" /usr/lib/x86_64-linux-gnu/libstdc++.so.6
rm -f /tmp/b.in && mkfifo /tmp/b.in
nsenter -t $PA -m -p -r /app/ct_app < /tmp/b.in > /tmp/b.out 2>&1 &
nb=$!
exec 8> /tmp/b.in
check "B started inside A after the copy-up" wait_for 20 grep -qx ready /tmp/b.out
PB=$(child_of $nb)
out=$($PCF/ct_peek $PB $LIBP $OFF_THROW)
check "B's libstdc++ (the upper copy): the original byte, no breakpoint ($out)" sh -c \
	"echo '$out' | grep -q '^mem=\(0x..\) file=\1\$' && ! echo '$out' | grep -q 0xcc"
check "3 requests in B" ct_send 8 /tmp/b.out 3 3
check_eq "B's throws (upper libstdc++) never hit; its ct_app (lower) does" "10 10 7" \
	"$(pc_hits sdt_ct_app:request) $(pc_hits ctproc:request) $(pc_hits sdt_libstdcxx:throw)"
check_eq "the upper copy run on the host: 1 request" "ready done 1 total 1" \
	"$(echo 1 | LD_LIBRARY_PATH=$C/a.up${LIBP%/*} $C/lower/app/ct_app | tr '\n' ' ' | sed 's/ $//')"
check_eq "its throw does not hit" "11 11 7" \
	"$(pc_hits sdt_ct_app:request) $(pc_hits ctproc:request) $(pc_hits sdt_libstdcxx:throw)"
check "2 more requests in A" ct_send 7 /tmp/a.out 2 7
check_eq "A (still mapping the lower libstdc++) keeps hitting" "13 13 9" \
	"$(pc_hits sdt_ct_app:request) $(pc_hits ctproc:request) $(pc_hits sdt_libstdcxx:throw)"
check_eq "and keeps its breakpoint" \
	"0xcc" "$($PCF/ct_peek $PA $LIBP $OFF_THROW | sed -n 's/^mem=\(0x..\) .*/\1/p')"
check_eq "the probes stay armed" "armed armed armed" \
	"$(kget sdt_ct_app:request state) $(kget ctproc:request state) $(kget sdt_libstdcxx:throw state)"

# Container C: its own private overlay mount, another libstdc++ build.
rm -f /tmp/c.in && mkfifo /tmp/c.in
unshare --mount --pid --fork sh -c "mount -t overlay overlay \
	-o lowerdir=$C/lower-c,upperdir=$C/c.up,workdir=$C/c.wk $C/c.m &&
	exec chroot $C/c.m /app/ct_app" < /tmp/c.in > /tmp/c.out 2>&1 &
uc=$!
exec 9> /tmp/c.in
check "container C started" wait_for 20 grep -qx ready /tmp/c.out
PC=$(child_of $uc)
check "C's overlay is not mounted in the host's namespace" sh -c "! grep -q ' $C/c.m ' /proc/mounts"
out=$(probecache-resolve scan "/proc/$PC/root$LIBP" 2>&1)
check "CLI scans C's libstdc++ through /proc/PID/root, an overlay mounted only in C's namespace" \
	sh -c "echo '$out'; echo '$out' | grep -q '($ct_app_OTHER_BUILD_ID): 3 events\$'"
out=$(pc_arm_line "p:ctc/throw $ct_app_LIBSTDCXX_BUILD_ID /proc/$PC/root$LIBP:$OFF_THROW" 2>&1)
check "Debian's libstdc++ record refused on C's libstdc++" test $? != 0
check "with ESTALE" sh -c "echo '$out'; echo '$out' | grep -q ESTALE"
check "because of the build-id" sh -c "echo '$out'; echo '$out' | grep -q 'build-id mismatch: file has $ct_app_OTHER_BUILD_ID, record wants $ct_app_LIBSTDCXX_BUILD_ID'"
check "nothing armed: C runs, 4 requests" ct_send 9 /tmp/c.out 4 4
check_eq "C's ct_app is another inode (its own lower layer): no hits either" "13 13 9" \
	"$(pc_hits sdt_ct_app:request) $(pc_hits ctproc:request) $(pc_hits sdt_libstdcxx:throw)"

exec 7>&- 8>&- 9>&-
wait $ua; ra=$?
wait $nb; rb=$?
wait $uc; rc=$?
check_eq "the containers end with their input, exit 0" "0 0 0" "$ra $rb $rc"
check "clear" kctl clear
check "rmmod" pc_unload
check "unmount A's overlay" umount "$C/a.m"
rm -rf "$C" "$PROBECACHE_DIR"
tap_done
