"""Raw profile.proto written by hand, for tests/bounds.sh and
bench/70-bounds.sh (an oracle that is not flamekit: the encoding is
protobuf's wire format, a varint or a length-delimited field at a time).

  pbgen.py string 0 OUT     a gzip pprof whose string table holds one 64 MiB
                            string (65 KB on disk)
  pbgen.py samples N OUT    a gzip pprof of N samples of one stack ("f"),
                            8 bytes each (N a multiple of 1024)
  pbgen.py endless          an endless raw stream of samples on stdout
"""
import gzip
import sys


def v(x):
    b = bytearray()
    while True:
        c = x & 0x7f
        x >>= 7
        if not x:
            b.append(c)
            return bytes(b)
        b.append(c | 0x80)


def f(n, p):
    """Field n, length-delimited."""
    return v(n << 3 | 2) + v(len(p)) + p


def i(n, x):
    """Field n, a varint."""
    return v(n << 3) + v(x)


HEAD = f(1, i(1, 1) + i(2, 2))              # sample_type {type 1, unit 2}
SAMPLE = f(2, f(1, v(1)) + f(2, v(1)))      # location 1, value 1
TAIL = f(4, i(1, 1) + f(4, i(1, 1))) + f(5, i(1, 1) + i(2, 3)) + \
    b"".join(f(6, s) for s in (b"", b"samples", b"count", b"f"))


def main():
    kind = sys.argv[1]
    if kind == "endless":
        out = sys.stdout.buffer
        out.write(HEAD)
        try:
            while True:
                out.write(SAMPLE * 4096)
        except BrokenPipeError:
            sys.exit(0)
    with gzip.open(sys.argv[3], "wb", compresslevel=9) as o:
        o.write(HEAD)
        if kind == "string":
            o.write(bytes([0x32]) + v(64 << 20))
            for _ in range(64):
                o.write(b"a" * (1 << 20))
        else:
            for _ in range(int(sys.argv[2]) // 1024):
                o.write(SAMPLE * 1024)
            o.write(TAIL)


if __name__ == "__main__":
    main()
