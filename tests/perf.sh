#!/bin/sh
# The perf plugin on its own fixtures (tests/data/perf) and on generated bad
# input: exact folded output, exact messages, exit statuses; --offcpu totals
# checked against an independent computation over the real capture; output
# identical whatever the thread count.
. "$FK_SRCDIR/tests/lib.sh"

D=$FK_SRCDIR/tests/data/perf
DATA=${FK_CONFORMANCE%/*}/data
NL='
'

# collapse ARGS...: sets $out, $err, $rc
collapse() { run "$FLAMEKIT" collapse "$@"; }

# --- names, comm with spaces, indented header, missing final blank line ---
collapse "$D/names.txt"
is "$out" "V8_WorkerThread;start_thread;std::unique_ptr<Foo>::operator->;(anonymous namespace)::Worker::Run;v8::internal::Heap::Scavenge 250000
main;[unknown];say hello:fn;net/http.(*Client).Do;inlined_leaf;outer_caller_[i] 500000
main;main;[libfoo.so] 250000
perf;__libc_start_main;native_safe_halt 250000" \
	"names: tidying, (anonymous namespace), operator->, Go method, inline, indented header, last record kept"
is "$rc:$err" "0:" "names: exit 0, nothing on stderr"
collapse --format perf --tid --all --addrs "$D/names.txt"
is "$out" "V8_WorkerThread-25607/25610;start_thread;std::unique_ptr<Foo>::operator->;(anonymous namespace)::Worker::Run;v8::internal::Heap::Scavenge 250000
main-42/43;[unknown <0>];say hello:fn;net/http.(*Client).Do;inlined_leaf;outer_caller_[i] 500000
main-42/44;main;[libfoo.so <7f0000006000>] 250000
perf-1234/1234;__libc_start_main;native_safe_halt_[k] 250000" "names: --tid --all --addrs"
collapse --format perf --pid "$D/names.txt"
is "$(echo "$out" | cut -d';' -f1 | tr '\n' ' ')" "V8_WorkerThread-25607 main-42 main-42 perf-1234 " "names: --pid"

# --- CRLF and gzip give the same bytes ---
collapse "$D/names.txt"
want=$out
sed 's/$/\r/' "$D/names.txt" > "$TMP/crlf.txt"
collapse "$TMP/crlf.txt"
is "$rc:$out" "0:$want" "CRLF line ends"
gzip -9 -c "$D/names.txt" > "$TMP/names.txt.gz"
collapse "$TMP/names.txt.gz"
is "$rc:$out" "0:$want" ".gz input, auto-detected"

# --- event filter ---
collapse "$D/events.txt"
is "$out" "prog;a 200" "events: the first event type is kept"
is "$err" "flamekit: warning: [input:perf] $D/events.txt: kept only \"instructions\" events (the first event type in the input); dropped 2 records of other events, the first being \"cycles\" (choose with --event-filter NAME)" \
	"events: the note names the kept and the dropped event"
collapse --format perf --event-filter cycles "$D/events.txt"
is "$out${NL}$err" "prog;b 50
prog;c 70
flamekit: warning: [input:perf] $D/events.txt: kept only \"cycles\" events (--event-filter); dropped 2 records of other events, the first being \"instructions\" (choose with --event-filter NAME)" \
	"events: --event-filter cycles"
collapse --format perf --event-filter nosuch "$D/events.txt"
is "$rc:$out" "0:" "events: --event-filter with an absent event keeps nothing"
is "$err" "flamekit: warning: [input:perf] $D/events.txt: --event-filter \"nosuch\" matches none of its 4 records, whose events are \"instructions\" (2 records), \"cycles\" (2 records)" \
	"events: an absent --event-filter event is named, with the events present and their records"
run "$FLAMEKIT" graph --format perf --event-filter nosuch "$D/events.txt"
is "$rc:$out:$err" "1::flamekit: warning: [input:perf] $D/events.txt: --event-filter \"nosuch\" matches none of its 4 records, whose events are \"instructions\" (2 records), \"cycles\" (2 records)
flamekit: [output:svg] no stack counts found" "events: graph with an absent event: the warning, then no graph and exit 1, as for no samples"
# seven events, the most records first (ties in input order), the rest counted
: > "$TMP/seven.txt"
for e in e1 e2 e2 e3 e3 e3 e4 e5 e6 e7 e7 e7; do
	printf 'prog 7 [000] 1.000001:        1 %s: \n\t          400100 a+0x1 (/bin/prog)\n\n' "$e" >> "$TMP/seven.txt"
done
want="flamekit: warning: [input:perf] $TMP/seven.txt: --event-filter \"cycles\" matches none of its 12 records, whose events are \"e3\" (3 records), \"e7\" (3 records), \"e2\" (2 records), \"e1\" (1 record), \"e4\" (1 record) and 2 other events"
for t in 1 3; do
	for chunk in 0 30; do
		FLAMEKIT_CHUNK_BYTES=$chunk run "$FLAMEKIT" collapse --threads $t --format perf --event-filter cycles "$TMP/seven.txt"
		is "$rc:$out:$err" "0::$want" "events: seven absent ones, --threads $t, chunks of $chunk bytes"
	done
done
# past 16 events only names, the first 16 in input order, whatever the cut
: > "$TMP/many.txt"
i=0
while [ $i -lt 20 ]; do
	i=$((i + 1))
	printf 'prog 7 [000] 1.000001:        1 ev%02d: \n\t          400100 a+0x1 (/bin/prog)\n\n' $i >> "$TMP/many.txt"
done
want="flamekit: warning: [input:perf] $TMP/many.txt: --event-filter \"cycles\" matches none of its 20 records, whose events are \"ev01\", \"ev02\", \"ev03\", \"ev04\", \"ev05\", ... (more than 16 events)"
for t in 1 3; do
	for chunk in 0 30 200; do
		FLAMEKIT_CHUNK_BYTES=$chunk run "$FLAMEKIT" collapse --threads $t --format perf --event-filter cycles "$TMP/many.txt"
		is "$rc:$out:$err" "0::$want" "events: twenty absent ones, --threads $t, chunks of $chunk bytes"
	done
done

# The first event type decides for ranges that start mid-file: read from
# the file's start, or, when its first 16 MiB hold no record, by parsing the
# file on one thread.  Here 17 MB of comments, then one "first" record and
# many "second" ones: workers cutting the records into ranges must not keep
# "second".
{
	yes '# a comment line of padding' | head -n 610000
	printf 'prog 7 [000] 1.000001:        1 first: \n\t          400100 a+0x1 (/bin/prog)\n\n'
	i=0
	while [ $i -lt 200 ]; do
		printf 'prog 7 [000] 1.000002:        1 second: \n\t          400200 b+0x1 (/bin/prog)\n\n'
		i=$((i + 1))
	done
} > "$TMP/late.txt"
for t in 1 2; do
	FLAMEKIT_CHUNK_BYTES=512 run "$FLAMEKIT" collapse --threads $t --format perf "$TMP/late.txt"
	is "$rc:$out:$err" "0:prog;a 1:flamekit: warning: [input:perf] $TMP/late.txt: kept only \"first\" events (the first event type in the input); dropped 200 records of other events, the first being \"second\" (choose with --event-filter NAME)" \
		"events: the first record after 17 MB of comments decides, --threads $t"
done
rm -f "$TMP/late.txt"

# --- off-CPU ---
collapse --format perf --offcpu "$D/offcpu.txt"
is "$out" "app;main;wait_here;__schedule 250
app;worker;do_io;__schedule 1250" "offcpu: switch-out to next switch-in, in microseconds"
is "$err" "flamekit: warning: [input:perf] $D/offcpu.txt: 2 switch-outs had no later switch-in of the same thread (still off CPU when the capture ended, or exited); that time is not counted" \
	"offcpu: unmatched switch-outs are dropped and counted"
collapse --format perf --offcpu --tid "$D/offcpu.txt"
is "$out" "app-100/101;main;wait_here;__schedule 250
app-100/102;worker;do_io;__schedule 1250" "offcpu --tid"

# offcpu_totals FILE NAME: the per-thread totals `collapse --offcpu --tid` gives
# for the capture FILE (left in $out and $err) against an independent
# expectation: per TID, the sum over switch-outs of the time to the next
# switch-in; a second switch-out first replaces the pending one.
offcpu_totals() {
	"$PYTHON3" - "$1" > "$TMP/expected" <<'PY'
import re, sys
pend, tot = {}, {}
for l in open(sys.argv[1]):
    if l[:1] in ' \t\n' or 'sched:sched_switch:' not in l:
        continue
    m = re.search(r'\s(\d+)\.(\d{6}):\s', l)
    t = int(m.group(1)) * 1000000 + int(m.group(2))
    p = int(re.search(r'prev_pid=(\d+)', l).group(1))
    n = int(re.search(r'next_pid=(\d+)', l).group(1))
    if n in pend:
        tot[n] = tot.get(n, 0) + t - pend.pop(n)
    if p > 0:
        pend[p] = t
for k in sorted(tot):
    print(k, tot[k])
PY
	collapse --format perf --offcpu --tid "$1"
	echo "$out" | awk '{ split($1, a, ";"); n = split(a[1], b, "/"); s[b[n]] += $NF }
		END { for (k in s) print k, s[k] }' | sort -n > "$TMP/actual"
	same_file "$TMP/expected" "$TMP/actual" "$2"
}

if [ -f "$DATA/waits-off.perf.txt.gz" ] && [ -n "$PYTHON3" ]; then
	gzip -dc "$DATA/waits-off.perf.txt.gz" > "$TMP/woff.txt"
	offcpu_totals "$TMP/woff.txt" "offcpu: per-thread totals of waits-off equal the timestamps'"
	for w in "sleeper;clock_nanosleep" "reader;read" "locker;__GI___lll_lock_wait" \
		"locker;hold_lock" "writer;fsync" "sync_write"; do
		echo "$out" | grep -q "start_thread;.*$w" 
		ok $? "offcpu: waits-off shows a $w blocking stack"
	done
	FLAMEKIT_CHUNK_BYTES=4096 run "$FLAMEKIT" collapse --format perf --offcpu --threads 4 "$TMP/woff.txt"
	collapse --format perf --offcpu "$TMP/woff.txt"
	want=$out
	FLAMEKIT_CHUNK_BYTES=4096 run "$FLAMEKIT" collapse --format perf --offcpu --threads 4 "$TMP/woff.txt"
	is "$out" "$want" "offcpu: small chunks and --threads 4 change nothing"
else
	skip "offcpu on the waits-off capture" "no $DATA/waits-off.perf.txt.gz or python3"
fi
# A wait whose switch-out and switch-in fall in two chunks is charged when
# the chunks are joined; the buffer that push grew leaked (fuzz-perf with
# FK_FUZZ_OPTS=offcpu, two threads and 97-byte chunks; the ASan suite sees it).
cat > "$TMP/span.txt" <<'EOF'
app 100/102 [000] 10.000000: sched:sched_switch: prev_comm=app prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
	ffffffff82265ec8 __schedule+0x628 ([kernel.kallsyms])
	            5000 do_io+0x1 (/app)
	            4000 worker+0x1 (/app)

swapper 0/0 [000] 10.001500: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=102 next_prio=120
	ffffffff82265ec8 __schedule+0x628 ([kernel.kallsyms])

EOF
FLAMEKIT_CHUNK_BYTES=97 run "$FLAMEKIT" collapse --format perf --offcpu --threads 2 "$TMP/span.txt"
is "$rc:$out:$err" "0:app;worker;do_io;__schedule 1500:" "offcpu: a wait across two chunks, charged when they are joined"

# --- off-CPU: the header of a thread perf can no longer name ---
# exiting.txt: `perf record -a -e sched:sched_switch -g` of exiting.c, cut
# to the records naming it.  Exiting threads switch out for the last time
# in records headed ":-1    -1 [001] ...", whose switch-ins still count.
if [ -n "$PYTHON3" ]; then
	offcpu_totals "$D/exiting.txt" "offcpu: per-thread totals with ':-1 -1' headers equal the timestamps'"
	is "$(grep -c '^:-1 ' "$D/exiting.txt"):$(echo "$err" | grep -c unreadable)" "3:0" \
		"offcpu: the three ':-1 -1' headers are read, no line is unreadable"
else
	skip "offcpu on exiting.txt" "no python3"
fi
# Plain collapse is stackcollapse-perf.pl's output byte for byte.  The
# .folded files are FlameGraph 41fee1f's script run on the fixture beside
# them (system-wide.txt: `perf record -a -g` of exiting.c and of spin.c run
# as ./a and ./w, cut to the records of those programs, of sh and of the
# three ':-1 -1' samples; onechar.txt: `perf record -g ./w`).  The
# script cannot read a tracepoint's ':-1 -1' header (a skipped line, its
# record dropped) and reads a sample's with the comm running on to the
# period; the one-character comms were given a second character for the
# script and had it removed after (STANDARDS in flamekit-formats(5)).
collapse --format perf "$D/exiting.txt"
printf '%s\n' "$out" > "$TMP/exiting.folded"
same_file "$D/exiting.folded" "$TMP/exiting.folded" "':-1 -1' tracepoint records: plain collapse is stackcollapse-perf.pl's"
is "$rc:$err" "0:flamekit: warning: $D/exiting.txt: skipped 3 unreadable lines (lines 229, 306, 376)" \
	"':-1 -1' tracepoint records: exit 0, their headers counted as skipped lines"
for o in "" -tid; do
	collapse --format perf ${o:+-$o} "$D/system-wide.txt"
	printf '%s\n' "$out" > "$TMP/sw.folded"
	same_file "$D/system-wide$o.folded" "$TMP/sw.folded" "system-wide capture${o:+ -$o}: stackcollapse-perf.pl's stacks (':-1 -1' samples, comms 'a' and 'w')"
done
is "$rc:$err" "0:" "system-wide capture: exit 0, no warning"

# --- a comm of one character ---
collapse --format perf "$D/onechar.txt"
printf '%s\n' "$out" > "$TMP/onechar.folded"
same_file "$D/onechar.folded" "$TMP/onechar.folded" "comm 'w': the stacks of the same capture named 'ww', but for the name"
want=$(sed 's/^w /ww /' "$D/onechar.txt" | "$FLAMEKIT" collapse --format perf --tid | sed 's/^ww-/w-/')
collapse --format perf --tid "$D/onechar.txt"
is "$rc:$out" "0:$want" "comm 'w', --tid: as the capture renamed 'ww', but for the name"
printf 'V 8 Worker 25607 [000] 94564.109216: 100 cycles:\n\t4005d0 work+0x10 (/app)\n\nx 12 [001] 94564.109300: 7 cycles:\n\t4005d0 work+0x10 (/app)\n' > "$TMP/one.txt"
collapse --format perf "$TMP/one.txt"
is "$rc:$out" "0:V_8_Worker;work 100
x;work 7" "comm 'V 8 Worker' stays whole (a number after it, not a time); comm 'x' is one character"

# --- modules: f.module and s:module(i) in Lua filters ---
# lua SCRIPT-TEXT OUTPUT-PLUGIN [SCRIPT]: a job on names.txt with a lua filter
lua() {
	printf '%s\n' "$1" > "$TMP/e.lua"
	printf 'inputs:\n  - {path: "%s", format: perf}\nfilters:\n  - {plugin: lua, script: "%s"}\noutputs:\n  - {plugin: %s, path: "-"}\n' \
		"$D/names.txt" "${3:-e.lua}" "$2" > "$TMP/e.yaml"
	cd "$TMP" && run "$FLAMEKIT" run e.yaml
	cd - > /dev/null
}
lua 'function frame(f) print(f.name, f.module) end' folded
is "$(echo "$err" | sed 's/^flamekit: warning: \[filter:lua\] e.lua: //' | LC_ALL=C sort)" "(anonymous namespace)::Worker::Run	libv8.so
V8_WorkerThread	nil
[libfoo.so]	libfoo.so
[unknown]	nil
__libc_start_main	libc.so.6
inlined_leaf	main
main	main
native_safe_halt	[kernel.kallsyms]
net/http.(*Client).Do	main
outer_caller	main
perf	nil
say hello:fn	main
start_thread	libc.so.6
std::unique_ptr<Foo>::operator->	libv8.so
v8::internal::Heap::Scavenge	libv8.so" "f.module: a path's base name, [kernel.kallsyms] as it is, nil for [unknown] and comm frames"
lua 'function sample(s) local m = {} for i = 1, #s do m[i] = tostring(s:module(i)) end print(table.concat(m, " ")) end' folded
is "$(echo "$err" | sed 's/^flamekit: warning: \[filter:lua\] e.lua: //')" "nil libc.so.6 libv8.so libv8.so libv8.so
nil libc.so.6 [kernel.kallsyms]
nil nil main main main main
nil nil main main main main
main main libfoo.so" "s:module(i) on every frame of every sample (a module belongs to a frame name, so the comm frame main takes the function main's from its first sight on)"
lua '' svg "$FK_SRCDIR/lua/colour-module.lua"
for want in "start_thread:#b07aa1" "native_safe_halt:#e8743b" "v8::internal::Heap::Scavenge:#ff9da7" "outer_caller:#4e79a7"; do
	f=${want%%:#*} c=${want##*:}
	echo "$out" | grep -q "<title>$f (.*</title><rect[^>]*fill=\"$c\""
	ok $? "colour-module.lua colours perf frame $f by its module ($c)"
done

# A frame name in two modules keeps the smallest module, whatever the
# order of records, chunks and threads.
{
	for m in libb libb libb liba libb; do
		printf 'prog 7 [000] 1.000001: 1 cycles: \n\t  400100 dup+0x1 (/lib/%s.so)\n\t  400200 main+0x2 (/bin/prog)\n\n' $m
	done
} > "$TMP/dup.txt"
for t in 1 2; do
	printf 'function frame(f) print(f.name, f.module) end\n' > "$TMP/e.lua"
	printf 'threads: %s\ninputs:\n  - {path: "%s", format: perf}\nfilters:\n  - {plugin: lua, script: e.lua}\noutputs:\n  - {plugin: folded, path: "-"}\n' \
		$t "$TMP/dup.txt" > "$TMP/e.yaml"
	cd "$TMP" && FLAMEKIT_CHUNK_BYTES=64 run "$FLAMEKIT" run e.yaml
	cd - > /dev/null
	is "$(echo "$err" | grep dup | sed 's/^.*e.lua: //')" "dup	liba.so" "a frame in two modules keeps the smallest module (threads: $t)"
done

# --- detection: a real capture with a blank line in a stack and an odd line ---
if [ -f "$DATA/stairs.perf.txt.gz" ]; then
	gzip -dc "$DATA/stairs.perf.txt.gz" | head -200 |
		awk 'NR == 9 { print "" } NR == 40 { print "some odd line" } { print }' > "$TMP/odd.txt"
	run "$FLAMEKIT" collapse -v "$TMP/odd.txt"
	echo "$err" | grep -q "detected format perf"
	ok $? "probe: a capture with an empty line inside a stack and one odd line is perf"
else
	skip "probe on a capture" "no $DATA"
fi

# --- threads: identical output on a bigger input ---
if [ -d "$DATA" ]; then
	for f in "$DATA"/*.perf.txt.gz; do gzip -dc "$f"; done > "$TMP/big.txt"
	# vary the comm so there are many distinct stacks
	awk '/^[^ \t#]/ { $1 = $1 "-" (NR % 37) } { print }' "$TMP/big.txt" > "$TMP/big2.txt"
	collapse --threads 1 "$TMP/big2.txt"
	one=$(printf '%s' "$out" | cksum)
	lines=$(printf '%s\n' "$out" | wc -l)
	for t in 2 4; do
		FLAMEKIT_CHUNK_BYTES=65536 run "$FLAMEKIT" collapse --threads $t "$TMP/big2.txt"
		is "$(printf '%s' "$out" | cksum)" "$one" "--threads $t with 64 KiB chunks: same $lines lines as --threads 1"
	done
else
	skip "threads on the captures" "no $DATA"
fi
cat "$D/names.txt" "$D/names.txt" > "$TMP/n2.txt"
for t in 1 2 3; do
	FLAMEKIT_CHUNK_BYTES=16 run "$FLAMEKIT" collapse --format perf --threads $t "$TMP/n2.txt"
	is "$out" "V8_WorkerThread;start_thread;std::unique_ptr<Foo>::operator->;(anonymous namespace)::Worker::Run;v8::internal::Heap::Scavenge 500000
main;[unknown];say hello:fn;net/http.(*Client).Do;inlined_leaf;outer_caller_[i] 1000000
main;main;[libfoo.so] 500000
perf;__libc_start_main;native_safe_halt 500000" "--threads $t, 16-byte chunks: a header without a blank line before it still starts a record"
done

# Bodies taken whole (host->input_peek) and bodies read line by line give
# the same stacks, skipped-line numbers and errors: records that can be
# taken whole between ones that cannot (a comment, CRLF ends, a header
# without a blank line before it, a body at the end of the input without
# one), read from a file (one buffer), from a pipe (buffer ends anywhere)
# and in 16-byte chunks (nothing whole).
{
	printf 'pa 1 [000] 1.000000: 1 cycles: \n\t 10 f1+0x1 (/bin/a)\n\t 20 main+0x2 (/bin/a)\n\n'
	printf 'pa 1 [000] 1.100000: 1 cycles: \n\t 10 f1+0x1 (/bin/a)\n# a comment\n\t 20 main+0x2 (/bin/a)\n\n'
	printf 'pa 1 [000] 1.200000: 1 cycles: \n\t 10 f1+0x1 (/bin/a)\n\tnot a frame\n\t 20 main+0x2 (/bin/a)\n\n'
	printf 'pb 2 [000] 1.300000: 1 cycles: \r\n\t 30 f2+0x1 (/bin/b)\r\n\r\n'
	printf 'pa 1 [000] 1.400000: 1 cycles: \n\t 10 f1+0x1 (/bin/a)\n\t 20 main+0x2 (/bin/a)\n'
	printf 'pb 2 [000] 1.500000: 1 cycles: \n\t 30 f2+0x1 (/bin/b)\n\n\n'
	printf 'pc 3 [000] 1.600000: 1 cycles: \n\n'
	printf 'pa 1 [000] 1.700000: 1 cycles: \n\t 10 f1+0x1 (/bin/a)\n\tnot a frame either\n\n'
	printf 'pb 2 [000] 1.800000: 1 cycles: \n\t 30 f2+0x1 (/bin/b)'
} > "$TMP/whole.txt"
want_out="pa;f1 1
pa;main;f1 4
pb;f2 3
pc 1"
want_err="flamekit: warning: $TMP/whole.txt: skipped 2 unreadable lines (lines 12, 29)"
collapse --format perf "$TMP/whole.txt"
is "$rc:$out${NL}$err" "0:$want_out${NL}$want_err" "bodies taken whole beside bodies read by line: stacks and skipped lines"
run sh -c "cat '$TMP/whole.txt' | '$FLAMEKIT' collapse --format perf -"
is "$rc:$out${NL}$err" "0:$want_out${NL}flamekit: warning: <stdin>: skipped 2 unreadable lines (lines 12, 29)" \
	"the same through a pipe"
FLAMEKIT_CHUNK_BYTES=16 run "$FLAMEKIT" collapse --format perf --threads 2 "$TMP/whole.txt"
is "$rc:$out${NL}$err" "0:$want_out${NL}$want_err" "the same in 16-byte chunks, read line by line"
# a NUL in the body of a record of an event not kept: still an error, at its line
{ cat "$TMP/whole.txt"; printf '\n\npz 9 [000] 2.000000: 1 other: \n\t 40 g+0x1 (/bin/z)\n\t 50 h\0+0x1 (/bin/z)\n\n'; } > "$TMP/whole-nul.txt"
collapse --format perf "$TMP/whole-nul.txt"
is "$rc:$err" "1:flamekit: $TMP/whole-nul.txt:36: binary data (a NUL byte) in perf script text; give the text that \`perf script\` prints, not a perf.data file" \
	"a NUL in a dropped record's body after bodies taken whole: FILE:LINE"

# --- bad input ---
collapse "$D/truncated.txt"
is "$rc:$out${NL}$err" "0:prog;leaf 1
flamekit: warning: $D/truncated.txt: skipped 1 unreadable line (line 3)" "truncated input: the cut line is skipped and counted"

# skipped lines keep their whole-file numbers across chunks and threads
{ cat "$D/names.txt"; printf 'odd one\n\n'; cat "$D/names.txt"; printf 'main 1/1 [000] 2.000000: 1 cpu-clock:ppp: \n\t  400100 leaf+0x1 (/bin/prog)\n\tnot a frame\n\n'; } > "$TMP/skips.txt"
for t in 1 3; do
	FLAMEKIT_CHUNK_BYTES=64 run "$FLAMEKIT" collapse --format perf --threads $t "$TMP/skips.txt"
	is "$rc:$err" "0:flamekit: warning: $TMP/skips.txt: skipped 2 unreadable lines (lines 30, 63)" \
		"--threads $t, 64-byte chunks: skipped lines are counted with their line numbers"
done

: > "$TMP/empty.txt"
collapse --format perf "$TMP/empty.txt"
is "$rc:$out:$err" "0::" "empty input with --format perf: no stacks, exit 0"

printf 'prog 7 [000] 1.000001: 1 cycles: \n\t  400100 leaf+0x1 (/bin/prog)\n\001\002\000\377garbage\n' > "$TMP/nul.txt"
collapse --format perf "$TMP/nul.txt"
is "$rc:$err" "1:flamekit: $TMP/nul.txt:3: binary data (a NUL byte) in perf script text; give the text that \`perf script\` prints, not a perf.data file" \
	"binary garbage: FILE:LINE error, exit 1"
FLAMEKIT_CHUNK_BYTES=16 run "$FLAMEKIT" collapse --format perf --threads 2 "$TMP/nul.txt"
is "$rc:$err" "1:flamekit: $TMP/nul.txt:3: binary data (a NUL byte) in perf script text; give the text that \`perf script\` prints, not a perf.data file" \
	"binary garbage, threaded: the same line number"
head -c 4096 /dev/zero | tr '\0' 'x' > "$TMP/x"
printf 'PERFILE2\001\000\000\000' > "$TMP/perf.data"
collapse --format perf "$TMP/perf.data"
is "$rc:$err" "1:flamekit: $TMP/perf.data: this is a perf.data file, not perf script text; read it with --format perf-data (or no --format), or convert it with \`perf script -i FILE\`" \
	"perf.data file given as perf text: told of perf-data and of perf script"
printf 'hello world\nthis is not perf\n' > "$TMP/text.txt"
collapse --format perf "$TMP/text.txt"
is "$rc:$out${NL}$err" "0:
flamekit: warning: $TMP/text.txt: skipped 2 unreadable lines (lines 1, 2)" "plain text: lines skipped and counted"

# a 300,000-byte frame name
awk 'BEGIN { printf "prog 7 [000] 1.000001: 1 cycles: \n\t  400100 "; for (i = 0; i < 30000; i++) printf "abcdefghij"; printf " (/bin/prog)\n\n" }' > "$TMP/huge.txt"
collapse --format perf "$TMP/huge.txt"
is "$rc:${#out}:$(echo "$out" | cut -c1-15)" "0:300007:prog;abcdefghij" "a 300,000-byte frame name"

# a 100,000-frame stack, split over many chunks and threads
awk 'BEGIN { print "deep 7 [000] 1.000001: 3 cycles: "; for (i = 100000; i >= 1; i--) printf "\t  %x f%d+0x1 (/bin/deep)\n", i, i; print "" }' > "$TMP/deep.txt"
awk 'BEGIN { printf "deep"; for (i = 1; i <= 100000; i++) printf ";f%d", i; print " 3" }' > "$TMP/deep.expected"
collapse --format perf "$TMP/deep.txt"
printf '%s\n' "$out" > "$TMP/deep.out"
same_file "$TMP/deep.expected" "$TMP/deep.out" "a 100,000-frame stack"
FLAMEKIT_CHUNK_BYTES=1024 run "$FLAMEKIT" collapse --format perf --threads 2 "$TMP/deep.txt"
printf '%s\n' "$out" > "$TMP/deep.out"
same_file "$TMP/deep.expected" "$TMP/deep.out" "a 100,000-frame stack, larger than a 1 KiB chunk, 2 threads"

# the Quick start capture: the five busy stacks are there, heaviest first
collapse "$FK_SRCDIR/examples/profiles/demo.perf.txt.gz"
is "$(echo "$out" | sort -t' ' -k2 -rn | head -5 | cut -d' ' -f1)" "demo;__libc_start_call_main;main;compress;hash_block
demo;start_thread;renderer;render_frame;draw_shapes
demo;start_thread;parser;parse_input;classify
demo;start_thread;parser;parse_input;tokenize
demo;start_thread;renderer;render_frame;blend" "examples/profiles/demo.perf.txt.gz folds to its five busy stacks"

# --kernel and --jit by module: stackcollapse-perf.pl's rules (/^\[/,
# /vmlinux$/, /tmp/perf-PID.map), plus what they miss of the same kernel and
# JIT (inferno's collapse-perf annotates them): a versioned debug vmlinux, a
# module's .ko file, and perf inject --jit's jitted-PID-N.so.  Expected by
# the rules, frame by frame: libvmlinux-helper.so, jitted-4242-1.txt and
# [unknown] are neither.
collapse --all "$D/modules.txt"
is "$rc:$err:$out" "0::app;main;[unknown];not_jit;Ljava/lang/Thread:::run_[j];fib.smx::fib_[j] 250000
app;main;helper;entry_SYSCALL_64_[k];do_idle_[k];mlx5e_napi_poll_[k];net_rx_action_[k] 250000" \
	"--all: a versioned vmlinux and a .ko are kernel, a jitted-PID-N.so is JIT, as [kernel.kallsyms] and perf-PID.map"
collapse --kernel "$D/modules.txt"
is "$(echo "$out" | grep -c '_\[j\]'):$(echo "$out" | grep -o '_\[k\]' | wc -l)" "0:4" "--kernel alone: the four kernel frames, no JIT mark"

# perf script without -g: each header line ends with its sample's one
# frame and the next header follows at once, padded by the comm (as
# inferno's collapse-perf reads it; stackcollapse-perf.pl drops them all).
# The oracle: awk over the lines, COMM;SYM (its +offset cut) summing the
# period; --kernel marks the [kernel.kallsyms] frames.
awk '{ f = $(NF - 1); sub(/\+0x[0-9a-f]+$/, "", f); if ($NF == "([kernel.kallsyms])") f = f "_[k]"
	w[$1 ";" f] += $4 } END { for (k in w) print k, w[k] }' "$D/no-callchain.txt" | LC_ALL=C sort > "$TMP/nocc.expected"
collapse --kernel "$D/no-callchain.txt"
printf '%s\n' "$out" > "$TMP/nocc.out"
same_file "$TMP/nocc.expected" "$TMP/nocc.out" "perf script without -g: one frame a sample, from its header line (awk)"
is "$rc:$err" "0:" "perf script without -g: nothing skipped"
collapse --kernel --threads 2 "$D/no-callchain.txt"
printf '%s\n' "$out" > "$TMP/nocc.out"
same_file "$TMP/nocc.expected" "$TMP/nocc.out" "perf script without -g, 2 threads: the same"

# options are declared for job files and --help
run "$FLAMEKIT" plugins --help perf
for o in pid tid kernel jit all addrs event-filter offcpu; do
	case "$out" in *"--$o "*|*"--$o="*) ok 0 "plugins --help perf lists --$o" ;;
	*) ok 1 "plugins --help perf lists --$o" ;; esac
done
done_testing
