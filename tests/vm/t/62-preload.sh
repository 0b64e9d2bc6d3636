#!/bin/sh
# Boot-time preload exactly as probecache-preload.service runs it: the module installed
# (modules.dep), /etc-style config with a stale and a missing entry, ExecStart
# `probecache-resolve preload` before the workload. Every entry is defined (perf list
# shows it); the unmarked one is counted (the default, as before trace events), the one
# marked "define" is not armed. ExecStop `preload --stop` undoes exactly what preload did:
# a probe defined by hand before it stays.
. /pc/lib.sh
P=probecache-resolve
R=$(uname -r)
W=/pc/fixtures/ops_work
export PROBECACHE_DIR=/tmp/c62 PROBECACHE_ETC=/tmp/etc62 PROBECACHE_RUN=/tmp/run62
pc_unload
st() { echo "$(pc_field "$1" state) $(pc_field "$1" counting)"; }
# present GROUP:EVENT: yes or no, as the listing says ("no listing" without one)
present() {
	if pc_listed "$1"; then echo yes; elif pc_unlisted "$1"; then echo no; else echo "no listing"; fi
}

# What an administrator leaves behind: module installed, cache filled, config written.
mkdir -p "/lib/modules/$R/updates" /tmp/gone /tmp/stale "$PROBECACHE_ETC/preload.d"
cp "$PC_KO" "/lib/modules/$R/updates/"
ln -sf /usr/bin/kmod /tmp/depmod
/tmp/depmod -a "$R" 2> /dev/null
cp /pc/fixtures/pc_sdt /tmp/gone/pc_sdt
cp "$W" /tmp/stale/ops_copy
$P scan "$W" /tmp/gone/pc_sdt /tmp/stale/ops_copy > /dev/null 2>&1
rm /tmp/gone/pc_sdt
cp /pc/fixtures/pc_sdt /tmp/stale/ops_copy	# same path, another build-id now
cat > "$PROBECACHE_ETC/preload.conf" <<'CONF'
# traced at boot
sdt_ops:tick@/pc/fixtures/ops_work
sdt_ops:done@/pc/fixtures/ops_work   define   # perf only
CONF
printf '*@/tmp/gone/pc_sdt   # binary removed since\n' > "$PROBECACHE_ETC/preload.d/10-gone.conf"
printf 'sdt_ops:done@/tmp/stale/ops_copy count\n' > "$PROBECACHE_ETC/preload.d/20-stale.conf"

out=$($P preload --dry-run 2>&1); rc=$?
check_eq "preload --dry-run: exit 3 (some would be skipped)" "3" "$rc"
check_eq "  says arm for the counted entry, define for the other" \
	"would arm sdt_ops:tick|would define sdt_ops:done|" \
	"$(echo "$out" | grep '^would [ad]' | head -n 2 | cut -d' ' -f1-3 | tr '\n' '|')"
check_eq "  and loads nothing" "no" "$([ -d $PC_SYSFS ] && echo yes || echo no)"

out=$($P preload 2> /tmp/err62); rc=$?
check_eq "preload (ExecStart): exit 3, stale and missing skipped" "3" "$rc"
check "  loaded the installed module itself" test -f $PC_SYSFS/version
check_eq "  sdt_ops:tick (unmarked): armed, counting" "armed 1" "$(st sdt_ops:tick)"
check_eq "  sdt_ops:done (define): defined, not counting" "defined 0" "$(st sdt_ops:done)"
check_eq "  the stale and the missing binary's probes are not defined" "2" "$(cat $PC_SYSFS/nr_probes)"
if grep -q '/tmp/gone/pc_sdt' /tmp/err62 && grep -q '/tmp/stale/ops_copy' /tmp/err62; then
	ok "  the missing and the stale binary are reported by path"
else
	not_ok "  the missing and the stale binary are reported by path"
	sed 's/^/#   /' /tmp/err62
fi
check_eq "  summary: the define-only entry apart" \
	"preload: 1 defined only (armed while perf, ftrace or BPF listen), 0 already defined" \
	"$(echo "$out" | tail -n 2 | head -n 1)"
check "  then the counted ones, skips and failures" sh -c \
	"echo '$(echo "$out" | tail -n 1)' | grep -Eqx 'preload: 1 armed, 0 already armed, [1-9][0-9]* skipped, 0 failed'"
check_eq "  state file lists what preload defined" "sdt_ops:done sdt_ops:tick" \
	"$(sort $PROBECACHE_RUN/preloaded 2>&1 | xargs)"
check "  perf list shows the define-only probe" sh -c \
	"perf list 2>/dev/null | grep -q 'sdt_ops:done .*Tracepoint'"

"$W" 7 > /dev/null
check_eq "workload after preload: 7 hits counted" "7" "$(pc_hits sdt_ops:tick)"
check_eq "  none on the define-only probe" "0" "$(pc_hits sdt_ops:done)"

out=$($P preload --stop 2>&1); rc=$?
check_eq "preload --stop (ExecStop)" "0 preload: stopped, 2 preloaded probes disarmed" \
	"$rc $(echo "$out" | tail -n 1)"
check_eq "  deleted what preload defined" "no no" "$(present sdt_ops:tick) $(present sdt_ops:done)"
check "  removed the state file" test ! -e $PROBECACHE_RUN/preloaded

# A probe armed by hand before the preload is not preload's to undo.
$P arm -q 'sdt_ops:done@/pc/fixtures/ops_work' > /dev/null 2>&1
rm "$PROBECACHE_ETC"/preload.d/*.conf
out=$($P preload 2>&1); rc=$?
check_eq "preload with every entry verifying: exit 0" "0" "$rc"
check_eq "  armed again" "armed 1" "$(st sdt_ops:tick)"
check_eq "  the hand-armed one: already defined, not in the state file" "1 sdt_ops:tick" \
	"$(echo "$out" | grep -c '0 defined only.*1 already defined') $(cat $PROBECACHE_RUN/preloaded)"
$P preload --stop > /dev/null 2>&1
check_eq "  --stop leaves the probe armed by hand" "no armed 1" "$(present sdt_ops:tick) $(st sdt_ops:done)"
$P disarm -q 'sdt_ops:*'

$P unload > /dev/null 2>&1
rm -rf "/lib/modules/$R" /tmp/gone /tmp/stale
pc_load
out=$($P preload 2>&1); rc=$?
check_eq "preload with a module loaded by hand and none installed: exit 0" "0" "$rc"
check_eq "  armed" "armed 1" "$(st sdt_ops:tick)"
pc_unload
tap_done
