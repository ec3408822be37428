#!/bin/sh
# Bounded on hostile input: tree-shaped inputs (V8's node table, an HTML
# report's tree) pushed node by node, so deep chains come out right (the
# time they take is bench/70-bounds.sh's); decompression bombs, /dev/zero
# and whole-file reads refused at --max-input-size, with the sentence
# naming the file and the limit.  Oracle: python3 (each chain's folded
# text, the bombs).
. "$FK_SRCDIR/tests/lib.sh"
PY=${PYTHON3:-python3}

# chain.py N MODE EXP: a .cpuprofile whose N nodes form one chain under
# "(root)"; MODE children (each node names its child) or parent (each names
# its parent, as Chrome's trace events do), ids shuffled so that a child
# may come before its parent in the table.  The leaf is sampled twice, one
# middle node not at all.  EXP gets the folded stacks, sorted by bytes.
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
lines = [";".join("f%d u.js:%d" % (k, k + 1) for k in range(d + 1)) + " %d" % c
         for d, c in count.items()]
with open(sys.argv[3], "w") as f:
    f.write("".join(l + "\n" for l in sorted(lines, key=lambda l: l.encode())))
EOF

for mode in children parent; do
	"$PY" "$TMP/chain.py" 3000 $mode "$TMP/$mode.exp" > "$TMP/$mode.cpuprofile"
	run "$FLAMEKIT" collapse "$TMP/$mode.cpuprofile"
	printf '%s\n' "$out" > "$TMP/$mode.got"
	ok $([ "$rc" -eq 0 ] && [ -z "$err" ] && [ "$(wc -l < "$TMP/$mode.exp")" -eq 2999 ] &&
		cmp -s "$TMP/$mode.exp" "$TMP/$mode.got"; echo $?) \
		"v8: a 3,000-node chain ($mode links) collapses to python's 2,999 stacks"
done

# The same through a per-sample filter, which sees whole stacks (the host
# gives no node then, and the plugin pushes the frames).
cat > "$TMP/filter.yaml" <<EOF
inputs: ["$TMP/children.cpuprofile"]
filters:
  - {plugin: grep, options: {exclude: nomatch}}
outputs:
  - {plugin: folded, path: "$TMP/filtered.folded"}
EOF
run "$FLAMEKIT" run "$TMP/filter.yaml"
ok $([ "$rc" -eq 0 ] && cmp -s "$TMP/children.exp" "$TMP/filtered.folded"; echo $?) \
	"v8: the chain through a per-sample filter: the same stacks"

# An HTML report of the chain, read back: its tree is a 3,000-deep chain.
"$FLAMEKIT" graph --output-plugin html -o "$TMP/chain.html" "$TMP/children.cpuprofile"
run "$FLAMEKIT" collapse "$TMP/chain.html"
printf '%s\n' "$out" > "$TMP/html.got"
ok $([ "$rc" -eq 0 ] && [ -z "$err" ] && cmp -s "$TMP/children.exp" "$TMP/html.got"; echo $?) \
	"html: a report of the 3,000-node chain reads back as python's stacks"
"$FLAMEKIT" graph --output-plugin html --timeline=0 -o "$TMP/chain0.html" "$TMP/children.cpuprofile"
run "$FLAMEKIT" collapse "$TMP/chain0.html"
printf '%s\n' "$out" > "$TMP/html0.got"
ok $([ "$rc" -eq 0 ] && cmp -s "$TMP/children.exp" "$TMP/html0.got"; echo $?) \
	"html: the same report without a timeline (the tree alone)"

done_testing
