#!/bin/sh
# Bounded on hostile input (issue 23, items 5 and 6), figures only:
#  - a 123 MB pprof (20,000 distinct stacks 10-40 deep, timestamp labels):
#    time and peak RSS, target within 3x its size;
#  - decompression bombs given as pprof (gzip of zeros, 256 KiB holding
#    256 MiB and 2 MiB holding 2 GiB; a gzip pprof whose samples inflate
#    to 2 GiB), /dev/zero as pprof and html, a report whose timeline is a
#    zlib bomb: each refused, target under 1 s and 64 MB;
#  - a V8 .cpuprofile of 100,000 nodes in one chain, and a report of it,
#    drawn: target within 2 s each.
# The inputs are made once (python3) and kept in FK_BENCH_DATA.
set -e
: "${FLAMEKIT:?run through make bench}" "${FK_BENCH_DATA:?run through make bench}"
. "$FK_SRCDIR/bench/lib.sh"
D=$FK_BENCH_DATA
PY=${PYTHON3:-python3}

# refused LABEL CMD...: run CMD, which must fail, and print its figures
# and the first of its message (needs GNU time).
refused() {
	_l=$1
	shift
	if /usr/bin/time -f '%e %M' -o "$D/.time" "$@" > /dev/null 2> "$D/.err"; then
		echo "$_l: NOT refused"
	fi
	SECS=$(tail -n 1 "$D/.time" | cut -d' ' -f1)
	KB=$(tail -n 1 "$D/.time" | cut -d' ' -f2)
	row "$_l"
	echo "  $(head -c 150 "$D/.err")"
}

if [ ! -f "$D/big.pb" ]; then
	"$PY" - "$D/big.pb" 123 "$FK_SRCDIR/tests" <<'EOF'
import random, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[3])
from pbgen import f, i, v
out, mb = sys.argv[1], float(sys.argv[2])
rnd = random.Random(1)
NF = 5000
strings = ["", "samples", "count", "cpu", "nanoseconds", "timestamp_ns"] + ["pkg.func%d" % k for k in range(NF)]
with open(out, "wb") as o:
    o.write(f(1, i(1, 1) + i(2, 2)) + f(1, i(1, 3) + i(2, 4)))
    stacks = [f(1, b"".join(v(rnd.randint(1, NF)) for _ in range(rnd.randint(10, 40)))) for s in range(20000)]
    size, t = 0, 1
    while size < mb * 1e6:
        for s in stacks:
            rec = f(2, s + f(2, v(1) + v(t % 1000 * 10000 + 1)) + f(3, i(1, 5) + i(3, t)))
            o.write(rec)
            size += len(rec)
            t += 1
            if size >= mb * 1e6:
                break
    for k in range(1, NF + 1):
        o.write(f(4, i(1, k) + f(4, i(1, k) + i(2, k))))
        o.write(f(5, i(1, k) + i(2, 5 + k) + i(3, 5 + k)))
    for st in strings:
        o.write(f(6, st.encode()))
EOF
fi
if [ ! -f "$D/bomb-2g.gz" ]; then
	"$PY" - "$D" <<'EOF'
import sys, zlib
d = sys.argv[1]
def gz(path, n):
    co = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as o:
        for _ in range(n):
            o.write(co.compress(bytes(1 << 20)))
        o.write(co.flush())
gz(d + "/bomb-256m.gz", 256)
gz(d + "/bomb-2g.gz", 2048)
EOF
fi
# a valid start, then 2 GiB of one 8-byte sample
[ -f "$D/bomb-2g-samples.pb.gz" ] ||
	"$PY" "$FK_SRCDIR/tests/pbgen.py" samples 268435456 "$D/bomb-2g-samples.pb.gz"
if [ ! -f "$D/chain-100k.cpuprofile" ]; then
	"$PY" - "$D/chain-100k.cpuprofile" 100000 <<'EOF'
import json, sys
n = int(sys.argv[2])
nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "url": ""}, "children": [2]}]
for i in range(2, n + 2):
    nd = {"id": i, "callFrame": {"functionName": "f%d" % i, "url": "", "lineNumber": -1}}
    if i < n + 1:
        nd["children"] = [i + 1]
    nodes.append(nd)
json.dump({"nodes": nodes, "startTime": 0, "samples": list(range(2, n + 2)),
           "timeDeltas": [1] * n}, open(sys.argv[1], "w"))
EOF
fi

sz=$(wc -c < "$D/big.pb")
best 1 "$FLAMEKIT" collapse --format pprof "$D/big.pb"
row "pprof, 123 MB raw: collapse"
awk -v kb="$KB" -v s="$sz" 'BEGIN { printf "  peak RSS = %.2fx the file (target <= 3)\n", kb * 1024 / s }'
gzip -1 -c "$D/big.pb" > "$D/big.pb.gz"
best 1 "$FLAMEKIT" collapse --format pprof "$D/big.pb.gz"
row "pprof, the same gzip: collapse"
awk -v kb="$KB" -v s="$sz" 'BEGIN { printf "  peak RSS = %.2fx the inflated size (target <= 3)\n", kb * 1024 / s }'

refused "bomb, 256 KiB gzip of 256 MiB zeros" "$FLAMEKIT" collapse --format pprof "$D/bomb-256m.gz"
refused "bomb, 2 MiB gzip of 2 GiB zeros" "$FLAMEKIT" collapse --format pprof "$D/bomb-2g.gz"
refused "bomb, gzip pprof of 2 GiB samples" "$FLAMEKIT" collapse --format pprof "$D/bomb-2g-samples.pb.gz"
refused "/dev/zero as pprof" "$FLAMEKIT" collapse --format pprof /dev/zero
refused "/dev/zero as html" "$FLAMEKIT" collapse --format html /dev/zero

"$FLAMEKIT" graph --output-plugin html -o "$D/chain-100k.html" "$D/chain-100k.cpuprofile"
"$PY" - "$D/chain-100k.html" "$D/tlbomb.html" <<'EOF'
import base64, re, sys, zlib
page = open(sys.argv[1]).read()
co = zlib.compressobj(9, zlib.DEFLATED, -15)
raw = b"".join(co.compress(b"0" * (1 << 20)) for _ in range(256)) + co.flush()
page = re.sub(r'"timeline":"[^"]*"', '"timeline":"%s"' % base64.b64encode(raw).decode(), page)
open(sys.argv[2], "w").write(page)
EOF
refused "report, timeline bomb of 256 MiB" "$FLAMEKIT" collapse "$D/tlbomb.html"

best 1 "$FLAMEKIT" graph "$D/chain-100k.cpuprofile"
row "v8, 100,000-node chain: graph"
best 1 "$FLAMEKIT" graph "$D/chain-100k.html"
row "report of it: graph"
