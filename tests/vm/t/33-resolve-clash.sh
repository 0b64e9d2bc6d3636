# Clash A: rs:always in two binaries. A bare pattern arms both under distinct
# kernel names; @/path arms one; a batch with a rejected record reports that
# record with the kernel's reason and still arms the rest.
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/pc33
sem=/pc/fixtures/rs_sem
twin=/pc/fixtures/rs_twin

pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }
# --no-define: only cache, so what arm does below starts from an empty module
probecache-resolve scan --no-define $sem $twin > /dev/null
check_eq "scan --no-define with the module loaded defines nothing" 0 "$(cat /sys/kernel/probecache/nr_probes)"
out=$(probecache-resolve arm 'sdt_rs:always' 2>&1)
check_eq "bare pattern arms both binaries' probes" 2 "$(echo "$out" | grep -c '^armed sdt_rs:always_')"
check_eq "two probes in the kernel" 2 "$(grep -c '^sdt_rs:always_' $PC_LIST)"
$sem 3 > /dev/null
$twin 4 > /dev/null
hs=0; ht=0
for d in $(pc_probes | grep '^sdt_rs:always_'); do
	case $(pc_field $d path) in
	*rs_sem) hs=$(pc_hits $d) ;;
	*rs_twin) ht=$(pc_hits $d) ;;
	esac
done
check_eq "each binary's probe counts its own hits" "3 4" "$hs $ht"
check "disarm by the cache name disarms both" probecache-resolve disarm sdt_rs:always
check_eq "none left" 0 "$(cat /sys/kernel/probecache/nr_probes)"

out=$(probecache-resolve arm "sdt_rs:always@$twin" 2>&1)
check_eq "@path arms only that binary" 1 "$(echo "$out" | grep -c '^armed ')"
probecache-resolve disarm 'sdt_rs:*' > /dev/null

# a kernel refusal in the middle of a batch: the name sdt_rs:tick already
# taken by a probe at another offset (hand-written from always's record)
rec=$(probecache-resolve list --format=record "sdt_rs:always@$sem" | sed 's|^p:sdt_rs/[^ ]*|p:sdt_rs/tick|')
check "hand-armed sdt_rs:tick at always's offset" pc_ctl "add $rec"
out=$(probecache-resolve arm 'sdt_rs:*' 2>&1); rc=$?
check_eq "a refused record makes arm exit 1" 1 "$rc"
check "the refused record is reported with the kernel's reason" sh -c \
	"echo '$out' | grep -q 'sdt_rs:tick ($sem): kernel: event: '"
check_eq "the others were still armed" 2 "$(echo "$out" | grep -c '^armed ')"
diag "$(echo "$out" | grep kernel:)"
pc_unload
tap_done
