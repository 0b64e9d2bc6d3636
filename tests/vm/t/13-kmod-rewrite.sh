#!/bin/sh
# probecache.ko: build-id mismatch, rewrite in place (ours: refused, stale;
# tracefs uprobe_events: the rewritten program is silently corrupted) and
# rename-replace (the package-upgrade case).
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_rewrite
kenv pc_rewrite_b
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

# Rewrite in place under probecache.
cp $A /tmp/rw
ino=$(stat -c %i /tmp/rw)
check "arm on a copy of A" kctl "add p:rw/ours $BID /tmp/rw:$P"
check_eq "A runs correctly while probed" "$good_a" "$(/tmp/rw)"
check_eq "and the probe hit once" "1" "$(kget rw:ours hits)"
sleep 1	# let the coarse file timestamps move
cat $BB > /tmp/rw
check_eq "overwritten in place (same inode)" "$ino" "$(stat -c %i /tmp/rw)"
out=$(/tmp/rw)
rc=$?
check_eq "rewritten program exits 0 with correct output" "$good_b rc=0" "$out rc=$rc"
wait_for 5 sh -c "[ \"\$(cat $PCP/rw:ours/state)\" = stale ]"
check_eq "probe reads stale" "stale" "$(kget rw:ours state)"
check_eq "no hit from the rewritten content" "1" "$(kget rw:ours hits)"
check "kernel log says why" wait_for 5 sh -c "dmesg | grep -q 'rw:ours: /tmp/rw (offset $P) changed since verification'"
check_eq "runs correctly again (stale probe stays off)" "$good_b" "$(/tmp/rw)"
check "del stale probe" kctl "del rw:ours"

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

# Rename-replace: the old inode stays probed, the new file is not.
cp $A /tmp/app
ln /tmp/app /tmp/app.old
check "arm /tmp/app" kctl "add p:rn/app $BID /tmp/app:$P"
cp $BB /tmp/app.new
mv /tmp/app.new /tmp/app
check "upgrade replaced the inode" test "$(stat -c %i /tmp/app)" != "$(stat -c %i /tmp/app.old)"
check_eq "new file runs correctly" "$good_b" "$(/tmp/app)"
check_eq "new file is not probed" "0" "$(kget rn:app hits)"
check_eq "old inode still runs correctly" "$good_a" "$(/tmp/app.old)"
check_eq "old inode still probed" "1" "$(kget rn:app hits)"
check_eq "state armed" "armed" "$(kget rn:app state)"
check "clear" kctl clear
check "rmmod" pc_unload
tap_done
