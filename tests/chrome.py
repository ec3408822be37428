"""The oracle of tests/chrome.sh: a Trace Event Format file read by Python's
json module, independent of flamekit.  Prints folded stacks (root first,
weights in ns), sorted by bytes as flamekit's folded output is.

  chrome.py samples FILE [--threads]     the V8 CPU profiles (Profile and
      ProfileChunk events, and older Chrome's CpuProfile event holding a
      whole .cpuprofile, of the current format or the old "head" tree's):
      sample i weighs the time to the next sample of
      its profile (the last one the interval before it)
  chrome.py durations FILE [--threads]   B/E and X events: each event's
      self time (its duration less its children's, a child cut at its
      parent's end) on the stack of the events around it
--threads puts a "THREAD_NAME-PID/TID" root frame first, as
lua/per-thread.lua does.
"""
import json
import sys

sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))  # json's decoder nests (old head trees)


TOP = {}


def events(path):
    text = open(path).read().rstrip()
    if text.startswith("[") and not text.endswith("]"):
        text = text.rstrip(",") + "]"  # the format lets an array of events end unclosed
    d = json.loads(text)
    if isinstance(d, dict):
        TOP.update(d)
    return d["traceEvents"] if isinstance(d, dict) else d


def top_samples(profs):
    """The format's own "samples" beside the events (Hermes): per thread,
    each at its ts (numbers or strings of one), its stack the
    "stackFrames" entry its "sf" names and their parents."""
    frames = {float(k): v for k, v in TOP.get("stackFrames", {}).items()}
    nodes = {k: {"callFrame": {"functionName": v["name"]}, "id": k} for k, v in frames.items()}
    for k, v in frames.items():
        if v.get("parent") is not None:
            nodes[k]["parent"] = float(v["parent"])
    for smp in TOP.get("samples", []):
        if "sf" not in smp:  # no stack: skipped
            continue
        th = (int(smp["pid"]), int(smp["tid"]))
        p = profs.setdefault(("sf",) + th, {"thread": th, "nodes": nodes, "samples": []})
        p["samples"].append((float(smp["ts"]), len(p["samples"]), float(smp["sf"])))


def thread_names(evs):
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in evs
            if e.get("ph") == "M" and e.get("name") == "thread_name"}


def node_name(n):
    cf = n["callFrame"]
    s = cf["functionName"] or "(anonymous)"
    if cf.get("url"):
        s += " " + cf["url"]
        if "lineNumber" in cf and cf["lineNumber"] >= 0:
            s += ":%d" % (cf["lineNumber"] + 1)
    return s


def head_nodes(head):
    """The old format's tree as the current format's nodes, by id: each
    with a callFrame (DevTools: lineNumber 1-based in the tree) and its
    parent's id, walked without recursion."""
    nodes, todo = {}, [(head, None)]
    while todo:
        n, parent = todo.pop()
        cf = {"functionName": n["functionName"], "url": n["url"], "lineNumber": n.get("lineNumber", 0) - 1}
        nodes[n["id"]] = {"callFrame": cf} if parent is None else {"callFrame": cf, "parent": parent}
        todo.extend((k, n["id"]) for k in n.get("children", []))
    return nodes


def samples(evs):
    profs = {}
    for e in evs:
        if e.get("ph") != "P" or e.get("name") not in ("Profile", "ProfileChunk"):
            continue
        p = profs.setdefault((e["pid"], str(e.get("id"))), {"thread": (e["pid"], e["tid"]), "start": 0,
                                                          "nodes": {}, "samples": [], "cum": 0})
        data = e.get("args", {}).get("data", {})  # a chunk may have no data
        if e["name"] == "Profile":
            p["thread"] = (e["pid"], e["tid"])
            p["start"] = data.get("startTime", e.get("ts", 0))
            continue
        cpu = data.get("cpuProfile", {})
        for n in cpu.get("nodes", []):
            p["nodes"][n["id"]] = n
        # newer Chrome writes the deltas twice, in data and in its cpuProfile
        for sid, dt in zip(cpu.get("samples", []), data.get("timeDeltas", cpu.get("timeDeltas", []))):
            p["cum"] += dt
            p["samples"].append((p["cum"], len(p["samples"]), sid))
    for e in evs:  # older Chrome: a whole .cpuprofile in one event
        if e.get("name") == "CpuProfile" and "cpuProfile" in e.get("args", {}).get("data", {}):
            cpu = e["args"]["data"]["cpuProfile"]
            if "head" in cpu:  # the old format: a tree, absolute timestamps
                nodes, ss = head_nodes(cpu["head"]), []
                for t, sid in zip(cpu["timestamps"], cpu["samples"]):
                    ss.append((t, len(ss), sid))
                profs[("cpuprofile", len(profs))] = {"thread": (e["pid"], e["tid"]), "nodes": nodes, "samples": ss}
                continue
            nodes = {n["id"]: dict(n) for n in cpu["nodes"]}
            for n in cpu["nodes"]:
                for k in n.get("children", []):
                    if k in nodes:
                        nodes[k]["parent"] = n["id"]
            t, ss = 0, []
            for sid, dt in zip(cpu["samples"], cpu["timeDeltas"]):
                t += dt
                ss.append((t, len(ss), sid))
            profs[("cpuprofile", len(profs))] = {"thread": (e["pid"], e["tid"]), "nodes": nodes, "samples": ss}
    top_samples(profs)
    for p in profs.values():
        for n in list(p["nodes"].values()):  # a node may name its children instead of its parent
            for k in n.get("children", []):
                if k in p["nodes"]:  # V8 names children it never wrote
                    p["nodes"][k]["parent"] = n["id"]
        ss = sorted(p["samples"])
        for i, (t, _, sid) in enumerate(ss):
            if i + 1 < len(ss):
                w = ss[i + 1][0] - t
            else:
                w = t - ss[i - 1][0] if i > 0 else 0
            if w <= 0 or sid not in p["nodes"]:  # a node of a lost chunk: no stack
                continue
            frames, n = [], p["nodes"][sid]
            while True:
                if not (n["callFrame"]["functionName"] == "(root)" and not n["callFrame"].get("url")):
                    frames.append(node_name(n))
                if n.get("parent") not in p["nodes"]:  # none, or lost: the stack starts here
                    break
                n = p["nodes"][n["parent"]]
            if frames:
                yield p["thread"], list(reversed(frames)), w * 1000


def durations(evs):
    per = {}
    open_b = {}
    for e in evs:
        ph, th = e.get("ph"), (e.get("pid"), e.get("tid"))
        if ph == "X" and "ts" in e and "dur" in e:
            per.setdefault(th, []).append([e["ts"], e["ts"] + e["dur"], e.get("name", ""), len(per.get(th, []))])
        elif ph == "B" and "ts" in e:
            iv = [e["ts"], None, e.get("name", ""), len(per.get(th, []))]
            per.setdefault(th, []).append(iv)
            open_b.setdefault(th, []).append(iv)
        elif ph == "E" and "ts" in e and open_b.get(th) and open_b[th][-1][0] <= e["ts"]:
            open_b[th].pop()[1] = e["ts"]
    for th, ivs in per.items():
        ivs = sorted((iv for iv in ivs if iv[1] is not None), key=lambda v: (v[0], -v[1], v[3]))
        stack, nodes = [], []
        for iv in ivs:
            while stack and stack[-1]["end"] <= iv[0]:
                stack.pop()
            end = min(iv[1], stack[-1]["end"]) if stack else iv[1]
            node = {"end": end, "dur": end - iv[0], "kids": 0,
                    "path": (stack[-1]["path"] if stack else []) + [iv[2]]}
            if stack:
                stack[-1]["kids"] += node["dur"]
            stack.append(node)
            nodes.append(node)
        for n in nodes:
            if n["dur"] - n["kids"] > 0:
                yield th, n["path"], (n["dur"] - n["kids"]) * 1000


def main():
    mode, path = sys.argv[1], sys.argv[2]
    threads = "--threads" in sys.argv
    evs = events(path)
    names = thread_names(evs)
    stacks = {}
    for th, frames, w in (samples if mode == "samples" else durations)(evs):
        if threads:
            frames = ["%s-%s/%s" % (names.get(th, ""), th[0], th[1])] + frames
        key = ";".join(f.replace(";", ":") for f in frames)
        stacks[key] = stacks.get(key, 0) + w
    for k in sorted(stacks, key=lambda s: s.encode()):
        v = round(stacks[k], 6)
        print("%s %s" % (k, int(v) if v == int(v) else v))


main()
