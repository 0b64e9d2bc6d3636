#!/bin/sh
# probecache.ko: sysfs layout, module parameters, add/del/clear, the probe listing
# (/proc/probecache_probes: one line per probe, fields in a fixed order, args last).
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt

# kget_absent GROUP:EVENT: kget of the probe's state fails and prints nothing
kget_absent() {
	_o=$(kget "$1" state) && return 1
	test -z "$_o"
}

if insmod "$PC_KO" max_args=17 2> /dev/null; then
	not_ok "insmod max_args=17 refused"
	rmmod probecache
else
	ok "insmod max_args=17 refused"
fi
check "insmod max_line=4096 refused" sh -c "! insmod $PC_KO max_line=4096 2>/dev/null"
check "insmod" pc_load max_probes=3 max_args=2 max_line=300
check_eq "parameters" "3 2 300" "$(cat /sys/module/probecache/parameters/max_probes /sys/module/probecache/parameters/max_args /sys/module/probecache/parameters/max_line | tr '\n' ' ' | sed 's/ $//')"
check_eq "version" "0.1" "$(cat $PC_SYSFS/version)"
check_eq "nr_probes starts at 0" "0" "$(cat $PC_SYSFS/nr_probes)"
check_eq "control is 0200" "--w-------" "$(ls -l $PC_SYSFS/control | cut -c1-10)"
check_eq "last_error is 0400" "-r--------" "$(ls -l $PC_SYSFS/last_error | cut -c1-10)"
check_eq "last_error starts empty" "" "$(kerr)"
check "no per-probe sysfs directory ($PC_SYSFS/probes)" test ! -e $PC_SYSFS/probes
check_eq "the listing is /proc/probecache_probes, 0400" "-r--------" "$(ls -l $PC_LIST 2>&1 | cut -c1-10)"
check_eq "the listing starts empty (no header)" "0" "$(wc -c < $PC_LIST)"

rec="p:pcfix/tick $pc_sdt_BUILD_ID $S:$pc_sdt_SDT_tick($pc_sdt_SEM_tick) $pc_sdt_SDTARGS_tick"
check "add SDT probe with semaphore" karm "add $rec"
check_eq "nr_probes 1" "1" "$(cat $PC_SYSFS/nr_probes)"
d=pcfix:tick
check_eq "state armed" "armed" "$(kget $d state)"
check_eq "hits 0" "0" "$(kget $d hits)"
check_eq "counting" "1" "$(kget $d counting)"
check_eq "build_id" "$pc_sdt_BUILD_ID" "$(kget $d build_id)"
check_eq "path" "$S" "$(kget $d path)"
check_eq "offset" "$pc_sdt_SDT_tick" "$(kget $d offset)"
check_eq "ref_ctr_offset" "$pc_sdt_SEM_tick" "$(kget $d ref_ctr_offset)"
check_eq "args" "$pc_sdt_SDTARGS_tick" "$(kget $d args)"
check_eq "pid 0 = every process" "0" "$(kget $d pid)"
check_eq "its listing line: every field, in the documented order, args the rest" \
	"$d state=armed hits=0 counting=1 type=p pid=0 unlinked=0 build_id=$pc_sdt_BUILD_ID offset=$pc_sdt_SDT_tick ref_ctr_offset=$pc_sdt_SEM_tick path=$S args=$pc_sdt_SDTARGS_tick" \
	"$(grep "^$d " $PC_LIST)"
check_eq "the listing is that one line" "1" "$(wc -l < $PC_LIST)"
check "still no $PC_SYSFS/probes with a probe defined" test ! -e $PC_SYSFS/probes
check "the listing is read-only" sh -c "! echo clear 2> /dev/null > $PC_LIST"
check_eq "  and unchanged" "1 1" "$(wc -l < $PC_LIST) $(cat $PC_SYSFS/nr_probes)"

check "add function probe" kctl "add p:pcfix/add $pc_sdt_BUILD_ID $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:s32"
check "add return probe" kctl "add r:pcfix/add_ret $pc_sdt_BUILD_ID $S:$pc_sdt_OFF_pc_add rv=\$retval:s32"
check_eq "nr_probes 3" "3" "$(cat $PC_SYSFS/nr_probes)"
check_eq "type r" "r" "$(kget pcfix:add_ret type)"
check_eq "listed in definition order, not sorted" "pcfix:tick pcfix:add pcfix:add_ret" \
	"$(pc_probes 2>&1 | tr '\n' ' ' | sed 's/ $//')"
check_eq "args with spaces and '=': the rest of the line" "a=%di:s32 b=%si:s32" "$(kget pcfix:add args)"
check_eq "  state before args" "defined" "$(kget pcfix:add state)"
check_eq "  whole line ends with them" "1" "$(grep -c '^pcfix:add state=defined .* path=[^ ]* args=a=%di:s32 b=%si:s32$' $PC_LIST)"
check_eq "return probe's args" "rv=\$retval:s32" "$(kget pcfix:add_ret args)"
check "max_probes=3 refuses a 4th" sh -c "! printf 'add p:pcfix/x4 $pc_sdt_BUILD_ID $S:$pc_sdt_OFF_pc_index\n' > $PC_SYSFS/control"
check_eq "max_probes reason" "line 1 col 5: event: max_probes (3) reached" "$(kerr)"
check "max_args=2 refuses a third arg" sh -c "! printf 'add p:pcfix/x3 $pc_sdt_BUILD_ID $S:$pc_sdt_OFF_pc_index a=%%di b=%%si c=%%dx\n' > $PC_SYSFS/control"
check_eq "its reason" "arg3: too many args" "$(kerr | sed 's/^line 1 col [0-9]*: //')"
check "max_line=300 refuses a 301-byte line" sh -c "! printf 'add p:pcfix/x3 $pc_sdt_BUILD_ID $S:$pc_sdt_OFF_pc_index a=%%di%0250d\n' 0 > $PC_SYSFS/control"
check_eq "its reason" "line 1 col 301: line: longer than max_line (300 bytes)" "$(kerr)"
check "del" kctl "del pcfix:add"
check "deleted probe's line is gone" pc_unlisted pcfix:add
check "  kget of it fails, printing nothing" kget_absent pcfix:add
check_eq "  the others stay, in order" "pcfix:tick pcfix:add_ret" "$(pc_probes 2>&1 | tr '\n' ' ' | sed 's/ $//')"
check_eq "nr_probes 2" "2" "$(cat $PC_SYSFS/nr_probes)"
check "del unknown refused" sh -c "! printf 'del pcfix:nope\n' > $PC_SYSFS/control"
check_eq "del unknown reason" "line 1 col 5: group: no probe pcfix:nope" "$(kerr)"
check "clear" kctl clear
check_eq "nr_probes 0 after clear" "0" "$(cat $PC_SYSFS/nr_probes)"
check_eq "listing empty after clear" "0" "$(wc -c < $PC_LIST)"

# Many lines per write; a bad line in the middle: lines before it stay.
printf 'add p:g/a %s %s:%s\nadd p:g/b %s %s:0x1\nadd p:g/c %s %s:%s\n' \
	"$pc_sdt_BUILD_ID" "$S" "$pc_sdt_OFF_pc_add" "$pc_sdt_BUILD_ID" "$S" \
	"$pc_sdt_BUILD_ID" "$S" "$pc_sdt_OFF_pc_index" > /tmp/batch
if cat /tmp/batch > $PC_SYSFS/control 2> /dev/null; then
	not_ok "batch with a bad line 2 fails"
else
	ok "batch with a bad line 2 fails"
fi
check_eq "line before the bad one applied, after it not" "g:a" "$(pc_probes 2>&1 | tr '\n' ' ' | sed 's/ $//')"
check_eq "no args: the line ends with \"args=\"" "1" "$(grep -c '^g:a state=.* path=[^ ]* args=$' $PC_LIST)"
check_eq "  kget args succeeds, printing nothing" "0 []" "$(v=$(kget g:a args); echo "$? [$v]")"
check_eq "last_error names line 2" "line 2 col" "$(kerr | cut -c1-10)"
check "clear" kctl clear

# Lines split across write()s (a writer's buffer boundaries) still arrive whole.
printf 'add p:g/a %s %s:%s\nadd p:g/b %s %s:%s a=%%di:s32 b=+8(%%sp):x64\nadd p:g/c %s %s:%s\n' \
	"$pc_sdt_BUILD_ID" "$S" "$pc_sdt_OFF_pc_add" "$pc_sdt_BUILD_ID" "$S" \
	"$pc_sdt_OFF_pc_index" "$pc_sdt_BUILD_ID" "$S" "$pc_sdt_OFF_pc_index" > /tmp/batch2
check "3 lines written 7 bytes per write()" sh -c "PC_WRITE_CHUNK=7 $PCF/pc_write $PC_SYSFS/control < /tmp/batch2"
check_eq "all 3 probes added" "g:a g:b g:c" "$(pc_probes 2>&1 | tr '\n' ' ' | sed 's/ $//')"
check_eq "args of a split line intact" "a=%di:s32 b=+8(%sp):x64" "$(kget g:b args)"
check "a command without its newline is not applied" sh -c "printf clear > $PC_SYSFS/control"
check_eq "so nothing was cleared" "3" "$(cat $PC_SYSFS/nr_probes)"
check "clear" kctl clear
check "rmmod" pc_unload
check "module gone" test ! -d $PC_SYSFS
check "its listing gone with it" test ! -e $PC_LIST
tap_done
