#!/bin/sh
# A deleted probe's records must never be printed as another event's. When a dynamic
# event goes, the tracing core resets the ring buffers (trace_dynevent.c) because its
# type id is handed to the next event; an event that bypasses that reset lets `cat
# trace` decode the old records with the new event's format (and a __data_loc string
# field trusts an offset the old record never wrote).
# Here: a u64 event hit 3 times, disabled, deleted; a string event defined in its
# place. The string event never fires, so the buffer must hold no line of it; the same
# sequence through uprobe_events is the reference.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID

check "insmod" pc_load
# round NAME: the sequence through interface NAME, whose NAME_u64, NAME_del and
# NAME_str define the u64 event, delete it and define the string event
round() {
	echo 0 > $TR/tracing_on
	echo > $TR/trace
	check "$1: define the u64 event" ${1}_u64
	echo 1 > $TR/events/pcfix/add/enable
	echo 1 > $TR/tracing_on
	$S loop 3 > /dev/null
	echo 0 > $TR/events/pcfix/add/enable
	check_eq "$1: 3 records of the u64 event" 3 "$(grep -c ' add: (0x' $TR/trace)"
	id1=$(cat $TR/events/pcfix/add/id)
	check "$1: delete it" ${1}_del
	check "$1: define a string event" ${1}_str
	diag "$1: type ids $id1 then $(cat $TR/events/pcfix/str/id)"
	check_eq "$1: no record printed as the string event" 0 "$(grep -c ' str: (0x' $TR/trace)"
	grep ' str: (0x' $TR/trace | head -n 3 | while read -r l; do diag "  $l"; done
}

STR="s=+0($pc_sdt_SDTPLACE_str_1):string"
ue() { echo "$1" >> $TR/uprobe_events; }
uprobe_events_u64() { ue "p:pcfix/add $S:$pc_sdt_OFF_pc_add a=%di:u64"; }
uprobe_events_del() { ue "-:pcfix/add"; }
uprobe_events_str() { ue "p:pcfix/str $S:$pc_sdt_SDT_str $STR"; }
probecache_u64() { kctl "add p:pcfix/add $B $S:$pc_sdt_OFF_pc_add a=%di:u64"; }
probecache_del() { kctl "del pcfix:add"; }
probecache_str() { kctl "add p:pcfix/str $B $S:$pc_sdt_SDT_str($pc_sdt_SEM_str) $STR"; }

round uprobe_events
ue "-:pcfix/str"
round probecache
kctl clear
tap_done
