#!/bin/sh
# flamekit diff (difffolded.pl's output) and flamekit merge (== collapse of
# the concatenation, streamed when sorted, rebuilt in memory when not).
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/folded"
DIFF="$FK_CONFORMANCE/svg/diff"

# ---- diff -----------------------------------------------------------------
if [ -d "$DIFF" ]; then
	for c in ":diff.txt" "-n:diff-n.txt" "-s:diff-s.txt" "--normalize:diff-n.txt" "--strip-hex:diff-s.txt"; do
		opt=${c%%:*}
		"$FLAMEKIT" diff $opt "$DIFF/before.txt" "$DIFF/after.txt" > "$TMP/d" 2> "$TMP/e"
		same_file "$DIFF/${c#*:}" "$TMP/d" "diff $opt matches difffolded.pl${opt:+ $opt} (sorted)"
	done
else
	skip "diff conformance" "no conformance corpus at $FK_CONFORMANCE"
fi

printf 'a;b 1\nb 2\n' > "$TMP/b1"
printf 'a;b 5\n' > "$TMP/a1"
run "$FLAMEKIT" diff -n "$TMP/b1" "$TMP/a1"
is "$rc:$out" "0:a;b 1 5
b 3 0" "-n: int(before * total_after / total_before), truncated"
run "$FLAMEKIT" diff -ns "$TMP/b1" "$TMP/a1"
is "$rc:$out" "0:a;b 1 5
b 3 0" "-ns bundles both flags"

: > "$TMP/empty"
run "$FLAMEKIT" diff "$TMP/empty" "$TMP/a1"
is "$rc:$out" "0:a;b 0 5" "empty BEFORE: still two columns"
run "$FLAMEKIT" diff -n "$TMP/empty" "$TMP/a1"
is "$rc:$out" "0:a;b 0 5" "empty BEFORE with -n: nothing to scale (difffolded.pl divides by zero)"
run "$FLAMEKIT" diff "$TMP/b1" "$TMP/empty"
is "$rc:$out" "0:a;b 1 0
b 2 0" "empty AFTER: still two columns"
printf 'a 0\n' > "$TMP/zero"
run "$FLAMEKIT" diff "$TMP/zero" "$TMP/zero"
is "$rc:$out" "0:a 0 0" "all-zero sides keep their stacks and both columns"

printf 'f;0xAbC;0x;0x0x12;g0x1f 1\nf;0xdef;0x;0x0x99;g0x2 2\n' > "$TMP/hex"
run "$FLAMEKIT" diff -s "$TMP/hex" "$TMP/empty"
is "$rc:$out" "0:f;0x...;0x;0x...x12;g0x... 1 0
f;0x...;0x;0x...x99;g0x... 2 0" "-s: s/0x[0-9a-fA-F]+/0x.../g on every frame"

printf 'a;b 1.5\na;b 2.25\n' > "$TMP/frac"
run "$FLAMEKIT" diff "$TMP/frac" "$TMP/a1"
is "$rc:$out" "0:a;b 3.75 5" "fractional counts summed"

run "$FLAMEKIT" diff "$D/basic.txt" "$TMP/a1" --format auto
is "$rc:$(echo "$out" | head -2)" "0:a;b 0 5
main 0 0" "--format auto"

printf 'a 1 2\n' > "$TMP/two"
run "$FLAMEKIT" diff "$TMP/two" "$TMP/a1"
is "$rc:$out:$err" "1::flamekit: $TMP/two: has two-column (differential) lines; diff compares two ordinary profiles" \
	"a differential input is refused"
run "$FLAMEKIT" diff "$TMP/a1"
is "$rc:$err" "2:flamekit: diff: needs two files, BEFORE and AFTER
Try 'flamekit help diff' for more information." "one file is a usage error"
run "$FLAMEKIT" diff "$TMP/a1" "$TMP/a1" "$TMP/a1"
is "$rc:$(echo "$err" | head -1)" "2:flamekit: diff: takes two files, BEFORE and AFTER" "three files are a usage error"
run "$FLAMEKIT" diff "$TMP/a1" "$TMP/missing"
is "$rc:$err" "1:flamekit: $TMP/missing: cannot open: No such file or directory" "missing AFTER"
run "$FLAMEKIT" diff -o "$TMP/d.out" "$TMP/b1" "$TMP/a1"
is "$rc:$out:$(cat "$TMP/d.out")" "0::a;b 1 5
b 2 0" "-o FILE"

# ---- merge ----------------------------------------------------------------
# merge must print what collapse prints for the concatenation (collapse
# reads its files one after the other into one profile).
check_merge() { # check_merge NAME FILE...
	name=$1
	shift
	"$FLAMEKIT" collapse -q --format folded "$@" > "$TMP/want" 2>&1
	"$FLAMEKIT" merge -q "$@" > "$TMP/got" 2>&1
	same_file "$TMP/want" "$TMP/got" "$name"
}

printf 'a;b 1\na;c 2\nb 3\n' > "$TMP/s1"
printf 'a 0\na;b 4\na;d 1.5\nc 1\n' > "$TMP/s2"
printf 'a;b 0.1\nb 0.2\n' > "$TMP/f1"
printf 'a;b 0.2\nb 0.3\n' > "$TMP/f2"
printf 'a;b 0.3\nb 0.7\n' > "$TMP/f3"
run "$FLAMEKIT" merge "$TMP/s1" "$TMP/s2"
is "$rc:$out" "0:a 0
a;b 5
a;c 2
a;d 1.5
b 3
c 1" "merge of two sorted files"
check_merge "sorted files, zero and fractional counts" "$TMP/s1" "$TMP/s2" "$TMP/f1"
check_merge "fractional sums in file order, as collapse adds them" "$TMP/f1" "$TMP/f2" "$TMP/f3"
check_merge "fractional sums, files reversed" "$TMP/f3" "$TMP/f2" "$TMP/f1"
printf 'a 1 2\nb 0 3\n' > "$TMP/d1"
printf 'a 0 0\n' > "$TMP/d0"
check_merge "two-column files" "$TMP/d1" "$TMP/d1"
check_merge "one- and two-column files" "$TMP/s1" "$TMP/d1"
check_merge "a two-column file with zero counts stays two-column" "$TMP/d0"
run "$FLAMEKIT" merge "$TMP/d0"
is "$rc:$out" "0:a 0 0" "... and prints both zeros"
printf 'a;b; 1\na;b.x 1\na;b;; 1\n' > "$TMP/trail"
check_merge "trailing ';' are dropped as collapse drops them" "$TMP/trail" "$TMP/s1"
printf 'x 1\n 5\nnot a stack\n; 2\ny 1\n  3\n' > "$TMP/junk"
run "$FLAMEKIT" merge "$TMP/junk"
is "$rc:$out:$err" "0:  3
x 1
y 1:flamekit: warning: $TMP/junk: skipped 1 unreadable line (line 3)" "unreadable lines skipped and counted, empty stacks dropped, a ' ' frame kept"
check_merge "... as collapse does" "$TMP/junk" "$TMP/s1"
gzip -c "$TMP/s2" > "$TMP/s2.gz"
check_merge "gzip input" "$TMP/s1" "$TMP/s2.gz"

# unsorted inputs
printf 'b 1\na 2\na;b 1\n' > "$TMP/u1"
check_merge "an unsorted file: rebuilt in memory" "$TMP/u1" "$TMP/s1"
run "$FLAMEKIT" merge -v "$TMP/s1" "$TMP/u1"
is "$rc:$err" "0:flamekit: $TMP/u1:2: not sorted; merging in memory instead" "-v says why it left the stream"
run "$FLAMEKIT" merge -o "$TMP/m.out" "$TMP/u1" "$TMP/s1"
is "$rc:$(cat "$TMP/m.out")" "0:$("$FLAMEKIT" collapse --format folded "$TMP/u1" "$TMP/s1")" "unsorted input, -o FILE"
check_merge "a two-column line after one-column ones" "$TMP/s1" "$TMP/d1" "$TMP/u1"
printf 'a 1\nb 1\nc 1 2\n' > "$TMP/mixed"
check_merge "a file turning two-column half way" "$TMP/mixed"
run sh -c "cat '$TMP/u1' | '$FLAMEKIT' merge - '$TMP/s1'"
is "$rc:$out:$err" "1::flamekit: <stdin>:2: not sorted; merge streams sorted inputs and cannot start over in memory because <stdin> cannot be read again; write to a file with -o, or sort the inputs with LC_ALL=C sort, or use 'flamekit collapse --format folded'" \
	"unsorted stdin: an error, no partial output"
run sh -c "LC_ALL=C sort '$TMP/u1' | '$FLAMEKIT' merge - '$TMP/s1'"
is "$rc:$out" "0:$("$FLAMEKIT" collapse --format folded "$TMP/u1" "$TMP/s1")" "sorted stdin streams"

# A big unsorted input on a pipe: part of the result is out when the
# disorder shows; merge must fail rather than print a wrong result.
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "s%06d 1\n", i; print "a 1" }' > "$TMP/late"
run sh -c "'$FLAMEKIT' merge '$TMP/late' | wc -l"
ok $(echo "$err" | grep -q "late:40001: not sorted; merge streams sorted inputs and cannot start over in memory because part of the result is already on stdout"; echo $?) \
	"late disorder with a pipe on stdout: a clear error"
echo "something before" > "$TMP/late.out"
"$FLAMEKIT" merge "$TMP/late" >> "$TMP/late.out" 2> "$TMP/e"
rc=$?
{ echo "something before"; "$FLAMEKIT" collapse --format folded "$TMP/late"; } > "$TMP/late.want"
ok $([ $rc -eq 0 ] && cmp -s "$TMP/late.want" "$TMP/late.out"; echo $?) \
	"late disorder with stdout on a file: rewound to where it started and rebuilt"

if [ -d "$FK_CONFORMANCE" ]; then
	check_merge "every expected folded file of the corpus" "$FK_CONFORMANCE"/*/expected/*.txt
	check_merge "the corpus' diff files (two columns)" "$DIFF"/diff*.txt
else
	skip "merge of the corpus" "no conformance corpus"
fi

# Against an oracle that is not flamekit: awk sums each stack of the
# concatenation, LC_ALL=C sort orders them (stacks of [a-z0-9_;], so a
# line's byte order is its stack's).  Six sorted files of overlapping
# stacks stream through the heap; the same files unsorted are summed in
# memory; a job file with folded inputs and the folded output sums them too.
f=0
set --
while [ $f -lt 6 ]; do
	awk -v f=$f 'BEGIN { srand(f + 1); for (i = 0; i < 400; i++) {
		s = "fn" int(rand() * 4); d = int(rand() * 4)
		for (j = 0; j < d; j++) s = s ";fn" int(rand() * 4) (rand() < 0.2 ? "_x" : "")
		print s, 1 + int(rand() * 9) } }' > "$TMP/o$f.raw"
	LC_ALL=C sort "$TMP/o$f.raw" > "$TMP/o$f.folded"
	set -- "$@" "$TMP/o$f.folded"
	f=$((f + 1))
done
cat "$@" | awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | LC_ALL=C sort > "$TMP/o.want"
run "$FLAMEKIT" merge -v -o "$TMP/o.got" "$@"
is "$rc:$err" "0:" "six sorted files: streamed (-v says nothing of memory)"
same_file "$TMP/o.want" "$TMP/o.got" "six sorted files: awk's sums, in LC_ALL=C sort order"
run "$FLAMEKIT" merge -v "$TMP"/o*.raw
printf '%s\n' "$out" > "$TMP/o.got"
case $rc:$err in
"0:flamekit: $TMP/o"[0-5]".raw:"*": not sorted; merging in memory instead") ok 0 "the same files unsorted: summed in memory" ;;
*) ok 1 "the same files unsorted: summed in memory (exit $rc: $err)" ;;
esac
same_file "$TMP/o.want" "$TMP/o.got" "the same files unsorted: awk's sums"
printf 'inputs:\n  - path: o*.raw\n    format: folded\noutputs:\n  - {plugin: folded, path: o.job}\n' > "$TMP/o.yaml"
run "$FLAMEKIT" run "$TMP/o.yaml"
is "$rc:$out:$err" "0::" "a job of folded inputs into the folded output"
same_file "$TMP/o.want" "$TMP/o.job" "... sums as merge does: awk's sums"
# Without the folded plugins sorted files still stream; the in-memory sum
# needs them, and says which is missing.
mkdir "$TMP/noplugins"
FLAMEKIT_PLUGIN_PATH="$TMP/noplugins" "$FLAMEKIT" merge "$@" > "$TMP/o.got" 2> "$TMP/e"
is "$?:$(cat "$TMP/e")" "0:" "no plugins: sorted files stream"
same_file "$TMP/o.want" "$TMP/o.got" "no plugins: awk's sums"
echo "old" > "$TMP/keep.out"
FLAMEKIT_PLUGIN_PATH="$TMP/noplugins" "$FLAMEKIT" merge -o "$TMP/keep.out" "$TMP"/o*.raw 2> "$TMP/e"
is "$?:$(cat "$TMP/e"):$(cat "$TMP/keep.out")" "1:flamekit: merge: no input plugin named \"folded\" (available: none; is FLAMEKIT_PLUGIN_PATH right?)
Try 'flamekit help merge' for more information.:old" \
	"no plugins, unsorted files: the missing plugin named, -o FILE untouched"

run "$FLAMEKIT" merge
is "$rc:$err" "2:flamekit: merge: give the folded files to merge
Try 'flamekit help merge' for more information." "no files: usage error"
run "$FLAMEKIT" merge "$TMP/s1" "$TMP/missing"
is "$rc:$err" "1:flamekit: $TMP/missing: cannot open: No such file or directory" "missing input: exit 1"
run "$FLAMEKIT" merge --shard 0/2 "$TMP/s1"
is "$rc:$(echo "$err" | head -1)" "2:flamekit: merge: --shard does not apply to merge (its inputs are already folded); merge the shards' outputs instead" \
	"--shard is refused"
echo "old" > "$TMP/keep.out"
run "$FLAMEKIT" merge -o "$TMP/keep.out" "$TMP/s1" "$TMP/missing"
is "$rc:$(cat "$TMP/keep.out")" "1:old" "a failed merge leaves -o FILE untouched"

# ---- collapse of folded input: whole stacks summed, no stack tree ----------
# collapse (and merge's in-memory fallback) sum folded stacks by their text;
# graph --output-plugin folded still goes through the stack tree.  Both must
# give the same bytes, edge cases included.
printf 'a;b 5\na;b;c 3\na 0\n;x 2\na;;b 1\n;; 4\nb;a 1.5\nb;a 2.25\n a b;c 7\nbad line\n\na b 3\na;b 2\n' > "$TMP/fs1"
printf 'x;y 1 2\nx 3\nx;y 0.5 0\n 1 2\n' > "$TMP/fs2"
printf 'q 1\n' > "$TMP/fs3"
for f in fs1 fs2 "fs1 fs2" "fs3 fs2"; do
	set -- $f
	files=
	for x in "$@"; do files="$files $TMP/$x"; done
	run "$FLAMEKIT" collapse $files
	fast="$rc:$out:$err"
	run "$FLAMEKIT" graph --output-plugin folded $files
	is "$fast" "$rc:$out:$err" "collapse of folded $f: the same bytes and messages as the stack tree"
done
run "$FLAMEKIT" collapse "$TMP/fs1"
is "$rc:$out" "0: a b;c 7
;x 2
a 0
a b 3
a;;b 1
a;b 7
a;b;c 3
b;a 3.75" "collapse of folded: whole stacks summed in input order, byte order"
run "$FLAMEKIT" collapse "$TMP/fs3" "$TMP/fs2"
is "$rc:$out" "0:q 1 0
x 3 0
x;y 1.5 2" "a two-column line anywhere makes every line two-column"
gzip -c "$TMP/fs1" > "$TMP/fs1.gz"
run "$FLAMEKIT" collapse "$TMP/fs1.gz"
fast="$rc:$out:$err"
run "$FLAMEKIT" collapse --format folded < "$TMP/fs1"
is "$fast" "$rc:$out:$(echo "$err" | sed "s|<stdin>|$TMP/fs1.gz|")" "gzip and stdin: the same sums"

done_testing
