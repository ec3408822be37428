#!/bin/sh
# --demangle and the demangle filter: every mangled name (Itanium C++,
# macOS's __Z, clones, Rust legacy and v0) becomes what c++filt prints for
# it (tests/oracle/demangle.py runs c++filt), in full and in the short
# style, from folded, dtrace and bpftrace inputs, on the command line and
# in a job; off by default.
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

if ! command -v c++filt > /dev/null 2>&1 || ! command -v python3 > /dev/null 2>&1; then
	skip "the c++filt oracle" "no c++filt (binutils) or python3"
	done_testing
	exit
fi

# oracle NAME ORACLE-OPTIONS -- FLAMEKIT-ARGS: flamekit's folded output equals
# the oracle's over the same stacks undemangled
oracle() {
	name=$1 oopt=$2
	shift 3
	"$FLAMEKIT" collapse "$@" > "$TMP/plain" 2> /dev/null
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

done_testing
