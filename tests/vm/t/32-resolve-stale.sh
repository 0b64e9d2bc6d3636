# A rewritten binary: arm refuses the stale cache entry; a record for the old
# build-id written straight to control is refused by the module itself; with
# both versions cached (clash B) arm picks the one the file has now and says so.
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/pc32
app=/tmp/rs32/rs_ver
mkdir -p /tmp/rs32

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }
cp /pc/fixtures/rs_ver_v1 $app
v1=$(probecache-resolve scan $app | sed -n 's/.*(\([0-9a-f]*\)): .*/\1/p')
rec=$(probecache-resolve list --format=record "sdt_rs_ver:step@$app")
check "v1 armed while the file is v1" probecache-resolve arm -q sdt_rs_ver:step
$app 3 > /dev/null
check_eq "v1 hits" 3 "$(pc_hits sdt_rs_ver:step)"
check "disarm" probecache-resolve disarm sdt_rs_ver:step

cp /pc/fixtures/rs_ver_v2 $app
out=$(probecache-resolve arm sdt_rs_ver:step 2>&1); rc=$?
check_eq "arm of the rewritten binary exits 3 (skipped)" 3 "$rc"
check "arm says why: stale, with both build-ids" sh -c \
	"echo '$out' | grep -q 'sdt_rs_ver:step ($app): skipped: stale: the file now has build-id .* (cached build-id $v1)'"
check "nothing armed" pc_unlisted sdt_rs_ver:step
if echo "add $rec" > /sys/kernel/probecache/control 2>/dev/null; then
	not_ok "module refuses the old record on the rewritten file"
else
	ok "module refuses the old record on the rewritten file"
fi
diag "last_error: $(cat /sys/kernel/probecache/last_error)"
check "the module's reason names the build-id" grep -qi "build-id" /sys/kernel/probecache/last_error
check "status --stale lists it as changed" sh -c \
	"probecache-resolve status --stale | grep -q '^$app ($v1): changed'"

# clash B: scan v2 too -> both cached; arm picks v2 and says so
v2=$(probecache-resolve scan $app | sed -n 's/.*(\([0-9a-f]*\)): .*/\1/p')
out=$(probecache-resolve arm sdt_rs_ver:step 2>&1)
check "clash B: arm says it chose the current build-id" sh -c \
	"echo '$out' | grep -q 'arming $v2, the one the file has now ($v1 is stale)'"
check_eq "clash B: the armed probe has the current build-id" "$v2" \
	"$(pc_field sdt_rs_ver:step build_id)"
$app 2 > /dev/null
check_eq "clash B: v2 hits" 2 "$(pc_hits sdt_rs_ver:step)"
check "gc removes the stale version" sh -c "probecache-resolve gc | grep -q 'removed $v1'"
probecache-resolve disarm sdt_rs_ver:step > /dev/null
pc_unload
tap_done
