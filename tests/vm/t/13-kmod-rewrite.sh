#!/bin/sh
# probecache.ko: build-id mismatch; writers excluded while armed, as exec
# does (every in-place write path fails with ETXTBSY, a file open for
# writing or mapped shared-writable cannot be armed; tracefs uprobe_events:
# the rewritten program is silently corrupted); a timestamp change makes
# the probe stale; rename-replace (the package-upgrade case) stays allowed.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_rewrite
kenv pc_rewrite_b
kenv pc_harden
A=$PCF/pc_rewrite
BB=$PCF/pc_rewrite_b
BID=$pc_rewrite_BUILD_ID
# Build A's "movl $0x01020304" starts here; in build B it is an immediate byte.
P=$(printf '0x%x' $((pc_rewrite_OFF_pc_mark + 3)))
good_a="variant=a value=0x01020304"
good_b="variant=b value=0x01020304"

check_eq "both builds have pc_mark at one offset" "$pc_rewrite_OFF_pc_mark" "$pc_rewrite_b_OFF_pc_mark"
check "the builds differ in build-id" test "$BID" != "$pc_rewrite_b_BUILD_ID"
check_eq "build A output" "$good_a" "$($A)"
check_eq "build B output" "$good_b" "$($BB)"
check "insmod" pc_load

# A record computed for A, pointed at B.
cp $BB /tmp/b
check "record for build A refused on build B" sh -c "! printf 'add p:rw/mm $BID /tmp/b:$P\n' > $PC_SYSFS/control"
check_eq "reason" "build-id: build-id mismatch: file has $pc_rewrite_b_BUILD_ID, record wants $BID" "$(kerr | sed 's/^line 1 col [0-9]*: //')"
check_eq "nothing armed: B runs unharmed" "$good_b" "$(/tmp/b)"

# Every in-place write path is refused while armed; the content stays A's.
cp $A /tmp/rw
check "arm on a copy of A" karm "add p:rw/ours $BID /tmp/rw:$P"
check_eq "A runs correctly while probed" "$good_a" "$(/tmp/rw)"
check_eq "and the probe hit once" "1" "$(kget rw:ours hits)"
check "rewrite with no pause after arming: ETXTBSY" sh -c "! cat $BB 2>/dev/null > /tmp/rw"
check "truncate: ETXTBSY" sh -c "! true 2>/dev/null > /tmp/rw"
check "size change (append): ETXTBSY" sh -c "! echo x 2>/dev/null >> /tmp/rw"
$PCF/pc_harden map x /tmp/rw 30 > /tmp/mx.out &
mx=$!
wait_for 5 grep -q mapped /tmp/mx.out
check "rewrite while a running process maps it: ETXTBSY" sh -c "! cat $BB 2>/dev/null > /tmp/rw"
kill $mx
check "a shared writable mapping cannot be made" sh -c "! $PCF/pc_harden map w /tmp/rw 0"
check "content is still A's" cmp -s $A /tmp/rw
check_eq "runs A, counted" "$good_a 2" "$(/tmp/rw) $(kget rw:ours hits)"
check_eq "still armed" "armed" "$(kget rw:ours state)"
check "del releases the file" kctl "del rw:ours"
check "rewrite after del works" sh -c "cat $BB > /tmp/rw"
check_eq "and runs B" "$good_b" "$(/tmp/rw)"

# A writer that is already there blocks arming: an open fd, a shared
# writable mapping kept across the attempt (its fd long closed).
cp $A /tmp/wr
exec 6>> /tmp/wr
check "open for writing: arming refused" sh -c "! printf 'add p:rw/w $BID /tmp/wr:$P\n' > $PC_SYSFS/control"
check_eq "reason" "path: /tmp/wr is open for writing (or mapped shared and writable); it cannot be armed until the writer is gone" \
	"$(kerr | sed 's/^line 1 col [0-9]*: //')"
exec 6>&-
$PCF/pc_harden map w /tmp/wr 30 > /tmp/mw.out &
mw=$!
wait_for 5 grep -q mapped /tmp/mw.out
check "MAP_SHARED writer: arming refused" sh -c "! printf 'add p:rw/w $BID /tmp/wr:$P\n' > $PC_SYSFS/control"
kill $mw
wait $mw 2> /dev/null
check "writer gone: armed" karm "add p:rw/w $BID /tmp/wr:$P"
check_eq "nothing was written meanwhile" "$good_a 1" "$(/tmp/wr) $(kget rw:w hits)"

# Timestamps that move without a write (touch) cannot be told from a write
# on filesystems that do not see every writer (NFS, FUSE): stale.
sleep 1	# let the coarse file timestamps move
touch /tmp/wr
check_eq "touched file still runs A" "$good_a" "$(/tmp/wr)"
check "probe reads stale" wait_for 5 sh -c "[ \"\$(cat $PCP/rw:w/state)\" = stale ]"
check_eq "no hit after the change" "1" "$(kget rw:w hits)"
check "kernel log says why" wait_for 5 sh -c "dmesg | grep -q 'rw:w: /tmp/wr (offset $P) changed since verification (mtime)'"
check "a stale probe lets writers in" sh -c "cat $BB > /tmp/wr"
check "del stale probe" kctl "del rw:w"

# The same steps through tracefs uprobe_events.
cp $A /tmp/rw2
check "tracefs: add uprobe" sh -c "echo 'p:pcrw/theirs /tmp/rw2:$P' >> $TR/uprobe_events"
check "tracefs: enable" sh -c "echo 1 > $TR/events/pcrw/theirs/enable"
check_eq "tracefs: A runs correctly while probed" "$good_a" "$(/tmp/rw2)"
sleep 1
cat $BB > /tmp/rw2
check_eq "tracefs: the rewritten program prints a corrupted value" \
	"variant=b value=0x01cc0304" "$(/tmp/rw2)"
echo 0 > $TR/events/pcrw/theirs/enable
echo '-:pcrw/theirs' >> $TR/uprobe_events

# A link count change (hard link, rename-over of another name) moves ctime;
# it becomes the new baseline, and a later ctime change still counts.
cp $A /tmp/lk
check "arm /tmp/lk" karm "add p:lk/a $BID /tmp/lk:$P"
sleep 1
ln /tmp/lk /tmp/lk2
check_eq "after a hard link: still armed, counted" "$good_a 1 armed" \
	"$(/tmp/lk) $(kget lk:a hits) $(kget lk:a state)"
sleep 1
chmod 0700 /tmp/lk
check_eq "a ctime change after it: not run with the breakpoint" "$good_a 1" "$(/tmp/lk) $(kget lk:a hits)"
check "and stale, saying ctime" wait_for 5 sh -c \
	"[ \"\$(cat $PCP/lk:a/state)\" = stale ] && dmesg | grep -q 'lk:a: /tmp/lk (offset $P) changed since verification (ctime)'"
check "del" kctl "del lk:a"

# Rename-replace: the old inode stays probed, the new file is not.
cp $A /tmp/app
ln /tmp/app /tmp/app.old
check "arm /tmp/app" karm "add p:rn/app $BID /tmp/app:$P"
cp $BB /tmp/app.new
mv /tmp/app.new /tmp/app
check "upgrade replaced the inode" test "$(stat -c %i /tmp/app)" != "$(stat -c %i /tmp/app.old)"
check_eq "new file runs correctly" "$good_b" "$(/tmp/app)"
check_eq "new file is not probed" "0" "$(kget rn:app hits)"
check_eq "old inode still runs correctly" "$good_a" "$(/tmp/app.old)"
check_eq "old inode still probed" "1" "$(kget rn:app hits)"
check_eq "state armed" "armed" "$(kget rn:app state)"
check_eq "old inode still has a name" "0" "$(kget rn:app unlinked)"
rm /tmp/app.old
check_eq "its last name gone: unlinked" "1" "$(kget rn:app unlinked)"
check "status says the old inode is pinned" sh -c \
	"probecache-resolve status | grep '^rn:app .*file replaced or removed: the old inode stays in memory until disarm'"
check "clear" kctl clear
check "rmmod" pc_unload
tap_done
