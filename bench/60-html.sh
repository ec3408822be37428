#!/bin/sh
# The html report on the 100,000-stack file of the speed issue (14): its size
# next to the folded text's, the time to write it, and in headless Chromium
# the time from navigation to data-ready="1" (first drawing done), to parse
# the embedded data, and to redraw after a zoom, a search and a sort by
# weight.  Targets: ready within 3 s, a zoom within 100 ms, size <= folded.
# Figures only, no assertion; skipped without chromium.
set -e
: "${FLAMEKIT:?run through make bench}" "${FK_BENCH_DATA:?run through make bench}"
IN="$FK_BENCH_DATA/html-100k.txt"
[ -f "$IN" ] || awk 'BEGIN{srand(3); for (i=0;i<100000;i++){ s="root"; d=5+int(rand()*20); for(j=0;j<d;j++) s=s ";fn_" int(rand()*2000) "_" j; printf "%s %d\n", s, 1+int(rand()*100)}}' > "$IN"
"$FLAMEKIT" collapse "$IN" > "$FK_BENCH_DATA/html-100k.folded"
t0=$(date +%s.%N)
"$FLAMEKIT" graph --output-plugin html -o "$FK_BENCH_DATA/html-100k.html" "$IN"
t1=$(date +%s.%N)
fs=$(wc -c < "$FK_BENCH_DATA/html-100k.folded")
hs=$(wc -c < "$FK_BENCH_DATA/html-100k.html")
awk -v f="$fs" -v h="$hs" -v a="$t0" -v b="$t1" 'BEGIN {
	printf "folded text:   %6.2f MB\n", f / 1e6
	printf "html report:   %6.2f MB = %.2fx the folded text (target <= 1)\n", h / 1e6, h / f
	printf "write report:  %6.2f s\n", b - a }'
# a real capture with a per-sample timeline (15,394 samples, 5 threads):
# the report and its timeline alone (the report minus a --timeline=0 one),
# each next to the folded text
ST="$FK_SRCDIR/../shared/data/stairs.perf.txt.gz"
if [ -f "$ST" ]; then
	"$FLAMEKIT" collapse --format perf "$ST" > "$FK_BENCH_DATA/stairs.folded" 2> /dev/null
	"$FLAMEKIT" graph --format perf --output-plugin html -o "$FK_BENCH_DATA/stairs.html" "$ST" 2> /dev/null
	"$FLAMEKIT" graph --format perf --output-plugin html --timeline=0 -o "$FK_BENCH_DATA/stairs0.html" "$ST" 2> /dev/null
	"$FLAMEKIT" graph --format perf --output-plugin html --time-resolution=0.001 -o "$FK_BENCH_DATA/stairsu.html" "$ST" 2> /dev/null
	awk -v f="$(wc -c < "$FK_BENCH_DATA/stairs.folded")" -v h="$(wc -c < "$FK_BENCH_DATA/stairs.html")" \
	    -v n="$(wc -c < "$FK_BENCH_DATA/stairs0.html")" -v u="$(wc -c < "$FK_BENCH_DATA/stairsu.html")" 'BEGIN {
		printf "stairs report: %6.1f KB = %.2fx the folded text (%.1f KB); its timeline (1 ms) %.1f KB = %.2fx; at 1 us %.1f KB = %.2fx\n",
			h / 1e3, h / f, f / 1e3, (h - n) / 1e3, (h - n) / f, (u - n) / 1e3, (u - n) / f }'
fi
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	echo "chromium not installed: no browser figures"
	exit 0
fi
A='document.documentElement.dataset'
nice python3 "$FK_SRCDIR/tests/browser/cdp.py" "$CHROMIUM" "$FK_BENCH_DATA/html-100k.html" \
	'#' "ready=$A.readyMs" "load=$A.loadMs" "first=$A.drawMs" \
	'#zoom=root;fn_7_0' "zoom=$A.drawMs" '#zoom=root;fn_7_0;fn_1502_1' "zoom2=$A.drawMs" \
	'#' "unzoom=$A.drawMs" '#search=fn_1' "search=$A.drawMs" \
	'#sort=weight' "sort=$A.drawMs" '#sort=weight&zoom=root;fn_7_0' "zoomw=$A.drawMs" 2>/dev/null |
awk -F '\t' '{ v[$1] = $2 } END {
	printf "data-ready:    %6.0f ms after navigation (target <= 3000), of which %.0f ms decoding the data, %.0f ms the first drawing\n", v["ready"], v["load"], v["first"]
	printf "zoom redraw:   %6.1f ms, one level deeper %.1f ms, back to the root %.1f ms (target <= 100)\n", v["zoom"], v["zoom2"], v["unzoom"]
	printf "search redraw: %6.1f ms; sort by weight %.1f ms, then zoom %.1f ms\n", v["search"], v["sort"], v["zoomw"]
	printf "page errors %s, network requests %s\n", v["errors"], v["requests"] }'
