# Debian's php8.2 (cli), traced by the names and types of sdt/php.args, from the image
# of *-sdt-langs.sh scripts (tests/vm/sdtimage.sh langs, on /mnt/sdt-langs). Not in make
# check: make check-sdt-vm.
#  - scan --no-define caches php8.2's 14 probes; list says each needs USE_ZEND_DTRACE=1.
#  - Without USE_ZEND_DTRACE=1 in its environment php fires none of them; with it, perf
#    script shows each function__entry and function__return of t81.php's code with
#    function_name, request_file, lineno, classname and scope: the script itself (PHP
#    names it main), leaf() three times, Greeter::hello(). PHP reads lineno once, as the
#    function starts (zend_get_executed_lineno() in dtrace_execute_ex): the line of its
#    first statement, at the return too; scope is "::" for any method.
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/pc81
R=/mnt/sdt-langs
PHP=/usr/bin/php8.2
cd /tmp || exit 1

if ! why=$(pc_image_root sdt-langs $PHP 2>&1); then
	pc_missing "Debian's php8.2: $why"
	tap_done
	exit
fi
pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }

probecache-resolve scan --no-define $R$PHP > /tmp/scan81 2>&1
check "scan --no-define php8.2: 14 probes cached" grep -qx "$R$PHP ([0-9a-f]*): 14 events" /tmp/scan81
check "  list: function__entry needs USE_ZEND_DTRACE=1" sh -c "probecache-resolve list sdt_php:function__entry |
	grep -qx 'sdt_php:function__entry=function__entry  # needs USE_ZEND_DTRACE=1 in its environment'"
check "  named and typed by sdt/php.args" sh -c "probecache-resolve list --format=record sdt_php:function__entry |
	grep -q ' function_name=[^ ]*:string request_file=[^ ]*:string lineno=[^ ]*:s32 classname=[^ ]*:string scope=[^ ]*:string\$'"
check "define sdt_php:function__*" probecache-resolve define -q 'sdt_php:function__*'

cat > /tmp/t81.php << 'PHP'
<?php
class Greeter
{
    public function hello($who)
    {
        return "hello " . $who;
    }
}

function leaf($n)
{
    return $n * 2;
}

for ($i = 0; $i < 3; $i++) {
    leaf($i);
}
echo (new Greeter())->hello("sdt"), "\n";
PHP
# phphits: "entry|return FIELDS" of perf script's lines on stdin
phphits() {
	sed -n 's/.* sdt_php:function__\([a-z]*\): ([0-9a-fx]*) \(function_name=.*\)$/\1 \2/p'
}
# rec CMD...: perf record of function__entry and function__return while CMD runs
rec() {
	perf record -q -N -B -o /tmp/php81.data -e 'sdt_php:function__*' -- "$@"
}

rec chroot $R $PHP -n /tmp/t81.php > /tmp/php81.out 2> /tmp/php81.err
check_eq "perf record -e 'sdt_php:function__*' -- php8.2 t81.php" "hello sdt" "$(cat /tmp/php81.out)"
check_eq "  no USE_ZEND_DTRACE=1: no hit" 0 "$(perf script -i /tmp/php81.data 2> /dev/null | wc -l)"

rec env USE_ZEND_DTRACE=1 chroot $R $PHP -n /tmp/t81.php > /tmp/php81.out 2> /tmp/php81.err
check_eq "USE_ZEND_DTRACE=1 perf record ... -- php8.2 t81.php" "hello sdt" "$(cat /tmp/php81.out)"
perf script -i /tmp/php81.data 2> /dev/null > /tmp/php81.script
F='request_file="/tmp/t81.php"'
L='function_name="leaf" '$F' lineno=12 classname="" scope=""'
check_eq "  perf script: each function's name, file, line, class and scope" \
	"entry function_name=\"main\" $F lineno=15 classname=\"\" scope=\"\"
entry $L
return $L
entry $L
return $L
entry $L
return $L
entry function_name=\"hello\" $F lineno=6 classname=\"Greeter\" scope=\"::\"
return function_name=\"hello\" $F lineno=6 classname=\"Greeter\" scope=\"::\"
return function_name=\"main\" $F lineno=15 classname=\"\" scope=\"\"" "$(phphits < /tmp/php81.script)"
diag "e.g. $(grep -m 1 'function_name="hello"' /tmp/php81.script | sed 's/^ *//')"

check "disarm 'sdt_php:*'" probecache-resolve disarm -q 'sdt_php:*'
pc_image_unbind sdt-langs
pc_unload
tap_done
