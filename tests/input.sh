#!/bin/sh
# Input plugins dtrace, stap, pmcstat, instruments and ljp: the FlameGraph
# conformance corpus, golden fixtures (tests/data/FORMAT/NAME.txt with
# NAME.out, the exact stdout, NAME.err, the exact stderr with @FILE@ for the
# file name, and NAME.args, extra options), then CRLF, gzip, several files,
# empty and binary input, a huge line and a 100,000-frame stack per format.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data"
FORMATS="dtrace stap pmcstat instruments ljp"

# collapse FORMAT FILE... : run, with $out/$err/$rc
collapse() {
	fmt=$1
	shift
	run "$FLAMEKIT" collapse --format "$fmt" "$@"
}

# --- the conformance corpus, byte for byte -------------------------------
for fmt in $FORMATS; do
	if [ ! -d "$FK_CONFORMANCE/$fmt" ]; then
		skip "$fmt conformance" "no conformance corpus at $FK_CONFORMANCE"
		continue
	fi
	for f in "$FK_CONFORMANCE/$fmt"/inputs/*.txt; do
		b=$(basename "$f")
		output_is "$FK_CONFORMANCE/$fmt/expected/$b" "$fmt conformance: $b" \
			"$FLAMEKIT" collapse --format "$fmt" "$f"
	done
done

# --- golden fixtures -------------------------------------------------------
for fmt in $FORMATS; do
	for f in "$D/$fmt"/*.txt; do
		b=${f%.txt}
		args=
		[ -f "$b.args" ] && args=$(cat "$b.args")
		# shellcheck disable=SC2086
		"$FLAMEKIT" collapse --format "$fmt" $args "$f" > "$TMP/out" 2> "$TMP/err"
		r=$?
		if [ -f "$b.err" ]; then
			sed "s|@FILE@|$f|g" "$b.err" > "$TMP/experr"
		else
			: > "$TMP/experr"
		fi
		same_file "$b.out" "$TMP/out" "$fmt $(basename "$b"): stdout"
		same_file "$TMP/experr" "$TMP/err" "$fmt $(basename "$b"): stderr"
		is "$r" 0 "$fmt $(basename "$b"): exit status"
	done
done

# --- the same input in other forms ---------------------------------------
# One fixture per format: CRLF line endings, gzip, and two files merged.
main_case() {
	case $1 in
	dtrace) echo "$D/dtrace/fixes.txt" ;;
	stap) echo "$D/stap/fixes.txt" ;;
	pmcstat) echo "$D/pmcstat/lost.txt" ;;
	instruments) echo "$D/instruments/units.txt" ;;
	ljp) echo "$D/ljp/nototal.txt" ;;
	esac
}
for fmt in $FORMATS; do
	f=$(main_case $fmt)
	b=${f%.txt}
	sed 's/$/\r/' "$f" > "$TMP/crlf.txt"
	collapse $fmt "$TMP/crlf.txt"
	is "$rc:$out" "0:$(cat "$b.out")" "$fmt: CRLF line endings give the same stacks"

	gzip -c "$f" > "$TMP/in.txt.gz"
	collapse $fmt "$TMP/in.txt.gz"
	is "$rc:$out" "0:$(cat "$b.out")" "$fmt: gzip-compressed input"

	"$FLAMEKIT" collapse --format folded "$b.out" "$b.out" > "$TMP/twice"
	collapse $fmt "$f" "$TMP/in.txt.gz"
	is "$rc:$out" "0:$(cat "$TMP/twice")" "$fmt: two files merged, counts summed"

	: > "$TMP/empty.txt"
	collapse $fmt "$TMP/empty.txt"
	is "$rc:$out:$err" "0::" "$fmt: empty input gives no stacks and no message"
done

# --- binary garbage -------------------------------------------------------
# Deterministic bytes: 4096 of them in 17 lines (16 '\n').
LC_ALL=C awk 'BEGIN { for (i = 0; i < 4096; i++) printf "%c", (i * 7919 + 13) % 256 }' > "$TMP/garbage.bin"
for fmt in $FORMATS; do
	collapse $fmt "$TMP/garbage.bin"
	# dtrace skips its first three lines whatever they hold, as stackcollapse.pl
	skipped="17 unreadable lines (lines 1, 2, 3, 4, 5, ...)"
	[ $fmt = dtrace ] && skipped="14 unreadable lines (lines 4, 5, 6, 7, 8, ...)"
	is "$rc:$out:$err" "0::flamekit: warning: $TMP/garbage.bin: skipped $skipped" \
		"$fmt: binary garbage: no stacks, its 17 lines counted as skipped"
done

# --- a huge line -----------------------------------------------------------
# A 3 MB frame name goes through whole.
big=$(awk 'BEGIN { s = "x"; while (length(s) < 3000000) s = s s; print substr(s, 1, 3000000) }')
printf 'CPU     ID                    FUNCTION:NAME\n  0  1   :tick-1s\n\n  mod`%s+0x1\n  mod`main+0x2\n  5\n' "$big" > "$TMP/huge.dtrace"
printf ' 0x1 : %s+0x1/0x2 [m]\n 0x2 : main+0x1/0x2 [m]\n\t5\n' "$big" > "$TMP/huge.stap"
printf '@ E [5 samples]\n\n100.0%%  [5]     %s @ /k\n 100.0%%  [5]      main\n' "$big" > "$TMP/huge.pmcstat"
printf 'Weight\tSelf Weight\t\tSymbol Name\n5.00 ms  100.0%%\t0 ms\t \tmain\n5.00 ms  100.0%%\t5.00 ms\t \t %s\n' "$big" > "$TMP/huge.instruments"
printf '5 2\t%s(X.java:1)\n\tmain(X.java:2)\n' "$big" > "$TMP/huge.ljp"
for fmt in $FORMATS; do
	case $fmt in
	dtrace) exp="mod\`main;mod\`$big 5" ;;
	instruments) exp="main 0
main;$big 5" ;;
	*) exp="main;$big 5" ;;
	esac
	collapse $fmt "$TMP/huge.$fmt"
	if [ "$rc:$out:$err" = "0:$exp:" ]; then ok 0 "$fmt: a 3 MB line"; else ok 1 "$fmt: a 3 MB line (exit $rc, ${#out} bytes out: $err)"; fi
done

# --- a 100,000-frame stack ---------------------------------------------------
# pmcstat and instruments indent each line by its depth, so a chain of depth
# N is N*N/2 bytes of input: their deep cases are 5,000 and 2,000 levels.
awk 'BEGIN { print "CPU     ID                    FUNCTION:NAME\n  0  1  :tick-1s\n"
	for (i = 99999; i >= 0; i--) printf "  m`f%d+0x1\n", i; print "  7" }' > "$TMP/deep.dtrace"
awk 'BEGIN { for (i = 99999; i >= 0; i--) printf " 0x%x : f%d+0x1/0x2 [m]\n", i + 4096, i; print "\t7" }' > "$TMP/deep.stap"
awk 'BEGIN { print "@ E [7 samples]"; pad = ""; for (i = 0; i < 5000; i++) { printf "%s100.0%%  [7]  f%d\n", pad, 4999 - i; pad = pad " " } }' > "$TMP/deep.pmcstat"
awk 'BEGIN { printf "7 100000\tf99999(X.java:1)\n"; for (i = 99998; i >= 0; i--) printf "\tf%d(X.java:1)\n", i }' > "$TMP/deep.ljp"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%sf%d", (i ? ";" : ""), i; print " 7" }' > "$TMP/deep.exp"
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "%sf%d", (i ? ";" : ""), i; print " 7" }' > "$TMP/deep5k.exp"
for fmt in dtrace stap pmcstat ljp; do
	"$FLAMEKIT" collapse --format $fmt "$TMP/deep.$fmt" > "$TMP/out" 2> "$TMP/err"
	r=$?
	case $fmt in
	dtrace) sed 's/f/m`f/g' "$TMP/deep.exp" > "$TMP/deep.expd"; n=100,000 ;;
	pmcstat) cp "$TMP/deep5k.exp" "$TMP/deep.expd"; n=5,000 ;;
	*) cp "$TMP/deep.exp" "$TMP/deep.expd"; n=100,000 ;;
	esac
	if [ $r -eq 0 ] && [ ! -s "$TMP/err" ] && cmp -s "$TMP/deep.expd" "$TMP/out"; then
		ok 0 "$fmt: a $n-frame stack"
	else
		ok 1 "$fmt: a $n-frame stack (exit $r: $(head -c 300 "$TMP/err"))"
	fi
done
awk 'BEGIN { print "Weight\tSelf Weight\t\tSymbol Name"; for (i = 0; i < 2000; i++) printf "1.00 ms  100.0%%\t%s\t \t%" i "s%s\n", (i == 1999 ? "1.00 ms" : "0 ms"), "", "f" i }' > "$TMP/deep.instruments"
"$FLAMEKIT" collapse --format instruments "$TMP/deep.instruments" > "$TMP/out" 2> "$TMP/err"
r=$?
is "$r:$(wc -l < "$TMP/out"):$(tail -1 "$TMP/out" | tr ';' '\n' | wc -l):$(tail -c 9 "$TMP/out")" "0:2000:2000:;f1999 1" \
	"instruments: a 2,000-row deep chain, every row a stack"

# --- options ----------------------------------------------------------------
collapse dtrace --header-lines=nope "$D/dtrace/noheader.txt"
is "$rc" 2 "dtrace: a bad --header-lines value is a usage error"
collapse pmcstat --preserve-total "$FK_CONFORMANCE/pmcstat/inputs/simple.txt"
if [ -f "$FK_CONFORMANCE/pmcstat/inputs/simple.txt" ]; then
	total=$(echo "$out" | awk '{ s += $NF } END { print s }')
	is "$rc:$total:$(echo "$out" | grep -c '^fletcher_2_native ')" "0:12603:1" \
		"pmcstat --preserve-total: speedscope's simple.txt keeps all 7447 + 5156 samples"
else
	skip "pmcstat --preserve-total on simple.txt" "no conformance corpus"
fi
run "$FLAMEKIT" collapse --preserve-total "$D/pmcstat/lost.txt"
is "$rc:$out" "0:$(cat "$D/pmcstat/lost-preserve.out")" "pmcstat --preserve-total with the format detected"
run "$FLAMEKIT" collapse --preserve-total "$D/dtrace/fixes.txt"
is "$rc:$err" "2:flamekit: $D/dtrace/fixes.txt: the input is dtrace, and the dtrace plugin has no option '--preserve-total'" \
	"an option of another format is refused once the format is known"
# dtrace --includeoffset (inferno's; stackcollapse.pl's $includeoffset,
# which it offers no option for): every frame keeps its +0x offset but the
# leaf, which loses it whether it has one or not; the script's own trim, of
# the whole stack from its last '+', would cut "unix`pagefault+0x96;genunix`
# segvn_fault" to "unix`pagefault" (FlameGraph#202).  C++ names are still cut
# at their argument list, offset and all, as the script cuts them.
run "$FLAMEKIT" collapse --includeoffset "$D/dtrace/offsets.stacks"
is "$rc:$err:$out" "0::app\`main+0x40;app\`Render::frame;libstdc++.so.6\`_ZNSo5writeEPKcl 3
unix\`0xfffffffffb8001d6;unix\`trap+0x2c7;unix\`pagefault+0x96;genunix\`segvn_fault 4" \
	"dtrace --includeoffset: offsets kept but the leaf's"
if [ -f "$FK_CONFORMANCE/dtrace/inputs/example-dtrace-stacks.txt" ]; then
	# with its offsets taken out again, the stacks are stackcollapse.pl's
	"$FLAMEKIT" collapse --format dtrace --includeoffset "$FK_CONFORMANCE/dtrace/inputs/example-dtrace-stacks.txt" |
		sed 's/+0x[0-9a-f]*;/;/g' | awk '{ n = $NF; sub(/ [^ ]*$/, ""); s[$0] += n }
			END { for (k in s) printf "%s %.0f\n", k, s[k] }' | LC_ALL=C sort > "$TMP/offsets.out"
	same_file "$FK_CONFORMANCE/dtrace/expected/example-dtrace-stacks.txt" "$TMP/offsets.out" \
		"dtrace --includeoffset on FlameGraph's example, offsets removed: the script's stacks"
	ok $("$FLAMEKIT" collapse --format dtrace --includeoffset "$FK_CONFORMANCE/dtrace/inputs/example-dtrace-stacks.txt" |
		grep -q '+0x[0-9a-f]*;'; echo $?) "dtrace --includeoffset on FlameGraph's example: offsets there"
else
	skip "dtrace --includeoffset on FlameGraph's example" "no conformance corpus"
fi
run "$FLAMEKIT" plugins --help pmcstat
echo "$out" | grep -qx '  --preserve-total         flag     keep samples a line.s callers do not account for (the Perl drops them) \[default: 0\]'
ok $? "plugins --help pmcstat lists --preserve-total"
run "$FLAMEKIT" plugins --help dtrace
echo "$out" | grep -q '^  --header-lines=N  *integer  lines to skip at the start, whatever they hold, as stackcollapse.pl does \[default: 3\]$'
ok $? "plugins --help dtrace lists --header-lines"
done_testing
