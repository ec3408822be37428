#!/bin/sh
# The gecko input plugin: files written by hand after the Firefox
# Profiler's documentation and types (a Gecko-format profile with a child
# process, a samply-style processed profile with shared strings and
# unsymbolicated frames, tracing-ms weights, the newest format's shared
# tables) against tests/gecko.py, an
# oracle over Python's json module; threads reaching Lua; bad files.
. "$FK_SRCDIR/tests/lib.sh"
. "$FK_SRCDIR/tests/jsonlib.sh"
G="$FK_SRCDIR/tests/data/gecko"
ORACLE="$FK_SRCDIR/tests/gecko.py"

need_python gecko

for f in firefox samply alloc shared-tables data-first old-strings devtools-recording; do
	run "$FLAMEKIT" collapse "$G/$f.json"
	is "$rc:$out" "0:$("$PY" "$ORACLE" "$G/$f.json")" "gecko $f.json, detected: the oracle's stacks"
	gzip -c "$G/$f.json" > "$TMP/$f.json.gz"
	run "$FLAMEKIT" collapse "$TMP/$f.json.gz"
	is "$rc:$out" "0:$("$PY" "$ORACLE" "$G/$f.json")" "gecko $f.json.gz: the same stacks"
done
run "$FLAMEKIT" collapse "$G/firefox.json"
is "$err" "flamekit: warning: $G/firefox.json: skipped 1 unreadable line (line 31)" \
	"a sample without a stack is skipped and counted"
is "$(printf '%s\n' "$out" | grep -c '^(root);libxul.so+0x1234;work (http://localhost/a.js:3:5) 1$')" 1 \
	"Gecko format: an address inside a library's start and end is LIB+0xOFFSET"
run "$FLAMEKIT" collapse "$G/data-first.json"
is "$err" "flamekit: warning: $G/data-first.json: skipped 1 unreadable line (line 13)" \
	"rows before their schema (older Gecko versions): read once it comes, a sample without a stack counted"
run "$FLAMEKIT" collapse "$G/samply.json"
is "$(printf '%s\n' "$out" | grep -c '^libc.so.6+0x1234;main;compute;busy+0x10 3$')" 1 \
	"processed format: an address-named func is LIB+0xADDR through its resource"
run "$FLAMEKIT" graph --output-plugin speedscope "$G/alloc.json"
is "$(printf '%s' "$out" | grep -o '"unit":"[a-z]*"' | sort -u)" '"unit":"nanoseconds"' "tracing-ms weights are ns"

# Firefox DevTools' recording with markers enough to put its profile past
# the 64 KiB detection sees: detected by its markers
"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["markers"] = d["markers"] * 2000
json.dump(d, sys.stdout)' "$G/devtools-recording.json" > "$TMP/big-rec.json"
run "$FLAMEKIT" collapse "$TMP/big-rec.json"
is "$rc:$out" "0:$("$PY" "$ORACLE" "$G/devtools-recording.json")" \
	"a DevTools recording whose profile starts past 64 KiB: detected, the same stacks"
per_thread "$G/devtools-recording.json" gecko
is "$rc:$out" "0:$("$PY" "$ORACLE" "$G/devtools-recording.json" --threads)" "a DevTools recording: its threads"
per_thread "$G/old-strings.json" gecko
is "$rc:$out" "0:$("$PY" "$ORACLE" "$G/old-strings.json" --threads)" \
	"older Gecko: \"libs\" and a child process as strings of JSON, each process with its libraries and threads"
collapse_text gecko libstr.json '{"meta":{"interval":1,"startTime":0},"libs":"[{\\"name\\":","threads":[]}'
is "$rc:$err" "1:flamekit: $TMP/libstr.json:1: not a Firefox Profiler file: the string holding \"libs\" is not JSON (column 57)" \
	"a \"libs\" string that is not JSON"
per_thread "$G/samply.json"
is "$rc:$out" "0:$("$PY" "$ORACLE" "$G/samply.json" --threads)" "per-thread.lua: thread name, pid (a string in the file) and tid"

if command -v go > /dev/null 2>&1; then
	"$FLAMEKIT" graph --output-plugin pprof "$G/samply.json" > "$TMP/s.pb.gz" 2> /dev/null
	is "$(go tool pprof -traces "$TMP/s.pb.gz" 2> /dev/null | grep -A2 '^ *comm:  worker <1>$' | grep -v -- '^--$' | tr -s ' ' | sort | uniq -c | tr -s ' ')" \
		" 2 comm: worker <1>
 2 pid: 4242
 2 tid: 4243" "pprof out: thread name, pid and tid as labels (go tool pprof -traces)"
else
	skip "pprof labels" "go tool pprof is not installed (Debian: golang-go)"
fi

M='"meta":{"interval":1,"startTime":0}'
bad gecko "{$M,\"threads\":[{\"name\":\"t\",\"samples\":{\"data\":[[0,1]]}}]}" \
	":1: not a Firefox Profiler file: a table has \"data\" and no \"schema\" (column 86)" "data and no schema"
bad gecko "{$M,\"threads\":[{\"name\":\"t\",\"samples\":{\"stack\":[5]},\"stackTable\":{\"frame\":[0],\"prefix\":[null]},
\"frameTable\":{\"location\":[0]},\"stringTable\":[\"a\"]}]}" \
	":2: not a Firefox Profiler file: thread t: sample 0 names stack 5, not in the stack table (1 entries)" "a stack index past the table"
bad gecko "{$M,\"threads\":[{\"name\":\"t\",\"samples\":{\"stack\":[1]},\"stackTable\":{\"frame\":[0,0],\"prefix\":[1,0]},
\"frameTable\":{\"location\":[0]},\"stringTable\":[\"a\"]}]}" \
	":2: not a Firefox Profiler file: thread t: the prefixes of stack 1 form a cycle" "prefixes in a cycle"
bad gecko "{$M,\"threads\":[{\"name\":\"t\",\"samples\":{\"stack\":[0]},\"stackTable\":{\"frame\":[0],\"prefix\":[null]},
\"frameTable\":{\"location\":[3]},\"stringTable\":[\"a\"]}]}" \
	":2: not a Firefox Profiler file: thread t: frame 0 has no name in the string table (1 strings)" "a string index past the table"
bad gecko "{$M,\"threads\":[{\"name\":\"t\",\"samples\":{\"stack\":[0],\"weight\":[1],\"weightType\":\"bytes\"},\"stackTable\":{\"frame\":[0],\"prefix\":[null]},\"frameTable\":{\"location\":[0]},\"stringTable\":[\"a\"]},
{\"name\":\"u\",\"samples\":{\"stack\":[0]},\"stackTable\":{\"frame\":[0],\"prefix\":[null]},\"frameTable\":{\"location\":[0]},\"stringTable\":[\"a\"]}]}" \
	":2: not a Firefox Profiler file: thread u weighs its samples in samples, an earlier one in bytes: flamekit reads one unit per input" \
	"threads in two units"
bad gecko "{$M,\"threads\":[{\"name\":\"t\",\"samples\":{\"stack\":[0],\"weightType\":\"parsecs\"}}]}" \
	":1: not a Firefox Profiler file: weightType \"parsecs\" is none of samples, tracing-ms, bytes (column 105)" "an unknown weightType"
bad gecko "{$M,\"threads\":[{\"name\":\"t\"" ":1: not a Firefox Profiler file: the JSON is cut short at column 60 (truncated or unclosed)" "truncated"
done_testing
