# TAP helpers for the shell tests.  Source it; call plan/ok/is/...; end with done_testing.
# Run through `make check`, which exports FLAMEKIT, FK_SRCDIR, FK_BUILDDIR,
# FK_CONFORMANCE and FLAMEKIT_PLUGIN_PATH.

: "${FLAMEKIT:?run through make check}"
: "${FK_SRCDIR:?run through make check}"
T_N=0
T_FAIL=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fk-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# python3 is the interpreter configure named (not a shim on PATH), for the
# oracles that run it by name too: the conformance corpus's compare-svg, say
case ${PYTHON3:-no} in
/*) mkdir "$TMP/.python3" && ln -s "$PYTHON3" "$TMP/.python3/python3" && PATH="$TMP/.python3:$PATH" ;;
esac

ok() { # ok COND_STATUS NAME
	T_N=$((T_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_N - $2"
	else
		echo "not ok $T_N - $2"
		T_FAIL=$((T_FAIL + 1))
	fi
}

skip() { # skip NAME REASON
	T_N=$((T_N + 1))
	echo "ok $T_N - $1 # SKIP $2"
}

# is ACTUAL EXPECTED NAME: exact string comparison, with a diff on failure.
is() {
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf '%s\n' "$2" > "$TMP/expected.diag"
		printf '%s\n' "$1" > "$TMP/actual.diag"
		diff -u "$TMP/expected.diag" "$TMP/actual.diag" | sed 's/^/# /' | head -40
	fi
}

# same_file EXPECTED ACTUAL NAME: byte comparison.
same_file() {
	if cmp -s "$1" "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		diff -u "$1" "$2" | sed 's/^/# /' | head -40
	fi
}

# output_is EXPECTED NAME CMD...: CMD exits 0, writes nothing to stderr and
# writes the bytes of the file EXPECTED (a failure names the exit status and
# what CMD said).
output_is() {
	oi_expected=$1
	oi_name=$2
	shift 2
	"$@" > "$TMP/out" 2> "$TMP/err"
	oi_rc=$?
	if [ $oi_rc -eq 0 ] && [ ! -s "$TMP/err" ]; then
		same_file "$oi_expected" "$TMP/out" "$oi_name"
	else
		ok 1 "$oi_name (exit $oi_rc: $(cat "$TMP/err"))"
	fi
}

# run CMD...: sets $out, $err and $rc.
run() {
	"$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# collapse_text FORMAT NAME TEXT: TEXT (printf's format) written to
# $TMP/NAME, then `flamekit collapse --format FORMAT` of it (run's $rc, $out
# and $err).
collapse_text() {
	printf "$3" > "$TMP/$2"
	run "$FLAMEKIT" collapse --format "$1" "$TMP/$2"
}

# collapse_head FORMAT N FILE: the first N lines of FILE (a record cut
# short) as $TMP/cut.txt, then `flamekit collapse --format FORMAT` of it
# (run's $rc, $out and $err).
collapse_head() {
	head -"$2" "$3" > "$TMP/cut.txt"
	run "$FLAMEKIT" collapse --format "$1" "$TMP/cut.txt"
}

# can_burn TOOL: TOOL and cc are installed, we are root (the tracers need
# it), and tests/oracle/burn.c compiled to $TMP/burn, for TOOL to trace.
can_burn() {
	command -v "$1" > /dev/null 2>&1 && command -v cc > /dev/null 2>&1 && [ "$(id -u)" -eq 0 ] &&
		cc -O1 -fno-omit-frame-pointer -o "$TMP/burn" "$FK_SRCDIR/tests/oracle/burn.c" 2> /dev/null
}

done_testing() {
	echo "1..$T_N"
	[ "$T_FAIL" -eq 0 ]
}

# skip_all NAME REASON: the rest of the script cannot run here (a tool is
# missing, a capture cannot be made): one skipped case, the plan, and exit,
# non-zero only if a case before it failed.
skip_all() {
	skip "$1" "$2"
	done_testing
	exit
}

# not_sanitized NAME SUBJECT: skip_all NAME in CI's sanitizer run
# (FK_SANITIZED=1, set by .ci/run) for a script whose cost is SUBJECT, not
# flamekit's C code: a browser, groff, the shells, sshd, a scan of the
# sources.  The flamekit runs such a script makes are the ones other
# scripts make; CI's plain run has already run it whole.
not_sanitized() {
	[ "${FK_SANITIZED:-0}" = 1 ] && skip_all "$1" "CI's sanitizer run leaves $2 to its plain run"
	return 0
}

# need_perf NAME: skip_all NAME unless perf is installed.
need_perf() {
	command -v perf > /dev/null 2>&1 || skip_all "$1" "perf is not installed (Debian: linux-perf)"
}

# compile_or_skip NAME ARGS...: ${CC:-cc} ARGS (its messages in cc.log), or
# skip_all NAME with the first of them.
compile_or_skip() {
	cs_name=$1
	shift
	${CC:-cc} "$@" > cc.log 2>&1 ||
		skip_all "$cs_name" "cannot compile the test program: $(head -1 cc.log)"
}

# record_or_skip NAME ARGS...: perf record ARGS (its messages in rec.log), or
# skip_all NAME with the first of them.
record_or_skip() {
	rs_name=$1
	shift
	perf record "$@" > rec.log 2>&1 ||
		skip_all "$rs_name" "perf cannot record here (not root, or perf_event_paranoid): $(head -1 rec.log)"
}

# perf_home: work in $TMP, with HOME a fresh directory there, so that what
# perf keeps in HOME (its build-id cache, ~/.debug) is not the user's.
perf_home() {
	cd "$TMP" || exit 1
	mkdir home
	HOME=$TMP/home
	export HOME
}

# submake ARGS...: make, outside the jobserver of the `make check` running us.
submake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES make "$@"
}

# stage_install DIR: `make install DESTDIR=DIR` of the build tree, as a test
# (its log's tail as diagnostics when it fails).
stage_install() {
	submake -C "$FK_BUILDDIR" install DESTDIR="$1" > "$TMP/install.log" 2>&1
	st=$?
	ok $st "make install DESTDIR=stage"
	[ $st -eq 0 ] || sed 's/^/# /' "$TMP/install.log" | tail -20
}
