#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The layers of the tree and the include circles between its units, from the
#include "..." lines of common/, kmod/ and user/ (tests/style/run.sh; tests/harness plants
a circle in a copy of the tree and expects this to fail).

usage: layers.py [TOP]      (TOP: the tree, default this checkout)

Layers, bottom to top: include/uapi, common (the parsers both the module and the
CLI compile), kmod, user/lib, user/cmd. A file is in the layer of its folder; a .c
or .h anywhere else under user/ is in no layer (fails).

An include "NAME" resolves as the compiler would find it: the including file's
own folder first, then, for user/ files, user/lib, user/cmd, common and
include/uapi, for kmod/ files common and include/uapi, for common/ files
include/uapi. user/cmd is on that list although user/Makefile does not put it
on the include path, so that a library naming a command header is reported here
and not only refused by the compiler. An include that resolves to no file of
the tree is not counted (none of common/, kmod/ or user/ is expected to have one).

A unit is a folder's X.c together with its X.h. A header with no .c of its
name in its folder (user/lib/pc.h, user/lib/dwarf_int.h, user/cmd/builtin.h,
kmod/pc.h, kmod/regs.h, common/pc_types.h) holds no code and is no unit: it
stands for what it includes, so a unit that includes it includes, through it,
the units whose headers it includes. Unit A depends on unit B when a file of A
includes B's header that way. A circle is a cycle of that relation: A's files
include B's header and B's files include A's header, or the same through more
units. What one shared header declares for many units (kmod/pc.h declares
probe.c's functions as well as arm.c's; user/lib/dwarf_int.h
lends functions between the dwarf*.c units) is not seen by this rule: those
call circles are kept out by the layout of the code, not by this check.

Fails on: a file of user/lib including a header of user/cmd; any circle; a file
outside the layers; more than MAX_UP includes from a lower layer to a higher one
(a library including a command header counts there too, and fails anyway).

Output: one line per finding, "lib-includes-cmd: ...", "circle: ...", "upward:
...", "no-layer: ...", then "upward-count: N" and "circles: N"; exit 1 on any
failure.
"""
import os
import re
import sys

MAX_UP = 3
LAYERS = ["include/uapi", "common", "kmod", "user/lib", "user/cmd"]  # bottom to top
SEARCH = {
    "user": ["user/lib", "user/cmd", "common", "include/uapi"],
    "kmod": ["common", "include/uapi"],
    "common": ["include/uapi"],
    "include": [],
}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    for i, lay in enumerate(LAYERS):
        if rel.startswith(lay + "/"):
            return i
    return None


def main():
    top = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                          os.path.join(os.path.dirname(__file__), "..", ".."))
    files = []
    for base in ("include/uapi", "common", "kmod", "user"):
        for d, _, names in os.walk(os.path.join(top, base)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    files.append(os.path.relpath(os.path.join(d, n), top))
    files.sort()
    fileset = set(files)

    def resolve(rel, name):
        here = os.path.dirname(rel)
        for d in [here] + SEARCH[rel.split("/")[0]]:
            cand = os.path.normpath(os.path.join(d, name))
            if cand in fileset:
                return cand
        return None

    incs = {}  # file -> [(line number, name, resolved file)]
    for f in files:
        out = []
        with open(os.path.join(top, f), errors="replace") as fh:
            for no, line in enumerate(fh, 1):
                m = INC.match(line)
                if m:
                    r = resolve(f, m.group(1))
                    if r:
                        out.append((no, m.group(1), r))
        incs[f] = out

    def unit_of(f):
        stem = os.path.splitext(f)[0]
        return stem if stem + ".c" in fileset else None  # None: a shared header

    failed = False
    n_up = 0
    for f in files:
        lf = layer_of(f)
        if lf is None:
            print("no-layer: %s (user/ code lives in user/cmd or user/lib)" % f)
            failed = True
            continue
        for no, name, r in incs[f]:
            lr = layer_of(r)
            if lr is None or lr <= lf:
                continue
            n_up += 1
            print("upward: %s:%d includes \"%s\" = %s (%s below %s)"
                  % (f, no, name, r, LAYERS[lf], LAYERS[lr]))
            if LAYERS[lf] == "user/lib" and LAYERS[lr] == "user/cmd":
                print("lib-includes-cmd: %s:%d includes the command header %s" % (f, no, r))
                failed = True

    # unit graph; each edge keeps the include line that makes it
    edges = {}
    for f in files:
        u = unit_of(f)
        if u is None:
            continue
        seen = set()
        stack = [(f, None)]
        while stack:
            cur, via = stack.pop()
            for no, name, r in incs[cur]:
                v = unit_of(r)
                where = via or "%s:%d" % (f, no)
                if v is None:
                    if r not in seen:
                        seen.add(r)
                        stack.append((r, where))
                elif v != u:
                    edges.setdefault(u, {}).setdefault(v, "%s includes %s" % (where, r))

    # Tarjan's strongly connected components: each one of more than one unit is a circle
    index, low, onstack, st, sccs = {}, {}, set(), [], []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        st.append(v)
        onstack.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in onstack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = st.pop()
                onstack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(set(edges) | {w for e in edges.values() for w in e}):
        if v not in index:
            strong(v)
    for comp in sorted(sccs):
        failed = True
        print("circle: %s" % " <-> ".join(comp))
        for u in comp:
            for v in sorted(edges.get(u, {})):
                if v in comp:
                    print("circle:   %s -> %s: %s" % (u, v, edges[u][v]))

    print("upward-count: %d" % n_up)
    print("circles: %d" % len(sccs))
    if n_up > MAX_UP:
        print("too-many-upward: %d includes from a lower layer to a higher one (at most %d)"
              % (n_up, MAX_UP))
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
