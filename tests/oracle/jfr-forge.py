#!/usr/bin/env python3
# Writes a small JFR file from the format's description (not from any JFR
# writer): a chunk header, a metadata event, one checkpoint and a few
# jdk.ExecutionSample events, and prints the folded stacks it wrote on
# stdout (the expected output: this script is its own oracle).
#
#   jfr-forge.py OUT.jfr [--fixed] [--empty-strings] [--nested-empty]
#
# --fixed writes integers big-endian (the chunk's flag bit 0 clear) instead
# of LEB128; --empty-strings encodes a metadata string and a symbol as the
# empty string (encoding 1) and a null (0); --nested-empty gives every
# event a field of a struct nesting 200^5 structs of no fields.
import struct
import sys

out = sys.argv[1]
fixed = '--fixed' in sys.argv
empty = '--empty-strings' in sys.argv


def vi(n):
    if fixed:
        return struct.pack('>q', n)
    n &= (1 << 64) - 1
    b = bytearray()
    for _ in range(8):
        if n < 0x80:
            b.append(n)
            return bytes(b)
        b.append(n & 0x7f | 0x80)
        n >>= 7
    b.append(n & 0xff)
    return bytes(b)


def vint(n):
    return struct.pack('>i', n) if fixed else vi(n)


def s_utf8(t):
    e = t.encode()
    return b'\x03' + vint(len(e)) + e


# the metadata's strings
strs = []


def si(t):
    if t not in strs:
        strs.append(t)
    return strs.index(t)


def elem(name, attrs, children=()):
    b = vint(si(name)) + vint(len(attrs))
    for k, v in attrs:
        b += vint(si(k)) + vint(si(v))
    b += vint(len(children))
    for c in children:
        b += c
    return b


def field(name, cls, cp=False, array=False):
    a = [('name', name), ('class', str(cls))]
    if cp:
        a.append(('constantPool', 'true'))
    if array:
        a.append(('dimension', '1'))
    return elem('field', a)


def klass(cid, name, fields=(), super_=None):
    a = [('name', name), ('id', str(cid))]
    if super_:
        a.append(('superType', super_))
    return elem('class', a, list(fields))


LONG, INT, BOOL, STRING, SYM, CLASS, METHOD, FTYPE, FRAME, TRACE, THREAD, EXEC = range(20, 32)
classes = [
    klass(LONG, 'long'), klass(INT, 'int'), klass(BOOL, 'boolean'), klass(STRING, 'java.lang.String'),
    klass(SYM, 'jdk.types.Symbol', [field('string', STRING)]),
    klass(CLASS, 'java.lang.Class', [field('name', SYM, cp=True), field('modifiers', INT)]),
    klass(METHOD, 'jdk.types.Method', [field('type', CLASS, cp=True), field('name', SYM, cp=True),
                                       field('descriptor', SYM, cp=True)]),
    klass(FTYPE, 'jdk.types.FrameType', [field('description', STRING)]),
    klass(FRAME, 'jdk.types.StackFrame', [field('method', METHOD, cp=True), field('lineNumber', INT),
                                          field('bytecodeIndex', INT), field('type', FTYPE, cp=True)]),
    klass(TRACE, 'jdk.types.StackTrace', [field('truncated', BOOL), field('frames', FRAME, array=True)]),
    klass(THREAD, 'java.lang.Thread', [field('osName', STRING), field('osThreadId', LONG),
                                       field('javaName', STRING), field('javaThreadId', LONG)]),
    klass(EXEC, 'jdk.ExecutionSample', [field('startTime', LONG), field('sampledThread', THREAD, cp=True),
                                        field('stackTrace', TRACE, cp=True)], super_='jdk.jfr.Event'),
]
if '--nested-empty' in sys.argv:
    # E0 has no fields, E(k+1) 200 fields of Ek, and every sample a field of
    # E5: 200^5 values of no bytes each, in every event
    EMPTY = 40
    classes.append(klass(EMPTY, 'test.E0'))
    for k in range(1, 6):
        classes.append(klass(EMPTY + k, 'test.E%d' % k, [field('f%d' % i, EMPTY + k - 1) for i in range(200)]))
    classes[-7] = klass(EXEC, 'jdk.ExecutionSample', [field('startTime', LONG), field('sampledThread', THREAD, cp=True),
                                                     field('nothing', EMPTY + 5), field('stackTrace', TRACE, cp=True)],
                        super_='jdk.jfr.Event')
if empty:
    si('')
root = elem('root', [], [elem('metadata', [], classes), elem('region', [('gmtOffset', '0')])])

# constants: symbols, classes, methods, frame types, two threads, three stacks
syms = {1: 'com/example/Main', 2: 'main', 3: 'com/example/Work', 4: 'spin', 5: 'hash', 6: '()V',
        7: '' if empty else 'run'}
cls = {1: 1, 2: 3}
methods = {1: (1, 2), 2: (2, 4), 3: (2, 5), 4: (2, 7)}
ftypes = {1: 'Interpreted', 2: 'JIT compiled', 3: 'Inlined'}
threads = {1: ('main', 101, 'main', 1), 2: ('w-os', 102, 'worker;1 <&>', 12)}
# stack key: frames leaf first as (method, line, type)
stacks = {1: [(2, 12, 2), (1, 5, 1)], 2: [(3, 30, 3), (2, 14, 2), (1, 5, 1)], 3: [(4, 0, 1), (1, 6, 1)]}


def sym_value(t):
    if t == '':
        return b'\x01'
    return s_utf8(t)


pools = []
pools.append(vi(SYM) + vint(len(syms)) + b''.join(vi(k) + sym_value(v) for k, v in syms.items()))
pools.append(vi(CLASS) + vint(len(cls)) + b''.join(vi(k) + vi(v) + vint(1) for k, v in cls.items()))
pools.append(vi(METHOD) + vint(len(methods)) + b''.join(vi(k) + vi(c) + vi(n) + vi(6) for k, (c, n) in methods.items()))
pools.append(vi(FTYPE) + vint(len(ftypes)) + b''.join(vi(k) + s_utf8(v) for k, v in ftypes.items()))
pools.append(vi(THREAD) + vint(len(threads)) +
             b''.join(vi(k) + s_utf8(a) + vi(b) + s_utf8(c) + vi(d) for k, (a, b, c, d) in threads.items()))
pools.append(vi(TRACE) + vint(len(stacks)) +
             b''.join(vi(k) + b'\x00' + vint(len(fr)) + b''.join(vi(m) + vint(l) + vint(0) + vi(t) for m, l, t in fr)
                      for k, fr in stacks.items()))


def event(body):
    # the size counts itself: fixed-width sizes are 4 bytes, compressed ones
    # are written padded to 4 bytes (as the JDK does) so the size is known
    n = len(body) + 4
    if fixed:
        return struct.pack('>i', n) + body
    return bytes([n & 0x7f | 0x80, n >> 7 & 0x7f | 0x80, n >> 14 & 0x7f | 0x80, n >> 21 & 0x7f]) + body


meta_body = vi(0) + vi(0) + vi(0) + vi(1) + vint(len(strs)) + b''.join(
    (b'\x00' if empty and i == len(strs) - 1 else s_utf8(t)) for i, t in enumerate(strs)) + root
cp_body = vi(1) + vi(0) + vi(0) + vi(0) + b'\x01' + vint(len(pools)) + b''.join(pools)
samples = [(1, 1), (1, 1), (2, 2), (1, 2), (2, 3), (1, 3), (1, 3)]
ev = b''.join(event(vi(EXEC) + vi(1000 + i) + vi(t) + vi(s)) for i, (t, s) in enumerate(samples))

meta = event(meta_body)
cp = event(cp_body)
body = ev + cp + meta
size = 68 + len(body)
cp_off = 68 + len(ev)
meta_off = cp_off + len(cp)
hdr = b'FLR\x00' + struct.pack('>hhqqqqqqqi', 2, 1, size, cp_off, meta_off, 1700000000000000000, 1000000,
                                 1000, 1000000000, 0 if fixed else 1)
# the header's last field is the flags byte at offset 67 (file state 0)
assert len(hdr) == 68
open(out, 'wb').write(hdr + body)

folded = {}
for t, s in samples:
    names = []
    for m, l, ty in reversed(stacks[s]):
        c, n = methods[m]
        cname = syms[cls[c]]
        names.append((cname + '.' if cname else '') + syms[n])
    k = ';'.join(names)
    folded[k] = folded.get(k, 0) + 1
for k in sorted(folded):
    print(k, folded[k])
