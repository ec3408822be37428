#!/bin/sh
# Every expected folded file of the six collapse formats in the FlameGraph
# conformance corpus is printed back byte for byte by the folded plugins.
. "$FK_SRCDIR/tests/lib.sh"

if [ ! -d "$FK_CONFORMANCE" ]; then
	skip_all "folded round trip" "no conformance corpus at $FK_CONFORMANCE"
fi
for f in "$FK_CONFORMANCE"/perf/expected/*.txt "$FK_CONFORMANCE"/dtrace/expected/*.txt \
	"$FK_CONFORMANCE"/pmcstat/expected/*.txt "$FK_CONFORMANCE"/stap/expected/*.txt \
	"$FK_CONFORMANCE"/instruments/expected/*.txt "$FK_CONFORMANCE"/ljp/expected/*.txt; do
	"$FLAMEKIT" collapse --format folded "$f" > "$TMP/out" 2> "$TMP/err"
	if [ $? -eq 0 ] && [ ! -s "$TMP/err" ]; then
		same_file "$f" "$TMP/out" "folded round trip: ${f#$FK_CONFORMANCE/}"
	else
		ok 1 "folded round trip: ${f#$FK_CONFORMANCE/} ($(cat "$TMP/err"))"
	fi
done
done_testing
