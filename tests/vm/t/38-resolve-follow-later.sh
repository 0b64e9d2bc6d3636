#!/bin/sh
# A probe follows its build-id to copies mapped *after* the define (issue 27):
# `probecache-resolve follow` (perf's MMAP2 records of every executable mapping)
# hands the module a process started later on a copy at another path, a container
# (private mount namespace, its own copy on tmpfs) started later, and a copy of a
# library dlopen'ed later; each is a site within 1 s (scaled to this VM's speed,
# the latency printed) with an event of its own (EVENT_copyN: a multi-probe uprobe event
# cannot gain a file while in use, Documentation/design.md), ftrace and perf stat -a
# see its exact hits, a copy whose build-id differs in one bit is never handed, writes
# to a dlopen'ed copy are denied while it is a site, and no site outlives the disarm. Before `follow` (fc9fe09's
# parent) define swept once: none of these copies became a site, and every
# consumer counted 0 of their hits.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
export PROBECACHE_DIR=/tmp/pc38
S=$PCF/pc_sdt
L=$PCF/libpc_dl.so
P=sdt_pcfix:tick
Q=sdt_pcdl:tick
D=/tmp/later
SITES=/proc/probecache_sites
mkdir -p $D /tmp/ns38
cp $S $D/bad
# One bit of the build-id's last byte flipped: same code, another build.
B=$pc_sdt_BUILD_ID
last=$((0x$(echo "$B" | tail -c 3) ^ 1))
printf "\\$(printf %o $last)" |
	dd of=$D/bad bs=1 seek=$((pc_sdt_NOTE_build_id + 16 + ${#B} / 2 - 1)) conv=notrunc 2> /dev/null

ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
# sited EVENT PATH-ERE: the module lists a site of EVENT whose path matches
sited() { grep -Eq "^$1 site=[1-9][0-9]* .* path=$2\$" $SITES; }
# latency NAME EVENT PATH-ERE T0: wait (10 s at most) for the site; ms since T0 in $NAME_ms
latency() {
	_n=0
	until sited "$2" "$3" || [ $_n -ge 500 ]; do sleep 0.02; _n=$((_n + 1)); done
	eval "${1}_ms=\$((\$(ms) - $4))"
}
# tick NAME N: NAME's process hits N times; waits for its line
tick() {
	_w=$(($(wc -l < /tmp/$1.out) + 1))
	eval "echo $2 >&\$${1}_fd"
	wait_for 20 lines_ge /tmp/$1.out $_w
}
limit=$(($(pc_scaled 1) * 1000))

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }
check "scan defines the fixtures' probes (no copy mapped yet)" \
	sh -c "probecache-resolve scan $S $L > /tmp/scan.out"
check_eq "  $P and $Q on their own files only" "1 1" \
	"$(grep -c "^$P " $SITES) $(grep -c "^$Q " $SITES)"
probecache-resolve follow > /tmp/follow.out 2> /tmp/follow.err &
fp=$!
check "follow starts watching" wait_for 30 grep -q '^follow: watching' /tmp/follow.out

cp $S $D/later
t0=$(ms)
pc_watch la $D/later hitwatch
exec 3> /tmp/la.in
la_fd=3
latency la $P "$D/later" "$t0"
check "a process started later: its copy becomes a site" sited $P "$D/later"
check "  within 1 s ($la_ms ms; limit $limit ms on this VM)" test "$la_ms" -le "$limit"
check "  follow says so" grep -q "^followed $P to $D/later (pid $la)$" /tmp/follow.out

t0=$(ms)
pc_watch ct unshare -m sh -c "mount -t tmpfs none /tmp/ns38 && cp $S /tmp/ns38/pc_sdt && exec /tmp/ns38/pc_sdt hitwatch"
exec 4> /tmp/ct.in
ct_fd=4
latency ct $P "/proc/$ct/map_files/[0-9a-f]+-[0-9a-f]+" "$t0"
check "a container started later: its own copy becomes a site (map_files)" \
	sited $P "/proc/$ct/map_files/[0-9a-f]+-[0-9a-f]+"
check "  within 1 s ($ct_ms ms, from before its copy was made; limit $limit ms)" test "$ct_ms" -le "$limit"

cp $L $D/dl.so
pc_watch dl $PCF/pc_dl
exec 5> /tmp/dl.in
dl_fd=5
t0=$(ms)
echo "open $D/dl.so" >&5
check "a library dlopen'ed later" wait_for 20 grep -q '^opened$' /tmp/dl.out
latency dl $Q "$D/dl.so" "$t0"
check "  its copy becomes a site of $Q" sited $Q "$D/dl.so"
check "  within 1 s ($dl_ms ms; limit $limit ms)" test "$dl_ms" -le "$limit"

pc_watch bd $D/bad hitwatch
exec 6> /tmp/bd.in
bd_fd=6
tick bd 0
sleep 1
check_eq "a copy whose build-id differs in one bit: never a site" "" "$(grep "path=$D/bad\$" $SITES)"

if pc_events; then
	pc_copies_enable 1 $P $Q
	tick la 3
	tick ct 4
	tick dl 5
	tick bd 6
	pc_copies_enable 0 $P $Q
	n() { grep -Ec -- "-$1 .* tick(_copy[0-9]+)?: \(" $TR/trace; }
	got="$(n $la) $(n $ct) $(n $dl) $(n $bd)"
	check_eq "ftrace: 3 from the later process, 4 from the container, 5 from the dlopen, 0 from the bad copy" \
		"3 4 5 0" "$got"
	[ "$got" = "3 4 5 0" ] ||
		diag "events: $(ls $TR/events/sdt_pcfix $TR/events/sdt_pcdl | tr '\n' ' '); follow: $(cat /tmp/follow.err)"
	{
		echo 'outs() { cat /tmp/la.out /tmp/ct.out /tmp/dl.out | wc -l; }'
		echo 'w=$(($(outs) + 3))'
		echo 'echo $1 >&3; echo $2 >&4; echo $3 >&5'
		echo 'until [ "$(outs)" -ge $w ]; do sleep 0.1; done'
	} > /tmp/ticks.sh
	perf stat -a -x, -e "$P*" -e "$Q*" -o /tmp/stat -- sh /tmp/ticks.sh 6 7 8
	check_eq "perf stat -a -e '$P*': 6+7 from the two copies, '$Q*': 8 from the dlopen'ed one" "13 8" \
		"$(pc_perf_sum /tmp/stat $P) $(pc_perf_sum /tmp/stat $Q)"
	check "a dlopen'ed copy: writes denied while it is a site" sh -c "! sh -c ': >> $D/dl.so' 2> /dev/null"
else
	diag "no trace events here: ftrace, perf and BPF not run"
fi

kill -TERM $fp
wait $fp
check_eq "follow: SIGTERM ends it, exit 0" 0 "$?"
check "  counting 7 copies followed (3 probes x 2 copies + 1), none refused, no record lost" \
	grep -Eq '^follow: [0-9]+ mappings, .* 7 copies followed, 0 refused, 0 records lost$' /tmp/follow.out
check_eq "  nothing on stderr" "" "$(cat /tmp/follow.err)"
sed 's/^/# follow: /' /tmp/follow.out
check "disarm every probe" probecache-resolve disarm -q 'sdt_pcfix:*' 'sdt_pcdl:*'
check_eq "no site left" "" "$(cat $SITES)"
exec 3>&- 4>&- 5>&- 6>&-
wait
check "rmmod" pc_unload
tap_done
