#!/bin/sh
# Bounded on hostile input: tree-shaped inputs (V8's node table, an HTML
# report's tree) pushed node by node, so deep chains come out right (the
# time they take is bench/70-bounds.sh's); decompression bombs, /dev/zero
# and whole-file reads (pprof, html, and the JSON inputs: speedscope,
# chrome, gecko) refused at --max-input-size, with the sentence naming the
# file and the limit.  Oracle: python3 (each chain's folded
# text, the bombs).
. "$FK_SRCDIR/tests/lib.sh"
PY=${PYTHON3:-python3}

# chain.py N MODE EXP: a .cpuprofile whose N nodes form one chain under
# "(root)"; MODE children (each node names its child) or parent (each names
# its parent, as Chrome's trace events do), ids shuffled so that a child
# may come before its parent in the table.  The leaf is sampled twice, one
# middle node not at all.  EXP gets the folded stacks, sorted by bytes,
# each sample counted once (the runs below say --sample-type samples).
cat > "$TMP/chain.py" <<'EOF'
import json, random, sys
n, mode = int(sys.argv[1]), sys.argv[2]
ids = list(range(2, n + 2))
random.Random(7).shuffle(ids)
nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "url": ""}}]
for d, i in enumerate(ids):
    nd = {"id": i, "callFrame": {"functionName": "f%d" % d, "url": "u.js", "lineNumber": d}}
    if mode == "children" and d + 1 < n:
        nd["children"] = [ids[d + 1]]
    if mode == "parent":
        nd["parent"] = ids[d - 1] if d else 1
    nodes.append(nd)
if mode == "children":
    nodes[0]["children"] = [ids[0]]
random.Random(8).shuffle(nodes)
samples = [i for d, i in enumerate(ids) if d != n // 2] + [ids[-1]]
json.dump({"nodes": nodes, "startTime": 0, "samples": samples,
           "timeDeltas": [1] * len(samples)}, sys.stdout)
depth = {i: d for d, i in enumerate(ids)}
count = {}
for i in samples:
    count[depth[i]] = count.get(depth[i], 0) + 1
lines = [";".join("f%d (u.js:%d)" % (k, k + 1) for k in range(d + 1)) + " %d" % c
         for d, c in count.items()]
with open(sys.argv[3], "w") as f:
    f.write("".join(l + "\n" for l in sorted(lines, key=lambda l: l.encode())))
EOF

for mode in children parent; do
	"$PY" "$TMP/chain.py" 3000 $mode "$TMP/$mode.exp" > "$TMP/$mode.cpuprofile"
	run "$FLAMEKIT" collapse --sample-type samples "$TMP/$mode.cpuprofile"
	printf '%s\n' "$out" > "$TMP/$mode.got"
	ok $([ "$rc" -eq 0 ] && [ -z "$err" ] && [ "$(wc -l < "$TMP/$mode.exp")" -eq 2999 ] &&
		cmp -s "$TMP/$mode.exp" "$TMP/$mode.got"; echo $?) \
		"v8: a 3,000-node chain ($mode links) collapses to python's 2,999 stacks"
done

# The same through a per-sample filter, which sees whole stacks (the host
# gives no node then, and the plugin pushes the frames).
cat > "$TMP/filter.yaml" <<EOF
inputs: [{path: "$TMP/children.cpuprofile", options: {sample-type: samples}}]
filters:
  - {plugin: grep, options: {exclude: nomatch}}
outputs:
  - {plugin: folded, path: "$TMP/filtered.folded"}
EOF
run "$FLAMEKIT" run "$TMP/filter.yaml"
ok $([ "$rc" -eq 0 ] && cmp -s "$TMP/children.exp" "$TMP/filtered.folded"; echo $?) \
	"v8: the chain through a per-sample filter: the same stacks"

# An HTML report of the chain, read back: its tree is a 3,000-deep chain.
"$FLAMEKIT" graph --sample-type samples --output-plugin html -o "$TMP/chain.html" "$TMP/children.cpuprofile"
run "$FLAMEKIT" collapse "$TMP/chain.html"
printf '%s\n' "$out" > "$TMP/html.got"
ok $([ "$rc" -eq 0 ] && [ -z "$err" ] && cmp -s "$TMP/children.exp" "$TMP/html.got"; echo $?) \
	"html: a report of the 3,000-node chain reads back as python's stacks"
"$FLAMEKIT" graph --sample-type samples --output-plugin html --timeline=0 -o "$TMP/chain0.html" "$TMP/children.cpuprofile"
run "$FLAMEKIT" collapse "$TMP/chain0.html"
printf '%s\n' "$out" > "$TMP/html0.got"
ok $([ "$rc" -eq 0 ] && cmp -s "$TMP/children.exp" "$TMP/html0.got"; echo $?) \
	"html: the same report without a timeline (the tree alone)"

# --- --max-input-size: bombs, /dev/zero, endless streams ------------------
LIMIT="refused, as a decompression bomb or an endless stream would be; a larger --max-input-size reads it"
AUTO="auto: 8388608 bytes for this file" # 8 MiB: 16 times a small file is less

# tests/pbgen.py writes the pprof files and streams by hand.
PBGEN="$FK_SRCDIR/tests/pbgen.py"

"$PY" "$PBGEN" string 0 "$TMP/string.pb.gz"
run "$FLAMEKIT" collapse --format pprof "$TMP/string.pb.gz"
is "$rc:$out:$err" "1::flamekit: $TMP/string.pb.gz: the input holds more than --max-input-size allows ($AUTO): $LIMIT" \
	"pprof: a 65 KB gzip holding a 64 MiB string is refused at the default limit"

"$PY" "$PBGEN" samples 524288 "$TMP/samples.pb.gz"
run "$FLAMEKIT" collapse --format pprof "$TMP/samples.pb.gz"
is "$rc:$out:$err" "0:f 524288:" "pprof: 524,288 samples (4 MiB inflated from 6 KB) are read at the default limit"
run "$FLAMEKIT" collapse --format pprof --max-input-size 2M "$TMP/samples.pb.gz"
is "$rc:$out:$err" "1::flamekit: $TMP/samples.pb.gz: the input holds more than --max-input-size allows (2M): $LIMIT" \
	"pprof: the same refused with --max-input-size 2M"
"$PY" "$PBGEN" samples 1048576 "$TMP/samples2.pb.gz"
run "$FLAMEKIT" collapse --format pprof "$TMP/samples2.pb.gz"
is "$rc:$out:$err" "1::flamekit: $TMP/samples2.pb.gz: the input holds more than --max-input-size allows ($AUTO): $LIMIT" \
	"pprof: twice as many (8 MiB and 45 bytes from 12 KB) refused at the default limit"
run "$FLAMEKIT" collapse --format pprof --max-input-size 16M "$TMP/samples2.pb.gz"
is "$rc:$out:$err" "0:f 1048576:" "pprof: ... and read with --max-input-size 16M"
run "$FLAMEKIT" collapse --format pprof --max-input-size 0 "$TMP/string.pb.gz"
is "$rc:$err" "1:flamekit: $TMP/string.pb.gz: not a valid pprof profile: its string table is missing or does not start with \"\" (truncated?)" \
	"pprof: --max-input-size 0 reads the 64 MiB string (no limit)"
run "$FLAMEKIT" collapse --format pprof --max-input-size 12X "$TMP/samples.pb.gz"
is "$rc:$out:$err" "2::flamekit: [input:pprof] --max-input-size takes auto or a number of bytes with an optional K, M, G or T suffix (0: no limit), not \"12X\"" \
	"pprof: a bad --max-input-size is refused before reading"

"$PY" "$PBGEN" endless | "$FLAMEKIT" collapse --format pprof --max-input-size 1M - > "$TMP/endless.out" 2> "$TMP/endless.err"
is "$?:$(cat "$TMP/endless.out"):$(cat "$TMP/endless.err")" \
	"1::flamekit: <stdin>: the input holds more than --max-input-size allows (1M): $LIMIT" \
	"pprof: an endless stream of samples on stdin is refused at the limit"

run "$FLAMEKIT" collapse --format pprof /dev/zero
is "$rc:$out:$err" "1::flamekit: /dev/zero: not a pprof profile: byte 0 does not decode as part of a profile.proto message (truncated or corrupt)" \
	"pprof: /dev/zero is refused at its first byte"
run "$FLAMEKIT" collapse --format html /dev/zero
is "$rc:$out:$err" "1::flamekit: /dev/zero: not a flamekit HTML report: no <meta name=\"generator\" content=\"flamekit-html 1\"> in its first 4096 bytes" \
	"html: /dev/zero is refused after its first bytes"

# A report whose timeline is a zlib bomb: 64 MiB of digits in 64 KB.
"$PY" - "$TMP/chain.html" "$TMP/tlbomb.html" <<'EOF'
import base64, re, sys, zlib
page = open(sys.argv[1]).read()
co = zlib.compressobj(9, zlib.DEFLATED, -15)
raw = b"".join(co.compress(b"0" * (1 << 20)) for _ in range(64)) + co.flush()
page, n = re.subn(r'"timeline":"[^"]*"', '"timeline":"%s"' % base64.b64encode(raw).decode(), page)
assert n == 1
open(sys.argv[2], "w").write(page)
EOF
run "$FLAMEKIT" collapse "$TMP/tlbomb.html"
is "$rc:$out:$err" "1::flamekit: $TMP/tlbomb.html: the input holds more than --max-input-size allows ($AUTO): $LIMIT" \
	"html: a report whose timeline inflates to 64 MiB is refused at the default limit"
run "$FLAMEKIT" collapse --max-input-size 1K "$TMP/chain.html"
is "$rc:$out:$err" "1::flamekit: $TMP/chain.html: the input holds more than --max-input-size allows (1K): $LIMIT" \
	"html: a report larger than --max-input-size 1K is refused"

# The job key: an input's options.
# limit_job FILE NAME: a job reading FILE with max-input-size 1K fails,
# saying so, and writes nothing
limit_job() {
	cat > "$TMP/limit.yaml" <<EOF
inputs:
  - path: "$1"
    options: {max-input-size: 1K}
outputs:
  - {plugin: folded, path: "$TMP/limit.folded"}
EOF
	run "$FLAMEKIT" run "$TMP/limit.yaml"
	is "$rc:$err:$(ls "$TMP/limit.folded" 2> /dev/null)" \
		"1:flamekit: $1: the input holds more than --max-input-size allows (1K): $LIMIT:" "$2"
}
limit_job "$TMP/chain.html" "job: max-input-size in an input's options, nothing written"
sed 's/1K/lots/; s/- path:/- format: html\n    path:/' "$TMP/limit.yaml" > "$TMP/lots.yaml"
run "$FLAMEKIT" run --check "$TMP/lots.yaml"
is "$rc:$err" "2:flamekit: [input:html] $TMP/lots.yaml:2:5: --max-input-size takes auto or a number of bytes with an optional K, M, G or T suffix (0: no limit), not \"lots\"" \
	"job: a bad max-input-size is refused at --check with job.yaml:line:col"

# --- the JSON inputs (speedscope, chrome, gecko): the same limit ----------------
# A Firefox Profiler file gzipped: its meta's "product" a 64 MiB string, so
# the file is 65 KB and inflates to 64 MiB; and a small one, to read.
"$PY" - "$TMP/bomb.json.gz" "$TMP/small.json" <<'EOF'
import gzip, sys
head = '{"meta": {"interval": 1, "startTime": 0, "preprocessedProfileVersion": 47, "product": "'
tail = ('"}, "libs": [], "threads": [{"name": "T", "pid": 1, "tid": 2,'
        ' "samples": {"length": 1, "stack": [0], "time": [0]},'
        ' "stackTable": {"length": 1, "frame": [0], "prefix": [null]},'
        ' "frameTable": {"length": 1, "func": [0], "address": [-1]},'
        ' "funcTable": {"length": 1, "name": [0], "resource": [-1]},'
        ' "resourceTable": {"length": 0, "lib": []}, "stringArray": ["f"]}]}\n')
with gzip.open(sys.argv[1], "wb", 9) as f:
    f.write(head.encode())
    for _ in range(64):
        f.write(b"a" * (1 << 20))
    f.write(tail.encode())
open(sys.argv[2], "w").write(head + "small" + tail)
EOF
run "$FLAMEKIT" collapse "$TMP/bomb.json.gz"
is "$rc:$out:$err" "1::flamekit: $TMP/bomb.json.gz: the input holds more than --max-input-size allows ($AUTO): $LIMIT" \
	"gecko: a 65 KB gzip inflating to 64 MiB is refused at the default limit, by its inflated bytes, in one sentence"
run "$FLAMEKIT" collapse --max-input-size 0 "$TMP/bomb.json.gz"
is "$rc:$out:$err" "0:f 1:" "gecko: ... and read whole with --max-input-size 0 (no limit)"
run "$FLAMEKIT" collapse --max-input-size 65M "$TMP/bomb.json.gz"
is "$rc:$out:$err" "0:f 1:" "gecko: ... and with --max-input-size 65M, above its 64 MiB"
size=$(wc -c < "$TMP/small.json")
run "$FLAMEKIT" collapse --format gecko --max-input-size $((size - 1)) "$TMP/small.json"
is "$rc:$out:$err" "1::flamekit: $TMP/small.json: the input holds more than --max-input-size allows ($((size - 1))): $LIMIT" \
	"gecko: a file one byte over --max-input-size is refused"
run "$FLAMEKIT" collapse --format gecko --max-input-size $size "$TMP/small.json"
is "$rc:$out:$err" "0:f 1:" "gecko: ... and one of exactly --max-input-size bytes read"

SPEED="$FK_SRCDIR/tests/data/speedscope/mixed.json"
run "$FLAMEKIT" collapse --max-input-size 1K "$SPEED"
is "$rc:$out:$err" "1::flamekit: $SPEED: the input holds more than --max-input-size allows (1K): $LIMIT" \
	"speedscope: a file larger than --max-input-size 1K is refused"
gzip -c "$SPEED" > "$TMP/mixed.json.gz"
run "$FLAMEKIT" collapse --format speedscope --max-input-size 1K "$TMP/mixed.json.gz"
is "$rc:$out:$err" "1::flamekit: $TMP/mixed.json.gz: the input holds more than --max-input-size allows (1K): $LIMIT" \
	"speedscope: gzipped, the inflated bytes count"
run "$FLAMEKIT" collapse --format speedscope --max-input-size 12X "$SPEED"
is "$rc:$out:$err" "2::flamekit: [input:speedscope] --max-input-size takes auto or a number of bytes with an optional K, M, G or T suffix (0: no limit), not \"12X\"" \
	"speedscope: a bad --max-input-size is refused before reading"

# chrome: an endless stream of events on stdin
"$PY" -c 'import sys
e = "{\"ph\":\"X\",\"name\":\"t\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n" * 1000
try:
    sys.stdout.write("[")
    while True:
        sys.stdout.write(e)
except BrokenPipeError:
    sys.stderr.close()' | "$FLAMEKIT" collapse --format chrome --max-input-size 1M - > "$TMP/endless.out" 2> "$TMP/endless.err"
is "$?:$(cat "$TMP/endless.out"):$(cat "$TMP/endless.err")" \
	"1::flamekit: <stdin>: the input holds more than --max-input-size allows (1M): $LIMIT" \
	"chrome: an endless stream of events is refused after --max-input-size 1M"
limit_job "$FK_SRCDIR/tests/data/chrome/events.json" "chrome: max-input-size in a job's input options, nothing written"

done_testing
