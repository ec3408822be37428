#!/usr/bin/env python3
"""The test's tool for tests/pprof-sym.sh: profile.proto edited on the wire
(varints and length-delimited fields; no protobuf library), not an oracle.

  pprof-strip.py strip IN OUT [KEY=VALUE...]
      IN (gzip or raw) without names, as an unsymbolized profile is: no
      Function messages, no Line in any Location, and the mappings'
      has_functions/has_filenames/has_line_numbers/has_inline_frames
      cleared.  KEY=VALUE edits mapping 1 (the main binary): file=PATH,
      build_id=HEX, start=N, limit=N, offset=N (numbers in hex).  OUT is
      gzip-compressed when its name ends in .gz.
  pprof-strip.py make OUT MAPPING... -- LOC...
      a raw profile of one sample of weight 1 per LOC, each its own stack;
      MAPPING is FILE,START,LIMIT,OFFSET[,BUILD_ID] (numbers in hex, mapping
      ids 1, 2, ... in order), LOC is MAPPING_ID,ADDRESS (hex)
"""
import gzip
import os
import sys

sys.dont_write_bytecode = True  # nothing written beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop import varint  # noqa: E402  (the one varint writer of the tests)


def fields(buf):
    """(number, wire type, value) for each field: an int for varints, bytes
    for the rest."""
    i = 0
    while i < len(buf):
        tag, i = read_varint(buf, i)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = read_varint(buf, i)
        elif wt == 2:
            n, i = read_varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def read_varint(buf, i):
    n = sh = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7f) << sh
        sh += 7
        if not b & 0x80:
            return n, i


def put(num, wt, v):
    if wt == 0:
        return varint(num << 3) + varint(v)
    if wt == 2:
        return varint(num << 3 | 2) + varint(len(v)) + v
    return varint(num << 3 | wt) + v


def strip(src, dst, edits):
    data = open(src, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strings = [v for num, wt, v in fields(data) if num == 6]
    extra = []  # strings added by the edits, after the table

    def string_index(s):
        extra.append(s.encode())
        return len(strings) + len(extra) - 1
    out, first = b"", True
    for num, wt, v in fields(data):
        if num == 5:  # Function
            continue
        if num == 4:  # Location: no Line (4), not folded (5)
            v = b"".join(put(n, w, x) for n, w, x in fields(v) if n not in (4, 5))
        if num == 3:  # Mapping: no has_* (7..10); the edits on the first
            f = [(n, w, x) for n, w, x in fields(v) if n not in (7, 8, 9, 10)]
            if first:
                num_of = {"start": 2, "limit": 3, "offset": 4, "file": 5, "build_id": 6}
                for k, val in edits:
                    n = num_of[k]
                    x = string_index(val) if k in ("file", "build_id") else int(val, 16)
                    f = [t for t in f if t[0] != n] + [(n, 0, x)]
            first = False
            v = b"".join(put(n, w, x) for n, w, x in f)
        out += put(num, wt, v)
    for s in extra:
        out += put(6, 2, s)
    if dst.endswith(".gz"):
        out = gzip.compress(out, mtime=0)
    open(dst, "wb").write(out)


def make(dst, mappings, locs):
    strings = ["", "samples", "count"]

    def sidx(s):
        if s not in strings:
            strings.append(s)
        return strings.index(s)
    p = put(1, 2, put(1, 0, 1) + put(2, 0, 2))
    for i, loc in enumerate(locs):
        p += put(2, 2, put(1, 2, varint(i + 1)) + put(2, 2, varint(1)))
    for i, m in enumerate(mappings):
        parts = m.split(",")
        f = put(1, 0, i + 1) + put(2, 0, int(parts[1], 16)) + put(3, 0, int(parts[2], 16))
        f += put(4, 0, int(parts[3], 16)) + put(5, 0, sidx(parts[0]))
        if len(parts) > 4:
            f += put(6, 0, sidx(parts[4]))
        p += put(3, 2, f)
    for i, loc in enumerate(locs):
        mid, addr = loc.split(",")
        p += put(4, 2, put(1, 0, i + 1) + put(2, 0, int(mid)) + put(3, 0, int(addr, 16)))
    for s in strings:
        p += put(6, 2, s.encode())
    open(dst, "wb").write(p)


if __name__ == "__main__":
    if sys.argv[1] == "strip":
        strip(sys.argv[2], sys.argv[3], [a.split("=", 1) for a in sys.argv[4:]])
    else:
        k = sys.argv.index("--")
        make(sys.argv[2], sys.argv[3:k], sys.argv[k + 1:])
