#!/bin/sh
# Input plugin xctrace: Instruments' `xctrace export` XML of the Time
# Profiler table.  No Debian tool writes it: tests/data/xctrace/*.xml were
# written by hand from the export's public layout (refs, sentinels, several
# threads and processes, Xcode 26's tagged backtraces).  Each collapses to
# what tests/oracle/xctrace.py (python's own XML parser over the same file)
# says, by weight, by samples and with --thread-root; the CPU Profiler's
# table (cycles) too, and a file of two tables; threads reach Lua and
# pprof; the hostile files (hostile-*.xml) fail with their exact error.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/xctrace"
ORACLE="$FK_SRCDIR/tests/oracle/xctrace.py"
. "$FK_SRCDIR/tests/oracle/check.sh"

for f in "$D"/two-processes.xml "$D"/tagged.xml "$D"/cpu-profile.xml "$D"/two-tables.xml; do
	b=$(basename "$f")
	check "$f" "xctrace $b (detected)"
	check "$f" "xctrace $b --sample-type samples" --samples -- --sample-type samples
	check "$f" "xctrace $b --thread-root" --thread-root -- --format xctrace --thread-root
	is "$("$FLAMEKIT" collapse -v "$f" 2>&1 > /dev/null | sed -n 's/.*: detected format //p')" xctrace \
		"xctrace $b is detected as xctrace"
done
# CRLF line endings and gzip: the same stacks and skipped lines (a sentinel
# backtrace, a sentinel weight, a backtrace without frames)
"$FLAMEKIT" collapse "$D/two-processes.xml" > "$TMP/whole" 2> /dev/null
sed 's/$/\r/' "$D/two-processes.xml" > "$TMP/crlf.xml"
gzip -c "$D/two-processes.xml" > "$TMP/in.xml.gz"
for f in "$TMP/crlf.xml" "$TMP/in.xml.gz"; do
	run "$FLAMEKIT" collapse "$f"
	is "$rc:$out:$err" "0:$(cat "$TMP/whole"):flamekit: warning: $f: skipped 3 unreadable lines (lines 12, 14, 17)" \
		"$(basename "$f"): detected, the same stacks and skipped lines"
done

# the names as the file spells them, unescaped; ';' made ':'
run "$FLAMEKIT" collapse "$D/two-processes.xml"
is "$(printf '%s\n' "$out" | grep -c '^main;-\[NSApplication run\];render:paint;operator<<(std::ostream&, char const\*) 2500000$')" 1 \
	"entities in names decoded, ';' in a name made ':'"

# units: ns for the Time Profiler's weights, cycles for the CPU Profiler's
unit() { "$FLAMEKIT" graph --output-plugin pprof -o "$TMP/u.pb.gz" "$@" 2> /dev/null &&
	go tool pprof -raw "$TMP/u.pb.gz" 2> /dev/null | sed -n '/^Samples:/{n;p;q}' | tr -s ' '; }
if command -v go > /dev/null 2>&1; then
	is "$(unit "$D/tagged.xml"):$(unit "$D/cpu-profile.xml"):$(unit --sample-type samples "$D/cpu-profile.xml")" \
		"cpu/nanoseconds:cycles/count:samples/count" "the series' unit: ns (time-profile), cycles (cpu-profile), samples"
fi
# a time-profile and a cpu-profile table in one file: two units
# (the second table's ids moved past the first's: ids are the document's)
{ sed '$d' "$D/tagged.xml"; sed -n '/^<node/,/^<\/node>/p' "$D/cpu-profile.xml" |
	sed -e 's|</node></trace-query-result>|</node>|' -e 's/\(id\|ref\)="\([0-9]*\)"/\1="100\2"/g'
	echo '</trace-query-result>'; } > "$TMP/mixed.xml"
ln=$(grep -n 'schema name="cpu-profile"' "$TMP/mixed.xml" | cut -d: -f1)
run "$FLAMEKIT" collapse "$TMP/mixed.xml"
is "$rc:$out:$err" "1::flamekit: $TMP/mixed.xml:$ln: a cpu-profile table after a time-profile one: their weights are cycles and ns, and flamekit reads one unit per input (--sample-type samples counts the rows of both)" \
	"a time-profile and a cpu-profile table: refused by weight"
run "$FLAMEKIT" collapse --sample-type samples "$TMP/mixed.xml"
is "$rc:$out" "0:$(python3 "$ORACLE" --samples "$TMP/mixed.xml" 2> /dev/null)" "... and counted by samples"

# threads: the thread's fmt as the name, its tid and its process's pid
cat > "$TMP/threads.yaml" << YAML
inputs:
  - path: $D/two-processes.xml
filters:
  - plugin: lua
    script: $FK_SRCDIR/lua/per-thread.lua
outputs:
  - plugin: folded
    path: "-"
YAML
run "$FLAMEKIT" run "$TMP/threads.yaml"
is "$rc:$out" "0:$(python3 "$ORACLE" --per-thread "$D/two-processes.xml" 2> /dev/null)" \
	"per-thread.lua: each thread's name, pid and tid"
# the thread state, as the attribute "state", to a Lua filter
printf 'function sample(s)\n\ts:insert(1, s:label("state") or "none")\nend\n' > "$TMP/state.lua"
cat > "$TMP/state.yaml" << YAML
inputs: [{path: "$D/two-processes.xml"}]
filters: [{plugin: lua, script: "$TMP/state.lua"}]
outputs: [{plugin: folded, path: "-"}]
YAML
run "$FLAMEKIT" run "$TMP/state.yaml"
is "$rc:$out" "0:$(python3 "$ORACLE" --state-root "$D/two-processes.xml" 2> /dev/null)" \
	"a Lua filter reads each row's thread state: s:label(\"state\")"

# the options from a job file
cat > "$TMP/opts.yaml" << YAML
inputs: [{path: "$D/tagged.xml", format: xctrace, options: {sample-type: samples, thread-root: true}}]
outputs: [{plugin: folded, path: "-"}]
YAML
run "$FLAMEKIT" run "$TMP/opts.yaml"
is "$rc:$out" "0:$(python3 "$ORACLE" --samples --thread-root "$D/tagged.xml" 2> /dev/null)" \
	"a job's options: sample-type samples, thread-root"
if command -v go > /dev/null 2>&1; then
	"$FLAMEKIT" graph --output-plugin pprof -o "$TMP/x.pb.gz" "$D/tagged.xml"
	is "$(go tool pprof -traces "$TMP/x.pb.gz" 2> /dev/null | grep -E '^ +(comm|pid|tid|state):' | tr -s ' ' | sort | uniq -c | tr -s ' ')" \
		" 3 comm: Main Thread 0x1 (App, pid: 7)
 2 comm: Worker 0x2 (App, pid: 7)
 5 pid: 7
 5 state: Running
 3 tid: 1
 2 tid: 2" "pprof out: thread name, pid, tid and state as labels (go tool pprof -traces)"
else
	skip "pprof labels" "no go tool pprof"
fi
"$FLAMEKIT" graph --output-plugin html -o "$TMP/x.html" "$D/two-processes.xml" 2> /dev/null
is "$(grep -o '"threads":\[\[[^]]*\]\(,\[[^]]*\]\)*\]' "$TMP/x.html")" \
	'"threads":[[581,42,"Main Thread 0x2a (Safari, pid: 581)"],[581,49,"com.apple.NSURLSession-work 0x31 (Safari, pid: 581)"],[150,153,"Main Thread 0x99 (WindowServer, pid: 150)"]]' \
	"the HTML report's thread menu: each thread's pid, tid and name"
"$FLAMEKIT" graph -o "$TMP/x.svg" "$D/two-processes.xml"
is "$?:$(grep -c '<title>naïve_🔥_draw (4,000,000 samples, 33.33%)</title>' "$TMP/x.svg"):$(grep -c '<title>&lt;script&gt;alert(1)&lt;/script&gt; (3,500,000 samples, 29.17%)</title>' "$TMP/x.svg"):$(grep -c '<script>alert' "$TMP/x.svg")" "0:1:1:0" \
	"graph: an SVG with the frames, names escaped"

# hostile files: the exact error, naming the file and line, exit 1
hostile() {
	run "$FLAMEKIT" collapse "$D/hostile-$1.xml"
	is "$rc:$out:$err" "1::flamekit: $D/hostile-$1.xml:$2" "hostile-$1.xml: $3"
}
hostile unknown-ref '4: <frame ref="77"> refers to no earlier element (an id is defined before any ref to it)' "a ref to an id never given"
hostile forward-ref '3: <frame ref="3"> refers to no earlier element (an id is defined before any ref to it)' "a ref before its id (the only loop a ref can make)"
hostile wrong-kind '4: <backtrace ref="3"> refers to a <frame>, not a <backtrace>' "a ref to an element of another name"
hostile duplicate-id '4: id="2" is given to a second element' "one id twice"
hostile weight '3: <weight> holds "1.00 ms", not a whole number of ns' "a weight that is not a number"
hostile depth '3: not well-formed XML: Excessive depth in document: 256 use XML_PARSE_HUGE option' "elements 300 deep: libxml2's depth limit"
dt='a DOCTYPE declaration: xctrace writes none, and flamekit reads no DTD (its entities could read files or expand without end)'
hostile entities "2: $dt" "a billion laughs: refused at its DOCTYPE, before any entity is declared"
hostile external-entity "3: $dt" "an external DTD and an entity naming /etc/passwd: refused, nothing read"

# bad files written here
bad() { # bad NAME TEXT EXPECTED: TEXT read with --format xctrace fails with EXPECTED after the file name
	printf '%s' "$2" > "$TMP/$1.xml"
	run "$FLAMEKIT" collapse --format xctrace "$TMP/$1.xml"
	is "$rc:$out:$err" "1::flamekit: $TMP/$1.xml:$3" "$1: exit 1, file and line named"
}
H='<?xml version="1.0"?>
<trace-query-result><node><schema name="time-profile"/>
'
HINT="export the Time Profiler's table (xctrace export --xpath '/trace-toc/run[@number=\"1\"]/data/table[@schema=\"time-profile\"]')"
bad schema '<?xml version="1.0"?>
<trace-query-result><node>
<schema name="os-signpost"/><row><event-time>1</event-time></row></node></trace-query-result>
' "3: no time-profile or cpu-profile table (this table's schema is \"os-signpost\"): $HINT"
bad empty '<?xml version="1.0"?>
<trace-query-result>
</trace-query-result>
' "2: the export holds no table (an --xpath that matched none?): $HINT"
bad root '<?xml version="1.0"?>
<trace-toc><run number="1"/></trace-toc>
' "2: the document is a <trace-toc>, not an xctrace export (<trace-query-result>)"
bad noschema '<trace-query-result><node>
<row><weight>1</weight></row></node></trace-query-result>
' "2: a <row> before the table's <schema>"
bad mismatch "$H"'<row><weight>1</weight><backtrace><frame name="a"></backtrace></row>
</node></trace-query-result>
' "3: not well-formed XML: Opening and ending tag mismatch: frame line 3 and backtrace"
bad utf8 "$H$(printf '<row><weight>1</weight><backtrace><frame name="\377\376"/></backtrace></row>')
</node></trace-query-result>
" "3: not well-formed XML: Input is not proper UTF-8, indicate encoding ! Bytes: 0xFF 0xFE 0x22 0x2F"
bad bothids "$H"'<row><weight id="1" ref="1">1</weight></row>
</node></trace-query-result>
' '3: <weight> has both an id and a ref'
bad bigid "$H"'<row><weight id="18446744073709551616">1</weight></row>
</node></trace-query-result>
' '3: id="18446744073709551616" is not a whole number from 1'
bad badid "$H"'<row><weight id="x1">1</weight></row>
</node></trace-query-result>
' '3: id="x1" is not a whole number from 1'
bad undef "$H"'<row><weight>1</weight><backtrace><frame name="&undefined;"/></backtrace></row>
</node></trace-query-result>
' "3: not well-formed XML: Entity 'undefined' not defined"
printf '%s<row><weight>1</weight><backtrace><frame name="a"/>' "$H" > "$TMP/cut.xml"
run "$FLAMEKIT" collapse --format xctrace "$TMP/cut.xml"
is "$rc:$out:$(printf '%s' "$err" | cut -d: -f1-3)" "1::flamekit: $TMP/cut.xml:3" "a file cut short: exit 1, file and line named"
run "$FLAMEKIT" collapse --format xctrace --sample-type cycles "$D/tagged.xml"
is "$rc:$out:$err" '2::flamekit: [input:xctrace] --sample-type takes weight or samples, not "cycles"' "an unknown --sample-type"

# the bytes held are bounded: --max-input-size, and by default a gzip bomb
LIMIT="refused, as a decompression bomb or an endless stream would be; a larger --max-input-size reads it"
run "$FLAMEKIT" collapse --max-input-size 1K "$D/two-processes.xml"
is "$rc:$out:$err" "1::flamekit: $D/two-processes.xml: the input holds more than --max-input-size allows (1K): $LIMIT" \
	"--max-input-size 1K: refused"
{ head -n 5 "$D/tagged.xml"; head -c 100000000 /dev/zero | tr '\0' ' '; } | gzip -c > "$TMP/bomb.xml.gz"
run "$FLAMEKIT" collapse "$TMP/bomb.xml.gz"
is "$rc:$out:$err" "1::flamekit: $TMP/bomb.xml.gz: the input holds more than --max-input-size allows (auto: 8388608 bytes for this file): $LIMIT" \
	"100 MB of blanks gzipped into $(wc -c < "$TMP/bomb.xml.gz") bytes: refused at 8 MiB"

# lines past 65535 (libxml2 keeps an element's line in 16 bits) are named
# exactly; a 100,000-frame stack is read whole; huge ids
python3 - "$TMP" << 'PY'
import sys
t = sys.argv[1]
with open(t + '/long.xml', 'w') as f:
    f.write('<?xml version="1.0"?>\n<trace-query-result><node><schema name="time-profile"/>\n')
    f.write('<row><weight id="1">5</weight><backtrace id="2"><frame id="3" name="main"/></backtrace></row>\n')
    for i in range(70000):
        f.write('<row><weight ref="1"/><backtrace ref="2"/></row>\n')
    f.write('<row><weight ref="1"/><backtrace ref="9"/></row>\n</node></trace-query-result>\n')
with open(t + '/deep.xml', 'w') as f:
    f.write('<?xml version="1.0"?>\n<trace-query-result><node><schema name="time-profile"/>\n')
    f.write('<row><weight>7</weight><backtrace>')
    for i in range(100000, 0, -1):
        f.write('<frame name="f%d"/>' % i)
    f.write('</backtrace></row>\n</node></trace-query-result>\n')
with open(t + '/bigids.xml', 'w') as f:
    # ids far beyond the bytes before them (never xctrace's): the hash table
    f.write('<?xml version="1.0"?>\n<trace-query-result><node><schema name="time-profile"/>\n')
    f.write('<row><weight id="18446744073709551615">3</weight><backtrace id="7"><frame id="9000000000000000000" name="main"/></backtrace></row>\n')
    for i in range(3000):
        f.write('<row><weight ref="18446744073709551615"/><backtrace id="%d"><frame id="%d" name="f%d"/><frame ref="9000000000000000000"/></backtrace></row>\n'
                % (10**15 + 2 * i, 10**15 + 2 * i + 1, i % 50))
        f.write('<row><weight ref="18446744073709551615"/><backtrace ref="%d"/></row>\n' % (10**15 + 2 * i))
    f.write('</node></trace-query-result>\n')
PY
"$FLAMEKIT" collapse "$TMP/bigids.xml" > "$TMP/bigids.out"
is "$?:$(python3 "$ORACLE" "$TMP/bigids.xml" | cmp - "$TMP/bigids.out" && echo same)" "0:same" \
	"6,000 ids of up to 2^64-1, far beyond the bytes before them: the oracle's stacks"
run "$FLAMEKIT" collapse "$TMP/long.xml"
is "$rc:$out:$err" "1::flamekit: $TMP/long.xml:70004: <backtrace ref=\"9\"> refers to no earlier element (an id is defined before any ref to it)" \
	"an error on line 70004 names line 70004"
"$FLAMEKIT" collapse "$TMP/deep.xml" > "$TMP/deep.out"
is "$?:$(python3 "$ORACLE" "$TMP/deep.xml" | cmp - "$TMP/deep.out" && echo same)" "0:same" "a 100,000-frame stack: the oracle's"

done_testing
