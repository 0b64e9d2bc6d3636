#!/bin/sh
# probecache.ko: two writers defining and deleting probes as the CLI does (the module's
# add, then the kernel's uprobe event; the event, then the module's del) while a reader
# reads the probe listing.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
: "${PC_RACE_ROUNDS:?PC_RACE_ROUNDS comes from /pc/env}"

check "insmod" pc_load
# Two writers defining and deleting, one reader reading the listing (probecache_probes).
S=$PCF/pc_sdt
race() {
	for i in $(seq "$PC_RACE_ROUNDS"); do
		kdef "p:race/$1$i $pc_sdt_BUILD_ID $S:$pc_sdt_OFF_pc_add a=%di" || echo "add $1$i failed"
		kundef "race:$1$i" || echo "del $1$i failed"
	done
}
race a > /tmp/race.a &
ra=$!
race b > /tmp/race.b &
rb=$!
# (reads as long as either writer runs; a read never fails: no file vanishes under it)
(n=0
while kill -0 $ra 2> /dev/null || kill -0 $rb 2> /dev/null; do
	cat $PC_LIST > /dev/null || echo "read $n failed"
	n=$((n + 1))
done
echo "reads: $n") > /tmp/race.r 2>&1 &
rr=$!
wait $ra $rb $rr
check_eq "racing writers: every line applied" "" "$(cat /tmp/race.a /tmp/race.b)"
check_eq "the reader's every read of the listing succeeded" "" "$(grep -v '^reads: ' /tmp/race.r)"
check "  and it read while they wrote" grep -q '^reads: [1-9]' /tmp/race.r
check_eq "racing writers: nothing left" "0" "$(cat $PC_SYSFS/nr_probes)"
check_eq "  no event left" "" "$(grep ':race/' $TR/uprobe_events)"

check "rmmod" pc_unload
tap_done
