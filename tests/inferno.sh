#!/bin/sh
# inferno's spellings (inferno-flamegraph, inferno-collapse-perf) with
# inferno's meanings: each alias draws what the option it stands for draws,
# the options that ask for flamekit's behaviour change nothing, and the rust
# and python palettes colour each frame as inferno's palettes.rs classifies
# it (re-implemented below in awk, the oracle).
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/folded"

# same_graph NAME ARGS... -- ARGS...: both command lines give the same bytes.
same_graph() {
	name=$1
	shift
	a=
	while [ "$1" != -- ]; do a="$a $1"; shift; done
	shift
	# shellcheck disable=SC2086
	"$FLAMEKIT" graph $a "$D/basic.txt" > "$TMP/a.svg" 2> "$TMP/a.err"
	ra=$?
	"$FLAMEKIT" graph "$@" "$D/basic.txt" > "$TMP/b.svg" 2> "$TMP/b.err"
	rb=$?
	is "$ra:$rb:$(cat "$TMP/a.err" "$TMP/b.err"):$(cmp -s "$TMP/a.svg" "$TMP/b.svg"; echo $?)" "0:0::0" "$name"
}
same_graph "-i is --inverted" -i -- --inverted
same_graph "-c java is --colors java" -c java -- --colors java
same_graph "-i -c mem together" -i -c mem -- --inverted --colors mem
same_graph "--search-color #123456 is --searchcolor" --search-color '#123456' -- --searchcolor '#123456'
same_graph "--deterministic: flamekit's colours already are" --deterministic --
same_graph "--truncate-text-right: flamekit's truncation already is" --truncate-text-right --
same_graph "--no-sort: the same graph" --no-sort --
same_graph "--pretty-xml: the same graph (an element a line already)" --pretty-xml --
ok $(cmp -s "$TMP/a.svg" "$TMP/b.svg" && ! "$FLAMEKIT" graph -i "$D/basic.txt" | cmp -s - "$TMP/b.svg"; echo $?) \
	"-i changes the graph (the comparisons above can fail)"

# --colordiffusion: inferno's colour_scale of the square root of each frame's
# share of the total (awk over the folded counts: each frame's total is the
# sum of the lines it starts).
"$FLAMEKIT" graph --colordiffusion "$D/basic.txt" |
	sed -n 's/.*<title>\(.*\) ([0-9,]* samples\{0,1\}, [0-9.]*%)<\/title><rect[^>]*fill="\(rgb([0-9,]*)\)".*/\1 \2/p' |
	LC_ALL=C sort > "$TMP/diffusion.actual"
awk '{ n = $NF; k = split($1, f, ";"); all += n; p = ""
	for (i = 1; i <= k; i++) { p = p (i > 1 ? ";" : "") f[i]; w[p] += n; leaf[p] = f[i] } }
	END { w["all"] = all; leaf["all"] = "all"
		for (p in w) { v = int(sqrt(w[p] / all) * 2000); c = 100 + int(150 * (2000 - v) / 2000) % 256
			print leaf[p], (v <= 0 ? "rgb(250,250,250)" : "rgb(255," c "," c ")") } }' "$D/basic.txt" |
	LC_ALL=C sort > "$TMP/diffusion.expected"
same_file "$TMP/diffusion.expected" "$TMP/diffusion.actual" "--colordiffusion: inferno's colours by width (awk)"
"$FLAMEKIT" graph "$D/basic.txt" > "$TMP/plain.svg"
"$FLAMEKIT" graph --stroke-color '#112233' --uicolor 'rgb(1,2,3)' "$D/basic.txt" > "$TMP/ui.svg"
is "$(diff "$TMP/plain.svg" "$TMP/ui.svg" | grep '^[<>]')" "> 	#frames rect { stroke:#112233; stroke-width:1; }
> 	#title, #details, #unzoom, #search, #ignorecase, #matched { fill:rgb(1,2,3); }" \
	"--stroke-color outlines every frame, --uicolor colours the UI text: two style rules, nothing else"
is "$("$FLAMEKIT" graph --stroke-color none "$D/basic.txt" | cmp -s - "$TMP/plain.svg"; echo $?)" 0 \
	"--stroke-color none: the default, no outline"
run "$FLAMEKIT" graph --stroke-color 'red;}*{x' "$D/basic.txt"
is "$rc:$out:$err" "2::flamekit: [output:svg] --stroke-color takes #rrggbb, rgb(r,g,b) or none, not \"red;}*{x\"" \
	"--stroke-color: only a colour reaches the style sheet"
run "$FLAMEKIT" graph --uicolor '#12345' "$D/basic.txt"
is "$rc:$err" "2:flamekit: [output:svg] --uicolor takes #rrggbb or rgb(r,g,b), not \"#12345\"" "--uicolor: a colour"
"$FLAMEKIT" graph --no-javascript "$D/basic.txt" > "$TMP/nojs.svg"
is "$(grep -c 'function ' "$TMP/nojs.svg"):$(grep -c '<rect' "$TMP/nojs.svg")" "0:$(grep -c '<rect' "$TMP/plain.svg")" \
	"--no-javascript: no script, the same frames"
if command -v "${PYTHON3:-python3}" > /dev/null 2>&1; then
	"${PYTHON3:-python3}" -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$TMP/nojs.svg"
	ok $? "--no-javascript: well-formed XML"
else
	skip "--no-javascript: well-formed XML" "python3 is missing"
fi

# The truncation is flamegraph.pl's, on the right: a long name in a narrow
# frame keeps its start and ends in "..".
printf 'main;a_very_long_function_name_that_does_not_fit 1\nmain;b 30\n' > "$TMP/long.folded"
"$FLAMEKIT" graph --truncate-text-right "$TMP/long.folded" > "$TMP/long.svg"
ok $(grep -q '>a_v[a-z_]*\.\.</text>' "$TMP/long.svg"; echo $?) "--truncate-text-right: the name keeps its start, ends in .."

run "$FLAMEKIT" collapse --format folded -n 2 "$D/basic.txt"
one=$out
run "$FLAMEKIT" collapse --format folded --nthreads=2 "$D/basic.txt"
is "$rc:$err:$out" "0::$one" "collapse --nthreads=2 is -n 2"
run "$FLAMEKIT" collapse --format folded --threads=0 "$D/basic.txt"
run "$FLAMEKIT" collapse --format folded --nthreads 0 "$D/basic.txt"
is "$rc:$err" "2:flamekit: --threads takes a number from 1 to 256, not \"0\"
Try 'flamekit help' for more information." "--nthreads is --threads: its range and message"
run "$FLAMEKIT" diff -n "$D/basic.txt" "$D/basic.txt"
is "$rc:$(echo "$out" | head -1)" "0:main 0 0" "diff -n stays --normalize"

# The palettes.  frames SVG: "NAME<TAB>CLASS" for every frame, CLASS read
# from its fill (flamegraph.pl's formulas: orange has no blue, aqua's green
# and blue are equal and above red, red's green and blue equal and below
# red, yellow's red and green equal).
frames() {
	sed -n 's/.*<title>\(.*\) ([0-9,]* samples\{0,1\}, [0-9.]*%)<\/title><rect[^>]*fill="rgb(\([0-9]*\),\([0-9]*\),\([0-9]*\))".*/\1\t\2 \3 \4/p' "$1" |
		sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&apos;/'"'"'/g; s/&#39;/'"'"'/g; s/&amp;/\&/g' |
		awk -F'\t' '{ split($2, c, " "); r = c[1]; g = c[2]; b = c[3]
			cls = b == 0 ? "orange" : (g == b && g > r) ? "aqua" : (g == b && r > g) ? "red" : r == g ? "yellow" : "?"
			print $1 "\t" cls }' | sort
}
# inferno's palettes.rs, rust::resolve and python::resolve, in awk.
oracle() {
	tr ';' '\n' < "$2" | sed 's/ [0-9]*$//' | sort -u | awk -v pal="$1" '
		function rust(n,   i) {
			i = index(n, "`"); if (i) n = substr(n, i + 1)
			if (n ~ /^(core|std|alloc)::/ || n ~ /^<(std|alloc)::/ ||
			    (n ~ /^<core::/ && index(n, "<core::future::from_generator::GenFuture<T>") != 1)) return "orange"
			return index(n, "::") ? "aqua" : "yellow"
		}
		function python(n,   parts, k, i) {
			k = split(n, parts, /[\/\\]/)
			for (i = 1; i <= k; i++) if (parts[i] == "site-packages") return "aqua"
			for (i = 1; i <= k; i++) if (parts[i] ~ /^[pP]ython[0-9.]*$/) return "yellow"
			if (n ~ /^<(built-in|method|frozen)/) return "yellow"
			return "red"
		}
		{ print $0 "\t" (pal == "rust" ? rust($0) : python($0)) }' | sort
}
cat > "$TMP/rust.folded" << 'EOF2'
main;core::fmt::write;alloc::raw_vec::finish_grow 3
main;myapp::run;std::io::stdio::_print 2
main;libc.so.6`__memcpy_avx_unaligned 1
main;myapp`myapp::go;<alloc::vec::Vec<T> as core::ops::Drop>::drop 1
main;<core::future::from_generator::GenFuture<T> as core::future::future::Future>::poll;tokio::runtime::park 4
main;<std::thread::Thread>::unpark;<core::iter::Map<I,F>>::next 2
main;__libc_start_main;_start 5
EOF2
"$FLAMEKIT" graph --colors rust "$TMP/rust.folded" > "$TMP/rust.svg"
frames "$TMP/rust.svg" | grep -v -e '^all	' -e '^main	' > "$TMP/rust.actual"
oracle rust "$TMP/rust.folded" | grep -v '^main	' > "$TMP/rust.expected"
ok $([ "$(wc -l < "$TMP/rust.expected")" -eq 13 ]; echo $?) "rust: 13 distinct frames to classify"
same_file "$TMP/rust.expected" "$TMP/rust.actual" "--colors rust: each frame in inferno's rust class"

cat > "$TMP/python.folded" << 'EOF2'
<module> (/usr/lib/python3.11/runpy.py:86);main (app.py:3);handle (/srv/venv/lib/python3.11/site-packages/flask/app.py:10) 4
<module> (/usr/lib/python3.11/runpy.py:86);main (app.py:3);<built-in method time.sleep> 2
<module> (/usr/lib/python3.11/runpy.py:86);<frozen importlib._bootstrap>;load (C:\Python311\Lib\os.py:5) 1
<module> (/usr/lib/python3.11/runpy.py:86);main (app.py:3);<method 'join' of 'str' objects> 1
<module> (/usr/lib/python3.11/runpy.py:86);work (/home/u/python3x/tool.py:7) 1
EOF2
"$FLAMEKIT" graph --colors python "$TMP/python.folded" > "$TMP/python.svg"
frames "$TMP/python.svg" | grep -v '^all	' > "$TMP/python.actual"
oracle python "$TMP/python.folded" > "$TMP/python.expected"
ok $([ "$(wc -l < "$TMP/python.expected")" -eq 8 ]; echo $?) "python: 8 distinct frames to classify"
same_file "$TMP/python.expected" "$TMP/python.actual" "--colors python: each frame in inferno's python class"

# The html report's page colours the same way: its palette() run by node on
# the same names.
if command -v node > /dev/null 2>&1; then
	awk '/^function drand/ { f = 1 } f { print } f && /^function palette/ { p = 1 } p && /^}$/ { exit }' \
		"$FK_SRCDIR/plugins/output/html/page.html" > "$TMP/palette.js"
	cat >> "$TMP/palette.js" << 'EOF2'
var D = {}, fs = require("fs"), pal = process.argv[2];
fs.readFileSync(process.argv[3], "utf8").split("\n").filter(function (n) { return n; }).forEach(function (n) {
	var m = /rgb\((\d+),(\d+),(\d+)\)/.exec(palette(n, pal)), r = +m[1], g = +m[2], b = +m[3];
	var cls = b === 0 ? "orange" : (g === b && g > r) ? "aqua" : (g === b && r > g) ? "red" : r === g ? "yellow" : "?";
	console.log(n + "\t" + cls);
});
EOF2
	for pal in rust python; do
		cut -f1 "$TMP/$pal.expected" > "$TMP/$pal.names"
		node "$TMP/palette.js" "$pal" "$TMP/$pal.names" 2>&1 | sort > "$TMP/$pal.page"
		same_file "$TMP/$pal.expected" "$TMP/$pal.page" "the html page's $pal palette: each frame in inferno's class"
	done
else
	skip "the html page's rust and python palettes" "node is not installed"
fi

done_testing
