#!/bin/sh
# Rendering 100,000 distinct stacks 5-25 frames deep (15 MB folded, the
# generator of issue 14) as a flame graph, an icicle graph and a flame
# chart, next to flamegraph.pl on the same file.  Targets (reported, not
# asserted): at least 40x faster than flamegraph.pl, peak RSS at most half
# of its.  Best of 3 for flamekit, one run of flamegraph.pl.
set -e
: "${FLAMEKIT:?run through make bench}" "${FK_BENCH_DATA:?run through make bench}"
. "$FK_SRCDIR/bench/lib.sh"
F="$FK_BENCH_DATA/stacks-100k.folded"
[ -s "$F" ] || { gen_stacks 100000 > "$F.tmp" && mv "$F.tmp" "$F"; }
echo "input: $(wc -l < "$F") lines, $(($(wc -c < "$F") / 1000000)) MB"
measure wc -l "$F"
row "wc -l"
best 3 "$FLAMEKIT" graph -o "$FK_BENCH_DATA/r100k.svg" "$F"
row "flamekit graph (svg)"
fk_s=$SECS fk_kb=$KB
best 3 "$FLAMEKIT" graph --threads 1 -o "$FK_BENCH_DATA/r100k-1.svg" "$F"
row "flamekit graph --threads 1"
fk1_s=$SECS
cmp -s "$FK_BENCH_DATA/r100k.svg" "$FK_BENCH_DATA/r100k-1.svg" && same=yes || same=NO
echo "  same bytes as with the default threads: $same"
"$FLAMEKIT" graph -o "$FK_BENCH_DATA/r100k-pipe.svg" < "$F"
cmp -s "$FK_BENCH_DATA/r100k.svg" "$FK_BENCH_DATA/r100k-pipe.svg" && same=yes || same=NO
echo "  same bytes as from stdin (the whole stack tree): $same"
best 3 "$FLAMEKIT" graph --output-plugin icicle -o "$FK_BENCH_DATA/r100k-icicle.svg" "$F"
row "flamekit graph (icicle)"
best 3 "$FLAMEKIT" graph --flamechart -o "$FK_BENCH_DATA/r100k-chart.svg" "$F"
row "flamekit graph --flamechart"
FG=$(flamegraph_pl)
if [ -n "$FG" ] && command -v perl > /dev/null 2>&1; then
	measure perl "$FG" "$F"
	row "flamegraph.pl"
	awk -v a="$SECS" -v b="$fk_s" -v ka="$KB" -v kb="$fk_kb" 'BEGIN {
		printf "flamekit graph vs flamegraph.pl: %.1fx faster (target >= 40x), peak RSS %.2fx (target <= 0.5x)\n",
		       a / (b > 0 ? b : 0.01), kb / (ka > 0 ? ka : 1) }'
	awk -v a="$SECS" -v b="$fk1_s" 'BEGIN {
		printf "flamekit graph --threads 1 vs flamegraph.pl: %.1fx faster\n", a / (b > 0 ? b : 0.01) }'
else
	echo "flamegraph.pl: not found; set FK_FLAMEGRAPH=/path/to/flamegraph.pl, or put a checkout of"
	echo "  https://github.com/brendangregg/FlameGraph in $FK_BENCH_DATA/FlameGraph (skipped)"
fi
