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

# --- off-CPU ---
collapse --format perf --offcpu "$D/offcpu.txt"
is "$out" "app;main;wait_here;__schedule 250
app;worker;do_io;__schedule 1250" "offcpu: switch-out to next switch-in, in microseconds"
is "$err" "flamekit: warning: [input:perf] $D/offcpu.txt: 2 switch-outs had no later switch-in of the same thread (still off CPU when the capture ended, or exited); that time is not counted" \
	"offcpu: unmatched switch-outs are dropped and counted"
collapse --format perf --offcpu --tid "$D/offcpu.txt"
is "$out" "app-100/101;main;wait_here;__schedule 250
app-100/102;worker;do_io;__schedule 1250" "offcpu --tid"

if [ -f "$DATA/waits-off.perf.txt.gz" ] && [ -n "$PYTHON3" ]; then
	gzip -dc "$DATA/waits-off.perf.txt.gz" > "$TMP/woff.txt"
	# Independent expectation: per TID, the sum over switch-outs of the time
	# to the next switch-in; a second switch-out first replaces the pending one.
	"$PYTHON3" - "$TMP/woff.txt" > "$TMP/expected" <<'PY'
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
	collapse --format perf --offcpu --tid "$TMP/woff.txt"
	echo "$out" | awk '{ split($1, a, ";"); n = split(a[1], b, "/"); s[b[n]] += $NF }
		END { for (k in s) print k, s[k] }' | sort -n > "$TMP/actual"
	same_file "$TMP/expected" "$TMP/actual" "offcpu: per-thread totals of waits-off equal the timestamps'"
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

# --- bad input ---
collapse "$D/truncated.txt"
is "$rc:$out${NL}$err" "0:prog;leaf 1
flamekit: warning: $D/truncated.txt: skipped 1 unreadable line (line 3)" "truncated input: the cut line is skipped and counted"

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
is "$rc:$err" "1:flamekit: $TMP/perf.data: this is a perf.data file, not perf script text; convert it with \`perf script -i FILE\`" \
	"perf.data file: told to run perf script"
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

# options are declared for job files and --help
run "$FLAMEKIT" plugins --help perf
for o in pid tid kernel jit all addrs event-filter offcpu; do
	case "$out" in *"--$o "*|*"--$o="*) ok 0 "plugins --help perf lists --$o" ;;
	*) ok 1 "plugins --help perf lists --$o" ;; esac
done
done_testing
