#!/bin/sh
# Input plugin callgrind: each function's self and inclusive totals in the
# folded stacks (summed by awk: self at the leaf, inclusive once per stack
# holding the function) equal what callgrind_annotate (cg_annotate for
# cachegrind) reports, on captures of tests/oracle/cgprog.c recorded now
# (valgrind), on an Xdebug profile and a file with recursion written by
# hand; then --event, units, errors, CRLF and gzip.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/callgrind"
ORACLE="$FK_SRCDIR/tests/oracle/cgannotate.py"
. "$FK_SRCDIR/tests/oracle/check.sh"

if ! command -v callgrind_annotate > /dev/null 2>&1; then
	skip_all callgrind "needs callgrind_annotate (valgrind)"
fi

# totals FOLDED self|incl: "TOTAL n" then "function cost", sorted bytewise
totals() {
	LC_ALL=C awk -v what="$2" '{
		n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); total += n
		if (what == "self") { c[f[k]] += n; next }
		delete seen
		for (i = 1; i <= k; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; c[f[i]] += n }
	} END { print "TOTAL", total; for (x in c) if (c[x]) print x, c[x] }' "$1" | LC_ALL=C sort
}

# against FILE NAME SELF|INCL [ONLY] [FLAMEKIT OPTIONS]: flamekit's totals
# per function equal the annotate report's (ONLY: a regex of the names
# compared; "." for all)
against() {
	f=$1 name=$2 what=$3 only=$4
	shift 4
	case $what in
	self) opt= ;;
	incl) opt=--inclusive=yes ;;
	esac
	case $f in
	*cachegrind*) cg_annotate --auto=no --threshold=0 "$@" "$f" > "$TMP/rep" 2>&1 ;;
	*) callgrind_annotate --auto=no --threshold=100 $opt "$@" "$f" > "$TMP/rep" 2>&1 ;;
	esac
	ev=
	[ $# -gt 0 ] && ev="--event ${1#--show=}"
	python3 "$ORACLE" "$f" "$TMP/rep" | grep -E "^(TOTAL|$only) [0-9]+$" | LC_ALL=C sort > "$TMP/exp"
	# shellcheck disable=SC2086
	"$FLAMEKIT" collapse --format callgrind $ev "$f" > "$TMP/folded"
	totals "$TMP/folded" "$what" | grep -E "^(TOTAL|$only) [0-9]+$" > "$TMP/got"
	same_file "$TMP/exp" "$TMP/got" "$name: each function's $what cost is the annotate report's"
}

# The hand-written files: detected, every function's totals.
for f in "$D"/xdebug.txt "$D"/recursion.txt; do
	is "$("$FLAMEKIT" collapse -v "$f" 2>&1 > /dev/null | sed -n 's/.*: detected format //p')" callgrind \
		"$(basename "$f") is detected as callgrind"
	against "$f" "$(basename "$f")" self '.*'
done
against "$D/xdebug.txt" "xdebug.txt" incl '.*'
against "$D/xdebug.txt" "xdebug.txt, --event Memory_(bytes)" self '.*' '--show=Memory_(bytes)'
against "$D/xdebug.txt" "xdebug.txt, --event Memory_(bytes)" incl '.*' '--show=Memory_(bytes)'
# recursion: the inclusive costs of a cycle are not drawn twice; those
# outside it are exact
against "$D/recursion.txt" "recursion.txt" incl 'main|leaf'
against "$D/recursion.txt" "recursion.txt, --event Dr" self '.*' --show=Dr

# Units: the first event; Ir is instructions.
run "$FLAMEKIT" collapse -o "$TMP/x.html" "$D/xdebug.txt"
run "$FLAMEKIT" graph -o "$TMP/r.svg" "$D/recursion.txt"
is "$rc" 0 "recursion.txt draws"
grep -q 'instructions' "$TMP/r.svg"
ok $? "recursion.txt's unit is instructions (Ir)"

# Captures recorded now: callgrind (lines, then instructions and lines,
# with subposition compression), cachegrind.
if command -v valgrind > /dev/null 2>&1 && command -v cc > /dev/null 2>&1 &&
	cc -O1 -g -o "$TMP/cgprog" "$FK_SRCDIR/tests/oracle/cgprog.c" 2> /dev/null; then
	(cd "$TMP" && valgrind -q --tool=callgrind --callgrind-out-file="$TMP/callgrind.out" ./cgprog 3000 > /dev/null &&
		valgrind -q --tool=callgrind --dump-instr=yes --compress-pos=yes --callgrind-out-file="$TMP/callgrind-instr.out" \
			./cgprog 2000 > /dev/null &&
		valgrind -q --tool=cachegrind --cache-sim=no --cachegrind-out-file="$TMP/cachegrind.out" ./cgprog 1000 > /dev/null 2>&1)
	for f in "$TMP/callgrind.out" "$TMP/callgrind-instr.out" "$TMP/cachegrind.out"; do
		n=$(basename "$f")
		is "$("$FLAMEKIT" collapse -v "$f" 2>&1 > /dev/null | sed -n 's/.*: detected format //p')" callgrind \
			"$n (recorded now) is detected as callgrind"
		against "$f" "$n (recorded now)" self '.*'
	done
	against "$TMP/callgrind.out" "callgrind.out (recorded now)" incl 'a|b|mid|leaf'
	against "$TMP/callgrind-instr.out" "callgrind-instr.out (recorded now)" incl 'a|b|mid|leaf'
	run "$FLAMEKIT" collapse "$TMP/callgrind.out"
	is "$(printf '%s\n' "$out" | grep -c ';main;a;mid;leaf [0-9]*$')" 1 "the capture shows main;a;mid;leaf"
	crlf_gzip callgrind "$TMP/callgrind.out"
else
	skip "captures recorded now" "needs valgrind and cc"
fi

# Errors and skipped lines.
collapse_head callgrind 23 "$D/recursion.txt"
is "$rc:$out:$err" "1::flamekit: $TMP/cut.txt:23: this calls= line is not followed by its cost line (is the file truncated?)" \
	"a file cut after calls=: exit 1, the line named, nothing written"
collapse_text callgrind ref.txt 'events: Ir\nfn=(1) a\n1 5\nfn=(2)\n2 3\n'
is "$rc:$out:$err" "1::flamekit: $TMP/ref.txt:4: (2) names nothing defined before" "an undefined (id): exit 1"
collapse_text callgrind id.txt 'events: Ir\nfn=(99999999) x\n1 1\n'
is "$rc:$out:$err" "1::flamekit: $TMP/id.txt:2: (99999999) is far beyond the 0 names defined so far" \
	"a huge (id): exit 1, no huge table"
run "$FLAMEKIT" collapse --format callgrind --event Bc "$D/recursion.txt"
is "$rc:$err" "1:flamekit: $D/recursion.txt:5: no event \"Bc\" here (--event): the events are Ir Dr" \
	"--event naming no event: exit 1, the events: line named"
collapse_text callgrind num.txt 'events: Ir\nfn=a\n1 x5\n'
is "$rc:$err" "1:flamekit: $TMP/num.txt:3: column 2 of this cost line is not a number" "a bad cost: exit 1"
collapse_text callgrind big.txt 'events: Ir\nfn=a\n1 4611686018427387903\n2 1\n3 1\n'
is "$rc:$out:$err" "1::flamekit: $TMP/big.txt:5: the costs read so far add up to more than 2^62" \
	"costs beyond 2^62: exit 1, no sum wraps"
collapse_text callgrind skip.txt 'events: Ir\nfn=a\n1 5\nwhat is this\nfn=b\n2 7\n'
is "$rc:$out:$err" "0:a 5
b 7:flamekit: warning: $TMP/skip.txt: skipped 1 unreadable line (line 4)" "an unknown line is skipped and counted"

done_testing
