#!/bin/sh
# probecache.ko: 10 000 probes in one batch; racing control writers and
# probe-file readers; rmmod under a multi-threaded hit storm.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_many
kenv pc_storm
kenv pc_sdt

check "insmod" pc_load
awk -v b=$pc_many_BUILD_ID -v p=$PCF/pc_many -v s=$((pc_many_OFF_pc_sled_start)) \
	'BEGIN { for (i = 0; i < 10000; i++) printf "add p:many/p%d %s %s:0x%x\n", i, b, p, s + i }' > /tmp/batch
check_eq "batch is 10000 lines" "10000" "$(wc -l < /tmp/batch)"
check "10000 probes armed in one write()" $PCF/pc_write $PC_SYSFS/control < /tmp/batch
check_eq "nr_probes 10000" "10000" "$(cat $PC_SYSFS/nr_probes)"
check_eq "10000 listed" "10000" "$(ls $PCP | wc -l)"
check_eq "all armed" "10000" "$(cat $PCP/*/state | grep -c '^armed$')"
check_eq "sled runs with 10000 breakpoints" "sled runs=2" "$($PCF/pc_many 2)"
check_eq "every probe hit exactly twice" "10000" "$(cat $PCP/*/hits | grep -c '^2$')"
check "clear" kctl clear
check_eq "nr_probes 0" "0" "$(cat $PC_SYSFS/nr_probes)"
check_eq "sled runs unprobed" "sled runs=1" "$($PCF/pc_many 1)"

# Two writers adding and deleting, one reader walking the probe files.
S=$PCF/pc_sdt
race() {
	for i in $(seq 60); do
		kctl "add p:race/$1$i $pc_sdt_BUILD_ID $S:$pc_sdt_OFF_pc_add a=%di" || echo "add $1$i failed"
		kctl "del race:$1$i" || echo "del $1$i failed"
	done
}
race a > /tmp/race.a &
ra=$!
race b > /tmp/race.b &
rb=$!
(for i in $(seq 100); do cat $PCP/*/* > /dev/null 2>&1; done) &
rr=$!
wait $ra $rb $rr
check_eq "racing writers: every line applied" "" "$(cat /tmp/race.a /tmp/race.b)"
check_eq "racing writers: nothing left" "0" "$(cat $PC_SYSFS/nr_probes)"

# rmmod while four threads hit an entry and a return probe with tracing on.
$PCF/pc_storm 4 10 > /tmp/storm.out &
storm=$!
sleep 1
check "arm storm entry probe" kctl "add p:storm/fn $pc_storm_BUILD_ID $PCF/pc_storm:$pc_storm_OFF_pc_storm_fn x=%di:s64 y=%si:s64"
check "arm storm return probe" kctl "add r:storm/ret $pc_storm_BUILD_ID $PCF/pc_storm:$pc_storm_OFF_pc_storm_fn rv=\$retval:s64"
trace_on
sleep 2
check "storm is hitting" test "$(kget storm:fn hits)" -gt 100
check "rmmod under the hit storm" rmmod probecache
check "module gone" test ! -d $PC_SYSFS
wait $storm
rc=$?
check_eq "storm program finished correctly" "storm threads=4 bad=0 rc=0" "$(cat /tmp/storm.out) rc=$rc"
echo > $TR/trace
tap_done
