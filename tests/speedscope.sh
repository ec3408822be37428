#!/bin/sh
# The speedscope input plugin: hand-written files (after the file format's
# schema) against tests/speedscope.py, an oracle over Python's json module;
# the round trip flamekit -> speedscope -> flamekit on several inputs (the
# folded stacks come back exactly); thread names and ids reaching Lua and
# the speedscope output; and bad files, each with its exact error.
. "$FK_SRCDIR/tests/lib.sh"
. "$FK_SRCDIR/tests/jsonlib.sh"
D="$FK_SRCDIR/tests/data"
S="$D/speedscope"
ORACLE="$FK_SRCDIR/tests/speedscope.py"

need_python speedscope

for f in mixed profiles-first bytes; do
	run "$FLAMEKIT" collapse "$S/$f.json"
	is "$rc:$out" "0:$("$PY" "$ORACLE" "$S/$f.json")" "speedscope $f.json, detected: the oracle's stacks"
done
run "$FLAMEKIT" collapse "$S/mixed.json"
is "$err" "flamekit: warning: $S/mixed.json: skipped 1 unreadable line (line 18)" \
	"mixed.json: the empty stack is skipped, counted, with its line"
gzip -c "$S/mixed.json" > "$TMP/mixed.json.gz"
run "$FLAMEKIT" collapse "$TMP/mixed.json.gz"
is "$rc:$out" "0:$("$PY" "$ORACLE" "$S/mixed.json")" "speedscope gzip-compressed: the same stacks"

# units: time in ns (the series unit), bytes as bytes, none as samples
run "$FLAMEKIT" graph --output-plugin speedscope "$S/profiles-first.json"
is "$(printf '%s' "$out" | grep -o '"unit":"[a-z]*"' | sort -u)" '"unit":"nanoseconds"' \
	"microseconds and seconds are read as ns"
run "$FLAMEKIT" graph --output-plugin speedscope "$S/bytes.json"
is "$(printf '%s' "$out" | grep -o '"unit":"[a-z]*"' | sort -u)" '"unit":"bytes"' "bytes stay bytes"

# each profile a thread: flamekit's own "COMM tid T (pid P)" names come back
# as comm, tid and pid; any other name is the comm, with the profile's number
per_thread "$S/mixed.json"
is "$rc:$out" "0:main thread;main 4000000
main thread;main;emit <&> \"x\" 5000000
main thread;main;parse 2000000
main thread;main;parse;lex 7000000
worker-42/7;main 2000000
worker-42/7;worker 5000000
worker-42/7;worker;emit <&> \"x\" 4000000
worker-42/7;worker;parse 2000000
worker-42/7;worker;parse;lex 4000000" "per-thread.lua: each profile is a thread, flamekit's names parsed back"
run "$FLAMEKIT" graph --output-plugin speedscope "$S/mixed.json"
is "$(printf '%s' "$out" | grep -o '"name":"[^"]*","unit"')" '"name":"main thread tid 1","unit"
"name":"worker tid 7 (pid 42)","unit"' "speedscope out again: the same threads"

# Round trip: FORMAT file -> speedscope -> collapse gives the folded stacks back
for f in perf/names.txt perf/offcpu.txt perf/weights-series.txt pprof/labels.pb.gz pprof/heap.pb.gz \
         pprof/cpu.pb.gz speedscope/mixed.json; do
	"$FLAMEKIT" collapse "$D/$f" > "$TMP/a.folded" 2> /dev/null
	"$FLAMEKIT" graph --output-plugin speedscope "$D/$f" > "$TMP/rt.json" 2> /dev/null
	run "$FLAMEKIT" collapse "$TMP/rt.json"
	is "$rc:$out" "0:$(cat "$TMP/a.folded")" "round trip through speedscope: $f"
done
if [ -d "$FK_CONFORMANCE" ]; then
	for f in "$FK_CONFORMANCE"/dtrace/inputs/*.txt "$FK_CONFORMANCE"/stap/inputs/*.txt; do
		"$FLAMEKIT" collapse "$f" > "$TMP/a.folded" 2> /dev/null
		"$FLAMEKIT" graph --output-plugin speedscope "$f" > "$TMP/rt.json" 2> /dev/null
		run "$FLAMEKIT" collapse --format speedscope "$TMP/rt.json"
		is "$rc:$out" "0:$(cat "$TMP/a.folded")" "round trip through speedscope: ${f#$FK_CONFORMANCE/}"
	done
fi

# bad files: FILE:LINE:COL and what is wrong
H='"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"},{"name":"b"}]}'
# a file of one profile of each type (x, unit none, from 0 to 2) up to its events or samples
EVENTED="{$H,\"profiles\":[{\"type\":\"evented\",\"name\":\"x\",\"unit\":\"none\",\"startValue\":0,\"endValue\":2,"
SAMPLED="{$H,\"profiles\":[{\"type\":\"sampled\",\"name\":\"x\",\"unit\":\"none\",\"startValue\":0,\"endValue\":2,"
bad speedscope "$EVENTED
\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"C\",\"frame\":1,\"at\":2}]}]}" \
	":2: not a speedscope file: an event closes frame 1, which is not the innermost open frame (column 69)" \
	"a close of a frame that is not the innermost"
bad speedscope "$EVENTED
\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":5},{\"type\":\"C\",\"frame\":0,\"at\":2}]}]}" \
	":2: not a speedscope file: an event is earlier than the one before it (column 69)" "events out of order"
bad speedscope "$EVENTED
\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":5}]}]}" \
	":2: not a speedscope file: profile 1 ends with 1 frames still open (column 41)" "a frame left open"
bad speedscope "$SAMPLED
\"samples\":[[0],[0,1]],\"weights\":[1]}]}" \
	":2: not a speedscope file: profile 1 has 2 samples and 1 weights (column 36)" "samples and weights of different lengths"
bad speedscope "$SAMPLED
\"samples\":[[0],[0,7]],\"weights\":[1,1]}]}" \
	":2: not a speedscope file: profile 1 names frame 7, but shared.frames has 2" "a frame index past the frames"
bad speedscope "{$H,\"profiles\":[{\"type\":\"sampled\",\"name\":\"x\",\"unit\":\"none\",\"samples\":[[0]],\"weights\":[1]},
{\"type\":\"sampled\",\"name\":\"y\",\"unit\":\"bytes\",\"samples\":[[0]],\"weights\":[1]}]}" \
	":2: not a speedscope file: profile 2 is in bytes, an earlier one in none (samples): flamekit reads one kind of unit per input (column 74)" \
	"profiles in two kinds of unit"
bad speedscope "{$H,\"profiles\":[{\"type\":\"sampled\",\"name\":\"x\",\"unit\":\"parsecs\",\"samples\":[[0]],\"weights\":[1]}]}" \
	":1: not a speedscope file: profile 1 has unit \"parsecs\", not one of none, bytes, nanoseconds, microseconds, milliseconds, seconds (column 169)" \
	"an unknown unit"
bad speedscope "{$H,\"profiles\":[{\"type\":\"sampled\",\"name\":\"x\",\"unit\":\"none\",\"samples\":[[0,\"a\"]],\"weights\":[1]}]}" \
	":1: not a speedscope file: a sample's stack holds something that is not a frame index (column 184)" "a stack entry that is no index"
bad speedscope "{$H,\"profiles\":[{\"type\":\"sampled\",\"name\":\"x\",\"unit\":\"none\",\"samples\":[[0]],\"weights\":[1]}" \
	":1: not a speedscope file: the JSON is cut short at column 198 (truncated or unclosed)" "truncated"
bad speedscope "{$H,\"profiles\":[{\"type\":\"sampled\",\"name\":\"x\",,\"unit\":\"none\"}]}" \
	":1: not a speedscope file: the JSON does not parse at column 154 (malformed, or nested over 1000 deep)" "malformed"
bad speedscope "{$H}" ": not a speedscope file: no \"profiles\" array at the top level" "no profiles"
bad speedscope "{$H,\"profiles\":[{\"type\":\"flat\"}]}" \
	":1: not a speedscope file: a profile's \"type\" is neither \"sampled\" nor \"evented\" (column 138)" "an unknown profile type"
"$PY" -c 'print("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"x\":" + "[" * 100000 + "]" * 100000 + "}")' > "$TMP/deep.json"
run "$FLAMEKIT" collapse "$TMP/deep.json"
is "$rc:$err" "1:flamekit: $TMP/deep.json:1: not a speedscope file: the JSON does not parse at column 1068 (malformed, or nested over 1000 deep)" \
	"100,000 nested arrays are refused"
: > "$TMP/empty.json"
run "$FLAMEKIT" collapse --format speedscope "$TMP/empty.json"
is "$rc:$err" "1:flamekit: $TMP/empty.json: not a speedscope file: the input is empty" "empty input"
done_testing
