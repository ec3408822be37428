#!/bin/sh
# The files a perf.data names (its maps' paths, the build-id cache, the
# debuglinks and debuginfo found from them) are opened as libfksym's
# fk_sym_open_guarded opens them: a symbolic link another user planted in a
# sticky world-writable directory is not followed, and a FIFO or a device
# is refused before it is opened (so a FIFO never hangs the read), with one
# warning naming the path; its frames stay [unknown], as perf script leaves
# the frames of a file it cannot read.  The oracle: perf script on the same
# capture with the file removed, through `flamekit collapse --format perf`.
# Captures are recorded with --no-buildid-cache and HOME a temporary
# directory, so no cached copy names the frames.  The planted link needs
# root and setpriv (the user nobody plants it); the FIFO does not.
. "$FK_SRCDIR/tests/lib.sh"
perf_home

need_perf "perf-data: files a capture names"
cat > prog.c <<'CEOF'
static volatile unsigned long sink;
__attribute__((noinline)) static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
int main(void)
{
	spin(100000000);
	return 0;
}
CEOF
compile_or_skip "perf-data: files a capture names" -O1 -g -fno-omit-frame-pointer -o prog prog.c
cp prog fprog
record_or_skip "perf-data: files a capture names" -N -q -g -o fifo.data "$TMP/fprog"
# the oracle: perf script with the file gone
rm fprog
perf script -i fifo.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > exp.fifo
ok $(grep -q '^fprog;.*\[fprog\] [0-9]*$' exp.fifo; echo $?) "perf script: the removed program's frames are [fprog]"
mkfifo fprog
# a hang would be the failure: timeout ends it rather than the test run
run timeout 120 "$FLAMEKIT" collapse fifo.data
is "$rc:$err" "0:flamekit: warning: [input:perf-data] $TMP/fprog: cannot read: not a regular file; its addresses are [unknown]" \
	"a FIFO where the capture's program was: refused with one warning, without waiting for a writer"
is "$out" "$(cat exp.fifo)" "... and its frames are perf script's for a missing file"

# planted DATA PATH TARGET NAME: record the program run as PATH (a copy
# under sticky/), remove it for the oracle, then let nobody plant
# TARGET's link at the first component of PATH under sticky/ and read DATA
planted() {
	mkdir -p "$(dirname "$2")"
	cp prog "$2"
	perf record -N -q -g -o "$1" "$2" > /dev/null 2>&1
	_top=$TMP/sticky/$(echo "${2#"$TMP/sticky/"}" | cut -d/ -f1)
	rm -r "$_top"
	perf script -i "$1" 2> /dev/null | "$FLAMEKIT" collapse --format perf > "$1.exp"
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$3" "$_top"
	run "$FLAMEKIT" collapse "$1"
	is "$rc:$err" "0:flamekit: warning: [input:perf-data] $2: not followed: a symbolic link on its path is owned by uid $(id -u nobody), in a sticky world-writable directory of another user; its addresses are [unknown]" \
		"$4: not followed, one warning"
	is "$out" "$(cat "$1.exp")" "... and its frames stay [unknown]"
}
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1; then
	# a sticky world-writable directory, as /tmp, inside this test's own
	chmod 755 "$TMP"
	mkdir -m 1777 sticky sub
	cp prog sub/prog
	planted planted.data "$TMP/sticky/prog" "$TMP/prog" "another user's link where the capture's program was"
	planted dir.data "$TMP/sticky/sub/prog" "$TMP/sub" "another user's link to a directory on the way"
	# one's own link there is followed: the program's names
	rm sticky/prog
	ln -s "$TMP/prog" sticky/prog
	run "$FLAMEKIT" collapse planted.data
	ok $([ "$rc" = 0 ] && [ -z "$err" ] && echo "$out" | grep -q ';spin [0-9]*$'; echo $?) \
		"one's own link there is followed: spin named"
	chmod 700 "$TMP"
else
	skip "a link planted by another user" "needs root and setpriv"
	skip "a planted link's frames" "needs root and setpriv"
	skip "a planted link to a directory" "needs root and setpriv"
	skip "a planted link to a directory: frames" "needs root and setpriv"
	skip "one's own link" "needs root and setpriv"
fi
done_testing
