#!/bin/sh
# Input plugin bcc: the default output of bcc's profile, offcputime,
# offwaketime and stackcount.  The fixtures of tests/data/bcc were written
# from the tools' print statements (bcc 0.26; the tools need kernel headers
# this machine lacks, so nothing is recorded at test time unless they run):
# each collapses to what tests/oracle/bcc.py says, with the same skipped
# lines; then units, detection against dtrace, errors, CRLF, gzip, shards.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/bcc"
ORACLE="$FK_SRCDIR/tests/oracle/bcc.py"
. "$FK_SRCDIR/tests/oracle/check.sh"

fixtures bcc "$D"

# what the tools' -f would print, written out from their print statements
run "$FLAMEKIT" collapse "$D/profile-delimited.txt"
is "$out" "burn;main;top;leaf_b;-;irqentry_exit_to_user_mode 4
swapper/0;[Missed User Stack];default_idle;native_safe_halt 900" "profile -d: comm;user;-;kernel, as profile -f -d"
run "$FLAMEKIT" collapse "$D/offwaketime-delimited.txt"
is "$out" "cat;read;-;schedule;--;try_to_wake_up;-;main;sshd 77" \
	"offwaketime -d: target;its user and kernel stacks;--;the waker's kernel and user stacks, leaf first;waker"

# units: offcputime and offwaketime weigh microseconds, profile samples
for c in offcputime:microseconds offwaketime:microseconds profile:none; do
	"$FLAMEKIT" graph --output-plugin speedscope "$D/${c%%:*}.txt" > "$TMP/s.json" 2> "$TMP/s.err"
	is "$(grep -o '"unit":"[a-z]*"' "$TMP/s.json" | sort -u)" "\"unit\":\"${c#*:}\"" \
		"${c%%:*}: the speedscope output's unit is ${c#*:}"
done

# a capture recorded now, if bcc's profile can run here
if can_burn profile-bpfcc; then
	"$TMP/burn" 4 > /dev/null &
	pid=$!
	timeout 60 profile-bpfcc -F 499 -p $pid 2 > "$TMP/live.txt" 2> "$TMP/live.err"
	brc=$?
	wait $pid
	if [ $brc -eq 0 ] && grep -q 'burn (' "$TMP/live.txt"; then
		check "$TMP/live.txt" "a profile capture recorded now"
	else
		skip "a profile capture recorded now" "profile-bpfcc could not run: $(tail -1 "$TMP/live.err")"
	fi
else
	skip "a profile capture recorded now" "needs profile-bpfcc (bpfcc-tools), cc and root"
fi

# errors
collapse_head bcc 5 "$D/profile.txt"
is "$rc:$out:$err" "1::flamekit: $TMP/cut.txt:3: this record has no count line (is the file truncated?)" \
	"a truncated record: exit 1, its first line named, nothing written"
collapse_text bcc odd.txt '    a\n    -                x (1)\n    b\n    c\n    -                y (2)\n        3\n\n'
is "$rc:$out:$err" "0:y;c 3:flamekit: warning: $TMP/odd.txt: skipped 3 unreadable lines (lines 1, 2, 3)" \
	"a frame after the process line: that record's lines skipped, counted"

# dtrace, stap and the others never take bcc text, bcc takes none of theirs
for f in "$FK_SRCDIR"/tests/data/dtrace/*.txt "$FK_SRCDIR"/tests/data/stap/*.txt \
	"$FK_SRCDIR"/tests/data/bpftrace/*.txt; do
	got=$("$FLAMEKIT" collapse -v "$f" 2>&1 > /dev/null | sed -n 's/.*: detected format //p')
	ok $([ "$got" != bcc ]; echo $?) "$(basename "$(dirname "$f")")/$(basename "$f") is not taken for bcc ($got)"
done

# CRLF, gzip, shards (of three copies, so that each shard has records)
cat "$D/profile.txt" "$D/offwaketime.txt" "$D/profile.txt" > "$TMP/three.txt"
other_forms bcc "$TMP/three.txt"

done_testing
