#!/bin/sh
# probecache.ko: malformed and hostile records. Each one is rejected with
# its reason in last_error, nr_probes and the probe listing stay as they were, and
# nothing gets armed (the kernel log check of the harness covers warnings).
. /pc/lib.sh
. /pc/fixtures/pc_kmod.sh
kenv pc_sdt
kenv pc_rewrite
kenv pc_harden
S=$PCF/pc_sdt
B=$pc_sdt_BUILD_ID
OFF=$pc_sdt_OFF_pc_add

# ELF files broken in specific ways, made from copies of the fixture.
# poke FILE OFFSET OCTAL-BYTES: overwrite bytes in place
poke() {
	printf "$3" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc 2> /dev/null
}
mk() {
	cp $S /tmp/$1
	[ -z "$2" ] || poke /tmp/$1 "$2" "$3"
}
size=$(wc -c < $S)
mkdir -p /tmp/dir
mkfifo /tmp/fifo
echo "just text, no ELF here" > /tmp/text
: > /tmp/empty
head -c 40 $S > /tmp/trunc40
head -c 200 $S > /tmp/trunc200
head -c $((size / 2)) $S > /tmp/trunchalf
mk badclass 4 '\003'
mk badmagic 1 'X'
mk etrel 16 '\001\000'
mk phnum 56 '\377\377'
mk phoff 32 '\377\377\377\377'
nb=$pc_sdt_NOTE_build_id
mk notedesc $((nb + 4)) '\377\377\000\000'
mk notename $((nb)) '\377\377\000\000'
mk notetype $((nb + 8)) '\011\000\000\000'
mk noteshort $((nb + 4)) '\004\000\000\000'
mk propbad $((pc_sdt_NOTE_gnu_property)) '\377\377\000\000'

check "insmod" pc_load
check "baseline probe" karm "add p:base/one $B $S:$OFF"

n=0
# hostile DESC EXPECT LINE [ERRNO-TEXT]: LINE must be refused with EXPECT in
# last_error (and ERRNO-TEXT in the writer's error message)
hostile() {
	n=$((n + 1))
	_before=$(cat $PC_SYSFS/nr_probes)
	printf '%s\n' "$3" > /tmp/line
	if $PCF/pc_write $PC_SYSFS/control < /tmp/line 2> /tmp/werr; then
		not_ok "$1: accepted"
		return
	fi
	_e=$(kerr)
	_after=$(cat $PC_SYSFS/nr_probes)
	case "$_e" in
	*"$2"*)
		if [ -n "$4" ] && ! grep -q "$4" /tmp/werr; then
			not_ok "$1: errno: expected $4, got $(cat /tmp/werr)"
		elif [ "$_after" = "$_before" ]; then
			ok "$1 -> $_e"
		else
			not_ok "$1: nr_probes $_before -> $_after"
		fi
		;;
	*)
		not_ok "$1"
		diag "expected: $2"
		diag "got:      $_e ($(cat /tmp/werr))"
		;;
	esac
}
rec() { # PATH OFFSET [BUILD-ID] [TAIL]
	echo "add p:bad/e${n} ${3:-$B} $1:$2${4:+ $4}"
}

# Kernel-side verification: the file.
hostile "missing file" "path: cannot open /tmp/nope: error -2" "$(rec /tmp/nope $OFF)" ENOENT
hostile "directory" "path: /tmp/dir is a directory" "$(rec /tmp/dir $OFF)" EISDIR
hostile "device" "path: /dev/null is special, not a regular file" "$(rec /dev/null $OFF)"
hostile "FIFO (opened without blocking)" "is special, not a regular file" "$(rec /tmp/fifo $OFF)"
hostile "non-ELF" "path: ELF header: not an ELF file (bad magic)" "$(rec /tmp/text 0x1)" ENOEXEC
hostile "empty file" "path: ELF header: file too short for an ELF header" "$(rec /tmp/empty 0x1)"
hostile "truncated ELF header" "path: ELF header:" "$(rec /tmp/trunc40 0x1)" ENOEXEC
hostile "truncated before phdrs" "program headers past end of file" "$(rec /tmp/trunc200 $OFF)" ENOEXEC
hostile "truncated mid-file" "past end of file" "$(rec /tmp/trunchalf $OFF)" ENOEXEC
hostile "bad ELF class" "unsupported ELF class" "$(rec /tmp/badclass $OFF)"
hostile "bad magic" "not an ELF file (bad magic)" "$(rec /tmp/badmagic $OFF)"
hostile "relocatable object" "not an executable or shared object" "$(rec /tmp/etrel $OFF)"
hostile "e_phnum 65535" "program headers" "$(rec /tmp/phnum $OFF)"
hostile "e_phoff past EOF" "program headers" "$(rec /tmp/phoff $OFF)"
hostile "lying note descsz" "note descriptor past end of segment" "$(rec /tmp/notedesc $OFF)"
hostile "lying note namesz" "note name past end of segment" "$(rec /tmp/notename $OFF)"
hostile "no build-id note" "path: no NT_GNU_BUILD_ID note" "$(rec /tmp/notetype $OFF)"
hostile "short build-id note vs record" "build-id: build-id mismatch: file has" "$(rec /tmp/noteshort $OFF)"
hostile "build-id of another build" "build-id mismatch: file has $B, record wants $pc_rewrite_BUILD_ID" "$(rec $S $OFF $pc_rewrite_BUILD_ID)" ESTALE
hostile "short build-id" "record wants abcd" "$(rec $S $OFF abcd)"
# Kernel-side verification: offsets.
hostile "offset in the ELF header" "offset: 0x10 is not inside an executable PT_LOAD" "$(rec $S 0x10)" ERANGE
hostile "offset in the data segment" "is not inside an executable PT_LOAD" "$(rec $S $pc_sdt_SEM_tick)"
hostile "offset past EOF" "offset: 0x7fffffff is past end of file" "$(rec $S 0x7fffffff)"
hostile "ref_ctr in read-only text" "ref_ctr: $OFF is not inside a writable PT_LOAD" "$(rec $S "$OFF($OFF)")"
hostile "ref_ctr past EOF" "ref_ctr: 0x7ffffff0 is not inside a writable PT_LOAD" "$(rec $S "$OFF(0x7ffffff0)")"
hostile "@+FILEOFF outside every PT_LOAD" "arg1: @+0x7fff0000 is not inside any PT_LOAD" "$(rec $S $OFF '' x=@+0x7fff0000)"
hostile "duplicate probe name" "event: base:one already exists" "add p:base/one $B $S:$OFF" EEXIST
hostile "pid that does not exist" "pid: no process with pid 999999" "$(rec $S $OFF '' pid=999999)"
hostile "pid of a kernel thread" "pid: process 2 has no user address space" "$(rec $S $OFF '' pid=2)"
# The grammar (record.c), through the control file.
hostile "relative path" "path: path must be absolute" "$(rec pc/fixtures/pc_sdt $OFF)"
hostile "dot-dot path" "'.' or '..' component" "$(rec /pc/../pc/fixtures/pc_sdt $OFF)"
hostile "bad build-id hex" "build-id: invalid hex digit" "$(rec $S $OFF 12zz)"
hostile "odd build-id" "build-id: odd number of hex digits" "$(rec $S $OFF abc)"
hostile "overlong build-id" "build-id: build-id too long" "$(rec $S $OFF "${B}0011")"
hostile "missing build-id" "build-id: missing build-id" "add p:bad/e"
hostile "bad probe type" "probe type: expected 'p:' or 'r:'" "add x:bad/e $B $S:$OFF"
hostile "unknown command" "command: unknown command" "arm p:bad/e $B $S:$OFF"
hostile "unknown register" "arg1: unknown register" "$(rec $S $OFF '' x=%foo)"
hostile "deref too deep" "arg1: too many dereferences" "$(rec $S $OFF '' 'x=+0(+0(+0(+0(+0(%sp)))))')"
hostile "unknown type" "arg1: unknown type" "$(rec $S $OFF '' x=%di:u128)"
hostile "string without memory" "arg1: string needs a memory operand" "$(rec $S $OFF '' x=%di:string)"
hostile "\$retval in a p: probe" "arg1: \$retval needs an r: probe" "$(rec $S $OFF '' 'x=$retval')"
hostile "bad SIB scale" "arg1: scale must be 1, 2, 4 or 8" "$(rec $S $OFF '' 'x=+0(%di,%si,3)')"
hostile "duplicate arg name" "arg2: duplicate arg name" "$(rec $S $OFF '' 'x=%di x=%si')"
hostile "17 args" "too many args" "$(rec $S $OFF '' 'a=%ax b=%ax c=%ax d=%ax e=%ax f=%ax g=%ax h=%ax i=%ax j=%ax k=%ax l=%ax m=%ax n=%ax o=%ax p=%ax q=%ax')"
hostile "trailing junk after ref_ctr" "ref_ctr" "$(rec $S "$OFF($pc_sdt_SEM_tick)junk")"
hostile "ref_ctr 0" "ref_ctr: ref_ctr must not be 0" "$(rec $S "$OFF(0x0)")"
hostile "pid 0" "pid: pid must be positive" "$(rec $S $OFF '' pid=0)"
hostile "group name too long" "name too long" "add p:$(printf 'g%.0s' $(seq 64))/e $B $S:$OFF"
hostile "control character" "control character" "$(printf 'add p:bad/e %s %s:%s\tx=%%di' $B $S $OFF)"
hostile "overlong line" "line: longer than max_line (4095 bytes)" "$(rec $S $OFF '' "x=%di $(printf 'y%.0s' $(seq 4200))")" E2BIG

check "a malformed PT_NOTE before the build-id's does not hide it" \
	kctl "add p:ok/prop $B /tmp/propbad:$OFF" "del ok:prop"

# SDT records prove themselves against the file's own .note.stapsdt.
T=$pc_sdt_SDT_tick
hostile "ref_ctr that is not the site's semaphore (a .data word)" \
	"ref_ctr: $pc_sdt_OFF_pc_global is not the semaphore of the SDT probe at $T ($pc_sdt_SEM_tick is)" \
	"$(rec $S "$T($pc_sdt_OFF_pc_global)")" ESTALE
hostile "another probe's semaphore" \
	"ref_ctr: $pc_sdt_SEM_glob is not the semaphore of the SDT probe at $T ($pc_sdt_SEM_tick is)" \
	"$(rec $S "$T($pc_sdt_SEM_glob)")" ESTALE
hostile "ref_ctr on a site that is no SDT probe" \
	"offset: $OFF is not an SDT probe of this file (no .note.stapsdt entry has it)" \
	"$(rec $S "$OFF($pc_sdt_SEM_tick)")" ESTALE
hostile "sdt_ group off the site by one byte" \
	"offset: $(printf '0x%x' $((T + 1))) is not an SDT probe of this file" \
	"add p:sdt_pcfix/e$n $B $S:$(printf '0x%x' $((T + 1)))" ESTALE
hostile "ref_ctr in a file without SDT notes" "offset: the file has no usable .note.stapsdt" \
	"add p:bad/e$n $pc_harden_BUILD_ID $PCF/pc_harden:$pc_harden_OFF_pc_harden_fn($pc_harden_OFF_pc_harden_word)" ENOEXEC
check "sdt_ group on a real site, no semaphore: accepted" kctl "add p:sdt_pcfix/tick $B $S:$T" \
	"del sdt_pcfix:tick"
check "with its real semaphore: accepted" kctl "add p:sdt_pcfix/tick $B $S:$T($pc_sdt_SEM_tick)" \
	"del sdt_pcfix:tick"

# A NUL byte cannot travel in a shell variable: write it directly.
n=$((n + 1))
before=$(cat $PC_SYSFS/nr_probes)
if printf 'add p:bad/nul %s %s:%s\000x=%%di\n' $B $S $OFF > $PC_SYSFS/control 2> /dev/null; then
	not_ok "NUL byte: accepted"
else
	check_eq "NUL byte" "NUL byte" "$(kerr | grep -o 'NUL byte')"
fi
check "at least 40 hostile records" test "$n" -ge 40
check_eq "nothing armed: only the baseline probe exists" "base:one" "$(pc_probes 2>&1)"
check_eq "nr_probes still 1" "1" "$(cat $PC_SYSFS/nr_probes)"
check_eq "fixture still runs correctly" "0" "$($S loop 10 > /dev/null; echo $?)"
check_eq "baseline probe counted them" "10" "$(kget base:one hits)"
check "rmmod" pc_unload
tap_done
