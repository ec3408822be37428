#!/bin/sh
# Fuzz every built harness for a while, after replaying its regression
# corpus (run by `make fuzz-run FUZZ_SECONDS=N [FUZZ_TARGETS="folded perf"]`).
#
#   run.sh SRCDIR BUILDDIR SECONDS [NAME...]
#
# FUZZ_JOBS harnesses run at a time (default: the CPUs); see the end.
#
# For each harness BUILDDIR/fuzz/bin/fuzz-NAME (or only the NAMEs given):
#   1. replay SRCDIR/fuzz/regress/NAME/*: every crash ever found, fixed;
#      any failure here is a regression and stops that harness;
#   2. fuzz for SECONDS, starting from the corpus kept in
#      BUILDDIR/fuzz/corpus/NAME (it grows from run to run) and the seeds:
#      SRCDIR/tests/data/NAME/*, SRCDIR/fuzz/seeds/NAME/*,
#      SRCDIR/examples/plugin-NAME/*.txt, $FK_CONFORMANCE/NAME/inputs/* and, for
#      folded, every expected folded file of the conformance corpus, for
#      job, the example jobs SRCDIR/conf/*.yaml, for lua, the stock scripts
#      SRCDIR/lua/*.lua and the scripts of tests/lua.sh, and for html,
#      the reports of SRCDIR/fuzz/html.seeds around the html output's page,
#      built here (see lua_seeds, html_seeds) rather than copied into git.
#      Seeds are cut to their
#      first 16 KiB, the largest input tried.  SRCDIR/fuzz/NAME.dict, when
#      it exists, is the harness's libFuzzer dictionary (-dict=).
# A crash leaves its input in BUILDDIR/fuzz/crashes/NAME/; the summary says
# how to reproduce it.  Exits 1 when any harness crashed or regressed.
set -u

src=${1:?usage: run.sh SRCDIR BUILDDIR SECONDS [NAME...]}
bld=${2:?usage: run.sh SRCDIR BUILDDIR SECONDS [NAME...]}
secs=${3:?usage: run.sh SRCDIR BUILDDIR SECONDS [NAME...]}
shift 3
one_only=no
if [ "${1:-}" = --one ]; then # (run.sh re-running itself for one harness)
	one_only=yes
	shift
fi
conf=${FK_CONFORMANCE:-}
MAXLEN=16384

if [ $# -eq 0 ]; then
	for b in "$bld"/fuzz/bin/fuzz-*; do
		[ -x "$b" ] && set -- "$@" "${b##*/fuzz-}"
	done
fi
if [ $# -eq 0 ]; then
	echo "fuzz: no harness built; run 'make fuzz' first" >&2
	exit 1
fi

# The args every stock script may read, in one table, so that each of them
# gets past its main chunk's checks (each reads only its own keys).
LUA_ARGS='{func = "fib", extra = {"memcpy"}, patterns = {"^0x", "idle"}, colours = {app = "#112233"}}'

# lua_seeds DIR: fuzz-lua inputs (script, "--samples", folded stacks) built
# from what git already holds, so that no copy can go stale: each stock
# script of SRCDIR/lua/, and each script that tests/lua.sh runs through its
# `script 'TEXT' ...` helper (every such command, up to its closing quote,
# is replayed with a script() that writes the seed instead of running it).
lua_seeds() {
	ldir=$1
	data=$src/tests/data/lua
	for f in "$src"/lua/*.lua; do
		[ -f "$f" ] || continue
		{ printf -- '--args %s\n' "$LUA_ARGS"; cat "$f"; printf -- '--samples\n'
		  cat "$data/stacks.folded" "$data/java.folded"; } |
			head -c $MAXLEN > "$ldir/stock-$(basename "$f")"
	done
	awk '
		!cmd && /^script \047/ { cmd = 1; q = 0; buf = "" }
		cmd {
			buf = buf $0 "\n"
			line = $0
			gsub(/\\\047/, "", line)
			q += gsub(/\047/, "", line)
			if (q % 2 == 0) { printf "%s", buf; cmd = 0 }
		}' "$src/tests/lua.sh" > "$ldir/.scripts.sh"
	(
		n=0
		D=$data TMP=/nonexistent
		# script TEXT [INPUT [FORMAT]]: as tests/lua.sh's, but write a seed
		script() {
			n=$((n + 1))
			{ printf '%s\n--samples\n' "$1"; cat "$data/stacks.folded"; } |
				head -c $MAXLEN > "$ldir/test-$(printf %02d $n).lua"
		}
		. "$ldir/.scripts.sh"
	)
	rm -f "$ldir/.scripts.sh"
}

# html_seeds DIR: fuzz-html inputs, one per line of SRCDIR/fuzz/html.seeds
# (NAME FORM DATA): the report data DATA in the html output's own page, as
# git holds it now (FORM page), or in the two tags the reader looks for
# (FORM bare).
html_seeds() {
	hdir=$1
	page=$src/plugins/output/html/page.html
	while read -r hname form data; do
		case $hname in '' | '#'*) continue ;; esac
		{
			case $form in
			page) sed '/^@@DATA@@$/,$d' "$page" ;;
			*) printf '%s\n%s\n' '<meta name="generator" content="flamekit-html 1">' \
				'<script type="application/json" id="fk-data">' ;;
			esac
			printf '%s</script>\n' "$data"
		} | head -c $MAXLEN > "$hdir/$hname"
	done < "$src/fuzz/html.seeds"
}

# seed NAME DIR: fill DIR with the seed inputs, cut to MAXLEN bytes.
seed() {
	name=$1 dir=$2
	rm -rf "$dir"
	mkdir -p "$dir"
	for f in "$src/tests/data/${name%-example}"/* "$src/fuzz/seeds/$name"/* \
		"$src/examples/plugin-${name%-example}"/*.txt ${conf:+"$conf/$name/inputs"/*}; do
		[ -f "$f" ] && head -c $MAXLEN "$f" > "$dir/$(basename "$f")"
	done
	if [ "$name" = job ]; then
		for f in "$src"/conf/*.yaml; do
			[ -f "$f" ] && head -c $MAXLEN "$f" > "$dir/conf-$(basename "$f")"
		done
	fi
	[ "$name" = lua ] && lua_seeds "$dir"
	[ "$name" = html ] && html_seeds "$dir"
	if [ "$name" = folded ] && [ -n "$conf" ]; then
		for f in "$conf"/*/expected/*.txt "$conf"/svg/inputs/*; do
			[ -f "$f" ] && head -c $MAXLEN "$f" > "$dir/$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f")"
		done
	fi
	return 0
}

# failures: how many crash-, leak-, timeout- and oom- inputs $crashes holds
failures() {
	ls "$crashes" | grep -cv '^slow-unit-'
}

# one: replay and fuzz the harness $name, adding its line to $summary and
# setting status=1 when it crashed or regressed; what it has to say goes to
# standard error
one() {
	bin="$bld/fuzz/bin/fuzz-$name"
	if [ ! -x "$bin" ]; then
		echo "fuzz: no harness $bin; run 'make fuzz' first" >&2
		status=1
		return
	fi
	corpus="$bld/fuzz/corpus/$name"
	# not BUILDDIR/fuzz/seeds: automake's dist would take that directory
	# for SRCDIR/fuzz/seeds (EXTRA_DIST) in an out-of-tree build
	seeds="$bld/fuzz/seed-inputs/$name"
	crashes="$bld/fuzz/crashes/$name"
	log="$bld/fuzz/$name.log"
	regress="$src/fuzz/regress/$name"
	mkdir -p "$corpus" "$crashes"
	seed "$name" "$seeds"

	nreg=0
	regdir=
	if [ -d "$regress" ]; then
		set --
		for f in "$regress"/*; do
			[ -f "$f" ] && set -- "$@" "$f"
		done
		nreg=$#
		[ $# -gt 0 ] && regdir=$regress
		if [ $# -gt 0 ] && ! "$bin" "$@" > "$log" 2>&1; then
			echo "fuzz: $name: a regression input fails again:" >&2
			grep -E 'ERROR|SUMMARY|Running' "$log" | tail -5 >&2
			summary="$summary
$(printf '%-12s REGRESSION (see %s)' "$name" "$log")"
			status=1
			return
		fi
	fi

	dict=
	[ -f "$src/fuzz/$name.dict" ] && dict=$src/fuzz/$name.dict
	before=$(failures)
	echo "fuzz: $name: replayed $nreg regression input(s); fuzzing for ${secs}s"
	# FUZZ_RUNS and FUZZ_SEED (both optional) make the round the same inputs
	# every time: CI's, so that a pass here is a pass there
	"$bin" -max_total_time="$secs" -max_len=$MAXLEN -timeout=10 -report_slow_units=2 -rss_limit_mb=2048 \
		${FUZZ_RUNS:+"-runs=$FUZZ_RUNS"} ${FUZZ_SEED:+"-seed=$FUZZ_SEED"} \
		-print_final_stats=1 -artifact_prefix="$crashes/" ${dict:+"-dict=$dict"} \
		"$corpus" "$seeds" ${regdir:+"$regdir"} > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	# An input of 2 s or more (libFuzzer keeps it as slow-unit-*, which
	# is no failure) is a quadratic path that a slower or busier machine
	# would take past the timeout: say so before CI fails on it.
	slow=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -1)
	[ "${slow:-0}" -ge 2 ] && [ $rc -eq 0 ] &&
		echo "fuzz: $name: an input took ${slow}s (the timeout is 10s): $crashes/slow-unit-*" >&2
	after=$(failures)
	line=$(printf '%-12s %10s execs %7s/s  cov %6s  corpus %5s  slowest %3ss  crashes %s' "$name" \
		"${execs:-?}" "${rate:-?}" "${cov:-?}" "$(ls "$corpus" | wc -l)" "${slow:-?}" "$((after - before))")
	summary="$summary
$line"
	if [ $rc -ne 0 ] || [ "$after" -gt "$before" ]; then
		status=1
		echo "fuzz: $name: crash; input in $crashes/, log in $log" >&2
		grep -E '^(==[0-9]+==ERROR|SUMMARY)|runtime error' "$log" | head -5 >&2
		echo "fuzz: reproduce with: $bin CRASH-FILE" >&2
	fi
}

if [ "$one_only" = yes ]; then # its line to BUILDDIR/fuzz/NAME.summary
	name=$1 summary= status=0
	one
	printf '%s\n' "$summary" | sed '/^$/d' > "$bld/fuzz/$name.summary"
	exit $status
fi

# The harnesses run side by side, FUZZ_JOBS at a time (the machine's CPUs
# unless told): each is its own process with its own corpus, and a fixed
# round (FUZZ_RUNS, FUZZ_SEED) tries the same inputs however many run
# beside it.  Each one's messages are held until all are done, then shown
# in the harnesses' order, as its summary line is.
jobs=${FUZZ_JOBS:-$(nproc 2> /dev/null || echo 1)}
for name in "$@"; do
	rm -f "$bld/fuzz/$name.summary" "$bld/fuzz/$name.messages"
done
status=0
printf '%s\n' "$@" | xargs -P "$jobs" -I '{}' sh -c '"$@" > "$0/fuzz/{}.messages" 2>&1' "$bld" \
	sh "$0" "$src" "$bld" "$secs" --one '{}' || status=1
summary=
for name in "$@"; do
	cat "$bld/fuzz/$name.messages" 2> /dev/null
	line=$(cat "$bld/fuzz/$name.summary" 2> /dev/null) || line=
	[ -n "$line" ] || { line=$(printf '%-12s FAILED TO RUN (its messages are above)' "$name"); status=1; }
	summary="$summary
$line"
	rm -f "$bld/fuzz/$name.summary" "$bld/fuzz/$name.messages"
done
echo "fuzz: ${secs}s per harness$summary"
exit $status
