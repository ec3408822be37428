#!/bin/sh
# --demangle and the demangle filter: every mangled name (Itanium C++,
# macOS's __Z, clones, Rust legacy and v0) becomes what c++filt prints for
# it (tests/oracle/demangle.py runs c++filt), in full and in the short
# style, from folded, dtrace and bpftrace inputs, on the command line and
# in a job.  By default each input as its format says: off for FlameGraph's
# formats (their output stays the scripts'), on for bpftrace, bcc,
# threaddump, sample (each read by its own oracle in tests/oracle/, then
# c++filt), per input when a run mixes them; --no-demangle, a job input's
# demangle key.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data"
ORACLE="$FK_SRCDIR/tests/oracle/demangle.py"

# The issue's acceptance case: the seed-style DTrace MySQL stack.
cat > "$TMP/mysql.txt" <<'XX'
CPU     ID                    FUNCTION:NAME
  0  64091                        :tick-60s

              mysqld`_Z16dispatch_command19enum_server_commandP3THDPcj+0x1f
              mysqld`_Z10do_commandP3THD+0xc3
              mysqld`handle_one_connection+0x1e6
               12
XX
run "$FLAMEKIT" collapse --demangle "$TMP/mysql.txt"
is "$rc:$out:$err" "0:mysqld\`handle_one_connection;mysqld\`do_command(THD*);mysqld\`dispatch_command(enum_server_command, THD*, char*, unsigned int) 12:" \
	"collapse --demangle of the MySQL DTrace stack: module\`dispatch_command(enum_server_command, THD*, char*, unsigned int)"
run "$FLAMEKIT" collapse "$TMP/mysql.txt"
is "$out" "mysqld\`handle_one_connection;mysqld\`_Z10do_commandP3THD;mysqld\`_Z16dispatch_command19enum_server_commandP3THDPcj 12" \
	"without --demangle the names stay as stackcollapse.pl writes them"
run "$FLAMEKIT" collapse --demangle=no "$TMP/mysql.txt"
is "$out" "mysqld\`handle_one_connection;mysqld\`_Z10do_commandP3THD;mysqld\`_Z16dispatch_command19enum_server_commandP3THDPcj 12" \
	"--demangle=no: off"

# Rust legacy names a C++-only demangler left half done (macOS sample and
# Instruments, DTrace, old perf; inferno#87): Rust's escapes and hash kept.
# Expected by Rust's legacy mangling rules: $LT$ <, $GT$ >, $u20$ blank,
# $u7b$ {, $u7d$ }, ".." "::", a "_" before a leading "$" dropped, the last
# component h + 16 hex digits the hash (dropped by short, as a ".llvm.N"
# clone suffix always is, which macOS prints as " (.llvm.N)").  Names that
# are C++ or already plain stay as they are.
printf '%s\n' 'app;rg`_$LT$F$u20$as$u20$alloc..boxed..FnBox$LT$A$GT$$GT$::call_box::h8612a2a83552fc2d;std::rt::lang_start::_$u7b$$u7b$closure$u7d$$u7d$::h7d0ebd26afb1a225+0x1f;rg`std::panicking::try::do_call::h08ca64c12e8a9bb0 (.llvm.15516475458848885060) 3' \
	'app;ns::func;std::vector<int>::push_back;foo::bar(int);a::$x(1);9a::b::h0123456789abcdef 2' > "$TMP/rusthalf.folded"
run "$FLAMEKIT" collapse --demangle "$TMP/rusthalf.folded"
is "$rc:$err:$out" "0::app;ns::func;std::vector<int>::push_back;foo::bar(int);a::\$x(1);9a::b::h0123456789abcdef 2
app;rg\`<F as alloc::boxed::FnBox<A>>::call_box::h8612a2a83552fc2d;std::rt::lang_start::{{closure}}::h7d0ebd26afb1a225+0x1f;rg\`std::panicking::try::do_call::h08ca64c12e8a9bb0 3" \
	"--demangle: a half-demangled Rust legacy name is finished, hash kept; C++ and plain names kept"
run "$FLAMEKIT" collapse --demangle=short "$TMP/rusthalf.folded"
is "$rc:$err:$out" "0::app;ns::func;std::vector<int>::push_back;foo::bar(int);a::\$x(1);9a::b::h0123456789abcdef 2
app;rg\`<F as alloc::boxed::FnBox<A>>::call_box;std::rt::lang_start::{{closure}}+0x1f;rg\`std::panicking::try::do_call 3" \
	"--demangle=short: a half-demangled Rust legacy name without its hash (inferno's short names)"

if ! command -v c++filt > /dev/null 2>&1 || ! command -v python3 > /dev/null 2>&1; then
	skip_all "the c++filt oracle" "no c++filt (binutils) or python3"
fi

# oracle NAME ORACLE-OPTIONS -- FLAMEKIT-ARGS: flamekit's folded output equals
# the oracle's over the same stacks undemangled
oracle() {
	name=$1 oopt=$2
	shift 3
	"$FLAMEKIT" collapse --no-demangle "$@" > "$TMP/plain" 2> /dev/null
	# shellcheck disable=SC2086
	python3 "$ORACLE" $oopt < "$TMP/plain" > "$TMP/exp"
	run "$FLAMEKIT" collapse --demangle${oopt:+=short} "$@"
	printf '%s\n' "$out" > "$TMP/got"
	same_file "$TMP/exp" "$TMP/got" "$name: what c++filt${oopt:+ -p} prints"
	is "$rc:$err" "0:" "$name: exit 0, nothing said"
}
F="$D/demangle/names.folded"
oracle "folded, full" "" -- "$F"
oracle "folded, short" --short -- "$F"
oracle "dtrace, full" "" -- "$TMP/mysql.txt"
oracle "dtrace, short" --short -- "$TMP/mysql.txt"
printf '@[\n    _ZN3foo3bar17h05af221e174051e9E+12\n    _ZNSt6vectorIiSaIiEE9push_backERKi+7\n, \n    _RNvNtCs1234_7mycrate3foo3bar+3\n, app]: 9\n' > "$TMP/bt.txt"
oracle "bpftrace, full" "" -- "$TMP/bt.txt"
oracle "bpftrace, short" --short -- "$TMP/bt.txt"
run "$FLAMEKIT" collapse --demangle=short "$TMP/bt.txt"
is "$out" "app;mycrate::foo::bar+3;std::vector<int, std::allocator<int> >::push_back+7;foo::bar+12 9" \
	"short: no argument lists, no Rust hash or crate disambiguator, the offsets kept"

# graph draws the demangled names, escaped
"$FLAMEKIT" graph --demangle "$F" > "$TMP/g.svg"
ok $(grep -q 'std::vector&lt;int, std::allocator&lt;int&gt; &gt;::push_back(int const&amp;)+0x12' "$TMP/g.svg"; echo $?) \
	"graph --demangle: the SVG shows the demangled name, escaped"

# the demangle filter in a job
mkdir "$TMP/job"
cat > "$TMP/job/job.yaml" <<XX
inputs:
  - path: $F
filters:
  - plugin: demangle
    options:
      style: short
outputs:
  - plugin: folded
    path: $TMP/job/out.folded
XX
run "$FLAMEKIT" run "$TMP/job/job.yaml"
python3 "$ORACLE" --short < "$F" > "$TMP/exp"
is "$rc:$err" "0:" "a job with the demangle filter runs"
same_file "$TMP/exp" "$TMP/job/out.folded" "the job's output is what c++filt -p prints"
sed 's/style: short/style: tiny/' "$TMP/job/job.yaml" > "$TMP/job/bad.yaml"
run "$FLAMEKIT" run "$TMP/job/bad.yaml"
ok $([ "$rc" -ne 0 ] && printf '%s\n' "$err" | grep -q 'style must be full or short, not "tiny"'; echo $?) \
	"style: tiny is refused, naming the values allowed ($err)"

run "$FLAMEKIT" collapse --demangle=tiny "$F"
is "$rc:$out:$err" "2::flamekit: collapse: --demangle takes full, short or no, not \"tiny\"
Try 'flamekit help collapse' for more information." "--demangle=tiny: a usage error"

# --- each format's default ---------------------------------------------------
# by_default NAME FILE FORMAT-ORACLE STYLE: FILE --no-demangle is what the
# format's own oracle reads in it (mangled), and by default what c++filt
# makes of that (STYLE full; short: c++filt -p)
by_default() {
	name=$1 f=$2 fo=$FK_SRCDIR/tests/oracle/$3 style=$4
	python3 "$fo" "$f" > "$TMP/raw" 2> /dev/null
	run "$FLAMEKIT" collapse --no-demangle "$f"
	printf '%s\n' "$out" > "$TMP/got"
	same_file "$TMP/raw" "$TMP/got" "$name --no-demangle: the names as written ($3)"
	# shellcheck disable=SC2046
	python3 "$ORACLE" $([ "$style" = short ] && echo --short) < "$TMP/raw" > "$TMP/exp"
	ok $(! cmp -s "$TMP/raw" "$TMP/exp"; echo $?) "$name: the file has names c++filt demangles"
	run "$FLAMEKIT" collapse "$f"
	printf '%s\n' "$out" > "$TMP/got"
	same_file "$TMP/exp" "$TMP/got" "$name by default: demangled, $style (what c++filt${style#full} prints)"
	is "$rc:$err" "0:" "$name by default: exit 0, nothing said"
}
by_default bpftrace "$TMP/bt.txt" bpftrace.py full
sed -e 's/^    leaf_a$/    _ZN3foo3bar17h05af221e174051e9E/' -e 's/^    top$/    _RNvNtCs1234_7mycrate3foo3bar/' \
	-e 's/^    leaf_b$/    _ZNSt6vectorIiSaIiEE9push_backERKi/' "$D/bcc/profile.txt" > "$TMP/bcc.txt"
by_default bcc "$TMP/bcc.txt" bcc.py full
sed 's/ spin_leaf$/ _Z9spin_leafv/' "$D/threaddump/eu-stack.txt" > "$TMP/eu-stack.txt"
by_default "threaddump (eu-stack)" "$TMP/eu-stack.txt" threaddump.py full
sed 's/WebCore::RenderLayer::paint()/__ZN7WebCore11RenderLayer5paintEv/' "$D/sample/safari.txt" > "$TMP/sample.txt"
by_default sample "$TMP/sample.txt" sample.py full

# FlameGraph's formats keep their names: stackcollapse-perf.pl's output of
# a perf capture with mangled C++ frames, byte for byte
PJ=$FK_CONFORMANCE/perf/inputs/perf-java-faults-01.txt
if [ -f "$PJ" ]; then
	"$FLAMEKIT" collapse "$PJ" > "$TMP/pj" 2>&1
	same_file "$FK_CONFORMANCE/perf/expected/perf-java-faults-01-collapsed.txt" "$TMP/pj" \
		"perf by default: stackcollapse-perf.pl's output, mangled names and all"
	ok $(grep -q '_ZN10JavaThread3runEv' "$TMP/pj"; echo $?) "perf: the capture has mangled names"
	python3 "$ORACLE" < "$FK_CONFORMANCE/perf/expected/perf-java-faults-01-collapsed.txt" > "$TMP/exp"
	"$FLAMEKIT" collapse --demangle "$PJ" > "$TMP/pj" 2>&1
	same_file "$TMP/exp" "$TMP/pj" "perf --demangle: stackcollapse-perf.pl's stacks, what c++filt prints"
else
	skip "perf keeps mangled names" "no conformance corpus"
	skip "perf: mangled names" "no conformance corpus"
	skip "perf --demangle" "no conformance corpus"
fi

# perf-data: perf script demangles as it symbolizes (C++ without argument
# lists), so perf-data's default is off and a perf.data of a C++ program
# reads as `perf script | flamekit collapse --format perf` does, with
# --demangle too.  HOME is a temporary directory: perf's build-id cache
# (~/.debug) is not the user's.
mkdir "$TMP/pd" "$TMP/pd/home"
cat > "$TMP/pd/prog.cc" <<'XX'
namespace app {
volatile unsigned long sink;
template <typename T> __attribute__((noinline)) void spin(T n) { for (T i = 0; i < n; i++) sink += i; }
struct Worker {
	__attribute__((noinline)) void run(int k) { spin<unsigned long>(40000000UL * (unsigned long)k); }
};
}
int main() { app::Worker w; w.run(2); return 0; }
XX
if command -v perf > /dev/null 2>&1 && command -v g++ > /dev/null 2>&1 &&
	g++ -O1 -fno-omit-frame-pointer -o "$TMP/pd/prog" "$TMP/pd/prog.cc" 2> /dev/null &&
	(cd "$TMP/pd" && HOME=$TMP/pd/home perf record -q -g -o prog.data ./prog > rec.log 2>&1) &&
	HOME=$TMP/pd/home perf script -i "$TMP/pd/prog.data" > "$TMP/pd/script.txt" 2> /dev/null &&
	grep -q 'app::spin<unsigned long>' "$TMP/pd/script.txt"; then
	for opt in "" --demangle; do
		# shellcheck disable=SC2086
		HOME=$TMP/pd/home "$FLAMEKIT" collapse $opt --format perf "$TMP/pd/script.txt" > "$TMP/pd/exp" 2> /dev/null
		# shellcheck disable=SC2086
		HOME=$TMP/pd/home run "$FLAMEKIT" collapse $opt "$TMP/pd/prog.data"
		printf '%s\n' "$out" > "$TMP/pd/got"
		same_file "$TMP/pd/exp" "$TMP/pd/got" \
			"perf-data ${opt:-by default}: what perf script | flamekit collapse --format perf${opt:+ $opt} gives"
	done
	ok $(grep -q ';main;app::spin<unsigned long> ' "$TMP/pd/got"; echo $?) \
		"perf-data: the C++ names as perf script demangles them"
else
	skip "perf-data by default" "no perf, g++ or perf record here"
	skip "perf-data --demangle" "no perf, g++ or perf record here"
	skip "perf-data: C++ names" "no perf, g++ or perf record here"
fi

# --- mixed inputs: the step belongs to the input ---------------------------
# one mangled name in a folded file (not demangled) and a bpftrace one (demangled)
printf 'app;_Z3foov+4 3\n' > "$TMP/m.folded"
printf '@[\n, \n    _Z3foov+4\n, app]: 9\n' > "$TMP/m.bt"
foo=$(echo _Z3foov | c++filt) foop=$(echo _Z3foov | c++filt -p)
mixed="app;_Z3foov+4 3
app;$foo+4 9"
run "$FLAMEKIT" collapse "$TMP/m.folded" "$TMP/m.bt"
is "$rc:$out:$err" "0:$mixed:" "folded and bpftrace inputs: only bpftrace's names demangled"
run "$FLAMEKIT" collapse "$TMP/m.bt" "$TMP/m.folded"
is "$out" "$mixed" "in either order"
run "$FLAMEKIT" collapse --focus 'foo[(]' "$TMP/m.folded" "$TMP/m.bt"
is "$out" "app;$foo+4 9" "with a per-sample filter (--focus): it sees each input's names as demangled"
run "$FLAMEKIT" collapse --hide 'foo[(]' "$TMP/m.folded" "$TMP/m.bt"
is "$out" "app 9
app;_Z3foov+4 3" "with a per-frame filter (--hide): the same"
run "$FLAMEKIT" collapse --no-demangle "$TMP/m.folded" "$TMP/m.bt"
is "$out" "app;_Z3foov+4 12" "--no-demangle: no input demangled"
run "$FLAMEKIT" collapse --demangle --no-demangle "$TMP/m.bt"
is "$out" "app;_Z3foov+4 9" "--no-demangle after --demangle: the last one says"
run "$FLAMEKIT" collapse --no-demangle --demangle=short "$TMP/m.folded" "$TMP/m.bt"
is "$out" "app;$foop+4 12" "--demangle=short: every input, short"
"$FLAMEKIT" graph "$TMP/m.folded" "$TMP/m.bt" > "$TMP/m.svg"
ok $(grep -q "<title>$foo+4 (9 samples" "$TMP/m.svg" && grep -q '<title>_Z3foov+4 (3 samples' "$TMP/m.svg"; echo $?) \
	"graph draws each input's names as its format has them"

# diff: both files demangled as their format says, or as --demangle says
printf 'app;_Z3foov+4 5\n' > "$TMP/m2.folded"
run "$FLAMEKIT" diff "$TMP/m.folded" "$TMP/m2.folded"
is "$rc:$out:$err" "0:app;_Z3foov+4 3 5:" "diff of folded files: names as read"
run "$FLAMEKIT" diff --demangle=short "$TMP/m.folded" "$TMP/m2.folded"
is "$rc:$out:$err" "0:app;$foop+4 3 5:" "diff --demangle=short"
run "$FLAMEKIT" diff -f bpftrace "$TMP/m.bt" "$TMP/m.bt"
is "$rc:$out:$err" "0:app;$foo+4 9 9:" "diff -f bpftrace: demangled, bpftrace's default"
run "$FLAMEKIT" diff --no-demangle -f bpftrace "$TMP/m.bt" "$TMP/m.bt"
is "$rc:$out:$err" "0:app;_Z3foov+4 9 9:" "diff --no-demangle -f bpftrace"

# a job: each input its own default, or its own demangle key
mkdir "$TMP/mj"
cat > "$TMP/mj/job.yaml" <<XX
inputs:
  - path: $TMP/m.bt
  - path: $TMP/m.folded
outputs: [{plugin: folded, path: "-"}]
XX
run "$FLAMEKIT" run "$TMP/mj/job.yaml"
is "$rc:$out:$err" "0:$mixed:" "a job of both: each input as its format says"
cat > "$TMP/mj/keys.yaml" <<XX
inputs:
  - path: $TMP/m.bt
    demangle: no
  - path: $TMP/m.folded
    demangle: short
outputs: [{plugin: folded, path: "-"}]
XX
run "$FLAMEKIT" run "$TMP/mj/keys.yaml"
is "$rc:$out:$err" "0:app;_Z3foov+4 9
app;$foop+4 3:" "a job input's demangle: no keeps bpftrace's names, demangle: short demangles folded's"
sed 's/demangle: short/demangle: full/' "$TMP/mj/keys.yaml" > "$TMP/mj/full.yaml"
run "$FLAMEKIT" run "$TMP/mj/full.yaml"
is "$out" "app;_Z3foov+4 9
app;$foo+4 3" "demangle: full"
sed 's/demangle: short/demangle: maybe/' "$TMP/mj/keys.yaml" > "$TMP/mj/bad.yaml"
run "$FLAMEKIT" run "$TMP/mj/bad.yaml"
is "$rc:$out:$err" "2::flamekit: $TMP/mj/bad.yaml:5:15: demangle must be no, full or short, not \"maybe\"" \
	"demangle: maybe is refused at its line and column"
cat > "$TMP/mj/filter.yaml" <<XX
inputs: [$TMP/m.bt]
filters: [{plugin: demangle, style: short}]
outputs: [{plugin: folded, path: "-"}]
XX
run "$FLAMEKIT" run "$TMP/mj/filter.yaml"
is "$rc:$out:$err" "0:app;$foop+4 9:" "a job's own demangle filter takes over from bpftrace's default (style short)"

# without the demangle filter plugin: a default is left out (said with -v),
# a demangling asked for is an error
mkdir "$TMP/nodm"
cp "$FK_BUILDDIR/plugins/.libs/input-bpftrace.so" "$FK_BUILDDIR/plugins/.libs/output-folded.so" "$TMP/nodm/"
FLAMEKIT_PLUGIN_PATH=$TMP/nodm run "$FLAMEKIT" collapse "$TMP/m.bt"
is "$rc:$out:$err" "0:app;_Z3foov+4 9:" "no demangle filter plugin: bpftrace's names as read, nothing said"
FLAMEKIT_PLUGIN_PATH=$TMP/nodm run "$FLAMEKIT" collapse -v "$TMP/m.bt"
ok $(printf '%s\n' "$err" | grep -qxF "flamekit: $TMP/m.bt: names not demangled: the demangle filter plugin is not loaded"; echo $?) \
	"-v says why the names are not demangled"
FLAMEKIT_PLUGIN_PATH=$TMP/nodm run "$FLAMEKIT" collapse --demangle "$TMP/m.bt"
is "$rc:$out:$err" "2::flamekit: $TMP/m.bt: cannot demangle: the demangle filter plugin is not loaded (see flamekit plugins)" \
	"no demangle filter plugin: --demangle is an error naming the input"

done_testing
