#!/bin/sh
# flamekit merge against sort -m: 100 sorted folded files of 10 MB each
# (FK_BENCH_MERGE_FILES, FK_BENCH_MERGE_MB change that), with cat and wc -l
# on the same files for scale.  sort -m only interleaves lines; merge also
# sums equal stacks, so its output is smaller.  Figures only.
set -e
: "${FLAMEKIT:?run through make bench}"
: "${FK_BENCH_DATA:?run through make bench}"
. "$FK_SRCDIR/bench/lib.sh"
files=${FK_BENCH_MERGE_FILES:-100}
mb=${FK_BENCH_MERGE_MB:-10}
dir="$FK_BENCH_DATA/merge-$files-$mb"
mkdir -p "$dir"
if [ ! -f "$dir/done" ]; then
	echo "generating $files sorted folded files of $mb MB in $dir"
	f=0
	while [ $f -lt "$files" ]; do
		# Stacks in byte order (zero-padded ids); each file skips a different
		# quarter of them, so files overlap but are not identical.
		awk -v f=$f -v bytes=$((mb * 1000000)) 'BEGIN {
			n = 0
			for (i = 0; n < bytes; i++) {
				if ((i * 31 + f) % 4 == 0)
					continue
				line = sprintf("java;main;Worker%08d;run;compute;leaf%d %d", i, i % 7, (i * 7 + f) % 97 + 1)
				print line
				n += length(line) + 1
			}
		}' > "$dir/part-$(printf %03d $f).folded"
		f=$((f + 1))
	done
	touch "$dir/done"
fi
out="$FK_BENCH_DATA/merge-out"
# rate LABEL CMD...: wall time, MB/s over the inputs and peak RSS of CMD
# (measured by bench/lib.sh's measure).
rate() {
	label=$1
	shift
	measure "$@"
	awk -v l="$label" -v s="$SECS" -v kb="$KB" -v b="$total" \
		'BEGIN { printf "%-20s %7.2f s %8.1f MB/s  peak RSS %7.1f MB\n", l, s, b / 1e6 / (s > 0 ? s : 0.01), kb / 1024 }'
}
set -- "$dir"/part-*.folded
total=$(cat "$@" | wc -c)
echo "inputs: $# files, $((total / 1000000)) MB"
rate "cat" cat "$@"
rate "wc -l" wc -l "$@"
rate "flamekit merge" "$FLAMEKIT" merge --no-progress -o "$out.fk" "$@"
rate "LC_ALL=C sort -m" env LC_ALL=C sort -m -o "$out.sort" "$@"
echo "output: flamekit merge $(wc -l < "$out.fk") lines, sort -m $(wc -l < "$out.sort") lines"
rm -f "$out.fk" "$out.sort"
