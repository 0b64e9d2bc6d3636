#!/usr/bin/python3
# mkelf.py CMD ...: damaged copies of real ELF files, and small hand-made ELF
# files with chosen SDT notes, for tests/hostile/run.sh. Little-endian ELF64 only.
#   copy-with SRC DST OP [ARG]   OP: truncate N | flip-data | flip-class | shstrndx N |
#                                empty-sdt | bad-note-type N | cut-notes N
#   synth DST BUILDID ARGS...    one stapsdt note pcfix:probe per ARGS string (BUILDID - : none)
import struct
import sys


def shdrs(b):
    shoff, = struct.unpack_from('<Q', b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
    out = []
    for i in range(shnum):
        o = shoff + i * shentsize
        name, typ, flags, addr, off, size = struct.unpack_from('<IIQQQQ', b, o)
        out.append(dict(hdr=o, name=name, type=typ, off=off, size=size))
    strtab = out[shstrndx]
    for s in out:
        raw = b[strtab['off'] + s['name']:]
        s['sname'] = raw[:raw.index(0)].decode()
    return out


def section(b, name):
    return next(s for s in shdrs(b) if s['sname'] == name)


def notes(b, sec):
    """(offset of header, namesz, descsz) of every note in @sec."""
    pos, end, out = sec['off'], sec['off'] + sec['size'], []
    while pos + 12 <= end:
        nsz, dsz, typ = struct.unpack_from('<III', b, pos)
        out.append(pos)
        pos += 12 + ((nsz + 3) & ~3) + ((dsz + 3) & ~3)
    return out


def op(b, what, arg):
    if what == 'truncate':
        return b[:int(arg)]
    if what == 'flip-data':
        b[5] = 2
    elif what == 'flip-class':
        b[4] = 1
    elif what == 'shstrndx':
        struct.pack_into('<H', b, 0x3e, int(arg))
    elif what == 'empty-sdt':
        s = section(b, '.note.stapsdt')
        struct.pack_into('<Q', b, s['hdr'] + 0x20, 0)
    elif what == 'bad-note-type':
        n = notes(b, section(b, '.note.stapsdt'))[int(arg)]
        struct.pack_into('<I', b, n + 8, 99)
    elif what == 'cut-notes':
        # note N claims a name running past the section: it and the rest are unreadable
        n = notes(b, section(b, '.note.stapsdt'))[int(arg)]
        struct.pack_into('<I', b, n, 0x7ffffff0)
    else:
        sys.exit('mkelf: unknown op ' + what)
    return b


def note(name, typ, desc):
    pad = lambda x: x + b'\0' * (-len(x) % 4)
    return struct.pack('<III', len(name), len(desc), typ) + pad(name) + pad(desc)


def synth(dst, bid, argss):
    text_off = 0x1000
    sdt = b''.join(note(b'stapsdt\0', 3, struct.pack('<QQQ', text_off + i, 0, 0) +
                        b'pcfix\0probe\0' + a.encode() + b'\0')
                   for i, a in enumerate(argss))
    gnu = note(b'GNU\0', 3, bytes.fromhex(bid)) if bid != '-' else note(b'GNU\0', 1, b'\0' * 16)
    names = b'\0.text\0.note.gnu.build-id\0.note.stapsdt\0.shstrtab\0'
    body = bytearray(text_off) + b'\x90' * 64
    secs = []
    for nm, typ, data, addr in ((b'.note.gnu.build-id', 7, gnu, None), (b'.note.stapsdt', 7, sdt, None),
                                (b'.shstrtab', 3, names, None)):
        while len(body) % 8:
            body += b'\0'
        secs.append((names.index(nm), typ, len(body), len(data)))
        body += data
    while len(body) % 8:
        body += b'\0'
    shoff = len(body)
    size = shoff + 64 * 5
    struct.pack_into('<4sBBBB8sHHIQQQIHHHHHH', body, 0, b'\x7fELF', 2, 1, 1, 0, b'', 3, 62, 1,
                     0, 64, shoff, 0, 64, 56, 1, 64, 5, 4)
    struct.pack_into('<IIQQQQQQ', body, 64, 1, 5, 0, 0, 0, size, size, 0x1000)
    sh = struct.pack('<IIQQQQIIQQ', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    sh += struct.pack('<IIQQQQIIQQ', names.index(b'.text'), 1, 6, text_off, text_off, 64, 0, 0, 16, 0)
    for nm, typ, off, ln in secs:
        sh += struct.pack('<IIQQQQIIQQ', nm, typ, 0, 0, off, ln, 0, 0, 4 if typ == 7 else 1, 0)
    open(dst, 'wb').write(bytes(body) + sh)


if sys.argv[1] == 'copy-with':
    src, dst, what = sys.argv[2:5]
    data = op(bytearray(open(src, 'rb').read()), what, sys.argv[5] if len(sys.argv) > 5 else None)
    open(dst, 'wb').write(data)
elif sys.argv[1] == 'synth':
    synth(sys.argv[2], sys.argv[3], sys.argv[4:])
else:
    sys.exit('mkelf: unknown command')
