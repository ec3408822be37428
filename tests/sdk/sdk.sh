#!/bin/sh
# The installed plugin SDK, proven from the outside: stage `make install`,
# check that the SDK's header, .pc file and man pages are there, build
# examples/plugin-bpftrace against the staged header with pkg-config alone,
# load it into the staged flamekit and check its output byte for byte.  Then
# ABI compatibility: a plugin built against the frozen 1.0 header loads, one
# claiming another major is refused.
. "$FK_SRCDIR/tests/lib.sh"
EX="$FK_SRCDIR/examples/plugin-bpftrace"

if ! command -v pkg-config > /dev/null 2>&1 || ! command -v make > /dev/null 2>&1; then
	skip_all "installed SDK" "pkg-config or make is missing"
fi

# --- 1. the staged install -------------------------------------------------
STAGE="$TMP/stage"
stage_install "$STAGE"

pc=$(find "$STAGE" -name flamekit-plugin.pc | head -1)
ok $([ -n "$pc" ]; echo $?) "flamekit-plugin.pc is installed"
PCDIR=$(dirname "$pc")
# Without a sysroot the .pc file gives the real (configured) paths.
plugindir=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --variable=plugindir flamekit-plugin)
includedir=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --variable=includedir flamekit-plugin)
ok $([ -f "$STAGE$plugindir/input-folded.so" ] && [ -f "$STAGE$plugindir/output-folded.so" ]; echo $?) \
	"plugindir in the .pc file is where make install put the plugins ($plugindir)"
same_file "$FK_SRCDIR/include/flamekit/plugin.h" "$STAGE$includedir/flamekit/plugin.h" \
	"the installed header is include/flamekit/plugin.h"
is "$(ls "$STAGE$includedir/flamekit")" "plugin.h" "plugin.h is the only SDK header"
is "$(PKG_CONFIG_PATH="$PCDIR" pkg-config --cflags flamekit-plugin | sed 's/ *$//')" "-I$includedir" \
	"pkg-config --cflags gives the include directory"
is "$(PKG_CONFIG_PATH="$PCDIR" pkg-config --libs flamekit-plugin | sed 's/ *$//')" "" \
	"pkg-config --libs is empty: a plugin links nothing of flamekit"
for page in flamekit-plugin.3 flamekit-host.3; do
	ok $([ -n "$(find "$STAGE" -path "*/man3/$page" | head -1)" ]; echo $?) \
		"the SDK's page $page is installed in man3"
done
FK=$(find "$STAGE" -type f -path "*/bin/flamekit" | head -1)
ok $([ -x "$FK" ]; echo $?) "the flamekit command is installed"

# From here on, only the stage is used: its flamekit, its plugins, its SDK.
export PKG_CONFIG_PATH="$PCDIR" PKG_CONFIG_SYSROOT_DIR="$STAGE"
STAGED_PLUGINS="$STAGE$plugindir"

# --- 2. the out-of-tree example plugin --------------------------------------
# Built in a copy, as a third party would (the source tree may be read-only).
cp -R "$EX" "$TMP/ex" && chmod -R u+w "$TMP/ex"
rm -f "$TMP/ex/input-bpftrace-example.so" "$TMP/ex/check.out"
submake -C "$TMP/ex" CFLAGS="-O2 -g -Werror" > "$TMP/build.log" 2>&1
ok $? "the example builds against the staged SDK with -Wall -Wextra -Werror"
[ -f "$TMP/ex/input-bpftrace-example.so" ] || sed 's/^/# /' "$TMP/build.log" | tail -20
ok $(grep -q -- "-I$STAGE$includedir" "$TMP/build.log"; echo $?) "it compiled with the staged include directory"
if command -v nm > /dev/null 2>&1; then
	is "$(nm -D --defined-only "$TMP/ex/input-bpftrace-example.so" | awk '$2 == "T" { print $3 }')" \
		"flamekit_plugin_init" "it exports one function, flamekit_plugin_init"
	is "$(nm -D --undefined-only "$TMP/ex/input-bpftrace-example.so" | grep -c -e ' fk_' -e ' flamekit')" "0" \
		"it needs no engine symbol"
else
	skip "exports" "no nm"
	skip "imports" "no nm"
fi

submake -C "$TMP/ex" install > "$TMP/inst.log" 2>&1
ok $([ $? -eq 0 ] && [ -f "$STAGED_PLUGINS/input-bpftrace-example.so" ]; echo $?) \
	"make install puts it into pkg-config's plugindir"

export FLAMEKIT_PLUGIN_PATH="$STAGED_PLUGINS"
run "$FK" collapse --format bpftrace-example "$EX/sample.bpftrace.txt"
printf '%s\n' "$out" > "$TMP/got.folded"
is "$rc:$err" "0:" "collapse --format bpftrace-example succeeds quietly"
same_file "$EX/sample.expected.folded" "$TMP/got.folded" "folded output equals sample.expected.folded"

# Its probe, alone: the in-tree bpftrace plugin (score 90) would win
# detection beside it, so only it and the folded output are loaded.
mkdir "$TMP/exonly"
cp "$STAGED_PLUGINS/input-bpftrace-example.so" "$STAGED_PLUGINS/output-folded.so" "$TMP/exonly/"
FLAMEKIT_PLUGIN_PATH="$TMP/exonly" run "$FK" collapse "$EX/sample.bpftrace.txt"
printf '%s\n' "$out" > "$TMP/got2.folded"
same_file "$EX/sample.expected.folded" "$TMP/got2.folded" "the format is auto-detected by the example's probe"

# the example is built against the staged headers: the ABI flamekit speaks
cur_abi=$("$FK" --version | sed -n 's/.*(plugin ABI \([0-9.]*\)).*/\1/p')
run "$FK" plugins
line=$(printf '%-7s %-12s %-8s %-5s %-44s %s' input bpftrace-example 1.0 "$cur_abi" \
	"bpftrace @[kstack, ustack, comm] stack maps" "$STAGED_PLUGINS/input-bpftrace-example.so")
ok $([ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -qxF "$line"; echo $?) \
	"flamekit plugins lists it with version, ABI and path"
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -qxF "$line" || printf '%s\n' "$out" | sed 's/^/# /'

run "$FK" plugins --help bpftrace-example
is "$rc:$out" "0:input plugin \"bpftrace-example\" 1.0 (ABI $cur_abi)
  bpftrace @[kstack, ustack, comm] stack maps
  loaded from $STAGED_PLUGINS/input-bpftrace-example.so

options:
  --annotate-kernel        flag     mark the frames of the first of several stacks (kstack) with _[k] [default: false]
  --separator=TEXT         string   frame to put between kstack and ustack (e.g. '-'); none by default" \
	"plugins --help bpftrace-example prints its option table"

# Every form of record, and both options.
cat > "$TMP/forms.txt" <<'EOF'
Attaching 1 probe...

@[, sshd]: 4
@[
	schedule+45
	do_nanosleep+112
, 
	clock_nanosleep+91
	main+38
, , sleep]: 7
@[, 
	read+10
	main+38
, sleep]: 2
@start[1234]: 99
@stacks[
        schedule+45
]: 5
EOF
run "$FK" collapse --format bpftrace-example "$TMP/forms.txt"
is "$rc:$out:$err" "0:schedule+45 5
sleep;main+38;clock_nanosleep+91;do_nanosleep+112;schedule+45 7
sleep;main+38;read+10 2
sshd 4:flamekit: warning: $TMP/forms.txt: skipped 1 unreadable line (line 15)" \
	"every record form; another map's line is skipped and counted"
run "$FK" collapse --format bpftrace-example --annotate-kernel --separator=- "$TMP/forms.txt"
is "$rc:$out" "0:schedule+45 5
sleep;main+38;clock_nanosleep+91;-;do_nanosleep+112_[k];schedule+45_[k] 7
sleep;main+38;read+10 2
sshd 4" "--annotate-kernel and --separator=-"

head -7 "$EX/sample.bpftrace.txt" > "$TMP/cut.txt"
run "$FK" collapse --format bpftrace-example "$TMP/cut.txt"
is "$rc:$out:$err" "1::flamekit: $TMP/cut.txt:3: this record has no closing ']: COUNT' line (is the file truncated?)" \
	"a truncated record is an error naming the line of its @["

# --- 3. ABI compatibility ----------------------------------------------------
abi=$("$FK" --version | sed -n 's/.*(plugin ABI \([0-9.]*\)).*/\1/p')
ok $([ -n "$abi" ]; echo $?) "flamekit --version gives its plugin ABI ($abi)"
is "$(sed -n 's/^#define FK_ABI_\(M[AI][JN]OR\) \([0-9]*\)$/\1=\2/p' \
	"$FK_SRCDIR/tests/sdk/abi-1.0/flamekit/plugin.h" | tr '\n' ' ')" "MAJOR=1 MINOR=0 " \
	"the frozen header is ABI 1.0"

mkdir "$TMP/old"
cp "$FK_BUILDDIR/tests/sdk/.libs/abi10.so" "$TMP/old/"
printf 'main/parse/lex\nmain/render\nmain/parse/lex\n' > "$TMP/abi10.txt"
FLAMEKIT_PLUGIN_PATH="$TMP/old:$STAGED_PLUGINS" run "$FK" collapse --format abi10 --root=old "$TMP/abi10.txt"
is "$rc:$out:$err" "0:old;main;parse;lex 2
old;main;render 1:" "a plugin built against the ABI 1.0 header loads and works (flamekit speaks $abi)"
# ABI 1.9's demangle default: a 1.0 plugin has none, so its mangled names
# stay as it pushes them unless asked (what c++filt makes of them)
printf 'main/_Z3foov\n' > "$TMP/abi10m.txt"
FLAMEKIT_PLUGIN_PATH="$TMP/old:$STAGED_PLUGINS" run "$FK" collapse --format abi10 "$TMP/abi10m.txt"
is "$rc:$out:$err" "0:main;_Z3foov 1:" "a 1.0 plugin's names are not demangled by default"
if command -v c++filt > /dev/null 2>&1; then
	FLAMEKIT_PLUGIN_PATH="$TMP/old:$STAGED_PLUGINS" run "$FK" collapse --format abi10 --demangle "$TMP/abi10m.txt"
	is "$rc:$out:$err" "0:main;$(echo _Z3foov | c++filt) 1:" "--demangle demangles them (as c++filt)"
else
	skip "a 1.0 plugin's names with --demangle" "no c++filt"
fi
FLAMEKIT_PLUGIN_PATH="$TMP/old:$STAGED_PLUGINS" run "$FK" plugins --help abi10
ok $(printf '%s\n' "$out" | grep -q 'demangled by default'; [ $? -ne 0 ]; echo $?) \
	"plugins --help abi10 claims no demangling default"
FLAMEKIT_PLUGIN_PATH="$TMP/old" run "$FK" plugins
ok $(printf '%s\n' "$out" | grep -qE "^input +abi10 +1\.0 +1\.0 +built against the ABI 1\.0 header +$TMP/old/abi10\.so$"; echo $?) \
	"flamekit plugins shows it as ABI 1.0"

mkdir "$TMP/new"
cp "$FK_BUILDDIR/tests/modules/.libs/wrongabi.so" "$TMP/new/"
FLAMEKIT_PLUGIN_PATH="$TMP/new:$STAGED_PLUGINS" run "$FK" collapse --format bpftrace-example "$EX/sample.bpftrace.txt"
printf '%s\n' "$out" > "$TMP/got3.folded"
is "$rc:$err" "0:flamekit: warning: $TMP/new/wrongabi.so: plugin refused: built for plugin ABI 99.3, but this flamekit speaks ABI $abi; rebuild the plugin against this flamekit's <flamekit/plugin.h> (pkg-config --cflags flamekit-plugin)" \
	"a plugin of another major is refused: file, both versions, the fix"
same_file "$EX/sample.expected.folded" "$TMP/got3.folded" "the other plugins still work beside it"

done_testing
