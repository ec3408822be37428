#!/bin/sh
# The v8 and pprof inputs and the pprof and speedscope outputs on a
# generated .cpuprofile of ~100 MB (300,000 nodes, 4 million samples, the
# size the JSON library was chosen for; FK_BENCH_V8_SAMPLES changes the
# count), and on the pprof and speedscope files made from it.  Figures only.
D="$FK_BENCH_DATA/interop"
mkdir -p "$D"
N=${FK_BENCH_V8_SAMPLES:-4000000}
f="$D/big-$N.cpuprofile"
[ -s "$f" ] || "${PYTHON3:-python3}" - "$f" "$N" <<'PY'
import json, random, sys
random.seed(1)
path, S = sys.argv[1], int(sys.argv[2])
N = 300000
nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "",
          "lineNumber": -1, "columnNumber": -1}, "hitCount": 0, "children": []}]
for i in range(2, N + 1):
    p = random.randint(max(1, i // 3), i - 1) if i > 100 else random.randint(1, i - 1)
    nodes.append({"id": i, "callFrame": {"functionName": "fn_%d" % random.randint(0, 20000),
                  "scriptId": str(random.randint(1, 300)),
                  "url": "file:///srv/app/node_modules/pkg/lib/module_%d.js" % random.randint(0, 300),
                  "lineNumber": random.randint(0, 3000), "columnNumber": random.randint(0, 80)},
                  "hitCount": 0, "children": []})
    nodes[p - 1]["children"].append(i)
samples = [random.randint(1, N) for _ in range(S)]
deltas = [random.randint(50, 2000) for _ in range(S)]
json.dump({"nodes": nodes, "startTime": 1000, "endTime": 1000 + sum(deltas), "samples": samples,
           "timeDeltas": deltas}, open(path, "w"), separators=(",", ":"))
PY
"${PYTHON3:-python3}" - "$FLAMEKIT" "$f" "$D" <<'PY'
import os, resource, subprocess, sys, time
fk, f, d = sys.argv[1:4]
def timed(label, cmd, src):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    t = time.perf_counter() - t
    mb = os.path.getsize(src) / 1e6
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{label:28s} {mb:7.1f} MB in  {t:6.2f} s = {mb / t:6.1f} MB/s  peak RSS so far {rss:.0f} MB")
pb, js = os.path.join(d, "big.pb.gz"), os.path.join(d, "big.speedscope.json")
timed("v8 collapse", [fk, "collapse", "--format", "v8", f], f)
timed("v8 -> pprof output", [fk, "graph", "--format", "v8", "--output-plugin", "pprof", "-o", pb, f], f)
timed("v8 -> speedscope output", [fk, "graph", "--format", "v8", "--output-plugin", "speedscope", "-o", js, f], f)
timed("pprof collapse (gzip)", [fk, "collapse", "--format", "pprof", pb], pb)
print(f"{'sizes':28s} pprof {os.path.getsize(pb) / 1e6:.1f} MB, speedscope {os.path.getsize(js) / 1e6:.1f} MB")
PY
