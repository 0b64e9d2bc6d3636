#!/bin/sh
# In-VM half of tests/vm/sysboot.sh, run by probecache-test-hook.service (systemd, after
# multi-user.target) at the end of every boot, TAP on ttyS1. Boot 1 installs the .debs
# and configures a preload and a traced service, then reboots; boot 2 checks the boot-time
# preload, stop, a second kernel's headers, remove and purge, then powers off.
# Payload (/pc, read-only): this script, tap.sh, debs/ (the two packages), debs-6.12/
# (the second kernel's headers), ops_work, probecache-test-traced.service, kver2, and
# unless SYSBOOT_DKMS=vm dkms/{6.1,6.12}/probecache-VERSION.dkms.tar.gz (host DKMS builds).
. /pc/tap.sh
export DEBIAN_FRONTEND=noninteractive PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
P=probecache-resolve
R=$(uname -r)
R2=$(cat /pc/kver2)
W=/usr/local/bin/ops_work
state=/var/lib/probecache-test
mkdir -p "$state"
stage=$(cat "$state/stage" 2> /dev/null || echo 1)

# run DESC CMD...: ok if CMD exits 0; its output goes to the log either way, timed.
run() {
	_d=$1
	shift
	_t=$(date +%s)
	if "$@" > /tmp/run.log 2>&1; then
		ok "$_d ($(( $(date +%s) - _t ))s)"
	else
		not_ok "$_d (exit $?)"
	fi
	sed -e 's/(Reading database \.\.\. [0-9]*%//g' -e 's/^/#     /' /tmp/run.log | tail -n 25
}

# The probes: one line each in /proc/probecache_probes ("GROUP:EVENT state=S ...
# hits=N ... args=ARGS", args last; tests/vm/lib-vm.sh pc_field reads args too).
L=/proc/probecache_probes
# field GROUP:EVENT FIELD: a field (not args) of the probe's line; fails when not listed
field() {
	awk -v n="$1" -v k="$2" '$1 == n {
		for (i = 2; i <= NF && index($i, "args=") != 1; i++)
			if (index($i, k "=") == 1) { print substr($i, length(k) + 2); f = 1; break }
		exit
	}
	END { exit !f }' "$L" 2> /dev/null
}
state_of() { field "$1" state || echo none; }
unit_prop() { systemctl show -P "$2" "$1"; }
# dkms_state KVER: "installed" when DKMS built and installed probecache for KVER
dkms_state() { dkms status -m probecache -k "$1" 2> /dev/null | sed -n 's/.*: \([a-z]*\)$/\1/p'; }

boot1() {
	check_eq "PID 1 is systemd" "systemd" "$(cat /proc/1/comm)"
	# No network in the VM: every dependency is already in the image, as on a host whose
	# configuration management installs dkms and the headers first.
	where="DKMS builds in the VM"
	if [ -f /pc/dkms/6.1/probecache-*.dkms.tar.gz ]; then
		# The postinst's binary-tarball path (sysboot.sh says why): dkms ldtarball + install.
		mkdir -p /usr/share/probecache-dkms
		cp /pc/dkms/6.1/probecache-*.dkms.tar.gz /usr/share/probecache-dkms/
		where="DKMS build from the host, dkms ldtarball + install in the VM"
	fi
	run "apt-get install ./probecache-dkms_*.deb ./probecache-tools_*.deb ($where)" \
		apt-get install -y --no-install-recommends /pc/debs/probecache-dkms_*.deb \
		/pc/debs/probecache-tools_*.deb
	rm -rf /usr/share/probecache-dkms
	check_eq "dkms status: installed for $R" "installed" "$(dkms_state "$R")"
	check_eq "modprobe resolves probecache to DKMS's module" \
		"/lib/modules/$R/updates/dkms/probecache.ko" "$(modinfo -n probecache 2>&1)"
	check_eq "  built for the running kernel" "$R" "$(modinfo -F vermagic probecache | cut -d' ' -f1)"
	check_eq "probecache-preload.service enabled by the package" "enabled" \
		"$(systemctl is-enabled probecache-preload.service 2>&1)"
	check_eq "  but not started by it (no module loaded mid-install)" "inactive no" \
		"$(systemctl is-active probecache-preload.service) $([ -d /sys/module/probecache ] && echo yes || echo no)"
	check_eq "/var/cache/probecache: root 0755" "root:root 755" "$(stat -c '%U:%G %a' /var/cache/probecache)"
	check_eq "probecache-metrics.timer installed, not enabled nor started by the package" \
		"disabled inactive" \
		"$(systemctl is-enabled probecache-metrics.timer 2>&1) $(systemctl is-active probecache-metrics.timer)"

	# What an administrator does: cache the binary's probes, name one in preload.conf (a
	# conffile, edited), order the traced service after the preload.
	install -m 0755 /pc/ops_work "$W"
	run "probecache-resolve scan $W" $P scan "$W"
	echo "sdt_ops:tick@$W" >> /etc/probecache/preload.conf
	cp /pc/probecache-test-traced.service /etc/systemd/system/
	run "systemctl enable probecache-test-traced.service" systemctl enable probecache-test-traced.service
	echo 2 > "$state/stage"
}

# metrics COPY_HITS: probecache-metrics.timer, which an administrator enables where
# node_exporter runs, writes the metrics of sdt_ops:tick (5 hits in its file, COPY_HITS in
# the copy follow added and released: in the probe's count, in no series of its own) to
# its textfile directory; without that directory its service is skipped, not failed.
metrics() {
	prom=/var/lib/prometheus/node-exporter
	run "systemctl start probecache-metrics.service, no $prom" systemctl start probecache-metrics.service
	check_eq "  skipped on its condition, no file, not failed" "no success no" \
		"$(unit_prop probecache-metrics ConditionResult) $(unit_prop probecache-metrics Result) $([ -e $prom ] && echo yes || echo no)"
	mkdir -p $prom
	run "systemctl enable --now probecache-metrics.timer" systemctl enable --now probecache-metrics.timer
	check_eq "  enabled, active" "enabled active" \
		"$(systemctl is-enabled probecache-metrics.timer 2>&1) $(systemctl is-active probecache-metrics.timer)"
	_n=300
	until [ -s $prom/probecache.prom ] || [ $_n -eq 0 ]; do sleep 0.1; _n=$((_n - 1)); done
	check "  the timer ran its service: $prom/probecache.prom written" test -s $prom/probecache.prom
	check "  triggered by the timer" test -n "$(unit_prop probecache-metrics.timer LastTriggerUSec)"
	# Once more now, for the counts as they are.
	run "systemctl start probecache-metrics.service" systemctl start probecache-metrics.service
	# (not $L: the listing's path, which field reads)
	_lab="event=\"sdt_ops:tick\",build_id=\"$(field sdt_ops:tick build_id)\""
	check "  the module's hits: 5 + the copy's $1" \
		grep -qxF "probecache_probe_hits_total{$_lab,path=\"$W\"} $((5 + $1))" $prom/probecache.prom
	check "  the copy's, released, in no series of its own" \
		sh -c "! grep -qF 'path=\"/tmp/ops_copy\"' $prom/probecache.prom"
	check_eq "  root 0644, # EOF last, nothing else in the directory" \
		"root 644 # EOF probecache.prom" \
		"$(stat -c '%U %a' $prom/probecache.prom) $(tail -n 1 $prom/probecache.prom) $(ls $prom)"
	check_eq "  its runs leave nothing in the journal (LogLevelMax=notice)" "" \
		"$(journalctl -b -q -o cat -u probecache-metrics.service)"
}

boot2() {
	check_eq "PID 1 is systemd" "systemd" "$(cat /proc/1/comm)"
	check_eq "probecache-preload.service ran at boot: active, exit 0" "active success 0" \
		"$(systemctl is-active probecache-preload.service) $(unit_prop probecache-preload Result) $(unit_prop probecache-preload ExecMainStatus)"
	check_eq "  it loaded DKMS's module (srcversion)" "$(modinfo -F srcversion probecache 2>&1)" \
		"$(cat /sys/module/probecache/srcversion 2>&1)"
	check_eq "  it armed sdt_ops:tick from preload.conf" "armed" "$(state_of sdt_ops:tick)"
	check_eq "  its log: that probe and the summary (nothing stale, skipped or failed)" \
		"armed sdt_ops:tick ($W)
preload: 1 armed, 0 already armed, 0 skipped, 0 failed" \
		"$(journalctl -b -q -o cat _SYSTEMD_UNIT=probecache-preload.service | grep -v '^[A-Z][a-z]*ing \|^Finished ')"
	pre_done=$(unit_prop probecache-preload ExecMainExitTimestampMonotonic)
	svc_start=$(unit_prop probecache-test-traced ExecMainStartTimestampMonotonic)
	diag "preload exited at ${pre_done}us, traced service started at ${svc_start}us (monotonic)"
	check "the preload finished before the traced service started" \
		test "${pre_done:-0}" -gt 0 -a "${svc_start:-0}" -ge "${pre_done:-0}"
	check_eq "  the traced service ran: ops_work: 5 ticks" "ops_work: 5 ticks" \
		"$(journalctl -b -q -o cat _SYSTEMD_UNIT=probecache-test-traced.service)"
	check_eq "  its very first calls are counted: 5 hits" "5" "$(field sdt_ops:tick hits)"
	check_eq "probecache-follow.service: enabled by the package, running since boot" \
		"enabled active" \
		"$(systemctl is-enabled probecache-follow.service 2>&1) $(systemctl is-active probecache-follow.service)"
	systemctl is-active -q probecache-follow.service ||
		journalctl -b -q -o cat -u probecache-follow.service | tail -n 20 | sed 's/^/#   /'
	# A copy of the traced binary started after the preload: follow makes it a site of
	# sdt_ops:tick (by its path) within a tick or two of its start; 12 ticks, 250 ms apart.
	cp "$W" /tmp/ops_copy
	/tmp/ops_copy 12 250 > /dev/null
	# The probe's hits keep a released site's: the copy's are what it has past the 5.
	copy_hits=$(($(field sdt_ops:tick hits) - 5))
	check "  a copy started later is followed: at least 9 of its 12 hits counted ($copy_hits)" \
		test "$copy_hits" -ge 9
	check "  and the unit's log says so" sh -c "journalctl -b -q -o cat _SYSTEMD_UNIT=probecache-follow.service |
		grep -q '^followed sdt_ops:tick to /tmp/ops_copy (pid [0-9]*)\$'"
	# Once no process maps it, the follower releases the copy's site (its event, then
	# unsite): the file is writable again.
	_n=100
	while grep -q ' path=/tmp/ops_copy$' /proc/probecache_sites && [ $_n -gt 0 ]; do
		sleep 0.1
		_n=$((_n - 1))
	done
	check "  once it exited, its site is released (within 10 s)" \
		sh -c "! grep -q ' path=/tmp/ops_copy\$' /proc/probecache_sites"
	check "  and the unit's log says so" sh -c "journalctl -b -q -o cat _SYSTEMD_UNIT=probecache-follow.service |
		grep -qxF 'released sdt_ops:tick from /tmp/ops_copy (no process maps it)'"
	check "  and the copy is writable again" sh -c ': >> /tmp/ops_copy'
	metrics "${copy_hits:-0}"
	check_eq "no failed unit" "" "$(systemctl list-units --failed --plain --no-legend)"
	if systemctl status --no-pager probecache-preload.service > /tmp/status 2>&1; then
		check "systemctl status probecache-preload: active (exited), status=0/SUCCESS" \
			grep -q 'status=0/SUCCESS' /tmp/status
	else
		not_ok "systemctl status probecache-preload exits 0"
	fi
	sed 's/^/#   /' /tmp/status

	# Stop disarms exactly what the preload armed, not a probe armed by hand.
	$P arm -q "sdt_ops:done@$W" > /dev/null 2>&1
	run "systemctl stop probecache-preload" systemctl stop probecache-preload.service
	check_eq "  sdt_ops:tick (preloaded) disarmed" "none" "$(state_of sdt_ops:tick)"
	check_eq "  sdt_ops:done (armed by hand) still armed" "armed" "$(state_of sdt_ops:done)"
	check_eq "  inactive, result success" "inactive success" \
		"$(systemctl is-active probecache-preload.service) $(unit_prop probecache-preload Result)"
	check "  /run/probecache/preloaded removed" test ! -e /run/probecache/preloaded

	# A second kernel's headers: dkms's header_postinst.d hook runs autoinstall for it.
	where="DKMS autoinstall builds in the VM"
	if [ -f /pc/dkms/6.12/probecache-*.dkms.tar.gz ]; then
		# ldtarball loads the binaries, then tries to add probecache/VERSION again and
		# exits 3 ("already contains"); what counts is the state it leaves.
		dkms ldtarball --force /pc/dkms/6.12/probecache-*.dkms.tar.gz 2>&1 | sed 's/^/#     /'
		check_eq "dkms ldtarball of the host's $R2 build: dkms status built, not installed" \
			"built" "$(dkms_state "$R2")"
		where="DKMS autoinstall installs the host's build"
	fi
	run "dpkg -i the $R2 headers ($where)" dpkg -i /pc/debs-6.12/*.deb
	check_eq "dkms status: installed for $R2" "installed" "$(dkms_state "$R2")"
	ko2=$(find "/lib/modules/$R2/updates/dkms" -name 'probecache.ko*' 2> /dev/null)
	check_eq "  /lib/modules/$R2/updates/dkms/probecache.ko* built for $R2" "$R2" \
		"$(modinfo -F vermagic "$ko2" 2> /dev/null | cut -d' ' -f1)"

	# remove: the unit stopped (ExecStop with the module loaded), the module unloaded,
	# every shipped file gone but the conffile; the cache data stays until purge.
	systemctl start probecache-preload.service
	check_eq "preload started again before remove" "armed" "$(state_of sdt_ops:tick)"
	dpkg -L probecache-dkms probecache-tools | sort -u > /tmp/shipped
	run "apt-get remove probecache-dkms probecache-tools" \
		apt-get remove -y probecache-dkms probecache-tools
	check_eq "  no probecache module loaded" "no" "$([ -d /sys/module/probecache ] && echo yes || echo no)"
	check_eq "  the unit's ExecStop ran" "preload: stopped, 1 preloaded probes disarmed" \
		"$(journalctl -b -q -o cat _SYSTEMD_UNIT=probecache-preload.service | grep 'preload: stopped' | tail -n 1)"
	# probecache-dkms has no conffile: dpkg forgets it at once; probecache-tools keeps one.
	check_eq "  dpkg: probecache-dkms gone (un), probecache-tools config-files only (rc)" "un rc" \
		"$(dpkg-query -W -f='${db:Status-Abbrev}' probecache-dkms probecache-tools 2> /dev/null | tr -s ' ' | sed 's/ $//')"
	left=$(while read -r f; do [ -d "$f" ] || [ ! -e "$f" ] || echo "$f"; done < /tmp/shipped)
	check_eq "  of the shipped files only the conffile is left" "/etc/probecache/preload.conf" "$left"
	check "  and it keeps the administrator's edit" grep -qx "sdt_ops:tick@$W" /etc/probecache/preload.conf
	check_eq "  no probecache.ko left under /lib/modules, no DKMS tree, no source" "" \
		"$(find /lib/modules /var/lib/dkms /usr/src -name 'probecache*' 2> /dev/null)"
	check "  the probe cache (data, not shipped) stays until purge" test -d /var/cache/probecache/
	check_eq "  the metrics timer stopped, its file removed (node_exporter would export it)" \
		"inactive no" \
		"$(systemctl is-active probecache-metrics.timer) $([ -e /var/lib/prometheus/node-exporter/probecache.prom ] && echo yes || echo no)"
	run "apt-get purge probecache-dkms probecache-tools" apt-get purge -y probecache-dkms probecache-tools
	check_eq "  dpkg forgot both" "" \
		"$(dpkg-query -W -f='${db:Status-Abbrev}\n' probecache-dkms probecache-tools 2> /dev/null | grep -v '^un')"
	check_eq "  no /etc/probecache, cache, state or enablement link left" "" \
		"$(ls -d /etc/probecache /var/cache/probecache /run/probecache \
			/etc/systemd/system/*/probecache-preload.service \
			/etc/systemd/system/*/probecache-metrics.timer 2> /dev/null)"
	echo 3 > "$state/stage"
}

echo "### STAGE $stage $R"
case "$stage" in
1) boot1 ;;
2) boot2 ;;
*) not_ok "stage $stage: the VM booted more often than the test asks" ;;
esac
tap_done
echo "### STAGE-END $stage rc=$?"
sync
# sysboot.sh runs QEMU with -no-reboot: either way the VM exits; after boot 1 the host
# boots the same disk again.
if [ "$stage" = 1 ]; then systemctl --no-block reboot; else systemctl --no-block poweroff; fi
