#!/bin/sh
# probecache-resolve status --format=openmetrics on the real module: a counted probe hit
# in its own file and in three copies the scan followed (another path, a deleted one, one
# in a private mount namespace), and the kernel's own uprobe_profile with two ordinary
# uprobe_events probes named like ours (one in our file, one in a file of no probe of
# ours). Bookworm's promtool (run.sh's tool disk, tests/vm/promimage.sh) checks the
# output; the exact samples are checked here: the module's counts per probe and per
# file, sites by kind, the kernel's EVENT-only rows joined to our probe by its file.
# Then the follower's counters (issue 44): `follow` runs while a fourth copy starts,
# publishes them in $PROBECACHE_RUN/follower.stats, and status exports them (up 1 while
# it runs, its sites added exact; up 0 and its last counts once it stopped; a file it
# cannot use said and left out), each output through promtool.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
export PROBECACHE_DIR=/tmp/pc65
export PROBECACHE_RUN=/tmp/run65	# follow's counters: not what 38's follower left in /run
FS=$PROBECACHE_RUN/follower.stats
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
D=/tmp/m65
P=sdt_pcfix:tick
L="event=\"$P\",build_id=\"$B\""
mkdir -p $D /tmp/nsmnt65
cp $S $D/copy
cp $S $D/gone
cp $S $D/other

# ticks N1 N2 N3: the copies tick N1..N3 times (fds 3-5) and each answers with a line
ticks() {
	_w=$(($(cat /tmp/m65cp.out /tmp/m65gn.out /tmp/m65ns.out | wc -l) + 3))
	echo "$1" >&3
	echo "$2" >&4
	echo "$3" >&5
	wait_for "$(pc_scaled 20)" sh -c "[ \$(cat /tmp/m65cp.out /tmp/m65gn.out /tmp/m65ns.out | wc -l) -ge $_w ]"
}

pc_watch m65cp $D/copy hitwatch
exec 3> /tmp/m65cp.in
pc_watch m65gn $D/gone hitwatch
exec 4> /tmp/m65gn.in
pc_watch m65ns unshare -m sh -c "mount -t tmpfs none /tmp/nsmnt65 && cp $S /tmp/nsmnt65/pc_sdt && exec /tmp/nsmnt65/pc_sdt hitwatch"
exec 5> /tmp/m65ns.in
check "three copies running" ticks 0 0 0
rm $D/gone

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }
check "scan defines the fixture's probes, following them to the copies" \
	sh -c "probecache-resolve scan $S > /tmp/scan65.out"
check "arm $P: the module counts it" probecache-resolve arm -q $P
$S loop 5 > /dev/null
check "the copies tick 3, 4 and 5 times" ticks 3 4 5

# The kernel's own counts: uprobe_profile names the event without its group. pc65/tick is
# in our probe's file (on pc_add, which every tick calls): ours by its EVENT and file;
# pc65o/tick in $D/other, a file no probe of ours is in: not ours.
UE=$TR/uprobe_events
check "uprobe_events: pc65/tick in $S, pc65o/tick in $D/other" sh -c \
	"echo 'p:pc65/tick $S:$pc_sdt_OFF_pc_add' >> $UE && echo 'p:pc65o/tick $D/other:$pc_sdt_OFF_pc_add' >> $UE &&
	 echo 1 > $TR/events/pc65/tick/enable && echo 1 > $TR/events/pc65o/tick/enable"
$S loop 2 > /dev/null
$D/other loop 1 > /dev/null
echo 0 > $TR/events/pc65/tick/enable
echo 0 > $TR/events/pc65o/tick/enable
diag "uprobe_profile: $(tr -s ' ' < $TR/uprobe_profile | tr '\n' ';')"

probecache-resolve status --format=openmetrics > /tmp/m65.prom 2> /tmp/m65.err
check_eq "status --format=openmetrics: exit 0, nothing on stderr" "0 " "$? $(cat /tmp/m65.err)"
grep -v '^#' /tmp/m65.prom | sed 's/^/#   /'
if why=$(pc_promtool_ok); then
	check "promtool check metrics passes" sh -c "$PC_PROMTOOL check metrics < /tmp/m65.prom 2>&1"
else
	pc_missing "bookworm's promtool: $why"
fi
check_eq "no series repeated, # EOF last" "# EOF" \
	"$(grep -v '^#' /tmp/m65.prom | sed 's/ [0-9]*$//' | sort | uniq -d)$(tail -n 1 /tmp/m65.prom)"
has() { check "$1" grep -qxF -- "$2" /tmp/m65.prom; }
has "the module loaded" "probecache_module_loaded 1"
has "$P armed, counting" "probecache_probe_state{$L,path=\"$S\",state=\"armed\"} 1"
has "the module's hits: 7 in its file, 3 + 4 + 5 in the copies" \
	"probecache_probe_hits_total{$L,path=\"$S\"} 19"
has "  its own file's" "probecache_site_hits_total{$L,path=\"$S\",site=\"own\"} 7"
has "  the copy at another path" "probecache_site_hits_total{$L,path=\"$D/copy\",site=\"copy\"} 3"
has "  the deleted copy (map_files: no path, no pid)" \
	"probecache_site_hits_total{$L,path=\"\",site=\"deleted\"} 4"
has "  the copy in another mount namespace (map_files)" \
	"probecache_site_hits_total{$L,path=\"\",site=\"container\"} 5"
has "sites by kind: the copy at another path, armed" "probecache_sites{$L,site=\"copy\",state=\"armed\"} 1"
has "the kernel's own count, EVENT-only rows joined by file: pc65/tick's 2" \
	"probecache_uprobe_hits_total{$L} 2"
has "  by file" "probecache_uprobe_file_hits_total{$L,path=\"$S\"} 2"
check_eq "  not pc65o/tick, in a file no probe of ours is in" "" "$(grep -F "$D/other" /tmp/m65.prom)"
check_eq "no pid in any label" "" "$(grep -v '^#' /tmp/m65.prom | grep '/proc/')"
check_eq "no follower has run: probecache_follower_up 0, no other follower sample" \
	"probecache_follower_up 0" "$(grep '^probecache_follower_' /tmp/m65.prom)"

# ---- the follower's counters ----
# fs_has KEY OP N: the follower's file says KEY OP N (awk's comparison)
fs_has() { awk -v k="$1" -v n="$3" "\$1 == k && \$2 + 0 $2 n + 0 { ok = 1 } END { exit !ok }" $FS 2> /dev/null; }
n=$(grep -c '^sdt_pcfix:' /proc/probecache_probes)
t0=$(date +%s)
probecache-resolve follow > /tmp/follow65.out 2> /tmp/follow65.err &
fp=$!
check "follow starts watching" wait_for "$(pc_scaled 30)" grep -q '^follow: watching' /tmp/follow65.out
check_eq "  it published its counters at start: its pid, mode 0644" "pid $fp 644" \
	"$(grep '^pid ' $FS 2>&1) $(stat -c %a $FS 2>&1)"
check "  and its start time ($t0 or a little after)" fs_has start_time '>=' "$t0"
cp $S $D/later
pc_watch m65la $D/later hitwatch
exec 6> /tmp/m65la.in
check "a copy started later: follow makes it a site of $P" wait_for "$(pc_scaled 10)" \
	grep -q "^$P site=[0-9]* .* path=$D/later\$" /proc/probecache_sites
check "  its file counts it within about a second: $n sites added (one per probe of the fixture)" \
	wait_for "$(pc_scaled 5)" fs_has added == "$n"
echo 6 >&6
check "the later copy ticks 6 times" wait_for "$(pc_scaled 20)" lines_ge /tmp/m65la.out 1
probecache-resolve status --format=openmetrics > /tmp/m65f.prom 2> /tmp/m65f.err
check_eq "status while follow runs: exit 0, nothing on stderr" "0 " "$? $(cat /tmp/m65f.err)"
grep '^probecache_follower_' /tmp/m65f.prom | sed 's/^/#   /'
if why=$(pc_promtool_ok); then
	check "  promtool check metrics passes" sh -c "$PC_PROMTOOL check metrics < /tmp/m65f.prom 2>&1"
else
	pc_missing "bookworm's promtool: $why"
fi
check_eq "  no series repeated, # EOF last" "# EOF" \
	"$(grep -v '^#' /tmp/m65f.prom | sed 's/ [0-9.e+-]*$//' | sort | uniq -d)$(tail -n 1 /tmp/m65f.prom)"
has() { check "$1" grep -qxF -- "$2" /tmp/m65f.prom; }
has "  probecache_follower_up 1: its pid lives and is a follower" "probecache_follower_up 1"
has "  the $n sites it added" "probecache_follower_sites_added_total $n"
has "  none refused" "probecache_follower_sites_refused_total 0"
check "  at least one sweep of every process (at its start), mappings seen" awk '
	$1 == "probecache_follower_full_sweeps_total" && $2 + 0 >= 1 { f = 1 }
	$1 == "probecache_follower_sweeps_total" && $2 + 0 >= 1 { s = 1 }
	$1 == "probecache_follower_mappings_total" && $2 + 0 >= 1 { m = 1 }
	END { exit !(f && s && m) }' /tmp/m65f.prom
check "  its start time and the last sweep's seconds" awk -v t="$t0" '
	$1 == "probecache_follower_start_time_seconds" && $2 + 0 >= t + 0 { st = 1 }
	$1 == "probecache_follower_last_sweep_seconds" && $2 ~ /^[0-9.e+-]+$/ && $2 + 0 >= 0 { ls = 1 }
	END { exit !(st && ls) }' /tmp/m65f.prom
check_eq "  the counter families, typed counter" "7" \
	"$(grep -c '^# TYPE probecache_follower_[a-z_]*_total counter$' /tmp/m65f.prom)"
has "the module counts the later copy's 6 hits, by file" \
	"probecache_site_hits_total{$L,path=\"$D/later\",site=\"copy\"} 6"
kill -TERM $fp
wait $fp
check_eq "follow: SIGTERM ends it, exit 0, nothing on stderr" "0 " "$? $(cat /tmp/follow65.err)"
sed 's/^/# follow: /' /tmp/follow65.out
counts=$(awk '/^follow: [0-9]/ { print $2, $4, $8, substr($10, 2), $14, $17, $19 }' /tmp/follow65.out)
check_eq "  its file holds the counts it printed at its exit (${counts:-none})" "${counts:-none}" \
	"$(awk '{ v[$1] = $2 } END { print v["mappings"], v["queued"], v["sweeps"], v["full"], v["added"], v["refused"], v["lost"] }' $FS)"
probecache-resolve status --format=openmetrics > /tmp/m65f.prom 2> /tmp/m65f.err
check_eq "status once it stopped: exit 0, up 0 (stale), its $n sites added kept" \
	"0 probecache_follower_up 0 probecache_follower_sites_added_total $n" \
	"$? $(grep '^probecache_follower_up ' /tmp/m65f.prom) $(grep '^probecache_follower_sites_added_total ' /tmp/m65f.prom)$(cat /tmp/m65f.err)"
if why=$(pc_promtool_ok); then
	check "  promtool check metrics passes" sh -c "$PC_PROMTOOL check metrics < /tmp/m65f.prom 2>&1"
fi
echo 'sweeps x' >> $FS
bad=$(wc -l < $FS)
first=$(grep -n '^sweeps ' $FS | head -n 1 | cut -d: -f1)
probecache-resolve status --format=openmetrics > /tmp/m65f.prom 2> /tmp/m65f.err
check_eq "a follower's file it cannot use: exit 0, said with its line and why" \
	"0 probecache-resolve: warning: status: $FS:$bad: 'sweeps' again (first at line $first); the follower's counters left out" \
	"$? $(cat /tmp/m65f.err)"
check_eq "  no follower sample, the probes' kept" "0 probecache_module_loaded 1" \
	"$(grep -c '^probecache_follower_' /tmp/m65f.prom) $(grep '^probecache_module_loaded' /tmp/m65f.prom)"
if why=$(pc_promtool_ok); then
	check "  promtool check metrics passes" sh -c "$PC_PROMTOOL check metrics < /tmp/m65f.prom 2>&1"
fi

echo '-:pc65/tick' >> $UE
echo '-:pc65o/tick' >> $UE
check "disarm every probe of the fixture" probecache-resolve disarm -q 'sdt_pcfix:*'
exec 3>&- 4>&- 5>&- 6>&-
wait
check "rmmod" pc_unload
probecache-resolve status --format=openmetrics > /tmp/m65.prom 2> /tmp/m65.err
check_eq "without the module: exit 0, it says so" "0 probecache_module_loaded 0" \
	"$? $(grep '^probecache_module_loaded' /tmp/m65.prom)"
if why=$(pc_promtool_ok); then
	check "  promtool check metrics passes" sh -c "$PC_PROMTOOL check metrics < /tmp/m65.prom 2>&1"
fi
tap_done
