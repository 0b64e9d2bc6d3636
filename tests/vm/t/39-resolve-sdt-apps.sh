# Debian's own python3.11 and postgres, traced by their SDT probes' names and types
# (sdt/python.args, sdt/postgresql.args, which the VM has where the tools package
# installs them). The programs come from the read-only image run.sh attaches for
# *-sdt-apps.sh scripts (tests/vm/sdtimage.sh apps, on /mnt/sdt-apps), run chrooted
# there; probecache-resolve scans them at that path (the inode is the same).
#  python: scan caches python3.11's 8 probes without defining them; `define` of the
#    cached sdt_python:function__* makes them trace events. perf record of both (perf
#    raises their semaphore) while python3.11 runs a small script under its own
#    profiler, in one process: perf script shows each call and return of the script's
#    code with filename="...", funcname="..." and lineno=N, exactly the calls, names
#    and lines the profiler printed. Without a profiler, through ftrace: CPython 3.11
#    fires function__entry only while a profiler or tracer is set (python/cpython#98894,
#    said by sdt/python.args and list; the count is said, not checked), and
#    function__return names every call all the same.
#  postgres: `postgres --single` (a cluster initdb made in the image, under an overlay)
#    runs seven queries; an ftrace filter on the named field, query ~ "SELECT*", keeps
#    exactly the three query__start hits whose text begins with SELECT, while
#    query__done, unfiltered, sees all seven, in order.
. /pc/lib.sh
export PROBECACHE_DIR=/tmp/pc39
R=/mnt/sdt-apps
T=/sys/kernel/tracing
PY=/usr/bin/python3.11
PG=/usr/lib/postgresql/15/bin
cd /tmp || exit 1

if ! why=$(pc_image_root sdt-apps $PY 2>&1); then
	pc_missing "Debian's python3.11 and postgres: $why"
	tap_done
	exit
fi
pc_load || { not_ok "insmod probecache.ko"; tap_done; exit 1; }

# --- python3.11 --------------------------------------------------------------------
probecache-resolve scan --no-define $R$PY > /tmp/scan39 2>&1
check "scan --no-define python3.11: 8 probes cached" grep -qx "$R$PY ([0-9a-f]*): 8 events" /tmp/scan39
check "  with sdt/python.args' names and types" sh -c "probecache-resolve list --format=record \
sdt_python:function__entry | grep -q ' filename=+0(%[a-z0-9]*):string funcname=+0(%[a-z0-9]*):string lineno=%[a-z0-9]*:s32\$'"
check "  list: function__entry needs a profiler or tracer (CPython 3.11)" sh -c \
	"probecache-resolve list sdt_python:function__entry | grep -q '=function__entry  # needs a profiler or tracer set'"
check "  no trace event yet" test ! -e $T/events/sdt_python
check "define the cached sdt_python:function__*" probecache-resolve define -q 'sdt_python:function__*'
check_eq "  two trace events" "function__entry function__return" "$(ls $T/events/sdt_python | grep -v '^enable$\|^filter$' | tr '\n' ' ' | sed 's/ $//')"

cat > /tmp/t39.py << 'EOF'
def leaf(n):
    return n * 2


def middle(n):
    total = 0
    for i in range(n):
        total += leaf(i)
    return total


class Greeter:
    def hello(self, who):
        return "hello " + who


def main():
    middle(3)
    return Greeter().hello("sdt")


print(main())
EOF
# The oracle: o39.py runs t39.py under Python's own profiler, which prints each call and
# return of t39.py's code (the module, the class body, the functions) with its line.
cat > /tmp/o39.py << 'EOF'
import sys


def prof(frame, event, arg):
    code = frame.f_code
    if event in ("call", "return") and code.co_filename == sys.argv[1]:
        print("entry" if event == "call" else "return", code.co_filename, code.co_name,
              frame.f_lineno)


code = compile(open(sys.argv[1]).read(), sys.argv[1], "exec")
sys.setprofile(prof)
exec(code, {"__name__": "__main__"})
sys.setprofile(None)
EOF
# pyhits: "entry|return FILENAME FUNCNAME LINENO" of each python hit in perf script's or
# ftrace's lines on stdin, t39.py's only:
# "python3.11 123 [000] 1.2: sdt_python:function__entry: (0x4c779b) filename="/tmp/t39.py"
#  funcname="leaf" lineno=4" -> "entry /tmp/t39.py leaf 4"
pyhits() {
	sed -n 's/.* \(sdt_python:\)\{0,1\}function__\([a-z]*\): ([0-9a-fx]*) filename="\(\/tmp\/t39.py\)" funcname="\([^"]*\)" lineno=\([-0-9]*\)$/\2 \3 \4 \5/p'
}

# With the profiler active, in one process: the profiler's lines, and perf's of the same
# calls. python3.11 without the site module, isolated: less to start. A perf filter on
# the file name keeps t39.py's hits only (the stdlib's would be a thousand lines for
# perf script to read).
F='filename ~ "/tmp/t39.py"'
perf record -q -N -B -o /tmp/py39.data -e sdt_python:function__entry --filter "$F" \
	-e sdt_python:function__return --filter "$F" \
	-- chroot $R $PY -I -S /tmp/o39.py /tmp/t39.py > /tmp/py39.out 2> /tmp/py39.err
grep -v '^hello sdt$' /tmp/py39.out > /tmp/want39
check_eq "perf record -e sdt_python:function__entry --filter 'filename ~ ...' -e ...__return ... -- python3.11 o39.py t39.py" \
	"16 calls and returns (module, class body, 4 functions 6 times) hello sdt" \
	"$(wc -l < /tmp/want39) calls and returns (module, class body, 4 functions 6 times) $(grep -x 'hello sdt' /tmp/py39.out)"
perf script -i /tmp/py39.data 2> /dev/null > /tmp/py39.script
check_eq "  perf script: each call's and return's filename, funcname and lineno, as the profiler saw them" \
	"$(cat /tmp/want39)" "$(pyhits < /tmp/py39.script)"
[ "$(cat /tmp/want39)" = "$(pyhits < /tmp/py39.script)" ] &&
	diag "e.g. $(grep -m 1 'funcname="leaf"' /tmp/py39.script | sed 's/^ *//')" ||
	{ diag "perf script said:"; grep t39 /tmp/py39.script | head -n 16 | sed 's/^/#   /'; }

# Without a profiler, through ftrace: CPython 3.11 fires function__entry only while a
# profiler or tracer is active (python/cpython#98894, fixed in 3.15); function__return
# names every call all the same.
echo 0 > $T/tracing_on
: > $T/trace
echo 1 > $T/events/sdt_python/enable
echo 1 > $T/tracing_on
check_eq "ftrace: python3.11 t39.py" "hello sdt" "$(chroot $R $PY -I -S /tmp/t39.py)"
echo 0 > $T/tracing_on
echo 0 > $T/events/sdt_python/enable
pyhits < $T/trace > /tmp/got39
check_eq "  each return's filename, funcname and lineno, as the profiler saw them" \
	"$(grep '^return ' /tmp/want39)" "$(grep '^return ' /tmp/got39)"
check "  python's own calls are seen too (the stdlib's, the frozen importlib)" \
	sh -c "grep ' function__return: ' $T/trace | grep -vq ' filename=\"/tmp/t39.py\" '"
diag "function__entry hits of t39.py without a profiler: $(grep -c '^entry ' /tmp/got39)"

# --- postgres --single ---------------------------------------------------------------
probecache-resolve scan --no-define $R$PG/postgres > /tmp/scan39 2>&1
check "scan --no-define postgres: 71 probes cached" grep -qx "$R$PG/postgres ([0-9a-f]*): 71 events" /tmp/scan39
check "define sdt_postgresql:query__start, query__done" \
	probecache-resolve define -q sdt_postgresql:query__start sdt_postgresql:query__done
QS=$T/events/sdt_postgresql/query__start
QD=$T/events/sdt_postgresql/query__done
check "  the format file names the field: query, a string" \
	grep -q 'field:__data_loc char\[\] query;' $QS/format

cat > /tmp/q39.sql << 'EOF'
SELECT 1 AS one;
CREATE TABLE pc39 (n int, s text);
INSERT INTO pc39 VALUES (1, 'one'), (2, 'two');
SELECT s FROM pc39 WHERE n = 2;
select count(*) from pc39;
UPDATE pc39 SET s = 'SELECT' WHERE n = 1;
SELECT n, s FROM pc39 ORDER BY n;
EOF
# The image's cluster made writable: an overlay with its changes on /tmp (a copy of all
# of it takes seconds under TCG), mounted where the chroot sees it as /tmp/pgdata39.
rm -rf /tmp/pg39
mkdir -p /tmp/pg39/up /tmp/pg39/work /tmp/pgdata39
chown 70:70 /tmp/pg39/up
chmod 0700 /tmp/pg39/up
check "the image's cluster, writable: overlayfs" mount -t overlay pg39 \
	-o lowerdir=$R/var/lib/pc-pgdata,upperdir=/tmp/pg39/up,workdir=/tmp/pg39/work $R/tmp/pgdata39
echo 0 > $T/tracing_on
: > $T/trace
check "ftrace filter on the query text: query ~ \"SELECT*\"" sh -c "echo 'query ~ \"SELECT*\"' > $QS/filter"
echo 1 > $QS/enable
echo 1 > $QD/enable
echo 1 > $T/tracing_on
# postgres refuses to run as root: the image's setpriv, uid 70 (its user postgres). No
# /dev/shm in the VM: dynamic shared memory in files of the cluster.
chroot $R /usr/bin/setpriv --reuid=70 --regid=70 --clear-groups $PG/postgres --single \
	-D /tmp/pgdata39 -c shared_buffers=16MB -c dynamic_shared_memory_type=mmap postgres \
	< /tmp/q39.sql > /tmp/pg39.out 2> /tmp/pg39.err
rc=$?
echo 0 > $T/tracing_on
echo 0 > $QS/enable
echo 0 > $QD/enable
check_eq "postgres --single runs the 7 queries: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' /tmp/pg39.err | tail -n 10
check "  its answer to the last: 2, \"SELECT\"" grep -q 's = "SELECT"' /tmp/pg39.out
# "postgres-123 [000] ..... 1.2: query__done: (0x55..) query="SELECT 1 AS one;\n"": the
# query text as postgres has it, with the line's newline, so the closing quote is on the
# next line -> "done SELECT 1 AS one;"
awk 'q != "" { print q; q = ""; next }
	match($0, / query__(start|done): \(0x[0-9a-f]+\) query="/) {
		k = $0 ~ / query__start: / ? "start" : "done"
		s = substr($0, RSTART + RLENGTH)
		if (s ~ /"$/) print k, substr(s, 1, length(s) - 1); else q = k " " s
	}' $T/trace > /tmp/pgq39
check_eq "query__done, unfiltered: all 7 queries, in order" "$(cat /tmp/q39.sql)" \
	"$(sed -n 's/^done //p' /tmp/pgq39)"
check_eq "query__start, filtered: only the 3 that begin with SELECT" \
	"$(grep '^SELECT' /tmp/q39.sql)" "$(sed -n 's/^start //p' /tmp/pgq39)"
[ "$(grep -c '^start ' /tmp/pgq39)" = 3 ] || { diag "trace:"; head -n 20 $T/trace | sed 's/^/#   /'; }
echo 0 > $QS/filter
echo 1 > $T/tracing_on	# as the scripts after this one find it
check "disarm 'sdt_python:*' 'sdt_postgresql:*'" probecache-resolve disarm -q 'sdt_python:*' 'sdt_postgresql:*'
check "  their trace events are gone" sh -c "test ! -e $T/events/sdt_python && test ! -e $T/events/sdt_postgresql"
umount $R/tmp/pgdata39
rm -rf /tmp/pg39 /tmp/pgdata39
pc_image_unbind sdt-apps
pc_unload
tap_done
