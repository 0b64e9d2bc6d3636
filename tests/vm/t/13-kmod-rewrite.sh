#!/bin/sh
# probecache.ko: build-id mismatch; writers excluded from definition to
# deletion, as exec excludes them while a program runs (every in-place write
# path fails with ETXTBSY, armed or not; a file open for writing or mapped
# shared-writable cannot be defined; a plain uprobe_events event, which no
# definition guards: the rewritten program is silently corrupted); timestamps
# that move without a write change nothing; rename-replace (the package-upgrade
# case) stays allowed.
# 13-kmod-rewrite.sh [DIR]: the files live in DIR (default /tmp, a tmpfs);
# 19-kmod-fs.sh runs it again on ext4 and xfs.
D=${1:-/tmp}
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
mkdir -p "$D"
check_eq "build A output" "$good_a" "$($A)"
check_eq "build B output" "$good_b" "$($BB)"
check "insmod" pc_load

# A record computed for A, pointed at B.
cp $BB $D/b
check "record for build A refused on build B" sh -c "! printf 'add p:rw/mm $BID $D/b:$P\n' > $PC_SYSFS/control"
check_eq "reason" "build-id: build-id mismatch: file has $pc_rewrite_b_BUILD_ID, record wants $BID" "$(kerr | sed 's/^line 1 col [0-9]*: //')"
check_eq "nothing armed: B runs unharmed" "$good_b" "$($D/b)"

# Every in-place write path is refused while armed; the content stays A's.
cp $A $D/rw
check "arm on a copy of A" karm "add p:rw/ours $BID $D/rw:$P"
check_eq "A runs correctly while probed" "$good_a" "$($D/rw)"
check_eq "and the probe hit once" "1" "$(kget rw:ours hits)"
check "rewrite with no pause after arming: ETXTBSY" sh -c "! cat $BB 2>/dev/null > $D/rw"
check "truncate: ETXTBSY" sh -c "! true 2>/dev/null > $D/rw"
check "size change (append): ETXTBSY" sh -c "! echo x 2>/dev/null >> $D/rw"
$PCF/pc_harden map x $D/rw 30 > $D/mx.out &
mx=$!
wait_for 5 grep -q mapped $D/mx.out
check "rewrite while a running process maps it: ETXTBSY" sh -c "! cat $BB 2>/dev/null > $D/rw"
kill $mx
check "a shared writable mapping cannot be made" sh -c "! $PCF/pc_harden map w $D/rw 0"
check "content is still A's" cmp -s $A $D/rw
check_eq "runs A, counted" "$good_a 2" "$($D/rw) $(kget rw:ours hits)"
check_eq "still armed" "armed" "$(kget rw:ours state)"
check "del releases the file" kctl "del rw:ours"
check "rewrite after del works" sh -c "cat $BB > $D/rw"
check_eq "and runs B" "$good_b" "$($D/rw)"

# A writer that is already there blocks arming: an open fd, a shared
# writable mapping kept across the attempt (its fd long closed).
cp $A $D/wr
exec 6>> $D/wr
check "open for writing: defining refused" sh -c "! printf 'add p:rw/w $BID $D/wr:$P\n' > $PC_SYSFS/control"
check_eq "reason" "path: $D/wr is open for writing (or mapped shared and writable); it cannot be probed until the writer is gone" \
	"$(kerr | sed 's/^line 1 col [0-9]*: //')"
exec 6>&-
$PCF/pc_harden map w $D/wr 30 > $D/mw.out &
mw=$!
wait_for 5 grep -q mapped $D/mw.out
check "MAP_SHARED writer: defining refused" sh -c "! printf 'add p:rw/w $BID $D/wr:$P\n' > $PC_SYSFS/control"
kill $mw
wait $mw 2> /dev/null
check "writer gone: armed" karm "add p:rw/w $BID $D/wr:$P"
check_eq "nothing was written meanwhile" "$good_a 1" "$($D/wr) $(kget rw:w hits)"

# Timestamps that move without a write (touch, chmod): writes have been
# denied since verification, so the content is the verified one.
sleep 1	# let the coarse file timestamps move
touch $D/wr
chmod 0700 $D/wr
check_eq "touched file runs A with its probe" "$good_a 2 armed" "$($D/wr) $(kget rw:w hits) $(kget rw:w state)"
check "del" kctl "del rw:w"
check "del lets writers in" sh -c "cat $BB > $D/wr"

# Defined with its event as the CLI defines it, nothing armed: writes are denied all the
# same, so the kernel's uprobe, registered when the event is enabled, finds the verified
# content (trace_uprobe reads nothing).
cp $A $D/df
check "define $D/df and its event" kdef "p:rw/df $BID $D/df:$P"
check "defined: rewrite ETXTBSY" sh -c "! cat $BB 2>/dev/null > $D/df"
check "defined: truncate ETXTBSY" sh -c "! true 2>/dev/null > $D/df"
check "defined: a shared writable mapping cannot be made" sh -c "! $PCF/pc_harden map w $D/df 0"
trace_on rw:df
check_eq "its event enabled: runs A, traced" "$good_a 1" "$($D/df) $(grep -c ' df: (0x' $TR/trace)"
trace_off
check "del: the event, then the definition" kundef rw:df
check "del lets writers in" sh -c "cat $BB > $D/df"

# The same steps through a plain uprobe_events event.
cp $A $D/rw2
check "tracefs: add uprobe" sh -c "echo 'p:pcrw/theirs $D/rw2:$P' >> $TR/uprobe_events"
check "tracefs: enable" sh -c "echo 1 > $TR/events/pcrw/theirs/enable"
check_eq "tracefs: A runs correctly while probed" "$good_a" "$($D/rw2)"
sleep 1
cat $BB > $D/rw2
check_eq "tracefs: the rewritten program prints a corrupted value" \
	"variant=b value=0x01cc0304" "$($D/rw2)"
echo 0 > $TR/events/pcrw/theirs/enable
echo '-:pcrw/theirs' >> $TR/uprobe_events

# A link count change (hard link) changes nothing either.
cp $A $D/lk
check "arm $D/lk" karm "add p:lk/a $BID $D/lk:$P"
ln $D/lk $D/lk2
check_eq "after a hard link: still armed, counted" "$good_a 1 armed" \
	"$($D/lk) $(kget lk:a hits) $(kget lk:a state)"
check "del" kctl "del lk:a"

# Rename-replace: the old inode stays probed, the new file is not.
cp $A $D/app
ln $D/app $D/app.old
check "arm $D/app" karm "add p:rn/app $BID $D/app:$P"
cp $BB $D/app.new
mv $D/app.new $D/app
check "upgrade replaced the inode" test "$(stat -c %i $D/app)" != "$(stat -c %i $D/app.old)"
check_eq "new file runs correctly" "$good_b" "$($D/app)"
check_eq "new file is not probed" "0" "$(kget rn:app hits)"
check_eq "old inode still runs correctly" "$good_a" "$($D/app.old)"
check_eq "old inode still probed" "1" "$(kget rn:app hits)"
check_eq "state armed" "armed" "$(kget rn:app state)"
check_eq "old inode still has a name" "0" "$(kget rn:app unlinked)"
rm $D/app.old
check_eq "its last name gone: unlinked" "1" "$(kget rn:app unlinked)"
check "status says the old inode is pinned" sh -c \
	"probecache-resolve status | grep '^rn:app .*file replaced or removed: the old inode stays in memory until disarm'"
check "clear" kclear
check "rmmod" pc_unload
tap_done
