#!/bin/sh
# Fleet flow: a build host resolves and exports, a production host imports and arms;
# the kernel verifies by build-id, so a binary that differs there is refused.
. /pc/lib.sh
P=probecache-resolve
W=/pc/fixtures/ops_work
B="-C /tmp/build64"	# the build host's cache
pc_unload
mkdir -p /tmp/b64
cp "$W" /tmp/b64/ops_copy
$P $B scan "$W" /tmp/b64/ops_copy > /dev/null 2>&1
check "build host: export -o" $P $B export -o /tmp/a64.pca 'sdt_ops:*@/pc/fixtures/ops_work'
check "build host: export of the copy" $P $B export -o /tmp/b64.pca '*@/tmp/b64/ops_copy'

export PROBECACHE_DIR=/tmp/prod64	# the production host's cache
out=$($P import /tmp/a64.pca 2>&1); rc=$?
check_eq "production: import" "0 imported /tmp/a64.pca: 1 binaries, 2 entries added, 0 replaced, 0 unchanged" "$rc $out"
check "load" $P load --module "$PC_KO"
check "production: arm the imported probe" $P arm -q sdt_ops:tick@/pc/fixtures/ops_work
"$W" 3 > /dev/null
check_eq "  3 hits" "3" "$(pc_hits sdt_ops:tick)"
check "  disarm" $P disarm sdt_ops:tick

# The production copy is another build: the import is fine, arming refuses it.
cp /pc/fixtures/pc_sdt /tmp/b64/ops_copy
check "production: import an archive for a binary that differs here" $P import /tmp/b64.pca
$P arm '*@/tmp/b64/ops_copy' > /tmp/o64 2>&1; rc=$?
check_eq "  arm skips it as stale (exit 3)" "3" "$rc"
check_eq "  nothing armed" "0" "$(cat $PC_SYSFS/nr_probes 2>&1)"

sed 's/^entry\tsdt\tsdt_ops\ttick\tp\t0x[0-9a-f]*/&0/' /tmp/a64.pca > /tmp/bad64.pca
before=$(ls -lR /tmp/prod64 | md5sum)
out=$($P import /tmp/bad64.pca 2>&1); rc=$?
case "$rc $out" in
"1 "*"line "*"checksum mismatch"*"nothing imported") ok "an edited archive is refused" ;;
*) not_ok "an edited archive is refused"; diag "exit $rc: $out" ;;
esac
check_eq "  the cache is unchanged" "$before" "$(ls -lR /tmp/prod64 | md5sum)"
$P unload > /dev/null 2>&1
rm -rf /tmp/b64
pc_unload
tap_done
