#!/bin/sh
# The perf plugin's pairing modes (issue 17): --wakeups (chain graphs) and
# --leak (memory growth).  Exact folded output on real captures, each total
# checked against an independent awk computation over the same perf script
# text; hostile records with their exact warnings; the same bytes whatever
# the thread count and chunk size; perf-data's command line and, where perf
# can record, its result against the perf script pipeline.
#
# The fixtures (tests/data/perf), recorded as root:
#   wakeups.txt    cc -O0 -g -pthread -fno-omit-frame-pointer -o pipepair pipepair.c
#                  perf record -a -g -e sched:sched_switch -e sched:sched_wakeup ./pipepair
#                  perf script | awk 'BEGIN { RS = ""; ORS = "\n\n" }
#                                     { split($0, l, "\n") } l[1] ~ /reader/'
#                  (the records whose header names the reader thread: its
#                  switches and its wakeups; 827 KB down to 51 KB)
#   leak.txt       cc -O0 -g -fno-omit-frame-pointer -o kmalloc kmalloc.c
#                  perf record -g -e kmem:kmalloc -e kmem:kfree ./kmalloc
#                  perf script | awk 'BEGIN { RS = ""; ORS = "\n\n" }
#                    { split($0, l, "\n") }
#                    match(l[1], /ptr=0x[0-9a-f]+/) { p = substr(l[1], RSTART, RLENGTH)
#                      if (l[1] ~ /kmem:kmalloc:/) { a[p] = 1; print } else if (p in a) print }'
#                  (the kfrees of addresses never kmalloc'ed in the capture
#                  left out; 65 KB down to 47 KB)
#   leak-uprobe.txt  the man page's recipe (flamekit-formats(5), --leak) on
#                  mallocs.c: perf probe on libc's malloc%return and free,
#                  perf record -g -e probe_libc:malloc_ret__return
#                  -e probe_libc:free ./mallocs; perf script, untrimmed.
#   leak-lost-free.txt  made by hand in perf script's layout: kmallocs,
#                  kmem_cache_allocs and their frees, five of the frees lost
#                  (an address allocated again while still live).
. "$FK_SRCDIR/tests/lib.sh"

D=$FK_SRCDIR/tests/data/perf

# sum: the total of the folded lines on stdin
sum() { awk '{ s += $NF } END { printf "%d\n", s }'; }

# same_everywhere NAME ARGS...: ARGS give the same bytes (stdout and stderr)
# with 1, 2 and 3 threads and with chunks down to one record each.
same_everywhere() {
	name=$1
	shift
	"$FLAMEKIT" collapse "$@" > "$TMP/want" 2>&1
	bad=
	for t in 1 2 3; do
		for c in 97 700 4096; do
			FLAMEKIT_CHUNK_BYTES=$c "$FLAMEKIT" collapse --threads $t "$@" > "$TMP/got" 2>&1
			cmp -s "$TMP/want" "$TMP/got" || bad="$bad t$t/c$c"
		done
	done
	is "$bad" "" "$name: the same bytes with 1, 2, 3 threads and 97-, 700-, 4096-byte chunks"
}

# --- --wakeups ------------------------------------------------------------
# Independent: per thread, each wait from its switch-out (prev_pid) to its
# next switch-in (next_pid), in microseconds, chained when a sched_wakeup of
# the thread (pid=) came during it.  Prints "chained plain reader_chained".
wake_awk() {
	awk '/^[^ \t]/ {
		for (i = 1; i <= NF && $i !~ /^[0-9]+\.[0-9]+:$/; i++) ;
		split($i, ts, /[.:]/); t = ts[1] * 1000000 + ts[2]; ev = $(i + 1)
		if ($1 == "reader") reader = $2
		n = p = w = ""
		for (j = i + 2; j <= NF; j++) {
			if ($j ~ /^prev_pid=/) p = substr($j, 10)
			if ($j ~ /^next_pid=/) n = substr($j, 10)
			if ($j ~ /^pid=/) w = substr($j, 5)
		}
		if (ev == "sched:sched_switch:") {
			if (n in pend) {
				d = t - pend[n]; tot[n] += d
				if (n in wk) { ch += d; chr[n] += d } else pl += d
				delete pend[n]; delete wk[n]
			}
			if (p > 0) { pend[p] = t; delete wk[p] }
		} else if (ev == "sched:sched_wakeup:" && (w in pend)) wk[w] = 1
	} END { printf "%d %d %d\n", ch, pl, chr[reader] }' "$1"
}

run "$FLAMEKIT" collapse --format perf --wakeups "$D/wakeups.txt"
printf '%s\n' "$out" > "$TMP/wakeups.folded"
same_file "$D/wakeups.folded" "$TMP/wakeups.folded" "wakeups: the folded chain stacks of the pipe capture"
is "$rc:$err" "0:flamekit: warning: [input:perf] $D/wakeups.txt: 11 switch-outs had no later switch-in of the same thread (still off CPU when the capture ended, or exited); that time is not counted" \
	"wakeups: exit 0; the switch-outs of other threads (trimmed away) unmatched"
set -- $(wake_awk "$D/wakeups.txt")
chained=$(echo "$out" | grep -F ';--;' | sum)
plain=$(echo "$out" | grep -vF ';--;' | sum)
is "$chained $plain" "$1 $2" "wakeups: chained and unchained totals equal awk's over the timestamps ($1 us, $2 us)"
echo "$out" | grep -Eq '^reader;.*;--;ttwu_do_activate;[^ ]*;writer;start_thread;writer [0-9]+$'
ok $? "wakeups: a stack reader...;--;<waker leaf>;...;writer (waker's root on top)"
rchained=$(echo "$out" | grep '^reader;' | grep -F ';--;' | sum)
is "$rchained" "$3" "wakeups: the reader's chained time equals awk's"
run "$FLAMEKIT" collapse --format perf --offcpu "$D/wakeups.txt"
roff=$(echo "$out" | grep '^reader;' | sum)
is "$(echo "$out" | sum)" "$(($1 + $2))" "wakeups: --offcpu's total is the chained and the unchained time"
ok "$([ $((rchained * 100)) -ge $((roff * 95)) ] && [ "$rchained" -le "$roff" ]; echo $?)" \
	"wakeups: the reader's chained time is 95-100 % of its --offcpu time ($rchained of $roff us)"
same_everywhere "wakeups" --format perf --wakeups "$D/wakeups.txt"

run "$FLAMEKIT" graph --format perf --wakeups --colors=chain "$D/wakeups.txt"
case $out in *'<title>-- ('*) r=0;; *) r=1;; esac
ok $r "wakeups: graph --colors=chain draws the separator frame"

# unit FILE OPTION: the unit of the profile as a speedscope output names it
unit() {
	printf 'inputs:\n  - {path: %s, format: perf, options: {%s: true}}\noutputs:\n  - {plugin: speedscope, path: %s}\n' \
		"$1" "$2" "$TMP/unit.json" > "$TMP/unit.yaml"
	"$FLAMEKIT" run "$TMP/unit.yaml" 2> /dev/null
	grep -o '"unit":"[^"]*"' "$TMP/unit.json" | sort -u
}
is "$(unit "$D/wakeups.txt" wakeups)" '"unit":"microseconds"' "wakeups: the profile counts microseconds"

# hostile: a wakeup of a thread never seen, a pid that is not a number,
# records out of time order (a wait ending before it began)
run "$FLAMEKIT" collapse --format perf --wakeups "$D/hostile-wakeups.txt"
H=$D/hostile-wakeups.txt
is "$rc:$out" "0:app;main;wait_here;__schedule;--;try_to_wake_up;app 500
app;main;wait_here;__schedule;--;try_to_wake_up;notify;worker;app 500" \
	"hostile wakeups: the waits that can be charged, to the last waker"
is "$err" "flamekit: warning: [input:perf] $H: 1 switch-out had no later switch-in of the same thread (still off CPU when the capture ended, or exited); that time is not counted
flamekit: warning: [input:perf] $H: 1 wait ended before it began (records out of time order); not counted
flamekit: warning: [input:perf] $H: 1 wakeup was of a thread not known to be blocked (never switched out before, or running); it chains nothing
flamekit: warning: [input:perf] $H: 1 sched_wakeup record had no pid=NUMBER field; skipped
flamekit: warning: [input:perf] $H: 1 record was out of time order (earlier than the record before); pairs are taken in input order" \
	"hostile wakeups: one counted warning for each kind"
same_everywhere "hostile wakeups" --format perf --wakeups "$H"

# --- --leak ---------------------------------------------------------------
# Independent: a kmalloc's bytes_alloc stays until a kfree of its ptr; a
# second kmalloc of a live ptr proves the first was freed (its kfree lost).
leak_awk() {
	awk -v A="$1" -v F="$2" -v B="$3" -v AL="$4" '/^[^ \t]/ {
		for (i = 1; i <= NF && $i !~ /^[0-9]+\.[0-9]+:$/; i++) ;
		ev = $(i + 1); p = b = ""
		for (j = i + 2; j <= NF; j++) {
			if ($j ~ /^ptr=/) p = substr($j, 5)
			if (index($j, B "=") == 1) b = substr($j, length(B) + 2)
		}
		if (p == "(nil)" || p == "") next
		if (ev == A ":") live[p] = b - b % AL
		else if (ev == F ":") delete live[p]
	} END { for (p in live) s += live[p]; printf "%d\n", s }' "$5"
}

# Independent: the folded output of --leak with the kmem defaults, each
# stack (comm, then the frames root first without their offsets) charged
# the bytes_alloc of its allocations never freed.
leak_fold_awk() {
	awk 'BEGIN { RS = "" }
	{
		n = split($0, l, "\n"); split(l[1], h, " ")
		for (i = 1; h[i] !~ /^[0-9]+\.[0-9]+:$/; i++) ;
		ev = h[i + 1]; p = b = ""
		for (j = i + 2; j in h; j++) {
			if (h[j] ~ /^ptr=/) p = substr(h[j], 5)
			if (h[j] ~ /^bytes_alloc=/) b = substr(h[j], 13)
		}
		if (ev ~ /^kmem:(kmalloc|kmalloc_node|kmem_cache_alloc):$/) {
			s = h[1]
			for (k = n; k > 1; k--) { split(l[k], f, " "); sub(/\+0x[0-9a-f]+$/, "", f[2]); s = s ";" f[2] }
			live[p] = b; stk[p] = s
		} else if (ev ~ /^kmem:(kfree|kmem_cache_free):$/)
			delete live[p]
	}
	END { for (p in live) tot[stk[p]] += live[p]; for (s in tot) print s, tot[s] }' "$1" | LC_ALL=C sort
}

run "$FLAMEKIT" collapse --format perf --leak "$D/leak.txt"
printf '%s\n' "$out" > "$TMP/leak.folded"
same_file "$D/leak.folded" "$TMP/leak.folded" "leak: the folded allocating stacks of the kmalloc capture"
is "$rc:$err" "0:" "leak: exit 0, no warning"
is "$(echo "$out" | sum)" "$(leak_awk kmem:kmalloc kmem:kfree bytes_alloc 1 "$D/leak.txt")" \
	"leak: the total equals the bytes of the kmallocs not kfree'd later (awk)"
echo "$out" | grep -q '^kmalloc;.*;__pipe;.*;alloc_pipe_info;'
ok $? "leak: the pipes left open show under alloc_pipe_info"
same_everywhere "leak" --format perf --leak "$D/leak.txt"

is "$(unit "$D/leak.txt" leak)" '"unit":"bytes"' "leak: the profile counts bytes"

U=$D/leak-uprobe.txt
UP="--leak-alloc probe_libc:malloc_ret__return --leak-free probe_libc:free --leak-bytes chunk --leak-align 8"
run "$FLAMEKIT" collapse --format perf --leak $UP "$U"
is "$rc:$out:$err" "0:mallocs;__libc_start_call_main;main;grow 22464:" \
	"leak, uprobes on malloc/free: the four blocks grow() kept and main did not free"
is "$(echo "$out" | sum)" "$(leak_awk probe_libc:malloc_ret__return probe_libc:free chunk 8 "$U")" \
	"leak, uprobes: the total equals awk's"
same_everywhere "leak, uprobes" --format perf --leak $UP "$U"

# hostile: a free before any allocation, a size that is not a number, an
# allocation without arguments (once UB: fuzz-perf with FK_FUZZ_OPTS=leak), a
# second allocation of a live address, kfree(NULL), a record out of time
# order, pages by pfn and order
H=$D/hostile-leak.txt
run "$FLAMEKIT" collapse --format perf --leak "$H"
is "$rc:$out" "0:app;main;cache_grow;kmem_cache_alloc 64
app;pages;__alloc_pages 8192" "hostile leak: what is never freed, pages as 4096 << order"
is "$err" "flamekit: warning: [input:perf] $H: --leak ignored 1 free of an address never seen allocated (allocated before the capture began, or its allocation was not recorded)
flamekit: warning: [input:perf] $H: 1 allocation was of an address still allocated (its free was not recorded); the earlier allocation is counted as freed
flamekit: warning: [input:perf] $H: --leak skipped 2 allocation or free records whose address or size field is missing or not a number (see --leak-ptr, --leak-bytes)
flamekit: warning: [input:perf] $H: 1 record was out of time order (earlier than the record before); pairs are taken in input order" \
	"hostile leak: one counted warning for each kind"
same_everywhere "hostile leak" --format perf --leak "$H"
run "$FLAMEKIT" collapse --format perf --leak --leak-page-size 16384 "$H"
is "$(echo "$out" | grep pages)" "app;pages;__alloc_pages 32768" "leak: --leak-page-size"

# frees lost: an address allocated again while live was freed in between
# (a live block is never handed out twice), so its earlier block is not
# charged; one counted warning
L=$D/leak-lost-free.txt
run "$FLAMEKIT" collapse --format perf --leak "$L"
printf '%s\n' "$out" > "$TMP/lost.folded"
leak_fold_awk "$L" > "$TMP/lost.want"
same_file "$TMP/lost.want" "$TMP/lost.folded" "leak, frees lost: the folded stacks equal awk's (a reallocated block counted freed)"
is "$rc:$err" "0:flamekit: warning: [input:perf] $L: 5 allocations were of an address still allocated (its free was not recorded); the earlier allocation is counted as freed" \
	"leak, frees lost: exit 0, one counted warning"
same_everywhere "leak, frees lost" --format perf --leak "$L"

# --- the example jobs (conf/) ---------------------------------------------
if "$FLAMEKIT" plugins | grep -q '^output  *svg '; then
	C=$FK_SRCDIR/conf
	run "$FLAMEKIT" run "$C/chain-perf.yaml" --set output-dir="$TMP"
	ok $([ "$rc" -eq 0 ] && xmllint --noout "$TMP/pipepair-chain.svg" 2>/dev/null &&
		grep -q '<title>reader (43,562 us, 100.00%)</title>' "$TMP/pipepair-chain.svg" &&
		grep -q '<title>-- (43,562 us, ' "$TMP/pipepair-chain.svg" &&
		grep -q '<title>writer (43,562 us, ' "$TMP/pipepair-chain.svg"; echo $?) \
		"conf/chain-perf.yaml: the reader's waits under --, the writer on top, in us"
	run "$FLAMEKIT" run "$C/leak-perf.yaml" --set output-dir="$TMP"
	ok $([ "$rc" -eq 0 ] && [ -z "$err" ] && xmllint --noout "$TMP/kmalloc-leak.svg" 2>/dev/null &&
		grep -q '<title>alloc_pipe_info (2,432 bytes, 100.00%)</title>' "$TMP/kmalloc-leak.svg" &&
		cmp -s "$TMP/kmalloc-leak.folded" "$D/leak.folded"; echo $?) \
		"conf/leak-perf.yaml: 2,432 bytes under alloc_pipe_info, the folded fixture"
else
	skip "conf/chain-perf.yaml, conf/leak-perf.yaml" "no svg output"
fi

# --- usage ----------------------------------------------------------------
run "$FLAMEKIT" collapse --format perf --leak --wakeups "$D/leak.txt"
is "$rc:$out:$err" "2::flamekit: [input:perf] --leak cannot be combined with --offcpu or --wakeups: collapse the capture once for each" \
	"--leak with --wakeups: refused by the options' check, a usage error"
run "$FLAMEKIT" collapse --format perf --leak --shard 1/2 "$D/leak.txt"
is "$rc:$out:$err" "1::flamekit: $D/leak.txt[1/2]: --leak pairs each free with an earlier allocation, so it cannot read a shard; collapse the whole file" \
	"--leak cannot read a later shard"
run "$FLAMEKIT" collapse --format perf --wakeups --shard 1/2 "$D/wakeups.txt"
is "$rc:$out:$err" "1::flamekit: $D/wakeups.txt[1/2]: --wakeups pairs each switch-in with an earlier switch-out, so it cannot read a shard; collapse the whole file" \
	"--wakeups cannot read a later shard"

# --- perf-data: asked for the tracepoint fields ---
cat > "$TMP/fakeperf" <<'SH'
#!/bin/sh
echo "$*" >> "$FAKE_LOG"
SH
chmod +x "$TMP/fakeperf"
printf 'PERFILE2' > "$TMP/x.data"
FAKE_LOG=$TMP/fake.log
export FAKE_LOG
run "$FLAMEKIT" collapse -v --threads 3 --format perf-data --perf "$TMP/fakeperf" --leak "$TMP/x.data"
case $err in *"one perf script process: its header cannot be read"*) r=0;; *) r=1;; esac
ok $r "perf-data --leak: -v says why there is one process (slices: tests/perf-data-slices.sh)"
: > "$FAKE_LOG"
"$FLAMEKIT" collapse --threads 3 --format perf-data --perf "$TMP/fakeperf" --wakeups --tid "$TMP/x.data" > /dev/null 2>&1
"$FLAMEKIT" collapse --threads 3 --format perf-data --perf "$TMP/fakeperf" --leak "$TMP/x.data" > /dev/null 2>&1
is "$(cat "$FAKE_LOG")" "script -i $TMP/x.data -F trace:comm,tid,time,event,trace,ip,sym,dso -F +pid
script -i $TMP/x.data -F trace:comm,tid,time,event,trace,ip,sym,dso" \
	"perf-data --wakeups, --leak: one perf script, asked for the tracepoint fields"

cd "$TMP" || exit 1
if ! command -v perf > /dev/null 2>&1 ||
   ! perf record -q -a -g -e sched:sched_switch -e sched:sched_wakeup -o wk.data -- \
	sh -c 'for i in 1 2 3 4 5; do sleep 0.01; done' > rec.log 2>&1; then
	skip_all "perf-data on real captures" "perf cannot record tracepoints here"
fi
perf script -i wk.data 2> /dev/null | "$FLAMEKIT" collapse --format perf --wakeups > want.folded 2> /dev/null
"$FLAMEKIT" collapse --threads 3 --wakeups wk.data > got.folded 2> /dev/null
same_file want.folded got.folded "perf-data --wakeups on a capture made now: the pipeline's bytes"
if perf record -q -g -e kmem:kmalloc -e kmem:kfree -o km.data -- sh -c 'ls / > /dev/null' > rec.log 2>&1; then
	perf script -i km.data 2> /dev/null | "$FLAMEKIT" collapse --format perf --leak > want.folded 2> /dev/null
	"$FLAMEKIT" collapse --threads 3 --leak km.data > got.folded 2> /dev/null
	same_file want.folded got.folded "perf-data --leak on a capture made now: the pipeline's bytes"
	perf script -i km.data 2> /dev/null > km.txt
	is "$(sum < got.folded)" "$(leak_awk kmem:kmalloc kmem:kfree bytes_alloc 1 km.txt)" \
		"perf-data --leak on a capture made now: the total equals awk's"
else
	skip "perf-data --leak" "perf cannot record kmem tracepoints here"
fi
done_testing
