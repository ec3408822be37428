#!/bin/sh
# flamekit run: job files, their errors, --check, --set, the grep filter,
# several inputs and outputs, all-or-nothing outputs, the example jobs.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/job"
C="$FK_SRCDIR/conf"
cd "$TMP" || exit 1
mkdir data
cp "$D"/*.folded data/

# job TEXT: write job.yaml and run it
job() {
	printf '%s\n' "$1" > job.yaml
	shift
	run "$FLAMEKIT" run "$@" job.yaml
}

# ---- running ---------------------------------------------------------------
job 'inputs:
  - path: data/a.folded
    format: folded
  - data/b.folded
outputs:
  - plugin: folded
    path: "-"'
is "$rc:$out:$err" "0:main;parse 4
main;parse;lex 10
main;render 5
other;work 1:" "two inputs merged (path shorthand, auto format)"

job 'inputs:
  - path: ["data/[ab].folded", data/a.folded]
outputs:
  - {plugin: folded, path: out.folded}'
is "$rc:$(cat out.folded)" "0:main;parse 6
main;parse;lex 15
main;render 8
other;work 1" "globs and path lists, relative to the job file; output file"

mkdir sub
printf 'inputs: [../data/a.folded]\noutputs: [{plugin: folded, path: a.out}]\n' > sub/rel.yaml
run "$FLAMEKIT" run sub/rel.yaml
is "$rc:$(cat sub/a.out)" "0:main;parse 2
main;parse;lex 5
main;render 3" "inputs and outputs relative to the job file's directory"

printf 'inputs: [../data/a.folded]\noutput-dir: ../outdir\noutputs: [{plugin: folded, path: a.out}]\n' > sub/od.yaml
mkdir outdir
run "$FLAMEKIT" run sub/od.yaml
is "$rc:$(head -1 outdir/a.out)" "0:main;parse 2" "output-dir"

job 'inputs:
  - {path: data/a.folded, series: baseline}
  - {path: data/b.folded, series: current}
outputs:
  - {plugin: folded, path: "-"}'
is "$rc:$out" "0:main;parse 2 2
main;parse;lex 5 5
main;render 3 2
other;work 0 1" "series baseline and current make a differential profile"

job 'inputs:
  - {path: data/a.folded, series: on-cpu}
  - {path: data/b.folded, series: off-cpu}
outputs:
  - {plugin: folded, path: "-"}'
is "$rc:$(echo "$out" | tail -1)" "0:other;work 0 1" "series on-cpu and off-cpu are 0 and 1"

printf 'inputs: ["-"]\noutputs: [{plugin: folded, path: "-"}]\n' > stdin.yaml
run sh -c "'$FLAMEKIT' run stdin.yaml < data/b.folded"
is "$rc:$out" "0:main;parse 2
main;parse;lex 5
main;render 2
other;work 1" "input - reads stdin"

# ---- the grep filter ---------------------------------------------------------
job 'inputs: [data/a.folded, data/b.folded]
filters:
  - plugin: grep
    options: {exclude: "^lex$"}
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$out" "0:main;parse 4
main;render 5
other;work 1" "grep exclude drops samples with a matching frame"

job 'inputs: [data/a.folded, data/b.folded]
filters:
  - plugin: grep
    options: {include: "^(RENDER|work)", ignore-case: true}
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$out" "0:main;render 5
other;work 1" "grep include with ignore-case"

job 'inputs: [data/a.folded, data/b.folded]
filters:
  - plugin: grep
    options: {include: "^main$", exclude: "lex|render"}
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$out" "0:main;parse 4" "grep include and exclude together"

job 'inputs: [data/a.folded]
filters:
  - plugin: grep
    options: {include: "(unclosed"}
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$err" "2:flamekit: [filter:grep] job.yaml:3:5: include pattern \"(unclosed\": Unmatched ( or \\(" "bad regex"

job 'inputs: [data/a.folded]
filters:
  - plugin: grep
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$err" "2:flamekit: [filter:grep] job.yaml:3:5: the grep filter needs an include or an exclude pattern" "grep without patterns"

# ---- --check and --set ------------------------------------------------------
job 'inputs: [data/a.folded]
filters:
  - plugin: lua
    script: f.lua
outputs: [{plugin: folded, path: never.folded}]'
printf 'function frame(f) return f.name:upper() end\n' > f.lua
run "$FLAMEKIT" run --check job.yaml
is "$rc:$out:$err:$(ls | grep -c never)" "0::flamekit: job.yaml: the job is valid:0" "--check validates and writes nothing"
printf 'function frame(f) return f.name:upper( end\n' > f.lua
run "$FLAMEKIT" run --check job.yaml
is "$rc:$err" "2:flamekit: [filter:lua] f.lua:1: unexpected symbol near 'end'" "--check compiles the scripts: a syntax error is a validation error (exit 2)"

job 'inputs: [data/a.folded]
outputs:
  - plugin: folded
    path: x.folded'
run "$FLAMEKIT" run --set outputs.0.path=- --set inputs.1=data/b.folded job.yaml
is "$rc:$(echo "$out" | tail -1)" "0:other;work 1" "--set replaces a value and appends a list item"
run "$FLAMEKIT" run -s 'filters.0.plugin=grep' --set filters.0.options.exclude=lex --set outputs.0.path=- job.yaml
is "$rc:$out" "0:main;parse 2
main;render 3" "--set creates mappings and lists"
run "$FLAMEKIT" run --set outputs.3.path=x job.yaml
is "$rc:$err" "2:flamekit: --set outputs.3.path: index 3 is past the end of 'outputs' (it has 1 items)" "--set index past the end"
run "$FLAMEKIT" run --set outputs.x=1 job.yaml
is "$rc:$err" "2:flamekit: --set outputs.x: 'outputs' is a list, indexed by numbers from 0, not 'x'" "--set a name on a list"
run "$FLAMEKIT" run --set outputs.0.path.x=1 job.yaml
is "$rc:$err" "2:flamekit: --set outputs.0.path.x: 'outputs.0.path' is a single value, it has no 'x'" "--set below a value"
run "$FLAMEKIT" run --set outputs job.yaml
is "$rc:$err" "2:flamekit: --set outputs: give KEY=VALUE, e.g. outputs.0.options.title=Foo" "--set without ="
run "$FLAMEKIT" run --set outputs.0.options.bogus=1 job.yaml
is "$rc:$err" "2:flamekit: --set outputs.0.options.bogus: the output plugin \"folded\" has no option 'bogus' (it has: (none))" \
	"errors in --set values name the key"
run "$FLAMEKIT" run --bogus job.yaml
is "$rc:$(echo "$err" | head -1)" "2:flamekit: run: unknown option '--bogus'" "unknown run option"
run "$FLAMEKIT" run job.yaml job.yaml
is "$rc:$(echo "$err" | head -1)" "2:flamekit: run: one job file at a time (got 'job.yaml' and 'job.yaml')" "two job files"

# ---- errors: FILE:LINE:COL: message ---------------------------------------------
err_is() { # TEXT EXPECTED NAME
	printf '%s\n' "$1" > bad.yaml
	run "$FLAMEKIT" run bad.yaml
	is "$rc:$err" "$2" "$3"
}
err_is 'inputs: [data/a.folded]
outputs: [{plugin: folded, path: "-"}]
colour: red' "2:flamekit: bad.yaml:3:1: unknown key 'colour' in a job (allowed: inputs, diff, filters, outputs, output-dir, threads)" "unknown top-level key"
err_is 'inputs:
  - path: data/a.folded
    fromat: folded
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:3:5: unknown key 'fromat' in an input (allowed: path, format, series, demangle, options)" "unknown input key"
err_is 'inputs: [data/a.folded]
filters:
  - plugin: grep
    option: {}
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:4:5: unknown key 'option' in a filter (allowed: plugin, options, include, exclude, ignore-case)" "unknown filter key"
err_is 'inputs: [data/a.folded]
filters:
  - plugin: lua
    script: f.lua
    arg: {}
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:5:5: unknown key 'arg' in a filter (allowed: plugin, options, script, args, memory-limit, instruction-limit, time-limit)" "unknown lua filter key"
err_is 'inputs: [data/a.folded]
filters:
  - plugin: grep
    options: {exclude: x, invert: true}
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:4:27: the filter plugin \"grep\" has no option 'invert' (it has: include, exclude, ignore-case)" \
	"unknown plugin option lists the plugin's options"
err_is 'inputs: [data/a.folded]
outputs: [{plugin: folded, path: "-", title: x}]' "2:flamekit: bad.yaml:2:39: unknown key 'title' in an output (allowed: plugin, path, options)" "unknown output key"
err_is 'inputs: [data/a.folded]
filters:
  - plugin: lua
    script: f.lua
    options: {instruction-limit: lots}
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:5:34: option 'instruction-limit' takes a whole number, not \"lots\"" "wrong option type"
err_is 'inputs: [data/a.folded]
filters:
  - plugin: grep
    options: {exclude: [a, b]}
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:4:24: option 'exclude' takes a single value, not a list" "option given a list"
err_is 'inputs: data/a.folded
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:9: inputs must be a list, not \"data/a.folded\"" "inputs not a list"
err_is 'inputs: []
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:9: the input list is empty" "empty inputs"
err_is 'outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:1: the job has no inputs" "no inputs"
err_is 'inputs: [data/a.folded]' "2:flamekit: bad.yaml:1:1: the job has no outputs" "no outputs"
err_is '' "2:flamekit: bad.yaml: the job is empty (it needs inputs and outputs)" "empty job"
err_is '- a
- b' "2:flamekit: bad.yaml:1:1: a job must be a mapping, not a list" "job not a mapping"
err_is 'inputs: [data/missing.folded]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:10: cannot read \"data/missing.folded\": No such file or directory" "missing input file"
err_is 'inputs: ["data/*.nothing"]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:10: no file matches \"data/*.nothing\"" "glob without a match"
err_is 'inputs: [data/a.folded]
filters: [{plugin: lua, script: nowhere.lua}]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: [filter:lua] bad.yaml:2:11: cannot read \"nowhere.lua\": No such file or directory" "missing script"
err_is 'inputs: [data/a.folded]
filters: [{plugin: lua}]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: [filter:lua] bad.yaml:2:11: the lua filter needs a script (script: FILE.lua)" "lua without a script"
err_is 'inputs: [{path: data/a.folded, format: perfect}]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:40: unknown input plugin \"perfect\" (available: $(printf '%s' "$("$FLAMEKIT" plugins | awk '$1 == "input" { printf "%s%s", sep, $2; sep = ", " }')"))" "unknown input format"
err_is 'inputs: [data/a.folded]
filters: [{plugin: sed}]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:2:20: unknown filter plugin \"sed\" (available: demangle, grep, lua, narrow, strip-hex)" "unknown filter plugin"
err_is 'inputs: [data/a.folded]
outputs: [{plugin: png, path: "-"}]' "2:flamekit: bad.yaml:2:20: unknown output plugin \"png\" (available: $("$FLAMEKIT" plugins | awk '$1 == "output" { printf "%s%s", sep, $2; sep = ", " }'))" "unknown output plugin"
err_is 'inputs: [{path: data/a.folded, series: after}]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:40: series must be baseline, current, on-cpu, off-cpu, 0 or 1, not \"after\"" "bad series"
err_is 'inputs: [{path: data/a.folded, options: {nosuch: 1}}]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:42: no input plugin has an option 'nosuch' (see flamekit plugins --help NAME)" \
	"auto format: an option no input plugin has"
err_is 'inputs: [data/a.folded]
outputs: [{plugin: folded, path: "nodir/x.folded"}]' "2:flamekit: bad.yaml:2:34: cannot write \"nodir/x.folded\": the directory \"nodir\" does not exist" "output directory missing"
err_is 'inputs: [data/a.folded]
outputs: [{plugin: folded, path: x}, {plugin: folded, path: x}]' "2:flamekit: bad.yaml:2:61: two outputs write \"x\"" "two outputs, one path"
err_is 'inputs: [data/a.folded]
outputs: [{plugin: folded}]' "2:flamekit: bad.yaml:2:11: an output needs a path (\"-\" for stdout)" "output without a path"
err_is 'inputs: [data/a.folded]
threads: many
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:2:10: threads must be a number from 1 to 256, not \"many\"" "bad threads"

# YAML itself
err_is 'inputs: [data/a.folded]
inputs: [data/b.folded]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:2:1: duplicate key 'inputs' (first given at line 1, column 1)" "duplicate keys are refused"
err_is 'inputs: [{path: data/a.folded, path: data/b.folded}]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:32: duplicate key 'path' (first given at line 1, column 11)" "duplicate keys in a flow mapping"
err_is 'inputs: &in [data/a.folded]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:9: anchors (&in) are not allowed in a job file" "anchors are refused"
err_is 'x: &a 1
inputs: *a
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:4: anchors (&a) are not allowed in a job file" "anchored scalars are refused"
err_is 'inputs: !!seq [data/a.folded]
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:1:9: YAML tags (tag:yaml.org,2002:seq) are not allowed in a job file" "tags are refused"
err_is 'inputs: [data/a.folded
outputs: [{plugin: folded, path: "-"}]' "2:flamekit: bad.yaml:2:8: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence" "syntax error"
err_is 'inputs: [data/a.folded]
outputs: [{plugin: folded, path: "-"}]
---
inputs: []' "2:flamekit: bad.yaml:3:1: a job file holds one YAML document only" "one document"
err_is '? [a, b]
: 1' "2:flamekit: bad.yaml:1:3: a key must be plain text, not a list" "non-scalar keys"

# nesting: 64 levels are fine for the reader, 65 are not
deep=$(awk 'BEGIN { for (i = 0; i < 64; i++) printf "["; for (i = 0; i < 64; i++) printf "]" }')
err_is "x: $deep" "2:flamekit: bad.yaml:1:67: nesting deeper than 64 levels" "nesting deeper than 64 is refused"
deep=$(awk 'BEGIN { for (i = 0; i < 63; i++) printf "["; for (i = 0; i < 63; i++) printf "]" }')
err_is "x: $deep" "2:flamekit: bad.yaml:1:1: unknown key 'x' in a job (allowed: inputs, diff, filters, outputs, output-dir, threads)" \
	"64 levels of nesting are read"

# billion laughs: fails at the first anchor, at once, whatever its size
{
	echo 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
	for i in b c d e f g h i j; do
		p=$(printf '%s' abcdefghij | sed "s/$i.*//" | tail -c 1)
		echo "$i: &$i [*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p]"
	done
} > laughs.yaml
run "$FLAMEKIT" run laughs.yaml
is "$rc:$err" "2:flamekit: laughs.yaml:1:4: anchors (&a) are not allowed in a job file" "billion laughs fails fast"

# ---- all or nothing -------------------------------------------------------------
echo "old a" > keep-a.folded
echo "old b" > keep-b.folded
echo 'not a profile' > bad.txt
job 'inputs: [data/a.folded, bad.txt]
outputs:
  - {plugin: folded, path: keep-a.folded}
  - {plugin: folded, path: keep-b.folded}
  - {plugin: folded, path: new.folded}'
is "$rc:$err" "1:flamekit: bad.txt: cannot tell the input format (tried: $("$FLAMEKIT" plugins | awk '$1 == "input" { printf "%s%s", s, $2; s = ", " }')); give one with --format NAME" \
	"a failing input fails the job"
is "$(cat keep-a.folded):$(cat keep-b.folded):$(ls | grep -c 'new.folded\|\.tmp\.')" "old a:old b:0" \
	"a failing job writes no output and leaves the old files untouched"

job 'inputs: [data/a.folded]
outputs:
  - {plugin: folded, path: keep-a.folded}
  - {plugin: folded, path: /proc/fk-unwritable.folded}
  - {plugin: folded, path: new.folded}'
case "$rc:$err" in
"1:flamekit: /proc/fk-unwritable.folded: cannot create output file: "*) r=0 ;;
*) r=1 ;;
esac
ok $r "one unwritable output fails the job"
is "$(cat keep-a.folded):$(ls | grep -c 'new.folded\|\.tmp\.')" "old a:0" "and no output is written at all"

job 'inputs: [data/a.folded]
outputs:
  - {plugin: folded, path: keep-a.folded}
  - {plugin: folded, path: new.folded}'
is "$rc:$(head -1 keep-a.folded):$(head -1 new.folded)" "0:main;parse 2:main;parse 2" "a succeeding job writes every output"

# ---- the example jobs ---------------------------------------------------------------
have() { "$FLAMEKIT" plugins | awk -v n="$1" '$1 == "output" && $2 == n { f = 1 } END { exit !f }'; }
run "$FLAMEKIT" run "$C/folded.yaml" --set output-dir="$TMP"
is "$rc:$(cat app.folded.out)" "0:app;main;parse_config;read_file;__libc_read;ksys_read_[k];vfs_read_[k] 12
app;main;parse_config;yaml_parse;yaml_scan 18
app;main;serve;accept_[k] 8
app;main;serve;handle_request;parse_request+0x1a 25
app;main;serve;handle_request;render;fib;add 30
app;main;serve;handle_request;render;template_expand 22
app;main;serve;handle_request;send_response;__libc_write;ksys_write_[k] 15" "conf/folded.yaml"
for j in example svg icicle flamechart differential hotcold; do
	need=$(awk '/plugin: (svg|icicle|flamechart|hotcold)/ { print $NF }' "$C/$j.yaml" | sort -u)
	missing=
	for p in $need; do have "$p" || missing="$missing $p"; done
	if [ -n "$missing" ]; then
		skip "conf/$j.yaml runs" "no output plugin$missing"
		continue
	fi
	run "$FLAMEKIT" run "$C/$j.yaml" --set output-dir="$TMP"
	ok $([ "$rc" -eq 0 ] && [ -z "$err" ]; echo $?) "conf/$j.yaml runs"
done
# the quick start's job and the real hot/cold pair
if have svg && "$FLAMEKIT" plugins | grep -q '^input   perf '; then
	run "$FLAMEKIT" run "$C/demo.yaml" --set output-dir="$TMP"
	is "$rc:$err:$(wc -l < demo.folded):$(grep -c '^demo;start_thread;renderer;render_frame;draw_shapes' demo.folded)" "0::12:3" \
		"conf/demo.yaml: the shipped perf capture to demo.svg and demo.folded"
	ok $(xmllint --noout demo.svg 2>/dev/null && grep -q '<title>draw_shapes (' demo.svg; echo $?) "conf/demo.yaml: demo.svg is well-formed and draws draw_shapes"
	run "$FLAMEKIT" run "$C/hotcold-perf.yaml" --set output-dir="$TMP"
	ok $([ "$rc" -eq 0 ] && xmllint --noout blocking-hotcold.svg 2>/dev/null &&
		grep -q '<title>doze (' blocking-hotcold.svg && grep -q '<title>listen_pipe (' blocking-hotcold.svg &&
		grep -q '<title>crunch_block (' blocking-hotcold.svg; echo $?) \
		"conf/hotcold-perf.yaml: on-CPU crunch and off-CPU doze, listen_pipe in one graph"
else
	skip "conf/demo.yaml and conf/hotcold-perf.yaml" "no svg output or perf input"
fi
if have svg; then
	mkdir cwd && cd cwd && FLAMEKIT_DATADIR="$FK_SRCDIR" run "$FLAMEKIT" run
	is "$rc:$(ls)" "0:example.folded
example.svg" "flamekit run with no job runs conf/example.yaml into the current directory"
	cd "$TMP" || exit 1
else
	skip "flamekit run with no job" "no svg output plugin"
fi
run env FLAMEKIT_DATADIR="$TMP/nowhere" "$FLAMEKIT" run
is "$rc:$err" "1:flamekit: $TMP/nowhere/conf/example.yaml: cannot open: No such file or directory" \
	"no job and no example job"
run env FLAMEKIT_DATADIR="$FK_SRCDIR" "$FLAMEKIT" run --check --set outputs.0.plugin=folded
is "$rc:$err" "0:flamekit: $FK_SRCDIR/conf/example.yaml: the job is valid" "--check on the example job"

# the real perf capture through Lua filters that read sample metadata
if "$FLAMEKIT" plugins | awk '$1 == "input" && $2 == "perf" { f = 1 } END { exit !f }'; then
	run "$FLAMEKIT" run "$C/perf.yaml" --set output-dir="$TMP"
	is "$rc:$err:$(wc -l < demo.folded):$(cut -d';' -f1,2 demo.folded | sort | uniq -c | sed 's/^ *//')" \
		"0::12:12 demo;demo" "conf/perf.yaml: per-thread roots from perf's comm, idle dropped"
else
	skip "conf/perf.yaml" "no perf input plugin"
fi

# ---- hostile job files ----------------------------------------------------------
# Each must end with its exact message and status, never a crash or a hang.
printf 'function frame(f) end\n' > ok.lua
printf '\211PNG\r\n\032\n\000\000\000\rIHDR\377\376\001\002' > bin.yaml
run "$FLAMEKIT" run bin.yaml
is "$rc:$err" "2:flamekit: bin.yaml:1:1: YAML syntax error: invalid leading UTF-8 octet" "binary garbage"
printf 'inputs: [data/a.folded]\noutputs: [{plugin: folded, path: "\377\376"}]\n' > utf8.yaml
run "$FLAMEKIT" run utf8.yaml
is "$rc:$err" "2:flamekit: utf8.yaml:2:35: YAML syntax error: invalid leading UTF-8 octet" \
	"invalid UTF-8 is reported at its line and column"
printf 'inputs: [data/a.folded]\n\000outputs: [{plugin: folded, path: "-"}]\n' > nul.yaml
run "$FLAMEKIT" run nul.yaml
is "$rc:$err" "2:flamekit: nul.yaml:2:1: YAML syntax error: control characters are not allowed" "a NUL byte"

# 10 MB in one scalar: read, then quoted back cut to 60 characters
awk 'BEGIN { printf "inputs: [data/a.folded]\noutputs: [{plugin: folded, path: \"-\"}]\nthreads: "
	for (i = 0; i < 10 * 1024 * 1024 / 64; i++) printf "%s", "1234567890123456789012345678901234567890123456789012345678901234"
	print "" }' > big.yaml
run "$FLAMEKIT" run big.yaml
is "$rc:$err" "2:flamekit: big.yaml:3:10: threads must be a number from 1 to 256, not \"123456789012345678901234567890123456789012345678901234567890...\"" \
	"a 10 MB scalar"
run "$FLAMEKIT" run /dev/zero
is "$rc:$err" "2:flamekit: /dev/zero: larger than 64 MiB, too large for a job file" "an endless job file is cut at 64 MiB"
printf 'inputs: [data/a.folded]\nfilters: [{plugin: lua, script: /dev/zero}]\noutputs: [{plugin: folded, path: "-"}]\n' > zero.yaml
run "$FLAMEKIT" run --check zero.yaml
is "$rc:$err" "1:flamekit: [filter:lua] zero.yaml:2:11: cannot read the script /dev/zero: File too large" \
	"an endless Lua script is cut at 16 MiB"
if "$FLAMEKIT" plugins | awk '$1 == "output" && $2 == "svg" { f = 1 } END { exit !f }'; then
	printf 'inputs: [data/a.folded]\noutputs: [{plugin: svg, path: "-", options: {nameattr: /dev/zero}}]\n' > zero.yaml
	run "$FLAMEKIT" run zero.yaml
	is "$rc:$out:$err" "1::flamekit: [output:svg] cannot read /dev/zero: larger than 64 MiB" \
		"an endless svg nameattr file is cut at 64 MiB"
else
	skip "an endless svg nameattr file" "no svg output plugin"
fi

# 100,000 list items: 100,000 inputs, and a Lua args list as long
awk 'BEGIN { print "inputs:"; for (i = 0; i < 100000; i++) print "  - data/a.folded"
	print "outputs: [{plugin: folded, path: \"-\"}]" }' > items.yaml
run "$FLAMEKIT" run --check items.yaml
is "$rc:$err" "0:flamekit: items.yaml: the job is valid" "100,000 inputs"
awk 'BEGIN { print "inputs: [data/a.folded]\nfilters:\n  - plugin: lua\n    script: ok.lua\n    args:\n      l:"
	for (i = 0; i < 100000; i++) print "        - " i
	print "outputs: [{plugin: folded, path: \"-\"}]" }' > items.yaml
run "$FLAMEKIT" run --check items.yaml
is "$rc:$err" "0:flamekit: items.yaml: the job is valid" "100,000 items in a Lua args list"

# 4,096 keys in one mapping are read, 4,097 are not
keys() { awk -v n="$1" 'BEGIN { print "inputs: [data/a.folded]\noutputs: [{plugin: folded, path: \"-\"}]\nx:"
	for (i = 0; i < n; i++) print "  k" i ": 1" }' > keys.yaml; }
keys 4096
run "$FLAMEKIT" run keys.yaml
is "$rc:$err" "2:flamekit: keys.yaml:3:1: unknown key 'x' in a job (allowed: inputs, diff, filters, outputs, output-dir, threads)" \
	"4,096 keys in a mapping are read"
keys 4097
run "$FLAMEKIT" run keys.yaml
is "$rc:$err" "2:flamekit: keys.yaml:4100:3: more than 4096 keys in one mapping" "4,097 keys are refused"

# deep nesting through --set: 64 key components, as in the file, not 65
printf 'inputs: [data/a.folded]\nfilters: [{plugin: lua, script: ok.lua}]\noutputs: [{plugin: folded, path: "-"}]\n' > set.yaml
k=filters.0.args
for i in $(seq 61); do k=$k.a; done
run "$FLAMEKIT" run --check --set "$k=1" set.yaml
is "$rc:$err" "0:flamekit: set.yaml: the job is valid" "--set with 64 key components"
run "$FLAMEKIT" run --check --set "$k.a=1" set.yaml
is "$rc:$err" "2:flamekit: --set filters.0.args.a.a.a.a.a.a.a.a.a.a.a.a.a...: the key has 65 components, more than 64" \
	"--set with 65 key components is refused"
k=$(awk 'BEGIN { printf "x"; for (i = 0; i < 50000; i++) printf ".a" }')
run "$FLAMEKIT" run --check --set "$k=1" set.yaml
is "$rc:$err" "2:flamekit: --set x.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a....: the key has 50001 components, more than 64" \
	"--set with 50,001 key components is refused"

# --set on a job that is not a mapping
printf 'hello\n' > root.yaml
run "$FLAMEKIT" run --set a.b=1 root.yaml
is "$rc:$err" "2:flamekit: --set a.b: the job is a single value, not a mapping" "--set on a job that is a single value"
printf -- '- data/a.folded\n' > root.yaml
run "$FLAMEKIT" run --set inputs=1 root.yaml
is "$rc:$err" "2:flamekit: --set inputs: the job is a list, not a mapping" "--set on a job that is a list"
printf '~\n' > root.yaml
run "$FLAMEKIT" run --set inputs.0=data/a.folded --set outputs.0.plugin=folded --set outputs.0.path=- root.yaml
is "$rc:$(echo "$out" | head -1)" "0:main;parse 2" "--set builds a whole job on a null document"

# tags, documents, emptiness
printf 'inputs: [!!python/object:os.system "echo pwned"]\noutputs: [{plugin: folded, path: "-"}]\n' > tag.yaml
run "$FLAMEKIT" run tag.yaml
is "$rc:$out:$err" "2::flamekit: tag.yaml:1:10: YAML tags (tag:yaml.org,2002:python/object:os.system) are not allowed in a job file" \
	"a !!python/object tag"
printf -- '--- !!python/object/apply:os.system\n- echo pwned\n' > tag.yaml
run "$FLAMEKIT" run tag.yaml
is "$rc:$out:$err" "2::flamekit: tag.yaml:1:5: YAML tags (tag:yaml.org,2002:python/object/apply:os.system) are not allowed in a job file" \
	"a tag on the document's root"
printf -- '---\ninputs: [data/a.folded]\noutputs: [{plugin: folded, path: "-"}]\n...\n---\ninputs: [data/b.folded]\n' > docs.yaml
run "$FLAMEKIT" run docs.yaml
is "$rc:$out:$err" "2::flamekit: docs.yaml:5:1: a job file holds one YAML document only" "two documents"
printf -- '---\ninputs: [data/a.folded]\noutputs: [{plugin: folded, path: "-"}]\n...\n' > docs.yaml
run "$FLAMEKIT" run docs.yaml
is "$rc:$out" "0:main;parse 2
main;parse;lex 5
main;render 3" "one document between --- and ... is fine"
: > empty.yaml
run "$FLAMEKIT" run empty.yaml
is "$rc:$err" "2:flamekit: empty.yaml: the job is empty (it needs inputs and outputs)" "an empty file"
printf '# nothing but a comment\n\n' > empty.yaml
run "$FLAMEKIT" run empty.yaml
is "$rc:$err" "2:flamekit: empty.yaml: the job is empty (it needs inputs and outputs)" "a file of comments"
mkdir dir.yaml
run "$FLAMEKIT" run dir.yaml
is "$rc:$err" "1:flamekit: dir.yaml: is a directory, not a job file" "a directory"

# a job that reads or writes itself
printf 'inputs: [{path: self.yaml, format: folded}]\noutputs: [{plugin: folded, path: "-"}]\n' > self.yaml
run "$FLAMEKIT" run self.yaml
is "$rc:$out:$err" "0::flamekit: warning: self.yaml: skipped 2 unreadable lines (lines 1, 2)" \
	"a job that names itself as its input reads itself as folded text"
printf 'inputs: [data/a.folded]\noutputs: [{plugin: folded, path: ../%s/self.yaml}]\n' "$(basename "$TMP")" > self.yaml
cp self.yaml self.orig
run "$FLAMEKIT" run self.yaml
is "$rc:$err" "2:flamekit: self.yaml:2:34: the output \"../$(basename "$TMP")/self.yaml\" would overwrite this job file" \
	"a job that would overwrite itself is refused"
ok $(cmp -s self.yaml self.orig; echo $?) "and the job file is untouched"

# paths with .. and newlines: escaped in messages, so they cannot fake a line
printf 'inputs: ["../../data/a\\n.folded"]\noutputs: [{plugin: folded, path: "-"}]\n' > nl.yaml
run "$FLAMEKIT" run nl.yaml
is "$rc:$err" "2:flamekit: nl.yaml:1:10: cannot read \"../../data/a\\n.folded\": No such file or directory" \
	"a newline in an input path"
printf 'inputs: [data/a.folded]\noutputs: [{plugin: folded, path: "../no\\nflamekit: fine\\t/x"}]\n' > nl.yaml
run "$FLAMEKIT" run nl.yaml
is "$rc:$err" "2:flamekit: nl.yaml:2:34: cannot write \"../no\\nflamekit: fine\\t/x\": the directory \"../no\\nflamekit: fine\\t\" does not exist" \
	"a newline and a tab in an output path"
mkdir -p sub/deeper
printf 'inputs: [../../data/a.folded]\noutputs: [{plugin: folded, path: ../../out..folded}]\n' > sub/deeper/dots.yaml
run "$FLAMEKIT" run sub/deeper/dots.yaml
is "$rc:$err:$(head -1 out..folded)" "0::main;parse 2" "paths with .. are relative to the job file"

# ---- option kinds: PATH resolved against the job file, VALUE trees -----------
# svg nameattr (a PATH option) named relative to the job file, run from
# elsewhere: resolved against the job file's directory, not the cwd.
mkdir -p pathjob
printf 'parse\ttitle=PARSE-TITLE\n' > pathjob/attrs.txt
printf 'inputs: [../data/a.folded]\noutputs: [{plugin: svg, path: out.svg, options: {nameattr: attrs.txt}}]\n' \
	> pathjob/svg.yaml
run "$FLAMEKIT" run pathjob/svg.yaml
is "$rc:$err:$(grep -c PARSE-TITLE pathjob/out.svg 2>/dev/null)" "0::1" \
	"a PATH option (svg nameattr) is relative to the job file's directory"
# on the command line, a PATH option is relative to the current directory
run "$FLAMEKIT" graph --nameattr pathjob/attrs.txt data/a.folded
is "$rc:$(printf '%s' "$out" | grep -c PARSE-TITLE)" "0:1" "on the command line, relative to the cwd"

# args as a structured value: numbers, booleans, null, quoted text, nested
# mappings and lists reach the script as Lua values (the engine builds a
# generic tree; the lua plugin makes the tables).
cat > types.lua <<'LUA'
local function show(v)
	if type(v) ~= "table" then return type(v) .. "=" .. tostring(v) end
	local keys = {}
	for k in pairs(v) do keys[#keys + 1] = tostring(k) end
	table.sort(keys)
	local out = {}
	for _, k in ipairs(keys) do out[#out + 1] = k .. ":" .. show(v[tonumber(k) or k]) end
	return "{" .. table.concat(out, ",") .. "}"
end
local text = show(args)
function frame(f) if f.name == "main" then return text end end
LUA
job 'inputs: [data/a.folded]
filters:
  - plugin: lua
    script: types.lua
    args: {n: 12, f: -1.5e3, t: true, s: "12", z: ~, l: [a, 2, [x]], m: {k: v}}
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$(printf '%s\n' "$out" | head -1 | cut -d';' -f1)" \
	"0:{f:number=-1500.0,l:{1:string=a,2:number=2,3:{1:string=x}},m:{k:string=v},n:number=12,s:string=12,t:boolean=true}" \
	"args: a YAML mapping becomes Lua values (null leaves the key out)"
job 'inputs: [data/a.folded]
filters: [{plugin: lua, script: types.lua, args: "{n = 1, s = [[x]]}"}]
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$(printf '%s\n' "$out" | head -1 | cut -d';' -f1)" "0:{n:number=1,s:string=x}" \
	"args: a text is still a Lua table constructor"
job 'inputs: [data/a.folded]
filters: [{plugin: lua, script: types.lua, args: [1, 2]}]
outputs: [{plugin: folded, path: "-"}]' --check
is "$rc:$err" "2:flamekit: [filter:lua] job.yaml:2:11: args must be a mapping (or Lua table text), not a list" \
	"args: a list is refused by the plugin's check, before any input"
job 'inputs: [data/a.folded]
filters: [{plugin: lua, script: types.lua, args: {n: 1}}]
outputs: [{plugin: folded, path: "-"}]' --set filters.0.args.s=hi
is "$rc:$(printf '%s\n' "$out" | head -1 | cut -d';' -f1)" "0:{n:number=1,s:string=hi}" \
	"--set adds a key to args"

# Warnings carry the plugin's prefix under run as under collapse, a Lua
# filter running in between or not.
cp "$FK_SRCDIR/tests/data/perf/events.txt" "$FK_SRCDIR/tests/data/instruments/units.txt" .
"$FLAMEKIT" collapse --format perf events.txt 2> collapse.err > /dev/null
printf 'function sample(s) return true end\n' > pass.lua
job 'inputs: [{path: events.txt, format: perf}]
filters: [{plugin: lua, script: pass.lua}]
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$err" "0:$(cat collapse.err)" "run with a Lua filter: the [input:perf] warning as collapse prints it"

# Inputs in different units: one warning naming the inputs and their units.
job 'inputs: [units.txt, events.txt, data/a.folded]
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$(echo "$err" | tail -1)" "0:flamekit: warning: the inputs' weights are in different units and are added as they are: units.txt (ms), events.txt (events)" \
	"mixed units: one warning, naming each input and its unit"
job 'inputs: [events.txt, events.txt]
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$(echo "$err" | grep -c 'different units')" "0:0" "one unit: no warning"

# graph --help lists every graph option with its default.
run "$FLAMEKIT" graph --help
for opt in "--title=TEXT" "--width=N" "--minwidth=TEXT" "--colors=TEXT" "--hash" "--countname=TEXT" "--flamechart" "--negate"; do
	echo "$out" | grep -q -- "^  $opt " || echo "missing $opt"
done > missing.txt
is "$rc:$(cat missing.txt):$(echo "$out" | grep -c '^  --width=N .*\[default: 1200\]$')" "0::1" \
	"graph --help lists the graph options with their defaults"
"$FLAMEKIT" plugins --help svg | sed -n '/^options:/,$p' | tail -n +2 > svg.opts
echo "$out" | sed -n '/^Graph options/,$p' | tail -n +3 > graph.opts
same_file svg.opts graph.opts "graph --help: every option of plugins --help svg"

# ---- a job file cannot run a program ------------------------------------------------
# perf-data's `perf` option names the program it runs: only the command line
# (--perf, --set) and FLAMEKIT_PERF may set it.  evil.sh and a `script` file
# (what `perf: /bin/sh` would run, as `sh script -i x.data`) would each leave
# a marker file behind.
cp "$FK_SRCDIR/tests/data/perf-data/three-seconds.data" x.data
printf '#!/bin/sh\ntouch "%s/marker"\n' "$TMP" > evil.sh
cp evil.sh script
cp evil.sh perf
chmod +x evil.sh perf
REFUSED="a job file cannot set 'perf' of the input plugin \"perf-data\", which names a program to run: it belongs on the command line (--perf, or flamekit run --set) or in the environment that flamekit plugins --help perf-data names"
# col: the column of "perf" in the job's one line, counted by awk
col() { awk -v k="$1" 'NR == 1 { print index($0, k) }' job.yaml; }
job 'inputs: [{path: x.data, format: perf-data, options: {perf: ./evil.sh}}]
outputs: [{plugin: folded, path: "-"}]' --check
is "$rc:$err:$([ -e marker ]; echo $?)" "2:flamekit: job.yaml:1:$(col 'perf: ./evil'): $REFUSED:1" \
	"run --check: a job setting perf is refused at the key, nothing run"
job 'inputs: [{path: x.data, format: perf-data, options: {perf: ./evil.sh}}]
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$out:$err:$([ -e marker ]; echo $?)" "2::flamekit: job.yaml:1:$(col 'perf: ./evil'): $REFUSED:1" \
	"run: the same, nothing run"
job 'inputs: [{path: x.data, options: {perf: /bin/sh}}]
outputs: [{plugin: folded, path: "-"}]'
is "$rc:$out:$err:$([ -e marker ]; echo $?)" "2::flamekit: job.yaml:1:$(col 'perf: /bin'): $REFUSED:1" \
	"perf: /bin/sh with a file named script, format auto-detected: refused, nothing run"
job 'inputs:
  - path: x.data
    format: perf-data
    options:
      perf: /bin/sh
outputs: [{plugin: folded, path: "-"}]' --check
is "$rc:$err:$([ -e marker ]; echo $?)" "2:flamekit: job.yaml:5:7: $REFUSED:1" "block style: job.yaml:5:7"

# where the setting belongs: --set, --perf, FLAMEKIT_PERF
job 'inputs: [{path: x.data, format: perf-data}]
outputs: [{plugin: folded, path: "-"}]' --threads 1 --set inputs.0.options.perf=./evil.sh
is "$rc:$([ -e marker ]; echo $?)" "0:0" "flamekit run --set inputs.0.options.perf=PROG runs PROG: the command line's choice"
rm -f marker
run env FLAMEKIT_PERF="$TMP/evil.sh" "$FLAMEKIT" run --threads 1 job.yaml
is "$rc:$([ -e marker ]; echo $?)" "0:0" "FLAMEKIT_PERF names the perf program"
rm -f marker
run "$FLAMEKIT" collapse --threads 1 --perf ./evil.sh x.data
is "$rc:$([ -e marker ]; echo $?)" "0:0" "collapse --perf PROG runs PROG"
rm -f marker

# PATH's relative entries are not searched for perf: a job's directory
# (here the current one) holding a `perf` cannot take its place.
for p in ".:/nonexistent" ":/nonexistent" "/nonexistent:" "bin:/nonexistent"; do
	mkdir -p bin && cp perf bin/perf
	run env PATH="$p" "$FLAMEKIT" run --threads 1 --set inputs.0.options.via-perf-script=true job.yaml
	is "$rc:$out:$err:$([ -e marker ]; echo $?)" "2::flamekit: [input:perf-data] x.data: cannot run perf: it is not in PATH; install it (Debian's package is linux-perf) or give its path with --perf PATH or FLAMEKIT_PERF=PATH:1" \
		"PATH=$p: the perf of a relative entry is never run"
done

# ... nor by perf: it runs with PATH's absolute entries only
printf '#!/bin/sh\necho "$PATH" > "%s/perf-path"\n' "$TMP" > pathperf
chmod +x pathperf
run env PATH=".:/usr/bin::bin:/bin:" "$FLAMEKIT" collapse --threads 1 --perf ./pathperf x.data
is "$rc:$(cat perf-path)" "0:/usr/bin:/bin" "perf runs with PATH's relative and empty entries taken out"

done_testing
