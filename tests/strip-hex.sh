#!/bin/sh
# The strip-hex filter (difffolded.pl -s: s/0x[0-9a-fA-F]+/0x.../g on each
# stack before summing): collapse and graph --strip-hex, a job's filter,
# diff -s and a diff job's strip-hex.  The oracle is sed and awk on the
# folded text, the regex difffolded.pl applies.
. "$FK_SRCDIR/tests/lib.sh"
cd "$TMP" || exit 1
LC_ALL=C
export LC_ALL

# names with many hex runs, uppercase digits, 0X (not a match), 0x without a
# digit, runs next to each other, invalid UTF-8 bytes, a perf annotation,
# and stacks that differ only by addresses (summed once stripped)
printf '%s\n' \
	'main;f+0x1a;g 2' \
	'main;f+0x2B;g 3' \
	'main;f+0xFFFFffff0000;g 1' \
	'main;0x7f3a10c0;0xdeadBEEF 4' \
	'main;0x51;0xcafe 5' \
	'main;[0x1a2b0x3c+0x4d]  at 0xabcdef0123456789abcdef 6' \
	'main;a0x;0xg;0X1F;x0x 7' \
	'main;0x0x1;00x1f;0x-1 8' \
	'main;k0x10_[k];k0x20_[k] 9' \
	'main;0xz;0x0;0x00000 10' \
	'main;h0x1;h0x2;h0x3 11' \
	'main;h0xa;h0xb;h0xc 12' > names.folded
printf 'main;\377\3760x12\200;b 13\nmain;\377\3760xAB\200;b 14\n' >> names.folded

# stripped FILE: the oracle, FILE's stacks stripped and summed, sorted
stripped() {
	sed -E 's/0x[0-9a-fA-F]+/0x.../g' "$1" | awk '
		{ i = length($0); while (substr($0, i, 1) != " ") i--
		  sum[substr($0, 1, i - 1)] += substr($0, i + 1) }
		END { for (s in sum) print s " " sum[s] }' | sort
}
stripped names.folded > expected.folded
# the oracle itself: stacks merged, 0X and 0x without a digit kept
is "$(grep -c . expected.folded):$(grep -F 'main;f+0x...;g 6' expected.folded)" \
	"9:main;f+0x...;g 6" "the oracle merges stacks differing by addresses"

# ---- collapse and graph ----------------------------------------------------------
output_is expected.folded "collapse --strip-hex FILE is sed|awk's" \
	"$FLAMEKIT" collapse --strip-hex names.folded
output_is expected.folded "collapse --strip-hex from stdin" \
	sh -c '"$1" collapse --strip-hex < names.folded' sh "$FLAMEKIT"
output_is expected.folded "collapse --strip-hex with a narrowing option (after it)" \
	"$FLAMEKIT" collapse --strip-hex --focus '^main$' names.folded
grep -F -v 'h0x' expected.folded > focus.folded
output_is focus.folded "--ignore sees the names as read: h0x1 and h0xa are dropped" \
	"$FLAMEKIT" collapse --strip-hex --ignore 'h0x[1a]' names.folded
output_is expected.folded "graph --output-plugin folded --strip-hex" \
	"$FLAMEKIT" graph --output-plugin folded --strip-hex names.folded
# graph of a folded file takes a shortcut that draws names as they are
"$FLAMEKIT" graph expected.folded > expected.svg
output_is expected.svg "graph --strip-hex FILE draws the stripped stacks" \
	"$FLAMEKIT" graph --strip-hex names.folded
output_is expected.svg "graph --strip-hex from stdin" \
	sh -c '"$1" graph --strip-hex < names.folded' sh "$FLAMEKIT"
# the flame chart keeps the input's order: its lines stripped, not summed
sed -E 's/0x[0-9a-fA-F]+/0x.../g' names.folded > sed.folded
"$FLAMEKIT" graph --flamechart sed.folded > expected-chart.svg
output_is expected-chart.svg "graph --flamechart --strip-hex: the lines stripped, in order" \
	"$FLAMEKIT" graph --flamechart --strip-hex names.folded
run "$FLAMEKIT" collapse names.folded
is "$rc:$(printf '%s\n' "$out" | grep -c '0x\.\.\.')" "0:0" "without --strip-hex nothing is stripped"
run "$FLAMEKIT" collapse --strip names.folded
is "$rc" "2" "collapse --strip: only spelled whole"

# ---- a job's filter --------------------------------------------------------------
cat > job.yaml <<'EOF'
inputs: [names.folded]
filters:
  - plugin: strip-hex
outputs:
  - {plugin: folded, path: job.folded}
EOF
run "$FLAMEKIT" run job.yaml
is "$rc:$err" "0:" "a job with the strip-hex filter runs"
same_file expected.folded job.folded "a job's strip-hex filter is sed|awk's"
cat > bad.yaml <<'EOF'
inputs: [names.folded]
filters:
  - {plugin: strip-hex, upper: true}
outputs:
  - {plugin: folded, path: job.folded}
EOF
run "$FLAMEKIT" run bad.yaml
is "$rc:$err" "2:flamekit: bad.yaml:3:25: unknown key 'upper' in a filter (allowed: plugin, options)" \
	"the strip-hex filter has no options"

# ---- diff -s and a diff job's strip-hex --------------------------------------------
head -n 7 names.folded > before.folded
tail -n +4 names.folded | sed 's/ \([0-9]*\)$/ 1\1/' > after.folded
# diffed [-n]: difffolded.pl -s [-n], the two sides stripped, summed, joined
diffed() {
	stripped before.folded | sed 's/^/1 /' > sides
	stripped after.folded | sed 's/^/2 /' >> sides
	awk -v norm="$1" '
		{ side = substr($0, 1, 1); rest = substr($0, 3)
		  i = length(rest); while (substr(rest, i, 1) != " ") i--
		  s = substr(rest, 1, i - 1); c = substr(rest, i + 1)
		  w[side, s] += c; t[side] += c; seen[s] = 1 }
		END { for (s in seen) {
			b = w[1, s] + 0
			if (norm && t[1] != t[2]) b = int(b * t[2] / t[1])
			print s " " b " " w[2, s] + 0 } }' sides | sort
}
diffed "" > diff-s.folded
diffed 1 > diff-ns.folded
output_is diff-s.folded "diff -s is difffolded.pl -s (sed|awk)" \
	"$FLAMEKIT" diff -s before.folded after.folded
output_is diff-ns.folded "diff -n -s is difffolded.pl -n -s (sed|awk)" \
	"$FLAMEKIT" diff -ns before.folded after.folded
for ns in "false:diff-s.folded" "true:diff-ns.folded"; do
	n=${ns%%:*}
	cat > diff.yaml <<-EOF
	diff: {before: before.folded, after: after.folded, normalize: $n, strip-hex: true}
	outputs:
	  - {plugin: folded, path: diff.folded}
	EOF
	run "$FLAMEKIT" run diff.yaml
	is "$rc:$err" "0:" "diff job normalize: $n, strip-hex: true runs"
	same_file "${ns#*:}" diff.folded "diff job normalize: $n, strip-hex: true is sed|awk's"
done

done_testing
