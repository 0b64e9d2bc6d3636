#!/bin/sh
# probecache.ko: four threads hit an entry and a return probe, counted and traced by
# ftrace through their events; deleting a probe whose event ftrace has enabled is
# refused (the kernel's EBUSY, the definition kept); rmmod is refused while probes are
# defined; the events, the definitions and the module go under the hit storm, and the
# program must finish with every result right.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_storm

check "insmod" pc_load
# Defined first (each definition is several processes: seconds on the debug kernel),
# armed once the program runs (the storm lasts 10 s whatever the speed).
check "define storm entry probe" kdef "p:storm/fn $pc_storm_BUILD_ID $PCF/pc_storm:$pc_storm_OFF_pc_storm_fn x=%di:s64 y=%si:s64"
check "define storm return probe" kdef "r:storm/ret $pc_storm_BUILD_ID $PCF/pc_storm:$pc_storm_OFF_pc_storm_fn rv=\$retval:s64"
$PCF/pc_storm 4 10 > /tmp/storm.out &
storm=$!
sleep 1
check "count both in the running program" kctl "count storm:fn" "count storm:ret"
trace_on
sleep 2
check "storm is hitting" test "$(kget storm:fn hits)" -gt 100
check "traced by ftrace" grep -q ' fn: (0x' $TR/trace
check "del refused while ftrace has its event enabled (EBUSY), the definition kept" kbusy storm:fn
check "  still counting" pc_test storm:fn counting = 1
trace_off
check "rmmod refused while probes are defined" sh -c "! rmmod probecache 2> /dev/null"
check "clear and rmmod under the hit storm" kunload
check "module gone" test ! -d $PC_SYSFS
check_eq "the events gone" "" "$(grep ':storm/' $TR/uprobe_events)"
wait $storm
rc=$?
check_eq "storm program finished correctly" "storm threads=4 bad=0 rc=0" "$(cat /tmp/storm.out) rc=$rc"
echo > $TR/trace
tap_done
