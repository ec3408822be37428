#!/bin/sh
# The pprof and v8 input plugins and the pprof and speedscope outputs,
# against oracles that are not flamekit: `go tool pprof -raw`/`-traces`
# (golang-go) for pprof, the file's own node tree (tests/interop.py) for
# V8, and the speedscope file read back by tests/interop.py.  Fixtures:
# tests/data/pprof/{cpu,heap,labels}.pb.gz (gen.go) and tests/data/v8/
# node.cpuprofile (gen.js), real captures.  Then round trips, jobs,
# detection, and hostile or truncated files of each format.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data"
PY=${PYTHON3:-python3}
ORACLE="$FK_SRCDIR/tests/interop.py"
CPU="$D/pprof/cpu.pb.gz"
HEAP="$D/pprof/heap.pb.gz"
NODE="$D/v8/node.cpuprofile"
PERF="$FK_SRCDIR/examples/profiles/demo.perf.txt.gz"
NAMES="$D/perf/names.txt"  # four threads, three thread names
# go keeps a build cache and wants a home; neither may be the real one
GOCACHE="$TMP/gocache" HOME="$TMP" PPROF_TMPDIR="$TMP"
export GOCACHE HOME PPROF_TMPDIR
have_go=no
command -v go > /dev/null 2>&1 && go tool pprof -h > /dev/null 2>&1 && have_go=yes

# pprof_raw FILE N: go tool pprof's stacks of FILE weighed by value N, folded
pprof_raw() {
	go tool pprof -raw "$1" 2> /dev/null | "$PY" "$ORACLE" raw "$2"
}

# --- pprof in: go tool pprof is the oracle -----------------------------
if [ $have_go = yes ]; then
	run "$FLAMEKIT" collapse --sample-type samples "$CPU"
	exp=$(go tool pprof -sample_index=samples -traces "$CPU" 2> /dev/null | "$PY" "$ORACLE" traces)
	is "$out" "$exp" "Go CPU profile, detected, --sample-type samples: go tool pprof -traces's stacks and counts"
	is "$rc" 0 "Go CPU profile: exit status"
	run "$FLAMEKIT" collapse "$CPU"
	is "$out" "$(pprof_raw "$CPU" 1)" "Go CPU profile: the default is the last type, cpu, as go tool pprof's"
	run "$FLAMEKIT" collapse --format pprof "$HEAP"
	is "$out" "$(pprof_raw "$HEAP" 3)" "Go heap profile: inuse_space by default"
	run "$FLAMEKIT" collapse --format pprof --sample-type alloc_objects "$HEAP"
	is "$out" "$(pprof_raw "$HEAP" 0)" "Go heap profile: --sample-type alloc_objects"
else
	for t in traces cpu heap alloc_objects; do
		skip "Go profile against go tool pprof ($t)" "go tool pprof is not installed (Debian: golang-go)"
	done
fi
# the same, spelled out: what the fixture holds, inlined main.small included
run "$FLAMEKIT" collapse --sample-type samples "$CPU"
is "$out" "main.main.func1.1;main.worker;main.hashLoop;main.small;main.spin 20
runtime.main;main.main;main.worker;main.hashLoop;main.small;main.spin 29
runtime.main;main.main;main.worker;main.hashLoop;time.Now 1" "Go CPU profile: the exact folded stacks"
run "$FLAMEKIT" collapse --all --format pprof --sample-type samples "$CPU"
is "$(echo "$out" | head -1)" "main.main.func1.1;main.worker;main.hashLoop;main.small_[i];main.spin 20" \
	"--all marks the inlined function _[i]"
run "$FLAMEKIT" collapse --format pprof --sample-type nope "$HEAP"
is "$err" "flamekit: $HEAP: no sample type 'nope' in this profile (it has: alloc_objects, alloc_space, inuse_objects, inuse_space)" \
	"an unknown --sample-type names the profile's types"
is "$rc" 1 "an unknown --sample-type: exit status 1"
gzip -dc "$CPU" > "$TMP/cpu.pb"
run "$FLAMEKIT" collapse --sample-type samples "$TMP/cpu.pb"
is "$out" "$("$FLAMEKIT" collapse --sample-type samples "$CPU")" "a raw (not gzipped) profile is detected and read"

# unsymbolized locations, and a function known only by its system name
for m in 0 1; do
	"$PY" "$ORACLE" unsym "$TMP/unsym$m.pb" $m
done
# (the system name _Z3foov demangled short by default, as go tool pprof
# does: c++filt -p's foo)
foo=$(echo _Z3foov | c++filt -p 2> /dev/null || echo foo)
run "$FLAMEKIT" collapse "$TMP/unsym0.pb"
is "$out" "main;$foo;<unknown> 5" "pprof: a location without lines or mapping is <unknown>, as go tool pprof -traces says"
run "$FLAMEKIT" collapse "$TMP/unsym1.pb"
is "$out" "main;$foo;[x] 5" "pprof: a location without lines is [its mapping's file], as go tool pprof -traces says"
run "$FLAMEKIT" collapse --no-demangle "$TMP/unsym1.pb"
is "$out" "main;_Z3foov;[x] 5" "pprof --no-demangle: the function's system name as it is"
run "$FLAMEKIT" collapse --format pprof --addresses "$TMP/unsym1.pb"
is "$out" "main;$foo;0x1234 5" "pprof --addresses: a location without lines is its address"
if [ $have_go = yes ]; then
	is "$(go tool pprof -traces "$TMP/unsym1.pb" 2> /dev/null | "$PY" "$ORACLE" traces)" \
		"$("$FLAMEKIT" collapse "$TMP/unsym1.pb")" \
		"go tool pprof agrees, the system name demangled as pprof does by default"
else
	skip "go tool pprof on an unsymbolized profile" "go tool pprof is not installed (Debian: golang-go)"
fi

# int64 extremes (INT64_MIN, -1, INT64_MAX, 2^53 + 1...): folded output prints
# each weight (the nearest double of the value) as an exact integer, and reads
# back what it printed: collapse, merge and graph's folded output agree.
"$PY" "$ORACLE" values "$TMP/values.pb" > "$TMP/values.exp"
run "$FLAMEKIT" collapse "$TMP/values.pb"
is "$rc:$out" "0:$(cat "$TMP/values.exp")" "pprof int64 extremes: exact integers in folded output (python's doubles)"
printf '%s\n' "$out" > "$TMP/values.folded"
run "$FLAMEKIT" collapse "$TMP/values.folded"
is "$rc:$out:$err" "0:$(cat "$TMP/values.exp"):" "pprof int64 extremes: the folded output reads back, every figure the same"
run "$FLAMEKIT" merge "$TMP/values.folded" "$TMP/values.folded"
is "$rc:$out" "0:$(awk '{ $NF = sprintf("%.0f", 2 * $NF); print }' "$TMP/values.exp")" \
	"pprof int64 extremes: merge of the folded output twice doubles each figure (awk's doubles)"
if [ $have_go = yes ]; then
	is "$(go tool pprof -raw "$TMP/values.pb" 2> /dev/null | "$PY" "$ORACLE" raw 0 | awk '{ $NF = sprintf("%.0f", $NF); print }')" \
		"$(cat "$TMP/values.exp")" "go tool pprof reads the same int64 values (as doubles in awk)"
else
	skip "go tool pprof on int64 extremes" "go tool pprof is not installed (Debian: golang-go)"
fi

# --- pprof's Time: the capture's wall-clock time where the input has one,
# left out where it has none (go tool pprof said "Jan 1, 1970") ----------
if [ $have_go = yes ]; then
	gotime() { TZ=UTC go tool pprof -raw "$1" 2> /dev/null | sed -n 's/^Time: //p'; }
	# python: a ctime(3) text in local time ($ZONE, as perf wrote it) in UTC
	utc() { TZ=$ZONE "$PY" -c 'import sys, time
print(time.strftime("%Y-%m-%d %H:%M:%S +0000 UTC", time.gmtime(time.mktime(time.strptime(sys.argv[1].strip(), "%a %b %d %H:%M:%S %Y")))))' "$1"; }
	ZONE=UTC
	[ -e /usr/share/zoneinfo/Asia/Tokyo ] && ZONE=Asia/Tokyo # not UTC: local time is read as local
	printf '# ========\n# captured on    : Wed Dec  2 01:36:12 2026\n# header version : 1\n# ========\n#\n%s\n' \
		'prog 7/7 [000] 1.000000: 250000 cpu-clock:' '	400100 f+0x1 (/bin/prog)' '' > "$TMP/hdr.txt"
	TZ=$ZONE "$FLAMEKIT" graph --format perf --output-plugin pprof -o "$TMP/hdr.pb.gz" "$TMP/hdr.txt"
	is "$(gotime "$TMP/hdr.pb.gz")" "$(utc "Wed Dec  2 01:36:12 2026")" \
		"perf script --header -> pprof: go tool pprof's Time is the header's captured on ($ZONE)"
	"$FLAMEKIT" graph --output-plugin pprof -o "$TMP/v8.pb.gz" "$NODE"
	is "$(gotime "$TMP/v8.pb.gz")" "" "v8 -> pprof: no Time (startTime is monotonic), not Jan 1, 1970"
	"$FLAMEKIT" graph --output-plugin pprof -o "$TMP/cpu2.pb.gz" "$CPU"
	is "$(gotime "$TMP/cpu2.pb.gz")" "$(gotime "$CPU")" "pprof -> pprof: the profile's Time kept"
	work='i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'
	if command -v perf > /dev/null 2>&1 && perf record -q -F 499 -g -o "$TMP/rec.data" -- sh -c "$work" > "$TMP/rec.log" 2>&1; then
		TZ=$ZONE "$FLAMEKIT" graph --output-plugin pprof -o "$TMP/rec.pb.gz" "$TMP/rec.data" 2> /dev/null
		cap=$(TZ=$ZONE perf report --header-only -i "$TMP/rec.data" 2> /dev/null | sed -n 's/^# captured on *: //p')
		is "$(gotime "$TMP/rec.pb.gz" | sed 's/\.[0-9]* / /')" "$(utc "$cap")" \
			"perf.data -> pprof: go tool pprof's Time is what perf report --header-only says it was captured on"
		TZ=$ZONE perf script --header -i "$TMP/rec.data" 2> /dev/null | TZ=$ZONE "$FLAMEKIT" graph --format perf --output-plugin pprof -o "$TMP/rect.pb.gz" -
		is "$(gotime "$TMP/rect.pb.gz")" "$(utc "$cap")" "perf script --header of it -> pprof: the same Time"
	else
		skip "perf.data -> pprof's Time" "perf record cannot run here"
		skip "perf script --header -> pprof's Time" "perf record cannot run here"
	fi
else
	skip "pprof's Time" "go tool pprof is not installed (Debian: golang-go)"
fi

# --- v8 in: the file's own node tree is the oracle -----------------------
run "$FLAMEKIT" collapse "$NODE"
is "$out" "$("$PY" "$ORACLE" v8 "$NODE")" "node --cpu-prof profile, detected: its node tree's stacks"
is "$rc" 0 "node --cpu-prof profile: exit status"
printf '%s' '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1},"children":[2,3,4]},
{"id":2,"callFrame":{"functionName":"","url":"file:///a.js","lineNumber":9},"children":[5]},
{"id":3,"callFrame":{"functionName":"(garbage collector)","url":"","lineNumber":-1}},
{"id":4,"callFrame":{"functionName":"(idle)","url":"","lineNumber":-1}},
{"id":5,"callFrame":{"functionName":"f;g","url":"file:///a.js","lineNumber":0}}],
"startTime":1000,"endTime":1100,"samples":[5,5,3,4,2],"timeDeltas":[10,20,30,5,7]}' > "$TMP/small.cpuprofile"
run "$FLAMEKIT" collapse "$TMP/small.cpuprofile"
# each sample lasts until the next, the last until endTime: 20, 30, 5, 7 and 28 us
is "$out" "(anonymous) (a.js:10) 28000
(anonymous) (a.js:10);f:g (a.js:1) 50000
(garbage collector) 5000
(idle) 7000" "v8: each sample weighs the time to the next one, the last to endTime, in ns (DevTools, speedscope)"
is "$out" "$("$PY" "$ORACLE" v8 "$TMP/small.cpuprofile")" "v8: the same as the oracle's time weights"
run "$FLAMEKIT" collapse --sample-type samples "$TMP/small.cpuprofile"
is "$out" "(anonymous) (a.js:10) 1
(anonymous) (a.js:10);f:g (a.js:1) 2
(garbage collector) 1
(idle) 1" "v8: FUNCTION (FILE:LINE) (1-based), (anonymous), no (root), (idle) and (garbage collector) kept"
run "$FLAMEKIT" collapse --sample-type samples --frame-names full "$TMP/small.cpuprofile"
is "$out" "(anonymous) file:///a.js:10 1
(anonymous) file:///a.js:10;f:g file:///a.js:1 2
(garbage collector) 1
(idle) 1" "v8 --frame-names full: FUNCTION URL:LINE, the names before 1.8"
is "$out" "$("$PY" "$ORACLE" v8 "$TMP/small.cpuprofile" samples full)" "v8 --frame-names full: the same as the oracle's"
printf '%s' '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1},"children":[2,3]},
{"id":2,"callFrame":{"functionName":"h","url":"https://example.com/","lineNumber":-1},"children":[]},
{"id":3,"callFrame":{"functionName":"","url":"webpack:///src/a/b.ts?x=1","lineNumber":41}}],
"samples":[2,3]}' > "$TMP/urls.cpuprofile"
run "$FLAMEKIT" collapse "$TMP/urls.cpuprofile"
is "$out" "(anonymous) (b.ts?x=1:42) 1
h (https://example.com/) 1" "v8: a url ending in / is named whole, no line when it has none"
is "$out" "$("$PY" "$ORACLE" v8 "$TMP/urls.cpuprofile")" "v8: short names, the same as the oracle's"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/urls.html" "$NODE" 2> /dev/null
run "$FLAMEKIT" collapse "$TMP/urls.html"
is "$out" "$("$PY" "$ORACLE" v8 "$NODE")" "v8 -> html report (urls beside the names) -> collapse: the same stacks"
run "$FLAMEKIT" collapse --frame-names long "$TMP/small.cpuprofile"
is "$rc:$err" "1:flamekit: $TMP/small.cpuprofile: no frame names 'long' for a V8 profile (it has: short, full)" \
	"v8: an unknown --frame-names names the two it has"
run "$FLAMEKIT" graph --format v8 --output-plugin speedscope "$TMP/small.cpuprofile"
is "$(echo "$out" | grep -c '"weights":\[20000,30000,5000,7000,28000\]')" 1 "v8: each sample weighs its time, in order (speedscope keeps the five)"
run "$FLAMEKIT" graph --format v8 --sample-type samples --output-plugin speedscope "$TMP/small.cpuprofile"
is "$(echo "$out" | grep -c '"weights":\[1,1,1,1,1\]')" 1 "v8 --sample-type samples: each sample counts once, at its time"
is "$(echo "$out" | grep -o '"type":"sampled","name":"[^"]*"')" '"type":"sampled","name":"all samples"' \
	"v8 -> speedscope: timed samples without threads are one profile, all samples"
run "$FLAMEKIT" collapse --sample-type cpu "$TMP/small.cpuprofile"
is "$rc:$err" "1:flamekit: $TMP/small.cpuprofile: no sample type 'cpu' in a V8 profile (it has: time, samples)" \
	"v8: an unknown --sample-type names the two it has"

# --- pprof labels: sample attributes (ABI 1.3) ------------------------------
# labels.pb.gz (gen.go labels): worker=a runs busyA, worker=b (and
# kind=batch) busyB, main runs worker unlabelled
LABELS="$D/pprof/labels.pb.gz"
lua_job() { # SCRIPT-TEXT INPUT [OUTPUT-PLUGIN OUTPUT-PATH]
	printf '%s\n' "$1" > "$TMP/l.lua"
	cat > "$TMP/l.yaml" <<EOF
inputs:
  - path: $2
filters:
  - plugin: lua
    script: l.lua
outputs:
  - plugin: ${3:-folded}
    path: "${4:--}"
EOF
	run "$FLAMEKIT" run "$TMP/l.yaml"
}
lua_job 'function sample(s)
  local t = {}
  for k, v in pairs(s.labels) do t[#t + 1] = k .. "=" .. v end
  table.sort(t)
  s:insert(1, "[" .. table.concat(t, ",") .. "]")
end' "$LABELS"
is "$out" "[];runtime.main;main.main;main.labelled;main.worker;main.hashLoop;main.small;main.spin 270000000
[kind=batch,worker=b];runtime/pprof.Do;main.labelled.func2;main.busyB;main.hashLoop;main.small;main.spin 260000000
[kind=batch,worker=b];runtime/pprof.Do;main.labelled.func2;main.busyB;main.hashLoop;main.small;main.spin;runtime.asyncPreempt 10000000
[worker=a];runtime/pprof.Do;main.labelled.func1;main.busyA;main.hashLoop;main.small;main.spin 260000000" \
	"pprof goroutine labels are the samples' s.labels in a Lua filter"
lua_job 'function sample(s) if s:label("nope") ~= nil or s.labels.nope ~= nil then error("a label no sample has") end end' "$LABELS"
is "$rc" 0 "s:label and s.labels of a key no sample has: nil"
lua_job 'function sample(s) if s:label("worker") ~= "a" then s:drop() end end' "$LABELS"
is "$out" "runtime/pprof.Do;main.labelled.func1;main.busyA;main.hashLoop;main.small;main.spin 260000000" \
	"a Lua filter keeping s:label(\"worker\") == \"a\" keeps worker a's samples"
if [ $have_go = yes ]; then
	is "$out" "$(go tool pprof -raw -tagfocus worker=a "$LABELS" 2> /dev/null | "$PY" "$ORACLE" raw 1)" \
		"... which are go tool pprof -tagfocus worker=a's stacks and values"
	"$FLAMEKIT" graph --output-plugin pprof -o "$TMP/labels2.pb.gz" "$LABELS"
	is "$(go tool pprof -tags "$TMP/labels2.pb.gz" 2> /dev/null)" "$(go tool pprof -tags "$LABELS" 2> /dev/null)" \
		"pprof -> flamekit -> pprof keeps the labels (go tool pprof -tags)"
	for f in worker=b kind=batch; do
		is "$(go tool pprof -traces -tagfocus $f "$TMP/labels2.pb.gz" 2> /dev/null | "$PY" "$ORACLE" traces)" \
			"$(go tool pprof -traces -tagfocus $f "$LABELS" 2> /dev/null | "$PY" "$ORACLE" traces)" \
			"pprof -> flamekit -> pprof: go tool pprof -tagfocus $f gives the same stacks"
	done
	lua_job 'function sample(s) if s:label("worker") ~= "b" then s:drop() end end' "$LABELS" \
		pprof "$TMP/labels3.pb.gz"
	is "$(go tool pprof -tags "$TMP/labels3.pb.gz" 2> /dev/null | tr -s ' ')" " kind: Total 270.0ms
 270.0ms ( 100%): batch

 worker: Total 270.0ms
 270.0ms ( 100%): b" "a Lua filter on worker=b, then pprof: only worker b's labels and time are left"
else
	for t in tagfocus tags tagfocus-b tagfocus-kind filtered; do
		skip "pprof labels against go tool pprof ($t)" "go tool pprof is not installed (Debian: golang-go)"
	done
fi

# --- pprof out -------------------------------------------------------------
"$FLAMEKIT" collapse --format perf "$PERF" > "$TMP/perf.folded"
run "$FLAMEKIT" graph --format perf --output-plugin pprof -o "$TMP/perf.pb.gz" "$PERF"
is "$rc" 0 "perf -> pprof: exit status"
if [ $have_go = yes ]; then
	pprof_raw "$TMP/perf.pb.gz" 0 > "$TMP/rt.folded"
	same_file "$TMP/perf.folded" "$TMP/rt.folded" "perf -> pprof -> go tool pprof -raw: the collapse's stacks and counts"
	is "$(go tool pprof -raw "$TMP/perf.pb.gz" 2> /dev/null | sed -n '/^Samples:/{n;p;}')" "cpu/nanoseconds" \
		"perf -> pprof: cpu-clock samples weigh nanoseconds: the sample type is cpu/nanoseconds"
	go tool pprof -traces "$TMP/perf.pb.gz" > "$TMP/traces" 2> /dev/null
	ok $? "perf -> pprof: go tool pprof -traces reads it"
	grep -q '^ *tid: ' "$TMP/traces" && grep -q '^timestamp_ns: ' "$TMP/traces"
	ok $? "perf -> pprof: thread ids and timestamps are labels"
	go tool pprof -top "$TMP/perf.pb.gz" > "$TMP/top" 2> /dev/null
	ok $? "perf -> pprof: go tool pprof -top reads it"
	# perf's clock is monotonic: no wall-clock start (go tool pprof showed
	# "Time: Jan 19, 1970" for seconds since boot), a duration still
	is "$(grep -c '^Time:' "$TMP/top") $(grep -c '^Duration:' "$TMP/top")" "0 1" \
		"perf -> pprof: no time_nanos from a monotonic clock, the duration kept"
	"$FLAMEKIT" graph --format perf --output-plugin pprof -o "$TMP/names.pb.gz" "$NAMES"
	is "$(go tool pprof -tags "$TMP/names.pb.gz" 2> /dev/null | sed -n '/^ comm:/,/^$/p' | tr -s ' ')" \
		" comm: Total 1.2ms
 750.0us (60.00%): main
 250.0us (20.00%): V8_WorkerThread
 250.0us (20.00%): perf" "perf -> pprof: thread names are the string label comm (go tool pprof -tags)"
	printf 'function sample(s) s:insert(1, s.comm .. "/" .. s.tid) end\n' > "$TMP/c.lua"
	printf 'inputs:\n  - path: %s\nfilters:\n  - plugin: lua\n    script: c.lua\noutputs:\n  - plugin: folded\n    path: "-"\n' "$TMP/names.pb.gz" > "$TMP/c.yaml"
	run "$FLAMEKIT" run "$TMP/c.yaml"
	is "$(echo "$out" | cut -d';' -f1)" "V8_WorkerThread/25610
main/43
main/44
perf/1234" "perf -> pprof -> flamekit: comm and tid come back as the samples' comm and tid"
	"$FLAMEKIT" graph --format pprof --output-plugin pprof -o "$TMP/cpu2.pb.gz" "$CPU"
	is "$(pprof_raw "$TMP/cpu2.pb.gz" 0)" "$(pprof_raw "$CPU" 1)" \
		"pprof -> flamekit -> pprof: go tool pprof sees the same stacks and values"
	is "$(go tool pprof -raw "$TMP/cpu2.pb.gz" 2> /dev/null | sed -n '/^Samples:/{n;p;}')" "cpu/nanoseconds" \
		"pprof -> flamekit -> pprof: nanoseconds stay cpu/nanoseconds"
	printf 'a;b 3 5\na;c 2 0\n' | "$FLAMEKIT" graph --output-plugin pprof -o "$TMP/two.pb.gz"
	is "$(go tool pprof -raw "$TMP/two.pb.gz" 2> /dev/null | sed -n '/^Samples:/{n;p;}')" "samples/count samples2/count" \
		"two series: two sample types"
	is "$(pprof_raw "$TMP/two.pb.gz" 1)" "a;b 5
a;c 0" "two series: the second type holds the second column"
	"$FLAMEKIT" graph --format pprof --output-plugin pprof -o "$TMP/cpu3.pb.gz" "$TMP/cpu2.pb.gz"
	cmp -s "$TMP/cpu2.pb.gz" "$TMP/cpu3.pb.gz"
	ok $? "pprof -> pprof -> pprof: the same bytes (a fixed point)"
else
	for t in raw type traces labels top comm comm-back roundtrip unit series series2 fixed; do
		skip "pprof output against go tool pprof ($t)" "go tool pprof is not installed (Debian: golang-go)"
	done
fi
"$FLAMEKIT" graph --threads 1 --format perf --output-plugin pprof -o "$TMP/t1.pb.gz" "$PERF"
"$FLAMEKIT" graph --threads 2 --format perf --output-plugin pprof -o "$TMP/t2.pb.gz" "$PERF"
cmp -s "$TMP/t1.pb.gz" "$TMP/perf.pb.gz" && cmp -s "$TMP/t2.pb.gz" "$TMP/perf.pb.gz"
ok $? "pprof output: the same bytes whatever the thread count"

# --- speedscope out ------------------------------------------------------------
run "$FLAMEKIT" graph --format perf --output-plugin speedscope -o "$TMP/perf.json" "$PERF"
is "$rc" 0 "perf -> speedscope: exit status"
"$PY" "$ORACLE" speedscope "$TMP/perf.json" > "$TMP/ss.folded"
same_file "$TMP/perf.folded" "$TMP/ss.folded" "perf -> speedscope: the collapse's stacks and weights"
is "$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["profiles"]), d["profiles"][0]["name"], d["profiles"][0]["unit"])' "$TMP/perf.json")" \
	"3 demo tid 2920 nanoseconds" "perf -> speedscope: a sampled profile per thread (3), named after the thread, weights in nanoseconds"
run "$FLAMEKIT" graph --format perf --output-plugin speedscope "$NAMES"
is "$(echo "$out" | grep -o '"type":"sampled","name":"[^"]*"')" '"type":"sampled","name":"main tid 43 (pid 42)"
"type":"sampled","name":"main tid 44 (pid 42)"
"type":"sampled","name":"perf tid 1234 (pid 1234)"
"type":"sampled","name":"V8_WorkerThread tid 25610 (pid 25607)"' \
	"perf -> speedscope: each thread's profile is named comm tid T (pid P)"
run "$FLAMEKIT" graph --format pprof --output-plugin speedscope "$CPU"
is "$out" '{"$schema":"https://www.speedscope.app/file-format-schema.json",
"shared":{"frames":[
{"name":"runtime.main"},
{"name":"main.main"},
{"name":"main.worker"},
{"name":"main.hashLoop"},
{"name":"main.small"},
{"name":"main.spin"},
{"name":"time.Now"},
{"name":"main.main.func1.1"}]},
"profiles":[
{"type":"sampled","name":"all stacks","unit":"nanoseconds","startValue":0,"endValue":500000000,
"samples":[[0,1,2,3,4,5],[0,1,2,3,6],[7,2,3,4,5]],
"weights":[290000000,10000000,200000000]}],
"name":"flamekit","activeProfileIndex":0,"exporter":"flamekit"}' "pprof -> speedscope: the exact file, weights in nanoseconds"
printf '<script>&"\\x;y 1\n\001\377 2\n' | "$FLAMEKIT" graph --output-plugin speedscope -o "$TMP/hostile.json"
grep -q '"\\u003cscript\\u003e\\u0026\\"\\\\x"' "$TMP/hostile.json" && grep -q '"\\u0001\\u00ff"' "$TMP/hostile.json"
ok $? "speedscope: names escaped (<, &, quote, backslash, control and non-UTF-8 bytes)"
"$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/hostile.json"
ok $? "speedscope: hostile names still make valid JSON"

# --- from a job ------------------------------------------------------------
cat > "$TMP/job.yaml" << EOF2
inputs:
  - path: $NODE
outputs:
  - plugin: pprof
    path: node.pb.gz
  - plugin: speedscope
    path: node.json
output-dir: $TMP
EOF2
run "$FLAMEKIT" run "$TMP/job.yaml"
is "$rc" 0 "a job writes pprof and speedscope outputs"
is "$("$PY" "$ORACLE" speedscope "$TMP/node.json")" "$("$PY" "$ORACLE" v8 "$NODE")" "job: v8 -> speedscope holds the node tree's stacks"
if [ $have_go = yes ]; then
	is "$(pprof_raw "$TMP/node.pb.gz" 0)" "$("$PY" "$ORACLE" v8 "$NODE")" "job: v8 -> pprof -> go tool pprof: the node tree's stacks"
else
	skip "job: v8 -> pprof -> go tool pprof" "go tool pprof is not installed (Debian: golang-go)"
fi

# --- hostile and truncated input: one clear message, no output ---------------
# hostile FILE FORMAT EXPECTED-STDERR NAME
hostile() {
	run "$FLAMEKIT" collapse --format "$2" "$1"
	is "$err" "$3" "$4: the message"
	is "$rc" 1 "$4: exit status 1"
	is "$out" "" "$4: no output"
}
head -c 300 "$CPU" > "$TMP/cut.pb.gz"
hostile "$TMP/cut.pb.gz" pprof "flamekit: $TMP/cut.pb.gz: compressed data is truncated" "pprof: truncated gzip"
head -c 700 "$TMP/cpu.pb" > "$TMP/cut.pb"
hostile "$TMP/cut.pb" pprof "flamekit: $TMP/cut.pb: not a valid pprof profile: its string table is missing or does not start with \"\" (truncated?)" \
	"pprof: truncated at a field"
head -c 701 "$TMP/cpu.pb" > "$TMP/cut2.pb"
# 700 bytes end at a field (above): 701 cut the one starting at byte 700
hostile "$TMP/cut2.pb" pprof "flamekit: $TMP/cut2.pb: not a pprof profile: byte 700 does not decode as part of a profile.proto message (truncated or corrupt)" \
	"pprof: truncated inside a field"
hostile "$NODE" pprof "flamekit: $NODE: not a pprof profile: byte 0 does not decode as part of a profile.proto message (truncated or corrupt)" \
	"pprof: JSON given as pprof"
: > "$TMP/empty"
hostile "$TMP/empty" pprof "flamekit: $TMP/empty: not a pprof profile: the input is empty" "pprof: empty input"
# sample_type {1,2}, a sample naming location 5, strings "", samples, count
printf '\012\004\010\001\020\002\022\006\012\001\005\022\001\001\062\000\062\007samples\062\005count' > "$TMP/ref.pb"
run "$FLAMEKIT" collapse "$TMP/ref.pb"
is "$err" "flamekit: $TMP/ref.pb: not a valid pprof profile: sample 1 names location 5, which is not in the profile" \
	"pprof: a sample naming a missing location (detected as pprof)"
printf '\012\004\010\000\020\011\062\000' > "$TMP/str.pb"
hostile "$TMP/str.pb" pprof "flamekit: $TMP/str.pb: not a valid pprof profile: a sample type names string 9 of a table of 1" \
	"pprof: a string index out of the table"
# a location of 1,500 lines named 400 times in each of 20 samples: 12 million
# frames from 14 KB (17 s in fuzz-pprof; fuzz/regress/pprof/)
R="$FK_SRCDIR/fuzz/regress/pprof/location-lines-named-too-often.pb"
hostile "$R" pprof "flamekit: $R: not a usable pprof profile: at sample 1 its stacks hold more than 262144 frames, over 16 per byte of the profile: it names locations of many lines too often to be a real profile" \
	"pprof: stacks expanding 800 times the file"
head -c 1000 "$NODE" > "$TMP/cut.cpuprofile"
hostile "$TMP/cut.cpuprofile" v8 "flamekit: $TMP/cut.cpuprofile:1: not a V8 profile: the JSON does not parse (column 1000: truncated, malformed, nested over 1000 deep or out of memory)" \
	"v8: truncated"
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"a","url":""},"children":[2]},{"id":2,"callFrame":{"functionName":"b","url":""},"children":[1]}],"samples":[1]}' > "$TMP/cyc.cpuprofile"
hostile "$TMP/cyc.cpuprofile" v8 "flamekit: $TMP/cyc.cpuprofile: not a V8 profile: the parents of node 1 form a cycle" "v8: a cycle of parents"
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[1]}],"samples":[1]}' > "$TMP/rootcyc.cpuprofile"
hostile "$TMP/rootcyc.cpuprofile" v8 "flamekit: $TMP/rootcyc.cpuprofile: not a V8 profile: the parents of node 1 form a cycle" \
	"v8: (root) its own child (a cycle that adds no frame; hung before)"
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""}}],"samples":[1,7]}' > "$TMP/unk.cpuprofile"
hostile "$TMP/unk.cpuprofile" v8 "flamekit: $TMP/unk.cpuprofile: not a V8 profile: sample number 2 is not the id of a node" "v8: a sample of no node"
"$PY" -c 'import sys; sys.stdout.write("{\"nodes\":" + "[" * 100000)' > "$TMP/deep.json"
hostile "$TMP/deep.json" v8 "flamekit: $TMP/deep.json:1: not a V8 profile: the JSON does not parse (column 1009: truncated, malformed, nested over 1000 deep or out of memory)" \
	"v8: 100,000 nested arrays"
printf '{"nodes":{}}' > "$TMP/obj.cpuprofile"
hostile "$TMP/obj.cpuprofile" v8 "flamekit: $TMP/obj.cpuprofile: not a V8 profile: no \"nodes\" array at the top level" "v8: nodes not an array"
# --- times 64 bits of nanoseconds cannot hold, or whose differences would
# overflow in the outputs: an error naming the file and the sample
# (plugins/input/common/time.h), never a garbage time
# v8prof FILE STARTTIME DELTAS: three samples of node f, timed
v8prof() {
	printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2]},{"id":2,"callFrame":{"functionName":"f","url":""}}],"startTime":%s,"samples":[2,2,2],"timeDeltas":[%s]}' \
		"$2" "$3" > "$1"
}
Y="beyond the 146 years either side of 0 that flamekit's times hold"
v8prof "$TMP/inf.cpuprofile" 1000 1,1e999,1
hostile "$TMP/inf.cpuprofile" v8 "flamekit: $TMP/inf.cpuprofile: not a V8 profile: sample number 2 is at inf microseconds (startTime plus timeDeltas up to number 2), $Y" \
	"v8: an infinite time delta"
v8prof "$TMP/nan.cpuprofile" 1e999 -1e999,0,0
hostile "$TMP/nan.cpuprofile" v8 "flamekit: $TMP/nan.cpuprofile: not a V8 profile: sample number 1 has no time: startTime plus timeDeltas up to number 1 is not a number (infinities that cancel)" \
	"v8: infinities that cancel"
v8prof "$TMP/far.cpuprofile" 4.611e15 0,1e12,0
hostile "$TMP/far.cpuprofile" v8 "flamekit: $TMP/far.cpuprofile: not a V8 profile: sample number 2 is at 4.612e+15 microseconds (startTime plus timeDeltas up to number 2), $Y" \
	"v8: a time past 2^62 ns (it fits 64 bits: outputs subtracting two would not)"
v8prof "$TMP/near.cpuprofile" -4.6e15 0,0,0
run "$FLAMEKIT" graph --output-plugin pprof "$TMP/near.cpuprofile"
is "$rc:$err" "0:" "v8: a time just within 2^62 ns of 0 is read"
# pprofts FILE NS...: a pprof profile of one sample of f per timestamp_ns
pprofts() {
	"$PY" - "$@" <<'PY'
import sys
def varint(v):
    v &= (1 << 64) - 1
    out = b""
    while True:
        b, v = v & 0x7f, v >> 7
        out += bytes([b | 0x80 if v else b])
        if not v:
            return out
def field(n, wt, x):
    return varint(n << 3 | wt) + (varint(x) if wt == 0 else varint(len(x)) + x)
pb = field(1, 2, field(1, 0, 1) + field(2, 0, 2))
for t in sys.argv[2:]:
    pb += field(2, 2, field(1, 0, 1) + field(2, 0, 1) + field(3, 2, field(1, 0, 3) + field(3, 0, int(t))))
pb += field(4, 2, field(1, 0, 1) + field(4, 2, field(1, 0, 1)))
pb += field(5, 2, field(1, 0, 1) + field(2, 0, 4))
for s in [b"", b"samples", b"count", b"timestamp_ns", b"f"]:
    pb += field(6, 2, s)
open(sys.argv[1], "wb").write(pb)
PY
}
pprofts "$TMP/ts.pb" 1000 2000
run "$FLAMEKIT" collapse --format pprof "$TMP/ts.pb"
is "$rc:$out:$err" "0:f 2:" "pprof: the timestamp fixture reads"
pprofts "$TMP/tsmin.pb" 1000 -9223372036854775808 9223372036854775807
hostile "$TMP/tsmin.pb" pprof "flamekit: $TMP/tsmin.pb: not a usable pprof profile: sample 2's timestamp_ns label is -9223372036854775808 ns, $Y" \
	"pprof: INT64_MIN and INT64_MAX timestamps (pprof's duration overflowed to -1 ns)"
pprofts "$TMP/ts62.pb" -4611686018427387903 4611686018427387904
hostile "$TMP/ts62.pb" pprof "flamekit: $TMP/ts62.pb: not a usable pprof profile: sample 2's timestamp_ns label is 4611686018427387904 ns, $Y" \
	"pprof: a timestamp of 2^62 ns (and -2^62 + 1 read)"

head -c 4000 /dev/urandom > "$TMP/garbage"
run "$FLAMEKIT" collapse --format pprof "$TMP/garbage"
ok $((rc != 1)) "pprof: random bytes: exit status 1"
run "$FLAMEKIT" collapse --format v8 "$TMP/garbage"
ok $((rc != 1)) "v8: random bytes: exit status 1"

done_testing
