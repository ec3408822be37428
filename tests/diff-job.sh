#!/bin/sh
# A job's `diff` key (flamekit-job(5)): BEFORE and AFTER, -n and -s, into
# any output.  Folded: difffolded.pl's own output (the conformance corpus,
# sorted); SVG: the bytes `flamekit diff | flamekit graph` writes.  Errors
# at job.yaml:line:col.
. "$FK_SRCDIR/tests/lib.sh"
DIFF="$FK_CONFORMANCE/svg/diff"
cd "$TMP" || exit 1

# job TEXT: write job.yaml and run it
job() {
	printf '%s\n' "$1" > job.yaml
	shift
	run "$FLAMEKIT" run "$@" job.yaml
}

# ---- difffolded.pl's outputs, as `flamekit diff` writes them -----------------
if [ -d "$DIFF" ]; then
	cp "$DIFF/before.txt" "$DIFF/after.txt" .
	for c in "false:false:diff.txt:" "true:false:diff-n.txt:-n" "false:true:diff-s.txt:-s"; do
		IFS=: read -r n s expected opt <<-END
		$c
		END
		job "diff:
  before: before.txt
  after: {path: after.txt, format: folded}
  normalize: $n
  strip-hex: $s
outputs:
  - {plugin: folded, path: d.folded}
  - {plugin: svg, path: d.svg}"
		is "$rc:$err" "0:" "diff job normalize: $n, strip-hex: $s runs"
		same_file "$DIFF/$expected" d.folded "folded output is difffolded.pl${opt:+ $opt}'s (sorted)"
		"$FLAMEKIT" diff $opt before.txt after.txt > cli.folded
		same_file cli.folded d.folded "folded output is flamekit diff${opt:+ $opt}'s bytes"
		"$FLAMEKIT" graph cli.folded > cli.svg
		same_file cli.svg d.svg "svg output is flamekit diff${opt:+ $opt} | flamekit graph's bytes"
	done
	# a job's filters apply to each side: no stack with a frame "gc"
	awk '{ n = split($1, f, ";"); for (i = 1; i <= n; i++) if (f[i] == "gc") next; print }' \
		"$DIFF/diff.txt" > expected
	job 'diff: {before: before.txt, after: after.txt}
filters: [{plugin: grep, exclude: "^gc$"}]
outputs: [{plugin: folded, path: "-"}]'
	is "$rc:$err" "0:" "diff job with a filter runs"
	same_file expected "$TMP/out" "the filter drops stacks from both sides (difffolded.pl's output, awk-filtered)"
else
	skip "diff job conformance" "no conformance corpus at $FK_CONFORMANCE"
fi

# ---- sides as lists, summed; -n's arithmetic; -s ------------------------------
printf 'a;b 1\n' > b1
printf 'b 2\n' > b2
printf 'a;b 5\n' > a1
job 'diff:
  before: [b1, {path: b2}]
  after: a1
  normalize: true
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$out:$err" "0:a;b 1 5
b 3 0:" "lists of inputs summed per side; normalize: int(before * 5 / 3)"
printf 'f;0xAbC;g 1\n' > h1
printf 'f;0xdef;g 2\n' > h2
job 'diff: {before: h1, after: h2, strip-hex: true}
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$out:$err" "0:f;0x...;g 1 2:" "strip-hex: 0x<hex> becomes 0x... on both sides"
job 'diff: {before: h1, after: h2}
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$out:$err" "0:f;0xAbC;g 1 0
f;0xdef;g 0 2:" "normalize and strip-hex default to false"
job 'diff: {before: h1, after: h2, strip-hex: true}
outputs: [{plugin: folded, path: "-"}]' --check
is "$rc:$out:$err" "0::flamekit: job.yaml: the job is valid" "run --check validates a diff job"

# ---- errors --------------------------------------------------------------------
# bad TEXT EXPECTED NAME: the job fails with exit 2 and EXPECTED on stderr,
# writing nothing, and --check says the same.
bad() {
	job "$1"
	is "$rc:$out:$err" "2::$2" "$3"
	job "$1" --check
	is "$rc:$out:$err" "2::$2" "$3 (--check)"
}
OUT='outputs: [{plugin: folded, path: "-"}]'
bad "inputs: [b1]
diff: {before: b1, after: a1}
$OUT" "flamekit: job.yaml:2:1: a job has inputs or diff, not both" "diff together with inputs"
bad "diff: {before: b1, after: a1}
filters: [{plugin: grep}]
$OUT" "flamekit: [filter:grep] job.yaml:2:11: the grep filter needs an include or an exclude pattern" "a diff job's bad filter, reported once"
bad "diff: {before: b1, after: a1, normalise: true}
$OUT" "flamekit: job.yaml:1:31: unknown key 'normalise' in diff (allowed: before, after, normalize, strip-hex)" "unknown key in diff"
bad "diff: [b1, a1]
$OUT" "flamekit: job.yaml:1:7: diff must be a mapping, not a list" "diff not a mapping"
bad "diff: {after: a1}
$OUT" "flamekit: job.yaml:1:7: diff needs before (the baseline's inputs)" "diff without before"
bad "diff: {before: b1}
$OUT" "flamekit: job.yaml:1:7: diff needs after (the inputs compared with before)" "diff without after"
bad "diff: {before: b1, after: a1, normalize: maybe}
$OUT" "flamekit: job.yaml:1:42: normalize must be true or false, not \"maybe\"" "normalize not a boolean"
bad "diff: {before: b1, after: a1, strip-hex: [x]}
$OUT" "flamekit: job.yaml:1:42: strip-hex must be text, not a list" "strip-hex not a scalar"
bad "diff: {before: [], after: a1}
$OUT" "flamekit: job.yaml:1:16: the before list is empty" "empty before list"
bad "diff: {before: b1, after: missing}
$OUT" "flamekit: job.yaml:1:27: cannot read \"missing\": No such file or directory" "after names a missing file"
bad "diff: {before: b1, after: {path: a1, colour: red}}
$OUT" "flamekit: job.yaml:1:38: unknown key 'colour' in an input (allowed: path, format, series, demangle, options)" "a side's input is checked as an inputs item"
bad "diff: {before: b1, after: a1}
outputs: [{plugin: folded, path: b1}]" "flamekit: job.yaml:2:34: the output \"b1\" would overwrite the input \"b1\"" "an output over a side's input"

done_testing
