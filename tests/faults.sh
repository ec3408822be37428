#!/bin/sh
# Allocation failures over whole runs.  tests/flamekit-faults is the
# command built with FK_FAULT_INJECTION (cli/main.c): FK_FAIL_ALLOC_AFTER=K
# lets K engine allocations succeed and fails every later one, plugins' and
# Lua's included (they allocate through the host).  For each command below,
# a clean run counts its allocations; then K walks over all of them (every
# point of a small run; an even spread of 60 points when there are more:
# FK_FAULT_POINTS=N for more, as by hand before a release; CI's sanitizer
# run takes the 60 between them, so CI fails 120 points of each command).
# At every K the run must either succeed with the same bytes as the clean
# run (a path that can do without the memory), or end with exit status 1
# and "out of memory" as its last message, leaving the existing output files
# exactly as they were and no temporary file behind.  Never a crash, a hang
# or a sanitizer report (CI runs this under ASan+UBSan, leaks included).
# Then the system's faults: a reader closing the pipe, a full disk, an
# unreadable input and an unwritable directory.
. "$FK_SRCDIR/tests/lib.sh"

F="$FK_BUILDDIR/tests/flamekit-faults"
D="$FK_SRCDIR/tests/data"
C="$FK_SRCDIR/conf/data"
TO=
command -v timeout > /dev/null 2>&1 && TO="timeout 60"
MAXPOINTS=${FK_FAULT_POINTS:-60}

# listing: the names in $TMP/w, hidden ones too (a shell glob: no process)
listing() {
	set -- "$TMP/w"/* "$TMP/w"/.[!.]*
	l=
	for f; do [ -e "$f" ] && l="$l ${f##*/}"; done
	printf '%s' "$l"
}

# scan FILE: $last, FILE's last line, and $san, whether a sanitizer spoke
# (the shell's own read: one walk is hundreds of runs)
scan() {
	last= san=false
	while IFS= read -r line || [ -n "$line" ]; do
		last=$line
		case $line in *"runtime error"* | *Sanitizer*) san=true ;; esac
	done < "$1"
}

# uses MODULE...: the next walk's command loads only these plugin modules
# (input-perf, output-svg, ...), with the filters and the folded output any
# command may reach for.  Loading all 34 modules was most of a run's time,
# and a walk is hundreds of runs: nearly a third of the suite under ASan.  The
# walks that detect among every format, and the job, load them all.
PLUGINS_BUILT=${FLAMEKIT_PLUGIN_PATH%%:*}/.libs
uses() {
	rm -rf "$TMP/plugins"
	mkdir "$TMP/plugins"
	for m in "$@" output-folded filter-demangle filter-grep filter-lua filter-narrow filter-strip-hex; do
		ln -s "$PLUGINS_BUILT/$m.so" "$TMP/plugins/$m.so"
	done
	walk_path=$TMP/plugins
}
[ -f "$PLUGINS_BUILT/input-perf.so" ] || uses() { :; } # (not the build tree's layout: all)
walk_path=

# walk NAME OUTPUTS CMD...: OUTPUTS is a space-separated list of the files
# the command writes (in $TMP/w, the command's working directory).  The
# points: every allocation when there are at most $MAXPOINTS, else an even
# spread of $MAXPOINTS, starting at allocation 0 or, with
# FK_FAULT_BETWEEN=1 (CI's sanitizer run), half a step later: the points
# the plain run leaves out.
walk() {
	name=$1 outs=$2
	shift 2
	rm -rf "$TMP/w"
	mkdir "$TMP/w"
	wpath=${walk_path:-$FLAMEKIT_PLUGIN_PATH}
	walk_path=
	(cd "$TMP/w" && FLAMEKIT_PLUGIN_PATH=$wpath FK_COUNT_ALLOCS=1 $TO "$F" "$@" > /dev/null 2> "$TMP/clean.err")
	rc=$?
	n=$(sed -n 's/^allocations: //p' "$TMP/clean.err")
	if [ $rc -ne 0 ] || [ -z "$n" ]; then
		ok 1 "$name: the clean run (exit $rc: $(head -c 300 "$TMP/clean.err"))"
		return
	fi
	rm -rf "$TMP/good"
	mkdir "$TMP/good"
	for o in $outs; do cp "$TMP/w/$o" "$TMP/good/$o"; done
	good_ls=$(listing)

	step=1
	[ "$n" -gt "$MAXPOINTS" ] && step=$(((n + MAXPOINTS - 1) / MAXPOINTS))
	k=0
	[ "${FK_FAULT_BETWEEN:-0}" = 1 ] && k=$((step / 2))
	from=$k failed=0 oom=0 fine=0 why=
	while [ $k -lt "$n" ] && [ $failed -eq 0 ]; do
		for o in $outs; do printf 'kept %s\n' "$o" > "$TMP/w/$o"; done
		(cd "$TMP/w" && FLAMEKIT_PLUGIN_PATH=$wpath FK_FAIL_ALLOC_AFTER=$k $TO "$F" "$@" > /dev/null 2> "$TMP/fail.err")
		r=$?
		scan "$TMP/fail.err"
		if $san; then
			failed=1 why="a sanitizer report"
		elif [ $r -gt 1 ]; then
			failed=1 why="exit $r ($last)"
		elif [ "$(listing)" != "$good_ls" ]; then
			failed=1 why="files left behind: $(listing)"
		elif [ $r -eq 0 ]; then
			fine=$((fine + 1))
			for o in $outs; do
				cmp -s "$TMP/good/$o" "$TMP/w/$o" || failed=1 why="exit 0 but $o differs"
			done
		elif [ $r -eq 1 ]; then
			oom=$((oom + 1))
			case $last in
			"flamekit: "*"out of memory"*) ;;
			*) failed=1 why="last message \"$last\"" ;;
			esac
			for o in $outs; do
				IFS= read -r kept < "$TMP/w/$o" || kept=
				[ "$kept" = "kept $o" ] || failed=1 why="$o was changed"
			done
		fi
		[ $failed -eq 0 ] && k=$((k + step))
	done
	if [ $failed -eq 0 ]; then
		ok 0 "$name: $n allocations, each failed in turn (every $step from $from): $oom out of memory, $fine done without"
	else
		ok 1 "$name: failing allocation $k of $n: $why"
		sed 's/^/# /' "$TMP/fail.err" | head -10
	fi
}

uses input-perf
walk "collapse perf" "out.folded" collapse --format perf -o out.folded "$D/perf/names.txt"
uses input-perf
walk "collapse perf, off-CPU" "out.folded" collapse --format perf --offcpu -o out.folded "$D/perf/offcpu.txt"
# --wakeups and --leak, their pairs spanning 200-byte chunks on 2 threads
FLAMEKIT_CHUNK_BYTES=200
export FLAMEKIT_CHUNK_BYTES
uses input-perf
walk "collapse perf, --wakeups, 200-byte chunks" "out.folded" collapse --format perf --wakeups \
	--threads 2 -o out.folded "$D/perf/hostile-wakeups.txt"
uses input-perf
walk "collapse perf, --leak, 200-byte chunks" "out.folded" collapse --format perf --leak \
	--threads 2 -o out.folded "$D/perf/hostile-leak.txt"
unset FLAMEKIT_CHUNK_BYTES
# perf-data: three `perf script` stand-ins on three time slices of a
# header-only perf.data, parsed at once (host->parse_parts); a failure
# stops and reaps them.
uses input-perf-data input-perf
walk "collapse perf-data, 3 slices" "out.folded" collapse --threads 3 \
	--perf "$D/perf-data/catperf" -o out.folded "$D/perf-data/three-seconds.data"
walk "collapse, format detected" "out.folded" collapse -o out.folded "$D/dtrace/fixes.txt" "$D/stap/"*.txt
FLAMEKIT_CHUNK_BYTES=256
export FLAMEKIT_CHUNK_BYTES
uses input-folded
walk "collapse folded, 2 threads, 256-byte chunks" "out.folded" collapse --threads 2 -o out.folded "$C/app.folded"
unset FLAMEKIT_CHUNK_BYTES
FLAMEKIT_CHUNK_BYTES=1024
export FLAMEKIT_CHUNK_BYTES
uses input-perf
walk "collapse perf, 2 threads, 1 KiB chunks" "out.folded" collapse --format perf --threads 2 -o out.folded "$D/perf/names.txt"
unset FLAMEKIT_CHUNK_BYTES
uses input-folded output-svg
walk "graph to svg" "g.svg" graph --title 'faults <&>' --hash -o g.svg "$C/app.folded"
uses input-folded output-icicle output-svg
walk "graph to icicle" "g.svg" graph --output-plugin icicle -o g.svg "$D/lua/stacks.folded"
uses input-perf output-flamechart output-svg
walk "graph to flamechart" "g.svg" graph --format perf --flamechart -o g.svg "$D/perf/names.txt"
uses input-perf output-html
walk "graph to html, with samples" "g.html" graph --format perf --output-plugin html -o g.html "$D/perf/names.txt"
"$FLAMEKIT" graph --output-plugin html -o "$TMP/report.html" "$D/html/hostile.txt"
uses input-html
walk "collapse an html report" "out.folded" collapse -o out.folded "$TMP/report.html"
# a report with a timeline (the v8 profile's timed samples), inflated at read-back
"$FLAMEKIT" graph --output-plugin html -o "$TMP/timed.html" "$D/v8/node.cpuprofile"
uses input-html
walk "collapse an html report with a timeline" "out.folded" collapse -o out.folded "$TMP/timed.html"
uses input-folded
walk "diff" "d.folded" diff -n -o d.folded "$C/before.folded" "$C/after.folded"
uses input-folded
walk "diff -s" "d.folded" diff -n -s -o d.folded "$D/lua/stacks.folded" "$C/after.folded"
uses input-folded
walk "collapse --strip-hex" "out.folded" collapse --strip-hex -o out.folded "$D/lua/stacks.folded"
uses input-folded
walk "merge" "m.folded" merge -o m.folded "$C/before.folded" "$C/after.folded" "$C/app.folded"
# bpftrace, bcc and --demangle (branch formats)
uses input-bpftrace
walk "collapse bpftrace" "out.folded" collapse -o out.folded "$D/bpftrace/forms.txt" "$D/bpftrace/two-maps.txt"
uses input-bcc
walk "collapse bcc" "out.folded" collapse -o out.folded "$D/bcc/offwaketime.txt" "$D/bcc/stackcount.txt"
# callgrind, threaddump and sample (branch formats3)
uses input-callgrind
walk "collapse callgrind" "out.folded" collapse -o out.folded "$D/callgrind/xdebug.txt" "$D/callgrind/recursion.txt"
uses input-threaddump
walk "collapse threaddump" "out.folded" collapse -o out.folded "$D/threaddump/gdb.txt" "$D/threaddump/jstack.txt"
uses input-sample
walk "collapse sample" "out.folded" collapse -o out.folded "$D/sample/safari.txt"
# xctrace (branch xctrace)
uses input-xctrace
walk "collapse xctrace" "out.folded" collapse -o out.folded "$D/xctrace/two-processes.xml" "$D/xctrace/tagged.xml"
uses input-folded
walk "collapse --demangle=short" "out.folded" collapse --demangle=short -o out.folded "$D/demangle/names.folded"
# each input its own demangling: folded's names kept, bpftrace's demangled
# on a profile of its own, or at push time beside a per-sample filter
uses input-folded input-bpftrace
walk "collapse folded and bpftrace" "out.folded" collapse -o out.folded "$D/demangle/names.folded" "$D/bpftrace/forms.txt"
uses input-folded input-bpftrace
walk "collapse folded and bpftrace, --focus" "out.folded" collapse --focus . -o out.folded \
	"$D/demangle/names.folded" "$D/bpftrace/forms.txt"
uses input-perf
walk "collapse, narrowed (the narrow filter)" "out.folded" collapse --format perf --focus main --hide '^_start$' \
	--collapse-recursion --from 0 --comm . -o out.folded "$D/perf/names.txt"
uses input-pprof
walk "collapse pprof (heap, gzip)" "out.folded" collapse -o out.folded "$D/pprof/heap.pb.gz"
uses input-v8
walk "collapse v8" "out.folded" collapse -o out.folded "$D/v8/node.cpuprofile"
uses input-v8
walk "collapse v8, the old format (a head tree)" "out.folded" collapse -o out.folded "$D/v8/old.cpuprofile"
uses input-speedscope
walk "collapse speedscope" "out.folded" collapse -o out.folded "$D/speedscope/mixed.json" "$D/speedscope/profiles-first.json"
uses input-chrome
walk "collapse chrome, samples and durations" "out.folded" collapse -o out.folded "$D/chrome/events.json"
uses input-chrome
walk "collapse chrome, durations" "out.folded" collapse --format chrome --events=durations -o out.folded "$D/chrome/events.json"
uses input-gecko
walk "collapse gecko" "out.folded" collapse -o out.folded "$D/gecko/firefox.json" "$D/gecko/samply.json"
uses input-perf output-pprof
walk "graph to pprof, with samples" "g.pb.gz" graph --format perf --output-plugin pprof -o g.pb.gz "$D/perf/names.txt"
uses input-perf output-speedscope
walk "graph to speedscope, with samples" "g.json" graph --format perf --output-plugin speedscope -o g.json "$D/perf/names.txt"
uses input-pprof output-pprof
walk "pprof labels to pprof (sample attributes)" "g.pb.gz" graph --output-plugin pprof -o g.pb.gz "$D/pprof/labels.pb.gz"

# A job: two filters (one Lua), three outputs; all of them or none.
cat > "$TMP/job.yaml" <<EOF
output-dir: "$TMP/w"
inputs:
  - {path: "$C/on-cpu.folded", series: on-cpu}
  - {path: "$C/off-cpu.folded", series: off-cpu}
filters:
  - {plugin: lua, script: "$FK_SRCDIR/lua/strip-offsets.lua"}
  - {plugin: grep, options: {exclude: idle}}
outputs:
  - {plugin: hotcold, path: hc.svg}
  - {plugin: svg, path: all.svg}
  - {plugin: folded, path: all.folded}
EOF
walk "run a job" "hc.svg all.svg all.folded" run "$TMP/job.yaml"

# ---- the system's faults ------------------------------------------------------
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "main;f%d;g%d 1\n", i % 5000, i }' > "$TMP/big.folded"

# A reader that closes the pipe: flamekit's own status, not head's.
for cmd in "collapse --format folded" "graph"; do
	("$FLAMEKIT" $cmd "$TMP/big.folded" 2> "$TMP/pipe.err"; echo $? > "$TMP/pipe.rc") | head -c 100 > /dev/null
	is "$(cat "$TMP/pipe.rc"):$(cat "$TMP/pipe.err")" "0:" "flamekit $cmd | head -c 100: ends quietly, status 0"
done

# Disk full on an output file, in a 256 KiB tmpfs of a private mount
# namespace (root only): the old file stays, no temporary is left.
mkdir "$TMP/full"
if [ "$(id -u)" -eq 0 ] && command -v unshare > /dev/null 2>&1 &&
	unshare -m sh -c "mount -t tmpfs -o size=256k none '$TMP/full'" 2> /dev/null; then
	unshare -m sh -c "mount -t tmpfs -o size=256k none '$TMP/full' &&
		echo old > '$TMP/full/g.svg' && echo old > '$TMP/full/a.folded' &&
		'$FLAMEKIT' collapse --format folded -o '$TMP/full/a.folded' '$TMP/big.folded' 2> '$TMP/full.err1';
		echo \$? > '$TMP/full.rc1';
		'$FLAMEKIT' graph --minwidth 0 -o '$TMP/full/g.svg' '$TMP/big.folded' 2> '$TMP/full.err2';
		echo \$? > '$TMP/full.rc2'; ls '$TMP/full' > '$TMP/full.ls'; cat '$TMP/full/a.folded' '$TMP/full/g.svg' > '$TMP/full.kept'"
	is "$(cat "$TMP/full.rc1"):$(cat "$TMP/full.err1")" \
		"1:flamekit: [output:folded] $TMP/full/a.folded: write error: No space left on device" "disk full under collapse -o: one message, exit 1"
	is "$(cat "$TMP/full.rc2"):$(cat "$TMP/full.err2")" \
		"1:flamekit: [output:svg] $TMP/full/g.svg: write error: No space left on device" \
		"disk full under graph -o: one message, exit 1"
	is "$(cat "$TMP/full.ls" | tr '\n' ' ')$(cat "$TMP/full.kept" | tr '\n' ' ')" "a.folded g.svg old old " \
		"disk full: the old files untouched, no temporary left"
else
	skip "disk full under collapse -o" "needs root and unshare -m to mount a small tmpfs"
	skip "disk full under graph -o" "needs root and unshare -m to mount a small tmpfs"
	skip "disk full: the old files untouched" "needs root and unshare -m to mount a small tmpfs"
fi

# Permissions, checked as an unprivileged user (root reads everything):
# an unreadable input, an output directory that cannot be written.
chmod 755 "$TMP"
as_nobody=
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null 2>&1; then
	as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	$as_nobody "$FLAMEKIT" --version > /dev/null 2>&1 || as_nobody=
fi
if [ -n "$as_nobody" ]; then
	mkdir "$TMP/ro"
	printf 'a;b 1\n' > "$TMP/secret.folded"
	chmod 600 "$TMP/secret.folded"
	cp "$C/app.folded" "$TMP/app.folded"
	chmod 644 "$TMP/app.folded"
	echo old > "$TMP/ro/out.svg"
	chmod 755 "$TMP/ro"
	run $as_nobody "$FLAMEKIT" collapse --format folded "$TMP/secret.folded"
	is "$rc:$out:$err" "1::flamekit: $TMP/secret.folded: cannot open: Permission denied" "an unreadable input: one message, exit 1"
	run $as_nobody "$FLAMEKIT" graph -o "$TMP/ro/out.svg" "$TMP/app.folded"
	is "$rc:$err:$(cat "$TMP/ro/out.svg")" \
		"1:flamekit: $TMP/ro/out.svg: cannot create output file: Permission denied:old" \
		"an unwritable output directory: one message, exit 1, the old file untouched"
else
	skip "an unreadable input" "needs root and setpriv to run as nobody, and a build nobody can run"
	skip "an unwritable output directory" "needs root and setpriv to run as nobody, and a build nobody can run"
fi

done_testing
