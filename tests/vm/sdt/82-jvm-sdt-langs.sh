# Debian's OpenJDK 17 (libjvm.so), traced by the names and types of sdt/hotspot.args,
# from the image of *-sdt-langs.sh scripts (tests/vm/sdtimage.sh langs, on
# /mnt/sdt-langs, with PcJava.class compiled in). Not in make check: make check-sdt-vm.
#  - scan --no-define caches libjvm.so's 531 probes; list says method__entry needs
#    -XX:+ExtendedDTraceProbes.
#  - Without it: class__loaded names every class loaded (PcJava once), method__entry
#    never fires. With it: perf script shows PcJava's method__entry and method__return
#    with class, method and signature (main, pcWork, pcLeaf three times), selected by a
#    perf filter on the class name, class ~ "PcJava*".
#  - What the kernel's types cannot do: HotSpot passes each name as a pointer and a
#    length of bytes that are not NUL-terminated, and there is no fetch type for "LEN
#    bytes at this pointer". So each is fetched as a string, which runs on to the next
#    NUL, and its length beside it (class and class_len, ...): the name is the first
#    class_len bytes, which is what this test compares, and a filter on it must be a
#    glob (class ~ "PcJava*"), never class == "PcJava". How many of the loaded classes'
#    names ran past their length this time is said.
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/pc82
R=/mnt/sdt-langs
J=/usr/lib/jvm/java-17-openjdk-amd64
JVM=$J/lib/server/libjvm.so
JAVA="$J/bin/java -Xint -XX:+UseSerialGC -Xmx64m -cp /opt/pc"
cd /tmp || exit 1

if ! why=$(pc_image_root sdt-langs $JVM 2>&1); then
	pc_missing "Debian's openjdk-17: $why"
	tap_done
	exit
fi
pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }

probecache-resolve scan --no-define $R$JVM > /tmp/scan82 2>&1
check "scan --no-define libjvm.so: 531 probes cached" grep -qx "$R$JVM ([0-9a-f]*): 531 events" /tmp/scan82
check "  list: method__entry needs -XX:+ExtendedDTraceProbes" sh -c "probecache-resolve list sdt_hotspot:method__entry |
	grep -qx 'sdt_hotspot:method__entry=method__entry  # needs -XX:+ExtendedDTraceProbes or -XX:+DTraceMethodProbes'"
check "  named and typed by sdt/hotspot.args: each name a string and its length" sh -c \
	"probecache-resolve list --format=record sdt_hotspot:method__entry | grep -q ' thread_id=[^ ]*:s64 class=[^ ]*:string \
class_len=[^ ]*:s32 method=[^ ]*:string method_len=[^ ]*:s32 sig=[^ ]*:string sig_len=[^ ]*:s32\$'"
check "define sdt_hotspot:method__entry, method__return, class__loaded" \
	probecache-resolve define -q sdt_hotspot:method__entry sdt_hotspot:method__return sdt_hotspot:class__loaded

# jhits: "entry|return|loaded CLASS [METHOD SIG]" of perf script's hotspot lines on
# stdin, each name cut at its length
jhits() {
	awk '{
		if (!match($0, / sdt_hotspot:[a-z_]*: \((0x)?[0-9a-f]+\) /)) next
		ev = substr($0, RSTART + 13, RLENGTH - 13)
		sub(/:.*/, "", ev)
		sub(/^method__/, "", ev)
		sub(/^class__/, "", ev)
		out = ev
		n = split("class method sig", f, " ")
		for (i = 1; i <= n; i++) {
			if (!match($0, " " f[i] "=\"")) continue
			s = substr($0, RSTART + RLENGTH)
			if (!match(s, "\" " f[i] "_len=[0-9]+")) continue
			len = substr(s, RSTART + length(f[i]) + 7, RLENGTH - length(f[i]) - 7)
			out = out " " substr(s, 1, len)
		}
		print out
	}'
}

# Without the switch: class__loaded, every class; method__entry, PcJava's.
perf record -q -N -B -o /tmp/j82.data -e sdt_hotspot:class__loaded \
	-e sdt_hotspot:method__entry --filter 'class ~ "PcJava*"' \
	-- chroot $R $JAVA PcJava 3 > /tmp/j82.out 2> /tmp/j82.err
check_eq "perf record -e sdt_hotspot:class__loaded -e sdt_hotspot:method__entry -- java PcJava 3" \
	"pcWork=6" "$(cat /tmp/j82.out)"
perf script -i /tmp/j82.data 2> /dev/null > /tmp/j82.script
jhits < /tmp/j82.script > /tmp/got82
check_eq "  class__loaded: PcJava, once" "loaded PcJava" "$(grep ' PcJava$' /tmp/got82)"
check "  and the JDK's own classes (java/lang/String among them)" grep -qx 'loaded java/lang/String' /tmp/got82
check_eq "  no -XX:+ExtendedDTraceProbes: no method__entry" 0 "$(grep -c '^entry ' /tmp/got82)"
# What the string fetch read beyond each class name's length.
diag "class__loaded: $(grep -c '^loaded ' /tmp/got82) classes; $(sed -n \
	's/.* class="\(.*\)" class_len=\([0-9]*\) classloader_id=.*/\1 \2/p' /tmp/j82.script |
	awk '{ if (length($1) != $2) n++ } END { print n + 0 }') of their names ran past class_len to the next NUL"

perf record -q -N -B -o /tmp/j82.data -e sdt_hotspot:method__entry --filter 'class ~ "PcJava*"' \
	-e sdt_hotspot:method__return --filter 'class ~ "PcJava*"' \
	-- chroot $R $JAVA -XX:+ExtendedDTraceProbes PcJava 3 > /tmp/j82.out 2> /tmp/j82.err
check_eq "perf record -e sdt_hotspot:method__entry --filter 'class ~ \"PcJava*\"' ... -- java -XX:+ExtendedDTraceProbes PcJava 3" \
	"pcWork=6" "$(cat /tmp/j82.out)"
perf script -i /tmp/j82.data 2> /dev/null > /tmp/j82.script
check_eq "  perf script: PcJava's calls and returns, class, method and signature cut at their lengths" \
	"entry PcJava main ([Ljava/lang/String;)V
entry PcJava pcWork (I)I
entry PcJava pcLeaf (I)I
return PcJava pcLeaf (I)I
entry PcJava pcLeaf (I)I
return PcJava pcLeaf (I)I
entry PcJava pcLeaf (I)I
return PcJava pcLeaf (I)I
return PcJava pcWork (I)I
return PcJava main ([Ljava/lang/String;)V" "$(jhits < /tmp/j82.script)"
diag "e.g. $(grep -m 1 'method="pcLeaf' /tmp/j82.script | sed 's/^ *//')"

check "disarm 'sdt_hotspot:*'" probecache-resolve disarm -q 'sdt_hotspot:*'
pc_image_unbind sdt-langs
pc_unload
tap_done
