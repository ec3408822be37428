#!/bin/sh
# The perf plugin against FlameGraph's stackcollapse-perf.pl (HEAD): all 13
# inputs x 7 option sets, with --format perf and through auto-detection, and
# again with tiny chunks on 1, 2 and 4 threads, from the file and from a pipe.  The probe must pick perf for
# every perf input and capture, and must not claim any other corpus text.
. "$FK_SRCDIR/tests/lib.sh"

C=$FK_CONFORMANCE/perf
if [ ! -d "$C/inputs" ]; then
	skip_all "perf conformance" "no conformance corpus at $FK_CONFORMANCE"
fi

# check NAME EXPECTED ARGS...: stdout must equal EXPECTED, exit status 0
check() {
	name=$1 exp=$2
	shift 2
	"$FLAMEKIT" collapse "$@" > "$TMP/out" 2> "$TMP/err"
	r=$?
	if [ $r -ne 0 ]; then
		ok 1 "$name (exit $r: $(head -c 300 "$TMP/err"))"
	else
		same_file "$exp" "$TMP/out" "$name"
	fi
}

for f in "$C"/inputs/*.txt; do
	b=$(basename "$f" .txt)
	for o in none pid tid kernel jit all addrs; do
		if [ $o = none ]; then
			e=$C/expected/$b-collapsed.txt
			set --
		else
			e=$C/expected/$b-collapsed-$o.txt
			set -- --$o
		fi
		check "$b ${o}" "$e" --format perf "$@" "$f"
		check "$b ${o} (auto-detected)" "$e" "$@" "$f"
	done
	for t in 1 2 4; do
		FLAMEKIT_CHUNK_BYTES=512 check "$b --threads $t, 512-byte chunks" \
			"$C/expected/$b-collapsed.txt" --format perf --threads $t "$f"
	done
	# a file is cut into ranges its workers read; a pipe into chunks the
	# reading thread hands out
	cat "$f" | FLAMEKIT_CHUNK_BYTES=512 "$FLAMEKIT" collapse --format perf --threads 2 - > "$TMP/out" 2> "$TMP/err"
	same_file "$C/expected/$b-collapsed.txt" "$TMP/out" "$b --threads 2 from a pipe, 512-byte chunks"
done

# The oracle names the dropped event on stderr; we name both.
"$FLAMEKIT" collapse "$C/inputs/perf-cycles-instructions-01.txt" > /dev/null 2> "$TMP/err"
is "$(cat "$TMP/err")" "flamekit: warning: [input:perf] $C/inputs/perf-cycles-instructions-01.txt: kept only \"instructions\" events (the first event type in the input); dropped 111 records of other events, the first being \"cycles\" (choose with --event-filter NAME)" \
	"first-event rule: note on stderr"

# Detection: every perf input and capture is perf, nothing else is.
for f in "$C"/inputs/*.txt "$FK_CONFORMANCE"/../data/*.perf.txt.gz; do
	[ -f "$f" ] || continue
	"$FLAMEKIT" collapse -v "$f" > /dev/null 2> "$TMP/err"
	grep -q "detected format perf" "$TMP/err"
	ok $? "probe picks perf: ${f##*/}"
done
n=0 bad=
for f in "$FK_CONFORMANCE"/dtrace/inputs/*.txt "$FK_CONFORMANCE"/stap/inputs/*.txt \
	"$FK_CONFORMANCE"/pmcstat/inputs/*.txt "$FK_CONFORMANCE"/instruments/inputs/*.txt \
	"$FK_CONFORMANCE"/ljp/inputs/*.txt "$FK_CONFORMANCE"/*/expected/*.txt \
	"$FK_CONFORMANCE"/svg/inputs/*.txt; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	"$FLAMEKIT" collapse -v "$f" > /dev/null 2> "$TMP/err"
	grep -q "detected format perf" "$TMP/err" && bad="$bad ${f#$FK_CONFORMANCE/}"
done
is "$bad" "" "probe claims none of the $n folded/dtrace/stap/pmcstat/instruments/ljp files"
done_testing
