# In-VM helpers, appended to tests/lib/tap.sh to form /pc/lib.sh.
PC_SYSFS=/sys/kernel/probecache
PC_KO=${PC_KO:-/pc/probecache.ko}
# Per-kernel workload sizes (PC_MANY, PC_RACE_ROUNDS, PC_KERNEL), written
# by tests/vm/run.sh's workload_env.
[ -f /pc/env ] && . /pc/env

# pc_load [PARAM=VALUE...]: insmod the module under test unless already loaded.
pc_load() {
	[ -d "$PC_SYSFS" ] && return 0
	insmod "$PC_KO" "$@"
}

# pc_unload: remove the module if loaded: clear (disarms and deletes every probe; a
# defined probe keeps the module loaded), then rmmod.
pc_unload() {
	[ -d "$PC_SYSFS" ] || return 0
	pc_events_remove && echo clear > "$PC_SYSFS/control" && rmmod probecache
}

# pc_events_remove: every listed probe's kernel uprobe events (its copies', then its
# own) removed, as probecache-resolve does before "clear"; fails at one in use.
pc_events_remove() {
	for _pc_n in $(pc_probes); do
		for _pc_e in "/sys/kernel/tracing/events/${_pc_n%%:*}/${_pc_n#*:}"_copy* \
			"/sys/kernel/tracing/events/${_pc_n%%:*}/${_pc_n#*:}"; do
			[ ! -e "$_pc_e" ] || echo "-:${_pc_n%%:*}/${_pc_e##*/}" \
				>> /sys/kernel/tracing/uprobe_events || return 1
		done
	done
}

# pc_ctl LINE...: write command lines to control; prints last_error on failure.
pc_ctl() {
	if printf '%s\n' "$@" > "$PC_SYSFS/control" 2>/dev/null; then
		return 0
	fi
	cat "$PC_SYSFS/last_error" >&2
	return 1
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds
wait_for() {
	_n=$(($1 * 10))
	shift
	while [ "$_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	return 1
}

# pc_scaled SECONDS: SECONDS times the speed factor /init measured (as budgets are)
pc_scaled() {
	echo $((($1 * ${PC_FACTOR10:-10} + 9) / 10))
}

# until_deadline END CMD...: run CMD (output dropped) until `date +%s` reaches END
until_deadline() {
	_end=$1
	shift
	while [ "$(date +%s)" -lt "$_end" ]; do
		"$@" > /dev/null 2>&1
	done
}

# gone PID...: succeeds once none of the PIDs runs (for wait_for)
gone() {
	for _p in "$@"; do
		! kill -0 "$_p" 2> /dev/null || return 1
	done
}

# pc_stuck PID...: diag each PID and its children still running, with the kernel stack
# each sleeps in: a worker that does not end says where it is.
pc_stuck() {
	for _s in /proc/[0-9]*/status; do
		_p=${_s#/proc/}
		_p=${_p%/status}
		_pp=$(awk '/^PPid:/ { print $2 }' "$_s" 2> /dev/null)
		case " $* " in *" $_p "*|*" $_pp "*) ;; *) continue ;; esac
		diag "stuck: $_p $(tr '\0' ' ' < /proc/$_p/cmdline 2> /dev/null | cut -c1-80)"
		head -n 12 /proc/$_p/stack 2> /dev/null | while read -r _l; do diag "  $_l"; done
	done
}

# pc_arm_line RECORD: define the probe RECORD ("p:GROUP/EVENT BUILD-ID /path:0xOFF ...")
# and arm it with its hit counter. Every kernel-side arming of the disk and container
# tests goes through here, so a change of the control commands is made in one place.
# On failure prints "pc_write: ENAME after N bytes" (errno's name) and last_error.
pc_arm_line() {
	_ge=${1%% *}
	_ge=${_ge#*:}
	printf 'add %s\ncount %s\n' "$1" "${_ge%%/*}:${_ge#*/}" |
		/pc/fixtures/pc_write "$PC_SYSFS/control" || {
		cat "$PC_SYSFS/last_error" >&2
		return 1
	}
}

# The probe listing: /proc/probecache_probes (procfs: Debian 6.1 does not export
# tracefs_create_file to modules), present while the module is loaded, one line per
# probe in definition order (Documentation/ABI, listing-spec):
#   GROUP:EVENT state=S consumers=N hits=N counting=0|1 type=p|r pid=N unlinked=0|1
#     build_id=HEX offset=0xHEX ref_ctr_offset=0xHEX path=PATH args=ARGS
# args= is last and ARGS the whole rest of the line (spaces and '=' included).
PC_LIST=/proc/probecache_probes

# pc_field GROUP:EVENT FIELD: the value of FIELD in the probe's line, as the old per-probe
# sysfs file printed it (args: the rest of the line); prints nothing and fails when the
# probe, the field or the listing is absent. Fields are looked up before args= only, so an
# arg named like a field ("pid=%di") never shadows it.
pc_field() {
	awk -v n="$1" -v k="$2" '$1 == n {
		if (k == "args") {
			if (match($0, / args=/)) { print substr($0, RSTART + 6); f = 1 }
			exit
		}
		for (i = 2; i <= NF && index($i, "args=") != 1; i++)
			if (index($i, k "=") == 1) { print substr($i, length(k) + 2); f = 1; break }
		exit
	}
	END { exit !f }' "$PC_LIST" 2> /dev/null
}

# pc_test GROUP:EVENT FIELD OP VALUE: test(1) of the field against VALUE ("state = stale",
# "hits -gt 100"); fails when the probe is absent. A function, so wait_for can poll it.
pc_test() {
	_pc_v=$(pc_field "$1" "$2") || return 1
	test "$_pc_v" "$3" "$4"
}

# pc_probes: the names of every listed probe, in definition order, one a line; fails
# (saying so on stderr) when the listing cannot be read.
pc_probes() {
	_pc_l=$(cat "$PC_LIST") || return 1
	[ -z "$_pc_l" ] || printf '%s\n' "$_pc_l" | awk '{ print $1 }'
}

# pc_listed GROUP:EVENT: succeeds if the probe has a line in the listing
pc_listed() {
	awk -v n="$1" '$1 == n { f = 1; exit } END { exit !f }' "$PC_LIST" 2> /dev/null
}

# pc_unlisted GROUP:EVENT: succeeds if the listing can be read and has no line for the
# probe (a missing listing is a failure, not an absent probe)
pc_unlisted() {
	_pc_l=$(cat "$PC_LIST") || return 1
	! printf '%s\n' "$_pc_l" | awk -v n="$1" '$1 == n { f = 1 } END { exit !f }'
}

# pc_hits GROUP:EVENT: the probe's hit count
pc_hits() {
	pc_field "$1" hits
}

# pc_disk FS: succeeds if /init mounted the virtio disk with FS (ext4, xfs) on /mnt/FS;
# else prints why.
# pc_fuse DIR FILE STALL: a FUSE mount on DIR serving FILE as DIR/c1, whose reads wait
# while the file STALL exists (tests/fixtures/pc_fusefs.c); fails where the kernel has
# no FUSE. Unmount DIR to end its server.
pc_fuse() {
	grep -qw fuse /proc/filesystems || return 1
	[ -e /dev/fuse ] || mknod /dev/fuse c 10 229 || return 1
	mkdir -p "$1"
	"${PCF:-/pc/fixtures}/pc_fusefs" "$1" "$2" "$3" > /tmp/pc_fuse.out 2>&1 &
	wait_for 10 grep -q '^mounted$' /tmp/pc_fuse.out
}

pc_disk() {
	grep -q " /mnt/$1 $1 " /proc/mounts && return 0
	echo "/mnt/$1 is not an $1 mount: $(cat /run/pc-disks.err 2> /dev/null)"
	return 1
}

# pc_missing WHAT: a script cannot run because WHAT is missing from the VM: a failure
# under CI=true (CI must run everything, PC_CI from run.sh), a skip elsewhere.
pc_missing() {
	if [ "${PC_CI:-}" = true ]; then
		not_ok "$1 (missing under CI=true)"
	else
		ok "# SKIP $1"
	fi
}

# Read-only tool disks run.sh attaches (tool_disks): /init mounts the image NAME on /mnt/NAME
# (bpftrace: bookworm's bpftrace, tests/vm/bpfimage.sh; sdt-SET: Debian programs with SDT
# notes, tests/vm/sdtimage.sh SET), a root of its own for chroot.

# pc_image_root NAME FILE: succeeds once /mnt/NAME holds FILE (a path inside it) and has
# the VM's /proc, /sys (tracefs and debugfs below it), /dev, /tmp and /pc bound into it
# (paths under /tmp and /pc are then the same inside and out); else prints why not.
pc_image_root() {
	if [ ! -e "/mnt/$1$2" ]; then
		_why=$(cat "/pc/$1.missing" /run/pc-disks.err 2> /dev/null)
		echo "no $2 on /mnt/$1: ${_why:-no disk attached (run.sh attaches it for *-$1.sh scripts)}"
		return 1
	fi
	for _m in proc:bind sys:rbind dev:bind tmp:bind pc:bind; do
		grep -q " /mnt/$1/${_m%:*} " /proc/mounts && continue
		mount -o "${_m#*:}" "/${_m%:*}" "/mnt/$1/${_m%:*}" || return 1
	done
}

# pc_image_unbind NAME: undo pc_image_root's binds (the disk stays mounted)
pc_image_unbind() {
	for _m in pc tmp dev sys proc; do
		! grep -q " /mnt/$1/$_m " /proc/mounts || umount -l "/mnt/$1/$_m"
	done
}

PC_BT=/mnt/bpftrace

# pc_bpftrace_root: bpftrace's image, ready for pc_bpftrace; else prints why not.
pc_bpftrace_root() {
	pc_image_root bpftrace /usr/bin/bpftrace
}

# pc_bpftrace ARGS...: bpftrace ARGS in its root (paths under /pc and /tmp are the same)
pc_bpftrace() {
	chroot "$PC_BT" /usr/bin/bpftrace "$@"
}

# pc_bpftrace_unbind: undo pc_bpftrace_root's binds
pc_bpftrace_unbind() {
	pc_image_unbind bpftrace
}

# Bookworm's promtool: run.sh's tool disk for *-metrics.sh scripts (tests/vm/promimage.sh),
# a Go binary that needs only the initramfs's libc.
PC_PROMTOOL=/mnt/promtool/promtool

# pc_promtool_ok: succeeds if $PC_PROMTOOL can run; else prints why not.
pc_promtool_ok() {
	[ -x "$PC_PROMTOOL" ] && return 0
	_why=$(cat /pc/promtool.missing /run/pc-disks.err 2> /dev/null)
	echo "no promtool on ${PC_PROMTOOL%/*}: ${_why:-no disk attached (run.sh attaches it for *-metrics.sh scripts)}"
	return 1
}

# Containers (35-container, 71-arm64-fs):
# child_of PID: the pid of PID's child (unshare --fork and nsenter --pid fork one)
child_of() {
	for _s in /proc/[0-9]*/status; do
		grep -q "^PPid:[[:space:]]*$1\$" "$_s" 2> /dev/null || continue
		_p=${_s#/proc/}
		echo "${_p%/status}"
		return 0
	done
	return 1
}

# ct_send FD OUT N TOTAL: one request line to a ct_app, wait for its answer
ct_send() {
	echo "$3" >&"$1"
	wait_for 20 grep -qx "done $3 total $4" "$2"
}

# pc_copies_enable 0|1 GROUP:EVENT...: each probe's kernel event and its copies'
# (EVENT_copyN, one event per followed copy) disabled or enabled in the top instance;
# with 1, the trace buffer is emptied first.
pc_copies_enable() {
	_pc_v=$1
	shift
	[ "$_pc_v" = 0 ] || echo > /sys/kernel/tracing/trace
	for _pc_p; do
		for _pc_e in "/sys/kernel/tracing/events/${_pc_p%%:*}/${_pc_p#*:}" \
			"/sys/kernel/tracing/events/${_pc_p%%:*}/${_pc_p#*:}"_copy*; do
			[ ! -e "$_pc_e/enable" ] || echo "$_pc_v" > "$_pc_e/enable"
		done
	done
}

# pc_perf_sum FILE GROUP:EVENT: the counts of perf stat -x, output FILE for the event and
# its copies' events, summed
pc_perf_sum() {
	awk -F, -v e="$2" '$3 == e || index($3, e "_copy") == 1 { n += $1 } END { print n + 0 }' "$1"
}
