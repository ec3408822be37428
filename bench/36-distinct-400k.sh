#!/bin/sh
# Many distinct stacks: 400,000 of them, 5-25 frames deep (60 MB folded,
# the generator of issue 14).  collapse next to `LC_ALL=C sort | awk`
# summing equal lines, and graph, on one thread and two, and the same graph
# as a job (`flamekit run`, which takes graph's pruned path, engine/prune.c,
# since issue 27: before, the job built the whole tree).  Targets
# (reported, not asserted): collapse faster than sort | awk; graph within
# 1.5 s; peak RSS at most 2x the input's size.  Best of 3.
set -e
: "${FLAMEKIT:?run through make bench}" "${FK_BENCH_DATA:?run through make bench}"
. "$FK_SRCDIR/bench/lib.sh"
F="$FK_BENCH_DATA/stacks-400k.folded"
[ -s "$F" ] || { gen_stacks 400000 > "$F.tmp" && mv "$F.tmp" "$F"; }
size=$(wc -c < "$F")
echo "input: $(wc -l < "$F") lines, $((size / 1000000)) MB"
best 3 sh -c 'LC_ALL=C sort "$1" | awk "{ n = \$NF; s = substr(\$0, 1, length(\$0) - length(n) - 1)
	if (s != k) { if (NR > 1) print k, t; k = s; t = 0 } t += n } END { if (NR) print k, t }"' sh "$F"
row "LC_ALL=C sort | awk"
sort_s=$SECS
for t in 1 2; do
	best 3 "$FLAMEKIT" collapse --threads $t "$F"
	row "flamekit collapse --threads $t"
	awk -v a="$SECS" -v b="$sort_s" -v kb="$KB" -v sz="$size" 'BEGIN {
		printf "  %.2fx the time of sort | awk (target < 1), peak RSS %.2fx the input (target <= 2)\n",
		       a / (b > 0 ? b : 0.01), kb * 1024 / sz }'
done
for t in 1 2; do
	best 3 "$FLAMEKIT" graph --threads $t -o "$FK_BENCH_DATA/d400k-$t.svg" "$F"
	row "flamekit graph --threads $t"
	awk -v a="$SECS" -v kb="$KB" -v sz="$size" 'BEGIN {
		printf "  target <= 1.5 s; peak RSS %.2fx the input (target <= 2)\n", kb * 1024 / sz }'
done
printf 'inputs:\n  - path: "%s"\noutputs:\n  - plugin: svg\n    path: "%s"\n' \
	"$F" "$FK_BENCH_DATA/d400k-job.svg" > "$FK_BENCH_DATA/d400k.yaml"
best 3 "$FLAMEKIT" run --threads 1 "$FK_BENCH_DATA/d400k.yaml"
row "flamekit run (the graph as a job)"
awk -v kb="$KB" -v sz="$size" 'BEGIN { printf "  peak RSS %.2fx the input (target <= 2)\n", kb * 1024 / sz }'
cmp -s "$FK_BENCH_DATA/d400k-1.svg" "$FK_BENCH_DATA/d400k-2.svg" && same=yes || same=NO
echo "graph: same bytes on one thread and two: $same"
cmp -s "$FK_BENCH_DATA/d400k-1.svg" "$FK_BENCH_DATA/d400k-job.svg" && same=yes || same=NO
echo "graph: same bytes as the job: $same"
"$FLAMEKIT" graph -o "$FK_BENCH_DATA/d400k-pipe.svg" < "$F"
cmp -s "$FK_BENCH_DATA/d400k-1.svg" "$FK_BENCH_DATA/d400k-pipe.svg" && same=yes || same=NO
echo "graph: same bytes as from stdin (the whole stack tree): $same"
