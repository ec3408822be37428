#!/bin/sh
# Render a >= 200 MB folded file with many distinct stacks to SVG: time next
# to `wc -l` on the same file, peak RSS against the size of the distinct
# stacks, and the SVG size.  Targets: within 8x wc -l; RSS < 3x the
# distinct-stack data.  Figures only, no assertion.
set -e
: "${FLAMEKIT:?run through make bench}" "${FK_BENCH_DATA:?run through make bench}"
MB=${FK_BENCH_RENDER_MB:-200}
DATA="$FK_BENCH_DATA/render-${MB}mb.folded"
OUT="$FK_BENCH_DATA/render.svg"

python3 - "$DATA" "$MB" "$FLAMEKIT" "$OUT" <<'PY'
import os, random, resource, subprocess, sys, time

path, mb, flamekit, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
meta = path + ".distinct"
if not (os.path.exists(path) and os.path.exists(meta)):
    rnd = random.Random(42)
    names = ["%s_%s_%d" % (rnd.choice(["do", "get", "run", "parse", "ext4", "tcp", "vfs", "java/lang/Str"]),
                           rnd.choice(["read", "write", "loop", "alloc", "lookup", "send", "flush"]), i)
             for i in range(20000)]
    # distinct stacks from a random tree: realistic prefix sharing
    stacks = []
    for i in range(400000):
        depth = rnd.randint(4, 40)
        root = rnd.randrange(8)
        s = [names[root]] + [names[(root * 7919 + d * 104729 + rnd.randrange(50 if d < 6 else 20000)) % 20000]
                             for d in range(1, depth)]
        stacks.append(";".join(s))
    stacks = sorted(set(stacks))
    distinct = sum(len(s) + 8 for s in stacks)
    with open(path + ".tmp", "w") as f:
        size, target = 0, mb << 20
        while size < target:
            chunk = []
            for _ in range(10000):
                line = "%s %d\n" % (rnd.choice(stacks), rnd.randint(1, 999))
                chunk.append(line)
                size += len(line)
            f.write("".join(chunk))
    os.rename(path + ".tmp", path)
    with open(meta, "w") as f:
        f.write("%d %d\n" % (len(stacks), distinct))
nstacks, distinct = map(int, open(meta).read().split())
size = os.path.getsize(path)

def timed(cmd, stdout):
    t = time.monotonic()
    subprocess.run(cmd, stdout=stdout, check=True)
    return time.monotonic() - t

with open(os.devnull, "w") as null:
    twc = timed(["wc", "-l", path], null)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    tfk = timed([flamekit, "graph", "-o", out, path], null)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
svg = os.path.getsize(out)
print("input: %.0f MB, %d distinct stacks (%.1f MB as folded text)" % (size / 1e6, nstacks, distinct / 1e6))
print("wc -l:          %6.2f s  (%.0f MB/s)" % (twc, size / 1e6 / twc))
print("flamekit graph: %6.2f s  (%.0f MB/s)  = %.1fx wc -l  (target <= 8x)" % (tfk, size / 1e6 / tfk, tfk / twc))
print("peak RSS:       %6.1f MB = %.2fx the distinct stacks (target < 3x)" % (rss / 1e6, rss / distinct))
print("SVG:            %6.1f MB" % (svg / 1e6))
PY
