#!/bin/sh
# collapse --shard K/N: the merge of all N shards of a file equals the
# collapse of the whole file, byte for byte, for every folded file we have
# and N = 1..7; and inputs that cannot be sharded say why.
. "$FK_SRCDIR/tests/lib.sh"

set -- "$FK_SRCDIR"/tests/data/folded/*.txt
if [ -d "$FK_CONFORMANCE" ]; then
	set -- "$@" "$FK_CONFORMANCE"/*/expected/*.txt "$FK_CONFORMANCE"/svg/inputs/*.txt
else
	skip "shards of the conformance files" "no conformance corpus at $FK_CONFORMANCE"
fi
# Hand-made edge cases: CRLF, no final newline, a line longer than a shard,
# blank and unreadable lines, a one-line file.
printf 'a;b 1\r\nnot a stack\r\n\r\na;c 2\r\na;b 3' > "$TMP/crlf.txt"
awk 'BEGIN { s = "main"; for (i = 0; i < 3000; i++) s = s ";f" i; print "x 1"; print s " 7"; print "y 2" }' > "$TMP/long.txt"
printf 'solo 5\n' > "$TMP/one.txt"
set -- "$@" "$TMP/crlf.txt" "$TMP/long.txt" "$TMP/one.txt"

# One file at a time costs 28 collapse runs and 7 merges per file; the
# corpus has over a hundred files.  So: shard every file at once (collapse
# shards each of its inputs) and compare the sums, then look file by file
# only at our own files, or when the sum differs, to name the culprit.
FMT="--format folded"
check_files() { # check_files NAME FILE...: ok when, for N = 1..7, merged shards == whole
	name=$1
	shift
	# shellcheck disable=SC2086
	"$FLAMEKIT" collapse -q $FMT "$@" > "$TMP/whole" 2>&1
	bad=
	for n in 1 2 3 4 5 6 7; do
		parts=
		k=0
		while [ $k -lt $n ]; do
			# shellcheck disable=SC2086
			"$FLAMEKIT" collapse -q $FMT --shard $k/$n -o "$TMP/part.$k" "$@" 2>> "$TMP/err" ||
				bad="$bad collapse-$k/$n"
			parts="$parts $TMP/part.$k"
			k=$((k + 1))
		done
		# shellcheck disable=SC2086
		"$FLAMEKIT" merge -q -o "$TMP/merged" $parts 2>> "$TMP/err" || bad="$bad merge-$n"
		cmp -s "$TMP/whole" "$TMP/merged" || bad="$bad N=$n"
	done
	ok $([ -z "$bad" ]; echo $?) "shards 1..7 of $name merge to the whole${bad:+ (differs:$bad)}"
	[ -z "$bad" ]
}
label() {
	l=${1#"$FK_CONFORMANCE"/}
	l=${l#"$TMP"/}
	echo "${l#"$FK_SRCDIR"/}"
}

if check_files "all $# files together" "$@"; then
	set -- "$FK_SRCDIR"/tests/data/folded/*.txt "$TMP/crlf.txt" "$TMP/long.txt" "$TMP/one.txt"
fi
for f in "$@"; do
	check_files "$(label "$f")" "$f"
done
# The same through the parallel chunk parser with tiny chunks.
export FLAMEKIT_CHUNK_BYTES=64
check_files "our files, 64-byte chunks on 2 threads" --threads 2 \
	"$FK_SRCDIR"/tests/data/folded/*.txt "$TMP/crlf.txt" "$TMP/long.txt" "$TMP/one.txt"
unset FLAMEKIT_CHUNK_BYTES

# perf script text: shards start after a blank line; a later shard reads
# the file's first event type from the file's start.
DATA="$FK_CONFORMANCE/../data" # the real captures beside the corpus
if [ -f "$DATA/stairs.perf.txt.gz" ]; then
	gzip -dc "$DATA/stairs.perf.txt.gz" > "$TMP/stairs.perf.txt"
	gzip -dc "$DATA/waits-cpu.perf.txt.gz" > "$TMP/waits-cpu.perf.txt"
	gzip -dc "$DATA/waits-off.perf.txt.gz" > "$TMP/waits-off.perf.txt"
	# no --event-filter: a later shard reads the first event type from the
	# start of the file, so every shard keeps what the whole file keeps
	FMT="--format perf"
	check_files "perf: stairs and waits-cpu captures" "$TMP/stairs.perf.txt" "$TMP/waits-cpu.perf.txt"
	check_files "perf: the sched_switch capture" "$TMP/waits-off.perf.txt"
	# two event types: the second half of the file starts with the other one
	awk '/^[^ \t]/ { $0 = $0; sub(/cpu-clock:ppp:/, (NR > 40000 ? "cycles:u:" : "instructions:u:")) } { print }' \
		"$TMP/stairs.perf.txt" > "$TMP/two-events.txt"
	check_files "perf: two event types, the first kept in every shard" "$TMP/two-events.txt"
	run "$FLAMEKIT" collapse --format perf --shard 1/2 "$TMP/two-events.txt"
	is "$rc:$(echo "$err" | sed 's/dropped [0-9]* records/dropped N records/')" "0:flamekit: warning: [input:perf] $TMP/two-events.txt[1/2]: kept only \"instructions:u\" events (the first event type in the input); dropped N records of other events, the first being \"cycles:u\" (choose with --event-filter NAME)" \
		"perf: a later shard keeps the file's first event type without --event-filter"
	run "$FLAMEKIT" collapse --format perf --offcpu --shard 1/2 "$TMP/waits-off.perf.txt"
	is "$rc:$err" "1:flamekit: $TMP/waits-off.perf.txt[1/2]: --offcpu pairs each switch-in with an earlier switch-out, so it cannot read a shard; collapse the whole file" \
		"perf: --offcpu cannot read a later shard"
else
	skip "perf shards" "no shared/data captures"
fi
# dtrace and stap aggregations: shards start after a count-only line.
if [ -d "$FK_CONFORMANCE" ]; then
	for fmt in dtrace stap; do
		FMT="--format $fmt"
		for f in "$FK_CONFORMANCE"/$fmt/inputs/*.txt "$FK_SRCDIR"/tests/data/$fmt/*.txt; do
			[ -f "$f" ] || continue
			check_files "$fmt: $(label "$f")" "$f"
		done
	done
	FMT="--format folded"
fi
gzip -dc "$FK_SRCDIR/examples/profiles/demo.perf.txt.gz" > "$TMP/demo.perf.txt"
FMT="--format perf --event-filter=cpu-clock"
check_files "perf: the shipped demo capture" "$TMP/demo.perf.txt"
FMT="--format folded"

# Shard boundaries: which lines each shard of a 4-line file gets.
four_shards() { # four_shards FILE: the lines of each of its 4 shards, as [a 1 b 2 ][]...
	fs=
	for k in 0 1 2 3; do
		fs="$fs[$("$FLAMEKIT" collapse --format folded --shard $k/4 "$1" | tr '\n' ' ')]"
	done
	echo "$fs"
}
printf 'a 1\nb 2\nc 3\nd 4\n' > "$TMP/four.txt"
is "$(four_shards "$TMP/four.txt")" "[a 1 ][b 2 ][c 3 ][d 4 ]" "4 shards of a 16-byte, 4-line file: a cut on a line start stays there"
printf 'aaaaaaaaaa 1\nb 2\n' > "$TMP/four2.txt"
is "$(four_shards "$TMP/four2.txt")" "[aaaaaaaaaa 1 ][][][b 2 ]" "a cut inside a line moves to the next line start; a shard may be empty"

run "$FLAMEKIT" collapse --format folded -v --shard 1/2 "$TMP/four.txt"
is "$rc:$out:$(echo "$err" | grep bytes)" "0:c 3
d 4:flamekit: $TMP/four.txt[1/2]: bytes 8 to 16 of 16" "-v names the shard's byte range"
printf 'ok 1\nok 2\nbad line\n' > "$TMP/bad.txt"
run "$FLAMEKIT" collapse --format folded --shard 1/2 "$TMP/bad.txt"
is "$rc:$err" "0:flamekit: warning: $TMP/bad.txt[1/2]: skipped 1 unreadable line (line 1)" \
	"messages name the shard and count lines from its start"

gzip -c "$TMP/four.txt" > "$TMP/four.txt.gz"
run "$FLAMEKIT" collapse --format folded --shard 0/2 "$TMP/four.txt.gz"
is "$rc:$err" "2:flamekit: $TMP/four.txt.gz: compressed input cannot be sharded (--shard needs to seek); decompress it first" \
	"gzip input cannot be sharded"
run "$FLAMEKIT" collapse --format folded --shard 0/1 "$TMP/four.txt.gz"
is "$rc:$out" "0:a 1
b 2
c 3
d 4" "--shard 0/1 reads anything whole, gzip included"

run sh -c "cat '$TMP/four.txt' | '$FLAMEKIT' collapse --format folded --shard 0/2"
is "$rc:$err" "2:flamekit: <stdin>: --shard needs a regular file, not a pipe or terminal" "a pipe cannot be sharded"

for bad in 2/2 x 1 1/0 -1/2 1/-2 /3; do
	run "$FLAMEKIT" collapse --format folded --shard "$bad" "$TMP/four.txt"
	is "$rc:$(echo "$err" | head -1)" "2:flamekit: --shard takes K/N (shard K of N, K from 0 to N-1), not \"$bad\"" \
		"--shard $bad is a usage error"
done
run "$FLAMEKIT" collapse --format folded --shard=3/4 "$TMP/four.txt"
is "$rc:$out" "0:d 4" "--shard=K/N form"

done_testing
