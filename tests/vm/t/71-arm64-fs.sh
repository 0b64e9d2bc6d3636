#!/bin/sh
# arm64 kernels only: 19-kmod-fs's and 35-container's checks on the arm64 VM's virtio
# disks, with records the host's CLI made (/pc/fixtures/arm64.rec; no CLI here) whose
# path is rewritten to where the file is copied (its build-id stays the file's).
#   ext4, xfs: a64_args and Debian's arm64 libstdc++ copied onto the disk, armed there:
#      exact hits; in-place writes refused (ETXTBSY) while defined, armed or not;
#      once deleted, a rewrite of the same size is let in.
#   containers on ext4 (overlayfs, unshare --mount --pid --fork + chroot, ct_app as
#      PID 1): armed from outside through /proc/PID/root, exact hits from inside; the
#      BRK is in the lower layer's inode; a copy-up never gets it; a lower libstdc++ of
#      another build-id is refused.
. /pc/lib.sh
F=/pc/fixtures
. $F/ct_app.env
LIB=$(ls /usr/lib/aarch64-linux-gnu/libstdc++.so.6.*)
LIBP=/usr/lib/aarch64-linux-gnu/libstdc++.so.6	# inside the containers (a file, no link)
# What the arm64 uprobe core writes at a probe: BRK #0x5 (UPROBE_SWBP_INSN).
BRK=0xd42000a0

# rec GROUP:EVENT NAME PATH: the host-made record of GROUP:EVENT, renamed to NAME
# (GROUP/EVENT) and pointing at PATH
rec() {
	awk -v p="p:${1%%:*}/${1#*:}" '$1 == p { print; exit }' $F/arm64.rec |
		sed "s|^p:[^ ]* \([0-9a-f]*\) [^:]*:|p:$2 \1 $3:|"
}

# state GROUP:EVENT
state() {
	pc_field "$1" state
}

# hits GROUP:EVENT...: their hit counts on one line
hits() {
	for _p in "$@"; do
		pc_hits "$_p"
	done | tr '\n' ' ' | sed 's/ $//'
}

# refused LINE: control refuses LINE; prints last_error without "line 1 col C: "
refused() {
	printf '%s\n' "$1" > "$PC_SYSFS/control" 2> /dev/null && return 1
	sed 's/^line 1 col [0-9]*: //' "$PC_SYSFS/last_error"
}

# errno LINE: the errno's name of control refusing LINE ("pc_write: ENAME after N bytes")
errno() {
	printf '%s\n' "$1" | $F/pc_write "$PC_SYSFS/control" 2>&1 | sed -n 's/^pc_write: \(E[A-Z]*\) .*/\1/p'
}

# has STRING TEXT: TEXT contains STRING (TEXT may hold any quote)
has() {
	case $2 in
	*"$1"*) return 0 ;;
	esac
	return 1
}

# flipped FILE: FILE with its last byte changed (same size, other bytes)
flipped() {
	_n=$(stat -c %s "$1")
	head -c $((_n - 1)) "$1"
	if [ "$(tail -c 1 "$1")" = x ]; then printf y; else printf x; fi
}

# on_fs FS: the disk checks in a fresh directory of /mnt/FS
on_fs() {
	if ! check "$1 disk mounted" pc_disk "$1"; then
		return
	fi
	check_eq "/mnt/$1 is on a virtio disk" "/dev/vd" "$(awk -v m="/mnt/$1" '$2 == m { print substr($1, 1, 7) }' /proc/mounts)"
	D=/mnt/$1/a64
	# Probe group fsFS: ext4 and xfs are the kernel's own trace event groups.
	G=fs$1
	rm -rf "$D" && mkdir -p "$D"
	cp $F/a64_args "$D/app"
	cp "$LIB" "$D/libstdc++.so.6"
	sync
	check "$1: arm a64_args' tick on the copy" pc_arm_line "$(rec sdt_pcfix:tick "$G/tick" "$D/app")"
	check "$1: arm libstdc++'s throw on the copy" pc_arm_line "$(rec sdt_libstdcxx:throw "$G/throw" "$D/libstdc++.so.6")"
	check_eq "$1: the copy runs 100 loops" "ticks=100" "$($D/app loop 100)"
	check_eq "$1: rs_throw on the copied libstdc++ throws 7" "thrown=7" "$(LD_LIBRARY_PATH=$D $F/rs_throw 7 | tail -n 1)"
	check_eq "$1: with the system's libstdc++ (another inode) 2" "thrown=2" "$($F/rs_throw 2 | tail -n 1)"
	check_eq "$1: exact hits: 100 ticks, 7 throws" "100 7" "$(hits "$G:tick" "$G:throw")"

	flipped "$D/app" > /tmp/app.new
	check "$1: the rewrite has the same size, other bytes" sh -c \
		"[ $(stat -c %s /tmp/app.new) = $(stat -c %s "$D/app") ] && ! cmp -s /tmp/app.new '$D/app'"
	out=$(sh -c "cat /tmp/app.new > '$D/app'" 2>&1)
	check "$1: in-place rewrite while armed refused: $out" has "Text file busy" "$out"
	check "$1: append while armed: ETXTBSY" sh -c "! echo x 2> /dev/null >> '$D/app'"
	check "$1: library rewrite while armed: ETXTBSY" sh -c "! cat '$LIB' 2> /dev/null > '$D/libstdc++.so.6'"
	check "$1: content unchanged" cmp -s $F/a64_args "$D/app"
	check_eq "$1: still armed and counting" "ticks=3 103 armed" "$($D/app loop 3) $(hits "$G:tick") $(state "$G:tick")"

	check "$1: disarm (nocount)" pc_ctl "nocount $G:tick"
	check_eq "$1: defined, not armed" "defined" "$(state "$G:tick")"
	check "$1: defined: the rewrite is refused all the same" sh -c "! cat /tmp/app.new 2> /dev/null > '$D/app'"
	check "$1: del $G:tick" pc_ctl "del $G:tick"
	check "$1: deleted: the rewrite is let in" sh -c "cat /tmp/app.new > '$D/app'"
	check_eq "$1: the rewritten file runs" "ticks=2" "$($D/app loop 2)"
	check "$1: clear" pc_ctl clear
	rm -rf "$D" /tmp/app.new
}

# lower DIR [LIBSTDCXX]: a container root with ct_app, its libraries (the loader's own
# list: no ldd in the VM) and the static busybox; LIBSTDCXX replaces Debian's.
lower() {
	mkdir -p "$1/bin" "$1/app" "$1/usr/lib" "$1/proc" "$1/tmp"
	ln -s usr/lib "$1/lib"
	cp /bin/busybox "$1/bin/busybox"
	ln -s busybox "$1/bin/sh"
	cp "$F/ct_app" "$1/app/ct_app"
	for _l in $(LD_TRACE_LOADED_OBJECTS=1 "$F/ct_app" | grep -o '/[^ ]*'); do
		mkdir -p "$1${_l%/*}"
		cp -L "$_l" "$1$_l"
	done
	[ -z "${2:-}" ] || cp "$2" "$1$LIBP"
	test -f "$1$LIBP" && test -x "$1/app/ct_app"
}

# peek PID PATH OFF: the instruction word at file offset OFF of PATH in PID's memory
peek() {
	$F/ct_peek "$1" "$2" "$3" | sed -n 's/^mem=\(0x[0-9a-f]*\) .*/\1/p'
}

containers() {
	if ! check "ext4 disk mounted (containers)" pc_disk ext4; then
		return
	fi
	C=/mnt/ext4/ct
	rm -rf "$C"
	mkdir -p "$C/a.up" "$C/a.wk" "$C/a.m" "$C/c.up" "$C/c.wk" "$C/c.m"
	check "lower layer A: ct_app, Debian's libstdc++, libc, loader, busybox" lower "$C/lower"
	check "lower layer C: the same with libstdc++ of another build-id" lower "$C/lower-c" "$F/ct_libstdcxx_otherid.so"

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

	# Armed from outside through A's /proc/PID/root (the kernel follows the link).
	req=$(rec sdt_ct_app:request ct/request "/proc/$PA/root/app/ct_app")
	thr=$(rec sdt_libstdcxx:throw ct/throw "/proc/$PA/root$LIBP")
	OFF_APP=$(echo "$req" | sed -n 's/^[^ ]* [0-9a-f]* [^ ]*:\(0x[0-9a-f]*\).*/\1/p')
	OFF_THROW=$(echo "$thr" | sed -n 's/^[^ ]* [0-9a-f]* [^ ]*:\(0x[0-9a-f]*\).*/\1/p')
	check "arm ct:request at /proc/$PA/root/app/ct_app:$OFF_APP" pc_arm_line "$req"
	check "arm ct:throw at /proc/$PA/root$LIBP:$OFF_THROW" pc_arm_line "$thr"
	check "5 requests inside A" ct_send 7 /tmp/a.out 5 5
	check_eq "hits counted exactly: request, throw" "5 5" "$(hits ct:request ct:throw)"

	# The probed inodes are the lower layer's: A's mappings carry the BRK, the lower
	# files refuse writers, and run from outside by their lower-layer paths they hit.
	out=$($F/ct_peek $PA $LIBP $OFF_THROW)
	check_eq "A's libstdc++ has the BRK at the probe address ($out)" "$BRK" "$(peek $PA $LIBP $OFF_THROW)"
	check "the file word there is no BRK ($out)" sh -c "echo '$out' | grep -q ' file=0x' && ! echo '$out' | grep -q 'file=$BRK'"
	check_eq "A's ct_app has the BRK at the probe address" "$BRK" "$(peek $PA /app/ct_app $OFF_APP)"
	check "the lower libstdc++ refuses a writer (ETXTBSY)" sh -c "! echo 2>/dev/null >> '$C/lower$LIBP'"
	check "the lower ct_app refuses a writer (ETXTBSY)" sh -c "! echo 2>/dev/null >> '$C/lower/app/ct_app'"
	check_eq "the lower ct_app with the lower libstdc++, run outside: 2 requests" "ready done 2 total 2" \
		"$(echo 2 | LD_LIBRARY_PATH=$C/lower${LIBP%/*} $C/lower/app/ct_app | tr '\n' ' ' | sed 's/ $//')"
	check_eq "they hit: the probes are on the lower inodes" "7 7" "$(hits ct:request ct:throw)"

	# Copy-up: a write inside the container makes an upper file, another inode.
	check "a write to libstdc++ inside A succeeds (copy-up)" \
		nsenter -t $PA -m -r /bin/sh -c "echo >> $LIBP"
	check "the copy is in the upper layer" test -f "$C/a.up$LIBP"
	check "another inode" test "$(stat -c %d:%i "$C/a.up$LIBP")" != "$(stat -c %d:%i "$C/lower$LIBP")"
	check "the lower file is unchanged" cmp -s "$C/lower$LIBP" "$LIB"
	rm -f /tmp/b.in && mkfifo /tmp/b.in
	nsenter -t $PA -m -p -r /app/ct_app < /tmp/b.in > /tmp/b.out 2>&1 &
	nb=$!
	exec 8> /tmp/b.in
	check "B started inside A after the copy-up" wait_for 20 grep -qx ready /tmp/b.out
	PB=$(child_of $nb)
	out=$($F/ct_peek $PB $LIBP $OFF_THROW)
	check "B's libstdc++ (the upper copy): the file's word, no BRK ($out)" sh -c \
		"echo '$out' | grep -q '^mem=\(0x[0-9a-f]*\) file=\1\$' && ! echo '$out' | grep -q $BRK"
	check "3 requests in B" ct_send 8 /tmp/b.out 3 3
	check_eq "B's throws (upper libstdc++) never hit; its ct_app (lower) does" "10 7" "$(hits ct:request ct:throw)"
	check "2 more requests in A" ct_send 7 /tmp/a.out 2 7
	check_eq "A (still mapping the lower libstdc++) keeps hitting" "12 9" "$(hits ct:request ct:throw)"
	check_eq "and keeps its BRK" "$BRK" "$(peek $PA $LIBP $OFF_THROW)"
	check_eq "the probes stay armed" "armed armed" "$(state ct:request) $(state ct:throw)"

	# Container C: its own private overlay mount, another libstdc++ build.
	rm -f /tmp/c.in && mkfifo /tmp/c.in
	unshare --mount --pid --fork sh -c "mount -t overlay overlay \
		-o lowerdir=$C/lower-c,upperdir=$C/c.up,workdir=$C/c.wk $C/c.m &&
		exec chroot $C/c.m /app/ct_app" < /tmp/c.in > /tmp/c.out 2>&1 &
	uc=$!
	exec 9> /tmp/c.in
	check "container C started" wait_for 20 grep -qx ready /tmp/c.out
	PC=$(child_of $uc)
	check "C's overlay is not mounted outside it" sh -c "! grep -q ' $C/c.m ' /proc/mounts"
	bid=$(echo "$thr" | cut -d ' ' -f 2)
	check "the record's build-id (Debian's) is not C's" test "$bid" != "$OTHER_BUILD_ID"
	check_eq "Debian's libstdc++ record refused on C's libstdc++, for its build-id" \
		"build-id: build-id mismatch: file has $OTHER_BUILD_ID, record wants $bid" \
		"$(refused "add $(rec sdt_libstdcxx:throw ctc/throw "/proc/$PC/root$LIBP")")"
	check_eq "with ESTALE" "ESTALE" "$(errno "add $(rec sdt_libstdcxx:throw ctc/throw "/proc/$PC/root$LIBP")")"
	check "nothing armed: C runs, 4 requests" ct_send 9 /tmp/c.out 4 4
	check_eq "C's ct_app is another inode (its own lower layer): no hits either" "12 9" \
		"$(hits ct:request ct:throw)"

	exec 7>&- 8>&- 9>&-
	wait $ua; ra=$?
	wait $nb; rb=$?
	wait $uc; rc=$?
	check_eq "the containers end with their input, exit 0" "0 0 0" "$ra $rb $rc"
	check "clear" pc_ctl clear
	check "unmount A's overlay" umount "$C/a.m"
	rm -rf "$C"
}

check_eq "machine" "aarch64" "$(uname -m)"
check "insmod" pc_load
on_fs ext4
on_fs xfs
containers
check "rmmod" pc_unload
tap_done
