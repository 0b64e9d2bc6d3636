#!/usr/bin/env python3
# Writes the synthetic seeds of seeds/elfnote/: ELF32/64 x LE/BE images with an
# 8-aligned property note segment and a 4-aligned note segment (padded "Linux"
# note, then the build-id), and two raw note segments whose first byte picks
# byte order (bit 0) and 8-byte layout (bit 1), as fuzz_elfnote.c reads them.
# tiny-x86_64 / tiny-aarch64 are "void _start(void){for(;;);}" built with
# gcc -O2 -nostdlib -static -Wl,--build-id -Wl,-z,max-page-size=0x10
# -Wl,-z,noseparate-code (aarch64-linux-gnu-gcc without the last two), stripped.
# usage: gen-elf-seeds.py seeds/elfnote
import os
import struct
import sys

out = sys.argv[1]
bid = bytes(range(0xa0, 0xa0 + 20))
def note(e, align, typ, name, desc):
    n = struct.pack(e + 'III', len(name), len(desc), typ) + name
    n += b'\0' * (-len(n) % align)
    n += desc
    n += b'\0' * (-len(n) % align)
    return n
def image(is64, be):
    e = '>' if be else '<'
    ehsize, phsz = (64, 56) if is64 else (52, 32)
    nph = 4
    phoff = ehsize
    n8 = note(e, 8, 5, b'GNU\0', struct.pack(e + 'III', 0xc0000002, 4, 3))  # x86 feature prop, 12 bytes desc -> padded
    n4 = note(e, 4, 1, b'Linux\0', b'\1\2\3\4') + note(e, 4, 3, b'GNU\0', bid)
    o8 = phoff + nph * phsz
    o8 += -o8 % 8
    o4 = o8 + len(n8)
    text = o4 + len(n4)
    size = text + 16
    ident = b'\x7fELF' + bytes([2 if is64 else 1, 2 if be else 1, 1]) + b'\0' * 9
    if is64:
        eh = ident + struct.pack(e + 'HHIQQQIHHHHHH', 3, 62, 1, text, phoff, 0, 0, ehsize, phsz, nph, 0, 0, 0)
    else:
        eh = ident + struct.pack(e + 'HHIIIIIHHHHHH', 3, 3, 1, text, phoff, 0, 0, ehsize, phsz, nph, 0, 0, 0)
    def ph(t, f, off, va, fs, ms, al):
        if is64:
            return struct.pack(e + 'IIQQQQQQ', t, f, off, va, va, fs, ms, al)
        return struct.pack(e + 'IIIIIIII', t, off, va, va, fs, ms, f, al)
    phs = ph(1, 5, 0, 0, size, size + 0x40, 0x10) + ph(4, 4, o8, o8, len(n8), len(n8), 8) \
        + ph(4, 4, o4, o4, len(n4), len(n4), 4) + ph(0x6474e551, 6, 0, 0, 0, 0, 16)
    img = bytearray(size)
    img[0:len(eh)] = eh
    img[phoff:phoff + len(phs)] = phs
    img[o8:o8 + len(n8)] = n8
    img[o4:o4 + len(n4)] = n4
    img[text:text + 2] = b'\xeb\xfe'
    return bytes(img)
for is64 in (False, True):
    for be in (False, True):
        open(os.path.join(out, 'synth%d%s' % (64 if is64 else 32, 'be' if be else 'le')), 'wb').write(image(is64, be))
# raw note segments: byte 0 selects byte order (bit 0) and 8-byte layout (bit 1)
open(os.path.join(out, 'notes-le4'), 'wb').write(b'\0' + note('<', 4, 1, b'Linux\0', b'\1\2\3\4') + note('<', 4, 3, b'GNU\0', bid))
open(os.path.join(out, 'notes-be8'), 'wb').write(b'\3' + note('>', 8, 5, b'GNU\0', b'\0' * 12) + note('>', 8, 3, b'GNU\0', bid))
