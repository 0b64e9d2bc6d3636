#!/bin/sh
# A probe's trace event, the kernel's uprobe event defined as the CLI defines it, is an
# ordinary tracepoint for perf: listed, recorded and decoded (perf script) with the
# values the program printed, while the module's counter counts the same hits.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID

check "insmod" pc_load
check "define and count tick (SDT + semaphore)" kdefc "p:pcfix/tick $B $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick) $pc_sdt_SDTARGS_tick"
check "perf list shows pcfix:tick" sh -c 'perf list tracepoint 2>/dev/null | grep -q "pcfix:tick"'

cd /tmp || exit 1
check "perf record -e pcfix:tick -- pc_sdt loop 5 v" \
	perf record -q -e pcfix:tick -o /tmp/perf.data -- "$S" loop 5 v
"$S" loop 5 v > /tmp/want
perf script -i /tmp/perf.data > /tmp/script 2> /tmp/script.err
check_eq "perf script decodes 5 hits" "5" "$(grep -c 'pcfix:tick:' /tmp/script)"
check_eq "perf's args equal the printed values" "$(sed 's/^tick //' /tmp/want)" \
	"$(sed 's/.*pcfix:tick: ([0-9a-fx]*) *//' /tmp/script)"
check_eq "the counter counted the 10 hits" "10" "$(kget pcfix:tick hits)"
check_eq "perf gone, the counter still holds it armed" "armed 1" "$(kget pcfix:tick state) $(kget pcfix:tick counting)"
check "rmmod" kunload
tap_done
