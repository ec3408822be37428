#!/bin/sh
# The html report in a real browser: headless Chromium, driven through the
# DevTools protocol by cdp.py, loads reports from file:// and is steered
# through the URL hash as a shared link would; every number the page shows
# is checked against one computed with awk from the input.  No page error,
# no request for anything outside the file.  Skipped without chromium.
. "$FK_SRCDIR/tests/lib.sh"
not_sanitized "the HTML report in a browser" "Chromium"

. "$FK_SRCDIR/tests/browser/report-lib.sh"

# --- a small profile with recursion ------------------------------------
cp "$FK_SRCDIR/tests/data/html/recursion.txt" "$TMP/small.txt"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/small.html" "$TMP/small.txt"
T=$(total "$TMP/small.txt")
page "$TMP/small.html" '#' "ready=document.documentElement.dataset.ready" \
	"ms=$TYPE('^(f|b)\$')" "m=$MAT.textContent" "mi=$TYPE('^G\$', 1)" \
	'#zoom=main;g' "z=$DET.textContent" \
	"crumbs=document.getElementById('crumbs').textContent" \
	'#view=sandwich&fn=f' "sand=$DET.textContent" "sw=$DET.dataset.samples" \
	'#view=icicle&sort=weight' "h=location.hash" \
	"esc=(function(){ location.hash='#zoom=main;f;g'; return new Promise(function(r){ setTimeout(function(){ window.dispatchEvent(new KeyboardEvent('keydown',{key:'Escape'})); r(location.hash + ' ' + $DET.textContent); }, 50); }); })()"
clean "small"
is "$(ans ready)" 1 "data-ready=1 after the first drawing"
M=$(matched '^(f|b)$' "$TMP/small.txt")
is "$(ans ms)" "$M" "typed search ^(f|b)\$: each sample once ($M of $T)"
is "$(ans m)" "Matched: $(pct1 "$M" "$T")%" "Matched: N% as computed with awk"
is "$(ans mi)" "$(matched '^g$' "$TMP/small.txt")" "ignore case: ^G\$ matches g"
Z=$(awk '$1 ~ /^main;g(;|$)/ { s += $NF } END { print s }' "$TMP/small.txt")
is "$(ans z)" "Zoomed: g ($Z samples, $(pct2 "$Z" "$T")%)" "zoom=main;g: details of the zoomed frame"
is "$(ans crumbs)" "all > main > g" "breadcrumbs of the zoom"
S=$(matched '^f$' "$TMP/small.txt")
is "$(ans sw)" "$S" "sandwich fn=f: recursion counted once ($S)"
is "$(ans sand)" "Function: f ($S samples, $(pct2 "$S" "$T")%)" "sandwich details"
is "$(ans h)" "#view=icicle&sort=weight" "the hash keeps the view"
F=$(awk '$1 ~ /^main;f(;|$)/ { s += $NF } END { print s }' "$TMP/small.txt")
is "$(ans esc)" "#zoom=main;f Zoomed: f ($F samples, $(pct2 "$F" "$T")%)" "Esc zooms out one level"

# What is drawn: the pixel at 10% of the width on the first row above "all"
# has main's colour, the same as the SVG's, and hovering there names main.
AT='(function (ev) { var c = document.getElementById("cv"), r = c.getBoundingClientRect(),
	x = r.left + c.clientWidth * 0.1, y = r.top + c.clientHeight - 4 - 1.5 * 16;
	c.dispatchEvent(new MouseEvent(ev, { clientX: x, clientY: y, bubbles: true }));
	var p = c.getContext("2d").getImageData(Math.round((x - r.left) * devicePixelRatio),
		Math.round((y - r.top) * devicePixelRatio), 1, 1).data;
	return document.getElementById("details").textContent + " rgb(" + p[0] + "," + p[1] + "," + p[2] + ")"; })'
FILL=$("$FLAMEKIT" graph "$TMP/small.txt" | grep -A2 '<title>main (' | sed -n 's/.*fill="\(rgb([0-9,]*)\)".*/\1/p')
MAIN=$(awk '$1 ~ /^main(;|$)/ { s += $NF } END { print s }' "$TMP/small.txt")
page "$TMP/small.html" '#' "hover=$AT(\"mousemove\")" "click=$AT(\"click\") && location.hash"
clean "hover and click"
is "$(ans hover)" "Function: main ($MAIN samples, $(pct2 "$MAIN" "$T")%) $FILL" \
	"hover names the frame under the mouse, drawn in flamegraph.pl's colour"
is "$(ans click)" "#zoom=main" "a click zooms and updates the hash"

# The sandwich's rows: f's direct callers above it, its direct callees below,
# each merged across call sites (awk: the frames next to the first f).
HOVER='(function (fx, y) { var c = document.getElementById("cv"), r = c.getBoundingClientRect();
	c.dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + c.clientWidth * fx, clientY: r.top + y, bubbles: true }));
	return document.getElementById("details").dataset.samples; })'
near() { # near OFFSET NAME: weight of lines whose first f has NAME at OFFSET from it
	awk -v o="$1" -v want="$2" '{ n = split($1, a, ";"); for (i = 1; i <= n; i++) if (a[i] == "f") {
		if (i + o >= 1 && i + o <= n && a[i + o] == want) s += $NF; break } } END { print s + 0 }' "$TMP/small.txt"
}
# rows of 16 px from y=4: callers take rows 0-1 (two levels above f), f row 2, callees row 3
page "$TMP/small.html" '#view=sandwich&fn=f' "main=$HOVER(0.35, 28)" "x=$HOVER(0.9, 28)" "g=$HOVER(0.5, 60)"
clean "sandwich rows"
is "$(ans main):$(ans x):$(ans g)" "$(near -1 main):$(near -1 x):$(near 1 g)" \
	"sandwich: callers main and x above f, callee g below, merged across call sites"

# Colours set by a filter: "#rrggbb" kept, a palette's name as the SVG draws it.
cat > "$TMP/colour.lua" <<'E'
function frame(f)
	if f.name == "main" then f:colour("#123456") elseif f.name == "other" then f:colour("green") end
end
E
cat > "$TMP/colour.yaml" <<E
inputs:
  - path: $TMP/small.txt
filters:
  - plugin: lua
    script: $TMP/colour.lua
output-dir: $TMP
outputs:
  - {plugin: html, path: colour.html}
  - {plugin: svg, path: colour.svg}
E
"$FLAMEKIT" run "$TMP/colour.yaml"
ok $? "a job with a colouring filter"
PIX='(function (fx) { var c = document.getElementById("cv"), r = c.getBoundingClientRect(),
	p = c.getContext("2d").getImageData(Math.round(c.clientWidth * fx * devicePixelRatio),
		Math.round((c.clientHeight - 4 - 1.5 * 16) * devicePixelRatio), 1, 1).data;
	return "rgb(" + p[0] + "," + p[1] + "," + p[2] + ")"; })'
GREEN=$(grep -A2 '<title>other (' "$TMP/colour.svg" | sed -n 's/.*fill="\(rgb([0-9,]*)\)".*/\1/p')
page "$TMP/colour.html" '#' "main=$PIX(0.1)" "other=$PIX(0.7)"
clean "filter colours"
is "$(ans main) $(ans other)" "rgb(18,52,86) $GREEN" "a filter's #123456 and green, as the SVG draws them"

# Sort: main's children are f and g; by name f comes first, by weight the
# heavier one (awk).  Hover at 5% of the width, two rows above "all".
HEAVY=$(awk '$1 ~ /^main;f(;|$)/ { f += $NF } $1 ~ /^main;g(;|$)/ { g += $NF } END { print (g > f ? "g" : "f") }' "$TMP/small.txt")
ROW2='(function () { var c = document.getElementById("cv"), r = c.getBoundingClientRect();
	c.dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + c.clientWidth * 0.05,
		clientY: r.top + c.clientHeight - 4 - 2.5 * 16, bubbles: true }));
	return document.getElementById("details").textContent.split(" ")[1]; })()'
page "$TMP/small.html" '#' "byname=$ROW2" '#sort=weight' "byweight=$ROW2"
clean "sort"
is "$(ans byname) $(ans byweight)" "f $HEAVY" "sort=name puts f first, sort=weight the heavier child"

# Keys: Ctrl+F and / open the search field; typing searches and updates the
# hash; the ignore-case box toggles; Esc closes the field.
KEYS='(function () { var t = document.getElementById("term"), out = [];
	window.dispatchEvent(new KeyboardEvent("keydown", { key: "f", ctrlKey: true, bubbles: true }));
	out.push(document.getElementById("searchbox").className, document.activeElement === t);
	t.value = "^G$"; t.dispatchEvent(new Event("input"));
	var ic = document.getElementById("icase"); ic.checked = true; ic.dispatchEvent(new Event("change"));
	out.push(location.hash, document.getElementById("matched").dataset.samples);
	window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
	out.push(document.getElementById("searchbox").className || "closed");
	window.dispatchEvent(new KeyboardEvent("keydown", { key: "/", bubbles: true }));
	out.push(document.getElementById("searchbox").className);
	return out.join(" "); })()'
page "$TMP/small.html" '#' "keys=$KEYS"
clean "keys"
is "$(ans keys)" "open true #search=^G\$&ignorecase=1 $(matched '^g$' "$TMP/small.txt") closed open" \
	"Ctrl+F, typing, ignore case, Esc, /"

# --- two series: differential widths, hot/cold in ms ---------------------
HC="$FK_SRCDIR/tests/data/svg/hotcold.txt"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/hc.html" "$HC"
page "$TMP/hc.html" '#zoom=app;main' "diff=$DET.textContent" '#two=hotcold&zoom=app;main' "hc=$DET.textContent"
clean "two series"
D2=$(awk '$1 ~ /^app;main(;|$)/ { s += $3 } { t += $3 } END { printf "%s samples, %.2f%%", s, 100 * s / t }' "$HC" |
	{ read -r n rest; echo "$(grp "$n") $rest"; })
is "$(ans diff)" "Zoomed: main ($D2)" "differential: widths are the second column"
HCMS=$(awk '{ ms = $2 * 1000 / 99 + $3 / 1000; t += ms } $1 ~ /^app;main(;|$)/ { s += ms }
	END { v = sprintf("%.3f", s); sub(/0+$/, "", v); sub(/\.$/, "", v); printf "%s ms, %.2f%%", v, 100 * s / t }' "$HC")
HCON=$(awk '$1 ~ /^app;main(;|$)/ { s += $2 * 1000 / 99 } END { v = sprintf("%.3f", s); sub(/0+$/, "", v); sub(/\.$/, "", v); print v }' "$HC")
HCOFF=$(awk '$1 ~ /^app;main(;|$)/ { s += $3 / 1000 } END { print s }' "$HC")
is "$(ans hc)" "Zoomed: main ($HCMS; on-CPU $HCON ms, off-CPU $HCOFF ms)" \
	"hot/cold: on-CPU samples at 99 Hz plus off-CPU us, in ms, and both parts"
# One picture as the hotcold plugin draws it: app's on-CPU part (left, in
# the palette) and its off-CPU part (after every on-CPU stack, in blues),
# each in the SVG's colour; hovering either names both parts.
PART='(function (fx) { var c = document.getElementById("cv"), r = c.getBoundingClientRect(),
	x = r.left + c.clientWidth * fx, y = r.top + c.clientHeight - 4 - 1.5 * 16;
	c.dispatchEvent(new MouseEvent("mousemove", { clientX: x, clientY: y, bubbles: true }));
	var p = c.getContext("2d").getImageData(Math.round((x - r.left) * devicePixelRatio),
		Math.round((y - r.top) * devicePixelRatio), 1, 1).data;
	return document.getElementById("details").textContent + " rgb(" + p[0] + "," + p[1] + "," + p[2] + ")"; })'
"$FLAMEKIT" graph --output-plugin hotcold -o "$TMP/hc.svg" "$HC"
HOT=$(grep -A1 '<title>app (' "$TMP/hc.svg" | sed -n 's/.*fill="\(rgb([0-9,]*)\)".*/\1/p' | sed -n 1p)
COLD=$(grep -A1 '<title>app (' "$TMP/hc.svg" | sed -n 's/.*fill="\(rgb([0-9,]*)\)".*/\1/p' | sed -n 2p)
APP=$(awk '$1 ~ /^app;/ { on += $2 * 1000 / 99; off += $3 / 1000 } { t += $2 * 1000 / 99 + $3 / 1000 }
	END { v = sprintf("%.3f", on + off); sub(/0+$/, "", v); w = sprintf("%.3f", on); sub(/0+$/, "", w)
		printf "Function: app (%s ms, %.2f%%; on-CPU %s ms, off-CPU %s ms)", v, 100 * (on + off) / t, w, off }' "$HC")
page "$TMP/hc.html" '#two=hotcold' "on=$PART(0.3)" "off=$PART(0.9)"
clean "hot/cold picture"
is "$(ans on)" "$APP $HOT" "hot/cold: app's on-CPU part in the hotcold SVG's colour"
is "$(ans off)" "$APP $COLD" "hot/cold: app's off-CPU part, after all on-CPU stacks, in the SVG's blue"

# --- hostile names never reach markup ----------------------------------
"$FLAMEKIT" graph --output-plugin html -o "$TMP/hostile.html" "$FK_SRCDIR/tests/data/html/hostile.txt"
page "$TMP/hostile.html" '#search=script' "n=document.querySelectorAll('script').length" \
	"m=$MAT.dataset.samples" "t=document.title"
clean "hostile names"
is "$(ans n)" 4 "no name added a script element (the page's: the guard, data, loader, the code it inflates)"
is "$(ans m)" "$(matched 'script' "$FK_SRCDIR/tests/data/html/hostile.txt")" "search over hostile names"
# Each hostile name zoomed to (a link's zoom=): #details shows it as text,
# byte for byte; bytes that are not UTF-8 as the characters U+0080..U+00FF
# the report keeps them as.  Expected texts and encoded links from python.
HOS="$FK_SRCDIR/tests/data/html/hostile.txt"
"$PYTHON3" - "$HOS" > "$TMP/hos" <<'PY'
import sys, urllib.parse
lines = open(sys.argv[1], "rb").read().split(b"\n")
tot = sum(float(l.rsplit(b" ", 1)[1]) for l in lines if l.strip())
for l in lines:
    if not l.startswith(b"main;") or l.count(b";") != 1:
        continue
    stack, w = l.rsplit(b" ", 1)
    name = stack[5:]
    if name not in (b"<script>alert(1)</script>", b"]]></script><script>alert(2)</script>",
                    b"\"quoted\" & 'single'", b"line\xe2\x80\xa8sep\xe2\x80\xa9para", b"bad\xff\xfeutf8\xc3"):
        continue
    try:
        shown = name.decode("utf-8")
    except UnicodeDecodeError:
        shown = name.decode("latin-1")
    link = urllib.parse.quote("main;" + shown, safe="")
    print("%s\tZoomed: %s (%d samples, %.2f%%)" % (link, shown, float(w), 100 * float(w) / tot))
PY
is "$(wc -l < "$TMP/hos")" 5 "five hostile names to zoom to"
page "$TMP/hostile.html" \
	"#zoom=$(sed -n 1p "$TMP/hos" | cut -f1)" "z1=$DET.textContent" "k1=$DET.children.length + document.getElementById('crumbs').getElementsByTagName('script').length" \
	"#zoom=$(sed -n 2p "$TMP/hos" | cut -f1)" "z2=$DET.textContent" \
	"#zoom=$(sed -n 3p "$TMP/hos" | cut -f1)" "z3=$DET.textContent" \
	"#zoom=$(sed -n 4p "$TMP/hos" | cut -f1)" "z4=$DET.textContent" "h4=$DET.innerHTML.indexOf('<') < 0" \
	"#zoom=$(sed -n 5p "$TMP/hos" | cut -f1)" "z5=$DET.textContent" \
	"n=document.querySelectorAll('script').length"
clean "hostile names zoomed"
for k in 1 2 3 4 5; do
	want=$(sed -n "${k}p" "$TMP/hos" | cut -f2-)
	is "$(ans z$k)" "$want" "hostile name $k shown as text in #details"
done
is "$(ans k1):$(ans h4):$(ans n)" "0:true:4" "no element made from a name, no markup in #details, no script added"

# --- a real perf capture: threads and time ranges ----------------------
STAIRS="$FK_SRCDIR/../shared/data/stairs.perf.txt.gz"
if [ -f "$STAIRS" ]; then
	"$FLAMEKIT" graph --format perf --output-plugin html -o "$TMP/stairs.html" "$STAIRS" 2> /dev/null
	# comm tid time: period event
	gzip -dc "$STAIRS" | awk '/^[^ \t#]/ { sub(":", "", $3); print $2, $3, $4 }' > "$TMP/samples"
	ALL=$(awk '{ s += $3 } END { printf "%.0f\n", s }' "$TMP/samples")
	TID=$(awk '{ n[$1]++ } END { for (t in n) if (n[t] > b) { b = n[t]; k = t } print k }' "$TMP/samples")
	TT=$(awk -v t="$TID" '$1 == t { s += $3 } END { printf "%.0f\n", s }' "$TMP/samples")
	# range 2.0-3.5 s after the first sample, times cut to the report's 1 ms
	RT=$(awk 'NR == 1 || $2 < t0 { t0 = $2 } { t[NR] = $2; w[NR] = $3 }
		END { for (i = 1; i <= NR; i++) { ms = int(int((t[i] - t0) * 1e6 + 0.5) / 1000);
			if (ms >= 2000 && ms < 3500) s += w[i] } printf "%.0f\n", s }' "$TMP/samples")

	page "$TMP/stairs.html" '#' "all=$DET.textContent" \
		"#thread=$TID" "th=$DET.textContent" \
		'#range=2-3.5' "r=$DET.textContent" \
		"#view=chart&thread=$TID&range=1-1.2" "cr=location.hash + ' ' + document.getElementById('rangeinfo').textContent" \
		'#view=heatmap' "hm=document.getElementById('cv').width > 0" \
		"#view=chart&thread=$TID" "chart=document.documentElement.dataset.drawMs !== undefined" \
		'#search=clear_page' "m=$MAT.dataset.samples"
	clean "perf capture"
	is "$(ans th)" "Shown: $(hns "$TT") ($(pct2 "$TT" "$ALL")% of all $(hns "$ALL"))" "thread=$TID: that thread's total"
	is "$(ans r)" "Shown: $(hns "$RT") ($(pct2 "$RT" "$ALL")% of all $(hns "$ALL"))" "range=2-3.5: that range's total"
	is "$(ans cr)" "#view=chart&thread=$TID&range=1-1.2 Range: 1 - 1.2 s" "a flame chart of a range of one thread: the hash kept"
	"$FLAMEKIT" collapse "$STAIRS" > "$TMP/stairs.folded" 2> /dev/null
	is "$(ans m)" "$(matched 'clear_page' "$TMP/stairs.folded")" "search on the capture"
	# the same range chosen on the heat map: a click on the cell at 2.00 s,
	# another on the one at 3.48 s (rows of 20 ms)
	CELL='(function (c, r) { var e = document.getElementById("cv"), b = e.getBoundingClientRect(),
		wh = e.dataset.cell.split("x");
		e.dispatchEvent(new MouseEvent("click", { clientX: b.left + (c + 0.5) * wh[0],
			clientY: b.top + (r + 0.5) * wh[1], bubbles: true })); return location.hash; })'
	page "$TMP/stairs.html" '#view=heatmap' "c1=$CELL(2, 0)" "c2=$CELL(3, 24)" "hr=$DET.textContent"
	clean "heat map"
	is "$(ans c2)" "#range=2-3.5" "two clicks on the heat map select 2.00-3.50 s and show its flame graph"
	is "$(ans hr)" "Shown: $(hns "$RT") ($(pct2 "$RT" "$ALL")% of all $(hns "$ALL"))" "the heat map's range: its total"
	# hovering a cell names its time and what it holds: 2.50-2.52 s, all
	# threads, and thread $TID alone
	HM='(function (c, r) { var e = document.getElementById("cv"), b = e.getBoundingClientRect(),
		wh = e.dataset.cell.split("x");
		e.dispatchEvent(new MouseEvent("mousemove", { clientX: b.left + (c + 0.5) * wh[0],
			clientY: b.top + (r + 0.5) * wh[1], bubbles: true })); return document.getElementById("details").textContent; })'
	cell() { awk -v tid="$1" 'NR == 1 || $2 < t0 { t0 = $2 } { t[NR] = $2; w[NR] = $3; id[NR] = $1 }
		END { for (i = 1; i <= NR; i++) { ms = int(int((t[i] - t0) * 1e6 + 0.5) / 1000);
			if (ms >= 2500 && ms < 2520 && (tid == "" || id[i] == tid)) s += w[i] } printf "%.0f\n", s }' "$TMP/samples"; }
	page "$TMP/stairs.html" '#view=heatmap' "all=$HM(2, 25)" "#view=heatmap&thread=$TID" "one=$HM(2, 25)"
	clean "heat map hover"
	is "$(ans all)" "Time: 2.50 s, $(hns "$(cell)")" "heat map cell 2.50 s: its samples' weight"
	is "$(ans one)" "Time: 2.50 s, $(hns "$(cell "$TID")")" "heat map cell 2.50 s of thread $TID"
else
	skip "perf capture" "no ../shared/data/stairs.perf.txt.gz"
fi

# --- processes and threads: thread=pPID and thread=TID ----------------------
awk 'BEGIN { for (i = 0; i < 30; i++) { p = i % 3 == 2 ? 200 : 100; t = i % 3 == 1 ? 101 : p
	printf "prog %d/%d [000] %d.%03d: %d cpu-clock:\n\t1 f%d+0x1 (/bin/prog)\n\t2 main+0x2 (/bin/prog)\n\n", p, t, 10, i * 10, 1000 + i, i % 4 } }' \
	> "$TMP/procs.txt"
"$FLAMEKIT" graph --format perf --output-plugin html -o "$TMP/procs.html" "$TMP/procs.txt" 2> /dev/null
sum() { awk -v want="$1" 'BEGIN { for (i = 0; i < 30; i++) { p = i % 3 == 2 ? 200 : 100; t = i % 3 == 1 ? 101 : p
	if (want == "p" p || want == t) s += 1000 + i; a += 1000 + i } printf "%d %.2f %d", s, 100 * s / a, a }' |
	{ read -r s p a; echo "$(hns "$s") ($p% of all $(hns "$a"))"; }; }
page "$TMP/procs.html" '#thread=p100' "p=$DET.textContent" '#thread=101' "t=$DET.textContent" \
	"opts=Array.prototype.map.call(document.getElementById('thread').options, function (o) { return o.value; }).join(',')"
clean "processes"
is "$(ans p)" "Shown: $(sum p100)" "thread=p100: both of process 100's threads"
is "$(ans t)" "Shown: $(sum 101)" "thread=101: that thread alone"
is "$(ans opts)" ",p100,100,101,p200,200" "the selector lists processes and their threads"

# --- a 2,000-deep stack draws whole ---------------------------------------
awk 'BEGIN { s = "r"; for (i = 0; i < 2000; i++) s = s ";f" i; print s " 10"; print "r;x 10" }' > "$TMP/deep.txt"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/deep.html" "$TMP/deep.txt"
# the deepest frame's row (2,001 above "all"), at 25% of the width
TOP='(function (row) { var c = document.getElementById("cv"), r = c.getBoundingClientRect(), fh = +c.dataset.row,
	x = r.left + c.clientWidth * 0.25, y = r.top + c.clientHeight - 4 - (row + 0.5) * fh;
	c.dispatchEvent(new MouseEvent("mousemove", { clientX: x, clientY: y, bubbles: true }));
	var p = c.getContext("2d").getImageData(Math.round((x - r.left) * devicePixelRatio),
		Math.round((y - r.top) * devicePixelRatio), 1, 1).data;
	return document.getElementById("details").textContent + (p[3] && (p[0] + p[1] + p[2] < 765) ? " drawn" : " blank"); })'
page "$TMP/deep.html" '#' "top=$TOP(2001)" "above=$TOP(2002)" "h=document.getElementById('cv').height <= 32767" \
	'#view=icicle' "itop=(function () { var c = document.getElementById('cv'), r = c.getBoundingClientRect(), fh = +c.dataset.row;
		c.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + c.clientWidth * 0.25, clientY: r.top + 4 + 2001.5 * fh, bubbles: true }));
		return document.getElementById('details').textContent; })()"
clean "2,000-deep stack"
is "$(ans top)" "Function: f1999 (10 samples, 50.00%) drawn" "the 2,001st row above all is drawn: f1999"
is "$(ans above)" "Total: 20 samples blank" "nothing above it: the status line shows the total"
is "$(ans h)" true "within a canvas' size limit"
is "$(ans itop)" "Function: f1999 (10 samples, 50.00%)" "icicle: the deepest frame at the bottom"

# --- a large generated profile -----------------------------------------
awk 'BEGIN{srand(3); for (i=0;i<30000;i++){ s="root"; d=5+int(rand()*20); for(j=0;j<d;j++) s=s ";fn_" int(rand()*2000) "_" j; printf "%s %d\n", s, 1+int(rand()*100)}}' \
	> "$TMP/big.txt"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/big.html" "$TMP/big.txt"
BT=$(total "$TMP/big.txt")
BM=$(matched '^fn_1[0-9]_' "$TMP/big.txt")
Z=$(awk '$1 ~ /^root;fn_7_0(;|$)/ { s += $NF } END { print s }' "$TMP/big.txt")
page "$TMP/big.html" '#' "ms=$TYPE('^fn_1[0-9]_')" "m=$MAT.textContent" \
	'#zoom=root;fn_7_0' "z=$DET.dataset.samples" '#sort=weight&view=icicle' "ok=1"
clean "30,000 stacks"
is "$(ans ms)" "$BM" "large profile: matched samples"
is "$(ans m)" "Matched: $(pct1 "$BM" "$BT")%" "large profile: Matched: N%"
is "$(ans z)" "$Z" "large profile: zoom total"
done_testing
