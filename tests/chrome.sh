#!/bin/sh
# The chrome input plugin (Trace Event Format JSON): a real Chromium
# --trace-startup capture of tests/data/chrome/busy.html (trimmed, see
# tests/data/chrome/record.sh), a hand-written bare array of events and an
# older Chrome's CpuProfile event (a whole .cpuprofile with children),
# against tests/chrome.py, an oracle over Python's json module; threads
# reaching Lua and the speedscope output; bad files with their errors.
. "$FK_SRCDIR/tests/lib.sh"
. "$FK_SRCDIR/tests/jsonlib.sh"
C="$FK_SRCDIR/tests/data/chrome"
ORACLE="$FK_SRCDIR/tests/chrome.py"

need_python chrome

for f in startup events cpuprofile-event cpuprofile-head-event; do
	for m in samples durations; do
		run "$FLAMEKIT" collapse --format chrome --events=$m "$C/$f.json"
		is "$rc:$out" "0:$("$PY" "$ORACLE" $m "$C/$f.json")" "chrome $f.json, events=$m: the oracle's stacks"
	done
	run "$FLAMEKIT" collapse "$C/$f.json"
	is "$rc:$out" "0:$("$PY" "$ORACLE" samples "$C/$f.json")" "chrome $f.json, detected: the CPU profile's samples (events=auto)"
done
run "$FLAMEKIT" collapse "$C/cpuprofile-head-event.json"
is "$rc:$out" "0:$("$FLAMEKIT" collapse "$C/cpuprofile-event.json")" \
	"a CpuProfile event of the old format (a head tree, timestamps) reads as the same profile of the current one"
# a head tree 3,000 nodes deep (6,000 levels of JSON), two samples
"$PY" - > "$TMP/deep.json" <<'EOF2'
n = 3000
print('[{"ph":"I","name":"CpuProfile","pid":1,"tid":2,"ts":0,"args":{"data":{"cpuProfile":{"head":'
      + "".join('{"functionName":"%s","url":"","id":%d,"children":[' % ("(root)" if i == 1 else "f%d" % i, i)
                for i in range(1, n + 1))
      + "]}" * n + ',"startTime":1,"samples":[%d,%d],"timestamps":[1000010,1000030]}}}}]' % (n, n // 2))
EOF2
run "$FLAMEKIT" collapse "$TMP/deep.json"
is "$rc:$out" "0:$("$PY" "$ORACLE" samples "$TMP/deep.json")" "a CpuProfile event's head tree 3,000 nodes deep"
run "$FLAMEKIT" collapse "$C/startup.json"
is "$(printf '%s\n' "$out" | grep -c '^spin file:///tmp/chr/busy.html:5;outer file:///tmp/chr/busy.html:4;middle file:///tmp/chr/busy.html:3;leaf file:///tmp/chr/busy.html:2 ')" 1 \
	"the real capture holds the page's loop: spin;outer;middle;leaf"
run "$FLAMEKIT" collapse --format chrome --events=durations "$C/events.json"
is "$err" "flamekit: warning: $C/events.json: skipped 3 unreadable lines (lines 16, 17, 19)" \
	"an E without a B, an X without dur and a B never ended are skipped, counted, with their lines"
printf '{"traceEvents":' > "$TMP/obj.json"
sed '$s/,$//' "$C/events.json" >> "$TMP/obj.json"
printf ']}\n' >> "$TMP/obj.json"
gzip -c "$TMP/obj.json" > "$TMP/obj.json.gz"
run "$FLAMEKIT" collapse --events=durations "$TMP/obj.json.gz"
is "$rc:$out" "0:$("$PY" "$ORACLE" durations "$C/events.json")" "the object form, gzipped, detected: the same stacks"

# what other writers do: Chrome's timeDeltas both in data and in its
# cpuProfile (the first counts, not both), pid and tid as strings
run "$FLAMEKIT" collapse "$C/both-deltas.json"
is "$rc:$out" "0:$("$PY" "$ORACLE" samples "$C/both-deltas.json")" \
	"timeDeltas in data and in cpuProfile: each sample once, the oracle's stacks"
per_thread "$C/string-ids.json" chrome "{events: durations}"
is "$rc:$out" "0:$("$PY" "$ORACLE" durations "$C/string-ids.json" --threads)" \
	"pid and tid as strings of digits: the same threads as numbers"

# Chrome's trace buffer loses chunks: a sample of a node never written is
# skipped and counted, a node whose parent is lost starts its stacks
# (said), a child never written is left out; a chunk without data is none
run "$FLAMEKIT" collapse "$C/lost-chunk.json"
is "$rc:$out" "0:$("$PY" "$ORACLE" samples "$C/lost-chunk.json")" "a trace that lost chunks: the oracle's stacks"
is "$err" "flamekit: warning: [input:chrome] $C/lost-chunk.json: profile 0x2: the parent of 1 node is not in the trace (a chunk lost?); stacks start there
flamekit: warning: $C/lost-chunk.json: skipped 2 unreadable lines (lines 13, 13)" \
	"a trace that lost chunks: the orphan said, the samples of no node counted with their chunk's line"

# the format's own "samples" and "stackFrames" beside the events (Hermes):
# per thread, timed by their ts (strings of numbers), one without a stack
# frame skipped and counted
run "$FLAMEKIT" collapse "$C/hermes-samples.json"
is "$rc:$out" "0:$("$PY" "$ORACLE" samples "$C/hermes-samples.json")" "top-level samples and stackFrames: the oracle's stacks"
is "$err" "flamekit: warning: $C/hermes-samples.json: skipped 1 unreadable line (line 9)" \
	"a top-level sample without sf: skipped, counted with its line"
per_thread "$C/hermes-samples.json" chrome
is "$(printf '%s\n' "$out" | cut -d";" -f1 | LC_ALL=C sort -u | tr '\n' ' ')" "-300/32 js-300/31 " \
	"top-level samples: each thread of its own, named by its thread_name"

# threads: pid, tid and thread_name reach Lua and the outputs
per_thread "$C/events.json" chrome "{events: durations}"
is "$rc:$out" "0:$("$PY" "$ORACLE" durations "$C/events.json" --threads)" "per-thread.lua: thread_name-pid/tid roots"
run "$FLAMEKIT" graph --format chrome --output-plugin speedscope "$C/startup.json"
is "$(printf '%s' "$out" | grep -o '"name":"[^"]*","unit"')" '"name":"CrRendererMain tid 11333 (pid 11333)","unit"' \
	"speedscope out: the sampled thread (the Profile event's, not the sampler's) and its name"

run "$FLAMEKIT" graph --format chrome --events=durations --output-plugin html "$C/events.json"
is "$(printf '%s' "$out" | grep -o '"threads":\[\[[^]]*\],\[[^]]*\],\[[^]]*\]\]')" \
	'"threads":[[10,1,"Main \u003c\u0026\u003e"],[10,2,"Worker"],[11,11]]' \
	"html report: the thread menu's pid, tid and thread_name (escaped)"
if command -v go > /dev/null 2>&1; then
	"$FLAMEKIT" graph --format chrome --events=durations --output-plugin pprof "$C/events.json" > "$TMP/e.pb.gz" 2> /dev/null
	is "$(go tool pprof -traces "$TMP/e.pb.gz" 2> /dev/null | grep -c '^ *comm:  Worker$')" 5 \
		"pprof out: the thread name is the comm label of the 5 stretches of Worker (go tool pprof -traces)"
else
	skip "pprof labels" "go tool pprof is not installed (Debian: golang-go)"
fi

# bad files
bad chrome '[{"ph":"I","name":"CpuProfile","pid":1,"tid":2,"args":{"data":{"cpuProfile":{"head":{"functionName":"(root)",
"url":"","id":1,"children":[3]},"samples":[],"timestamps":[]}}}}]' \
	":2: not a Chrome trace: a child of node number 1 of the \"head\" tree is not an object (column 29)" \
	"an old-format cpuProfile's child that is not a node"
bad chrome '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}' \
	":1: not a Chrome trace: the JSON is cut short at column 69 (truncated or unclosed)" "the object form truncated"
bad chrome '[{"ph":"P","name":"ProfileChunk","id":"0x1","pid":1,"tid":2,
"args":{"data":{"cpuProfile":{"nodes":[],"samples":[1,1]},"timeDeltas":[5]}}}]' \
	":2: not a Chrome trace: a ProfileChunk has 2 samples and 1 timeDeltas (column 77)" "samples and time deltas of different lengths"
bad chrome '[{"ph":"X","name":"a","pid":"9x","tid":1,"ts":1,"dur":2}]' \
	":1: not a Chrome trace: a \"X\" event has no numeric pid and tid (column 56)" "a pid string that is no number"
bad chrome '[{"ph":"X","name":"a","tid":1,"ts":1,"dur":2}]' \
	":1: not a Chrome trace: a \"X\" event has no numeric pid and tid (column 45)" "an event without pid"
bad chrome '[1]' ":1: not a Chrome trace: an event is not an object (column 2)" "an event that is no object"
bad chrome '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]' ": events=all: give samples, durations or auto" \
	"a bad events= value" --events=all
done_testing
