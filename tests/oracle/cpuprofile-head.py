"""The oracle of tests/v8-head.sh, independent of flamekit: the old
.cpuprofile format (a "head" tree; node 10 and older, Chrome DevTools
before 2016) read by Python's json module.

  cpuprofile-head.py fold FILE [samples] [full]
      folded stacks (root first, ';'-separated, aggregated, sorted by
      bytes as flamekit's folded output is).  Each sample weighs the time
      to the next timestamp, the last one to endTime (seconds; times in
      microseconds, weights in ns, rounded to a whole ns), as DevTools'
      CPUProfileDataModel reads the format; "samples": each counts once;
      without "samples", each node's hitCount.  Frames are "FUNCTION
      (FILE:LINE)", as DevTools shows them (FILE the url's last path
      component; lineNumber is 1-based in this format, where the current
      format's callFrame is 0-based); "full": "FUNCTION URL:LINE".
  cpuprofile-head.py convert FILE
      writes FILE, a profile of the current format (what node --cpu-prof
      writes: "nodes", "timeDeltas", times in microseconds), in the old
      one: the nodes nested from the root, lineNumber + 1, startTime and
      endTime in seconds, "timestamps" the running sum of the deltas.
  cpuprofile-head.py chain N [TOO]
      writes an old-format profile whose N nodes nest one in the other,
      each sampled once (but the root); TOO: no samples, N levels only.
Nothing recurses on the tree: it is walked with a list.
"""
import json
import sys

sys.setrecursionlimit(max(sys.getrecursionlimit(), 250000))  # json's decoder nests


def nodes_of(head):
    """node id -> (node, parent id or None), in document order."""
    out, todo = {}, [(head, None)]
    while todo:
        n, parent = todo.pop()
        out[n["id"]] = (n, parent)
        todo.extend((k, n["id"]) for k in reversed(n.get("children", [])))
    return out


def name(n, full):
    s = n["functionName"] or "(anonymous)"
    url, line = n["url"], n.get("lineNumber", 0)
    if url and full:
        s += " " + url + (":%d" % line if line >= 1 else "")
    elif url:
        s += " (%s%s)" % (url.rsplit("/", 1)[-1] or url, ":%d" % line if line >= 1 else "")
    return s


def fold(path, count=False, full=False):
    d = json.load(open(path))
    nodes = nodes_of(d["head"])

    def stack(i):
        frames = []
        while i is not None:
            n, i = nodes[i]
            if not (n["functionName"] == "(root)" and not n["url"]):
                frames.append(name(n, full))
        return frames[::-1]
    stacks = {}

    def add(frames, w):
        if frames:
            key = ";".join(f.replace(";", ":") for f in frames)
            stacks[key] = stacks.get(key, 0) + w
    if "samples" not in d:
        for i, (n, _) in nodes.items():
            if n.get("hitCount", 0) > 0:
                add(stack(i), n["hitCount"])
    else:
        ss, ts = d["samples"], d.get("timestamps")
        timed = not count and isinstance(ts, list) and len(ts) == len(ss)
        for k, sid in enumerate(ss):
            w = 1
            if timed:
                nxt = ts[k + 1] if k + 1 < len(ss) else d["endTime"] * 1e6 if "endTime" in d else ts[k]
                w = round(max(nxt - ts[k], 0) * 1000)
            add(stack(sid), w)
    for k in sorted(stacks, key=lambda s: s.encode()):
        v = stacks[k]
        print("%s %s" % (k, int(v) if v == int(v) else v))


def convert(path):
    d = json.load(open(path))
    byid = {n["id"]: n for n in d["nodes"]}
    kids = set(c for n in d["nodes"] for c in n.get("children", []))
    root = [n for n in d["nodes"] if n["id"] not in kids][0]
    old = {}
    todo = [(root, None)]
    while todo:
        n, parent = todo.pop()
        cf = n["callFrame"]
        o = {"functionName": cf["functionName"], "scriptId": cf.get("scriptId", "0"), "url": cf["url"],
             "lineNumber": cf.get("lineNumber", -1) + 1, "columnNumber": cf.get("columnNumber", -1) + 1,
             "hitCount": n.get("hitCount", 0), "callUID": n["id"] + 1000, "children": [],
             "deoptReason": "", "id": n["id"]}
        old[n["id"]] = o
        if parent is not None:
            parent["children"].append(o)
        todo.extend((byid[c], o) for c in reversed(n.get("children", [])))
    t, stamps = d["startTime"], []
    for dt in d["timeDeltas"]:
        t += dt
        stamps.append(t)
    json.dump({"typeId": "CPU", "uid": "1", "title": "Profile 1", "head": old[root["id"]],
               "startTime": d["startTime"] / 1e6, "endTime": d["endTime"] / 1e6,
               "samples": d["samples"], "timestamps": stamps}, sys.stdout)


def chain(n, too=False):
    out = ['{"head":']
    for i in range(1, n + 1):
        out.append('{"functionName":"%s","url":"","hitCount":0,"id":%d,"children":['
                   % ("(root)" if i == 1 else "f%d" % i, i))
    out.append("]}" * n)
    if not too:
        out.append(',"samples":[%s]' % ",".join(str(i) for i in range(2, n + 1)))
    out.append("}")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "fold":
        fold(sys.argv[2], "samples" in sys.argv[3:], "full" in sys.argv[3:])
    elif mode == "convert":
        convert(sys.argv[2])
    else:
        chain(int(sys.argv[2]), len(sys.argv) > 3)
