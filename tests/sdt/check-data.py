#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-data.py [SDT_DIR]: the provider files (sdt/*.args) against the signatures Debian's
-dev packages carry in machine-readable form, where they are installed (TAP; `make
check-sdt-data`):

  postgresql-server-dev-15  server/utils/probes.h     /* TRACE_POSTGRESQL_X_Y ( int, ... ) */
  php8.2-dev                Zend/zend_dtrace_gen.h    /* DTRACE_X_Y ( char* name, ... ) */
  libpython3.11-dev         pydtrace.h                PyDTrace_X_Y(const char *arg0, ...) {}

Every entry of the file must be a probe of the header with as many arguments, read as a
string exactly where the header has a char pointer, as x64 where it has another pointer,
as an integer type elsewhere; where the header names the arguments (PHP; pydtrace.h's
arg0.. are no names), the same names.
Probes of the header without an entry are listed (Python declares instance__new/delete,
which have no sites). The sizes are checked against the notes themselves (tests/sdt).
"""
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADERS = [
    ("postgresql", "/usr/include/postgresql/15/server/utils/probes.h", "postgresql-server-dev-15",
     re.compile(r"^/\* TRACE_POSTGRESQL_(\w+) \((.*)\) \*/$")),
    ("php", "/usr/include/php/*/Zend/zend_dtrace_gen.h", "php8.2-dev",
     re.compile(r"^/\* DTRACE_(\w+) \((.*)\) \*/$")),
    ("python", "/usr/include/python3.11/pydtrace.h", "libpython3.11-dev",
     re.compile(r"^static inline void PyDTrace_(\w+)\((.*)\) *\{\}$")),
]

n = 0
failed = 0


def tap(ok, what):
    global n, failed
    n += 1
    failed += not ok
    print("%sok %d - %s" % ("" if ok else "not ", n, what))


def header_probes(path, rx):
    """{probe: [(ctype, name or None)]} from a header's signature lines."""
    probes = {}
    for line in open(path):
        m = rx.match(line.strip())
        if not m:
            continue
        name = m.group(1).lower().replace("_", "__")
        params = [p.strip() for p in m.group(2).split(",") if p.strip() and p.strip() != "void"]
        args = []
        for p in params:
            pm = re.match(r"^(.*?[\s*])(\w+)$", p)
            named = pm and not re.fullmatch(r"(unsigned\s+)?(int|char|long|short)", p) \
                and not p.endswith("*")
            args.append((pm.group(1).strip() if named else p, pm.group(2) if named else None))
        probes[name] = args
    return probes


def data_entries(path):
    """{probe: {argN: (name, type)}} from a provider file (plain argN uses only)."""
    entries = {}
    for line in open(path):
        f = line.split()
        if len(f) < 2 or f[0] != "probe":
            continue
        args = {}
        for a in f[2:]:
            name, _, expr = a.rpartition("=")
            expr, _, typ = expr.partition(":")
            m = re.fullmatch(r"arg(\d+)", expr)
            if m:
                args[int(m.group(1))] = (name or expr, typ)
        entries[f[1]] = args
    return entries


def kind(ctype):
    if ctype is None:
        return None
    if "*" in ctype:
        return "string" if "char" in ctype else "pointer"
    return "integer"


def type_kind(typ):
    if typ == "string":
        return "string"
    return "pointer-or-integer" if typ.startswith("x") else "integer"


def check_probe(prov, probe, hargs, dargs):
    what = "%s:%s" % (prov, probe)
    if len(dargs) != len(hargs) or sorted(dargs) != list(range(1, len(hargs) + 1)):
        tap(False, "%s: the header has %d args, the entry names %s" % (what, len(hargs), sorted(dargs)))
        return
    bad = []
    for i, (ctype, cname) in enumerate(hargs, 1):
        name, typ = dargs[i]
        hk, dk = kind(ctype), type_kind(typ)
        if hk != dk and not (dk == "pointer-or-integer" and hk in ("pointer", "integer")):
            bad.append("arg%d is %s '%s' there, %s here" % (i, hk, ctype, typ))
        if cname and not re.fullmatch(r"arg\d+", cname) and cname != name:
            bad.append("arg%d is '%s' there, '%s' here" % (i, cname, name))
    tap(not bad, "%s: %d args as the header declares them%s" % (what, len(hargs),
        ": " + "; ".join(bad) if bad else ""))


def main():
    sdt = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "sdt")
    for prov, pattern, pkg, rx in HEADERS:
        paths = glob.glob(pattern)
        if not paths:
            print("# %s: %s is not installed (%s): skipped" % (prov, pattern, pkg))
            continue
        hprobes = header_probes(paths[0], rx)
        dprobes = data_entries(os.path.join(sdt, prov + ".args"))
        tap(bool(hprobes), "%s: %s declares %d probes" % (prov, paths[0], len(hprobes)))
        for probe in sorted(dprobes):
            if probe not in hprobes:
                tap(False, "%s:%s: no such probe in %s" % (prov, probe, paths[0]))
            else:
                check_probe(prov, probe, hprobes[probe], dprobes[probe])
        extra = sorted(set(hprobes) - set(dprobes))
        if extra:
            print("# %s: declared in the header, no entry: %s" % (prov, " ".join(extra)))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
