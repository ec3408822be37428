#!/bin/sh
# Input plugin sample: macOS /usr/bin/sample call graphs.  No Debian tool
# writes them: tests/data/sample/safari.txt was written by hand from the
# report's documented layout (sample(1), stackcollapse-sample.awk's
# comments).  It collapses to what tests/oracle/sample.py, an independent
# reading, says, with --no-modules and --waiting too; then errors, CRLF
# and gzip.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/sample"
ORACLE="$FK_SRCDIR/tests/oracle/sample.py"
. "$FK_SRCDIR/tests/oracle/check.sh"

fixtures sample "$D"
check "$D/safari.txt" "--no-modules" --no-modules -- --no-modules
check "$D/safari.txt" "--waiting" --waiting -- --format sample --waiting
run "$FLAMEKIT" collapse "$D/safari.txt"
ok $(printf '%s\n' "$out" | grep -q 'mach_msg_trap\|__psynch_cvwait'; [ $? -eq 1 ]; echo $?) \
	"the waits are left out, as stackcollapse-sample.awk does"
is "$(printf '%s\n' "$out" | grep -c 'AppKit`-\[NSApplication(NSEvent) sendEvent:\];WebCore`WebCore::Page::render(int, char const\*);WebCore`WebCore::RenderLayer::paint() 250$')" 1 \
	"names with blanks kept whole, modules without .dylib"

collapse_text sample jump.txt 'Call graph:\n    10 Thread_1\n    + 10 main  (in a) + 1  [0x1]\n    +     4 f  (in a) + 1  [0x2]\n'
is "$rc:$out:$err" "1::flamekit: $TMP/jump.txt:4: this line is 2 levels below the one before (one at most)" "a level skipped: exit 1"
collapse_text sample more.txt 'Call graph:\n    10 Thread_1\n    + 12 main  (in a) + 1  [0x1]\n'
is "$rc:$out:$err" "1::flamekit: $TMP/more.txt:3: this count (12) is more than what its caller has left" \
	"a child counting more than its caller: exit 1"
collapse_text sample stray.txt 'Call graph:\n    10 Thread_1\n    + 10 main  (in a) + 1  [0x1]\n  stray\n'
is "$rc:$out:$err" "0:Thread_1;a\`main 10:flamekit: warning: $TMP/stray.txt: skipped 1 unreadable line (line 4)" \
	"a stray line in the call graph: skipped and counted"
crlf_gzip sample "$D/safari.txt"

done_testing
