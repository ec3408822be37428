"""Oracles for tests/interop.sh, independent of flamekit: each mode prints
folded stacks (root first, ';'-separated, aggregated, sorted by bytes as
flamekit's folded output is).

  interop.py raw N      stdin: `go tool pprof -raw` output; weight = value N
  interop.py traces     stdin: `go tool pprof -sample_index=samples -traces`
  interop.py v8 FILE [samples] [full]   a .cpuprofile, from its own node
      tree, each sample weighing the time to the next one (the last: to
      endTime) in ns, as DevTools does; "samples": each counts once.  Frames
      are "FUNCTION (FILE:LINE)" as DevTools shows them (FILE: the url's last
      path component); "full": "FUNCTION URL:LINE"
  interop.py speedscope FILE [PROFILE]   a speedscope file (all profiles, or one)
  interop.py unsym FILE MAPPED   writes a raw profile.proto: one sample of
      main <- (function with only a system name) <- an unsymbolized
      location at 0x1234, in mapping /bin/x when MAPPED is 1
  interop.py values FILE   writes a raw profile.proto of int64 extremes
      (INT64_MIN, -1, INT64_MAX, ...) and prints its folded stacks
"""
import json
import re
import sys


def emit(stacks):
    for k in sorted(stacks, key=lambda s: s.encode()):
        v = stacks[k]
        print("%s %s" % (k, int(v) if v == int(v) else v))


def add(stacks, frames, w):
    key = ";".join(f.replace(";", ":") for f in frames)
    stacks[key] = stacks.get(key, 0) + w


def raw(n):
    lines = sys.stdin.read().split("\n")
    samples, locs, cur, section = [], {}, None, None
    for ln in lines:
        if ln in ("Samples:", "Locations", "Mappings"):
            section = ln
            continue
        if section == "Samples:":
            m = re.match(r"^\s*(-?\d+(?:\s+-?\d+)*): ([\d ]*)$", ln)
            if m:
                vals = [int(x) for x in m.group(1).split()]
                samples.append((vals, [int(x) for x in m.group(2).split()]))
        elif section == "Locations":
            m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ M=\d+ (.*) (\S*):(-?\d+) s=\d+$", ln)
            if m:
                cur = int(m.group(1))
                locs[cur] = [m.group(2)]
                continue
            m = re.match(r"^\s+(.*) (\S*):(-?\d+) s=\d+$", ln)
            if m and cur is not None:
                locs[cur].append(m.group(1))
    stacks = {}
    for vals, ids in samples:
        frames = []
        for i in ids:
            frames.extend(locs[i])
        add(stacks, list(reversed(frames)), vals[n])
    emit(stacks)


def traces():
    stacks, frames, w = {}, None, 0
    for ln in sys.stdin.read().split("\n"):
        if ln.startswith("-----------+"):
            if frames:
                add(stacks, list(reversed(frames)), w)
            frames = []
            continue
        if frames is None:
            continue
        m = re.match(r"^\s+(\d+)   (.*)$", ln)
        if m and not frames:
            w = int(m.group(1))
            frames.append(m.group(2))
            continue
        m = re.match(r"^ {13}(.*?)( \(inline\))?$", ln)
        if m and frames:
            frames.append(m.group(1))
    emit(stacks)


def v8(path, count=False, full=False):
    d = json.load(open(path))
    ts, deltas = d["samples"], d.get("timeDeltas")
    timed = not count and isinstance(deltas, list) and len(deltas) == len(ts)
    if timed:  # DevTools: a sample lasts until the next one
        t = d.get("startTime", 0) + sum(deltas)
        dur = deltas[1:] + [d["endTime"] - t if "endTime" in d else 0]
        weight = [max(x, 0) * 1000 for x in dur]
    byid = {n["id"]: n for n in d["nodes"]}
    parent = {}
    for n in d["nodes"]:
        for c in n.get("children", []):
            parent[c] = n["id"]

    def name(n):
        cf = n["callFrame"]
        s = cf["functionName"] or "(anonymous)"
        url = cf["url"]
        line = cf.get("lineNumber", -1)
        if url and full:
            s += " " + url + (":%d" % (line + 1) if line >= 0 else "")
        elif url:
            s += " (%s%s)" % (url.rsplit("/", 1)[-1] or url, ":%d" % (line + 1) if line >= 0 else "")
        return s
    stacks = {}
    for k, sid in enumerate(ts):
        frames, i = [], sid
        while i is not None:
            n = byid[i]
            if not (n["callFrame"]["functionName"] == "(root)" and not n["callFrame"]["url"]):
                frames.append(name(n))
            i = parent.get(i)
        add(stacks, list(reversed(frames)), weight[k] if timed else 1)
    emit(stacks)


def speedscope(path, which=None):
    d = json.load(open(path))
    assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
    names = [f["name"] for f in d["shared"]["frames"]]
    stacks = {}
    for p in d["profiles"]:
        if which is not None and p["name"] != which:
            continue
        assert p["type"] == "sampled" and len(p["samples"]) == len(p["weights"])
        for st, w in zip(p["samples"], p["weights"]):
            add(stacks, [names[i] for i in st], w)
    emit(stacks)


def varint(n):
    n &= (1 << 64) - 1  # an int64 is its two's complement, ten bytes
    out = b""
    while True:
        b, n = n & 0x7f, n >> 7
        if not n:
            return out + bytes([b])
        out += bytes([b | 0x80])


def fld(num, wt, payload):
    if wt == 0:
        return varint(num << 3) + varint(payload)
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def unsym(path, mapped):
    p = fld(1, 2, fld(1, 0, 1) + fld(2, 0, 2))
    p += fld(2, 2, fld(1, 2, varint(1) + varint(2) + varint(3)) + fld(2, 2, varint(5)))
    p += fld(3, 2, fld(1, 0, 1) + fld(2, 0, 0x1000) + fld(3, 0, 0x9000) + fld(5, 0, 6))
    p += fld(4, 2, fld(1, 0, 1) + fld(2, 0, mapped) + fld(3, 0, 0x1234))
    p += fld(4, 2, fld(1, 0, 2) + fld(4, 2, fld(1, 0, 1)))
    p += fld(4, 2, fld(1, 0, 3) + fld(4, 2, fld(1, 0, 2)))
    p += fld(5, 2, fld(1, 0, 1) + fld(2, 0, 3) + fld(3, 0, 4))
    p += fld(5, 2, fld(1, 0, 2) + fld(2, 0, 5))
    for st in ["", "samples", "count", "", "_Z3foov", "main", "/bin/x"]:
        p += fld(6, 2, st.encode())
    open(path, "wb").write(p)


VALUES = [("a", -2**63), ("b", -1), ("c", 2**63 - 1), ("d", 7), ("e", -2**53 - 1),
          ("f", 2**53 + 1), ("g", -(10**18) - 7)]


def values(path):
    """Writes a raw profile.proto of one sample type whose samples are
    main;NAME with the int64 values above; prints the folded stacks a
    profile of double weights gives: each value the nearest double, as an
    exact integer."""
    strings = ["", "samples", "count", "main"] + [n for n, _ in VALUES] + ["v.c"]
    p = fld(1, 2, fld(1, 0, 1) + fld(2, 0, 2))
    for i, (_, v) in enumerate(VALUES):
        p += fld(2, 2, fld(1, 2, varint(i + 2) + varint(1)) + fld(2, 2, varint(v)))
    for i in range(len(VALUES) + 1):  # location and function k: strings[k + 2]
        p += fld(4, 2, fld(1, 0, i + 1) + fld(4, 2, fld(1, 0, i + 1)))
        p += fld(5, 2, fld(1, 0, i + 1) + fld(2, 0, i + 3) + fld(3, 0, i + 3) + fld(4, 0, len(strings) - 1))
    for st in strings:
        p += fld(6, 2, st.encode())
    open(path, "wb").write(p)
    for n, v in VALUES:
        print("main;%s %d" % (n, int(float(v))))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "raw":
        raw(int(sys.argv[2]))
    elif mode == "traces":
        traces()
    elif mode == "v8":
        v8(sys.argv[2], "samples" in sys.argv[3:], "full" in sys.argv[3:])
    elif mode == "values":
        values(sys.argv[2])
    elif mode == "unsym":
        unsym(sys.argv[2], int(sys.argv[3]))
    else:
        speedscope(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
