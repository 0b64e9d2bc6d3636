#!/bin/sh
# probecache.ko: PC_MANY probes (10 000 on stock kernels, fewer on the debug kernel:
# tests/vm/run.sh workload_env) armed in one write(), listed, hit, cleared. The module's
# table only: their events would be the kernel's uprobe events, whose definition and
# removal at this scale are make bench's to measure (defining 10 000 through
# uprobe_events took 57 s on 6.1 under TCG at factor 3.2; deleting them had not
# finished 30 s later).
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_many
N=${PC_MANY:?PC_MANY comes from /pc/env}

check "insmod" pc_load
awk -v n=$N -v b=$pc_many_BUILD_ID -v p=$PCF/pc_many -v s=$((pc_many_OFF_pc_sled_start)) \
	'BEGIN { for (i = 0; i < n; i++) printf "add p:many/p%d %s %s:0x%x\n", i, b, p, s + i }' > /tmp/batch
sed 's/^add p:\([^/]*\)\/\([^ ]*\) .*/count \1:\2/' /tmp/batch > /tmp/count
check_eq "batch is $N lines" "$N" "$(wc -l < /tmp/batch)"
t0=$(date +%s)
check "$N probes defined in one write()" $PCF/pc_write $PC_SYSFS/control < /tmp/batch
diag "defined $N in $(($(date +%s) - t0)) s"
check_eq "none armed yet" "0" "$(cat $PC_SYSFS/nr_armed)"
check "$N counters started in one write()" $PCF/pc_write $PC_SYSFS/control < /tmp/count
check_eq "nr_probes $N" "$N" "$(cat $PC_SYSFS/nr_probes)"
cat $PC_LIST > /tmp/list
check_eq "$N listed, one line each" "$N $N" "$(wc -l < /tmp/list) $(awk '{ print $1 }' /tmp/list | sort -u | wc -l)"
check_eq "  the batch's probes, none missing, none extra" "" "$(awk 'NR == FNR { want[$2] = 1; next }
	$1 in want { delete want[$1]; next } { print "extra " $1 } END { for (p in want) print "missing " p }' \
	/tmp/count /tmp/list | head -n 3)"
check_eq "  in definition order" "0" "$(awk '$1 != "many:p" (NR - 1) { n++ } END { print n + 0 }' /tmp/list)"
check_eq "all armed" "$N" "$(grep -c '^[^ ]* state=armed ' /tmp/list)"
check_eq "sled runs with $N breakpoints" "sled runs=2" "$($PCF/pc_many 2)"
check_eq "every probe hit exactly twice" "$N" "$(grep -c '^[^ ]* state=[a-z]* hits=2 ' $PC_LIST)"
check "clear" kctl clear
check_eq "nr_probes 0" "0" "$(cat $PC_SYSFS/nr_probes)"
check_eq "sled runs unprobed" "sled runs=1" "$($PCF/pc_many 1)"

check "rmmod" pc_unload
tap_done
