#!/bin/sh
# probecache.ko: two control writers adding and deleting while a reader
# walks every probe file.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
: "${PC_RACE_ROUNDS:?PC_RACE_ROUNDS comes from /pc/env}"

check "insmod" pc_load
# Two writers adding and deleting, one reader walking the probe files.
S=$PCF/pc_sdt
race() {
	for i in $(seq "$PC_RACE_ROUNDS"); do
		kctl "add p:race/$1$i $pc_sdt_BUILD_ID $S:$pc_sdt_OFF_pc_add a=%di" || echo "add $1$i failed"
		kctl "del race:$1$i" || echo "del $1$i failed"
	done
}
race a > /tmp/race.a &
ra=$!
race b > /tmp/race.b &
rb=$!
(for i in $(seq 40); do cat $PCP/*/* > /dev/null 2>&1; done) &
rr=$!
wait $ra $rb $rr
check_eq "racing writers: every line applied" "" "$(cat /tmp/race.a /tmp/race.b)"
check_eq "racing writers: nothing left" "0" "$(cat $PC_SYSFS/nr_probes)"

check "rmmod" pc_unload
tap_done
