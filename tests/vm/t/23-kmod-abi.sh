#!/bin/sh
# What user space reads back, against the ABI (issue 26's smaller items). Each
# block says what the module before its fix did:
#  1. last_error was one buffer for every writer: two processes each writing a
#     bad line of their own and reading last_error right after read each
#     other's error (6.1, before the fix: 7 and 9 of 400 reads were the other
#     writer's). Its trailing "\n\n" (issue 26) had gone with 8389663: checked.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
OFF=$pc_sdt_OFF_pc_add
ROUNDS=${PC_ABI_ROUNDS:-400}

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

check "clear" kctl clear
check "rmmod" rmmod probecache
tap_done
