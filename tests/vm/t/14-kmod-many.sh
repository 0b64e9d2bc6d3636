#!/bin/sh
# probecache.ko: 10 000 probes armed in one write(), listed, hit, cleared.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_many

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

check "rmmod" pc_unload
tap_done
