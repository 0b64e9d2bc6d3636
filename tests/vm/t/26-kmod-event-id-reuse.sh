#!/bin/sh
# A deleted probe's records must never be printed as another event's (issue 41 item 2).
# When a dynamic event goes, the tracing core resets the ring buffers (trace_dynevent.c)
# because its type id is handed to the next event; the module's own events bypassed that
# reset, so `cat trace` decoded the old records with the new event's format (6.12: 3
# stale "str:" lines, a __data_loc string field trusting an offset the old record never
# wrote). The events are the kernel's uprobe events now: the reset is the core's.
# Here, as the CLI defines and deletes them: a u64 event hit 3 times, disabled, deleted;
# a string event defined in its place. The string event never fires, so the buffer must
# hold no line of it.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID

check "insmod" pc_load
echo 0 > $TR/tracing_on
echo > $TR/trace
check "define the u64 event" kdef "p:pcfix/add $B $S:$pc_sdt_OFF_pc_add a=%di:u64"
echo 1 > $TR/events/pcfix/add/enable
echo 1 > $TR/tracing_on
$S loop 3 > /dev/null
echo 0 > $TR/events/pcfix/add/enable
check_eq "3 records of the u64 event" 3 "$(grep -c ' add: (0x' $TR/trace)"
id1=$(cat $TR/events/pcfix/add/id)
check "delete it" kundef pcfix:add
check "define a string event" kdef "p:pcfix/str $B $S:$pc_sdt_SDT_str($pc_sdt_SEM_str) s=+0($pc_sdt_SDTPLACE_str_1):string"
diag "type ids $id1 then $(cat $TR/events/pcfix/str/id)"
check_eq "no record printed as the string event" 0 "$(grep -c ' str: (0x' $TR/trace)"
grep ' str: (0x' $TR/trace | head -n 3 | while read -r l; do diag "  $l"; done
check "rmmod" kunload
tap_done
