# Machine-wide test caches (chroots, kernels, the debug kernel, the sysimage) built in the
# background while earlier suites run (bash; sourced by tests/run-all.sh, tested by
# tests/harness/run.sh with fake builders). On a fresh machine they cost 25-40 minutes,
# mostly the debug kernel's build (CPU) and debootstrap (network); built lazily inside the
# suites that need them, that time adds to the run, while a VM suite (TCG, a mostly
# single-threaded guest) or a host suite leaves a core idle.
#
#   cache_start NAME CMD...   run CMD (a builder that takes its own lock and is a no-op
#                             when its cache is complete) in the background, niced
#                             ($CACHE_NICE, default 10), its output only in
#                             $CACHE_LOGDIR/NAME.log (never in the TAP)
#   cache_wait NAME...        block until each NAME's builder has ended; 0 if all
#                             succeeded; else a "not ok" line per failed one, its log's
#                             tail as comments, the plan, and 1: the waiting suite fails
#                             on it without running (it would rebuild in the foreground,
#                             and a retry that succeeds would hide the failure)
#   cache_stop                end the builders still running (run-all's EXIT trap)
#
# CACHE_TIMEOUT (seconds, default 5400) bounds each builder: a hung download fails its
# suite with the log tail instead of hanging the run.
declare -A CACHE_PID=() CACHE_RC=() CACHE_T0=()
CACHE_LOGDIR=${CACHE_LOGDIR:-build/caches}
CACHE_TIMEOUT=${CACHE_TIMEOUT:-5400}

cache_start() {
	local name=$1
	shift
	[ -z "${CACHE_PID[$name]:-}" ] || return 0
	mkdir -p "$CACHE_LOGDIR"
	rm -f "$CACHE_LOGDIR/$name.rc"
	# nice: the suites in the foreground keep their speed (and VM suites their calibrated
	# factor); the builder gets what they leave idle, unless it is on the run's longest
	# path (CACHE_NICE=0, run-all's start_cache). timeout signals its whole group. The
	# exit status also goes to NAME.rc: see cache_wait.
	nice -n "${CACHE_NICE:-10}" timeout "$CACHE_TIMEOUT" \
		bash -c '"$@"; rc=$?; echo "$rc" > "$0"; exit "$rc"' "$CACHE_LOGDIR/$name.rc" "$@" \
		< /dev/null > "$CACHE_LOGDIR/$name.log" 2>&1 &
	CACHE_PID[$name]=$!
	CACHE_T0[$name]=$(date +%s)
}

# Must run in the shell that started the builders (wait knows only its own children),
# so not inside a pipeline.
cache_wait() {
	local name t0 bad=0 n=0
	for name in "$@"; do
		[ -n "${CACHE_PID[$name]:-}" ] || continue
		if [ -z "${CACHE_RC[$name]:-}" ]; then
			t0=$(date +%s)
			wait "${CACHE_PID[$name]}" 2> /dev/null
			CACHE_RC[$name]=$?
			# bash forgets a finished child's status when a later child gets its pid
			# (a long run wraps pid_max): "not a child", 127. Its NAME.rc tells.
			[ "${CACHE_RC[$name]}" -ne 127 ] || [ ! -s "$CACHE_LOGDIR/$name.rc" ] ||
				CACHE_RC[$name]=$(cat "$CACHE_LOGDIR/$name.rc")
			echo "# cache $name: waited $(($(date +%s) - t0))s for its builder" \
				"(started $((t0 - CACHE_T0[$name]))s earlier; log $CACHE_LOGDIR/$name.log)"
		fi
		[ "${CACHE_RC[$name]}" -ne 0 ] || continue
		n=$((n + 1)) bad=1
		echo "not ok $n - cache $name built (exit ${CACHE_RC[$name]}$([ "${CACHE_RC[$name]}" -ne 124 ] ||
			echo ": timed out after ${CACHE_TIMEOUT}s"); log $CACHE_LOGDIR/$name.log)"
		tail -n 20 "$CACHE_LOGDIR/$name.log" | sed 's/^/#   /'
	done
	[ "$bad" -eq 0 ] || { echo "1..$n"; return 1; }
}

cache_stop() {
	local name
	for name in "${!CACHE_PID[@]}"; do
		[ -n "${CACHE_RC[$name]:-}" ] || kill "${CACHE_PID[$name]}" 2> /dev/null || true
	done
}
