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

# pc_unload: remove the module if loaded (disarms everything).
pc_unload() {
	[ -d "$PC_SYSFS" ] || return 0
	rmmod probecache
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
