#!/bin/sh
# A probe's other sites (issue 27, kernel half): `site GROUP:EVENT PATH` adds another
# inode with the probe's build-id. Copies at another path, deleted while their process
# runs (named through /proc/PID/map_files), in a private mount namespace (through
# /proc/PID/root) and one nobody maps all feed the probe's counter (exact counts per
# site) and each its own event GROUP/EVENT_copyN, as the CLI's follower defines them
# (ksite; a multi-probe uprobe event cannot gain or lose a file while in use):
# ftrace and perf stat -a over 'GROUP:EVENT*' see every copy; a copy whose build-id
# differs in one bit is refused and said; no breakpoint in any copy while nobody
# listens; writes denied on every copy and allowed again after; del releases every
# site.
# Before `site` existed (main at 38434af) the module rejected the verb, and a copy's
# hits never reached the probe: perf stat -a and ftrace counted only $S's.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
PEEK=$PCF/pc_peek
SITES=/proc/probecache_sites
D=/tmp/sites
OFF=$pc_sdt_OFF_pc_add
mkdir -p $D /tmp/nsmnt
cp $S $D/copy
cp $S $D/gone
cp $S $D/idle
cp $S $D/bad
ln $D/copy $D/copy.link
# One bit of the build-id's last byte flipped: same code, another build.
last=$((0x$(echo "$B" | tail -c 3) ^ 1))
printf "\\$(printf %o $last)" |
	dd of=$D/bad bs=1 seek=$((pc_sdt_NOTE_build_id + 16 + ${#B} / 2 - 1)) conv=notrunc 2> /dev/null
orig=0x$(od -A n -t x1 -j $((OFF)) -N 1 $S | tr -d ' ')

# site_field GROUP:EVENT PATH FIELD: FIELD of that site's line
site_field() {
	awk -v n="$1" -v p="path=$2" -v k="$3=" '$1 == n && $NF == p {
		for (i = 2; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' $SITES
}

# tick NAME N: NAME ticks N times; waits for its line
tick() {
	_w=$(($(wc -l < /tmp/$1.out) + 1))
	eval "echo $2 >&\$${1}_fd"
	wait_for 20 lines_ge /tmp/$1.out $_w
}

check "insmod" pc_load
check "define add" kdef "p:pcfix/add $B $S:$OFF a=%di:s32"
check "define tick (SDT + semaphore)" kdef "p:pcfix/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick)"

pc_watch cp $D/copy hitwatch
exec 3> /tmp/cp.in
cp_fd=3
pc_watch gn $D/gone hitwatch
exec 4> /tmp/gn.in
gn_fd=4
pc_watch ns unshare -m sh -c "mount -t tmpfs none /tmp/nsmnt && cp $S /tmp/nsmnt/pc_sdt && exec /tmp/nsmnt/pc_sdt hitwatch"
exec 5> /tmp/ns.in
ns_fd=5
tick cp 0
tick gn 0
tick ns 0
rm $D/gone
GONE=/proc/$gn/map_files/$(awk '$6 == "'$D/gone'" { print $1; exit }' /proc/$gn/maps)
NSP=/proc/$ns/root/tmp/nsmnt/pc_sdt
check "the namespace's copy is not visible outside it" test ! -e /tmp/nsmnt/pc_sdt
check "the deleted copy is reachable through map_files" test -f "$GONE"

check "site: a copy at another path, its event add_copy1" ksite pcfix:add $D/copy
check "site: a deleted copy through map_files, add_copy2" ksite pcfix:add $GONE
check "site: a copy nobody maps, add_copy3" ksite pcfix:add $D/idle
check "site: one bit of the build-id differs: refused" kfail "site pcfix:add $D/bad"
check "... and said" grep -q "build-id" $PC_SYSFS/last_error
check_eq "... not listed" "" "$(site_field pcfix:add $D/bad site)"
check "site: the probe's own file again: refused" kfail "site pcfix:add $S"
check "site: the copy again through a hard link: refused" kfail "site pcfix:add $D/copy.link"
check "... last_error names the site it already is" grep -q "already a site of pcfix:add (as $D/copy)" $PC_SYSFS/last_error
check "site: unknown probe" kfail "site pcfix:nope $D/copy"
check "site: a relative path is a syntax error" kfail "site pcfix:add tmp/copy"
check "site: trailing junk" kfail "site pcfix:add $D/copy x"
tick_sites() {
	ksite pcfix:tick $D/copy && ksite pcfix:tick $GONE && ksite pcfix:tick $NSP
}
check "site of tick (SDT, semaphore) in every copy, with their events" tick_sites
check_eq "pcfix:add has 4 sites, the probe's own first" "$S $D/copy $GONE $D/idle" \
	"$(awk '$1 == "pcfix:add" { sub("path=", "", $NF); printf "%s%s", s, $NF; s = " " }' $SITES)"
check_eq "the deleted copy is listed unlinked" "1" "$(site_field pcfix:add $GONE unlinked)"
check_eq "defined: every site defined" "defined defined defined defined" \
	"$(awk '$1 == "pcfix:add" { sub("state=", "", $3); printf "%s%s", s, $3; s = " " }' $SITES)"

# Nobody listens: no breakpoint anywhere, semaphores 0.
check_eq "defined: original byte in the copy's process" "$orig" "$($PEEK $cp $D/copy $OFF)"
check_eq "defined: original byte in the deleted copy's process" "$orig" "$($PEEK $gn $GONE $OFF)"
check "defined: the idle copy cannot be opened for writing (ETXTBSY)" sh -c "! sh -c ': >> $D/idle' 2> /dev/null"

# Counting arms every site.
check "count pcfix:add" kctl "count pcfix:add"
check "site added while armed: the namespace's copy, add_copy4" ksite pcfix:add $NSP
check_eq "armed: every site armed" "armed armed armed armed armed" \
	"$(awk '$1 == "pcfix:add" { sub("state=", "", $3); printf "%s%s", s, $3; s = " " }' $SITES)"
check_eq "armed: int3 in the copy's process" "0xcc" "$($PEEK $cp $D/copy $OFF)"
check_eq "armed: int3 in the deleted copy's process" "0xcc" "$($PEEK $gn $GONE $OFF)"
check_eq "armed: int3 in the namespace's process" "0xcc" "$($PEEK $ns $NSP $OFF)"
check "armed: the idle copy cannot be opened for writing (ETXTBSY)" sh -c "! sh -c ': >> $D/idle' 2> /dev/null"
tick cp 10
tick gn 20
tick ns 30
$S loop 40 > /dev/null
check_eq "hits per site: 40 10 20 0 30" "40 10 20 0 30" \
	"$(awk '$1 == "pcfix:add" { sub("hits=", "", $4); printf "%s%s", s, $4; s = " " }' $SITES)"
check_eq "the probe's hits are every copy's: 100" "100" "$(kget pcfix:add hits)"
check "nocount" kctl "nocount pcfix:add"
check_eq "disarmed: original byte in the copy's process" "$orig" "$($PEEK $cp $D/copy $OFF)"
check_eq "disarmed: original byte in the namespace's process" "$orig" "$($PEEK $ns $NSP $OFF)"
check "disarmed: the idle copy still cannot be opened for writing" sh -c "! sh -c ': >> $D/idle' 2> /dev/null"

# The events: ftrace and perf stat -a on the group see every copy, each its own event.
check_eq "the copies' events, on the copies' inodes" \
	"add add_copy1 add_copy2 add_copy3 add_copy4 tick tick_copy1 tick_copy2 tick_copy3" \
	"$(ls -d $TR/events/pcfix/*/ | sed 's|/$||; s|.*/||' | sort | tr '\n' ' ' | sed 's/ $//')"
echo > $TR/trace
echo 1 > $TR/events/pcfix/enable
tick cp 3
tick gn 4
tick ns 5
echo 0 > $TR/events/pcfix/enable
check_eq "ftrace: the copy's 3 hits, as add_copy1" "3" "$(grep -c -- "-$cp .* add_copy1: (" $TR/trace; :)"
check_eq "ftrace: the deleted copy's 4, as add_copy2" "4" "$(grep -c -- "-$gn .* add_copy2: (" $TR/trace; :)"
check_eq "ftrace: the namespace's 5, as add_copy4" "5" "$(grep -c -- "-$ns .* add_copy4: (" $TR/trace; :)"
check_eq "ftrace: the SDT probe too, with its semaphore raised in each copy" "hits 5 sem=1" "$(tail -n 1 /tmp/ns.out)"
want=$(($(cat /tmp/cp.out /tmp/gn.out /tmp/ns.out | wc -l) + 3))
perf stat -a -x, -e 'pcfix:add*' -o /tmp/stat -- sh -c \
	"echo 6 >&3; echo 7 >&4; echo 8 >&5; $S loop 9 > /dev/null
	 until [ \$(cat /tmp/cp.out /tmp/gn.out /tmp/ns.out | wc -l) -ge $want ]; do sleep 0.1; done"
check_eq "perf stat -a -e 'pcfix:add*': every copy's hits (6+7+8+9)" "30" "$(awk -F, '/pcfix:add/ { s += $1 } END { print s }' /tmp/stat)"
check_eq "after perf: semaphore 0 in the namespace's copy" "0x0000" "$($PEEK $ns $NSP $pc_sdt_SEM_tick 2)"

# A deleted copy's site goes once nothing maps it: nothing can open it for writing
# again (its event, which the CLI's follower removes with it, holds the inode). A copy
# with a name, even one only a mount namespace that is gone now saw, stays a site and
# write-denied until del: the kernel's event on it may outlive every process mapping
# it. Hits stay the probe's. (Before pruning, 0c63295, both stayed listed until del;
# until the kernel's events, 707960b, the namespace's went too.)
site_gone() {
	[ -z "$(site_field pcfix:add "$1" site)" ]
}
hits=$(kget pcfix:add hits)
exec 4>&- 5>&-
wait $gn $ns
check "the deleted copy's process exited: its site goes" wait_for 10 site_gone $GONE
check_eq "  the copies with a name stay, the namespace's too" "$S $D/copy $D/idle $NSP" \
	"$(awk '$1 == "pcfix:add" { sub("path=", "", $NF); printf "%s%s", s, $NF; s = " " }' $SITES)"
check_eq "  the probe keeps their hits" "$hits" "$(kget pcfix:add hits)"
check "del pcfix:add: its copies' events, its event, its definition" kundef pcfix:add
check_eq "its sites are gone" "" "$(site_field pcfix:add $D/copy site)"
check_eq "  and its events" "" "$(ls -d $TR/events/pcfix/add* 2> /dev/null)"
check "clear" kclear
check_eq "sites listing empty" "" "$(cat $SITES)"
check_eq "nothing armed" "0" "$(cat $PC_SYSFS/nr_armed)"
exec 3>&-
wait
check "rmmod" pc_unload
check "the idle copy is writable after rmmod" sh -c ": >> $D/idle"
tap_done
