# gdb -q -batch -nx -x gdb-values.py: the value oracle for definitions only we resolve.
# Environment: PC_DEF one line of `probecache-resolve add -D` output ("p:G/E PATH:0xOFF
# name=FETCH ..." or "r:G/E PATH:0xOFF $retval"), PC_EXPRS the definition's argument
# expressions in the same order ("n it->name:string"), PC_RUN the arguments to run PATH with.
# At each of the first hits (a breakpoint at PATH's file offset OFF), every fetch of ours,
# evaluated from the registers and memory the way uprobe_events would, is compared with
# what gdb, from the DWARF, says the variable (p:) or the returned value (r:) is.
# Prints "ok NAME=VALUE" or "bad NAME: ours V, gdb W" per hit and fetch, "hits N".
import os
import re

import gdb

MAX_HITS = 3


def breakpoint_address(path, off):
    """Where file offset @off of @path is mapped in the started inferior."""
    pid = gdb.selected_inferior().pid
    real = os.path.realpath(path)
    with open("/proc/%d/maps" % pid) as maps:
        for line in maps:
            f = line.split()
            if len(f) < 6 or os.path.realpath(f[5]) != real:
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            moff = int(f[2], 16)
            if moff <= off < moff + hi - lo:
                return lo + off - moff
    raise gdb.GdbError("offset %#x of %s is not mapped" % (off, path))


PROBED = {}


def address_of(off):
    return breakpoint_address(PROBED["path"], off)


def read_mem(addr, size):
    mem = gdb.selected_inferior().read_memory(addr, size)
    return int.from_bytes(bytes(mem), "little")


TYPE = re.compile(r"^(.*?)(?::([sux])(8|16|32|64))?$")
# uprobe_events names the whole register (%cx is rcx); gdb's $cx is its low 16 bits
REGS = {"ax": "rax", "bx": "rbx", "cx": "rcx", "dx": "rdx", "si": "rsi", "di": "rdi",
        "bp": "rbp", "sp": "rsp", "ip": "rip"}
DEREF = re.compile(r"^([+-]\d+)\((.*)\)$")


def read_string(addr):
    out = b""
    while len(out) < 4096:
        c = bytes(gdb.selected_inferior().read_memory(addr + len(out), 1))
        if c == b"\0":
            break
        out += c
    return out.decode("latin-1")


def fetch(spec):
    """(raw value, width in bits) of an uprobe_events fetch: \\IMM, %REG, +N(...), @+OFF;
    a :string fetch gives (the string, 0)."""
    if spec.endswith(":string"):	# the string is at the address, not behind it
        body = spec[: -len(":string")]
        m = DEREF.match(body)
        addr = fetch(m.group(2))[0] + int(m.group(1)) if m else fetch(body)[0]
        return read_string(addr), 0
    body, _, width = TYPE.match(spec).groups()
    width = int(width or 64)
    if body == "$retval":
        raw = int(gdb.parse_and_eval("$rax"))
    elif body.startswith("\\"):
        raw = int(body[1:], 0)
    elif body.startswith("@+"):	# a file offset of the probed file
        raw = read_mem(address_of(int(body[2:], 0)), width // 8)
    elif body.startswith("%"):
        raw = int(gdb.parse_and_eval("$" + REGS.get(body[1:], body[1:])))
    else:
        m = DEREF.match(body)
        if not m:
            raise gdb.GdbError("fetch %r: form not known to this oracle" % spec)
        addr = fetch(m.group(2))[0] + int(m.group(1))
        raw = read_mem(addr, width // 8)
    return raw & ((1 << width) - 1), width


def same(ours, width, value):
    """Equal at the narrower of the two widths (the DWARF type's, the fetch's)."""
    if width == 0:
        return ours == value.string(encoding="latin-1")
    if value.type.strip_typedefs().code == gdb.TYPE_CODE_ARRAY:
        return False
    bits = min(width, 8 * value.type.sizeof)
    mask = (1 << bits) - 1
    return ours & mask == int(value) & mask


def is_chars(value):
    t = value.type.strip_typedefs()
    return (t.code in (gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_ARRAY) and
            t.target().strip_typedefs().sizeof == 1)


def shown(value):
    return repr(value.string(encoding="latin-1")) if is_chars(value) else int(value)


def compare(kind, fetches, exprs):
    for (name, spec), expr in zip(fetches, exprs):
        if kind == "r":
            value = gdb.history(0)
        else:
            value = gdb.parse_and_eval(expr)
        ours, width = fetch(spec)
        if same(ours, width, value):
            print("ok %s=%s" % (expr, shown(value)))
        else:
            print("bad %s: ours %r, gdb %s" % (expr, ours, shown(value)))


def main():
    head, loc, *args = os.environ["PC_DEF"].split()
    kind = head[0]
    path, off = loc.rsplit(":", 1)
    PROBED["path"] = path
    fetches = [(a.split("=", 1)[0], a.split("=", 1)[-1]) for a in args]
    # NAME=EXPR:TYPE -> EXPR, as gdb reads it
    exprs = [re.sub(r":\w+$", "", e.split("=", 1)[-1]) for e in os.environ["PC_EXPRS"].split()]
    if exprs in (["$params"], ["$vars"]):	# one fetch per variable, named after it
        exprs = [name for name, _ in fetches]
    if len(exprs) != len(fetches):
        raise gdb.GdbError("%d expressions for %d fetches" % (len(exprs), len(fetches)))
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("file " + path, to_string=True)
    gdb.execute("starti " + os.environ.get("PC_RUN", ""), to_string=True)
    gdb.execute("break *%#x" % breakpoint_address(path, int(off, 16)), to_string=True)
    hits = 0
    while hits < MAX_HITS:
        gdb.execute("continue", to_string=True)
        if not gdb.selected_inferior().pid:
            break
        hits += 1
        if kind == "r":
            gdb.execute("finish", to_string=True)
        compare(kind, fetches, exprs)
    print("hits %d" % hits)


try:
    main()
except gdb.error as e:
    print("error %s" % e)
