#!/bin/sh
# perf-data's native reader against perf script, on captures recorded here
# and now (skipped where perf cannot record): a C program that starts a
# thread, forks and execs itself (FORK, COMM exec, MMAPs over the old
# program's); a system-wide -a -g capture; two events; no callchains; a
# node JIT map; the program and -a -g written to a pipe (perf record -o -);
# perf record -z captures (file, system-wide, pipe), and a zstd bomb;
# sched and kmem tracepoints with the parser's pairing and weight options.
#
# The reader (records, perf's order, threads, maps, perf script's text) is
# compared with its symbols unresolved: the test build of the plugin in
# tests/modules/nullsym links a libfksym that resolves nothing, and the
# oracle is `perf script --symfs EMPTY --kallsyms EMPTY`, which leaves every
# frame [unknown] with its DSO and address (--addrs keeps both in the
# folded text).  The installed plugin is checked as it is built: with
# libfksym, symbols and all against `perf script | flamekit collapse
# --format perf`; without, its one warning and perf script's result.
# A truncated and a forged file give one error naming the byte; a capture
# holding what the reader does not read (perf record -W -g) one warning,
# then perf script's result.  HOME is a temporary directory: perf's
# build-id cache (~/.debug) is not the user's.
. "$FK_SRCDIR/tests/lib.sh"
perf_home
mkdir empty
: > nokall
NULLSYM="--plugin-dir $FK_BUILDDIR/tests/modules/nullsym"

need_perf "native perf.data"
cat > prog.c <<'EOF'
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void spin(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) static void in_child(void) { spin(20000000); }
__attribute__((noinline)) static void in_exec(void) { spin(20000000); }
static void *worker(void *a) { (void)a; spin(20000000); return NULL; }
int main(int argc, char **argv)
{
	pthread_t t;
	pid_t p;
	if (argc > 1 && strcmp(argv[1], "exec") == 0) {
		in_exec();
		return 0;
	}
	pthread_create(&t, NULL, worker, NULL);
	if ((p = fork()) == 0) {
		in_child();
		execl(argv[0], argv[0], "exec", (char *)NULL);
		_exit(1);
	}
	spin(20000000);
	pthread_join(t, NULL);
	waitpid(p, NULL, 0);
	return 0;
}
EOF
compile_or_skip "native perf.data" -O1 -g -fno-omit-frame-pointer -pthread -o prog prog.c
record_or_skip "native perf.data" -q -g -o prog.data ./prog
caps=prog.data
perf record -q -a -g -o sys.data -- sleep 1 > /dev/null 2>&1 && caps="$caps sys.data"
perf record -q -e cpu-clock -e task-clock -g -o two.data ./prog > /dev/null 2>&1 && caps="$caps two.data"
perf record -q -o nog.data ./prog > /dev/null 2>&1 && caps="$caps nog.data"
# a JIT map: node writes /tmp/perf-PID.map, removed once the capture is read
if command -v node > /dev/null 2>&1 && perf record -q -g -o jit.data -- node --perf-basic-prof -e \
	'function f(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s }
	 let t = 0; for (let k = 0; k < 200; k++) t += f(100000)' > /dev/null 2>&1; then
	caps="$caps jit.data"
	JITPID=$(perf script -i jit.data -F pid 2> /dev/null | sort -u | head -1 | tr -d ' ')
	trap 'rm -rf "$TMP"; [ -n "$JITPID" ] && rm -f "/tmp/perf-$JITPID.map"' EXIT
fi

# wide FILE: true for the captures recorded system-wide (perf record -a)
# whose symbols are compared.  own FILE: the folded text on standard
# input, with such a capture's stacks kept only for this machine's own programs (sleep, the idle task).
# Such a capture holds other tests' programs too, which they may delete
# between perf script's reading and ours, so their symbols are not
# compared (a file gone since is no complaint either); their addresses are.
wide() { case $1 in sys.data | zsys.data) return 0 ;; esac; return 1; }
own() {
	if wide "$1"; then grep -E '^(sleep|swapper)[-;]'; else cat; fi
}

# native FILE PERFARGS -- ARGS...: the test build's folded text and stderr
# against perf script's with every symbol unresolved.
native() {
	file=$1 pa=
	shift
	while [ "$1" != -- ]; do pa="$pa $1"; shift; done
	shift
	# shellcheck disable=SC2086
	perf script -i "$file" $pa --symfs empty --kallsyms nokall 2> /dev/null |
		"$FLAMEKIT" collapse --format perf "$@" > want.folded 2> want.err
	for t in 1 3; do
		# shellcheck disable=SC2086
		"$FLAMEKIT" collapse $NULLSYM --threads $t "$@" "$file" > got.folded 2> got.err
		same_file want.folded got.folded "$file${*:+ $*}, $t thread(s): perf script's bytes ($(wc -l < want.folded) stacks)"
	done
	# (a LOST warning is the reader's own: perf script says it on the stderr
	# dropped here, and a loaded machine loses samples of -a captures)
	is "$(sed "s|\[input:perf-data\] $file (decoded):|[input:perf] <stdin>:|; s|^flamekit: warning: $file (decoded): skipped|flamekit: warning: <stdin>: skipped|; /samples were lost while recording/d" got.err)" "$(cat want.err)" \
		"$file${*:+ $*}: read natively; the parser's messages, as the pipeline's"
}
for f in $caps; do
	native "$f" -- --addrs
	native "$f" -- --addrs --kernel
	native "$f" -F +pid -- --pid
	native "$f" -F +pid -- --tid --addrs
	native "$f" --
done
case " $caps " in *" two.data "*)
	native two.data -- --addrs --event-filter task-clock
	native two.data -- --series-by-event cpu-clock,task-clock
esac
case "$caps" in "prog.data sys.data two.data nog.data"*) r=0 ;; *) r=1 ;; esac
ok $r "every capture recorded ($caps)"
case " $caps " in
*" jit.data "*) grep -q '^node;.*JS:' want.folded 2> /dev/null || perf script -i jit.data 2> /dev/null |
	"$FLAMEKIT" collapse --format perf | grep -q '^node;.*JS:'
	ok $? "jit.data: node's JIT frames are named from /tmp/perf-$JITPID.map" ;;
*) skip "JIT map" "node is not installed, or perf cannot record it" ;;
esac

# the program's own processes, threads and exec: named as perf names them
perf script -i prog.data --symfs empty --kallsyms nokall -F +pid 2> /dev/null |
	"$FLAMEKIT" collapse --format perf --tid | sed 's/;.*//; s/-[0-9]*\/[0-9]*$//' | sort -u > want.txt
is "$(cat want.txt)" "prog" "prog.data: every sample's thread is named prog (thread, fork, exec)"

# --- pipe mode: perf record -o - | flamekit collapse - ---------------------
if perf record -q -g -o - ./prog > pipe.data 2> /dev/null &&
	perf record -q -a -g -o - -- sleep 0.5 > psys.data 2> /dev/null; then
	for f in pipe.data psys.data; do
		for opts in --addrs --pid; do
			pa=
			[ "$opts" = --pid ] && pa="-F +pid"
			# shellcheck disable=SC2086
			perf script -i - $pa --symfs empty --kallsyms nokall < "$f" 2> /dev/null |
				"$FLAMEKIT" collapse --format perf $opts > want.folded 2> /dev/null
			# shellcheck disable=SC2086
			"$FLAMEKIT" collapse $NULLSYM $opts - < "$f" > got.folded 2> got.err
			same_file want.folded got.folded "$f $opts on standard input: perf script -i -'s bytes"
			is "$(cat got.err)" "" "$f $opts on standard input: read natively, nothing said"
			# shellcheck disable=SC2086
			"$FLAMEKIT" collapse $NULLSYM $opts "$f" > got.folded 2> /dev/null
			same_file want.folded got.folded "$f $opts by its path: the same bytes"
		done
	done
	perf script -i - < pipe.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
	run "$FLAMEKIT" collapse - < pipe.data
	case $err in
	*"symbols need libfksym"*)
		is "$rc:$out:$err" "1::flamekit: <stdin>: not read natively: symbols need libfksym, which this flamekit was built without; and perf script needs the perf.data file itself, not a pipe: save the capture to a file" \
			"a pipe without libfksym: one error, nothing printed" ;;
	*)
		printf '%s\n' "$out" > got.folded
		same_file want.folded got.folded "a pipe, symbols and all: perf script -i -'s bytes" ;;
	esac
	# a LOST record (7 samples) added to the stream, after its first COMM
	# and with that COMM's sample_id_all trailer: perf reads it as one,
	# the native reader says so once and keeps every sample
	"${PYTHON3:-python3}" - pipe.data lost.data <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
pos = 16
while pos + 8 <= len(b):
    typ, misc, size = struct.unpack_from("<IHH", b, pos)
    if typ == 3:  # PERF_RECORD_COMM: pid, tid, comm (NUL, 8-aligned), trailer
        comm = b[pos + 16:pos + size].split(b"\0")[0]
        trailer = b[pos + 16 + (len(comm) + 8) // 8 * 8:pos + size]
        lost = struct.pack("<IHHQQ", 2, 0, 24 + len(trailer), 0, 7) + trailer
        open(sys.argv[2], "wb").write(b[:pos + size] + lost + b[pos + size:])
        break
    pos += size
PY
	is "$(perf script -D -i lost.data 2> /dev/null | grep -c 'PERF_RECORD_LOST: id:0: lost:7')" 1 \
		"a LOST record added: perf reads one, of 7 samples"
	perf script -i - < pipe.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded 2> /dev/null
	run env PATH=/nonexistent "$FLAMEKIT" collapse lost.data
	printf '%s\n' "$out" > got.folded
	same_file want.folded got.folded "a LOST record: every sample kept"
	is "$rc:$err" "0:flamekit: warning: [input:perf-data] lost.data: 7 samples were lost while recording (1 LOST record): the profile lacks them" \
		"a LOST record: one warning naming the file and the samples lost"
else
	skip "pipe mode" "perf cannot record to a pipe here"
fi

# --- perf record -z: COMPRESSED records decompressed in-process ----------
# The program, a system-wide capture with small ring buffers (-m 4: records
# cut at a buffer's wrap straddle two COMPRESSED records, which perf joins),
# and the program written to a pipe; each compared with perf script with
# symbols unresolved (the reader) and symbols and all, with no perf in PATH.
if perf record -q -z -g -o z.data ./prog > zrec.log 2>&1; then
	zcaps=z.data
	perf record -q -z -g -a -m 4 -F 2000 -o zsys.data -- sleep 1 > /dev/null 2>&1 &&
		zcaps="$zcaps zsys.data"
	perf record -q -z -g -o - ./prog > zpipe.data 2> /dev/null && zcaps="$zcaps zpipe.data"
	for f in $zcaps; do
		native "$f" -- --addrs
		native "$f" -F +pid -- --tid --addrs
		gone=
		wide "$f" &&
			gone='/: cannot read: No such file or directory; its addresses are \[unknown\]$/d'
		perf script -i "$f" 2> /dev/null | "$FLAMEKIT" collapse --format perf | own "$f" > want.folded
		run env PATH=/nonexistent "$FLAMEKIT" collapse "$f"
		printf '%s\n' "$out" | own "$f" > got.folded
		same_file want.folded got.folded "$f (perf record -z): the pipeline's bytes, symbols and all ($(wc -l < want.folded) stacks)"
		is "$rc:$(printf '%s\n' "$err" | sed "/samples were lost while recording/d; $gone")" "0:" \
			"$f (perf record -z): read natively with no perf in PATH, nothing said"
	done
	case " $zcaps " in *" zpipe.data "*)
		run env PATH=/nonexistent "$FLAMEKIT" collapse - < zpipe.data
		printf '%s\n' "$out" > got.folded
		perf script -i - < zpipe.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
		same_file want.folded got.folded "perf record -z -o - | flamekit collapse -: perf script -i -'s bytes"
		is "$rc:$err" "0:" "perf record -z -o - on standard input: read natively, nothing said" ;;
	*) skip "perf record -z -o -" "perf cannot record to a pipe here" ;;
	esac
	case " $zcaps " in *" zsys.data "*)
		n=$("$FLAMEKIT" collapse -vv zsys.data 2>&1 > /dev/null |
			sed -n 's/.* bytes, \([0-9]*\) records completed by a later one$/\1/p')
		ok "$([ "${n:-0}" -gt 0 ]; echo $?)" "zsys.data: records straddle COMPRESSED records (${n:-none})" ;;
	*) skip "perf record -z -a" "perf cannot record system-wide here" ;;
	esac
	# A bomb: 16 MiB of zeros in one COMPRESSED record (530 bytes of zstd)
	# appended to the pipe capture; and a COMPRESSED record that is no zstd.
	if command -v zstd > /dev/null 2>&1 && [ -s zpipe.data ]; then
		head -c 16777216 /dev/zero | zstd -q -19 -c > zeros.zst
		printf 'not a zstd frame' > junk.zst
		for b in zeros junk; do
			# the capture without its COMPRESSED records (one zstd frame runs
			# through them all), then the forged one
			"${PYTHON3:-python3}" - zpipe.data $b.zst $b.data <<'PY' > zlen.txt
import struct, sys
b = open(sys.argv[1], "rb").read()
z = open(sys.argv[2], "rb").read()
out, pos = bytearray(b[:16]), 16
while pos < len(b):
    t, misc, sz = struct.unpack_from("<IHH", b, pos)
    span = sz + ((struct.unpack_from("<I", b, pos + 8)[0] + 7) & ~7 if t == 66 else 0)
    if t != 81:
        out += b[pos:pos + span]
    pos += span
print(len(out))
open(sys.argv[3], "wb").write(out + struct.pack("<IHH", 81, 0, 8 + len(z)) + z)
PY
		done
		zlen=$(cat zlen.txt)
		run "$FLAMEKIT" collapse --max-input-size 1M zeros.data
		is "$rc:$out:$err" "1::flamekit: zeros.data: the input holds more than --max-input-size allows (1M): refused, as a decompression bomb or an endless stream would be; a larger --max-input-size reads it" \
			"a COMPRESSED record inflating past --max-input-size: refused, one error naming the file"
		# an endless pipe: the header of one, then zeros
		{ printf 'PERFILE2\020\0\0\0\0\0\0\0'; head -c 2097152 /dev/zero; } > endless.data
		run "$FLAMEKIT" collapse --format perf-data --max-input-size 1M - < endless.data
		is "$rc:$out:$err" "1::flamekit: <stdin>: the input holds more than --max-input-size allows (1M): refused, as a decompression bomb or an endless stream would be; a larger --max-input-size reads it" \
			"a pipe longer than --max-input-size: refused, one error"
		run "$FLAMEKIT" collapse junk.data
		is "$rc:$out:${err%% (zstd:*}" "1::flamekit: junk.data: at byte $zlen: its COMPRESSED record does not decompress" \
			"a COMPRESSED record that is no zstd stream: one error naming its byte"
	else
		skip "perf record -z bombs" "zstd is not installed, or the pipe capture failed"
	fi
else
	skip "perf record -z" "perf cannot record compressed here: $(head -1 zrec.log)"
fi

# --- the installed plugin ------------------------------------------------
perf script -i prog.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
run "$FLAMEKIT" collapse prog.data
printf '%s\n' "$out" > got.folded
case $err in
*"symbols need libfksym"*)
	is "$rc:$err" "0:flamekit: warning: [input:perf-data] prog.data: not read natively: symbols need libfksym, which this flamekit was built without; running perf script instead" \
		"without libfksym: one warning, then perf script"
	;;
*)
	is "$rc:$err" "0:" "with libfksym: read natively, nothing said" ;;
esac
same_file want.folded got.folded "prog.data: the pipeline's bytes, symbols and all"
# every capture, symbols and all, with options (a file's DSOs rebuilt since
# it was recorded are named in warnings: stderr is not compared here)
# (nog.data is left out: perf script prints samples without callchains with
# no blank line between them, and perf script's time slices, the fallback,
# cut that text elsewhere than one pass does)
for f in $caps; do
	[ "$f" = nog.data ] && continue
	for opts in "" "--pid" "--tid --kernel"; do
		pa=
		case $opts in --pid|--tid*) pa="-F +pid" ;; esac
		# shellcheck disable=SC2086
		perf script -i "$f" $pa 2> /dev/null | "$FLAMEKIT" collapse --format perf $opts 2> /dev/null |
			own "$f" > want.folded
		# shellcheck disable=SC2086
		"$FLAMEKIT" collapse $opts "$f" 2> /dev/null | own "$f" > got.folded
		same_file want.folded got.folded "$f${opts:+ $opts}: the pipeline's bytes, symbols and all ($(wc -l < want.folded) stacks)"
	done
done
perf script -i prog.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
run "$FLAMEKIT" collapse --via-perf-script prog.data
printf '%s\n' "$out" > got.folded
same_file want.folded got.folded "--via-perf-script: the pipeline's bytes"
is "$rc:$err" "0:" "--via-perf-script: nothing said"

# --- tracepoints: their fields printed from the file's own formats ---------
# sched_switch and sched_wakeup of a sleeping program, with and without
# callchains, and to a pipe; kmem:kmalloc and kfree.  Each option of the
# perf parser against perf script's text, symbols unresolved and symbols
# and all, with no perf in PATH.  (Recorded again, up to three times, when
# a capture on a busy machine holds no switch-out followed by a switch-in
# of the same thread.)
sw_record() {
	perf record -q -g -e sched:sched_switch -e sched:sched_wakeup -o sw.data -- \
		sh -c 'for i in 1 2 3 4 5 6; do sleep 0.05; done' > sw.log 2>&1 &&
	perf script -i sw.data 2> /dev/null | "$FLAMEKIT" collapse --format perf --offcpu > want.folded
}
# tp FILE OPTS...: the real plugin, no perf in PATH, against the pipeline
tp() {
	file=$1
	shift
	perf script -i "$file" 2> /dev/null | "$FLAMEKIT" collapse --format perf "$@" > want.folded 2> want.err
	run env PATH=/nonexistent "$FLAMEKIT" collapse "$@" "$file"
	printf '%s\n' "$out" > got.folded
	[ -n "$out" ] || : > got.folded
	same_file want.folded got.folded "$file${*:+ $*}: the pipeline's bytes, symbols and all ($(wc -l < want.folded) stacks)"
	# (a capture on a busy machine can lose samples: the native reader
	# says so, perf script's text does not)
	is "$rc:$(printf '%s\n' "$err" | sed "s|\[input:perf-data\] $file (decoded):|[input:perf] <stdin>:|; s|^flamekit: warning: $file (decoded): skipped|flamekit: warning: <stdin>: skipped|; /samples were lost while recording/d")" \
		"0:$(cat want.err)" "$file${*:+ $*}: read natively with no perf in PATH; the parser's messages"
}
if sw_record && { [ -s want.folded ] || sw_record; } && { [ -s want.folded ] || sw_record; }; then
	ok "$([ -s want.folded ]; echo $?)" "sw.data --offcpu: the pipeline's result is not empty"
	swcaps=sw.data
	perf record -q -e sched:sched_switch -e sched:sched_wakeup -o swn.data -- \
		sh -c 'for i in 1 2 3; do sleep 0.05; done' > /dev/null 2>&1 && swcaps="$swcaps swn.data"
	for f in $swcaps; do
		all="--offcpu --wakeups --event-filter=sched:sched_wakeup --weight-field=prev_prio"
		[ "$f" = swn.data ] && all= # one line a sample: the parser skips all but the first
		for opts in "" $all "--series-by-event sched:sched_switch,sched:sched_wakeup"; do
			# shellcheck disable=SC2086
			native "$f" -- --addrs $opts
			# shellcheck disable=SC2086
			tp "$f" $opts
		done
		# perf script -F +pid drops a tracepoint's callchain (a field list the
		# user set loses the ip perf adds to tracepoints' defaults, so every
		# --pid stack is its process alone); the reader keeps it, as -F
		# +pid,+ip,+sym,+symoff,+dso prints it
		case $f in
		sw.data) native "$f" -F +pid,+ip,+sym,+symoff,+dso -- --tid --offcpu ;;
		*) native "$f" -F +pid -- --tid --offcpu ;;
		esac
	done
	if perf record -q -g -e sched:sched_switch -e sched:sched_wakeup -o - -- \
		sh -c 'for i in 1 2 3; do sleep 0.05; done' > swp.data 2> /dev/null; then
		# perf script -i - prints a pipe's tracepoints without their
		# callchains (the ip it adds to tracepoints' default fields is
		# decided before a pipe's attributes are read); the reader keeps
		# them, as -F trace:(the defaults),ip,sym,symoff,dso prints them
		for opts in "" --offcpu --wakeups; do
			# shellcheck disable=SC2086
			perf script -i - -F trace:comm,tid,cpu,time,event,trace,ip,sym,symoff,dso < swp.data 2> /dev/null |
				"$FLAMEKIT" collapse --format perf $opts > want.folded
			# shellcheck disable=SC2086
			run env PATH=/nonexistent "$FLAMEKIT" collapse $opts - < swp.data
			printf '%s\n' "$out" > got.folded
			[ -n "$out" ] || : > got.folded
			same_file want.folded got.folded "tracepoints -o - on standard input${opts:+ $opts}: perf script -i -'s bytes"
			is "$rc" 0 "tracepoints -o - on standard input${opts:+ $opts}: read natively"
		done
	else
		skip "tracepoints to a pipe" "perf cannot record them to a pipe here"
	fi
	# timer:itimer_state's print arguments divide (REC->value_nsec / 1000L),
	# so the reader has libtraceevent parse its format in a child process
	# first (trace.c): the payload perf script prints, --weight-field's text
	if perf record -q -g -e timer:itimer_state -o it.data -- "${PYTHON3:-python3}" -c '
import signal
signal.signal(signal.SIGALRM, lambda *a: None)
for i in range(5):
    signal.setitimer(signal.ITIMER_REAL, 1 + i, 0.25 * i)
signal.setitimer(signal.ITIMER_REAL, 0)' > it.log 2>&1; then
		tp it.data --weight-field=which
	else
		skip "timer:itimer_state" "perf cannot record it here: $(head -1 it.log)"
	fi
	# the tracing data forged: its magic's first byte (the feature section's
	# offset read from the file): one warning naming the byte, then perf script
	"${PYTHON3:-python3}" - sw.data <<'PY' > tracing.txt
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
doff, dsize = struct.unpack_from("<QQ", b, 40)
feat = int.from_bytes(b[72:104], "little")
at = doff + dsize + 16 * bin(feat & 1).count("1")  # HEADER_TRACING_DATA is bit 1
off = struct.unpack_from("<Q", b, at)[0]
b[off] ^= 0xff
open("badtp.data", "wb").write(b)
print(off)
PY
	toff=$(cat tracing.txt)
	# sched_switch's format naming a field it lacks inside __print_flags
	# (libtraceevent 1.7 dereferences a null pointer on it, perf script too)
	"${PYTHON3:-python3}" - sw.data <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"__print_flags(REC->prev_state")
b[i:i + 29] = b"__print_flags(REC->prev_stata"
open("badfmt.data", "wb").write(b)
PY
	run "$FLAMEKIT" collapse $NULLSYM badfmt.data
	is "$(printf '%s\n' "$err" | grep natively)" "flamekit: warning: [input:perf-data] badfmt.data: not read natively: tracepoint payloads: its tracing data has no format for sched:sched_switch (id $(perf evlist -v -i sw.data 2> /dev/null | sed -n 's/^sched:sched_switch: .*config: \(0x[0-9a-f]*\),.*/\1/p' | xargs printf '%d')); running perf script instead" \
		"a format naming a field it lacks: left out, one warning; no crash"
	ok "$([ "$rc" -le 1 ]; echo $?)" "a format naming a field it lacks: exit status $rc (perf script's own result)"
	run "$FLAMEKIT" collapse $NULLSYM badtp.data
	is "$(printf '%s\n' "$err" | grep natively)" "flamekit: warning: [input:perf-data] badtp.data: not read natively: tracepoint payloads: its tracing data at byte $toff: its tracing data does not start with perf's magic; running perf script instead" \
		"forged tracing data: one warning naming its byte, then perf script"
else
	skip "sched tracepoints" "perf cannot record sched:sched_switch here: $(head -1 sw.log)"
fi
if perf record -q -g -e kmem:kmalloc -e kmem:kfree -o km.data -- \
	sh -c 'ls -l /usr/share/doc > /dev/null' > km.log 2>&1; then
	for opts in "" --leak "--weight-field bytes_alloc --event-filter kmem:kmalloc" \
		"--leak --leak-align 64" "--series-by-event kmem:kmalloc,kmem:kfree"; do
		# shellcheck disable=SC2086
		native km.data -- --addrs $opts
		# shellcheck disable=SC2086
		tp km.data $opts
	done
else
	skip "kmem tracepoints" "perf cannot record kmem:kmalloc here: $(head -1 km.log)"
fi

# --- what is not read natively: one warning, perf script's result ---------
# (--call-graph dwarf is read natively now: tests/perf-data-dwarf.sh)
if perf record -q -W -g -o w.data ./prog > w.log 2>&1; then
	perf script -i w.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
	run "$FLAMEKIT" collapse w.data
	printf '%s\n' "$out" > got.folded
	same_file want.folded got.folded "perf record -W -g: perf script's bytes"
	is "$rc:$(printf '%s\n' "$err" | grep natively)" "0:flamekit: warning: [input:perf-data] w.data: not read natively: sample_type bit WEIGHT_STRUCT; running perf script instead" \
		"perf record -W -g: one warning saying what is not read natively"
else
	skip "-W fallback" "perf cannot record -W here: $(head -1 w.log)"
fi

# --- bad files: one error naming the file and the byte --------------------
# The offsets and sizes come from the file, read here with python.
"${PYTHON3:-python3}" - prog.data <<'PY' > layout.txt
import struct, sys
b = open(sys.argv[1], "rb").read()
doff, dsize = struct.unpack_from("<QQ", b, 40)
pos, first_sample, last = doff, None, None
while pos < doff + dsize:
    t, misc, sz = struct.unpack_from("<IHH", b, pos)
    if t == 9 and first_sample is None:
        first_sample = (pos, sz)
    last = (pos, t, sz)
    pos += sz
print(doff, dsize, len(b), first_sample[0], first_sample[1], last[0], last[1], last[2])
PY
read -r doff dsize flen spos ssize lpos ltype lsize < layout.txt
half=$((doff + dsize / 2))
head -c $half prog.data > cut.data
run "$FLAMEKIT" collapse $NULLSYM cut.data
is "$rc:$out:$err" "1::flamekit: cut.data: at byte 40: its data section ($dsize bytes at $doff) runs past the end of the file ($half bytes): the file is truncated" \
	"a truncated file: one error naming the byte"
# forge OUT POS FORMAT VALUE: prog.data with VALUE packed (python struct) at byte POS
forge() {
	"${PYTHON3:-python3}" - prog.data "$@" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into(sys.argv[4], b, int(sys.argv[3]), int(sys.argv[5]))
open(sys.argv[2], "wb").write(b)
PY
}
forge big.data $((lpos + 6)) "<H" 65528   # the last record's size
run "$FLAMEKIT" collapse $NULLSYM big.data
is "$rc:$out:$err" "1::flamekit: big.data: at byte $lpos: a record of type $ltype claims 65528 bytes, and $((doff + dsize - lpos)) are left in the data section" \
	"a record longer than the data section: one error naming its byte"
# the first sample's callchain length: after its header, ip, pid/tid, time
# and period (IP|TID|TIME|CALLCHAIN|PERIOD, in the kernel's order)
forge chain.data $((spos + 40)) "<Q" 1099511627776
run "$FLAMEKIT" collapse $NULLSYM chain.data
is "$rc:$out:$err" "1::flamekit: chain.data: at byte $spos: a sample's callchain of 1099511627776 entries runs past its record of $ssize bytes" \
	"a callchain longer than its record: one error naming the sample's byte"
printf 'PERFILE2\020\0\0\0\0\0\0\0' > pipe.data
run "$FLAMEKIT" collapse $NULLSYM --perf /nonexistent/perf pipe.data
case $err in *"not read natively"*) r=1;; *) r=0;; esac
ok $r "--perf PATH: perf script is run, the native reader is not tried"
done_testing
