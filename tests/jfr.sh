#!/bin/sh
# Input plugin jfr: Java Flight Recorder files.  Every event type, with and
# without --lines, --all, --thread-root and --state, collapses to what
# tests/oracle/jfr.py computes from `jfr print --json` (the JDK's own
# reader), on the shipped recording (its expected output computed by the
# oracle, tests/data/jfr/regen.sh) and on recordings made now of
# tests/data/jfr/Busy.java (skipped without java); then units, labels,
# several chunks, detection and damaged files.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/jfr"
ORACLE="$FK_SRCDIR/tests/oracle/jfr.py"
SMALL="$D/small.jfr.gz"

# collapse FILE TYPE OPTS...: flamekit's folded stacks, sorted as the oracle sorts
collapse() {
	f=$1 t=$2
	shift 2
	"$FLAMEKIT" collapse --sample-type "$t" "$@" "$f" 2> "$TMP/c.err" | LC_ALL=C sort
}

# the shipped recording against the oracle's output, computed when it was recorded
while read -r name type opts; do
	# shellcheck disable=SC2086
	collapse "$SMALL" "$type" $opts > "$TMP/got"
	same_file "$D/expected/$name.txt" "$TMP/got" "small.jfr.gz: $type $opts"
	n=$(cat "$D/expected/$name.skipped")
	is "$(cat "$TMP/c.err")" "${n:+flamekit: warning: [input:jfr] $SMALL: $n $type events without a stack trace (or with no frames) skipped}" \
		"small.jfr.gz: $type $opts: the events the oracle skips, counted"
done < "$D/cases"

# the same recording, inflated, concatenated with itself: two chunks, each
# weighing what the one did
gzip -dc "$SMALL" > "$TMP/small.jfr"
cat "$TMP/small.jfr" "$TMP/small.jfr" > "$TMP/two.jfr"
collapse "$TMP/two.jfr" jdk.ExecutionSample > "$TMP/got"
awk '{ n = $NF; $NF = ""; print $0 (2 * n) }' "$D/expected/cpu.txt" > "$TMP/want"
same_file "$TMP/want" "$TMP/got" "two chunks: every weight doubled"

# files written from the format's description by tests/oracle/jfr-forge.py,
# which prints the stacks it wrote: LEB128 and big-endian integers, empty
# and null strings; the first is read by jfr print too
FORGE="$FK_SRCDIR/tests/oracle/jfr-forge.py"
# (--nested-empty: 200^5 structs of no bytes in every event, which used to
# be read one by one, for hours; timeout only ends such a hang)
for v in "" --fixed --empty-strings --nested-empty; do
	python3 "$FORGE" "$TMP/forged.jfr" $v > "$TMP/want"
	timeout 300 "$FLAMEKIT" collapse "$TMP/forged.jfr" 2> /dev/null | LC_ALL=C sort > "$TMP/got"
	same_file "$TMP/want" "$TMP/got" "forged ${v:-(LEB128)}: the stacks jfr-forge.py wrote"
done
python3 "$FORGE" "$TMP/forged.jfr" > /dev/null
if command -v jfr > /dev/null 2>&1; then
	jfr print --json "$TMP/forged.jfr" | python3 "$ORACLE" jdk.ExecutionSample --thread-root > "$TMP/want"
	collapse "$TMP/forged.jfr" jdk.ExecutionSample --thread-root > "$TMP/got"
	same_file "$TMP/want" "$TMP/got" "forged: --thread-root equals the oracle over jfr print"
fi
is "$(collapse "$TMP/forged.jfr" jdk.ExecutionSample --thread-root | cut -d';' -f1 | sort -u | tr '\n' '|')" \
	"main|worker:1 <&>|" "a thread name's ; becomes :, other bytes stay"

# async-profiler's recordings (tests/data/jfr/async-profiler/, made by its
# record.sh): each chunk printed by jfr print on its own, the oracle told
# which chunks are async-profiler's (those whose jdk.ActiveRecording event
# is named "async-profiler VERSION"), the chunks' stacks summed; every
# event type of its cases, with and without --lines --all and --thread-root
AP="$D/async-profiler"
# ap_print FILE.jfr.gz: each chunk's `jfr print --json` in $TMP/apN.json,
# and $TMP/apN.opt holding --async-profiler for async-profiler's
ap_print() {
	rm -f "$TMP"/ap*.json "$TMP"/ap*.opt
	gzip -dc "$1" > "$TMP/ap.jfr"
	python3 - "$TMP/ap.jfr" "$TMP/ap" << 'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
at = k = 0
while at < len(b):
    size = struct.unpack('>q', b[at + 8:at + 16])[0]
    open('%s%d.chunk.jfr' % (sys.argv[2], k), 'wb').write(b[at:at + size])
    at += size
    k += 1
PY
	for c in "$TMP"/ap*.chunk.jfr; do
		jfr print --json --stack-depth 4096 "$c" > "${c%.chunk.jfr}.json" < /dev/null
		grep -q '"name": "async-profiler' "${c%.chunk.jfr}.json" && echo --async-profiler > "${c%.chunk.jfr}.opt"
		rm -f "$c"
	done
}
# ap_oracle TYPE OPTS...: the oracle's stacks over every chunk, summed;
# "skipped N" in $TMP/want.err when the oracle skipped N events
ap_oracle() {
	: > "$TMP/parts"
	: > "$TMP/skips"
	for j in "$TMP"/ap*.json; do
		# shellcheck disable=SC2046
		python3 "$ORACLE" "$@" $(cat "${j%.json}.opt" 2> /dev/null) < "$j" >> "$TMP/parts" 2>> "$TMP/skips"
	done
	python3 - "$TMP/parts" "$TMP/skips" "$TMP/want.err" << 'PY'
import sys
w = {}
for line in open(sys.argv[1], encoding='utf-8', errors='surrogateescape'):
    k, n = line.rstrip('\n').rsplit(' ', 1)
    w[k] = w.get(k, 0) + int(n)
for k in sorted(w):
    sys.stdout.buffer.write(('%s %d\n' % (k, w[k])).encode('utf-8', 'surrogateescape'))
n = sum(int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith('skipped '))
open(sys.argv[3], 'w').write('skipped %d\n' % n if n else '')
PY
}
if command -v jfr > /dev/null 2>&1; then
	while read -r file aopts types; do
		case $file in '#'* | '') continue ;; esac
		ap_print "$AP/$file"
		for type in $types; do
			for opts in "" "--lines --all" "--thread-root"; do
				# shellcheck disable=SC2086
				ap_oracle "$type" $opts > "$TMP/want"
				# shellcheck disable=SC2086
				collapse "$TMP/ap.jfr" "$type" $opts > "$TMP/got"
				ok "$([ -s "$TMP/want" ]; echo $?)" "async-profiler $file ($aopts): the oracle finds $type stacks"
				same_file "$TMP/want" "$TMP/got" "async-profiler $file: $type $opts"
				n=$(sed -n 's/^skipped //p' "$TMP/want.err")
				is "$(cat "$TMP/c.err")" "${n:+flamekit: warning: [input:jfr] $TMP/ap.jfr: $n $type events without a stack trace (or with no frames) skipped}" \
					"async-profiler $file: $type $opts: the events the oracle skips, counted"
			done
		done
		case $file in
		log.jfr.gz)
			# async-profiler's profiler.Log warnings and errors, counted, the
			# first quoted: why a recording has no samples
			want=$(python3 - "$TMP/ap0.json" << 'PY'
import json, sys
logs = [e['values'] for e in json.load(open(sys.argv[1]))['recording']['events']
        if e['type'] == 'profiler.Log' and e['values']['level'] in ('WARN', 'ERROR')]
print('%d message%s of level WARN or ERROR while profiling; the first: [%s] %s'
      % (len(logs), '' if len(logs) == 1 else 's', logs[0]['level'], logs[0]['message']))
PY
)
			run "$FLAMEKIT" collapse "$TMP/ap.jfr"
			is "$rc:$out:$err" "1::flamekit: warning: [input:jfr] $TMP/ap.jfr: async-profiler logged $want
flamekit: $TMP/ap.jfr: no jdk.ExecutionSample events in this recording (--sample-type names another event type: jfr summary lists them)" \
				"async-profiler log.jfr.gz: its logged warnings reported with the missing samples"
			;;
		wall.jfr.gz)
			# wall-clock samples by thread state (async-profiler's: STATE_DEFAULT,
			# STATE_RUNNABLE, STATE_SLEEPING)
			for st in SLEEPING RUNNABLE,STATE_DEFAULT; do
				ap_oracle profiler.WallClockSample --state "$st" > "$TMP/want"
				collapse "$TMP/ap.jfr" profiler.WallClockSample --state "$st" > "$TMP/got"
				ok "$([ -s "$TMP/want" ]; echo $?)" "async-profiler wall.jfr.gz: the oracle finds --state $st stacks"
				same_file "$TMP/want" "$TMP/got" "async-profiler wall.jfr.gz: --state $st"
			done
			;;
		cstack.jfr.gz)
			# a C/C++ function's library (the class async-profiler gives it) is its
			# module, as Lua filters see it; Java methods have none
			python3 - "$TMP/ap0.json" > "$TMP/want" << 'PY'
import json, sys
mods = {}
for e in json.load(open(sys.argv[1]))['recording']['events']:
    if e['type'] != 'jdk.ExecutionSample' or not e['values'].get('stackTrace'):
        continue
    for fr in e['values']['stackTrace']['frames']:
        m = fr['method']
        lib = ((m.get('type') or {}).get('name') or '') if fr['type'] in ('Native', 'C++', 'Kernel') else ''
        if lib:
            # a name in two libraries keeps the smallest, as the engine's frames do
            n = m['name'].replace(';', ':')
            mods[n] = min(mods.get(n, lib), lib)
for n in sorted(mods):
    print('%s\t%s' % (n, mods[n]))
PY
			printf 'function frame(f) if f.module then print(f.name .. "\\t" .. f.module) end end\n' > "$TMP/m.lua"
			printf 'inputs:\n  - {path: "%s", format: jfr}\nfilters:\n  - {plugin: lua, script: m.lua}\noutputs:\n  - {plugin: folded, path: "-"}\n' \
				"$TMP/ap.jfr" > "$TMP/m.yaml"
			(cd "$TMP" && "$FLAMEKIT" run m.yaml 2>&1 > /dev/null) | sed 's/^flamekit: warning: \[filter:lua\] m.lua: //' |
				LC_ALL=C sort > "$TMP/got"
			LC_ALL=C sort -o "$TMP/want" "$TMP/want"
			ok "$([ -s "$TMP/want" ]; echo $?)" "cstack.jfr.gz has C/C++ frames with a library"
			same_file "$TMP/want" "$TMP/got" "async-profiler: a C/C++ frame's library is its module (f.module), a Java method's none"
			;;
		esac
	done < "$AP/cases"
else
	skip "async-profiler's recordings" "no jfr (openjdk-17-jdk-headless)"
fi

# units: samples, bytes, ns, carried to the speedscope output
for c in jdk.ExecutionSample:none jdk.ObjectAllocationSample:bytes jdk.ThreadPark:nanoseconds; do
	"$FLAMEKIT" graph --output-plugin speedscope --sample-type "${c%%:*}" "$SMALL" > "$TMP/s.json" 2> /dev/null
	is "$(grep -o '"unit":"[a-z]*"' "$TMP/s.json" | sort -u)" "\"unit\":\"${c#*:}\"" \
		"${c%%:*}: the speedscope output's unit is ${c#*:}"
done

# thread names reach the pprof output as labels, states as attributes
if command -v go > /dev/null 2>&1; then
	"$FLAMEKIT" graph --output-plugin pprof -o "$TMP/p.pb.gz" "$SMALL" 2> /dev/null
	go tool pprof -raw "$TMP/p.pb.gz" 2> /dev/null | grep -o 'comm:\[[^]]*\]\|state:\[[^]]*\]' | sort -u > "$TMP/labels"
	python3 - "$SMALL" > "$TMP/want" << 'PY'
import gzip, json, subprocess, sys, tempfile
with tempfile.NamedTemporaryFile(suffix='.jfr') as t:
    t.write(gzip.open(sys.argv[1]).read()); t.flush()
    ev = json.loads(subprocess.run(['jfr', 'print', '--json', '--events', 'jdk.ExecutionSample', t.name],
                                   capture_output=True, check=True).stdout)['recording']['events']
s = set()
for e in ev:
    v = e['values']
    if not v.get('stackTrace'):
        continue
    th = v['sampledThread']
    s.add('comm:[%s]' % (th.get('javaName') or th.get('osName')))
    s.add('state:[%s]' % v['state'])
print('\n'.join(sorted(s)))
PY
	if command -v jfr > /dev/null 2>&1; then
		same_file "$TMP/want" "$TMP/labels" "thread names and states reach pprof labels"
	else
		skip "thread names and states reach pprof labels" "no jfr"
	fi
else
	skip "thread names and states reach pprof labels" "no go tool pprof"
fi

# a job: the jfr input's options, a Lua filter seeing the thread (s.comm)
# and the state (s:label), against the oracle's --thread-root stacks (the
# shipped recording's execution samples are all STATE_RUNNABLE, as jfr
# print shows)
cat > "$TMP/j.lua" << 'EOF'
function sample(s)
  s:insert(1, s.comm .. "/" .. (s:label("state") or "none"))
end
EOF
cat > "$TMP/j.yaml" << EOF
inputs:
  - path: $SMALL
    format: jfr
    options: {sample-type: jdk.ExecutionSample}
filters:
  - plugin: lua
    script: j.lua
outputs:
  - plugin: folded
    path: "-"
EOF
"$FLAMEKIT" run "$TMP/j.yaml" 2> "$TMP/j.err" | LC_ALL=C sort > "$TMP/got"
sed 's|;|/STATE_RUNNABLE;|' "$D/expected/cpu-threads.txt" | LC_ALL=C sort > "$TMP/want"
same_file "$TMP/want" "$TMP/got" "a job: options, and the thread and state in a Lua filter"
is "$(cat "$TMP/j.err")" "" "a job: no message"

# detection: the magic and a version
run "$FLAMEKIT" collapse -v "$SMALL"
is "$(printf '%s\n' "$err" | grep -c 'detected format jfr')" 1 "small.jfr.gz is detected as jfr"

# damaged files: one message naming the file and the byte, exit 1, no output
head -c 30 "$TMP/small.jfr" > "$TMP/t30.jfr"
run "$FLAMEKIT" collapse "$TMP/t30.jfr"
is "$rc:$out:$err" "1::flamekit: $TMP/t30.jfr: at byte 0: truncated: 68 bytes needed, 30 left in the chunk" \
	"30 bytes: truncated header"
size=$(wc -c < "$TMP/small.jfr")
head -c 20000 "$TMP/small.jfr" > "$TMP/t20k.jfr"
run "$FLAMEKIT" collapse "$TMP/t20k.jfr"
is "$rc:$out:$err" "1::flamekit: $TMP/t20k.jfr: at byte 8: the chunk's size $size runs past the file's end (20000 bytes left)" \
	"20000 bytes: the chunk's size runs past the end"
# a forged metadata offset, and a forged version
python3 - "$TMP/small.jfr" "$TMP/meta.jfr" "$TMP/ver.jfr" "$TMP/flip" << 'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
m = bytearray(b); m[24:32] = struct.pack('>q', len(b) + 5); open(sys.argv[2], 'wb').write(m)
v = bytearray(b); v[4:6] = b'\x00\x07'; open(sys.argv[3], 'wb').write(v)
# every 97th byte past the header changed, 20 files
for k in range(20):
    f = bytearray(b)
    for i in range(68 + k * 13, len(f), 97):
        f[i] ^= 0x5a ^ k
    open('%s%d.jfr' % (sys.argv[4], k), 'wb').write(f)
PY
run "$FLAMEKIT" collapse "$TMP/meta.jfr"
is "$rc:$out:$err" "1::flamekit: $TMP/meta.jfr: at byte 24: the metadata offset $((size + 5)) lies outside the chunk" \
	"a metadata offset past the chunk"
run "$FLAMEKIT" collapse --format jfr "$TMP/ver.jfr"
is "$rc:$out:$err" "1::flamekit: $TMP/ver.jfr: at byte 4: JFR version 7.1: only 2.x is read" "version 7"
bad=0
for k in $(seq 0 19); do
	"$FLAMEKIT" collapse --format jfr "$TMP/flip$k.jfr" > /dev/null 2> "$TMP/e"
	r=$?
	# an error names the file and a byte, once; or the damage missed what is read
	if [ $r -gt 1 ] || { [ $r -eq 1 ] && ! grep -q "^flamekit: $TMP/flip$k.jfr: at byte [0-9]*: " "$TMP/e"; } ||
		[ "$(wc -l < "$TMP/e")" -gt 1 ]; then
		bad=$((bad + 1))
		sed 's/^/# /' "$TMP/e"
	fi
done
is "$bad" 0 "20 damaged recordings: one message naming the file and the byte, or none"
run "$FLAMEKIT" collapse --max-input-size 1000 "$TMP/small.jfr"
is "$rc:$out:$err" "1::flamekit: $TMP/small.jfr: the input holds more than --max-input-size allows (1000): refused, as a decompression bomb or an endless stream would be; a larger --max-input-size reads it" \
	"--max-input-size: a recording larger than the limit is refused"
run "$FLAMEKIT" collapse --max-input-size 1000 "$SMALL"
is "$rc:$out" "1:" "--max-input-size: the inflated bytes count"
cat "$TMP/small.jfr" | "$FLAMEKIT" collapse --format jfr - 2> /dev/null | LC_ALL=C sort > "$TMP/got"
same_file "$D/expected/cpu.txt" "$TMP/got" "a recording on stdin"
run "$FLAMEKIT" collapse --sample-type jdk.ThreadSleep "$SMALL"
is "$rc:$err" "1:flamekit: $SMALL: no jdk.ThreadSleep events in this recording (--sample-type names another event type: jfr summary lists them)" \
	"an event type the recording lacks"

# recordings made now, with the JDK's profile settings and with ours
if ! command -v java > /dev/null 2>&1 || ! command -v javac > /dev/null 2>&1 || ! command -v jfr > /dev/null 2>&1; then
	skip_all "recordings made now" "no java, javac and jfr (openjdk-17-jdk-headless)"
fi
if ! javac -d "$TMP" "$D/Busy.java" 2> "$TMP/javac.err"; then
	ok 1 "javac Busy.java: $(cat "$TMP/javac.err")"
	done_testing
	exit
fi
for settings in profile "$D/small.jfc"; do
	rec="$TMP/live.jfr"
	rm -f "$rec"
	(cd "$TMP" && java -XX:StartFlightRecording=filename="$rec",settings="$settings" -cp "$TMP" Busy 2500) \
		> /dev/null 2>&1
	if [ ! -s "$rec" ]; then
		ok 1 "recording with settings=$(basename "$settings") made nothing"
		continue
	fi
	jfr print --json --stack-depth 4096 --events jdk.ExecutionSample,jdk.NativeMethodSample,jdk.ObjectAllocationSample,jdk.ObjectAllocationInNewTLAB,jdk.ObjectAllocationOutsideTLAB,jdk.JavaMonitorEnter,jdk.ThreadPark \
		"$rec" > "$TMP/live.json"
	while read -r name type opts; do
		# shellcheck disable=SC2086
		python3 "$ORACLE" "$type" $opts < "$TMP/live.json" > "$TMP/want" 2> "$TMP/want.err"
		if [ ! -s "$TMP/want" ]; then
			skip "settings=$(basename "$settings"): $type $opts" "no such events recorded"
			continue
		fi
		# shellcheck disable=SC2086
		collapse "$rec" "$type" $opts > "$TMP/got"
		same_file "$TMP/want" "$TMP/got" "settings=$(basename "$settings"): $type $opts"
		n=$(sed -n 's/^skipped //p' "$TMP/want.err")
		is "$(cat "$TMP/c.err")" "${n:+flamekit: warning: [input:jfr] $rec: $n $type events without a stack trace (or with no frames) skipped}" \
			"settings=$(basename "$settings"): $type $opts: the events the oracle skips, counted"
	done < "$D/cases"
done

done_testing
