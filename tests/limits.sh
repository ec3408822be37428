#!/bin/sh
# Limits that must hold: a 16 MB line, a 100,000-frame stack, a million
# distinct frames, a file of only separators.  Each finishes (the make
# check timeout would catch a quadratic path) with exact output.
. "$FK_SRCDIR/tests/lib.sh"

# A 16 MB line: 16,384 frames of 1,000 bytes each, printed back whole.
awk 'BEGIN { f = sprintf("%1000s", ""); gsub(/ /, "x", f); printf "root";
	for (i = 0; i < 16384; i++) printf ";%s", f; print " 3" }' > "$TMP/wide.folded"
run "$FLAMEKIT" collapse --format folded "$TMP/wide.folded"
ok $([ "$rc" -eq 0 ] && [ -z "$err" ] && printf '%s\n' "$out" | cmp -s - "$TMP/wide.folded"; echo $?) \
	"a 16 MB line is read and printed back byte for byte"

# 100,000 frames in one stack, with the SVG output too (no recursion).
awk 'BEGIN { printf "f0"; for (i = 1; i < 100000; i++) printf ";f%d", i; print " 1" }' > "$TMP/deep.folded"
run "$FLAMEKIT" collapse --format folded "$TMP/deep.folded"
ok $([ "$rc" -eq 0 ] && printf '%s\n' "$out" | cmp -s - "$TMP/deep.folded"; echo $?) "a 100,000-frame stack"
run "$FLAMEKIT" graph -o "$TMP/deep.svg" "$TMP/deep.folded"
ok $([ "$rc" -eq 0 ] && xmllint --noout --huge "$TMP/deep.svg" 2>/dev/null; echo $?) \
	"a 100,000-frame stack renders to well-formed SVG"

# A million distinct frames: a million stacks, each printed once, sorted.
awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "main;frame_%07d %d\n", i, 1 + i % 3 }' > "$TMP/many.folded"
run "$FLAMEKIT" collapse --format folded --threads 2 "$TMP/many.folded"
is "$rc:$(printf '%s\n' "$out" | wc -l | tr -d ' '):$(printf '%s\n' "$out" | head -1):$(printf '%s\n' "$out" | tail -1)" \
	"0:1000000:main;frame_0000000 1:main;frame_0999999 1" "a million distinct frames"
ok $(printf '%s\n' "$out" | cmp -s - "$TMP/many.folded"; echo $?) "... in byte order, counts kept"

# Only separators: no count, so every line is skipped and reported once;
# with counts, the empty trailing fields are dropped (as Perl's split does)
# and an empty stack is not printed.
awk 'BEGIN { for (i = 0; i < 50000; i++) print ";;;;;;;;;;" }' > "$TMP/seps.folded"
run "$FLAMEKIT" collapse --format folded "$TMP/seps.folded"
is "$rc:$out:$err" "0::flamekit: warning: $TMP/seps.folded: skipped 50000 unreadable lines (lines 1, 2, 3, 4, 5, ...)" \
	"a file of only separators: every line skipped, reported once"
collapse_text folded seps2.folded ';;;; 5\n;;a;; 2\n'
is "$rc:$out:$err" "0:;;a 2:" "empty fields: trailing ones dropped, leading ones kept, an empty stack not printed"

# A sample's time must be within 2^62 ns of 0 (exclusive, the limit v8's and
# pprof's readers apply), whatever input pushes it: the engine refuses
# another at the push, before any output subtracts two times.  The test
# input "meta" pushes the time its line gives.
mkdir "$TMP/mods"
cp "$FK_BUILDDIR/tests/modules/.libs/meta.so" "$TMP/mods/"
meta_time() { printf 'x 1 1 %s\tmain;a 1\n' "$@" > "$TMP/t.meta"; }
Y="is beyond the +-2^62 ns flamekit can order (146 years either side of 0)"
meta_time 5 9223372036854775807
echo old > "$TMP/t.svg"
run "$FLAMEKIT" graph --plugin-dir "$TMP/mods" --format meta --flamechart -o "$TMP/t.svg" "$TMP/t.meta"
is "$rc:$err:$(cat "$TMP/t.svg")" "1:flamekit: $TMP/t.meta: a sample's time, 9223372036854775807 ns, $Y:old" \
	"a time of INT64_MAX: one error naming the input, exit 1, the old output kept"
run "$FLAMEKIT" collapse --plugin-dir "$TMP/mods" --format meta "$TMP/t.meta"
is "$rc:$out:$err" "1::flamekit: $TMP/t.meta: a sample's time, 9223372036854775807 ns, $Y" \
	"collapse refuses it too (no output)"
meta_time -9223372036854775808
run "$FLAMEKIT" graph --plugin-dir "$TMP/mods" --format meta --output-plugin pprof -o "$TMP/t.pb" "$TMP/t.meta"
is "$rc:$err:$([ -e "$TMP/t.pb" ]; echo $?)" "1:flamekit: $TMP/t.meta: a sample's time, -9223372036854775808 ns, $Y:1" \
	"a time of INT64_MIN: refused, no pprof file written"
meta_time 4611686018427387904
run "$FLAMEKIT" graph --plugin-dir "$TMP/mods" --format meta --output-plugin html -o "$TMP/t.html" "$TMP/t.meta"
is "$rc:$err:$([ -e "$TMP/t.html" ]; echo $?)" "1:flamekit: $TMP/t.meta: a sample's time, 4611686018427387904 ns, $Y:1" \
	"a time of 2^62 exactly: refused (as pprof's reader refuses it)"
meta_time -4611686018427387904
run "$FLAMEKIT" collapse --plugin-dir "$TMP/mods" --format meta "$TMP/t.meta"
is "$rc:$err" "1:flamekit: $TMP/t.meta: a sample's time, -4611686018427387904 ns, $Y" "a time of -2^62: refused"
printf 'x 1 1 4611686018427387903\tmain;a 1\nx 1 1 -4611686018427387903\tmain;b 2\n' > "$TMP/t.meta"
run "$FLAMEKIT" graph --plugin-dir "$TMP/mods" --format meta --flamechart -o "$TMP/t.svg" "$TMP/t.meta"
is "$rc:$err:$(sed -n 's/^<title>\([ab] [^<]*\)<.*/\1/p' "$TMP/t.svg")" "0::b (9,223,372,036,855 ms, 100.00%)" \
	"times of 2^62 - 1 and -(2^62 - 1): a flame chart spanning 2^63 - 2 ns"
# an --interval beyond any span of times: each sample lasts until the next
run "$FLAMEKIT" graph --plugin-dir "$TMP/mods" --format meta --flamechart --interval 1e300 -o "$TMP/t.svg" "$TMP/t.meta"
is "$rc:$err:$(sed -n 's/^<title>\([ab] [^<]*\)<.*/\1/p' "$TMP/t.svg")" "0::b (9,223,372,036,855 ms, 100.00%)" \
	"--interval 1e300 over times of +-(2^62 - 1): no overflow, the same chart"
run "$FLAMEKIT" graph --plugin-dir "$TMP/mods" --format meta --output-plugin html -o "$TMP/t.html" "$TMP/t.meta"
is "$rc:$err" "0:" "times of +-(2^62 - 1): an html report"

# The html timeline's quantum, llround(--time-resolution * 1e6) ns, is
# refused out of range before it is rounded: a usage error naming it.
for v in 1e300 1e-300 1000000.1; do
	run "$FLAMEKIT" graph --output-plugin html --time-resolution="$v" -o "$TMP/r.html" "$FK_SRCDIR/tests/data/folded/basic.txt"
	is "$rc:$err:$([ -e "$TMP/r.html" ]; echo $?)" "2:flamekit: [output:html] --time-resolution must be between 0.000001 and 1000000 ms:1" \
		"--time-resolution=$v: a usage error, no report"
done
run "$FLAMEKIT" graph --output-plugin html --time-resolution=1e300 -o "$TMP/r.html" "$TMP/nosuch.folded"
is "$rc:$err" "2:flamekit: [output:html] --time-resolution must be between 0.000001 and 1000000 ms" \
	"--time-resolution is checked before any input is read"
printf 'inputs: [%s]\noutputs:\n  - plugin: html\n    path: r.html\n    options: {time-resolution: 1e300}\n' \
	"$FK_SRCDIR/tests/data/folded/basic.txt" > "$TMP/r.yaml"
run "$FLAMEKIT" run --check "$TMP/r.yaml"
is "$rc:$err" "2:flamekit: [output:html] $TMP/r.yaml:3:5: --time-resolution must be between 0.000001 and 1000000 ms" \
	"run --check: a job's html time-resolution refused with its place"

done_testing
