#!/bin/sh
# load / unload through libkmod: --module FILE, modules.dep lookup, parameters, refusals.
. /pc/lib.sh
P=probecache-resolve
R=$(uname -r)
W=/pc/fixtures/ops_work
export PROBECACHE_DIR=/tmp/c60
pc_unload

out=$($P load --module "$PC_KO" 2>&1); rc=$?
check_eq "load --module FILE loads it" "0 probecache loaded" "$rc $out"
check_eq "  sysfs version" "0.1" "$(cat $PC_SYSFS/version 2>&1)"
out=$($P load --module "$PC_KO" max_probes=3 2> /tmp/err60); rc=$?
check_eq "load again: already loaded, exit 0" "0 probecache already loaded" "$rc $out"
check_eq "  and says the parameters were not applied" \
	"probecache-resolve: warning: load: parameters 'max_probes=3' not applied: unload first" \
	"$(cat /tmp/err60)"

$P scan "$W" > /dev/null 2>&1
check "arm a probe before unload" $P arm -q sdt_ops:tick
check_eq "  it is armed" "armed" "$(pc_field sdt_ops:tick state)"
out=$($P unload 2>&1); rc=$?
check_eq "unload disarms and unloads" "0 probecache unloaded" "$rc $out"
check "  module is gone" test ! -e /sys/module/probecache
out=$($P unload 2>&1); rc=$?
check_eq "unload when not loaded: exit 0" "0 probecache not loaded" "$rc $out"

check "load with parameters" $P load --module "$PC_KO" max_probes=5 max_args=8
check_eq "  max_probes applied" "5" "$(cat /sys/module/probecache/parameters/max_probes 2>&1)"
check_eq "  max_args applied" "8" "$(cat /sys/module/probecache/parameters/max_args 2>&1)"
$P unload > /dev/null 2>&1
out=$($P load --module "$PC_KO" max_args=99 2>&1); rc=$?
case "$out" in
*"invalid argument: a parameter in 'max_args=99' was refused"*) ok "load explains a refused parameter" ;;
*) not_ok "load explains a refused parameter"; diag "exit $rc: $out" ;;
esac
check "  and nothing is loaded" test ! -e /sys/module/probecache
out=$($P load --module /pc/nonexistent.ko 2>&1); rc=$?
check_eq "load of a missing file names it" "1 probecache-resolve: load: /pc/nonexistent.ko: No such file or directory" "$rc $out"

# A module built (by DKMS) for the other test kernel.
other=
for k in /pc/fixtures/dkms/*/probecache.ko; do
	case "$k" in */dkms/"$R"/*) ;; *) [ -f "$k" ] && other=$k ;; esac
done
if [ -n "$other" ]; then
	orel=${other#/pc/fixtures/dkms/}
	orel=${orel%%/*}
	out=$($P load --module "$other" 2>&1); rc=$?
	case "$out" in
	*"built for another kernel: vermagic '$orel SMP"*"', running kernel is $R"*) ok "load refuses a module built for $orel" ;;
	*) not_ok "load refuses a module built for $orel"; diag "exit $rc: $out" ;;
	esac
else
	not_ok "a DKMS-built module for another kernel in /pc/fixtures/dkms (see build/dkms/*.log)"
fi

# Installed module, found through modules.dep as modprobe would.
out=$($P load 2>&1); rc=$?
case "$rc $out" in
"1 "*"module probecache not found in /lib/modules/$R/modules.dep"*) ok "load without an installed module says how to install it" ;;
*) not_ok "load without an installed module says how to install it"; diag "exit $rc: $out" ;;
esac
mkdir -p "/lib/modules/$R/updates"
cp "$PC_KO" "/lib/modules/$R/updates/"
# kmod's depmod (busybox's writes no modules.dep.bin, which libkmod reads).
ln -sf /usr/bin/kmod /tmp/depmod
/tmp/depmod -a "$R" 2> /dev/null
out=$($P load 2>&1); rc=$?
check_eq "load finds the installed module via modules.dep" "0 probecache loaded" "$rc $out"
check_eq "  sysfs version" "0.1" "$(cat $PC_SYSFS/version 2>&1)"
$P unload > /dev/null 2>&1
rm -rf "/lib/modules/$R"
pc_unload
tap_done
