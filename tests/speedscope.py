"""The oracle of tests/speedscope.sh: speedscope files read by Python's json
module after the file format's schema and speedscope's importer (a sampled
profile's sample i weighs weights[i]; an evented profile's stack between two
events weighs the time between them), independent of flamekit.  Prints
folded stacks (root first, weights in ns for units of time), sorted by
bytes as flamekit's folded output is; empty stacks are left out.

  speedscope.py FILE          the folded stacks
  speedscope.py --threads FILE   one line per profile: name, and total
"""
import json
import sys

SCALE = {"nanoseconds": 1, "microseconds": 1e3, "milliseconds": 1e6, "seconds": 1e9,
         "bytes": 1, "none": 1}


def samples(d):
    names = [f["name"] for f in d["shared"]["frames"]]
    for p in d["profiles"]:
        k = SCALE[p["unit"]]
        if p["type"] == "sampled":
            for st, w in zip(p["samples"], p["weights"]):
                yield p, [names[i] for i in st], w * k
        else:
            stack, last = [], None
            for ev in p["events"]:
                if stack and ev["at"] > last:
                    yield p, [names[i] for i in stack], (ev["at"] - last) * k
                last = ev["at"]
                if ev["type"] == "O":
                    stack.append(ev["frame"])
                else:
                    assert stack.pop() == ev["frame"]


def main():
    threads = sys.argv[1] == "--threads"
    d = json.load(open(sys.argv[-1]))
    stacks, totals = {}, {}
    for p, frames, w in samples(d):
        if not frames:
            continue
        key = ";".join(f.replace(";", ":") for f in frames)
        stacks[key] = stacks.get(key, 0) + w
        totals[p["name"]] = totals.get(p["name"], 0) + w
    out = totals if threads else stacks
    for k in sorted(out, key=lambda s: s.encode()):
        v = out[k]
        print("%s %s" % (k, int(v) if v == int(v) else v))


main()
