#!/usr/bin/env python3
"""flipbid.py FILE: flip the last bit of FILE's GNU build-id in place (a copy whose
build-id differs from the original's by one byte, which must never be matched)."""
import re
import subprocess
import sys

path = sys.argv[1]
notes = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, check=True).stdout
bid = bytes.fromhex(re.search(r"Build ID: ([0-9a-f]+)", notes).group(1))
data = bytearray(open(path, "rb").read())
assert data.count(bid) == 1, "build-id bytes not unique"
data[data.index(bid) + len(bid) - 1] ^= 1
open(path, "wb").write(data)
