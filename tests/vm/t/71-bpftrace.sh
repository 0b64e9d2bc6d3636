#!/bin/sh
# bpftrace and probecache's probes, whose events are the kernel's uprobe events: Debian
# bookworm's bpftrace 0.17, from the disk run.sh attaches (tests/vm/bpfimage.sh).
# tracepoint:GROUP:EVENT cannot attach to a uprobe event (the kernel takes only
# kprobe-type programs there: Documentation/design.md, "Event lifecycle"); what a
# bpftrace user does instead, uprobe: on the file a definition holds, gives exact counts
# per value (a narrow signed argument that wraps to negative values), and the file stays
# write-denied meanwhile.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
PEEK=$PCF/pc_peek
cd /tmp || exit 1

if ! why=$(pc_bpftrace_root 2>&1); then
	pc_missing "bookworm's bpftrace: $why"
	tap_done
	exit
fi
diag "$(pc_bpftrace --version 2>&1)"

# bt_c NAME PROGRAM CMD: bpftrace -e PROGRAM -c CMD (bpftrace starts CMD once the program
# is attached and exits after it, printing its maps), output in /tmp/NAME.out; ok if it
# exits 0. CMD goes through a script, /tmp/NAME.sh: bpftrace 0.17 splits -c's argument at
# blanks without quoting and runs only ELF files there.
bt_c() {
	echo "$3" > "/tmp/$1.sh"
	if pc_bpftrace -e "$2" -c "/bin/sh /tmp/$1.sh" > "/tmp/$1.out" 2> "/tmp/$1.err"; then
		ok "bpftrace -e '$2' -c '$3'"
	else
		not_ok "bpftrace -e '$2' -c '$3' (exit $?)"
		sed 's/^/#   /' "/tmp/$1.err" | head -n 40
	fi
}

# map NAME [MAP]: the "@MAP[KEY]: COUNT" lines of /tmp/NAME.out as "KEY COUNT", sorted
map() {
	sed -n "s/^@${2:-}\[\(.*\)\]: \([0-9]*\)\$/\1 \2/p" "/tmp/$1.out" | sort -n
}

# expect FIELD N...: "VALUE COUNT" of FIELD over runs of pc_sdt loop N (each calls
# pc_add(i, 2i), i = 1..N): a as s32, b (2i) as s8, which wraps to negative past 127
expect() {
	_f=$1
	shift
	awk -v f="$_f" -v runs="$*" 'BEGIN { split(runs, r, " ")
		for (k in r) for (i = 1; i <= r[k]; i++) {
			v = f == "a" ? i : (2 * i) % 256
			if (f == "b" && v > 127) v -= 256
			n[v]++
		}
		for (v in n) print v, n[v] }' | sort -n
}

check "insmod" pc_load
check "define bt/add (s32 a, s8 b)" kdef "p:bt/add $B $S:$pc_sdt_OFF_pc_add a=%di:s32 b=%si:s8"

if pc_bpftrace -e 'tracepoint:bt:add { @ = count(); }' -c /bin/true > /tmp/tp.out 2>&1; then
	not_ok "tracepoint:bt:add is refused (a uprobe event takes kprobe-type programs only)"
else
	ok "tracepoint:bt:add is refused (a uprobe event takes kprobe-type programs only)"
fi

# Runs of 3, 2 and 70 calls: a = 1, 2 three times, 3 twice, 4 .. 70 once; b = 2a as s8.
bt_c add "uprobe:$S:pc_add { @a[(int32)arg0] = count(); @b[(int8)arg1] = count(); }" \
	"$S loop 3; $S loop 2; $S loop 70"
check_eq "  s32 a: exact hits per value" "$(expect a 3 2 70)" "$(map add a)"
check_eq "  s8 b: exact hits per value, negative past 127" "$(expect b 3 2 70)" "$(map add b)"
check "  the defined file stayed write-denied" sh -c "! echo x 2> /dev/null >> $S"

check "delete bt/add" kundef bt:add
check "clear" kctl clear
check "rmmod" pc_unload
pc_bpftrace_unbind
tap_done
