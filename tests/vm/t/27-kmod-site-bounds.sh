#!/bin/sh
# Copies run by anyone (issue 42), the module's half: a probe's sites are bounded per
# owner (max_sites_per_owner of its 64 for the files of one uid other than root), so one
# user's copies leave room for every other owner's, and all owners but root together
# hold at most 48, so several users' copies leave room for root's; "unsite" drops a site no
# process maps, whatever names it, and refuses one a process runs; a copy whose
# .note.stapsdt claims 16 MiB (a hole) costs the kernel nothing once verified; a site on
# a filesystem whose server can stall reads (a FUSE server of the harness's,
# pc_fusefs) is refused before any read unless follow_remote=1; and a verification that
# stalls (that server, or the debug kernel's test hook where it has no FUSE) holds up
# neither tracing nor other writers of control.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
PARAM=/sys/module/probecache/parameters
P=pcs:tick
# an SDT record (it has the semaphore): every site is proven against its own note
REC="add p:pcs/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick)"

# refused LINE ERRNO TEXT: control refuses LINE with ERRNO and last_error has TEXT
refused() {
	printf '%s\n' "$1" | $PCF/pc_write $PC_SYSFS/control 2> /tmp/werr && return 1
	grep -q "$2" /tmp/werr || { echo "errno: $(cat /tmp/werr)" >&2; return 1; }
	kerr | grep -qF "$3" || { echo "last_error: $(kerr)" >&2; return 1; }
}

# devino PATH: "MAJ:MIN INO" of $P's site listed with PATH
devino() {
	awk -v n=$P -v p="path=$1" '$1 == n && $NF == p {
		for (i = 2; i < NF; i++) {
			if (index($i, "dev=") == 1) d = substr($i, 5)
			if (index($i, "ino=") == 1) ino = substr($i, 5)
		}
		print d, ino }' /proc/probecache_sites
}

# field PATH KEY: KEY= of $P's site listed with PATH
field() {
	awk -v n=$P -v p="path=$1" -v k="$2=" '$1 == n && $NF == p {
		for (i = 2; i < NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' \
		/proc/probecache_sites
}

nsites() {
	awk -v n=$P '$1 == n' /proc/probecache_sites | wc -l
}

mkdir -p /tmp/u /tmp/v /tmp/r
for i in $(seq 1 17); do
	cp $S /tmp/u/c$i
	chown 1000 /tmp/u/c$i
done
cp $S /tmp/v/c1 && chown 1001 /tmp/v/c1
cp $S /tmp/r/c1

check "insmod" pc_load
check "define $P" kctl "$REC"
check_eq "max_sites_per_owner is 16 by default" 16 "$(cat $PARAM/max_sites_per_owner)"
n=0
for i in $(seq 1 16); do
	kctl "site $P /tmp/u/c$i" && n=$((n + 1))
done
check_eq "16 copies owned by uid 1000 become sites" 16 "$n"
check "the 17th is refused: EDQUOT, naming the owner and the parameter" refused \
	"site $P /tmp/u/c17" EDQUOT "has 16 sites in files of uid 1000, the most one owner may have (max_sites_per_owner)"
check "  and is no site" test -z "$(devino /tmp/u/c17)"
check "a copy owned by uid 1001 is still a site" kctl "site $P /tmp/v/c1"
check "so is root's" kctl "site $P /tmp/r/c1"
check_eq "the listing: a site's owner (uid=) and whether a process maps it (mapped=)" "1000 0 0 0" \
	"$(field /tmp/u/c1 uid) $(field /tmp/u/c1 mapped) $(field /tmp/r/c1 uid) $(field /tmp/r/c1 mapped)"

# unsite: only what no process maps
mkfifo /tmp/fw
/tmp/u/c2 hitwatch < /tmp/fw > /tmp/hw.out &
hw=$!
exec 7> /tmp/fw
echo 1 >&7
wait_for 10 grep -q '^hits 1' /tmp/hw.out
check_eq "a copy a process runs is listed mapped=1" 1 "$(field /tmp/u/c2 mapped)"
check "unsite of it: EBUSY, it stays" refused "unsite $P $(devino /tmp/u/c2)" EBUSY "is mapped by a process: it stays a site"
check "  still a site" test -n "$(devino /tmp/u/c2)"
check "a site no process maps: writes denied" sh -c "! sh -c ': >> /tmp/u/c1' 2> /dev/null"
check "unsite of it" kctl "unsite $P $(devino /tmp/u/c1)"
check "  it is no site any more" test -z "$(devino /tmp/u/c1)"
check "  and writable again" sh -c ': >> /tmp/u/c1'
check "  which leaves room for uid 1000's 17th copy" kctl "site $P /tmp/u/c17"
check "unsite of the probe's own file: EINVAL" refused "unsite $P $(devino $S)" EINVAL "own file: del deletes the probe"
check "unsite of no site: ENOENT" refused "unsite $P 0:1 1" ENOENT "has no site 0:1 1"
check "unsite of no probe: ENOENT" refused "unsite pcs:nope 0:1 1" ENOENT "pcs:nope"
check "unsite with junk: EINVAL at its column" refused "unsite $P 8:1x 1" EINVAL "col 20: dev: trailing characters"
exec 7>&-
wait $hw
check "once its process exited, the running copy can go too" kctl "unsite $P $(devino /tmp/u/c2)"
echo 1 > $PARAM/max_sites_per_owner
check "the bound is a parameter: at 1, uid 1001 (1 site) has its next copy refused" sh -c "cp $S /tmp/v/c2 && chown 1001 /tmp/v/c2 && \
	printf 'site $P /tmp/v/c2\n' | $PCF/pc_write $PC_SYSFS/control 2>&1 | grep -q EDQUOT"

# Several owners together (here one, its own bound raised): files of owners other than
# root hold at most 48 of the 64, the other 16 stay root's.
echo 64 > $PARAM/max_sites_per_owner
for i in $(seq 18 50); do
	cp $S /tmp/u/c$i && chown 1000 /tmp/u/c$i
done
for i in 1 2 $(seq 18 49); do
	kctl "site $P /tmp/u/c$i" 2> /dev/null || break
done
users() { awk -v n=$P '$1 == n && $2 != "site=0" && !/ uid=0 /' /proc/probecache_sites | wc -l; }
check_eq "max_sites_per_owner 64: files of owners other than root hold 48 sites" 48 "$(users)"
check "  the next is refused: EDQUOT, the other 16 being root's" refused "site $P /tmp/u/c50" EDQUOT \
	"has 48 sites in files of owners other than root, the most they may have (the other 16 are root's)"
cp $S /tmp/r/c3
check "  root's copy is a site all the same" kctl "site $P /tmp/r/c3"
for i in 1 2 $(seq 18 49); do
	[ -z "$(devino /tmp/u/c$i)" ] || kctl "unsite $P $(devino /tmp/u/c$i)"
done
kctl "unsite $P $(devino /tmp/r/c3)"
check_eq "  unsite of those leaves 16 again" 16 "$(users)"
echo 16 > $PARAM/max_sites_per_owner

# A copy whose note claims 16 MiB: read to verify, then nothing of it is kept.
check "a copy with a 16 MiB sparse .note.stapsdt" $PCF/pc_sparsenote $S /tmp/r/sparse 16777216
check_eq "  it costs its maker no disk" "small" \
	"$([ "$(du -k /tmp/r/sparse | cut -f1)" -lt 4096 ] && echo small || du -k /tmp/r/sparse)"
kmem_kb() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	awk '/^Slab:/ { s = $2 } /^VmallocUsed:/ { v = $2 } END { print s + v }' /proc/meminfo
}
m0=$(kmem_kb)
check "  becomes a site (its notes prove the probe)" kctl "site $P /tmp/r/sparse"
m1=$(kmem_kb)
diag "kernel memory (Slab + VmallocUsed) across the site's verification: $m0 kB -> $m1 kB"
check "  kernel memory (Slab + VmallocUsed) grew by less than 1 MiB, not the note's 16" \
	test $((m1 - m0)) -lt 1024

# A site on FUSE, whose server can stall reads: refused before anything is read (the
# server stalls every read meanwhile), unless follow_remote=1.
fuse=
if pc_fuse /mnt/fz $S /tmp/stall; then
	fuse=1
	: > /tmp/stall
	check_eq "follow_remote is off by default" N "$(cat $PARAM/follow_remote)"
	check "a copy on FUSE while its server stalls: EREMOTE at once, naming it and the parameter" \
		refused "site $P /mnt/fz/c1" EREMOTE "is on fuse, whose server can stall reads: not a site unless follow_remote=1"
	echo 1 > $PARAM/follow_remote
else
	diag "no FUSE in this kernel: the stall below is the test hook's (test_verify_delay_ms)"
fi

# A verification that stalls holds no lock that tracing or other writers need: while a
# site's verification waits (on the stalled FUSE server, or 8 s in the test hook), the
# probe is counted and hit, another probe is defined, a uprobe event is traced.
if [ -n "$fuse" ] || [ -w $PARAM/test_verify_delay_ms ]; then
	if [ -n "$fuse" ]; then
		site=/mnt/fz/c1
	else
		site=/tmp/r/c2
		cp $S $site
		echo 8000 > $PARAM/test_verify_delay_ms
	fi
	printf 'site %s %s\n' $P $site | $PCF/pc_write $PC_SYSFS/control > /tmp/stalled.out 2>&1 &
	stalled=$!
	sleep 1
	[ -n "$fuse" ] || echo 0 > $PARAM/test_verify_delay_ms
	t0=$(awk '{ printf "%d", $1 * 100 }' /proc/uptime)
	check "  meanwhile: $P counted" kctl "count $P"
	check "  meanwhile: another probe defined" kctl "add p:pcs/other $B $S:$pc_sdt_OFF_pc_add"
	check "  meanwhile: a uprobe event defined and traced" kue "p:pcsu/add $S:$pc_sdt_OFF_pc_add"
	echo 1 > $TR/events/pcsu/add/enable
	$S loop 3 > /dev/null
	echo 0 > $TR/events/pcsu/add/enable
	t1=$(awk '{ printf "%d", $1 * 100 }' /proc/uptime)
	check_eq "  the hits counted" 3 "$(pc_hits $P)"
	check "  the verification still waits" kill -0 $stalled
	diag "while one verification stalled, the rest took $(((t1 - t0) * 10)) ms"
	check "  all of it within 5 s (scaled)" test $((t1 - t0)) -lt $(($(pc_scaled 5) * 100))
	kue "-:pcsu/add"
	kctl "nocount $P" "del pcs:other"
	[ -z "$fuse" ] || rm /tmp/stall
	wait $stalled
	check_eq "once it goes on, the site is added" 0 "$?"
	check "  listed" test -n "$(devino $site)"
	kctl "unsite $P $(devino $site)"
fi
if [ -n "$fuse" ]; then
	echo 0 > $PARAM/follow_remote
	check "the probe's own file may be on FUSE: a definition there" \
		kctl "add p:pcs/onfuse $B /mnt/fz/c1:$pc_sdt_SDT_tick($pc_sdt_SEM_tick)" "del pcs:onfuse"
	umount /mnt/fz
fi

check "del $P" kctl "del $P"
check "every copy writable again" sh -c ': >> /tmp/u/c3 && : >> /tmp/r/c1 && : >> /tmp/r/sparse'
check "rmmod" pc_unload
tap_done
