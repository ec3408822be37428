"""The oracle of tests/gecko.sh: Firefox Profiler files (the Gecko format's
schema/data tables and child processes, the processed format's columns and
shared strings) read by Python's json module after the Firefox Profiler's
docs (docs-developer/gecko-profile-format.md, src/types/profile.ts, whose
newest versions share the stack, frame, func and resource tables),
independent of flamekit.  Prints folded stacks (root first), sorted by bytes
as flamekit's folded output is; tracing-ms weights in ns.

  gecko.py FILE [--threads]   --threads: a "NAME-PID/TID" root frame first,
                               as lua/per-thread.lua does
"""
import json
import re
import sys

ADDR = re.compile(r"^0[xX][0-9a-fA-F]{1,16}$")


def table(t):
    """A table as a dict of columns, from either form."""
    if "schema" in t:
        cols = {}
        for name, pos in t["schema"].items():
            cols[name] = [row[pos] if pos < len(row) else None for row in t["data"]]
        return cols
    return t


def threads(prof, proc_libs, shared):
    libs = prof.get("libs", [])
    if isinstance(libs, str):  # older Gecko versions: a string of JSON
        libs = json.loads(libs)
    for th in prof.get("threads", []):
        if isinstance(th, str):  # ... and a child process likewise, among the threads
            yield from threads(json.loads(th), None, shared)
        else:
            yield th, libs, shared
    for child in prof.get("processes", []):
        yield from threads(child, None, shared)


def frames_of(th, libs, strings):
    ft = table(th["frameTable"])  # the thread's own, or the shared one (main())
    names = []
    if "func" in ft:
        fu, rt = table(th["funcTable"]), table(th.get("resourceTable", {"lib": []}))
        for f in range(len(ft["func"])):
            fn = ft["func"][f]
            name = strings[fu["name"][fn]]
            res = fu.get("resource", [None] * (fn + 1))[fn]
            lib = rt["lib"][res] if res is not None and res >= 0 else None
            if lib is not None and ADDR.match(name) and libs[lib].get("name"):
                name = "%s+0x%x" % (libs[lib]["name"], int(name, 16))
            names.append(name)
    else:
        for loc in ft["location"]:
            name = strings[loc]
            if ADDR.match(name):
                a = int(name, 16)
                for lib in libs:
                    if lib["start"] <= a < lib["end"] and lib.get("name"):
                        name = "%s+0x%x" % (lib["name"], a - lib["start"])
                        break
            names.append(name)
    return names


def main():
    d = json.load(open(sys.argv[1]))
    if "profile" in d and "meta" not in d:  # Firefox DevTools' recording: its Gecko profile
        d = d["profile"]
    with_threads = "--threads" in sys.argv
    shared = d.get("shared", {}).get("stringArray")
    stacks = {}
    for n, (th, libs, _) in enumerate(threads(d, None, shared)):
        strings = th.get("stringArray") or th.get("stringTable") or shared
        # the newest processed format shares these tables between threads
        th = dict(th)
        for name in ("stackTable", "frameTable", "funcTable", "resourceTable"):
            if name not in th and name in d.get("shared", {}):
                th[name] = d["shared"][name]
        names = frames_of(th, libs, strings)
        st, sm = table(th["stackTable"]), table(th["samples"])
        w = sm.get("weight") or [1] * len(sm["stack"])
        scale = 1e6 if sm.get("weightType") == "tracing-ms" and sm.get("weight") else 1
        for s, wt in zip(sm["stack"], w):
            if s is None:
                continue
            fr = []
            while s is not None:
                fr.append(names[st["frame"][s]])
                s = st["prefix"][s]
            fr.reverse()
            if with_threads:
                tid = th.get("tid", n + 1)
                fr = ["%s-%s/%s" % (th.get("name", ""), th["pid"], tid)] + fr
            key = ";".join(f.replace(";", ":") for f in fr)
            stacks[key] = stacks.get(key, 0) + wt * scale
    for k in sorted(stacks, key=lambda s: s.encode()):
        v = stacks[k]
        print("%s %s" % (k, int(v) if v == int(v) else v))


main()
