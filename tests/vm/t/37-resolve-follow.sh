#!/bin/sh
# A probe follows its build-id (issue 27), end to end: scan defines the fixture's SDT
# probes and follows each to every copy a process maps (another path, one deleted
# while running, one in a private mount namespace), each with an event of its own
# (EVENT_copyN); ftrace and perf stat -a see exact counts from every copy; a
# re-define adds nothing; define --path keeps a probe to one file; disarm releases
# every site. Before the follow (38434af) scan sent no site line and the copies'
# hits were invisible to every consumer (tests/vm/t/23-kmod-sites.sh, same counts).
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
export PROBECACHE_DIR=/tmp/pc37
S=$PCF/pc_sdt
D=/tmp/follow
P=sdt_pcfix:tick
SITES=/proc/probecache_sites
mkdir -p $D /tmp/nsmnt37
cp $S $D/copy
cp $S $D/gone

# /tmp/ticks.sh N1 N2 N3 N4: the copies tick N1..N3 times (through fds 3-5), $S N4
# times; it waits for the copies' lines. A script, so perf and pc_bpfcount can run it.
{
	echo 'outs() { cat /tmp/cp.out /tmp/gn.out /tmp/ns.out | wc -l; }'
	echo 'w=$(($(outs) + 3))'
	echo 'echo $1 >&3; echo $2 >&4; echo $3 >&5'
	echo "$S loop \$4 > /dev/null"
	echo 'until [ "$(outs)" -ge $w ]; do sleep 0.1; done'
} > /tmp/ticks.sh

# trace_count PID: lines of $P's event from PID in the trace
trace_count() {
	grep -Ec -- "-$1 .* tick(_copy[0-9]+)?: \(" $TR/trace
}

pc_watch cp $D/copy hitwatch
exec 3> /tmp/cp.in
pc_watch gn $D/gone hitwatch
exec 4> /tmp/gn.in
pc_watch ns unshare -m sh -c "mount -t tmpfs none /tmp/nsmnt37 && cp $S /tmp/nsmnt37/pc_sdt && exec /tmp/nsmnt37/pc_sdt hitwatch"
exec 5> /tmp/ns.in
sh /tmp/ticks.sh 0 0 0 0
rm $D/gone

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }
check "scan defines the fixture's probes" sh -c "probecache-resolve scan $S > /tmp/scan.out"
n=$(grep -c '^sdt_pcfix:' /proc/probecache_probes)
check_eq "  and follows each of its $n probes to the 3 copies" \
	"scan: followed them to $((3 * n)) other copies of their binaries ('probecache-resolve status')" \
	"$(tail -n 1 /tmp/scan.out)"
check_eq "the module lists 4 sites of $P" 4 "$(grep -c "^$P " $SITES)"
probecache-resolve disarm -q 'sdt_pcfix:*'
check "define $P" sh -c "probecache-resolve define $P > /tmp/define.out"
check_eq "define followed $P to the 3 copies" 3 "$(grep -c "^followed $P to" /tmp/define.out)"
check "  the copy at another path" grep -q "^followed $P to $D/copy (pid $cp)$" /tmp/define.out
check "  the deleted one through map_files" grep -q "^followed $P to /proc/$gn/map_files/[0-9a-f-]*, deleted (pid $gn)$" /tmp/define.out
check "  the one in another mount namespace through map_files" grep -q "^followed $P to /proc/$ns/map_files/[0-9a-f-]* (pid $ns)$" /tmp/define.out
check_eq "the module lists 4 sites of $P again" 4 "$(grep -c "^$P " $SITES)"
probecache-resolve status > /tmp/status37.out
check "status shows the deleted copy under $P, its inode and its process's mount namespace" \
	grep -q "^  + copy /proc/$gn/map_files/[0-9a-f-]* defined, 0 hits, deleted, inode [0-9]*:[0-9]*/[0-9]*, mount ns $(stat -L -c %i /proc/$gn/ns/mnt) of pid $gn\$" /tmp/status37.out
check "  and the one in another mount namespace, with that namespace" \
	grep -q "^  + copy /proc/$ns/map_files/[0-9a-f-]* defined, 0 hits, inode [0-9]*:[0-9]*/[0-9]*, mount ns $(stat -L -c %i /proc/$ns/ns/mnt) of pid $ns\$" /tmp/status37.out
check "  which is not ours" sh -c "[ $(stat -L -c %i /proc/$ns/ns/mnt) != $(stat -L -c %i /proc/self/ns/mnt) ]"
check_eq "defined: nothing armed in any copy" "0" "$(cat $PC_SYSFS/nr_armed)"
check_eq "a re-define follows nothing new" "0" \
	"$(probecache-resolve define $P | grep -c '^followed')"
check_eq "  and the module still has 4 sites" 4 "$(grep -c "^$P " $SITES)"

if pc_events; then
	check_eq "one event per copy" "3" "$(ls -d $TR/events/sdt_pcfix/tick_copy* | wc -l)"
	pc_copies_enable 1 $P
	sh /tmp/ticks.sh 3 4 5 6
	pc_copies_enable 0 $P
	all=$(grep -Ec " tick(_copy[0-9]+)?: \(" $TR/trace)
	c1=$(trace_count $cp)
	c2=$(trace_count $gn)
	c3=$(trace_count $ns)
	check_eq "ftrace: the copy's 3, the deleted one's 4, the namespace's 5, $S's 6" "3 4 5 6" \
		"$c1 $c2 $c3 $((all - c1 - c2 - c3))"
	perf stat -a -x, -e "$P*" -o /tmp/stat -- sh /tmp/ticks.sh 6 7 8 9
	check_eq "perf stat -a -e '$P*': every copy's hits (6+7+8+9)" "30" "$(pc_perf_sum /tmp/stat $P)"
else
	diag "no trace events here: ftrace, perf and BPF not run"
fi

check "disarm every probe of the fixture" probecache-resolve disarm -q 'sdt_pcfix:*'
check_eq "no site left" "" "$(cat $SITES)"
check_eq "  no event left, the copies' included" "" "$(ls $TR/events/sdt_pcfix 2> /dev/null | grep tick)"
cp $S $D/only
check "define --path: one file" probecache-resolve define -q --path $D/only $P
check_eq "  one site, that file" "$P site=0 path=$D/only" "$(awk '{ print $1, $2, $NF }' $SITES)"
check "disarm" probecache-resolve disarm -q "$P"
exec 3>&- 4>&- 5>&-
wait
check "rmmod" pc_unload
tap_done
