# The fixture's semaphore-guarded probe fires only while armed: a probe the
# scan only defined leaves the SDT semaphore (ref_ctr) at 0; arming (counting)
# sets it in every process mapping the binary, disarm puts it back to 0.
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/pc31
F=/pc/fixtures/rs_sem
P=sdt_rs:tick

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }
check "scan rs_sem" probecache-resolve scan $F
check_eq "the scan defined it, nothing armed" "defined 0" "$(pc_field $P state) $(pc_field $P counting)"
check_eq "defined, not armed: semaphore 0, probe body skipped" "semaphore=0 fired=0" "$($F 5)"
check "arm sdt_rs:tick" probecache-resolve arm -q sdt_rs:tick
check_eq "armed: semaphore 1, fired 5 times" "semaphore=1 fired=5" "$($F 5)"
check_eq "5 hits while armed" 5 "$(pc_hits $P)"
check_eq "ref_ctr_offset in the listing is the cached semaphore" \
	"$(probecache-resolve list --format=uprobe sdt_rs:tick | sed 's/.*(\(0x[0-9a-f]*\)).*/\1/')" \
	"$(pc_field $P ref_ctr_offset)"
check "disarm sdt_rs:tick" probecache-resolve disarm sdt_rs:tick
check_eq "disarmed: semaphore back to 0" "semaphore=0 fired=0" "$($F 5)"

# -p PID: only that thread group hits; pid 1 (init) never runs rs_sem.
# The scan defined sdt_rs:always for every process: arm -p refuses to count that one.
out=$(probecache-resolve arm -q -p 1 sdt_rs:always 2>&1); rc=$?
check_eq "arm -p of a probe defined for every process: exit 1" 1 "$rc"
check "  says to disarm it first" sh -c "echo '$out' | grep -q 'already defined for every process; disarm it first'"
probecache-resolve disarm -q sdt_rs:always
check "arm -p with a pid" sh -c "probecache-resolve arm -q -p 1 sdt_rs:always"
$F 4 > /dev/null
check_eq "pid-filtered probe: no hit from another process" 0 \
	"$(pc_hits sdt_rs:always)"
probecache-resolve disarm sdt_rs:always > /dev/null
pc_unload
tap_done
