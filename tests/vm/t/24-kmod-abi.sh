#!/bin/sh
# What user space reads back, against the ABI (issue 26's smaller items). Each
# block says what the module before its fix did:
#  1. last_error was one buffer for every writer: two processes each writing a
#     bad line of their own and reading last_error right after read each
#     other's error (6.1, before the fix: 7 and 9 of 400 reads were the other
#     writer's). Its trailing "\n\n" (issue 26) had gone with 8389663: checked.
#  2. an HSM (fanotify pre-content watches) fills a file on access by
#     writing it; exec lets it (exe_file_deny_write_access(), 6.14+), the
#     module denied it while verifying and while armed, so the HSM could not
#     fill what the verification, the arming or a process's exec read
#     (7.3, before the fix: its opens for writing got ETXTBSY).
#  3. errno drift from the ABI: a file cut short while being verified (an
#     overlayfs copy-up of a shorter file) failed with EIO, the errno of no
#     documented case, while last_error said "truncated ELF" (6.1, before the
#     fix: "pc_write: EIO after 0 bytes"). (Its strings cut to fit a record were
#     the module's own events': the events are the kernel's uprobe events now.)
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
OFF=$pc_sdt_OFF_pc_add
ROUNDS=${PC_ABI_ROUNDS:-400}
PARAM=/sys/module/probecache/parameters

check "insmod" pc_load

# 1. last_error answers the writer that reads it.
# lerr_writer TAG: ROUNDS times write "del TAG:nope" (ENOENT) and read last_error
# back, both from this shell process (echo and read are builtins); prints how many
# reads did not name TAG.
lerr_writer() {
	_bad=0
	_i=0
	while [ $_i -lt $ROUNDS ]; do
		echo "del $1:nope" > $PC_SYSFS/control 2> /dev/null
		read -r _e < $PC_SYSFS/last_error
		case "$_e" in
		*"no probe $1:nope") ;;
		*) _bad=$((_bad + 1)) ;;
		esac
		_i=$((_i + 1))
	done
	echo $_bad
}
lerr_writer wa > /tmp/abi_wa &
wa=$!
lerr_writer wb > /tmp/abi_wb &
wb=$!
wait $wa $wb
check_eq "two writers racing: each reads back its own error (wrong reads: A, B)" \
	"0 0" "$(cat /tmp/abi_wa) $(cat /tmp/abi_wb)"
# A reader that wrote nothing (kctl's cat after pc_write) sees the latest error.
kfail "del solo:nope"
check_eq "a process that never wrote: the most recent error" \
	"line 1 col 5: group: no probe solo:nope" "$(kerr)"
check_eq "  ends in exactly one newline" "6f70650a" \
	"$(cat $PC_SYSFS/last_error | tail -c 4 | od -A n -t x1 | tr -d ' \n')"

# 2. A file with pre-content watches when the module opens it is, as exec
# treats it, not write-denied: its HSM fills it by writing. A probe's file
# must refuse writers from definition to deletion, so such a file cannot be
# defined. Kernels before 6.14 have no pre-content events; the debug kernel
# no fanotify.
if pc_disk ext4 > /dev/null; then
	F=/mnt/ext4/abi_hsm
	cp $S $F
	: > /tmp/abi_hsm.out
	$PCF/pc_harden hsm $F $(pc_scaled 30) > /tmp/abi_hsm.out &
	hs=$!
	wait_for 10 grep -q 'watching\|no pre-content' /tmp/abi_hsm.out
	if grep -q watching /tmp/abi_hsm.out; then
		check "a file an HSM watches cannot be defined" kfail "add p:abi/hsm $B $F:$OFF"
		check_eq "  last_error says why" \
			"path: $F is under fanotify pre-content watches: writes to it cannot be denied while it is probed" \
			"$(kerr | sed 's/^line 1 col [0-9]*: //')"
		check "  nothing defined" pc_unlisted abi:hsm
		$F loop 3 > /dev/null
		kill $hs
		wait $hs 2> /dev/null
		check_eq "  the HSM could open it for writing every time" "" \
			"$(grep '^fill' /tmp/abi_hsm.out | grep -v 'fill ok' | sort | uniq -c)"
		check "defined once nothing watches it" kctl "add p:abi/hsm $B $F:$OFF"
		check "  writes denied (ETXTBSY)" sh -c "! cat /dev/null >> $F"
		kctl "del abi:hsm"
	else
		kill $hs 2> /dev/null
		diag "$(cat /tmp/abi_hsm.out): the HSM exception is checked where there are (7.3)"
	fi
	rm -f $F
else
	diag "no ext4 disk: the HSM exception is not checked"
fi

# 3. errnos and values as the ABI documents them.
# A copy-up while the lower file is verified sends the reads to the upper
# file, here cut short after the program headers: the PT_NOTE read comes up
# short. The cause is the change: EAGAIN, as for any change under verification.
kenv pc_rewrite
O=/tmp/abi_ov
mkdir -p $O/lower $O/upper $O/work $O/m
cp $PCF/pc_rewrite $O/lower/f
if mount -t overlay overlay -o lowerdir=$O/lower,upperdir=$O/upper,workdir=$O/work $O/m 2> /dev/null; then
	echo $(($(pc_scaled 3) * 1000)) > $PARAM/test_verify_delay_ms
	echo "add p:abi/cut $pc_rewrite_BUILD_ID $O/m/f:$pc_rewrite_OFF_pc_mark" |
		$PCF/pc_write $PC_SYSFS/control 2> /tmp/abi_cut.err &
	av=$!
	sleep $(pc_scaled 1)
	check "copy-up cutting the file after its program headers while it is verified" \
		sh -c "head -c 800 $PCF/pc_rewrite > $O/m/f"
	wait $av
	echo 0 > $PARAM/test_verify_delay_ms
	check_eq "  the add fails with EAGAIN" "pc_write: EAGAIN after 0 bytes" "$(cat /tmp/abi_cut.err)"
	check "  last_error says it was copied up" sh -c "grep -q 'copied up' $PC_SYSFS/last_error || ! cat $PC_SYSFS/last_error"
	umount $O/m
else
	diag "no overlayfs in this kernel: the cut file is not checked"
fi

check "clear" kclear
check "rmmod" rmmod probecache
tap_done
