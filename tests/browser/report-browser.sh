#!/bin/sh
# The report's figures a person trusts, in headless Chromium (issue 28):
# heat-map cells exact on their boundaries, every thread in the flame chart,
# each figure in its own series' unit, the total on the root, in the status
# line and the Thread menu, a damaged report's sentence on the page in
# bounded time, a link's search shown in the box and unable to hang the
# page, and the top table equal to go tool pprof -top.  Expected figures
# from awk over the input.  Skipped without chromium.
. "$FK_SRCDIR/tests/lib.sh"
not_sanitized "the report in a browser" "Chromium"

. "$FK_SRCDIR/tests/browser/report-lib.sh"
HOVER='(function (fx, fy) { var c = document.getElementById("cv"), r = c.getBoundingClientRect();
	c.dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + fx, clientY: r.top + fy, bubbles: true }));
	return document.getElementById("details").textContent; })'

# --- three threads, samples every 10 ms: half of them on a 20 ms boundary,
# among them 580 ms and 1160 ms, where 1160 * 0.001 s, a float, falls in the
# cell before -------------------------------------------------------------
awk 'BEGIN { for (i = 0; i < 250; i++) { th = i % 3; ms = 10 * i
	printf "t%d 100/%d [000] %d.%06d: %d cpu-clock:\n\t400100 f%d_%d+0x1 (/bin/prog)\n\t400200 main+0x2 (/bin/prog)\n\n",
		th, 100 + th, 5 + int(ms / 1000), (ms % 1000) * 1000, 1000000 + 1000 * i + th, th, i % 2 } }' > "$TMP/three.txt"
"$FLAMEKIT" graph --format perf --output-plugin html -o "$TMP/three.html" "$TMP/three.txt" 2> /dev/null
ok $? "a report of three threads"
# awk: per 20 ms cell after the first sample, "cell weight", cells with samples
awk '/cpu-clock:$/ { sub(":", "", $4); split($4, a, "."); ms = (a[1] - 5) * 1000 + int(a[2] / 1000); w[int(ms / 20)] += $5 }
	END { for (k in w) print k, w[k] }' "$TMP/three.txt" | sort -n > "$TMP/cells.want"
CELLS='(function () { var e = document.getElementById("cv"), b = e.getBoundingClientRect(), wh = e.dataset.cell.split("x"), out = [];
	for (var c = 0; c * wh[0] < e.clientWidth - 10; c++) for (var r = 0; r < 50; r++) {
		e.dispatchEvent(new MouseEvent("mousemove", { clientX: b.left + (c + 0.5) * wh[0], clientY: b.top + (r + 0.5) * wh[1], bubbles: true }));
		var d = document.getElementById("details"), v = +d.dataset.samples;
		if (v > 0) out.push((c * 50 + r) + " " + v + " " + d.textContent);
	}
	return out.join("|"); })()'
page "$TMP/three.html" '#view=heatmap' "cells=$CELLS" '#view=chart' "bands=document.getElementById('cv').dataset.bands"
clean "three threads"
lines() { ans "$1" | tr '|' '\n'; } # an answer of several lines
lines cells | cut -d' ' -f1,2 > "$TMP/cells.got"
same_file "$TMP/cells.want" "$TMP/cells.got" "every heat-map cell holds its samples, those on a boundary too"
K=$(awk '$1 == 58 { print $2 }' "$TMP/cells.want")
is "$(lines cells | awk '$1 == 58 { $1 = $2 = ""; sub(/^  /, ""); print }')" "Time: 1.16 s, $(hns "$K")" \
	"the 1.16 s cell's text: its time and its weight in human and exact units"
# --- the flame chart of "all": one band per thread, each its own stacks
WANT=$(awk '/cpu-clock:$/ { split($2, a, "/"); n[a[2]]++ } END { for (t in n) print t }' "$TMP/three.txt" | sort -n | tr '\n' ' ')
is "$(ans bands | tr ' ' '\n' | cut -d: -f1 | tr '\n' ' ')" "$WANT" "flame chart, all threads: one band per thread"
# hover each band's root row (the thread's comm, as perf's folded stacks
# start) and its leaf row, at the middle of the time axis
BANDS="(function () { return document.getElementById('cv').dataset.bands.split(' ').map(function (b) {
	var r = b.split(':').map(Number), y = 4 + (r[1] + r[2] - 0.5) * 16;
	return [$HOVER(640, y), $HOVER(640, y - 32)].map(function (t) { return t.replace(/ [(].*/, ''); }).join(' / '); }).join('|'); })()"
page "$TMP/three.html" '#view=chart' "b=$BANDS"
clean "flame chart bands"
is "$(lines b | sed 's/f\([0-9]\)_[01]$/f\1_N/')" "$(printf 'Function: t%d / Function: f%d_N\n' 0 0 1 1 2 2)" \
	"each thread's band holds its own root frame and functions"

# the same on a V8 profile: a sample every 10 ms, give or take 1 us (times
# in us from startTime), each weighing the time to the next; python computes
# the cells
"$PYTHON3" - "$TMP/v8.cpuprofile" "$TMP/v8cells.want" <<'PY'
import json, sys
n = 230
deltas = [0] + [10000 + (i % 3 == 0) - (i % 3 == 1) for i in range(1, n)]
samples = [2 + i % 2 for i in range(n)]
t, ts = 5000000, []
for d in deltas:
    t += d
    ts.append(t)
end = ts[-1] + 10000
prof = {"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1}, "children": [2, 3]},
                  {"id": 2, "callFrame": {"functionName": "a", "url": "", "lineNumber": -1}},
                  {"id": 3, "callFrame": {"functionName": "b", "url": "", "lineNumber": -1}}],
        "startTime": 5000000, "endTime": end, "samples": samples, "timeDeltas": deltas}
json.dump(prof, open(sys.argv[1], "w"))
cells = {}
for i, t in enumerate(ts):
    w = (ts[i + 1] if i + 1 < n else end) - t
    ms = (t - ts[0]) // 1000  # the report's 1 ms resolution
    cells[ms // 20] = cells.get(ms // 20, 0) + w * 1000
with open(sys.argv[2], "w") as f:
    for k in sorted(cells):
        f.write("%d %d\n" % (k, cells[k]))
PY
"$FLAMEKIT" graph --output-plugin html -o "$TMP/v8.html" "$TMP/v8.cpuprofile"
page "$TMP/v8.html" '#view=heatmap' "cells=$CELLS"
clean "v8 heat map"
lines cells | cut -d' ' -f1,2 > "$TMP/v8cells.got"
same_file "$TMP/v8cells.want" "$TMP/v8cells.got" "V8: every heat-map cell holds its samples' time, those on a boundary too"

# --- V8 frames: FUNCTION (FILE:LINE) drawn, the whole url in the status
# line and the tooltip, as DevTools shows them; python reads the JSON -------
"$PYTHON3" - "$TMP/urls.cpuprofile" "$TMP/urls.want" <<'PY'
import json, sys
u1, u2 = "file:///srv/app/main.js", "https://cdn.example/v2/<b>&\"x\".js?v=1"
prof = {"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1}, "children": [2]},
                  {"id": 2, "callFrame": {"functionName": "main", "url": u1, "lineNumber": 0}, "children": [3]},
                  {"id": 3, "callFrame": {"functionName": "", "url": u2, "lineNumber": 41}}],
        "samples": [3, 3, 2]}
json.dump(prof, open(sys.argv[1], "w"))
with open(sys.argv[2], "w") as f:  # zoom path, then each frame's name and url
    short = lambda fn, u, l: "%s (%s:%d)" % (fn or "(anonymous)", u.rsplit("/", 1)[-1], l + 1)
    a, b = short("main", u1, 0), short("", u2, 41)
    f.write("%s;%s\n%s\t%s\n%s\t%s\n" % (a, b, a, u1, b, u2))
PY
"$FLAMEKIT" graph --output-plugin html -o "$TMP/urls.html" "$TMP/urls.cpuprofile" 2> /dev/null
ok $? "a report of a V8 profile with urls"
ZP=$(sed -n 1p "$TMP/urls.want" | "$PYTHON3" -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.stdin.read().strip(), safe=""))')
WHERE="'\t' + document.getElementById('where').textContent + '\t' + $DET.title"
page "$TMP/urls.html" "#zoom=$ZP" "main=$HOVER(640,(document.getElementById('cv').clientHeight-4-24)) + $WHERE" \
	"anon=$HOVER(640,(document.getElementById('cv').clientHeight-4-40)) + $WHERE" \
	'#view=top' "row=Array.prototype.map.call(document.querySelectorAll('#top tbody td:first-child'), function (c) { return c.textContent + '\t' + c.title; }).sort().join('|')"
clean "V8 urls"
for k in 2 3; do
	N=$(sed -n ${k}p "$TMP/urls.want" | cut -f1) U=$(sed -n ${k}p "$TMP/urls.want" | cut -f2)
	[ $k = 2 ] && A=$(ans main) || A=$(ans anon)
	case $A in
	"Function: $N ("*")	$U	$U") ok 0 "V8: hovering $N names it short, its url in the status line and the tooltip" ;;
	*) ok 1 "V8: hovering $N names it short, its url in the status line and the tooltip (got: $A)" ;;
	esac
done
is "$(lines row)" "$(sed 1d "$TMP/urls.want" | sort)" "V8: the top table's rows, each with its url as a tooltip"

# --- the total: on the root, in the status line, in the Thread menu -------
ALL=$(awk '/cpu-clock:$/ { s += $5 } END { print s }' "$TMP/three.txt")
per() { awk -v t="$1" '/cpu-clock:$/ { split($2, a, "/"); if (a[2] == t) s += $5 } END { print s }' "$TMP/three.txt"; }
MENU='Array.prototype.map.call(document.getElementById("thread").options, function (o) { return o.textContent; }).join("|")'
page "$TMP/three.html" '#' "idle=$DET.textContent" "root=$HOVER(640,(document.getElementById('cv').clientHeight-4-8))" "menu=$MENU"
clean "totals"
is "$(ans idle)" "Total: $(hns "$ALL")" "the status line shows the profile's total"
is "$(ans root)" "Function: all ($(hns "$ALL"), 100.00%)" "hovering the root: all (total, 100%)"
is "$(ans menu)" "all ($(hns "$ALL"))|process 100 ($(hns "$ALL"))|t0 tid 100 ($(hns "$(per 100)"))|t1 tid 101 ($(hns "$(per 101)"))|t2 tid 102 ($(hns "$(per 102)"))" \
	"the Thread menu: the total of all, of the process and of each thread"

# --- two series: each figure in its own unit ------------------------------
awk 'BEGIN { for (i = 0; i < 40; i++) { ev = i % 3 ? "cpu-clock" : "page-faults"; p = i % 3 ? 250000 + i * 1000 : 1 + i % 5
	printf "prog 7/7 [000] 1.%06d: %d %s:\n\t400100 f%d+0x1 (/bin/prog)\n\t400200 main+0x2 (/bin/prog)\n\n", i * 1000, p, ev, i % 4 } }' > "$TMP/ev.txt"
"$FLAMEKIT" graph --format perf --series-by-event cpu-clock,page-faults --output-plugin html -o "$TMP/ev.html" "$TMP/ev.txt" 2> /dev/null
ev() { awk -v e="$1" -v f="$2" '/^[^\t]/ { w = $6 == e ":" ? $5 : 0 } /^\t/ && $2 ~ "^" f "\\+" { s += w } END { print s + 0 }' "$TMP/ev.txt"; }
PF=$(ev page-faults main) CPU=$(ev cpu-clock main) PF2=$(ev page-faults f2) CPU2=$(ev cpu-clock f2)
page "$TMP/ev.html" '#' "root=$HOVER(640,(document.getElementById('cv').clientHeight-4-8))" '#zoom=prog;main;f2' \
	"f2=$HOVER(640,(document.getElementById('cv').clientHeight-4-56))"
clean "two series"
is "$(ans root)" "Function: all ($(grp "$PF") page-faults, 100.00%, was $(hns "$CPU"))" \
	"two series: the widths in page-faults, the was value in ns"
is "$(ans f2)" "Function: f2 ($(grp "$PF2") page-faults, $(pct2 "$PF2" "$PF")%, was $(hns "$CPU2"))" "and on a frame"

# --- a differential's label on saturated blue is white, as in the SVG ---
printf 'm;shrank 400 10\nm;keep 100 100\n' > "$TMP/blue.txt"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/blue.html" "$TMP/blue.txt"
"$FLAMEKIT" graph "$TMP/blue.txt" | grep -A1 '<title>shrank' > "$TMP/blue.svg"
# pixels of the row of shrank (two above all): in its fill's x range, the text's
LABEL='(function () { var c = document.getElementById("cv"), d = devicePixelRatio, y = Math.round((c.clientHeight - 4 - 2.5 * 16) * d),
	p = c.getContext("2d").getImageData(0, y - 3 * d, c.width, 6 * d).data, w = c.width, lo = w, hi = -1, white = 0, black = 0, i, x;
	for (x = 0; x < w; x++) { i = 4 * (3 * d * w + x); if (p[i] === 0 && p[i + 1] === 0 && p[i + 2] === 255) { lo = Math.min(lo, x); hi = x; } }
	for (i = 0; i < p.length; i += 4) { x = (i / 4) % w; if (x < lo || x > hi) continue;
		if (p[i] > 200 && p[i + 1] > 200) white++; else if (p[i] < 60 && p[i + 1] < 60 && p[i + 2] < 60) black++; }
	return (hi > lo ? "blue" : "none") + " " + (white > 0 ? "white" : "no-white") + " " + (black > 0 ? "black" : "no-black"); })()'
page "$TMP/blue.html" '#' "label=$LABEL"
clean "differential label"
grep -q 'fill="rgb(0,0,255)"' "$TMP/blue.svg" && grep -q '<text  fill="#fff"' "$TMP/blue.svg"
ok $? "the SVG draws shrank in saturated blue with a white label"
is "$(ans label)" "blue white no-black" "the page too: a white label on the saturated blue frame, no black text"

# --- a damaged report: the reader's sentence on the page, in bounded time --
"$PYTHON3" - "$TMP/three.html" "$TMP" <<'PY'
import sys
s = open(sys.argv[1], encoding="utf-8").read()
d = sys.argv[2]
i = s.index('"tree":"') + 8
j = s.index('"', i)
open(d + "/half.html", "w").write(s[:i + (j - i) // 2] + s[j:])   # the tree cut in half
open(d + "/bang.html", "w").write(s[:i + 10] + "!!!!" + s[i + 14:])  # 4 bytes replaced by !!!!
k = s.index("</script>", s.index('id="fk-data"'))
open(d + "/nodata.html", "w").write(s[:k - 50])                     # cut inside the data
open(d + "/short.html", "w").write(s[:-200])                         # cut 200 bytes short
PY
for f in half bang nodata; do
	"$FLAMEKIT" collapse "$TMP/$f.html" > /dev/null 2> "$TMP/$f.err"
	is "$?" 1 "$f: flamekit collapse refuses it"
	timeout 30 "$PYTHON3" "$CDP" "$CHROMIUM" "$TMP/$f.html" '#' "e=document.documentElement.dataset.error" \
		"d=$DET.textContent" > "$TMP/ans" 2> /dev/null
	ok $? "$f: the page is ready within 30 s"
	want=$(sed "s|^flamekit: $TMP/$f.html: ||" "$TMP/$f.err")
	is "$(ans e)" "$want" "$f: the page says what the reader says"
	is "$(ans d)" "error: $want" "$f: in the status line"
done
"$FLAMEKIT" collapse "$TMP/short.html" > /dev/null 2>&1
ok $? "the report cut 200 bytes short keeps its data: the reader reads it"
timeout 30 "$PYTHON3" "$CDP" "$CHROMIUM" "$TMP/short.html" '#' "e=document.documentElement.dataset.error" > "$TMP/ans" 2> /dev/null
is "$(ans e)" "the report's code is cut short: the file is damaged" "but the page's code is cut: the page says so"

# --- a link's search: shown in the box, matched as text -------------------
awk 'BEGIN { print "main;aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa! 5"; print "main;x^(a+)+$y 2"; print "main;b 3" }' > "$TMP/re.txt"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/re.html" "$TMP/re.txt"
timeout 30 "$PYTHON3" "$CDP" "$CHROMIUM" "$TMP/re.html" '#search=^(a%2B)%2B$' "m=$MAT.dataset.samples" \
	"box=document.getElementById('searchbox').className + ' ' + document.getElementById('term').value" \
	"typed=$TYPE('^b\$')" > "$TMP/ans" 2> /dev/null
ok $? "a link searching ^(a+)+\$ does not hang the page"
is "$(ans box)" 'open ^(a+)+$' "a link's search opens the box with its term"
is "$(ans m)" "$(awk 'index($1, "^(a+)+$") { s += $NF } END { print s }' "$TMP/re.txt")" "a link's unbounded regex is matched as text"
is "$(ans typed)" "$(matched '^b$' "$TMP/re.txt")" "a typed term is a regex"
timeout 30 "$PYTHON3" "$CDP" "$CHROMIUM" "$TMP/re.html" '#search=^(b|x)' "m=$MAT.dataset.samples" \
	"mode=document.getElementById('searchmode').textContent" > "$TMP/ans" 2> /dev/null
is "$(ans m):$(ans mode)" "$(matched '^(b|x)' "$TMP/re.txt"):" "a link's regex that runs in bounded time stays a regex"

# --- the top table: self and total equal go tool pprof -top ---------------
GO=$(command -v go || true)
cp "$FK_SRCDIR/tests/data/html/recursion.txt" "$TMP/top.txt"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/top.html" "$TMP/top.txt"
ROWS='Array.prototype.map.call(document.querySelectorAll("#top tbody tr"), function (r) {
	return [r.cells[0].textContent, r.cells[1].dataset.v, r.cells[2].dataset.v].join(" "); }).join("|")'
page "$TMP/top.html" '#view=top' "rows=$ROWS" '#view=top&tsort=self' "self=$ROWS" '#view=top&search=a' "filt=$ROWS" \
	"click=(function () { document.querySelector('#top tbody tr').cells[0].click(); return location.hash + ' ' + $DET.textContent; })()"
clean "top table"
if [ -n "$GO" ]; then
	"$FLAMEKIT" graph --output-plugin pprof -o "$TMP/top.pb.gz" "$TMP/top.txt"
	HOME=$TMP GOCACHE=$TMP/go "$GO" tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 "$TMP/top.pb.gz" 2> /dev/null |
		awk 'f { print $6, $1, $4 } /flat%/ { f = 1 }' | sort > "$TMP/top.want"
	lines rows | sort > "$TMP/top.got"
	same_file "$TMP/top.want" "$TMP/top.got" "top table: each function's self and total = go tool pprof -top"
else
	skip "top table against pprof" "go not installed"
fi
# awk: each function's total (once per stack) and self, heaviest first, ties by name
awk '{ n = split($1, f, ";"); delete seen; for (i = 1; i <= n; i++) if (!seen[f[i]]++) t[f[i]] += $NF; s[f[n]] += $NF }
	END { for (k in t) print k, s[k] + 0, t[k] }' "$TMP/top.txt" > "$TMP/top.awk"
is "$(lines rows | tr '|' '\n')" "$(sort -k3,3nr -k1,1 "$TMP/top.awk")" "sorted by total: the heaviest first"
is "$(lines self | tr '|' '\n')" "$(sort -k2,2nr -k1,1 "$TMP/top.awk")" "tsort=self: the heaviest self first"
is "$(lines filt | cut -d' ' -f1 | sort | tr '\n' ' ')" "$(tr ' ;' '\n\n' < "$TMP/top.txt" | grep -v '^[0-9]*$' | grep a | sort -u | tr '\n' ' ')" \
	"the search filters the rows"
FIRST=$(lines filt | head -1 | cut -d' ' -f1)
FT=$(awk -v f="$FIRST" '$1 == f { print $3 }' "$TMP/top.awk")
is "$(ans click)" "#view=sandwich&search=a&fn=$FIRST Function: $FIRST ($FT samples, $(pct2 "$FT" "$(total "$TMP/top.txt")")%)" \
	"a row's click opens its sandwich"
done_testing
