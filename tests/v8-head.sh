#!/bin/sh
# The v8 input's old .cpuprofile format (a "head" tree: node 10 and older,
# Chrome DevTools before 2016), against tests/oracle/cpuprofile-head.py, an
# oracle over Python's json module: a hand-written file in DevTools' old
# export (tests/data/v8/old.cpuprofile: startTime and endTime in seconds,
# absolute timestamps, lineNumber 1-based), and profiles of the current
# format (the shipped node capture, and one node records now) converted by
# the oracle to the old one, which must collapse to the same bytes as the
# current one.  Then deep trees (nothing recurses on them) and bad files.
. "$FK_SRCDIR/tests/lib.sh"
PY=${PYTHON3:-python3}
ORACLE="$FK_SRCDIR/tests/oracle/cpuprofile-head.py"
OLD="$FK_SRCDIR/tests/data/v8/old.cpuprofile"
NODE="$FK_SRCDIR/tests/data/v8/node.cpuprofile"

if ! command -v "$PY" > /dev/null 2>&1; then
	skip_all "v8 head" "no python3"
fi

# --- the hand-written file: the oracle's stacks ---------------------------
run "$FLAMEKIT" collapse "$OLD"
is "$rc:$err:$out" "0::$("$PY" "$ORACLE" fold "$OLD")" \
	"old format, detected: each sample weighs the time to the next timestamp, the last to endTime, in ns"
is "$(printf '%s\n' "$out" | grep -c '^(anonymous) (server.js:1);handle (server.js:12);render (page.js:40);escape:html (page.js:7) 2499000$')" 1 \
	"old format: lineNumber is 1-based (DevTools subtracts 1 for its callFrame), ';' in a name becomes ':'"
run "$FLAMEKIT" collapse --sample-type samples "$OLD"
is "$rc:$err:$out" "0::$("$PY" "$ORACLE" fold "$OLD" samples)" "old format --sample-type samples: each sample once"
run "$FLAMEKIT" collapse --sample-type samples --frame-names full "$OLD"
is "$rc:$err:$out" "0::$("$PY" "$ORACLE" fold "$OLD" samples full)" "old format --frame-names full: FUNCTION URL:LINE"
"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
del d["samples"], d["timestamps"]
json.dump(d, sys.stdout)' "$OLD" > "$TMP/hits.cpuprofile"
run "$FLAMEKIT" collapse "$TMP/hits.cpuprofile"
is "$rc:$err:$out" "0::$("$PY" "$ORACLE" fold "$TMP/hits.cpuprofile")" "old format without samples: each node's hitCount"
"$FLAMEKIT" graph --output-plugin speedscope -o "$TMP/old.speedscope.json" "$OLD" 2> /dev/null
is "$(grep -o '"unit":"[a-z]*","startValue":[0-9]*,"endValue":[0-9]*' "$TMP/old.speedscope.json")" \
	'"unit":"nanoseconds","startValue":0,"endValue":18011000' \
	"old format -> speedscope: 18,011 us from the first timestamp to the last sample's end (endTime, in seconds)"

# --- the current format converted to the old one: the same bytes ------------
# same_as_new NEW NAME: NEW and its conversion collapse alike, by time, by
# samples and with full names, and as the oracle reads the conversion
same_as_new() {
	"$PY" "$ORACLE" convert "$1" > "$TMP/conv.cpuprofile"
	for o in "" "--sample-type samples" "--frame-names full"; do
		"$FLAMEKIT" collapse $o "$1" > "$TMP/new.folded" 2>&1
		"$FLAMEKIT" collapse $o "$TMP/conv.cpuprofile" > "$TMP/conv.folded" 2>&1
		ok $([ -s "$TMP/new.folded" ] && cmp -s "$TMP/new.folded" "$TMP/conv.folded"; echo $?) \
			"$2 ${o:-(by time)}: the old form collapses to the same bytes"
	done
	run "$FLAMEKIT" collapse "$TMP/conv.cpuprofile"
	is "$out" "$("$PY" "$ORACLE" fold "$TMP/conv.cpuprofile")" "$2, old form: the oracle's stacks"
	"$FLAMEKIT" graph --output-plugin speedscope -o "$TMP/new.json" "$1" 2> /dev/null
	"$FLAMEKIT" graph --output-plugin speedscope -o "$TMP/conv.json" "$TMP/conv.cpuprofile" 2> /dev/null
	ok $([ -s "$TMP/new.json" ] && cmp -s "$TMP/new.json" "$TMP/conv.json"; echo $?) \
		"$2: the same speedscope file (every sample's time and weight)"
}
same_as_new "$NODE" "shipped node --cpu-prof capture"
if command -v node > /dev/null 2>&1; then
	(cd "$TMP" && node --cpu-prof --cpu-prof-interval 500 --cpu-prof-name now.cpuprofile \
		"$FK_SRCDIR/tests/data/v8/gen.js" > /dev/null 2>&1)
	same_as_new "$TMP/now.cpuprofile" "node $(node --version) --cpu-prof, recorded now"
else
	skip "node --cpu-prof recorded now" "node is not installed (Debian: nodejs)"
fi

# --- deep trees: as deep as the input, no recursion ---------------------------
"$PY" "$ORACLE" chain 3000 > "$TMP/chain.cpuprofile"
run "$FLAMEKIT" collapse --sample-type samples "$TMP/chain.cpuprofile"
printf '%s\n' "$out" > "$TMP/chain.got"
"$PY" "$ORACLE" fold "$TMP/chain.cpuprofile" samples > "$TMP/chain.exp"
ok $([ "$rc" -eq 0 ] && [ "$(wc -l < "$TMP/chain.exp")" -eq 2999 ] && cmp -s "$TMP/chain.exp" "$TMP/chain.got"; echo $?) \
	"a 3,000-node chain (6,000 levels of JSON) collapses to python's 2,999 stacks"
# 100,000 nodes deep, the limit: two samples, whose stacks the generator knows
"$PY" - "$TMP/deep.cpuprofile" 100000 > "$TMP/deep.exp" <<'EOF'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    f.write('{"head":')
    for i in range(1, n + 1):
        f.write('{"functionName":"%s","url":"","id":%d,"children":[' % ("(root)" if i == 1 else "f%d" % i, i))
    f.write("]}" * n + ',"samples":[%d,%d]}' % (n, n // 2))
for d in sorted((n, n // 2), key=lambda d: ";".join("f%d" % i for i in range(2, d + 1)).encode()):
    print(";".join("f%d" % i for i in range(2, d + 1)) + " 1")
EOF
run "$FLAMEKIT" collapse --format v8 "$TMP/deep.cpuprofile"
printf '%s\n' "$out" > "$TMP/deep.got"
ok $([ "$rc" -eq 0 ] && [ -z "$err" ] && cmp -s "$TMP/deep.exp" "$TMP/deep.got"; echo $?) \
	"a tree 100,000 nodes deep (200,000 levels of JSON) is read"
"$PY" "$ORACLE" chain 100001 too > "$TMP/deeper.cpuprofile"
run "$FLAMEKIT" collapse --format v8 "$TMP/deeper.cpuprofile"
is "$rc:$out:$err" "1::flamekit: $TMP/deeper.cpuprofile: not a V8 profile: the \"head\" tree is more than 100000 nodes deep" \
	"a tree 100,001 nodes deep is refused, at once"

# --- detection ---------------------------------------------------------------
# a sampling heap profile (.heapprofile) has a "head" tree too: of callFrames
printf '%s\n' '{"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},
"selfSize":0,"id":1,"children":[{"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1},
"selfSize":4096,"id":2,"children":[]}]},"samples":[{"size":4096,"nodeId":2,"ordinal":1}]}' > "$TMP/heap.heapprofile"
run "$FLAMEKIT" collapse "$TMP/heap.heapprofile"
is "$rc:$(printf '%s' "$err" | grep -c 'cannot tell the input format')" "1:1" "a .heapprofile's head tree is not taken for a .cpuprofile"
printf '%s\n' '{"profiles":[{"head":{"functionName":"(root)","url":"","hitCount":0,"id":1,"children":[]}}]}' > "$TMP/nested.json"
run "$FLAMEKIT" collapse "$TMP/nested.json"
is "$rc:$(printf '%s' "$err" | grep -c 'cannot tell the input format')" "1:1" "a \"head\" that is not a key of the top object is not the old format"

# --- bad files: one sentence each ---------------------------------------------
# bad JSON MESSAGE NAME: JSON read as v8 fails with exactly "FILE: MESSAGE"
bad() {
	printf '%s\n' "$1" > "$TMP/bad.cpuprofile"
	run "$FLAMEKIT" collapse --format v8 "$TMP/bad.cpuprofile"
	is "$rc:$out:$err" "1::flamekit: $TMP/bad.cpuprofile$2" "error: $3"
}
R='"functionName":"(root)","url":"","id":1'
bad '{"head":7}' ': not a V8 profile: "head" is not an object' "head not an object"
bad '{"head":{'"$R"',"children":[]},"nodes":[]}' ': not a V8 profile: it has both "nodes" and "head"' "both nodes and head"
bad '{"head":{'"$R"',"children":[2]}}' ': not a V8 profile: a child of node number 1 of the "head" tree is not an object' \
	"a child that is a number (the current format's)"
bad '{"head":{'"$R"',"children":[{"functionName":"a","url":"","children":[]}]}}' \
	': not a V8 profile: node number 2 of the "head" tree has no numeric id' "a node without an id"
bad '{"head":{'"$R"',"children":[{"functionName":"a","id":2}]}}' \
	': not a V8 profile: node 2 of the "head" tree has no functionName or url' "a node without a url"
bad '{"head":{'"$R"',"children":[{"functionName":"a","url":"","id":1}]}}' \
	': not a V8 profile: node id 1 is used twice' "two nodes of one id"
bad '{"head":{'"$R"',"children":[{"functionName":"a","url":"","id":2}]},"samples":[2,3]}' \
	': not a V8 profile: sample number 2 is not the id of a node' "a sample of no node"
bad '{"head":{'"$R"',"children":[{"functionName":"a","url":"","id":2}]},"samples":[2,2],"timestamps":[5,"x"]}' \
	': not a V8 profile: timestamp number 2 is not a number' "a timestamp that is not a number"
bad '{"head":{'"$R"',"children":[{"functionName":"a","url":"","id":2}]},"samples":[2],"timestamps":[1e999]}' \
	': not a V8 profile: sample number 1 is at inf microseconds (timestamp number 1), beyond the 146 years either side of 0 that flamekit'"'"'s times hold' \
	"an infinite timestamp"
CUT='{"head":{'"$R"',"children":[{"functionName":"a","url":"","id":2,"children":['
bad "$CUT" ":1: not a V8 profile: the JSON does not parse (column $((${#CUT} + 1)): truncated, malformed, nested over 1000 deep or out of memory)" \
	"a tree cut short: at the newline that ends its line"
printf '%s\n' '{"head":{'"$R"',"children":[{"functionName":"a","url":"","id":2}]},"samples":[2,2],"timestamps":[5]}' > "$TMP/few.cpuprofile"
run "$FLAMEKIT" collapse --format v8 "$TMP/few.cpuprofile"
is "$rc:$out:$err" "0:a 2:flamekit: warning: [input:v8] $TMP/few.cpuprofile: \"timestamps\" has 1 entries for 2 samples; samples have no times" \
	"timestamps for some samples only: each counts once, with a warning"

done_testing
