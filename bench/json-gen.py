"""Writes a benchmark input of one of the JSON formats (bench/40-inputs.sh):
json-gen.py FORMAT MB FILE, about MB megabytes, 2,000 distinct stacks of 8
to 31 frames, written a sample at a time so that the generator stays small."""
import json
import random
import sys

fmt, mb, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
random.seed(42)
names = ["fn_%d_%d" % (k, i) for k in range(97) for i in range(32)]
stacks = []
for k in range(2000):
    d = 8 + k % 24
    stacks.append([(k % 97) * 32 + i for i in range(d)])
limit = mb * 1e6

with open(path, "w") as out:
    if fmt == "speedscope":
        out.write('{"$schema":"https://www.speedscope.app/file-format-schema.json",'
                  '"shared":{"frames":[')
        out.write(",".join(json.dumps({"name": n}) for n in names))
        out.write(']},"profiles":[{"type":"sampled","name":"bench","unit":"none",'
                  '"startValue":0,"endValue":0,"samples":[')
        size, n = 0, 0
        while size < limit:
            s = json.dumps(stacks[random.randrange(2000)], separators=(",", ":"))
            out.write(("," if n else "") + s)
            size += len(s) + 3
            n += 1
        out.write('],"weights":[' + ",".join(["1"] * n) + "]}]}\n")
    elif fmt == "chrome":
        # a Profile and ProfileChunk events of 100 samples each: the nodes
        # of the 2,000 stacks (a tree) in the first chunk
        nodes, ids, leaf = [{"callFrame": {"functionName": "(root)", "scriptId": 0}, "id": 1}], {}, []
        for st in stacks:
            parent = 1
            for f in st:
                key = (parent, f)
                if key not in ids:
                    ids[key] = len(nodes) + 1
                    nodes.append({"callFrame": {"functionName": names[f], "scriptId": 1,
                                                "url": "file:///bench.js", "lineNumber": f % 100},
                                  "id": ids[key], "parent": parent})
                parent = ids[key]
            leaf.append(parent)
        out.write('{"traceEvents":[{"args":{"data":{"startTime":1000}},"cat":"v8","id":"0x1",'
                  '"name":"Profile","ph":"P","pid":1,"tid":1,"ts":1000}')
        size, first = 0, True
        while size < limit:
            smp = [leaf[random.randrange(2000)] for _ in range(100)]
            cpu = {"samples": smp}
            if first:
                cpu["nodes"] = nodes
                first = False
            s = json.dumps({"args": {"data": {"cpuProfile": cpu, "timeDeltas": [125] * 100}},
                            "cat": "v8", "id": "0x1", "name": "ProfileChunk", "ph": "P",
                            "pid": 1, "tid": 2, "ts": 1000}, separators=(",", ":"))
            out.write("," + s)
            size += len(s)
        out.write("]}\n")
    elif fmt == "gecko":
        # the processed format: one thread, the stack table of the 2,000
        # stacks (a tree), func i = frame i = string i, samples as columns
        frame, prefix, ids, leaf = [], [], {}, []
        for st in stacks:
            parent = None
            for f in st:
                key = (parent, f)
                if key not in ids:
                    ids[key] = len(frame)
                    frame.append(f)
                    prefix.append(parent)
                parent = ids[key]
            leaf.append(parent)
        n = len(names)
        head = {"meta": {"interval": 1, "startTime": 0, "preprocessedProfileVersion": 49,
                         "product": "bench"}, "libs": []}
        out.write(json.dumps(head)[:-1] + ',"threads":[{"name":"bench","pid":"1","tid":1,')
        out.write('"stackTable":' + json.dumps({"frame": frame, "prefix": prefix}) + ",")
        out.write('"frameTable":' + json.dumps({"func": list(range(n)), "address": [-1] * n}) + ",")
        out.write('"funcTable":' + json.dumps({"name": list(range(n)), "resource": [-1] * n}) + ",")
        out.write('"stringArray":' + json.dumps(names) + ',"samples":{"weightType":"samples","stack":[')
        size, count = 0, 0
        while size < limit / 2:
            s = str(leaf[random.randrange(2000)])
            out.write(("," if count else "") + s)
            size += len(s) + 1
            count += 1
        out.write('],"timeDeltas":[' + ",".join(["1.25"] * count) + "]}}]}\n")
