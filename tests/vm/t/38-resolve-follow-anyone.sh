#!/bin/sh
# Copies run by anyone (issue 42), as `probecache-resolve follow` meets them: an
# unprivileged user (uid 1000) runs 64 copies of a probed binary, each a file of its own.
# While they run, at most max_sites_per_owner (16) of them are sites and root's copy is
# one all the same; once they have exited, the follower releases their sites (their
# events first), the files are writable again, and a root copy started later is a site
# with its hits counted. A copy on a FUSE mount whose server stalls every read is refused
# at once (EREMOTE) and holds up neither the follower nor the other copies; a library copy
# open for writing when mapped (ETXTBSY) is a site at a retry once the writer closed it. On today's
# main (before it) the 64 took 63 of the probe's 64 sites, kept them after exiting, and
# the later root copy was refused.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
export PROBECACHE_DIR=/tmp/pc38a PROBECACHE_RUN=/tmp/run38a
S=$PCF/pc_sdt
P=sdt_pcfix:tick
Q=sdt_pcdl:tick
U=/tmp/anyone
SITES=/proc/probecache_sites
mkdir -p $U /tmp/root38
chmod 755 $U

# sites_of UID: $P's sites (its own file aside) in files of UID
sites_of() { grep -c "^$P site=[1-9][0-9]* .* uid=$1 " $SITES; }
# has_sites UID N: $P has N sites in files of UID (wait_for runs it again each time)
has_sites() { [ "$(sites_of "$1")" = "$2" ]; }
# sited PATH [PROBE]: PROBE ($P) has a site listed with PATH
sited() { grep -q "^${2:-$P} site=[1-9][0-9]* .* path=$1\$" $SITES; }
unsited() { ! sited "$@"; }
# stays N SECONDS CMD...: CMD prints N at every check for SECONDS
stays() {
	_n=$1 _s=$(($2 * 5))
	shift 2
	while [ $_s -gt 0 ]; do
		[ "$("$@")" = "$_n" ] || return 1
		sleep 0.2
		_s=$((_s - 1))
	done
}
# hits_at PATH [PROBE]: hits= of PROBE's ($P's) site listed with PATH
hits_at() {
	awk -v n=${2:-$P} -v p="path=$1" '$1 == n && $NF == p { sub(/hits=/, "", $4); print $4 }' $SITES
}

# root_copy NAME DESC: root's copy /tmp/root38/NAME run (its hitwatch fed through fd 5)
# is a site of $P (check DESC)
root_copy() {
	cp $S /tmp/root38/$1
	pc_watch $1 /tmp/root38/$1 hitwatch
	exec 5> /tmp/$1.in
	check "$2" wait_for "$(pc_scaled 10)" sited /tmp/root38/$1
}
# root_hits NAME N: N hits of root's copy NAME counted; then its process exits
root_hits() {
	echo $2 >&5
	wait_for 20 grep -q "^hits $2" /tmp/$1.out
	check_eq "  its $2 hits counted" $2 "$(hits_at /tmp/root38/$1)"
	exec 5>&-
}

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }
# $P alone: each of pc_sdt's probes would take 16 sites of its own, and each release
# is an event removal and an unsite
check "$P defined and counted, pc_sdt's other probes not" \
	sh -c "probecache-resolve scan --no-define $S > /dev/null && probecache-resolve arm -q $P"
check "$Q too (a library's, for a copy open for writing)" \
	sh -c "probecache-resolve scan --no-define $PCF/libpc_dl.so > /dev/null && probecache-resolve arm -q $Q"
probecache-resolve follow > /tmp/follow.out 2> /tmp/follow.err &
fp=$!
check "follow starts watching" wait_for 30 grep -q '^follow: watching' /tmp/follow.out

i=0
while [ $i -lt 64 ]; do
	i=$((i + 1))
	cp $S $U/c$i
	chown 1000:1000 $U/c$i
done
mkfifo /tmp/u38.in
chmod 666 /tmp/u38.in
# uid 1000 by name for busybox su (its setpriv cannot change ids): it execs the shell,
# which execs the copy, so each $! is the copy's process
grep -q '^pc38:' /etc/passwd 2> /dev/null || echo 'pc38:x:1000:1000::/tmp:/bin/sh' >> /etc/passwd
grep -q '^pc38:' /etc/group 2> /dev/null || echo 'pc38:x:1000:' >> /etc/group
i=0 pids=
while [ $i -lt 64 ]; do
	i=$((i + 1))
	busybox su pc38 -s /bin/sh -c "exec $U/c$i semwatch" < /tmp/u38.in > /dev/null &
	pids="$pids $!"
done
exec 4> /tmp/u38.in
# alive: how many of $pids run, as uid 1000
alive() {
	_a=0
	for _p in $pids; do
		[ "$(awk '/^Uid:/ { print $2 }' /proc/$_p/status 2> /dev/null)" = 1000 ] && _a=$((_a + 1))
	done
	echo $_a
}
all_alive() { [ "$(alive)" = 64 ]; }
check "uid 1000's 64 copies run" wait_for "$(pc_scaled 60)" all_alive
check "while they run, the follower makes 16 of them sites (max_sites_per_owner)" \
	wait_for "$(pc_scaled 30)" has_sites 1000 16
check "  and no more, 3 s on" stays 16 3 sites_of 1000

root_copy during "root's copy started meanwhile is a site all the same"
root_hits during 2

exec 4>&-
wait $pids
check_eq "the 64 have exited" 0 "$(alive)"
if wait_for "$(pc_scaled 60)" has_sites 1000 0; then
	ok "once they have exited, their sites are released"
else
	not_ok "once they have exited, their sites are released"
	diag "left: $(grep "^$P site=[1-9][0-9]* .* uid=1000 " $SITES | head -n 3)"
	diag "released: $(grep -c '^released ' /tmp/follow.out); follow.out ends: $(tail -n 3 /tmp/follow.out)"
fi
check "  their copies' events with them" sh -c \
	"! grep -q \"^p:sdt_pcfix/tick_copy[0-9]* $U/\" $TR/uprobe_events"
check "  their files writable again" sh -c ": >> $U/c1 && : >> $U/c64"
check "  the follower said so" grep -q "^released $P from " /tmp/follow.out

root_copy later "root's copy started later is a site"
root_hits later 3

# FUSE: the copy is refused before anything is read; its stalled server holds up nothing.
if pc_fuse /mnt/fz38 $S /tmp/stall38; then
	pc_watch fz /mnt/fz38/c1 hitwatch
	exec 7> /tmp/fz.in
	echo 1 >&7
	wait_for 20 grep -q '^hits 1' /tmp/fz.out
	: > /tmp/stall38
	root_copy after "with a stalled FUSE copy running, root's next copy is a site all the same"
	check "  the FUSE copy is none" unsited /mnt/fz38/c1
	check "  refused as remote" grep -q "fz38/c1.*is on fuse, whose server can stall reads" /tmp/follow.err
	root_hits after 2
	rm /tmp/stall38
	exec 7>&-
	wait $fz
	umount /mnt/fz38 2> /dev/null || umount -l /mnt/fz38
else
	diag "no FUSE in this kernel: the stalled-copy part left out"
fi

# A refusal for the moment is retried: a library copy that is open for writing when a
# process maps it (ETXTBSY) becomes a site at a retry (1, 2, 4 ... s) once the writer
# has closed it.
cp $PCF/libpc_dl.so /tmp/root38/busy.so
pc_watch bz $PCF/pc_dl
exec 5> /tmp/bz.in
exec 9>> /tmp/root38/busy.so	# after pc_dl started: it must not inherit the writer
echo "open /tmp/root38/busy.so" >&5
wait_for 20 grep -q '^opened$' /tmp/bz.out
check "a copy open for writing when mapped is refused for the moment (ETXTBSY)" \
	wait_for "$(pc_scaled 10)" grep -q "busy.so is open for writing" /tmp/follow.err
sleep 1
check "  and is no site while the writer has it" unsited /tmp/root38/busy.so $Q
exec 9>&-
check "  once the writer closed it, a retry makes it a site" \
	wait_for "$(pc_scaled 15)" sited /tmp/root38/busy.so $Q
echo 4 >&5
wait_for 20 grep -q '^hits 4' /tmp/bz.out
check_eq "  its 4 hits counted" 4 "$(hits_at /tmp/root38/busy.so $Q)"
exec 5>&-
wait $bz

kill -TERM $fp
wait $fp
check_eq "follow: SIGTERM ends it, exit 0" 0 "$?"
diag "follow's stderr: $(grep -c . /tmp/follow.err) lines, e.g. $(head -n 1 /tmp/follow.err)"
probecache-resolve disarm -q "$P" "$Q" > /dev/null 2>&1
check "disarm leaves no site" sh -c "! grep -q '^\($P\|$Q\) ' $SITES"
pc_unload
tap_done
