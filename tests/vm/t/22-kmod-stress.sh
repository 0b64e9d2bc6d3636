#!/bin/sh
# The randomized lifecycle test (issues 26, 41): for PC_STRESS_SECONDS (make check: 60
# on the debug kernel, 30 on the others; make stress MINUTES=N) seeded workers interleave writers as the CLI writes (4:
# define = the module's add then the kernel's uprobe event, invalid adds, bursts of
# defines, delete = the events then the module's del, clear, count, nocount, other
# sites of a probe by path and through /proc/PID/map_files of a short-lived process,
# each with its own event EVENT_copyN), a remover deleting our events behind the module
# (a raw "-:GROUP/EVENT" to uprobe_events, perf probe -d), perf (stat -a, record on a
# command, record -p), ftrace enables in the global buffer and in instances made and
# removed, enable_event and hist triggers on random events, a BPF program on an event,
# rewrites, touch, rename-over and overlayfs copy-up of the probed files, processes
# hitting the probes, and rmmod attempts (reloading when one succeeds). Then: the
# module answers, clear empties the listing, the events left without a definition (a
# define racing a delete of its name) go, no file is left write-denied, a fresh process
# has the original instruction byte, and the harness checks the kernel log.
# The seed is printed; PC_STRESS_SEED=N replays each worker's sequence of operations
# (their timing, and so the interleaving, differs run to run).
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
# 60 s on the debug kernel (lockdep, KASAN: what the stress is for), 30 s on the stock ones
SECS=${PC_STRESS_SECONDS:-$([ "${PC_KERNEL:-}" = debug ] && echo 60 || echo 30)}
SEED=${PC_STRESS_SEED:-$(($(date +%s) % 1000000))}
D=/tmp/rs
NF=4	# probed files: copies of pc_sdt (one build-id), f3 through an overlay
NE=8	# event names rs/e0..e7, event K on file K % NF
mkdir -p $D/lower $D/upper $D/work $D/ov
for i in 0 1 2; do cp $S $D/f$i; done
cp $S $D/lower/f3
if mount -t overlay overlay -o lowerdir=$D/lower,upperdir=$D/upper,workdir=$D/work $D/ov 2> /dev/null; then
	F3=$D/ov/f3
else
	cp $S $D/f3
	F3=$D/f3
fi
diag "seed $SEED, $SECS s, f3: $F3"
orig=0x$(od -A n -t x1 -j $((pc_sdt_OFF_pc_add)) -N 1 $S | tr -d ' ')

check "insmod" pc_load

# Before eventfs (6.6), tracefs can free an event's files while an open of one of them
# is in flight: tracing_open_file_tr() reads the inode's trace_event_file before it
# takes event_mutex, so an open racing the event's deletion takes its references on a
# freed and reused trace_event_file, and the close puts another trace_array's (6.1:
# WARNING in tracing_release_file_tr, and an instance left that rmdir refuses).
# tests/vm/kernel-bugs/tracefs-open-vs-delete.sh shows it with kprobe_events alone.
# There, the tracer's opens of event files exclude the deletions (del, clear, the
# remover's).
EVLOCK=
grep -q ' eventfs_create_dir$' /proc/kallsyms || EVLOCK=$D/evlock
# (Without it every locked operation would fail, and the run test nothing.)
check "flock (util-linux) is here" command -v flock
diag "event files opened while events are deleted: $([ -n "$EVLOCK" ] && echo "no (no eventfs)" || echo yes)"

# file K: the path of probed file K
file() {
	if [ "$1" = 3 ]; then echo "$F3"; else echo "$D/f$1"; fi
}

# rnd N: the next number of this worker's generator (state in r), 0..N-1, in $v
rnd() {
	r=$(((r * 1103515245 + 12345) % 2147483648))
	v=$((r / 65536 % $1))
}

# op NAME CMD...: run CMD, log NAME and its outcome for the summary
op() {
	_n=$1
	shift
	if "$@" > /dev/null 2> "$D/err.$W"; then
		echo "$_n ok" >> "$D/ops.$W"
	else
		echo "$_n fail" >> "$D/ops.$W"
		# shellcheck disable=SC2145
		{ echo "$@:"; head -c 300 "$D/err.$W"; } > "$D/why.$_n"
	fi
}

# locked -s|-x CMD...: CMD under a shared or exclusive lock of $EVLOCK, if set
locked() {
	_m=$1
	shift
	[ -n "$EVLOCK" ] || { "$@"; return; }
	(flock "$_m" 9 && "$@") 9> "$EVLOCK"
}

# A writer's operations on one name are two steps each (the module's add, then the
# event; the event, then the module's del), which a racing delete of that name could
# split: the definition deleted between them leaves an event with none, and a later
# define of the name on another inode would be appended to that event as a second probe
# (the kernel bugs of design.md). So, as the CLI must, writers serialize per name
# (named: that name's lock, and the one clear and bursts take exclusively: every name).
KL=$D/klock
named() { # K CMD...: CMD holding name K's lock
	_k=$1
	shift
	(flock -s 7 && flock -x 6 && "$@") 7> $KL 6> $KL.$_k
}
every() { # CMD...: CMD holding every name's lock
	(flock -x 7 && "$@") 7> $KL
}

# rec K: a valid record for event K (odd K: the SDT site with its semaphore)
rec() {
	_f=$(file $(($1 % NF)))
	if [ $(($1 % 2)) = 1 ]; then
		echo "p:rs/e$1 $B $_f:$pc_sdt_SDT_tick($pc_sdt_SEM_tick) $pc_sdt_SDTARGS_tick"
	else
		echo "p:rs/e$1 $B $_f:$pc_sdt_OFF_pc_add a=%di:s32"
	fi
}

# site_proc E K: a process running file K, given to event E as a site through its
# map_files (a site and an event of its own, as the follower makes them), then ended. It
# runs until then: the name's lock may take seconds on the debug kernel, and the
# map_files name of a process gone opens nothing (in 10 minutes there, with a 1 s life,
# not one of 25 tries got through).
site_proc() {
	(sleep 30) | $(file $2) semwatch > /dev/null &
	_p=$!
	_r=""
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		_r=$(awk '$6 ~ /^\/tmp\/rs\// { print $1; exit }' /proc/$_p/maps 2> /dev/null)
		[ -n "$_r" ] && break
		sleep 0.05
	done
	named $1 ksite rs:e$1 /proc/$_p/map_files/$_r
	_rc=$?
	kill $_p 2> /dev/null
	return $_rc
}

writer() {
	while [ "$(date +%s)" -lt "$END" ]; do
		rnd $NE
		e=$v
		rnd 12
		case $v in
		0|1|2) op add named $e kdef "$(rec $e)" ;;
		3) rnd 3
		   case $v in
		   0) op add-bad kctl "add p:rs/e$e 00$B $(file 0):$pc_sdt_OFF_pc_add" ;;
		   1) op add-bad kctl "add p:rs/e$e $B $(file 0):0x7fffffff" ;;
		   *) op add-bad kctl "add p:rs/e$e $B" ;;
		   esac ;;
		4) op burst every kdef "$(rec 0)" "$(rec 1)" "$(rec 2)" "$(rec 3)" ;;
		5) op del locked -x named $e kundef rs:e$e ;;
		6) rnd 2
		   if [ $v = 0 ]; then
			op clear locked -x every kclear
		   else
			op count kctl "count rs:e$e"
		   fi ;;
		7|8) op count kctl "count rs:e$e" ;;
		9) op nocount kctl "nocount rs:e$e" ;;
		10) rnd $NF
		    op site named $e ksite rs:e$e "$(file $v)" ;;
		*) rnd $NF
		   op site-proc site_proc $e $v ;;
		esac
	done
	# site_proc's processes run a probed file: until they exit, exec
	# itself denies writes to it, which the end checks must not see.
	wait
}

# remover: root deleting our events behind the module, as the design allows: the
# definition stays until del
remover() {
	while [ "$(date +%s)" -lt "$END" ]; do
		rnd $NE
		e=$v
		rnd 3
		case $v in
		0) op raw-rm locked -x kue "-:rs/e$e" ;;
		1) op raw-rm-copy locked -x kue "-:rs/e${e}_copy1" ;;
		*) op perf-probe-d locked -x perf probe -q -d "rs:e$e" ;;
		esac
		sleep 0.5
	done
}

# live: in $e, an event defined now, if any (else any): the writers delete and clear
# so often that a tracer picking blindly found its event gone nearly every time
# (perf record and record -p: 0 successes in 10 minutes on the debug kernel). perf
# record takes so long to start (reading the event's format, then perf_event_open())
# that it holds the name's lock against the writers (only the remover's deletions race
# it); an ftrace enable, which held it before, now makes trace_uprobe refuse perf
# (EINTR: an event is ftrace's or perf's at a time).
live() {
	rnd $NE
	e=$v
	set -- $(ls -d $TR/events/rs/e[0-9] 2> /dev/null | sed 's/.*e//')
	[ $# -gt 0 ] || return 0
	rnd $#
	shift $v
	e=$1
}

tracer() {
	n=0
	while [ "$(date +%s)" -lt "$END" ]; do
		live
		ev=$TR/events/rs/e$e
		rnd 9
		case $v in
		0) op perf-stat-a locked -s perf stat -a -e rs:e$e -o /dev/null -- sleep 0.3 ;;
		1) op perf-record locked -s named $e perf record -q -e rs:e$e -o $D/rec.data -- $(file $((e % NF))) loop 20 ;;
		2) $(file $((e % NF))) loop 1000000 > /dev/null 2>&1 &
		   hp=$!
		   op perf-record-p locked -s named $e perf record -q -p $hp -e rs:e$e -o $D/recp.data -- sleep 0.3
		   kill $hp 2> /dev/null
		   wait $hp 2> /dev/null ;;
		3) op ftrace-on locked -s sh -c "echo 1 > $ev/enable"
		   sleep 0.2
		   op ftrace-off locked -s sh -c "echo 0 > $ev/enable" ;;
		4) n=$((n + 1))
		   op instance locked -s sh -c "mkdir $TR/instances/rs$n && echo 1 > $TR/instances/rs$n/events/rs/e$e/enable"
		   sleep 0.2
		   op instance-rm rmdir $TR/instances/rs$n ;;
		5) e2=$e
		   live
		   op trigger locked -s sh -c "echo 'enable_event:rs:e$e' > $TR/events/rs/e$e2/trigger"
		   sleep 0.3
		   op trigger-rm locked -s sh -c "echo '!enable_event:rs:e$e' > $TR/events/rs/e$e2/trigger" ;;
		6) op hist locked -s sh -c "echo 'hist:keys=common_pid' > $ev/trigger"
		   sleep 0.3
		   op hist-rm locked -s sh -c "echo '!hist:keys=common_pid' > $ev/trigger" ;;
		7) set -- $(ls -d $TR/events/rs/e[0246] 2> /dev/null | sed 's/.*e//') 0
		   rnd $#
		   shift $v
		   e=$1	# an even event: its field is a
		   op bpf locked -s $PCF/pc_bpfcount -o /dev/null rs:e$e a -t 1 ;;
		*) op unmodified true ;;
		esac
	done
}

files() {
	while [ "$(date +%s)" -lt "$END" ]; do
		rnd $NF
		f=$(file $v)
		rnd 5
		case $v in
		0) op rewrite sh -c "printf '' >> $f" ;;
		1) op touch touch "$f" ;;
		2) op rename-over sh -c "cp $S $f.new && mv $f.new $f" ;;
		3) op copy-up chmod 755 "$F3" ;;
		*) op grow sh -c "echo >> $f" ;;
		esac
		sleep 0.3
	done
}

hitter() {
	while [ "$(date +%s)" -lt "$END" ]; do
		rnd $NF
		op hit "$(file $v)" loop 50
	done
}

unloader() {
	while [ "$(date +%s)" -lt "$END" ]; do
		sleep 3
		if rmmod probecache 2> /dev/null; then
			echo "rmmod ok" >> "$D/ops.$W"
			op insmod pc_load
		else
			echo "rmmod refused" >> "$D/ops.$W"
		fi
	done
}

END=$(($(date +%s) + SECS))
pids=""
k=0
for W in w1 w2 w3 w4 remover tracer files hitter unloader; do
	k=$((k + 1))
	r=$((SEED * 16 + k))
	case $W in
	w*) writer & ;;
	*) $W & ;;
	esac
	pids="$pids $!"
done
# shellcheck disable=SC2086
if wait_for $((SECS + $(pc_scaled 60))) gone $pids; then
	ok "the workers finish ($SECS s)"
else
	not_ok "the workers finish ($SECS s)"
	# shellcheck disable=SC2086
	pc_stuck $pids
	# shellcheck disable=SC2086
	kill -9 $pids 2> /dev/null
fi
sed -n 's/^\([a-z-]*\) \(.*\)/\1:\2/p' $D/ops.* | sort | uniq -c |
	awk '{ printf "%s=%s ", $2, $1 } END { print "" }' | fold -w 100 | sed 's/^/operations: /' |
	while read -r l; do diag "$l"; done
# An operation that never succeeded exercised only its refusal: say why it failed.
for f in $D/why.*; do
	[ -f "$f" ] || continue
	_n=${f#"$D/why."}
	[ "${_n%-bad}" = "$_n" ] || continue	# never meant to
	grep -qx "$_n ok" $D/ops.* || sed "s/^/never ok: $_n: /" "$f" | while read -r l; do diag "$l"; done
done

# Undo what the tracer may have left on when the clock stopped.
for t in $TR/events/rs/*/trigger; do
	[ -f "$t" ] || continue
	echo '!hist:keys=common_pid' > "$t" 2> /dev/null
	for i in 0 1 2 3 4 5 6 7; do
		echo "!enable_event:rs:e$i" > "$t" 2> /dev/null
	done
done
[ -d $TR/events/rs ] && echo 0 > $TR/events/rs/enable
rmdir $TR/instances/rs* 2> /dev/null
check "the module is loaded or loads" pc_load
check "clear" kclear
check_eq "listing empty, nothing armed" "0 0 " "$(cat $PC_SYSFS/nr_probes) $(cat $PC_SYSFS/nr_armed) $(cat $PC_LIST)"
# Events left without a definition: only the remover's deletions race the writers, and
# they delete events, so none; and no event got a second probe.
check_eq "no event left without its definition" "" "$(ls -d $TR/events/rs/*/ 2> /dev/null)"
check_eq "no event ever got a second probe (uprobe_events lines per name)" "" \
	"$(sed -n 's|^[pr]:rs/\([^ ]*\) .*|\1|p' $TR/uprobe_events | sort | uniq -d)"
check_eq "no site left" "" "$(cat /proc/probecache_sites)"
for i in 0 1 2 3; do
	check "$(file $i): writable again (no write denial left)" sh -c ": >> $(file $i)"
done
cp $S $D/fresh
mkfifo $D/w
$D/fresh semwatch < $D/w > $D/w.out &
wp=$!
exec 3> $D/w
echo >&3
wait_for 10 lines_ge $D/w.out 1
check_eq "a fresh process: the original instruction byte" "$orig" "$($PCF/pc_peek $wp $D/fresh $pc_sdt_OFF_pc_add)"
exec 3>&-
wait $wp
umount $D/ov 2> /dev/null
check "rmmod" pc_unload
tap_done
