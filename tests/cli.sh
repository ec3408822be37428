#!/bin/sh
# The flamekit command: exit codes, messages, atomic output, plugin listing.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/folded"

run "$FLAMEKIT" --version
is "$rc:$out" "0:flamekit 0.1.0 (plugin ABI 1.10)" "--version"

run "$FLAMEKIT"
ok $([ "$rc" -eq 2 ]; echo $?) "no command is a usage error (exit 2)"

run "$FLAMEKIT" frobnicate
is "$rc:$err" "2:flamekit: unknown command \"frobnicate\"
Try 'flamekit help' for more information." "unknown command"

run "$FLAMEKIT" help collapse
ok $([ "$rc" -eq 0 ] && echo "$out" | grep -q '^Usage: flamekit collapse'; echo $?) "help collapse"

# The formats a help text names are the input plugins loaded, every one
# (sorted), and those of --plugin-dir too: the option's whole entry, its
# words compared (the wrapping is the help's own).  The oracle is the list of
# input modules the build made, so a new plugin needs no edit here.
fopt() { printf '%s\n' "$out" | sed -n '/^  -f, --format NAME/,/^  -o, /p' | sed '$d' | tr -s ' \n' ' '; }
modules() { # modules DIR...: the input plugins' names in DIRs, sorted, comma-separated
	for d in "$@"; do ls "$d"; done | sed -n 's/^input-\(.*\)\.la$/\1/p; s/^\([a-z]*\)\.so$/\1/p' |
		LC_ALL=C sort -u | paste -s -d, - | sed 's/,/, /g'
}
builtins=$(modules "$FK_BUILDDIR/plugins")
run "$FLAMEKIT" collapse --help
is "$rc:$(fopt)" "0: -f, --format NAME input format: auto (the default: detected) or an input plugin loaded: $builtins " \
	"collapse --help names every input plugin loaded"
run "$FLAMEKIT" help graph
is "$rc:$(fopt)" "0: -f, --format NAME input format: auto (the default: detected) or an input plugin loaded: $builtins " \
	"help graph names every input plugin loaded"
run "$FLAMEKIT" diff -h
is "$rc:$(fopt)" "0: -f, --format NAME format of both inputs: folded (default), auto (detected) or an input plugin loaded: $builtins " \
	"diff -h names every input plugin loaded"
run "$FLAMEKIT" graph --help
is "$rc:$(printf '%s\n' "$out" | sed -n '/^  --output-plugin NAME/,/^  GRAPH/p' | sed '$d')" \
"0:  --output-plugin NAME  what draws: svg (default), flamechart (default with
                     --flamechart) or another output plugin loaded (flamekit
                     plugins describes them): flamechart, folded, hotcold, html,
                     icicle, pprof, speedscope, svg" "graph --help names every output plugin loaded"
mkdir "$TMP/third"
cp "$FK_BUILDDIR/tests/modules/.libs/meta.so" "$FK_BUILDDIR/tests/modules/.libs/dump.so" "$TMP/third/"
mkdir "$TMP/third-inputs" && cp "$FK_BUILDDIR/tests/modules/.libs/meta.so" "$TMP/third-inputs/"
run "$FLAMEKIT" collapse --plugin-dir "$TMP/third" --help
is "$rc:$err:$(fopt)" "0:: -f, --format NAME input format: auto (the default: detected) or an input plugin loaded: $(modules "$FK_BUILDDIR/plugins" "$TMP/third-inputs") " \
	"collapse --plugin-dir DIR --help names DIR's input plugin"
run "$FLAMEKIT" help graph --plugin "$TMP/third"
is "$rc:$err:$(fopt | grep -c ' ljp, meta, perf, '):$(printf '%s\n' "$out" | grep -c 'describes them): dump, flamechart,')" \
	"0::1:1" \
	"help graph --plugin DIR (a prefix) names DIR's input and output plugins"
FLAMEKIT_PLUGIN_PATH="$TMP/third" run "$FLAMEKIT" diff --help
is "$rc:$(fopt)" "0: -f, --format NAME format of both inputs: folded (default), auto (detected) or an input plugin loaded: meta " \
	"diff --help with only a third-party input names it alone"
for c in merge run; do
	run "$FLAMEKIT" "$c" --help
	is "$rc:$(printf '%s\n' "$out" | grep -c -e '--format' -e '@')" "0:0" "$c --help takes no format and lists none"
done
# graph's help points at the page of its options
run "$FLAMEKIT" graph --help
is "$(printf '%s\n' "$out" | grep -c 'flamekit-graph(1)')" "2" "graph --help names flamekit-graph(1) twice"
is "$(printf '%s\n' "$out" | grep -A1 '^Graph options')" "Graph options (the svg plugin's, described in flamekit-graph(1); another
--output-plugin NAME takes NAME's: flamekit plugins --help NAME):" "graph --help: the option table names flamekit-graph(1)"

run "$FLAMEKIT" collapse --format folded "$D/basic.txt"
is "$rc:$out" "0:main 0
main;parse 2
main;parse;lex 6
main;render 3" "collapse folded: sorted, aggregated, zero count kept"

run "$FLAMEKIT" collapse "$D/basic.txt"
is "$rc:$out" "0:main 0
main;parse 2
main;parse;lex 6
main;render 3" "collapse auto-detects folded"

collapse_text folded crlf.txt 'a;b 1\r\nnot a stack\r\na;b 2\r\njunk\r\n'
is "$rc:$out:$err" "0:a;b 3:flamekit: warning: $TMP/crlf.txt: skipped 2 unreadable lines (lines 2, 4)" \
	"CRLF input, skipped lines counted and reported once"

gzip -c "$D/basic.txt" > "$TMP/basic.txt.gz"
run "$FLAMEKIT" collapse --format folded "$TMP/basic.txt.gz" "$D/basic.txt"
is "$rc:$out" "0:main 0
main;parse 4
main;parse;lex 12
main;render 6" "gzip input and several files merged"

run sh -c "cat '$D/basic.txt' | '$FLAMEKIT' collapse --format folded -"
is "$rc:$(echo "$out" | head -1)" "0:main 0" "stdin as -"

run "$FLAMEKIT" collapse --format folded "$TMP/missing.txt"
is "$rc:$err" "1:flamekit: $TMP/missing.txt: cannot open: No such file or directory" "missing input: exit 1"

run "$FLAMEKIT" collapse --format nosuch "$D/basic.txt"
# every input plugin of the build, in load (name) order, as messages list them
inputs=$("$FLAMEKIT" plugins | awk '$1 == "input" { print $2 }' | tr '\n' ',' | sed 's/,$//; s/,/, /g')
ok $([ "$rc" -eq 2 ] && echo "$err" | grep -qF "no input plugin named \"nosuch\" (available: $inputs)"; echo $?) \
	"unknown format: exit 2, lists the available ones"

run "$FLAMEKIT" collapse --format folded --bogus "$D/basic.txt"
is "$rc:$(echo "$err" | head -1)" "2:flamekit: collapse: unknown option '--bogus' (the folded input plugin's options: flamekit plugins --help folded)" "unknown option: exit 2"

head -c 3000 /dev/urandom > "$TMP/binary.bin"
printf '\0\1\2\3' >> "$TMP/binary.bin"
run "$FLAMEKIT" collapse "$TMP/binary.bin"
is "$rc:$err" "1:flamekit: $TMP/binary.bin: cannot tell the input format (tried: $inputs); give one with --format NAME" \
	"binary garbage is not auto-detected"

: > "$TMP/empty.txt"
run "$FLAMEKIT" collapse "$TMP/empty.txt"
is "$rc:$out:$err" "0::" "empty input with auto: no stacks, status 0, as an empty folded file"
printf '\n  \n\r\n' > "$TMP/blank.txt"
run "$FLAMEKIT" collapse "$TMP/blank.txt"
is "$rc:$out:$err" "0::" "blank lines only, with auto: no stacks, status 0"
run "$FLAMEKIT" collapse --format folded "$TMP/empty.txt"
is "$rc:$out:$err" "0::" "empty input, explicit format: no stacks"

# A gzip file whose first read is more than the decompressor's 256 KiB
# input buffer (random names do not compress), and a truncated one.
awk 'BEGIN { srand(7); for (i = 0; i < 80000; i++) printf "main;f%08x;g%08x %d\n", int(rand() * 4294967295), int(rand() * 4294967295), 1 + i % 9 }' > "$TMP/rand.folded"
gzip -c "$TMP/rand.folded" > "$TMP/rand.folded.gz"
"$FLAMEKIT" collapse --format folded "$TMP/rand.folded" > "$TMP/rand.plain" 2>&1
run "$FLAMEKIT" collapse --format folded "$TMP/rand.folded.gz"
ok $([ "$rc" -eq 0 ] && [ -z "$err" ] && [ "$(wc -c < "$TMP/rand.folded.gz")" -gt 800000 ] &&
	printf '%s\n' "$out" | cmp -s - "$TMP/rand.plain"; echo $?) "a 900 KB gzip file reads as its text"
head -c 300000 "$TMP/rand.folded.gz" > "$TMP/cut.gz"
run "$FLAMEKIT" collapse --format folded "$TMP/cut.gz"
is "$rc:$err" "1:flamekit: [input:folded] $TMP/cut.gz: compressed data is truncated" "a truncated gzip file: exit 1, one message"

# -o writes atomically: a failing run leaves the old file untouched
echo "old content" > "$TMP/out.folded"
run "$FLAMEKIT" collapse --format folded -o "$TMP/out.folded" "$D/basic.txt" "$TMP/missing.txt"
is "$rc:$(cat "$TMP/out.folded")" "1:old content" "failed run leaves the output file untouched"
ok $(ls "$TMP" | grep -q 'out.folded.tmp'; [ $? -ne 0 ]; echo $?) "no temporary file left behind"
run "$FLAMEKIT" collapse --format folded -o "$TMP/out.folded" "$D/basic.txt"
is "$rc:$(head -1 "$TMP/out.folded")" "0:main 0" "successful run replaces it"

run "$FLAMEKIT" collapse --format folded -o /nonexistent-dir/out.folded "$D/basic.txt"
is "$rc:$err" "1:flamekit: /nonexistent-dir/out.folded: cannot create output file: No such file or directory" \
	"unwritable output directory"

if [ -w /dev/full ]; then
	run sh -c "'$FLAMEKIT' collapse --format folded '$D/basic.txt' > /dev/full"
	is "$rc:$err" "1:flamekit: <stdout>: write error: No space left on device" "disk full on stdout"
else
	skip "disk full on stdout" "no /dev/full"
fi

# plugins: listed as modules with their path
run "$FLAMEKIT" plugins
ok $([ "$rc" -eq 0 ] && echo "$out" | grep -q "^input   folded .*/plugins/.libs/input-folded.so$" &&
	echo "$out" | grep -q "^output  folded .*/plugins/.libs/output-folded.so$"; echo $?) \
	"plugins lists folded input and output, loaded from the build tree"

run "$FLAMEKIT" plugins --help output:folded
ok $([ "$rc" -eq 0 ] && echo "$out" | grep -q '^output plugin "folded" 1.0 (ABI 1.10)$'; echo $?) "plugins --help KIND:NAME"

# broken modules in the path are refused, and collapse still works
mkdir "$TMP/mods"
for m in badmagic wrongabi noentry; do cp "$FK_BUILDDIR/tests/modules/.libs/$m.so" "$TMP/mods/"; done
cp "$FK_SRCDIR/tests/modules/garbage.so" "$TMP/mods/"
run "$FLAMEKIT" collapse --plugin-dir "$TMP/mods" --format folded "$D/basic.txt"
ok $([ "$rc" -eq 0 ] && [ "$(echo "$out" | head -1)" = "main 0" ]; echo $?) "collapse works beside broken modules"
ok $(echo "$err" | grep -q "wrongabi.so: plugin refused: built for plugin ABI 99.3, but this flamekit speaks ABI 1.10; rebuild"; echo $?) \
	"wrong-ABI module refused with both versions and the fix"
ok $(echo "$err" | grep -q "badmagic.so: plugin refused: wrong magic 0xdeadbeef"; echo $?) "bad-magic module refused"
ok $(echo "$err" | grep -q "noentry.so: plugin refused: no flamekit_plugin_init symbol"; echo $?) "module without entry refused"
ok $(echo "$err" | grep -q "garbage: plugin refused: cannot load it ("; echo $?) "a file that is not a module is refused"

# threads: chunked parsing gives the same stacks and the same line numbers
awk 'BEGIN { for (i = 1; i <= 3000; i++) { if (i % 701 == 0) print "broken_line_" i; else printf "main;f%d;g%d %d\n", i % 13, i % 7, i % 5 } }' > "$TMP/chunks.folded"
run "$FLAMEKIT" collapse --format folded --threads 1 "$TMP/chunks.folded"
one="$out"; one_err="$err"
FLAMEKIT_CHUNK_BYTES=1000 run "$FLAMEKIT" collapse --format folded --threads 3 "$TMP/chunks.folded"
is "$out" "$one" "3 threads over 1000-byte chunks: same stacks as 1 thread"
is "$err" "$one_err" "3 threads: the same skipped-line report"
is "$one_err" "flamekit: warning: $TMP/chunks.folded: skipped 4 unreadable lines (lines 701, 1402, 2103, 2804)" \
	"skipped lines reported with whole-file line numbers"

# a closed pipe is not an error
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "main;f%d 1\n", i }' > "$TMP/big.folded"
("$FLAMEKIT" collapse --format folded "$TMP/big.folded" 2> "$TMP/pipe.err"; echo $? > "$TMP/pipe.rc") |
	head -c 10 > /dev/null
is "$(cat "$TMP/pipe.rc"):$(cat "$TMP/pipe.err")" "0:" "reader closing the pipe ends quietly (flamekit's status)"

# FlameGraph users' spellings (Getopt::Long's): unique prefixes of long
# options, long options after one dash, -h.
"$FLAMEKIT" graph --title=T --colors=java --hash "$D/basic.txt" > "$TMP/full.svg"
for spelling in "--titl=T --color=java --has" "-title=T -colors java -hash" "--tit T --col=java --hash"; do
	# shellcheck disable=SC2086
	run "$FLAMEKIT" graph $spelling "$D/basic.txt"
	is "$rc:$err:$(printf '%s\n' "$out" | cmp -s - "$TMP/full.svg"; echo $?)" "0::0" \
		"graph $spelling: the graph of --title=T --colors=java --hash"
done
run "$FLAMEKIT" collapse --form folded -o "$TMP/p.folded" --thr 2 "$D/basic.txt"
is "$rc:$err:$(cat "$TMP/p.folded")" "0::main 0
main;parse 2
main;parse;lex 6
main;render 3" "collapse --form, --thr: prefixes of --format and --threads"
run "$FLAMEKIT" graph --f folded "$D/basic.txt"
is "$rc:$err" "2:flamekit: graph: option '--f' is ambiguous; possibilities: --format --flamechart --frame-names --fonttype --fontsize --fontwidth --factor
Try 'flamekit help graph' for more information." "an ambiguous prefix is a usage error naming the candidates"
run "$FLAMEKIT" collapse --format perf --p 1 "$D/basic.txt"
is "$rc:$err" "2:flamekit: collapse: option '--p' is ambiguous; possibilities: --plugin-dir --progress --pid
Try 'flamekit help collapse' for more information." "collapse: the input plugin's options are candidates too"
# An unknown option names the nearest spellings (edit distance at most 2):
# the command's, the common ones and its plugins'.
run "$FLAMEKIT" graph --colr=java "$D/basic.txt"
is "$rc:$out:$err" "2::flamekit: graph: unknown option '--colr=java' (the options: flamekit plugins --help svg)
Did you mean --colors?
Try 'flamekit help graph' for more information." "graph --colr: did you mean --colors"
run "$FLAMEKIT" collapse --formt folded "$D/basic.txt"
is "$rc:$err" "2:flamekit: collapse: unknown option '--formt'
Did you mean --format?
Try 'flamekit help collapse' for more information." "collapse --formt: did you mean --format"
run "$FLAMEKIT" collapse --format perf --xid 1 "$D/basic.txt"
is "$rc:$(echo "$err" | sed -n 2p)" "2:Did you mean --pid --tid?" "collapse --xid: perf's --pid and --tid, both one edit away"
run "$FLAMEKIT" diff -nsx "$D/basic.txt" "$D/basic.txt"
is "$rc:$(echo "$err" | head -1)" "2:flamekit: diff: unknown option '-nsx'" "diff -nsx: x is no flag of diff"
run "$FLAMEKIT" graph -h
ok $([ "$rc" -eq 0 ] && echo "$out" | grep -q '^Usage: flamekit graph'; echo $?) "graph -h is --help"
run "$FLAMEKIT" graph --title -title=x "$D/basic.txt"
ok $([ "$rc" -eq 0 ] && echo "$out" | grep -q '>-title=x</text>'; echo $?) "an option's value is never taken for an option"

run "$FLAMEKIT" --vers
is "$rc:$out" "0:flamekit 0.1.0 (plugin ABI 1.10)" "--vers: a prefix of --version"
run "$FLAMEKIT" -help
ok $([ "$rc" -eq 0 ] && echo "$out" | grep -q '^Usage: flamekit COMMAND'; echo $?) "-help: --help after one dash"

done_testing
