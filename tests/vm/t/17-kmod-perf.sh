#!/bin/sh
# probecache:probecache_hit is an ordinary tracepoint: perf lists it, records it and
# decodes it (perf script), with the same args the tracefs buffer shows.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID

check "insmod" pc_load
check "add tick (SDT + semaphore)" kctl "add p:pcfix/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick) $pc_sdt_SDTARGS_tick"
check "perf list shows probecache:probecache_hit" sh -c 'perf list tracepoint 2>/dev/null | grep -q "probecache:probecache_hit"'

cd /tmp || exit 1
check "perf record -e probecache:probecache_hit -- pc_sdt loop 5 v" \
	perf record -q -e probecache:probecache_hit -o /tmp/perf.data -- "$S" loop 5 v
"$S" loop 5 v > /tmp/want
perf script -i /tmp/perf.data > /tmp/script 2> /tmp/script.err
check_eq "perf script decodes 5 hits" "5" "$(grep -c 'probecache:probecache_hit:' /tmp/script)"
check_eq "every hit names pcfix:tick and the traced pid" "5" \
	"$(grep -c 'probecache:probecache_hit: pcfix:tick pid=[0-9]* ip=0x' /tmp/script)"
check_eq "perf's args equal the printed values" "$(sed 's/^tick //' /tmp/want)" \
	"$(sed 's/.*probecache:probecache_hit: pcfix:tick pid=[0-9]* ip=0x[0-9a-f]* *//' /tmp/script)"
check_eq "probe counted the 10 hits" "10" "$(kget pcfix:tick hits)"
check "rmmod" pc_unload
tap_done
