#!/bin/sh
# The manual pages: each is lint-clean (mandoc -T lint, groff -ww), each is
# installed (listed in man/local.mk), and every option that the command and
# its plugins print in --help is documented in one of them.
. "$FK_SRCDIR/tests/lib.sh"
not_sanitized "the manual pages" "mandoc and groff"
M="$FK_SRCDIR/man"

pages=
for p in "$M"/*.[1-8]; do
	[ -f "$p" ] && pages="$pages $p"
done

for p in $pages; do
	n=${p##*/}
	if command -v mandoc > /dev/null 2>&1; then
		# -W style: every message but the base-system ones mandoc cannot check
		is "$(mandoc -T lint -W style "$p" 2>&1 | grep -v -e 'referenced manual not found' -e 'mandoc.db')" "" \
			"$n: mandoc -T lint is silent"
	else
		skip "$n: mandoc -T lint" "mandoc is not installed"
	fi
	if command -v groff > /dev/null 2>&1; then
		is "$(groff -mandoc -ww -z "$p" 2>&1)" "" "$n: groff -mandoc -ww -z is silent"
	else
		skip "$n: groff -ww" "groff is not installed"
	fi
	grep -q "man/$n\\( \\|\$\\)" "$M/local.mk"
	ok $? "$n is installed by make install (man/local.mk)"
done

# Cross-references.  The lint above lets through a reference it cannot
# resolve (the base system's pages are not in its database), so: every .Xr to
# a flamekit page names a page of man/, and flamekit(1)'s SEE ALSO names every
# other page, so that `man flamekit` leads to all of them.
bad=
for p in $pages; do
	for x in $(grep -oE 'Xr flamekit[a-z-]* [1-8]' "$p" | sed 's/^Xr //; s/ /./' | sort -u); do
		[ -f "$M/$x" ] || bad="$bad ${p##*/}:$x"
	done
done
is "$bad" "" "every .Xr to a flamekit page names a page of man/"
missing=
for p in $pages; do
	n=${p##*/}
	[ "$n" = flamekit.1 ] && continue
	sed -n '/^\.Sh SEE ALSO/,/^\.Sh /p' "$M/flamekit.1" |
		grep -qE "^\.Xr ${n%.*} ${n##*.}( |\$)" || missing="$missing $n"
done
is "$missing" "" "flamekit.1's SEE ALSO names every other page"

# documented OPTION: the option appears as a flag (.Fl -NAME) or a job key
# (.Cm NAME) in some page.
documented() {
	cat $pages | grep -qE "(Fl -$1|Cm $1)( |\$)"
}

# literal NAME PAGE START: the literal block after the line START of PAGE,
# unescaped (\e is a backslash, a leading \& protects a line).
literal() {
	awk -v start="$2" '
		$0 == start { f = 1; next }
		f && /^\.Bd/ { g = 1; next }
		g && /^\.Ed/ { exit }
		g' "$M/$1" | sed 's/\\e/\\/g; s/^\\&//'
}

# The plugin example of flamekit-plugin(3) builds against the header alone,
# and prints what the page says it prints.
mkdir "$TMP/tab"
literal flamekit-plugin.3 '.Pa tabstack.c :' > "$TMP/tab/tabstack.c"
${CC:-cc} -std=c99 -Wall -Wextra -Werror -I"$FK_SRCDIR/include" -shared -fPIC \
	-fvisibility=hidden -o "$TMP/tab/input-tabstack.so" "$TMP/tab/tabstack.c" 2> "$TMP/cc.err"
is "$?:$(cat "$TMP/cc.err")" "0:" "flamekit-plugin.3: tabstack.c compiles with -std=c99 -Wall -Wextra"
literal flamekit-plugin.3 'Build, install and use it:' > "$TMP/session"
(
	cd "$TMP/tab" || exit 1
	printf '3\tmain\tparse\n2\tmain\trender\nbogus\n' > in.txt
	# each command's standard output, then its standard error, as the page shows
	"$FLAMEKIT" collapse --plugin-dir . --format tabstack --root=app in.txt > o 2> e
	cat o e
	"$FLAMEKIT" collapse --plugin-dir . --format tabstack --min=x in.txt > o 2> e
	cat o e
) > "$TMP/actual"
sed -n '/^\$ flamekit collapse/,/^\$ /{/^\$ /d;p}' "$TMP/session" > "$TMP/expected"
sed -n '/--min=x/,$p' "$TMP/session" | sed 1d >> "$TMP/expected"
same_file "$TMP/expected" "$TMP/actual" "flamekit-plugin.3: the tabstack session prints what the page shows"

# The Lua example of flamekit-lua(7) runs.
mkdir -p "$TMP/lua/examples/profiles"
cp "$FK_SRCDIR/examples/profiles/demo.perf.txt.gz" "$TMP/lua/examples/profiles/"
literal flamekit-lua.7 'Rename, drop and colour frames, and keep only the stacks through one' > "$TMP/lua/mine.lua"
literal flamekit-lua.7 'Run it on the demo profile, from the source tree:' |
	sed "s|^flamekit |\"\$FLAMEKIT\" |" > "$TMP/lua/run.sh"
(cd "$TMP/lua" && sh run.sh) > "$TMP/out" 2> "$TMP/err"
is "$?:$(cat "$TMP/err"):$(grep -cv ';render_frame' "$TMP/out")" "0::0" \
	"flamekit-lua.7: the example keeps only stacks through args.func"

# The EXAMPLES of flamekit(1), flamekit-graph(1) and flamekit-formats(5) that
# read the files the source tree ships (conf/, examples/) run, each with exit
# status 0.
mkdir "$TMP/ex"
cp -R "$FK_SRCDIR/conf" "$FK_SRCDIR/lua" "$FK_SRCDIR/examples" "$TMP/ex/"
for page in flamekit.1 flamekit-graph.1 flamekit-formats.5; do
	sed -n '/^\.Sh EXAMPLES/,/^\.Sh /p' "$M/$page" |
		awk '/^\.Bd/ { g = 1; next } /^\.Ed/ { g = 0 } g' |
		sed 's/\\e$/\\/' | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
		grep -E '^flamekit .*(conf|examples)/' > "$TMP/ex/cmds"
	n=0
	while read -r cmd; do
		n=$((n + 1))
		(cd "$TMP/ex" && eval "\"\$FLAMEKIT\" ${cmd#flamekit }" > out 2> err)
		# run --check says so on stderr; nothing else may be printed there
		is "$?:$(grep -v ': the job is valid$' "$TMP/ex/err")" "0:" "$page: example: $cmd"
	done < "$TMP/ex/cmds"
	[ "$n" -gt 0 ]
	ok $? "$page: its examples were found"
done

# The palette names the pages give (f:colour in flamekit-lua(7), --colors in
# flamekit-graph(1)) are exactly those the renderers accept: the lists the
# svg and html plugins print for an unknown --colors.
printf 'main 1\n' > "$TMP/pal.folded"
svg_pal=$("$FLAMEKIT" graph --colors=nosuch "$TMP/pal.folded" 2>&1 |
	sed -n 's/.*(--colors: \(.*\))$/\1/p' | tr ' ' '\n' | sort)
html_pal=$("$FLAMEKIT" graph --output-plugin html --colors=nosuch "$TMP/pal.folded" 2>&1 |
	sed -n 's/.*for --colors (\(.*\))$/\1/p' | sed 's/, /\n/g' | sort)
lua_pal=$(sed -n '/^\.It Fn f:colour/,/^\.It /p' "$M/flamekit-lua.7" | sed -n '/^palettes:$/,/^[^.]/p' |
	sed -n 's/^\.Cm //p' | tr -d ',.' | tr -s ' ' '\n' | sed '/^$/d' | sort)
graph_pal=$(sed -n '/^\.It Fl -colors/,/^An unknown name/p' "$M/flamekit-graph.1" |
	sed -n 's/^\.Cm //p' | sed 's/ (.*//' | tr -d ',.' | tr -s ' ' '\n' | sed '/^$/d' | sort)
is "$(echo $svg_pal | wc -w):$(echo $html_pal)" "17:$(echo $svg_pal)" "the svg and html plugins accept the same 17 palettes"
is "$(echo $lua_pal)" "$(echo $svg_pal)" "flamekit-lua.7: f:colour's palette names are those the renderers accept"
is "$(echo $graph_pal)" "$(echo $svg_pal)" "flamekit-graph.1: --colors' palette names are those the renderers accept"

# Every command's options, as its --help prints them.
for c in collapse graph diff merge run plugins; do
	missing=
	for o in $("$FLAMEKIT" "$c" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		documented "${o#--}" || missing="$missing $o"
	done
	is "$missing" "" "flamekit $c: every option of --help is in a man page"
done

# Every option of the command's table (cli/options.c, read here from the
# source: each row is "{ OPT_ID, \"name\", ..."), for each command its row
# names: listed by that command's --help and documented in a man page.  A
# row added without a help line or a page fails here.
cmdbits() { # the commands of a row's mask, e.g. "IN CMD_DIFF" (IN: collapse and graph)
	for w in "$@"; do
		case $w in
		ALL) echo collapse graph diff merge run plugins completion ;;
		IN) echo collapse graph ;;
		CMD_*) echo "$w" | sed 's/^CMD_//' | tr A-Z a-z ;;
		esac
	done
}
sed -n 's/^\t{ OPT_[A-Z_]*, "\([a-z][a-z0-9-]*\)", [^,]*, [^,]*, [^,]*, [^,]*, \([A-Z_ |]*\),.*/\1 \2/p' \
	"$FK_SRCDIR/cli/options.c" | tr '|' ' ' > "$TMP/table"
n=$(wc -l < "$TMP/table")
ok $([ "$n" -gt 15 ]; echo $?) "the option table read from cli/options.c has its rows ($n)"
missing=
while read -r name mask; do
	documented "$name" || missing="$missing --$name(page)"
	# shellcheck disable=SC2086
	for c in $(cmdbits $mask); do
		h=$("$FLAMEKIT" help "$c" 2> /dev/null)
		printf '%s\n' "$h" | grep -qE -- "--$name( |=|\[|\$)" || missing="$missing --$name($c --help)"
	done
done < "$TMP/table"
is "$missing" "" "every option of the table is in its commands' --help and in a man page"

# Every loaded plugin's options, as flamekit plugins --help KIND:NAME prints them.
"$FLAMEKIT" plugins 2>/dev/null | awk 'NR > 1 { print $1 ":" $2 }' > "$TMP/plugins"
while read -r kn; do
	missing=
	for o in $("$FLAMEKIT" plugins --help "$kn" 2>/dev/null | sed -n 's/^  --\([a-z][a-z0-9-]*\).*/\1/p'); do
		documented "$o" || missing="$missing --$o"
	done
	is "$missing" "" "plugin $kn: every option is in a man page"
done < "$TMP/plugins"

done_testing
