#!/bin/sh
# The html output plugin and its read-back: `flamekit collapse report.html`
# (detected by content) gives exactly the folded text of the report's input,
# whatever the names hold; the page embeds nothing that can end its script
# elements, asks for nothing over the network, and is no bigger than the
# folded text on a profile without timestamps.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/html"

roundtrip() { # roundtrip NAME FILE [GRAPH OPTIONS]: report -> collapse == collapse
	name=$1 file=$2
	shift 2
	"$FLAMEKIT" collapse "$file" > "$TMP/want" 2> /dev/null
	"$FLAMEKIT" graph --output-plugin html -o "$TMP/r.html" "$@" "$file"
	ok $? "$name: report written"
	"$FLAMEKIT" collapse "$TMP/r.html" > "$TMP/got" 2> "$TMP/err"
	ok $? "$name: collapse report.html"
	same_file "$TMP/want" "$TMP/got" "$name: the same stacks as the input"
}

roundtrip "small" "$FK_SRCDIR/tests/data/svg/small.txt"
roundtrip "hostile names" "$D/hostile.txt"
roundtrip "differential" "$FK_SRCDIR/tests/data/svg/diff.txt"
roundtrip "two series" "$FK_SRCDIR/tests/data/svg/hotcold.txt"
is "$("$FLAMEKIT" collapse -v "$TMP/r.html" 2>&1 > /dev/null | grep detected)" \
	"flamekit: $TMP/r.html: detected format html" "a report is detected by its content"

# Two reports diff as their inputs do.
"$FLAMEKIT" graph --output-plugin html -o "$TMP/a.html" "$FK_SRCDIR/tests/data/svg/small.txt"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/b.html" "$D/hostile.txt"
"$FLAMEKIT" diff "$FK_SRCDIR/tests/data/svg/small.txt" "$D/hostile.txt" > "$TMP/want" 2> /dev/null
"$FLAMEKIT" diff --format auto "$TMP/a.html" "$TMP/b.html" > "$TMP/got" 2> /dev/null
same_file "$TMP/want" "$TMP/got" "diff of two reports = diff of their inputs"

# Every byte of a name survives: invalid UTF-8, U+2028, '</script>'.
"$FLAMEKIT" graph --output-plugin html -o "$TMP/h.html" "$D/hostile.txt"
is "$(grep -c '</script>' "$TMP/h.html")" 3 "only the page's own three </script> tags (guard, data, loader)"
is "$(grep -c "$(printf '\342\200\250')" "$TMP/h.html")" 0 "U+2028 never appears raw"
grep -q '\\u2028' "$TMP/h.html"
ok $? "U+2028 is written as an escape"
grep -q '\\u003c/script\\u003e' "$TMP/h.html"
ok $? "'<' in names is written as \\u003c"
grep -Eiq '(src|href)=|https?:|@import|url\(' "$TMP/h.html"
ok $((1 - $?)) "no reference to anything outside the file"
if [ -n "$PYTHON3" ]; then # the page's code, deflated in the report, is page.html's
	"$PYTHON3" - "$TMP/h.html" "$FK_SRCDIR/plugins/output/html/page.html" > "$TMP/code.js" <<'PY'
import re, zlib, base64, sys
h = open(sys.argv[1], encoding="utf-8", errors="replace").read()
z = re.search(r'\}\)\("([A-Za-z0-9+/=]+)"\);\n</script>', h).group(1)
code = zlib.decompress(base64.b64decode(z), -15).decode()
page = open(sys.argv[2]).read()
src = page[page.index("<script>\n", page.index("@@DATA@@")) + 9:page.rindex("</script>")]
sys.stdout.write(code if code == src else "differs from page.html\n")
PY
	grep -q '^function weigh()' "$TMP/code.js"
	ok $? "the report's deflated code is page.html's script"
	grep -Eiq '(src|href)=|https?:|@import|url\(|fetch\(|XMLHttpRequest|import\(' "$TMP/code.js"
	ok $((1 - $?)) "and it refers to nothing outside the file"
else
	skip "the page's code" "no python3"
fi
grep -q "default-src 'none'" "$TMP/h.html"
ok $? "a Content-Security-Policy forbids every request"

# A deep stack (iterative walks both ways) and a zero-weight stack.
awk 'BEGIN { s = "r"; for (i = 0; i < 20000; i++) s = s ";f" i % 7; print s " 5"; print "r;z 0" }' \
	> "$TMP/deep.txt"
roundtrip "20,000-frame stack" "$TMP/deep.txt"

# Weights that are not integers (a scaled profile) keep their value.
printf 'a;b 1.5\na;c 2.25\nd 0.125\n' > "$TMP/float.txt"
roundtrip "fractional weights" "$TMP/float.txt"

# A real perf capture with timestamps and threads.
STAIRS="$FK_SRCDIR/../shared/data/stairs.perf.txt.gz"
if [ -f "$STAIRS" ]; then
	roundtrip "perf capture" "$STAIRS" --format perf 2> /dev/null
	# times and threads come back: at --time-resolution=0.001 (perf's
	# microseconds) the flame chart of the report is the capture's, byte for
	# byte; at the default 1 ms it has the same threads.
	"$FLAMEKIT" graph --format perf --output-plugin flamechart -o "$TMP/want.svg" "$STAIRS" 2> /dev/null
	"$FLAMEKIT" graph --format perf --output-plugin html --time-resolution=0.001 -o "$TMP/us.html" "$STAIRS" 2> /dev/null
	"$FLAMEKIT" graph --output-plugin flamechart -o "$TMP/got.svg" "$TMP/us.html"
	same_file "$TMP/want.svg" "$TMP/got.svg" "perf -> html (1 us) -> flame chart = perf -> flame chart"
	"$FLAMEKIT" graph --output-plugin flamechart -o "$TMP/got1.svg" "$TMP/r.html"
	is "$(grep -o '>thread [0-9]*<' "$TMP/got1.svg" | sort -u | tr -d '<>' | tr '\n' ,)" \
		"$(grep -o '>thread [0-9]*<' "$TMP/want.svg" | sort -u | tr -d '<>' | tr '\n' ,)" \
		"perf -> html (1 ms) -> flame chart: the capture's threads"
	cmp -s "$TMP/want.svg" "$TMP/got1.svg"
	ok $((1 - $?)) "at 1 ms the flame chart's times are cut (the test can tell)"
	is "$(grep -c '"timed":1,"t0ns":"' "$TMP/r.html")" 1 "the report keeps the first sample's time in ns"
	"$FLAMEKIT" graph --format perf --output-plugin html --timeline=0 -o "$TMP/nt.html" "$STAIRS" 2> /dev/null
	tl=$(($(wc -c < "$TMP/r.html") - $(wc -c < "$TMP/nt.html")))
	fs=$(wc -c < "$TMP/want")
	[ "$tl" -le "$fs" ]
	ok $? "15,394 samples' timeline at 1 ms: $tl bytes <= the folded text's $fs"
else
	skip "perf capture" "no ../shared/data/stairs.perf.txt.gz"
fi

# --timeline=0 leaves the per-sample data out.
"$FLAMEKIT" graph --format perf --output-plugin html -o "$TMP/t1.html" "$FK_SRCDIR/tests/data/perf/names.txt" 2> /dev/null
"$FLAMEKIT" graph --format perf --output-plugin html --timeline=0 -o "$TMP/t0.html" "$FK_SRCDIR/tests/data/perf/names.txt" 2> /dev/null
is "$(grep -c '"timeline":"' "$TMP/t1.html") $(grep -c '"timeline":"' "$TMP/t0.html")" "1 0" \
	"perf samples' times are kept, and left out with --timeline=0"
"$FLAMEKIT" collapse "$TMP/t1.html" > "$TMP/t1.f"
"$FLAMEKIT" collapse "$TMP/t0.html" > "$TMP/t0.f"
[ -s "$TMP/t1.f" ] && cmp -s "$TMP/t0.f" "$TMP/t1.f"
ok $? "the same stacks either way"

# Size: the profile is smaller embedded than as folded text.
awk 'BEGIN{srand(3); for (i=0;i<20000;i++){ s="root"; d=5+int(rand()*20); for(j=0;j<d;j++) s=s ";fn_" int(rand()*2000) "_" j; printf "%s %d\n", s, 1+int(rand()*100)}}' \
	> "$TMP/big.txt"
"$FLAMEKIT" collapse "$TMP/big.txt" > "$TMP/big.folded"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/big.html" "$TMP/big.txt"
fs=$(wc -c < "$TMP/big.folded") hs=$(wc -c < "$TMP/big.html")
[ "$hs" -le "$fs" ]
ok $? "20,000 stacks: report $hs bytes <= folded $fs bytes"

# A damaged report: one message naming the file, no output.
sed 's/"tree":"0/"tree":"~/' "$TMP/h.html" > "$TMP/bad.html"
run "$FLAMEKIT" collapse "$TMP/bad.html"
is "$rc:$err" "1:flamekit: $TMP/bad.html: the report's stack tree is damaged at node 0" \
	"a damaged tree: one error naming the file"
# weights that are not JSON numbers (strtod took them: "a nan" came out)
for w in nan -inf 1e999 0x10; do
	printf '<meta name="generator" content="flamekit-html 1">\n<script type="application/json" id="fk-data">{"v":1,"names":["a","b"],"tree":"001011","fw":[%s,2]}</script>\n' \
		"$w" > "$TMP/fw.html"
	run "$FLAMEKIT" collapse "$TMP/fw.html"
	is "$rc:$out:$err" "1::flamekit: $TMP/fw.html: the report's weights are damaged at node 0" \
		"a weight $w in \"fw\": one error, no output"
done
# A unit whose first quote is escaped: its end was guessed at that quote,
# and the decoder wrote the 3,000 bytes after it into a 64-byte buffer
# (a segfault; fuzz-html's stack-buffer-overflow, fuzz/regress/html/).
# A unit that long is ignored, as one without an escape always was.
"$PYTHON3" -c 'import sys; sys.stdout.write("<meta name=\"generator\" content=\"flamekit-html 1\">\n<script type=\"application/json\" id=\"fk-data\">{\"v\":1,\"unit\":\"\\\"" + "x" * 3000 + "\",\"names\":[\"a\",\"b\"],\"tree\":\"002013\"}</script>\n")' \
	> "$TMP/unit.html"
run "$FLAMEKIT" collapse "$TMP/unit.html"
is "$rc:$out:$err" "0:a 1
a;b 2:" "a 3,000-byte unit after an escaped quote: ignored, the stacks read"
head -c "$(($(grep -b -o '"tree":"' "$TMP/h.html" | cut -d: -f1) + 20))" "$TMP/h.html" > "$TMP/cut.html"
run "$FLAMEKIT" collapse "$TMP/cut.html"
is "$rc:$err" "1:flamekit: $TMP/cut.html: the report's data has no end (</script>): the file is cut short" \
	"a truncated report: one error"
printf '<!DOCTYPE html>\n<html><head><meta name="generator" content="flamekit-html 1"></head></html>\n' \
	> "$TMP/empty.html"
run "$FLAMEKIT" collapse "$TMP/empty.html"
is "$rc:$err" "1:flamekit: $TMP/empty.html: not a flamekit HTML report: no <script type=\"application/json\" id=\"fk-data\"> ... </script> element" \
	"no data element: one error"
sed 's/"timeline":"./"timeline":"*/' "$TMP/r.html" > "$TMP/badtl.html"
if [ -f "$STAIRS" ]; then
	run "$FLAMEKIT" collapse "$TMP/badtl.html"
	is "$rc:$err" "1:flamekit: $TMP/badtl.html: the report's timeline is damaged (not deflated base64)" \
		"a damaged timeline: one error naming the file"
fi
# Threads come back with their names (comm): speedscope names each thread's
# profile "COMM tid T (pid P)" from the capture and from its report alike.
NAMES="$FK_SRCDIR/tests/data/perf/names.txt"
"$FLAMEKIT" graph --format perf --output-plugin speedscope -o "$TMP/want.json" "$NAMES" 2> /dev/null
"$FLAMEKIT" graph --format perf --output-plugin html -o "$TMP/names.html" "$NAMES" 2> /dev/null
"$FLAMEKIT" graph --output-plugin speedscope -o "$TMP/got.json" "$TMP/names.html"
tnames() { grep -o '"name":"[^"]* tid [0-9]* (pid [0-9]*)"' "$1" | sort | tr '\n' ' '; }
is "$(tnames "$TMP/got.json")" "$(tnames "$TMP/want.json")" "thread names (comm) come back from the report"
[ -n "$(tnames "$TMP/want.json")" ]
ok $? "and there are some"
# ... whatever the names hold: ']' (the reader once counted threads by
# brackets and lost the timeline) and a name longer than 255 bytes as
# escaped (once refused as a damaged timeline).
long=$(printf 'caf\303\251%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60)
printf 'a]b 12/13 [000] 1.000001: 1 cpu-clock:\n\tffff main (/bin/x)\n\n%s 14/15 [000] 1.002: 1 cpu-clock:\n\tffff foo (/bin/x)\n\tffff main (/bin/x)\n\n' "$long" > "$TMP/odd.txt"
"$FLAMEKIT" graph --format perf --output-plugin speedscope -o "$TMP/want.json" "$TMP/odd.txt" 2> /dev/null
"$FLAMEKIT" graph --format perf --output-plugin html -o "$TMP/odd.html" "$TMP/odd.txt" 2> /dev/null
run "$FLAMEKIT" graph --output-plugin speedscope -o "$TMP/got.json" "$TMP/odd.html"
is "$rc:$err:$(tnames "$TMP/got.json")" "0::$(tnames "$TMP/want.json")" "thread names with ']' and of 300 bytes come back"
is "$(tnames "$TMP/want.json" | wc -w)" 10 "and there are two"

# A timeline that inflates but lies (a run heavier than its stack, a cut
# stream, a time past 2^63 ns): one error each, never a hang.
"$FLAMEKIT" graph --format perf --output-plugin html -o "$TMP/n.html" "$FK_SRCDIR/tests/data/perf/names.txt" 2> /dev/null
if [ -n "$PYTHON3" ]; then
	"$PYTHON3" - "$TMP" <<'PY'
import re, zlib, base64, sys
d = sys.argv[1]
h = open(d + "/n.html").read()
m = re.search(r'"timeline":"([^"]*)"', h)
raw = zlib.decompress(base64.b64decode(m.group(1)), -15).decode()
def enc(s):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return base64.b64encode(c.compress(s.encode()) + c.flush()).decode()
for name, mod in (("heavy", raw[:-1] + "~~~~~~~1"), ("cut", raw[:len(raw) // 2]), ("late", "~~~~~~~~~~~~~1" + raw)):
    open("%s/%s.html" % (d, name), "w").write(h.replace(m.group(1), enc(mod)))
PY
	for n in heavy cut late; do
		run timeout 20 "$FLAMEKIT" collapse "$TMP/$n.html"
		is "$rc:$err" "1:flamekit: $TMP/$n.html: the report's timeline is damaged" "a lying timeline ($n): one error"
	done
else
	skip "lying timelines" "no python3"
fi
run "$FLAMEKIT" graph --output-plugin html --time-resolution=0 -o "$TMP/x.html" "$FK_SRCDIR/tests/data/svg/small.txt"
is "$rc:$err" "2:flamekit: [output:html] --time-resolution must be between 0.000001 and 1000000 ms" \
	"--time-resolution=0: one error"
run "$FLAMEKIT" graph --output-plugin html --colors nosuch -o "$TMP/x.html" "$FK_SRCDIR/tests/data/svg/small.txt"
is "$rc:$err" "2:flamekit: [output:html] unknown palette 'nosuch' for --colors (hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange, rust, python)" \
	"an unknown palette: one error"
[ ! -e "$TMP/x.html" ]
ok $? "and no report written"

# A job writes a report too (plugin: html), with its options.
cat > "$TMP/job.yaml" <<E
inputs:
  - path: $FK_SRCDIR/tests/data/svg/small.txt
output-dir: $TMP
outputs:
  - plugin: html
    path: job.html
    options:
      title: "a </script> title"
      colors: java
E
"$FLAMEKIT" run "$TMP/job.yaml"
ok $? "flamekit run with plugin: html"
grep -q '"title":"a \\u003c/script\\u003e title","palette":"java"' "$TMP/job.html"
ok $? "the job's title (escaped) and palette reach the report"
done_testing
