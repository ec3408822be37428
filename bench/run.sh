#!/bin/sh
# make bench: run every bench/*.sh in name order.  Each prints figures
# (MB/s, peak RSS, ratios to cat and wc -l); none asserts anything.
# usage: run.sh BUILDDIR
set -e
BUILD=$1
SRC=$(cd "$(dirname "$0")/.." && pwd)
export FLAMEKIT="$BUILD/flamekit" FLAMEKIT_PLUGIN_PATH="$BUILD/plugins" FK_SRCDIR="$SRC" FK_BUILDDIR="$BUILD"
export FK_BENCH_DATA="${FK_BENCH_DATA:-$BUILD/bench-data}"
mkdir -p "$FK_BENCH_DATA"
for s in "$SRC"/bench/[0-9]*.sh; do
	[ -f "$s" ] || continue
	echo "== $(basename "$s" .sh)"
	sh "$s"
done
