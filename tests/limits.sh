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
printf ';;;; 5\n;;a;; 2\n' > "$TMP/seps2.folded"
run "$FLAMEKIT" collapse --format folded "$TMP/seps2.folded"
is "$rc:$out:$err" "0:;;a 2:" "empty fields: trailing ones dropped, leading ones kept, an empty stack not printed"

done_testing
