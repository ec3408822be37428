#!/bin/sh
# Input plugin bpftrace: every fixture of tests/data/bpftrace (real captures
# of tests/oracle/burn.c recorded with bpftrace 0.17, and forms.txt, written
# by hand) collapses to what tests/oracle/bpftrace.py, an independent
# reading of bpftrace's printing rules, says, with the same skipped lines;
# then a capture recorded now when bpftrace can run here, --map, errors,
# CRLF, gzip and shards.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/bpftrace"
ORACLE="$FK_SRCDIR/tests/oracle/bpftrace.py"

if ! command -v python3 > /dev/null 2>&1; then
	skip "bpftrace" "no python3 for the oracle"
	done_testing
	exit
fi

. "$FK_SRCDIR/tests/oracle/check.sh"

for f in "$D"/*.txt; do
	check "$f" "bpftrace $(basename "$f") (detected)"
	is "$("$FLAMEKIT" collapse -v "$f" 2>&1 > /dev/null | sed -n 's/.*: detected format //p')" bpftrace \
		"bpftrace $(basename "$f") is detected as bpftrace"
done
check "$D/two-maps.txt" "--map @cpu" --map @cpu -- --map=@cpu
check "$D/two-maps.txt" "--map @kern" --map @kern -- --format bpftrace --map @kern
check "$D/forms.txt" "--map @raw" --map @raw -- --map=@raw

# stackcollapse-bpftrace.pl's order for @[kstack, ustack, comm], by hand
run "$FLAMEKIT" collapse "$D/kstack-ustack-comm.txt"
is "$(printf '%s\n' "$out" | grep -c '^burn;__libc_start_call_main+122;main+40;top+21;leaf_[ab]+[0-9]*;asm_sysvec')" 7 \
	"comm at the root, the user stack under the kernel one"

# A capture recorded now, of a program of ours, when bpftrace can run.
if command -v bpftrace > /dev/null 2>&1 && command -v cc > /dev/null 2>&1 && [ "$(id -u)" -eq 0 ] &&
	cc -O1 -fno-omit-frame-pointer -o "$TMP/burn" "$FK_SRCDIR/tests/oracle/burn.c" 2> /dev/null; then
	"$TMP/burn" 3 > /dev/null &
	pid=$!
	timeout 30 bpftrace -e "profile:hz:999 /pid == $pid/ { @[kstack, ustack, comm] = count(); } interval:s:1 { exit(); }" \
		> "$TMP/live.txt" 2> "$TMP/live.err"
	brc=$?
	wait $pid
	if [ $brc -eq 0 ] && grep -q ', burn\]: ' "$TMP/live.txt"; then
		check "$TMP/live.txt" "a capture recorded now"
		run "$FLAMEKIT" collapse "$TMP/live.txt"
		ok $(printf '%s\n' "$out" | grep -q '^burn;.*;main+[0-9]*;top+[0-9]*;leaf_[ab]+[0-9]* [0-9]*$'; echo $?) \
			"the capture shows burn;...;main;top;leaf_a or leaf_b"
	else
		skip "a capture recorded now" "bpftrace could not trace here: $(head -1 "$TMP/live.err")"
	fi
else
	skip "a capture recorded now" "needs bpftrace, cc and root"
fi

# Errors: a record cut short, and one never closed before the next.
head -8 "$D/kstack-ustack-comm.txt" > "$TMP/cut.txt"
run "$FLAMEKIT" collapse --format bpftrace "$TMP/cut.txt"
is "$rc:$out:$err" "1::flamekit: $TMP/cut.txt:4: this record has no closing ']: COUNT' line (is the file truncated?)" \
	"a truncated record: exit 1, its @[ line named, nothing written"
printf '@[\n    a+1\n@[\n    b+2\n]: 3\n' > "$TMP/open.txt"
run "$FLAMEKIT" collapse --format bpftrace "$TMP/open.txt"
is "$rc:$out:$err" "1::flamekit: $TMP/open.txt:1: this record has no closing ']: COUNT' line (a new one starts at line 3)" \
	"a record left open before the next one: exit 1, both lines named"

# CRLF, gzip, and the shards of a file merged give the whole file's stacks
f="$D/kstack-ustack-comm.txt"
"$FLAMEKIT" collapse "$f" > "$TMP/whole"
sed 's/$/\r/' "$f" > "$TMP/crlf.txt"
gzip -c "$f" > "$TMP/in.gz"
"$FLAMEKIT" collapse "$TMP/crlf.txt" > "$TMP/crlf.out" 2>&1
same_file "$TMP/whole" "$TMP/crlf.out" "CRLF line endings: the same stacks"
"$FLAMEKIT" collapse "$TMP/in.gz" > "$TMP/gz.out" 2>&1
same_file "$TMP/whole" "$TMP/gz.out" "gzip-compressed: detected, the same stacks"
for n in 2 3 5; do
	parts=
	k=0
	while [ $k -lt $n ]; do
		"$FLAMEKIT" collapse --format bpftrace --shard $k/$n "$f" > "$TMP/s$k" 2>> "$TMP/shard.err"
		parts="$parts $TMP/s$k"
		k=$((k + 1))
	done
	# shellcheck disable=SC2086
	"$FLAMEKIT" merge -q -o "$TMP/merged" $parts 2>> "$TMP/shard.err"
	same_file "$TMP/whole" "$TMP/merged" "$n shards merged equal the whole file"
done
is "$(cat "$TMP/shard.err")" "" "the shards said nothing"

done_testing
