#!/bin/sh
# Narrowing a profile from the command line (the narrow filter plugin, also a
# job's filter): pprof's --focus, --ignore, --hide, --show and --tagfocus
# against go tool pprof on the same pprof profile; inferno's --base and
# --skip-after against its documented semantics in awk; --collapse-recursion
# in awk; --from, --to, --comm, --pid and --tid against awk selecting the
# records of the perf script text.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data"
PY=${PYTHON3:-python3}
ORACLE="$FK_SRCDIR/tests/interop.py"
DEMO="$FK_SRCDIR/examples/profiles/demo.perf.txt.gz"
LABELS="$D/pprof/labels.pb.gz"
GOCACHE="$TMP/gocache" HOME="$TMP" PPROF_TMPDIR="$TMP"
export GOCACHE HOME PPROF_TMPDIR
have_go=no
command -v go > /dev/null 2>&1 && go tool pprof -h > /dev/null 2>&1 && command -v "$PY" > /dev/null 2>&1 &&
	have_go=yes

cat > "$TMP/n.folded" << 'EOF2'
main;parse;lex 6
main;parse;lex;read 2
main;render;draw;lex 3
main;render;flush 1
main;fib;fib;fib;add 4
main;fib;add;fib;fib 2
idle 5
main;parse 2
EOF2

# --- pprof's flags: go tool pprof -traces on the same profile -------------
"$FLAMEKIT" graph --output-plugin pprof -o "$TMP/n.pb.gz" "$TMP/n.folded"
if [ $have_go = yes ]; then
	while read -r flags; do
		# shellcheck disable=SC2086
		exp=$(go tool pprof -traces $flags "$TMP/n.pb.gz" 2> /dev/null | "$PY" "$ORACLE" traces)
		# shellcheck disable=SC2086
		run "$FLAMEKIT" collapse $(echo "$flags" | sed 's/-\([a-z]*\)=/--\1=/g') "$TMP/n.pb.gz"
		is "$rc:$err:$out" "0::$exp" "collapse ${flags}: go tool pprof -traces ${flags}'s stacks"
	done << 'EOF2'
-focus=lex
-focus=^(draw|read)$
-ignore=render
-ignore=^fib$
-hide=^lex$
-hide=fib|parse
-show=main|lex
-show=^add$
-focus=parse -hide=lex
-focus=fib -show=fib
-ignore=idle -show=^(add|read)$
-focus=r -ignore=flush -hide=^main$
EOF2
	# async-profiler's -I/--include and -X/--exclude are pprof's -focus and -ignore
	for pair in "-I lex:-focus=lex" "--include ^(draw|read)\$:-focus=^(draw|read)\$" \
		"-X render:-ignore=render" "--exclude ^fib\$:-ignore=^fib\$"; do
		ours=${pair%%:*} theirs=${pair#*:}
		exp=$(go tool pprof -traces "$theirs" "$TMP/n.pb.gz" 2> /dev/null | "$PY" "$ORACLE" traces)
		# shellcheck disable=SC2086
		run "$FLAMEKIT" collapse $ours "$TMP/n.pb.gz"
		is "$rc:$err:$out" "0::$exp" "collapse ${ours}: go tool pprof -traces ${theirs}'s stacks"
	done
	for f in worker=a kind=bat 'worker=^b$' 'worker=a|b'; do
		run "$FLAMEKIT" collapse --tagfocus "$f" "$LABELS"
		is "$rc:$err:$out" "0::$(go tool pprof -raw -tagfocus "$f" "$LABELS" 2> /dev/null | "$PY" "$ORACLE" raw 1)" \
			"collapse --tagfocus $f: go tool pprof -tagfocus $f's samples"
	done
else
	skip "pprof's flags against go tool pprof" "go tool pprof (golang-go) or python3 is missing"
fi
# A sample whose every frame is hidden goes, as in pprof.
run "$FLAMEKIT" collapse --hide . "$TMP/n.folded"
is "$rc:$err:$out" "0::" "--hide of every frame: no sample left"

# --- inferno's --base and --skip-after, --collapse-recursion: awk ---------
# base NAME (inferno-flamegraph --base): samples without a frame NAME go, the
# others start at their deepest NAME.
base_awk() {
	awk -v name="$1" '{
		n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); at = 0
		for (i = 1; i <= k; i++) if (f[i] == name) at = i
		if (!at) next
		s = f[at]; for (i = at + 1; i <= k; i++) s = s ";" f[i]
		w[s] += n
	} END { for (s in w) print s, w[s] }' "$2" | LC_ALL=C sort
}
for b in fib lex main nosuch; do
	run "$FLAMEKIT" collapse --base "$b" "$TMP/n.folded"
	is "$rc:$err:$(printf '%s\n' "$out" | LC_ALL=C sort | sed '/^$/d')" "0::$(base_awk "$b" "$TMP/n.folded")" \
		"--base $b: inferno's re-rooting, in awk"
done
recursion_awk() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s = f[1]
		for (i = 2; i <= k; i++) if (f[i] != f[i - 1]) s = s ";" f[i]
		w[s] += n } END { for (s in w) print s, w[s] }' "$1" | LC_ALL=C sort
}
run "$FLAMEKIT" collapse --collapse-recursion "$TMP/n.folded"
is "$rc:$err:$(printf '%s\n' "$out" | LC_ALL=C sort)" "0::$(recursion_awk "$TMP/n.folded")" \
	"--collapse-recursion: a;b;b;b;c -> a;b;c (awk)"

# The perf script records, as stackcollapse-perf.pl reads them, in awk:
# "comm;root;...;leaf period" per record, the frames cut after the first
# (from the leaf) named skip (inferno-collapse-perf --skip-after), the comm
# kept.  Only for the demo profile's simple records.
collapse_awk() {
	gzip -dcf "$1" | awk -v skip="$2" '
		function flush(  s, i) { if (have) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; w[s] += p } have = 0; n = 0; stop = 0 }
		/^#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[^ \t]/ { flush(); have = 1; comm = $1; p = $(NF - 1); next }
		{ if (stop) next
		  sub(/^[ \t]+[0-9a-f]+ /, ""); sub(/ \([^()]*\)$/, ""); sub(/\+0x[0-9a-f]+$/, "")
		  f[++n] = $0; if ($0 == skip) stop = 1 }
		END { flush(); for (s in w) print s, w[s] }' | LC_ALL=C sort
}
sorted() { LC_ALL=C sort; }
run "$FLAMEKIT" collapse "$DEMO"
is "$(printf '%s\n' "$out" | sorted)" "$(collapse_awk "$DEMO" "")" \
	"the awk collapse of the demo profile is flamekit's (the oracle reads it right)"
for f in parse_input start_thread main hash_block nosuch; do
	run "$FLAMEKIT" collapse --skip-after "$f" "$DEMO"
	is "$rc:$err:$(printf '%s\n' "$out" | sorted)" "0::$(collapse_awk "$DEMO" "$f")" \
		"--skip-after $f: inferno-collapse-perf's cut, in awk"
done

# --- the time window and the thread: awk keeps the records --------------
# select FILE COND: the records of perf script text FILE whose header passes
# COND, an awk expression over comm, pid, tid and t (seconds) and t0 (the
# first record's time).
select_awk() {
	gzip -dcf "$1" | awk -v cond="$2" '
		function pass(  ok) {
			if (cond == "from") ok = t >= t0 + a; else if (cond == "to") ok = t <= t0 + b
			else if (cond == "window") ok = t >= t0 + a && t <= t0 + b
			else if (cond == "abs") ok = t >= a && t <= b
			else if (cond == "tid") ok = tid == a; else if (cond == "pid") ok = pid == a
			else if (cond == "comm") ok = comm ~ a
			return ok
		}
		/^#/ { next }
		/^[^ \t]/ || (/^ +[^ \t]/ && !inrec) {
			inrec = 1
			match($0, / +[0-9]+(\/[0-9]+)? +(\[[0-9]+\] +)?[0-9]+\.[0-9]+:/)
			comm = substr($0, 1, RSTART - 1); sub(/^ +/, "", comm)
			split(substr($0, RSTART, RLENGTH), h, " ")
			if (index(h[1], "/")) { split(h[1], q, "/"); pid = q[1]; tid = q[2] } else { pid = -1; tid = h[1] }
			t = h[length(h)]; sub(/:$/, "", t); t += 0
			if (!seen) { t0 = t; seen = 1 }
			keep = pass()
		}
		/^[ \t]*$/ { inrec = 0 }
		keep { print }' a="$3" b="$4"
}
narrow_is() { # NAME FILE COND A B FLAGS...: collapse FLAGS = collapse of awk's records
	name=$1 file=$2 cond=$3 a=$4 b=$5
	shift 5
	select_awk "$file" "$cond" "$a" "$b" > "$TMP/sel.txt"
	exp=$("$FLAMEKIT" collapse --format perf "$TMP/sel.txt" 2>&1 | sorted)
	run "$FLAMEKIT" collapse --format perf "$@" "$file"
	is "$rc:$err:$(printf '%s\n' "$out" | sorted)" "0::$exp" "$name"
	ok $([ -s "$TMP/sel.txt" ] || [ "$cond" = none ]; echo $?) "$name: awk kept some records"
}
narrow_is "--from 0.5: the records from half a second after the first" "$DEMO" from 0.5 "" --from 0.5
narrow_is "--to 1.25" "$DEMO" to "" 1.25 --to 1.25
narrow_is "--from 0.5 --to 1.25" "$DEMO" window 0.5 1.25 --from 0.5 --to 1.25
narrow_is "--from 1576.8 --to 1577.3: perf's absolute timestamps" "$DEMO" abs 1576.8 1577.3 --from 1576.8 --to 1577.3
narrow_is "--tid 2951" "$DEMO" tid 2951 "" --tid 2951
narrow_is "--tid=2920" "$DEMO" tid 2920 "" --tid=2920
NAMES="$D/perf/names.txt"
narrow_is "--pid 42: pid/tid headers" "$NAMES" pid 42 "" --pid 42
narrow_is "--tid 44" "$NAMES" tid 44 "" --tid 44
narrow_is "--comm 'Worker': a comm with a space" "$NAMES" comm Worker "" --comm Worker
narrow_is "--comm '^perf$'" "$NAMES" comm '^perf$' "" --comm '^perf$'
# stackcollapse-perf.pl's --pid (a flag: the pid in the process frame) still is
run "$FLAMEKIT" collapse --format perf --pid "$NAMES"
is "$rc:$(printf '%s\n' "$out" | head -1)" "0:V8_WorkerThread-25607;start_thread;std::unique_ptr<Foo>::operator->;(anonymous namespace)::Worker::Run;v8::internal::Heap::Scavenge 250000" \
	"--pid without a number is stackcollapse-perf.pl's flag, as before"

# --- graph and diff take them; a job spells them as a filter --------------
"$FLAMEKIT" collapse --focus lex --collapse-recursion "$TMP/n.folded" > "$TMP/focus.folded"
"$FLAMEKIT" graph "$TMP/focus.folded" > "$TMP/focus.svg"
run "$FLAMEKIT" graph --focus lex --collapse-recursion "$TMP/n.folded"
is "$rc:$err:$(printf '%s\n' "$out" | cmp -s - "$TMP/focus.svg"; echo $?)" "0::0" \
	"graph --focus lex --collapse-recursion: the graph of collapse's narrowed stacks"
run "$FLAMEKIT" diff --ignore render "$TMP/n.folded" "$TMP/focus.folded"
is "$rc:$err:$out" "0::$("$FLAMEKIT" collapse --ignore render "$TMP/n.folded" > "$TMP/i1"; "$FLAMEKIT" collapse --ignore render "$TMP/focus.folded" > "$TMP/i2"; "$FLAMEKIT" diff "$TMP/i1" "$TMP/i2")" \
	"diff --ignore render: both sides narrowed"
cat > "$TMP/job.yaml" << EOF2
inputs: [{path: "$TMP/n.folded"}]
filters:
  - plugin: narrow
    options: {focus: lex, collapse-recursion: true}
outputs: [{plugin: folded, path: "-"}]
EOF2
run "$FLAMEKIT" run "$TMP/job.yaml"
is "$rc:$err:$out" "0::$(cat "$TMP/focus.folded")" "a job's narrow filter: the same stacks as the flags"

# --- spellings --------------------------------------------------------------
# The narrowing options are only spelled whole, so that flamegraph.pl's
# prefixes keep their meaning (--col is --colors, not --collapse-recursion).
run "$FLAMEKIT" collapse --foc lex "$TMP/n.folded"
is "$rc:$err" "2:flamekit: collapse: unknown option '--foc'
Did you mean --focus?
Try 'flamekit help collapse' for more information." "--foc: no prefix of --focus, which is suggested"
"$FLAMEKIT" graph --colors=java "$TMP/n.folded" > "$TMP/java.svg"
run "$FLAMEKIT" graph --col=java "$TMP/n.folded"
is "$rc:$err:$(printf '%s\n' "$out" | cmp -s - "$TMP/java.svg"; echo $?)" "0::0" "--col=java is still --colors=java"

# --- errors ----------------------------------------------------------------
run "$FLAMEKIT" collapse --focus '(' "$TMP/n.folded"
is "$rc:$out:$err" "2::flamekit: [filter:narrow] --focus \"(\": Unmatched ( or \\(" "a bad regex names the flag and the regex's error"
run "$FLAMEKIT" graph --hide 'a[' "$TMP/n.folded"
is "$rc:$out:$err" "2::flamekit: [filter:narrow] --hide \"a[\": Invalid regular expression" "graph --hide: the same"
run "$FLAMEKIT" collapse --tagfocus worker "$TMP/n.folded"
is "$rc:$err" "2:flamekit: [filter:narrow] --tagfocus takes KEY=REGEX, not \"worker\"" "--tagfocus without KEY="
run "$FLAMEKIT" collapse --from soon "$TMP/n.folded"
is "$rc:$err" "2:flamekit: [filter:narrow] --from takes seconds (a number, at least 0), not \"soon\"" "--from soon"
run "$FLAMEKIT" collapse --tid=x "$TMP/n.folded"
is "$rc:$(echo "$err" | head -1)" "2:flamekit: collapse: --tid takes a thread id, not \"x\"" "--tid=x"

done_testing
