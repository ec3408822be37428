#!/bin/sh
# A worker's error in job k of n (engine/workers.c) is reported exactly
# once, in input order, with the line number of the whole input, whatever
# --threads says: the same message and status as one thread, and as an
# oracle that is not flamekit (the first line holding a NUL byte, by grep).
# Each of the three ways the engine parses on threads: chunks a reader
# thread cuts (a pipe), ranges of a regular file, and perf-data's time
# slices (host->parse_streams, a `perf script` stand-in that prints the
# records of its --time range).  Two jobs fail, the first one's error is
# the only one said; and where nothing fails, the folded bytes and the
# skipped-line report do not depend on the thread count either.
. "$FK_SRCDIR/tests/lib.sh"
cd "$TMP" || exit 1

MSG='binary data (a NUL byte) in perf script text; give the text that `perf script` prints, not a perf.data file'

# records NAME BAD...: perf script text of 600 samples at times 10.000 to
# 12.995, 5 ms apart; in the records numbered BAD a frame line ends in a
# NUL byte (written '@', then turned into NUL).  Record 150 has a line
# perf cannot read (skipped, not an error).
records() {
	name=$1
	shift
	awk -v bad=" $* " 'BEGIN {
		for (i = 0; i < 600; i++) {
			printf "prog %d/%d [000] %d.%03d000: 250000 cpu-clock: \n", 100 + i % 3, 100 + i % 3,
			       10 + int(i * 5 / 1000), (i * 5) % 1000
			for (d = i % 4; d >= 0; d--)
				printf "\t    %x fn_%d_%d+0x1%s (/usr/lib/lib%d.so)\n", 4096 * (d + 1), d, i % 5,
				       d == 0 && index(bad, " " i " ") ? "@" : "", d
			printf "\t    %x main+0x5 (/usr/bin/prog)\n", 65536
			if (i == 150)
				print "this line is no part of a record"
			print ""
		}
	}' | tr '@' '\000' > "$name"
}

# first_nul FILE: the number of the first line holding a NUL byte
first_nul() {
	tr '\000' '@' < "$1" | grep -n '@' | head -n 1 | cut -d: -f1
}

# same_across NAME CMD...: CMD's stderr and status with --threads 1 are
# the oracle's message, and 2, 3, 4, 5 and 8 threads give the same bytes
# (tiny chunks, so that every thread has many jobs).  $WANT is the message.
same_across() {
	name=$1
	shift
	FLAMEKIT_CHUNK_BYTES=700 "$@" --threads 1 > /dev/null 2> one.err
	r1=$?
	is "$(cat one.err)" "$WANT" "$name, 1 thread: one message, the first error's (line by grep)"
	is "$r1" 1 "$name, 1 thread: exit status 1"
	bad=
	for t in 2 3 4 5 8; do
		FLAMEKIT_CHUNK_BYTES=700 "$@" --threads $t > /dev/null 2> many.err
		r=$?
		cmp -s one.err many.err && [ $r -eq $r1 ] || bad="$bad t$t(exit $r: $(head -c 200 many.err))"
	done
	is "$bad" "" "$name: 2, 3, 4, 5 and 8 threads say what 1 thread says, once"
}

# errors in records 230 and 233 (one job apart at 700-byte chunks) and 480
records two.txt 230 233 480
L=$(first_nul two.txt)
[ -n "$L" ]
ok $? "the oracle finds the first NUL byte (line $L)"

# chunks: a pipe is read by the calling thread and cut at record boundaries
WANT="flamekit: <stdin>:$L: $MSG"
same_across "chunks of a pipe" sh -c '"$FLAMEKIT" collapse --format perf "$@" < two.txt' sh

# ranges: a regular file, its plugin (perf) has sync()
WANT="flamekit: two.txt:$L: $MSG"
same_across "ranges of a file" "$FLAMEKIT" collapse --format perf two.txt

# the first job fails, and the last
records first.txt 0 599
L0=$(first_nul first.txt)
WANT="flamekit: first.txt:$L0: $MSG"
same_across "ranges, the first and the last job fail" "$FLAMEKIT" collapse --format perf first.txt
WANT="flamekit: <stdin>:$L0: $MSG"
same_across "chunks, the first and the last job fail" \
	sh -c '"$FLAMEKIT" collapse --format perf "$@" < first.txt' sh

# nothing fails: the same folded bytes and skipped-line report for any
# thread count, and an output file only then
records good.txt
FLAMEKIT_CHUNK_BYTES=700 "$FLAMEKIT" collapse --format perf --threads 1 -o one.folded good.txt 2> one.err
bad=
for t in 2 3 5 8; do
	FLAMEKIT_CHUNK_BYTES=700 "$FLAMEKIT" collapse --format perf --threads $t -o many.folded \
		good.txt 2> many.err
	{ cmp -s one.folded many.folded && cmp -s one.err many.err; } || bad="$bad ranges:t$t"
	FLAMEKIT_CHUNK_BYTES=700 "$FLAMEKIT" collapse --format perf --threads $t < good.txt \
		> many.folded 2> many.err
	{ cmp -s one.folded many.folded && sed 's/good\.txt/<stdin>/' one.err | cmp -s - many.err; } ||
		bad="$bad chunks:t$t"
done
skipline=$(grep -n '^this line' good.txt | cut -d: -f1)
is "$(cat one.err)" "flamekit: warning: good.txt: skipped 1 unreadable line (line $skipline)" \
	"no error: the skipped line's report, its number by grep"
is "$bad" "" "no error: the same folded bytes and report for 2, 3, 5 and 8 threads"
# the stacks against awk: each record's command, then its frames root
# first (stackcollapse-perf.pl's order), 250000 a sample
awk 'BEGIN { RS = "" } /^prog/ {
	s = $1
	n = split($0, l, "\n")
	for (k = n; k >= 2; k--) {
		if (l[k] !~ /^\t/)
			continue
		f = l[k]; sub(/^\t *[0-9a-f]+ /, "", f); sub(/\+0x[0-9a-f]+ \(.*$/, "", f)
		s = s ";" f
	}
	w[s] += 250000
} END { for (s in w) print s, w[s] }' good.txt | LC_ALL=C sort > awk.folded
same_file awk.folded one.folded "no error: the stacks awk reads from the records"
rm -f no.folded
FLAMEKIT_CHUNK_BYTES=700 "$FLAMEKIT" collapse --format perf --threads 4 -o no.folded two.txt 2> /dev/null
[ ! -e no.folded ]
ok $? "an error: no output file"

# --- perf-data's time slices: jobs of one perf parser session ------------
# The stand-in prints the records of its --time range START,STOP (either
# may be empty), as perf script does; without --time, every record.
cat > perf <<'EOF'
#!/bin/sh
from= to=
while [ $# -gt 0 ]; do
	case $1 in --time) from=${2%,*} to=${2#*,}; shift ;; esac
	shift
done
tr '\000' '@' < "$FK_EVENTS" | awk -v from="$from" -v to="$to" 'BEGIN { RS = ""; ORS = "\n\n" }
{
	t = $0; sub(/:.*/, "", t); sub(/.* /, "", t); t += 0
	if ((from == "" || t >= from + 0) && (to == "" || t <= to + 0))
		print
}' | tr '@' '\000'
EOF
chmod +x perf
D="$FK_SRCDIR/tests/data/perf-data/three-seconds.data"
export FK_EVENTS
FK_EVENTS=two.txt
./perf script -i x > whole.txt
LS=$(first_nul whole.txt)
WANT="flamekit: $D (perf script output):$LS: $MSG"
same_across "perf-data time slices" "$FLAMEKIT" collapse --perf ./perf "$D"
FK_EVENTS=first.txt
./perf script -i x > whole.txt
LS=$(first_nul whole.txt)
WANT="flamekit: $D (perf script output):$LS: $MSG"
same_across "perf-data, the first and the last slice fail" "$FLAMEKIT" collapse --perf ./perf "$D"

done_testing
