#!/bin/sh
# Boot-time preload exactly as probecache-preload.service runs it: the module installed
# (modules.dep), /etc-style config with a stale and a missing entry, ExecStart
# `probecache-resolve preload` before the workload, hits counted, ExecStop `preload --stop`.
. /pc/lib.sh
P=probecache-resolve
R=$(uname -r)
W=/pc/fixtures/ops_work
export PROBECACHE_DIR=/tmp/c62 PROBECACHE_ETC=/tmp/etc62 PROBECACHE_RUN=/tmp/run62
pc_unload

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
CONF
printf '*@/tmp/gone/pc_sdt   # binary removed since\n' > "$PROBECACHE_ETC/preload.d/10-gone.conf"
printf 'sdt_ops:done@/tmp/stale/ops_copy\n' > "$PROBECACHE_ETC/preload.d/20-stale.conf"

out=$($P preload --dry-run 2>&1); rc=$?
check_eq "preload --dry-run: exit 3 (some would be skipped)" "3" "$rc"
check_eq "  and loads nothing" "no" "$([ -d $PC_SYSFS ] && echo yes || echo no)"

out=$($P preload 2> /tmp/err62); rc=$?
check_eq "preload (ExecStart): exit 3, stale and missing skipped" "3" "$rc"
check "  loaded the installed module itself" test -f $PC_SYSFS/version
check_eq "  sdt_ops:tick armed" "armed" "$(cat "$PC_SYSFS/probes/sdt_ops:tick/state" 2>&1)"
check_eq "  the stale sdt_ops:done is not armed" "no" \
	"$([ -d "$PC_SYSFS/probes/sdt_ops:done" ] && echo yes || echo no)"
if grep -q '/tmp/gone/pc_sdt' /tmp/err62 && grep -q '/tmp/stale/ops_copy' /tmp/err62; then
	ok "  the missing and the stale binary are reported by path"
else
	not_ok "  the missing and the stale binary are reported by path"
	sed 's/^/#   /' /tmp/err62
fi
check_eq "  state file lists what preload armed" "sdt_ops:tick" "$(cat $PROBECACHE_RUN/preloaded 2>&1)"

"$W" 7 > /dev/null
check_eq "workload after preload: 7 hits" "7" "$(cat "$PC_SYSFS/probes/sdt_ops:tick/hits" 2>&1)"

$P arm -q 'sdt_ops:done@/pc/fixtures/ops_work' > /dev/null 2>&1
out=$($P preload --stop 2>&1); rc=$?
check_eq "preload --stop (ExecStop)" "0 preload: stopped, 1 preloaded probes disarmed" \
	"$rc $(echo "$out" | tail -n 1)"
check_eq "  disarmed what preload armed" "no" \
	"$([ -d "$PC_SYSFS/probes/sdt_ops:tick" ] && echo yes || echo no)"
check_eq "  left the probe armed by hand" "armed" "$(cat "$PC_SYSFS/probes/sdt_ops:done/state" 2>&1)"
check "  removed the state file" test ! -e $PROBECACHE_RUN/preloaded

rm "$PROBECACHE_ETC"/preload.d/*.conf
out=$($P preload 2>&1); rc=$?
check_eq "preload with every entry verifying: exit 0" "0" "$rc"
check_eq "  armed again" "armed" "$(cat "$PC_SYSFS/probes/sdt_ops:tick/state" 2>&1)"

$P unload > /dev/null 2>&1
rm -rf "/lib/modules/$R" /tmp/gone /tmp/stale
pc_load
out=$($P preload 2>&1); rc=$?
check_eq "preload with a module loaded by hand and none installed: exit 0" "0" "$rc"
check_eq "  armed" "armed" "$(cat "$PC_SYSFS/probes/sdt_ops:tick/state" 2>&1)"
pc_unload
tap_done
