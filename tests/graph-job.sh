#!/bin/sh
# One pipeline for every command (issue 27): for every output plugin and a
# set of inputs (folded files, the conformance corpus, a perf text capture,
# a pprof, a v8 profile), `flamekit graph --output-plugin P` (and `flamekit
# collapse`) write the same bytes as the equivalent one-output job run by
# `flamekit run`.  Neither side is the oracle: the job is the engine's one
# documented path, and a command taking a shortcut of its own must not
# differ from it.  Each comparison also checks that both succeeded and
# wrote something.
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

done_testing
