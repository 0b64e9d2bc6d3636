#!/bin/sh
# probecache.ko: clear and rmmod while four threads hit an entry and a return
# probe (ftrace on them first: then both are refused; a defined probe alone
# refuses rmmod); the program must finish with every result right.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_storm

check "insmod" pc_load
$PCF/pc_storm 4 10 > /tmp/storm.out &
storm=$!
sleep 1
check "arm storm entry probe" karm "add p:storm/fn $pc_storm_BUILD_ID $PCF/pc_storm:$pc_storm_OFF_pc_storm_fn x=%di:s64 y=%si:s64"
check "arm storm return probe" karm "add r:storm/ret $pc_storm_BUILD_ID $PCF/pc_storm:$pc_storm_OFF_pc_storm_fn rv=\$retval:s64"
trace_on
sleep 2
check "storm is hitting" test "$(kget storm:fn hits)" -gt 100
tcheck "traced by ftrace" grep -q ' fn: (0x' $TR/trace
tcheck "rmmod refused while ftrace has its events enabled" sh -c "! rmmod probecache 2> /dev/null"
trace_off
check "rmmod refused while probes are defined" sh -c "! rmmod probecache 2> /dev/null"
check "clear and rmmod under the hit storm" pc_unload
check "module gone" test ! -d $PC_SYSFS
wait $storm
rc=$?
check_eq "storm program finished correctly" "storm threads=4 bad=0 rc=0" "$(cat /tmp/storm.out) rc=$rc"
echo > $TR/trace
tap_done
