"""Oracles for tests/interop.sh, independent of flamekit: each mode prints
folded stacks (root first, ';'-separated, aggregated, sorted by bytes as
flamekit's folded output is).

  interop.py raw N      stdin: `go tool pprof -raw` output; weight = value N
  interop.py traces     stdin: `go tool pprof -sample_index=samples -traces`
  interop.py v8 FILE    a .cpuprofile, from its own node tree
  interop.py speedscope FILE [PROFILE]   a speedscope file (all profiles, or one)
  interop.py unsym FILE MAPPED   writes a raw profile.proto: one sample of
      main <- (function with only a system name) <- an unsymbolized
      location at 0x1234, in mapping /bin/x when MAPPED is 1
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


def v8(path):
    d = json.load(open(path))
    byid = {n["id"]: n for n in d["nodes"]}
    parent = {}
    for n in d["nodes"]:
        for c in n.get("children", []):
            parent[c] = n["id"]

    def name(n):
        cf = n["callFrame"]
        s = cf["functionName"] or "(anonymous)"
        if cf["url"]:
            s += " %s:%d" % (cf["url"], cf["lineNumber"] + 1)
        return s
    stacks = {}
    for sid in d["samples"]:
        frames, i = [], sid
        while i is not None:
            n = byid[i]
            if not (n["callFrame"]["functionName"] == "(root)" and not n["callFrame"]["url"]):
                frames.append(name(n))
            i = parent.get(i)
        add(stacks, list(reversed(frames)), 1)
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


def unsym(path, mapped):
    def varint(n):
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


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "raw":
        raw(int(sys.argv[2]))
    elif mode == "traces":
        traces()
    elif mode == "v8":
        v8(sys.argv[2])
    elif mode == "unsym":
        unsym(sys.argv[2], int(sys.argv[3]))
    else:
        speedscope(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
