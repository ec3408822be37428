#!/bin/sh
# One pipeline for every command (issue 27): for every output plugin and a
# set of inputs (folded files, the conformance corpus, a perf text capture,
# a pprof, a v8 profile, 20,000 generated distinct stacks), `flamekit graph
# --output-plugin P` (and `flamekit collapse`) write the same bytes as the
# equivalent one-output job run by `flamekit run`.  Neither side is the
# oracle: the job is the engine's one documented path, and a command
# taking a shortcut of its own must not differ from it.  Each comparison
# also checks that both succeeded and wrote something.  Then the pruned
# path (engine/prune.c), which both must take alike.
. "${FK_SRCDIR:?}/tests/lib.sh"

OUTPUTS="svg icicle flamechart hotcold html pprof speedscope folded"

# The inputs: NAME<TAB>PATH (PATH absolute, so the job can name it).
: > "$TMP/inputs"
add() { printf '%s\t%s\n' "$1" "$2" >> "$TMP/inputs"; }
add folded/basic "$FK_SRCDIR/tests/data/folded/basic.txt"
add folded/hostile "$FK_SRCDIR/tests/data/folded/hostile.txt"
add perf/names "$FK_SRCDIR/tests/data/perf/names.txt"
add perf/system-wide "$FK_SRCDIR/tests/data/perf/system-wide.txt"
add pprof/cpu "$FK_SRCDIR/tests/data/pprof/cpu.pb.gz"
add v8/node "$FK_SRCDIR/tests/data/v8/node.cpuprofile"
# Many distinct stacks (most frames too narrow to draw), names that extend
# each other, empty frames, lines with an empty stack (the root's own weight).
many="$TMP/many.folded"
awk 'BEGIN { srand(5); for (i = 0; i < 20000; i++) { s = "root"; d = 1 + int(rand() * 12)
	for (j = 0; j < d; j++) s = s ";f" substr("abcdefgh", 1, 1 + int(rand() * 3)) (rand() < 0.3 ? ".c" : rand() < 0.1 ? " x" : "")
	if (rand() < 0.02) s = s ";;e"; printf "%s %d\n", s, int(rand() * 100); if (rand() < 0.01) print " 7" } }' > "$many"
add generated/many "$many"
if [ -d "$FK_CONFORMANCE" ]; then
	# the svg cases' inputs, perf's default collapses, dtrace's, and a raw
	# perf script capture
	for f in "$FK_CONFORMANCE"/svg/inputs/*.txt "$FK_CONFORMANCE"/perf/expected/*-01-collapsed.txt \
		"$FK_CONFORMANCE"/dtrace/expected/*.txt "$FK_CONFORMANCE"/perf/inputs/perf-java-stacks-01.txt; do
		[ -f "$f" ] && add "${f#$FK_CONFORMANCE/}" "$f"
	done
else
	skip "the conformance corpus's inputs" "no conformance corpus at $FK_CONFORMANCE"
fi

# job FILE PLUGIN INPUT [KEY VALUE]...: a one-output job writing out.job,
# with the output options given as KEY VALUE pairs.
job() {
	j=$1 p=$2 i=$3
	shift 3
	{
		printf 'inputs:\n  - path: "%s"\noutputs:\n  - plugin: %s\n    path: out.job\n' "$i" "$p"
		if [ $# -gt 0 ]; then
			printf '    options:\n'
			while [ $# -gt 1 ]; do
				printf '      %s: "%s"\n' "$1" "$2"
				shift 2
			done
		fi
	} > "$j"
}

# compare NAME: out.cmd against out.job (both commands' statuses in $rc_cmd
# and $rc_job, their messages in err.cmd and err.job).
compare() {
	if [ "$rc_cmd" -ne 0 ] || [ "$rc_job" -ne 0 ] || [ ! -s "$TMP/out.cmd" ]; then
		ok 1 "$1 (command $rc_cmd: $(head -c 300 "$TMP/err.cmd"); job $rc_job: $(head -c 300 "$TMP/err.job"))"
	else
		same_file "$TMP/out.job" "$TMP/out.cmd" "$1"
	fi
}

# graph_vs_job NAME PLUGIN INPUT [OPTION VALUE]...: `graph` with
# --OPTION=VALUE against the job with OPTION: VALUE.
graph_vs_job() {
	n=$1 p=$2 i=$3
	shift 3
	job "$TMP/job.yaml" "$p" "$i" "$@"
	set -- "$@"
	args=
	while [ $# -gt 1 ]; do
		args="$args --$1=$2"
		shift 2
	done
	rm -f "$TMP/out.cmd" "$TMP/out.job"
	# shellcheck disable=SC2086 # the options split on purpose
	"$FLAMEKIT" graph --output-plugin "$p" $args -o "$TMP/out.cmd" "$i" 2> "$TMP/err.cmd"
	rc_cmd=$?
	(cd "$TMP" && "$FLAMEKIT" run job.yaml 2> "$TMP/err.job")
	rc_job=$?
	compare "graph $n: $p output"
}

while IFS='	' read -r name path; do
	for p in $OUTPUTS; do
		graph_vs_job "$name" "$p" "$path"
	done
	# collapse is the folded output's job
	job "$TMP/job.yaml" folded "$path"
	rm -f "$TMP/out.cmd" "$TMP/out.job"
	"$FLAMEKIT" collapse -o "$TMP/out.cmd" "$path" 2> "$TMP/err.cmd"
	rc_cmd=$?
	(cd "$TMP" && "$FLAMEKIT" run job.yaml 2> "$TMP/err.job")
	rc_job=$?
	compare "collapse $name"
done < "$TMP/inputs"

# With --format folded (a job's `format: folded`), and on input that
# fails or is skipped in part: the same status, messages and bytes.  A
# UTF-16 file is refused by name, whatever the format; `collapse --format
# folded` used to read it as garbage (its own folded reader): an empty
# output, exit 0.
printf 'a;b 1\nnot a folded line\na;c 2.5\n' > "$TMP/skips.txt"
printf 'main;f 1\nmain;g 2\n' | iconv -f UTF-8 -t UTF-16 > "$TMP/utf16.txt"
printf 'main;f 1\nmain;g 2\n' > "$TMP/plain.txt"
for f in skips utf16 plain; do
	for cmd in collapse graph; do
		p=folded
		[ "$cmd" = graph ] && p=svg
		printf 'inputs:\n  - path: %s.txt\n    format: folded\noutputs:\n  - plugin: %s\n    path: "-"\n' \
			"$f" "$p" > "$TMP/job.yaml"
		(cd "$TMP" && "$FLAMEKIT" "$cmd" --format folded "$f.txt" > out.cmd 2> err.cmd; echo "$?" >> out.cmd)
		(cd "$TMP" && "$FLAMEKIT" run job.yaml > out.job 2> err.job; echo "$?" >> out.job)
		same_file "$TMP/out.job" "$TMP/out.cmd" "$cmd --format folded $f.txt: the job's output and status"
		same_file "$TMP/err.job" "$TMP/err.cmd" "$cmd --format folded $f.txt: the job's messages"
	done
done

# The drawers' options that prune or reshape the tree, on a wide input.
wide="$FK_SRCDIR/tests/data/perf/system-wide.txt"
[ -d "$FK_CONFORMANCE" ] && wide="$FK_CONFORMANCE/svg/inputs/perf-vertx-stacks-01-collapsed-all.txt"
for p in svg icicle hotcold; do
	graph_vs_job "wide, --minwidth=2" "$p" "$wide" minwidth 2
	graph_vs_job "wide, --minwidth=0.5%" "$p" "$wide" minwidth 0.5%
	graph_vs_job "wide, --inverted" "$p" "$wide" inverted true
	graph_vs_job "wide, --reverse --minwidth=1" "$p" "$wide" reverse true minwidth 1
	graph_vs_job "wide, --width=300 --title=T" "$p" "$wide" width 300 title T
done
graph_vs_job "wide, --colors=java --hash" svg "$wide" colors java hash true
graph_vs_job "wide, --countname=samples --factor=0.5" svg "$wide" countname samples factor 0.5

# ---- the pruned path (engine/prune.c) -----------------------------------------
# Regular folded files into outputs with min_weight() (svg, icicle,
# flamechart) get a stack tree of only the frames wide enough to draw,
# whoever asks: fk_pipeline_run chooses it.  -vv says so with the tree's
# size: graph and the job print the same line, with fewer nodes than the
# whole tree has (one per distinct prefix of a stack, counted by awk, and
# the root).  Stdin takes the whole tree, says nothing of the kind, and
# writes the same bytes.
whole=$(awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); p = ""
	for (i = 1; i <= n; i++) { p = p ";" f[i]; if (!(p in seen)) { seen[p] = 1; c++ } } } END { print c + 1 }' "$many")
pruned() { sed -n 's/^flamekit: pruned: //p' "$1"; }
nodes() { printf '%s\n' "$1" | sed -n 's/.*, \([0-9]*\) nodes$/\1/p'; }
cut() { printf '%s\n' "$1" | sed -n 's/.* \([0-9.e+]*\)\( wide\)*, [0-9]* nodes$/\1/p'; }
for p in svg icicle flamechart; do
	job "$TMP/job.yaml" "$p" "$many"
	rm -f "$TMP/out.cmd" "$TMP/out.job"
	"$FLAMEKIT" graph -vv --output-plugin "$p" -o "$TMP/out.cmd" "$many" 2> "$TMP/err.cmd"
	rc_cmd=$?
	(cd "$TMP" && "$FLAMEKIT" run -vv job.yaml 2> "$TMP/err.job")
	rc_job=$?
	compare "pruned $p: graph -vv and the job write the same bytes"
	line=$(pruned "$TMP/err.cmd")
	is "$(pruned "$TMP/err.job")" "$line" "pruned $p: the job takes the pruned path as graph does ($line)"
	n=$(nodes "$line")
	[ -n "$n" ] && [ "$n" -lt "$whole" ]
	ok $? "pruned $p: ${n:-no} nodes, fewer than the whole tree's $whole"
	"$FLAMEKIT" graph -vv --output-plugin "$p" < "$many" > "$TMP/out.pipe" 2> "$TMP/err.pipe"
	same_file "$TMP/out.pipe" "$TMP/out.cmd" "pruned $p: the bytes of the whole tree (stdin)"
	is "$(pruned "$TMP/err.pipe")" "" "pruned $p: stdin takes the whole tree"
done
# An output without min_weight() needs the whole tree.
for p in hotcold html pprof speedscope folded; do
	job "$TMP/job.yaml" "$p" "$many"
	(cd "$TMP" && "$FLAMEKIT" run -vv job.yaml 2> "$TMP/err.job")
	is "$(pruned "$TMP/err.job")" "" "a job into $p takes the whole tree"
done

# Several outputs share one cut, the smallest of their widths (the
# min_weight() contract holds for any cut below an output's own), when all
# of them need the sample log or none does; each output writes the bytes
# of its own graph of the whole tree (stdin).  A flame chart beside a
# graph, or an output without min_weight(), takes the whole tree.
# multi NAME EXPECT-PRUNED PLUGIN OPTION VALUE PLUGIN OPTION VALUE: a job of
# two outputs, each with one option.
multi() {
	name=$1 want=$2
	printf 'inputs:\n  - path: "%s"\noutputs:\n  - plugin: %s\n    path: m1.out\n    options:\n      %s: "%s"\n  - plugin: %s\n    path: m2.out\n    options:\n      %s: "%s"\n' \
		"$many" "$3" "$4" "$5" "$6" "$7" "$8" > "$TMP/multi.yaml"
	rm -f "$TMP/m1.out" "$TMP/m2.out"
	(cd "$TMP" && "$FLAMEKIT" run -vv multi.yaml 2> "$TMP/err.job")
	ok $? "two outputs, $name: the job runs"
	"$FLAMEKIT" graph --output-plugin "$3" "--$4=$5" < "$many" > "$TMP/m1.pipe"
	"$FLAMEKIT" graph --output-plugin "$6" "--$7=$8" < "$many" > "$TMP/m2.pipe"
	same_file "$TMP/m1.pipe" "$TMP/m1.out" "two outputs, $name: the first's bytes"
	same_file "$TMP/m2.pipe" "$TMP/m2.out" "two outputs, $name: the second's bytes"
	line=$(pruned "$TMP/err.job")
	if [ "$want" = yes ]; then
		"$FLAMEKIT" graph -vv --output-plugin "$3" "--$4=$5" -o "$TMP/m.cmd" "$many" 2> "$TMP/err.1"
		"$FLAMEKIT" graph -vv --output-plugin "$6" "--$7=$8" -o "$TMP/m.cmd" "$many" 2> "$TMP/err.2"
		low=$(awk -v a="$(cut "$(pruned "$TMP/err.1")")" -v b="$(cut "$(pruned "$TMP/err.2")")" \
			'BEGIN { if (a != "" && b != "" && a + 0 != b + 0) print (a + 0 < b + 0 ? a : b) }')
		is "$(cut "$line")" "${low:-two different cuts}" "two outputs, $name: pruned at the smaller cut"
	else
		is "$line" "" "two outputs, $name: the whole tree"
	fi
}
multi "svg and icicle" yes svg width 300 icicle minwidth 0.5
multi "two flame charts" yes flamechart width 300 flamechart minwidth 0.5
multi "svg and a flame chart" no svg width 300 flamechart minwidth 0.5
multi "svg and hotcold" no svg width 300 hotcold width 300

done_testing
