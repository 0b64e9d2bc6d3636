# 100 records span several page-sized writes to control. A rejection in the
# middle is reported for that record alone; the records after it still arm.
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/pc34
F=/pc/fixtures/rs_many
S=/sys/kernel/probecache

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }
probecache-resolve scan $F > /dev/null
check_eq "record lines are longer than one page" 1 \
	"$(probecache-resolve list --format=record | wc -c | awk '{print ($1 > 4096)}')"
out=$(probecache-resolve arm -q 'sdt_rs_many:*' 2>&1)
check_eq "all 100 armed" 100 "$(cat $S/nr_probes)"
$F > /dev/null
total=0
for p in $(pc_probes | grep '^sdt_rs_many:'); do
	h=$(pc_hits $p)
	total=$((total + ${h:-0}))
done
check_eq "each probe hit once" 100 "$total"
out=$(probecache-resolve disarm 'sdt_rs_many:*')
check_eq "disarm reports 100" "100 disarmed, 0 in use (unchanged), 0 already gone" "$(echo "$out" | tail -n 1)"
check_eq "none left" 0 "$(cat $S/nr_probes)"

# p50's name taken by a hand-written probe at p00's offset
rec=$(probecache-resolve list --format=record sdt_rs_many:p00 | sed 's|^p:sdt_rs_many/p00|p:sdt_rs_many/p50|')
check "hand-armed sdt_rs_many:p50 elsewhere" pc_ctl "add $rec"
out=$(probecache-resolve arm 'sdt_rs_many:*' 2>&1); rc=$?
check_eq "arm exits 1 on a refused record" 1 "$rc"
check_eq "exactly p50 is reported, with the kernel's reason" 1 \
	"$(echo "$out" | grep -c '^probecache-resolve: sdt_rs_many:p50 (.*): kernel: event: sdt_rs_many:p50 already exists')"
check_eq "summary" "99 armed, 0 already armed, 0 skipped, 1 failed" "$(echo "$out" | tail -n 1)"
check "p51 (after the refused line, same batch) is armed" pc_test sdt_rs_many:p51 state = armed
check "p99 (a later batch) is armed" pc_test sdt_rs_many:p99 state = armed
out=$(probecache-resolve arm 'sdt_rs_many:*' 2>&1)
check_eq "re-arm: the 99 are already armed" "0 armed, 99 already armed, 0 skipped, 1 failed" \
	"$(echo "$out" | tail -n 1)"
pc_unload
tap_done
