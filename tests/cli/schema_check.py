#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check JSON documents against Documentation/probecache-resolve.schema.json.

python3-jsonschema is not a dependency of the suite, so this checks the
subset of JSON Schema (2020-12) the schema file uses: type (one or a list),
properties, required, additionalProperties: false, items, enum, const,
pattern, minimum, oneOf, $ref to "#/$defs/NAME". A keyword outside that
subset fails the check instead of being ignored, so the schema cannot grow
past what is checked.

usage: schema_check.py SCHEMA DOC... (a DOC.cmd next to DOC names the
command that printed it). Prints one line per problem; exit 1 if any.
"""
import json
import re
import sys

KNOWN = {"$schema", "$id", "$defs", "$ref", "title", "description", "type",
         "properties", "required", "additionalProperties", "items", "enum",
         "const", "pattern", "minimum", "oneOf", "examples"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "null": type(None)}


def is_type(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def resolve(root, ref):
    if not ref.startswith("#/$defs/"):
        raise ValueError("unsupported $ref " + ref)
    return root["$defs"][ref[len("#/$defs/"):]]


def check(root, s, v, where):
    """Problems of value v against schema s, as a list of strings."""
    unknown = set(s) - KNOWN
    if unknown:
        return ["%s: schema keyword(s) not checked here: %s" % (where, sorted(unknown))]
    if "$ref" in s:
        return check(root, resolve(root, s["$ref"]), v, where)
    if "oneOf" in s:
        res = [check(root, b, v, where) for b in s["oneOf"]]
        fits = [r for r in res if not r]
        if not fits:	# the nearest branch's problems say what is wrong
            near = min(range(len(res)), key=lambda i: len(res[i]))
            return ["%s: fits none of oneOf; nearest %s: %s" % (where, s["oneOf"][near].get("$ref", near), "; ".join(res[near]))]
        if len(fits) > 1:
            return ["%s: fits %d of the oneOf branches, not 1" % (where, len(fits))]
    errs = []
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(is_type(v, t) for t in ts):
            return ["%s: %r is not %s" % (where, v, "/".join(ts))]
    if "enum" in s and v not in s["enum"]:
        errs.append("%s: %r not one of %r" % (where, v, s["enum"]))
    if "const" in s and v != s["const"]:
        errs.append("%s: %r is not %r" % (where, v, s["const"]))
    if "pattern" in s and isinstance(v, str) and not re.search(s["pattern"], v):
        errs.append("%s: %r does not match /%s/" % (where, v, s["pattern"]))
    if "minimum" in s and is_type(v, "number") and v < s["minimum"]:
        errs.append("%s: %r < %r" % (where, v, s["minimum"]))
    if isinstance(v, dict):
        props = s.get("properties", {})
        for k in s.get("required", []):
            if k not in v:
                errs.append("%s: missing key %r" % (where, k))
        for k, x in v.items():
            if k in props:
                errs += check(root, props[k], x, "%s.%s" % (where, k))
            elif s.get("additionalProperties", True) is False:
                errs.append("%s: key %r not in the schema" % (where, k))
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            errs += check(root, s["items"], x, "%s[%d]" % (where, i))
    return errs


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    bad = 0
    for doc in sys.argv[2:]:
        try:
            with open(doc + ".cmd") as f:
                cmd = f.read().strip()
        except OSError:
            cmd = doc
        try:
            with open(doc) as f:
                v = json.load(f)
        except ValueError as e:
            print("%s: not JSON: %s" % (cmd, e))
            bad += 1
            continue
        for e in check(schema, schema, v, "$"):
            print("%s: %s" % (cmd, e))
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
