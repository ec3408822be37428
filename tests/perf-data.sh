#!/bin/sh
# The perf-data plugin.  Part 1, with a fake perf (--perf) and a synthetic
# perf.data header: the perf script command lines, the time slices, line
# numbers and errors counted across slices, what spans slices (--offcpu
# waits, --leak frees, the first record's event) settled as in one text,
# and every way perf can fail.
# Part 2, with captures recorded here and now by the real perf (skipped
# where perf cannot record): the folded result equals `perf script -i FILE |
# flamekit collapse --format perf` for 1, 2 and 3 slices, with options.
. "$FK_SRCDIR/tests/lib.sh"
cd "$TMP" || exit 1

# mkdata FILE FIRST_NS LAST_NS NEVENTS [UNTIMED [TIMES]]: a perf.data header
# with NEVENTS cpu-clock events and the sample time range given; UNTIMED 1
# leaves PERF_SAMPLE_TIME out; TIMES (ns, comma-separated) are sample
# records in the data section, "z" a compressed record.
mkdata() {
	"${PYTHON3:-python3}" - "$@" <<'PY'
import struct, sys
path, first, last, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
untimed = len(sys.argv) > 5 and sys.argv[5] == "1"
stype = (0x3 if untimed else 0x7) | 0x20  # IP|TID|TIME|CALLCHAIN
attrs = b"".join(struct.pack("<IIQQQ", 1, 120, 0, 4000, stype).ljust(120, b"\0")
                 + struct.pack("<QQ", 0, 0) for _ in range(n))
recs = b""
for t in (sys.argv[6].split(",") if len(sys.argv) > 6 else []):
    if t == "z":
        recs += struct.pack("<IHH", 81, 0, 16) + bytes(8)
    else:
        recs += struct.pack("<IHHQIIQQ", 9, 0, 40, 0x1000, 1, 1, int(t), 0)
data = 104 + len(attrs)
feat = bytearray(32)
feat[21 // 8] |= 1 << (21 % 8)                        # HEADER_SAMPLE_TIME
head = b"PERFILE2" + struct.pack("<QQ", 104, 136) + struct.pack("<QQQQQQ",
        104, len(attrs), data, len(recs), 0, 0) + bytes(feat)
tail = struct.pack("<QQ", data + len(recs) + 16, 16) + struct.pack("<QQ", first, last)
open(path, "wb").write(head + attrs + recs + tail)
PY
}

# A fake perf: logs its arguments, prints one record naming its --time
# range, then what FAKE_EXTRA says for that range, and exits as FAKE_EXIT
# says (both "RANGE=VALUE;..." lists, matched by the --time value).
cat > fakeperf <<'SH'
#!/bin/sh
echo "$*" >> "$FAKE_LOG"
[ -n "$FAKE_ENV" ] && echo "${GLIBC_TUNABLES-unset}" >> "$FAKE_ENV"
range=all
while [ $# -gt 0 ]; do [ "$1" = --time ] && range=$2; shift; done
printf 'prog 1 [000] 1.000000: 1 cpu-clock:\n\t1 f_%s (/bin/x)\n\n' "$range"
extra=$(printf '%s' "$FAKE_EXTRA" | tr ';' '\n' | sed -n "s|^$range=||p")
[ -n "$extra" ] && printf "$extra"
st=$(printf '%s' "$FAKE_EXIT" | tr ';' '\n' | sed -n "s|^$range=||p")
[ -n "$st" ] && { echo "fake perf: failing on $range" >&2; exit "$st"; }
exit 0
SH
chmod +x fakeperf
export FAKE_LOG="$TMP/fake.log" FAKE_EXTRA= FAKE_EXIT= FAKE_ENV=
S1=',10.999999999' S2='11.000000000,11.999999999' S3='12.000000000,'

mkdata one.data 10000000000 13000000000 1
: > fake.log
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf one.data
is "$rc:$out:$err" "0:prog;f_$S1 1
prog;f_$S2 1
prog;f_$S3 1:" "3 threads: 3 perf script processes on integer-nanosecond time slices"
is "$(sort fake.log)" "script -i one.data --time $S1
script -i one.data --time $S2
script -i one.data --time $S3" "perf script command lines"

# perf's heap on huge pages: glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES,
# after what the user's has; a user's own glibc.malloc.hugetlb is kept.
: > env.log
run env -u GLIBC_TUNABLES FAKE_ENV="$TMP/env.log" "$FLAMEKIT" collapse --threads 2 --perf ./fakeperf one.data
is "$rc:$(cat env.log)" "0:glibc.malloc.hugetlb=1
glibc.malloc.hugetlb=1" "perf runs with glibc.malloc.hugetlb=1 in GLIBC_TUNABLES"
: > env.log
run env GLIBC_TUNABLES=glibc.malloc.tcache_count=3 FAKE_ENV="$TMP/env.log" "$FLAMEKIT" collapse --threads 1 --perf ./fakeperf one.data
is "$rc:$(cat env.log)" "0:glibc.malloc.tcache_count=3:glibc.malloc.hugetlb=1" "the user's GLIBC_TUNABLES comes first"
: > env.log
run env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 FAKE_ENV="$TMP/env.log" "$FLAMEKIT" collapse --threads 1 --perf ./fakeperf one.data
is "$rc:$(cat env.log)" "0:glibc.malloc.hugetlb=0" "a user's glibc.malloc.hugetlb is left as it is"

: > fake.log
run "$FLAMEKIT" collapse --threads 1 --perf ./fakeperf --pid --symfs /sym --kallsyms /ks one.data
is "$rc:$(cat fake.log)" "0:script -i one.data -F +pid --symfs /sym --kallsyms /ks" \
	"1 thread: one process, unsliced; --pid asks for -F +pid; --symfs and --kallsyms passed on"
run "$FLAMEKIT" collapse --threads 2 --perf ./fakeperf --tid --kernel --event-filter cpu-clock one.data
is "$rc:$out" "0:prog-?/1;f_,11.499999999 1
prog-?/1;f_11.500000000, 1" "--tid --kernel --event-filter reach the perf plugin"

: > fake.log
run "$FLAMEKIT" collapse -v --threads 3 --perf ./fakeperf --offcpu one.data
is "$rc:$(sort fake.log)" "0:script -i one.data --time $S1
script -i one.data --time $S2
script -i one.data --time $S3" "--offcpu: sliced (the slices are segments of one perf parser session)"
: > fake.log
run "$FLAMEKIT" graph -v --threads 3 --perf ./fakeperf --offcpu --flamechart -o chart.svg one.data
is "$(cat fake.log)" "script -i one.data" "--offcpu with an output keeping samples in order: one process"
case $err in *"one perf script process: --offcpu pairs switch-outs with switch-ins across slices, and an output keeps the samples in order"*) r=0;; *) r=1;; esac
ok $r "--offcpu with a time-ordered output: -v says why there is one process"

mkdata two.data 10000000000 13000000000 2
: > fake.log
run "$FLAMEKIT" collapse -v --threads 3 --perf ./fakeperf two.data
is "$rc:$(sort fake.log)" "0:script -i two.data
script -i two.data --time $S1
script -i two.data --time $S2
script -i two.data --time $S3" "two events, no --event-filter: sliced, and a perf script of the whole file read ahead"
case $err in *'two.data: its first record is of "cpu-clock", the event kept'*) r=0;; *) r=1;; esac
ok $r "two events: -v names the first record's event, kept in every slice"
: > fake.log
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf --event-filter cpu-clock two.data
is "$rc:$(wc -l < fake.log)" "0:3" "two events with --event-filter: sliced, nothing read ahead"
: > fake.log
cat > hashperf <<'SH'
#!/bin/sh
echo "$*" >> "$FAKE_LOG"
case $* in *--time*) printf 'prog 1 [000] 1.000000: 1 cpu-clock:\n\t1 f (/bin/x)\n\n'; exit 0;; esac
yes '# no record in the first 16 MiB' | head -c 17000000
SH
chmod +x hashperf
run "$FLAMEKIT" collapse -v --threads 3 --perf ./hashperf two.data
case $err in *"two.data: one perf script process: it holds several events and the first record, whose event is kept, could not be read ahead (give --event-filter NAME)"*) r=0;; *) r=1;; esac
ok $r "two events, no record in the first 16 MiB: -v says why there is one process"
is "$rc:$(sort fake.log | uniq -c | sed 's/^ *//')" "0:2 script -i two.data
1 script -i two.data --time $S1
1 script -i two.data --time $S2
1 script -i two.data --time $S3" "two events, first record not read ahead: the slices stopped, one process run"
mkdata untimed.data 10000000000 13000000000 1 1
: > fake.log
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf untimed.data
is "$rc:$(cat fake.log)" "0:script -i untimed.data" "an event without sample times: one process"
mkdata notime.data 0 0 1
: > fake.log
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf notime.data
is "$rc:$(cat fake.log)" "0:script -i notime.data" "no time range in the header: one process"
mkdata short.data 10000000000 10000000002 1
: > fake.log
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf short.data
is "$rc:$(sort fake.log)" "0:script -i short.data --time ,10.000000000
script -i short.data --time 10.000000001," "a 2 ns range: at most 2 slices"

T='10000000000,10100000000,10200000000,12000000000,12500000000,12900000000'
mkdata q.data 10000000000 12900000000 1 0 "$T"
: > fake.log
run "$FLAMEKIT" collapse -v --threads 3 --perf ./fakeperf q.data
is "$rc:$(sort fake.log)" "0:script -i q.data --time ,10.199999999
script -i q.data --time 10.200000000,12.499999999
script -i q.data --time 12.500000000," "slices cut at the quantiles of the sample times in the data"
case $err in *"3 perf script processes on time slices cut at the quantiles of the sample times"*) r=0;; *) r=1;; esac
ok $r "quantile slices: -v says so"
mkdata z.data 10000000000 13000000000 1 0 "10000000000,z,12000000000,12500000000"
: > fake.log
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf z.data
is "$rc:$(sort fake.log)" "0:script -i z.data --time $S1
script -i z.data --time $S2
script -i z.data --time $S3" "a compressed record: slices cut evenly over the header's range"

# --- line numbers and errors run on across the slices ---
FAKE_EXTRA="$S1=junk\\n;$S2=junk\\n;$S3=junk\\n"
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf one.data
is "$rc:$err" "0:flamekit: warning: one.data (perf script output): skipped 3 unreadable lines (lines 4, 8, 12)" \
	"skipped lines: one report, numbered through the slices"
FAKE_EXTRA="$S2=x\\0\\n;$S3=y\\0\\n"
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf -o out.folded one.data
is "$rc:$out:$err" "1::flamekit: one.data (perf script output):7: binary data (a NUL byte) in perf script text; give the text that \`perf script\` prints, not a perf.data file" \
	"a parse error: the first in slice order, its line counted from the first slice"
ok "$([ ! -e out.folded ]; echo $?)" "a parse error: no output file"
FAKE_EXTRA=

# --- what spans slices: one session, as the concatenated text --------------
# app (tid 100) switches out in slice 1 and back in in slice 2 (a wait of
# 1.4 s); slice 3 has a switch earlier than slice 2's (out of time order)
# and leaves tid 200 switched out.
SW='sched:sched_switch: prev_comm=%s prev_pid=%s prev_prio=120 prev_state=S ==> next_comm=%s next_pid=%s next_prio=120'
out1="app 100/100 [000] 10.100000: $(printf "$SW" app 100 swapper/0 0)\\n\\tffff schedule ([kernel.kallsyms])\\n\\t1234 main (/bin/app)\\n\\n"
in2="swapper 0/0 [000] 11.500000: $(printf "$SW" swapper/0 0 app 100)\\n\\tffff schedule ([kernel.kallsyms])\\n\\n"
out3="db 200/200 [001] 11.000000: $(printf "$SW" db 200 swapper/1 0)\\n\\tffff schedule ([kernel.kallsyms])\\n\\t99 poll (/bin/db)\\n\\n"
FAKE_EXTRA="$S1=$out1;$S2=$in2;$S3=$out3"
for r in "$S1" "$S2" "$S3"; do ./fakeperf --time "$r"; done > sliced.txt
"$FLAMEKIT" collapse --format perf --offcpu sliced.txt > want.folded 2> want.err
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf --offcpu -o got.folded one.data
is "$rc:$(cat got.folded)" "0:app;main;schedule 1400000" \
	"--offcpu, 3 slices: a wait from a switch-out in slice 1 to its switch-in in slice 2"
is "$err" "$(sed 's|sliced.txt|one.data (perf script output)|; s|\[input:perf\]|[input:perf-data]|' want.err)" \
	"--offcpu, 3 slices: the summaries once, as for the concatenated text"
case $err in *"1 switch-out had no later switch-in"*"1 record was out of time order"*) r=0;; *) r=1;; esac
ok $r "--offcpu, 3 slices: the unmatched switch-out and the record out of time order are counted across slices"
FAKE_EXTRA=

# --leak: an allocation in slice 1 freed in slice 2; slice 3's never freed
KM='kmem:kmalloc: call_site=x+0x1 ptr=%s bytes_req=100 bytes_alloc=%s gfp_flags=GFP_KERNEL'
a1="app 1 [000] 10.1: $(printf "$KM" 0xa000 128)\\n\\t1 __kmalloc (/k)\\n\\t2 grow (/bin/app)\\n\\n"
f2="app 1 [000] 11.1: kmem:kfree: call_site=x+0x1 ptr=0xa000\\n\\t3 kfree (/k)\\n\\n"
a3="app 1 [000] 12.1: $(printf "$KM" 0xb000 64)\\n\\t1 __kmalloc (/k)\\n\\t4 keep (/bin/app)\\n\\n"
FAKE_EXTRA="$S1=$a1;$S2=$f2;$S3=$a3"
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf --leak one.data
is "$rc:$out:$err" "0:app;keep;__kmalloc 64:" \
	"--leak, 3 slices: a free in slice 2 of an allocation in slice 1; slice 3's never freed"
FAKE_EXTRA=

# --leak with --offcpu or --wakeups is refused by the options' check,
# before any perf script is started (auto-detected, --format, a job)
: > fake.log
for o in --offcpu --wakeups; do
	run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf --leak $o one.data
	is "$rc:$out:$err:$(cat fake.log)" "2::flamekit: [input:perf-data] --leak cannot be combined with --offcpu or --wakeups: collapse the capture once for each:" \
		"--leak $o: refused, no perf run"
done
run "$FLAMEKIT" graph --format perf-data --perf ./fakeperf --wakeups --leak -o leak.svg one.data
is "$rc:$err:$(cat fake.log):$([ -e leak.svg ]; echo $?)" "2:flamekit: [input:perf-data] --leak cannot be combined with --offcpu or --wakeups: collapse the capture once for each::1" \
	"graph --format perf-data --wakeups --leak: refused, no perf run, no output"
printf 'inputs:\n  - path: one.data\n    format: perf-data\n    options: {leak: true, offcpu: true}\noutputs: [{plugin: folded, path: "-"}]\n' > leak.yaml
run "$FLAMEKIT" run --check leak.yaml
is "$rc:$err:$(cat fake.log)" "2:flamekit: [input:perf-data] leak.yaml:2:5: --leak cannot be combined with --offcpu or --wakeups: collapse the capture once for each:" \
	"run --check: a job's perf-data input with leak and offcpu refused at its options"

# --- several events: the first record's, read ahead, kept in every slice ---
# slice 1 starts with task-clock, slices 2 and 3 with cpu-clock
cat > evperf <<'SH'
#!/bin/sh
rec() { printf 'prog 1 [000] %s: 1 %s:\n\t1 %s (/bin/x)\n\n' "$1" "$2" "$3"; }
slice() {
	case $1 in
	,*) rec 10.1 task-clock t1; rec 10.2 cpu-clock c1 ;;
	11*) rec 11.1 cpu-clock c2; rec 11.2 task-clock t2 ;;
	*) rec 12.1 cpu-clock c3 ;;
	esac
}
range=
while [ $# -gt 0 ]; do [ "$1" = --time ] && range=$2; shift; done
if [ -n "$range" ]; then slice "$range"; else for r in ,1 11 12; do slice $r; done; fi
SH
chmod +x evperf
./evperf -i two.data | "$FLAMEKIT" collapse --format perf > want.folded 2> want.err
run "$FLAMEKIT" collapse --threads 3 --perf ./evperf -o got.folded two.data
is "$rc:$(cat got.folded)" "0:prog;t1 1
prog;t2 1" "two events, 3 slices: the first record's event (task-clock) kept in every slice"
is "$err" "$(sed 's|<stdin>|two.data (perf script output)|; s|\[input:perf\]|[input:perf-data]|' want.err)" \
	"two events, 3 slices: the dropped records counted once, as for the whole text"

# --- perf failing ---
FAKE_EXIT="$S2=5;$S3=6"
run "$FLAMEKIT" collapse --threads 3 --perf ./fakeperf -o out.folded one.data
case $err in *"fake perf: failing on $S2"*"fake perf: failing on $S3"*|*"fake perf: failing on $S3"*"fake perf: failing on $S2"*) r=0;; *) r=1;; esac
ok $r "perf failing: its own messages reach stderr"
is "$rc:$out:$(echo "$err" | grep -v '^fake perf')" "1::flamekit: [input:perf-data] one.data: perf script (time slice 2 of 3) failed with exit status 5" \
	"perf failing: one error with the first failing slice's exit status"
ok "$([ ! -e out.folded ]; echo $?)" "perf failing: no output file"
FAKE_EXIT="all=3"
run "$FLAMEKIT" collapse --threads 1 --perf ./fakeperf one.data
is "$rc:$out:$err" "1::fake perf: failing on all
flamekit: [input:perf-data] one.data: perf script failed with exit status 3" "perf failing, one process: its stderr, then its exit status"
FAKE_EXIT=
printf '#!/bin/sh\nkill -SEGV $$\n' > segv
chmod +x segv
run "$FLAMEKIT" collapse --threads 1 --perf ./segv one.data
is "$rc:$out:$err" "1::flamekit: [input:perf-data] one.data: perf script was killed by signal 11 (Segmentation fault)" \
	"perf killed by a signal"
printf '#!/bin/sh\nprintf "garbage\\\\nmore garbage\\\\n"\n' > garbage
chmod +x garbage
run "$FLAMEKIT" collapse --threads 1 --perf ./garbage one.data
is "$rc:$out:$err" "0::flamekit: warning: one.data (perf script output): skipped 2 unreadable lines (lines 1, 2)" \
	"garbage text: the perf plugin's skipped-line warning, as for the same text on stdin"
run "$FLAMEKIT" collapse --perf ./nosuchperf one.data
is "$rc:$out:$err" "2::flamekit: [input:perf-data] one.data: cannot run ./nosuchperf: No such file or directory" \
	"--perf naming a missing program"
run env PATH=/nonexistent "$FLAMEKIT" collapse --via-perf-script one.data
is "$rc:$out:$err" "2::flamekit: [input:perf-data] one.data: cannot run perf: it is not in PATH; install it (Debian's package is linux-perf) or give its path with --perf PATH or FLAMEKIT_PERF=PATH" \
	"no perf installed: one sentence naming linux-perf"
run sh -c "cat one.data | '$FLAMEKIT' collapse --format perf-data --perf ./fakeperf"
is "$rc:$err" "1:flamekit: <stdin>: perf script needs the perf.data file itself, not a pipe; give its path" \
	"perf.data on stdin is refused"
run "$FLAMEKIT" collapse -v --perf ./fakeperf one.data
case $err in *"one.data: detected format perf-data"*) r=0;; *) r=1;; esac
ok $r "PERFILE2 is detected as perf-data"

# --- part 2: the real perf -------------------------------------------------
need_perf "real perf captures"
work='for p in 1 2 3; do (i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done) & done; wait'
record_or_skip "real perf captures" -q -F 4000 -g -o cpu.data -- sh -c "$work"

# same ARGS... -- PIPEARGS...: collapse cpu.data with ARGS for 1, 2 and 3
# threads, against perf script PIPEARGS | collapse --format perf ARGS.
same() {
	args=
	while [ "$1" != -- ]; do args="$args $1"; shift; done
	shift
	perf script -i cpu.data "$@" 2> /dev/null | "$FLAMEKIT" collapse --format perf $args > want.folded
	for t in 1 2 3; do
		"$FLAMEKIT" collapse --threads $t $args cpu.data > got.folded 2> /dev/null
		same_file want.folded got.folded "real capture, $t thread(s)${args:+,$args}: the pipeline's bytes"
	done
}
same --
ok "$([ -s want.folded ]; echo $?)" "real capture: not empty ($(wc -l < want.folded) stacks)"
same --pid -- -F +pid
same --tid --all --addrs -- -F +pid
run "$FLAMEKIT" collapse -v --via-perf-script --threads 3 cpu.data
case $err in *"3 perf script processes on time slices"*) r=0;; *) r=1;; esac
ok $r "real capture: 3 threads run 3 perf script processes"

perf script -i cpu.data 2> /dev/null | "$FLAMEKIT" graph --format perf > want.svg
"$FLAMEKIT" graph cpu.data > got.svg 2> /dev/null
same_file want.svg got.svg "graph perf.data > out.svg: the pipeline's SVG, no --format needed"
perf script -i cpu.data 2> /dev/null | "$FLAMEKIT" graph --format perf --flamechart > want.svg
"$FLAMEKIT" graph --threads 3 --flamechart cpu.data > got.svg 2> /dev/null
same_file want.svg got.svg "graph --flamechart perf.data, 3 slices: the pipeline's SVG (samples in time order)"
perf script -i cpu.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > a.folded
"$FLAMEKIT" diff a.folded a.folded > want.folded
"$FLAMEKIT" diff cpu.data cpu.data > got.folded 2> /dev/null
same_file want.folded got.folded "diff perf.data perf.data: no --format needed"
printf 'inputs:\n  - cpu.data\noutputs:\n  - {plugin: folded, path: job.folded}\n' > job.yaml
"$FLAMEKIT" run job.yaml 2> /dev/null
perf script -i cpu.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
same_file want.folded job.folded "a job's inputs: - perf.data"

if perf record -q -e cpu-clock -e task-clock -F 4000 -g -o two.data -- sh -c "$work" > /dev/null 2>&1; then
	perf script -i two.data 2> /dev/null | "$FLAMEKIT" collapse --format perf --event-filter task-clock > want.folded 2> /dev/null
	"$FLAMEKIT" collapse --threads 3 --event-filter task-clock two.data > got.folded 2> /dev/null
	same_file want.folded got.folded "two events, --event-filter, 3 slices: the pipeline's bytes"
else
	skip "two events" "perf cannot record cpu-clock and task-clock together here"
fi
# --offcpu, --wakeups, --leak and several events without --event-filter on
# real captures, sliced: tests/perf-data-slices.sh
done_testing
