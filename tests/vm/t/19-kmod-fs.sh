#!/bin/sh
# The rewrite-detection checks of 13-kmod-rewrite.sh (build-id mismatch, ETXTBSY for
# every in-place write path while defined, a writer blocking definition, timestamps
# changing nothing, rename-replace keeping the old inode probed) on real disk filesystems:
# ext4 and xfs on the VM's virtio disks (/init mounts them). 13 itself runs on tmpfs.
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_rewrite
A=$PCF/pc_rewrite
BID=$pc_rewrite_BUILD_ID
P=$(printf '0x%x' $((pc_rewrite_OFF_pc_mark + 3)))

# on_fs FS: run 13-kmod-rewrite.sh in a fresh directory of /mnt/FS and report each of
# its results as one of ours ("FS: ..."); its plan must match what it reported.
on_fs() {
	if ! check "$1 disk mounted" pc_disk "$1"; then
		return
	fi
	check_eq "/mnt/$1 is on a virtio disk" "/dev/vd" "$(awk -v m="/mnt/$1" '$2 == m { print substr($1, 1, 7) }' /proc/mounts)"
	rm -rf "/mnt/$1/rw"
	sh /pc/all/13-kmod-rewrite.sh "/mnt/$1/rw" > /tmp/19-$1.out 2>&1
	rc=$?
	n=0 plan=
	while IFS= read -r l; do
		case "$l" in
		"ok "*) n=$((n + 1)); ok "$1: ${l#ok * - }" ;;
		"not ok "*) n=$((n + 1)); not_ok "$1: ${l#not ok * - }" ;;
		1..*) plan=${l#1..} ;;
		*) echo "$l" ;;
		esac
	done < /tmp/19-$1.out
	check_eq "$1: 13-kmod-rewrite.sh ran its plan and exited 0" "$n $n 0" "${plan:-none} $n $rc"
	rm -rf "/mnt/$1/rw"
	atime "$1"
}

# atime FS: reading a file changes no content. Armed under relatime after a first read
# (so that arming itself moves no atime), then under strictatime every exec and read
# updates the atime: the probe must stay armed and count every run.
atime() {
	mkdir -p "/mnt/$1/at"
	cp "$A" "/mnt/$1/at/app"
	sync
	cat "/mnt/$1/at/app" > /dev/null
	check "$1: insmod" pc_load
	check "$1: armed" pc_arm_line "p:at/app $BID /mnt/$1/at/app:$P"
	check "$1: remount strictatime" mount -o remount,strictatime "/mnt/$1"
	at0=$(stat -c %X "/mnt/$1/at/app")
	sleep 1	# let the coarse timestamps move
	/mnt/$1/at/app > /dev/null
	cat "/mnt/$1/at/app" > /dev/null
	sleep 1
	/mnt/$1/at/app > /dev/null
	check "$1: the atime moved" test "$(stat -c %X "/mnt/$1/at/app")" -gt "$at0"
	check_eq "$1: two runs and a read later: 2 hits, still armed" "2 armed" \
		"$(pc_hits at:app) $(kget at:app state)"
	mount -o remount,relatime "/mnt/$1"
	check "$1: rmmod" pc_unload
	rm -rf "/mnt/$1/at"
}

on_fs ext4
on_fs xfs
tap_done
