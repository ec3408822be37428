#!/bin/sh
# The svg, icicle and flamechart outputs through `flamekit graph`: the
# flamegraph.pl conformance corpus (compare-svg --fill, --meta for the layout
# set), well-formed XML for every graph, hostile names, determinism.
. "$FK_SRCDIR/tests/lib.sh"

D="$FK_SRCDIR/tests/data/svg"
C="$FK_CONFORMANCE"
XMLLINT=$(command -v xmllint || true)

# xml_ok FILE NAME: xmllint --noout passes (skipped without xmllint).
xml_ok() {
	if [ -z "$XMLLINT" ]; then
		skip "$2" "xmllint not installed (Debian: libxml2-utils)"
		return
	fi
	"$XMLLINT" --noout "$1" 2> "$TMP/xmllint.err"
	r=$?
	ok $r "$2"
	[ $r -eq 0 ] || sed 's/^/# /' "$TMP/xmllint.err" | head -5
}

# compare EXPECTED ACTUAL NAME [compare-svg options]
compare() {
	exp=$1 act=$2 name=$3
	shift 3
	if "$C/tools/compare-svg" --fill "$@" "$exp" "$act" > "$TMP/cmp.out" 2>&1; then
		ok 0 "$name"
	else
		ok 1 "$name"
		sed 's/^/# /' "$TMP/cmp.out" | head -20
	fi
}

# ---- conformance: the 44 cases and the 4 differential graphs --------------
if [ -n "$C" ] && [ -f "$C/svg/cases.tsv" ] && [ -n "$PYTHON3" ] && [ "$PYTHON3" != no ]; then
	tab=$(printf '\t')
	while IFS="$tab" read -r input slug opts; do
		case $input in '#'*|'') continue ;; esac
		base=$(basename "$input" .txt)
		meta=
		[ "$slug" = layout ] && meta=--meta
		out="$TMP/$base--$slug.svg"
		# shellcheck disable=SC2086 # options are split as the oracle's were
		(cd "$C/svg" && "$FLAMEKIT" graph $opts "$input") > "$out" 2> "$TMP/err"
		ok $? "graph $slug $base exits 0"
		compare "$C/svg/expected/$base--$slug.svg" "$out" "graph $slug $base matches flamegraph.pl" $meta
		xml_ok "$out" "graph $slug $base is well-formed XML"
	done < "$C/svg/cases.tsv"
	for d in diff diff-n; do
		"$FLAMEKIT" graph "$C/svg/diff/$d.txt" > "$TMP/$d.svg"
		compare "$C/svg/diff/$d--default.svg" "$TMP/$d.svg" "differential $d matches flamegraph.pl"
		"$FLAMEKIT" graph --negate "$C/svg/diff/$d.txt" > "$TMP/$d-neg.svg"
		compare "$C/svg/diff/$d--negate.svg" "$TMP/$d-neg.svg" "differential $d --negate matches flamegraph.pl"
		xml_ok "$TMP/$d.svg" "differential $d is well-formed XML"
	done
	# The icicle output is svg --inverted.
	"$FLAMEKIT" graph --output-plugin icicle "$C/svg/inputs/annotated.txt" > "$TMP/icicle.svg"
	compare "$C/svg/expected/annotated--inverted.svg" "$TMP/icicle.svg" "icicle output = --inverted" --meta
	# --title=T and --title T are the same option.
	"$FLAMEKIT" graph --width 800 --height 12 --fontsize 10 --title T --subtitle S --countname ms \
		--nametype Fn: "$C/svg/inputs/annotated.txt" > "$TMP/spaced.svg"
	compare "$C/svg/expected/annotated--layout.svg" "$TMP/spaced.svg" "options take '--name value' too" --meta
else
	skip "flamegraph.pl conformance" "no conformance corpus (configure --with-conformance) or python3"
fi

# ---- exact output on a small profile ---------------------------------------
"$FLAMEKIT" graph "$D/small.txt" > "$TMP/small.svg"
frames=$(grep -o '<title>[^<]*</title><rect x="[^"]*" y="[^"]*" width="[^"]*"' "$TMP/small.svg" | sort)
is "$frames" '<title>a (6 samples, 30.00%)</title><rect x="10.0" y="53" width="354.0"
<title>all (20 samples, 100%)</title><rect x="10.0" y="85" width="1180.0"
<title>b (3 samples, 15.00%)</title><rect x="128.0" y="37" width="177.0"
<title>c (1 samples, 5.00%)</title><rect x="305.0" y="37" width="59.0"
<title>d (4 samples, 20.00%)</title><rect x="364.0" y="53" width="236.0"
<title>main (10 samples, 50.00%)</title><rect x="10.0" y="69" width="590.0"
<title>other (10 samples, 50.00%)</title><rect x="600.0" y="69" width="590.0"' \
	"small profile: frames, order (self before children), geometry"
xml_ok "$TMP/small.svg" "small profile is well-formed XML"

# --minwidth as a percentage of the total: 10% of 20 keeps frames >= 2.
"$FLAMEKIT" graph --minwidth=10% "$D/small.txt" > "$TMP/pct.svg"
is "$(grep -o '<title>[a-z]* ' "$TMP/pct.svg" | sort | tr -d '\n')" \
	'<title>a <title>all <title>b <title>d <title>main <title>other ' "--minwidth=10% drops c (5%)"

# Differential colours: by the frame's own change, or by its subtree's.
"$FLAMEKIT" graph "$D/diff.txt" > "$TMP/diff.svg"
is "$(grep -o '<title>a ([^<]*</title><rect[^>]*fill="[^"]*"' "$TMP/diff.svg" | sed 's/<rect.*fill=/ /')" \
	'<title>a (6 samples, 60.00%; 0.00%)</title> "rgb(255,255,255)"' "differential: a has no own change: white"
"$FLAMEKIT" graph --diff-subtree "$D/diff.txt" > "$TMP/diffs.svg"
is "$(grep -o '<title>a ([^<]*</title><rect[^>]*fill="[^"]*"' "$TMP/diffs.svg" | sed 's/<rect.*fill=/ /')" \
	'<title>a (6 samples, 60.00%; +20.00%)</title> "rgb(255,105,105)"' "--diff-subtree: a grew by 2 of maxdelta 4: red"
# Differential labels by contrast: white on a fill whose WCAG luminance is
# below 0.179 (saturated blue or red), black elsewhere (awk computes it).
printf 'm;shrank 40 1\nm;grew 1 40\nm;less 40 30\nm;same 20 20\n' > "$TMP/contrast.txt"
"$FLAMEKIT" graph "$TMP/contrast.txt" > "$TMP/contrast.svg"
awk '/<rect/ && /fill="rgb\(/ { split($0, a, /fill="rgb\(|\)"/); split(a[2], c, ","); L = 0
	for (i = 1; i <= 3; i++) { v = c[i] / 255; v = v <= 0.03928 ? v / 12.92 : exp(2.4 * log((v + 0.055) / 1.055)); L += (i == 1 ? 0.2126 : i == 2 ? 0.7152 : 0.0722) * v }
	want = L < 0.179 ? "white" : "black"; next_text = 1; next }
	next_text && /<text/ { print want, (/fill="#fff"/ ? "white" : "black"); next_text = 0 }' "$TMP/contrast.svg" > "$TMP/contrast.cmp"
is "$(awk '$1 != $2' "$TMP/contrast.cmp")$(grep -c white "$TMP/contrast.cmp")" "1" \
	"differential labels: white where it contrasts more (the frame shrunk most, in saturated blue), black elsewhere (red included)"

# ---- --cp: a palette map is read, kept and extended ---------------------------
printf 'main->rgb(1,2,3)\n' > "$TMP/pal.map"
"$FLAMEKIT" graph --cp --palette-file "$TMP/pal.map" "$D/small.txt" > "$TMP/cp.svg"
is "$(grep -o '<title>main [^<]*</title><rect[^>]*fill="[^"]*"' "$TMP/cp.svg" | sed 's/.*fill=//')" '"rgb(1,2,3)"' \
	"--cp: a colour from the palette map is used"
is "$(cat "$TMP/pal.map")" '->rgb(213,39,9)
a->rgb(236,146,35)
b->rgb(230,117,28)
c->rgb(224,87,20)
d->rgb(217,57,13)
main->rgb(1,2,3)
other->rgb(236,144,34)' "--cp: new names are added, sorted"
is "$(ls "$TMP" | grep -c 'pal\.map\.tmp'):$(umask 022; rm -f "$TMP/pal2.map"; "$FLAMEKIT" graph --cp \
	--palette-file "$TMP/pal2.map" "$D/small.txt" > /dev/null; stat -c %a "$TMP/pal2.map")" "0:644" \
	"--cp: the map is renamed into place from a unique temporary, with the umask's mode"

# ---- hotcold: on-CPU samples at 99 Hz and off-CPU us, in ms ------------------
"$FLAMEKIT" graph --output-plugin hotcold "$D/hotcold.txt" > "$TMP/hc.svg"
is "$(grep -o '<title>[^<]*</title><rect x="[^"]*" y="[^"]*" width="[^"]*" height="[^"]*" fill="[^"]*"' "$TMP/hc.svg" | sed 's/<rect x=/ /; s/ y="[^"]*" width=/ /; s/ height="[^"]*" fill=/ /')" \
'<title>all (167 ms, 100%)</title> "10.0" "1180.0" "rgb(213,39,9)"
<title>app (111 ms, 66.30%)</title> "10.0" "783.2" "rgb(239,160,38)"
<title>main (111 ms, 66.30%)</title> "10.0" "783.2" "rgb(243,179,42)"
<title>compute (101 ms, 60.33%)</title> "10.0" "712.0" "rgb(221,76,18)"
<title>read (10 ms, 5.97%)</title> "722.0" "71.2" "rgb(252,216,51)"
<title>db (30 ms, 17.92%)</title> "793.2" "213.5" "rgb(234,135,32)"
<title>query (30 ms, 17.92%)</title> "793.2" "213.5" "rgb(207,10,2)"
<title>app (25 ms, 14.93%)</title> "1006.7" "176.3" "rgb(121,121,239)"
<title>main (25 ms, 14.93%)</title> "1006.7" "176.3" "rgb(126,126,243)"
<title>read (5 ms, 2.99%)</title> "1006.7" "35.3" "rgb(136,136,252)"
<title>sleep (20 ms, 11.95%)</title> "1042.0" "141.0" "rgb(127,127,244)"
<title>db (1 ms, 0.60%)</title> "1183.0" "7.0" "rgb(115,115,234)"
<title>wait (1 ms, 0.60%)</title> "1183.0" "7.0" "rgb(122,122,240)"' "hotcold: on-CPU hot on the left, off-CPU blue on the right, in ms"
"$FLAMEKIT" graph --output-plugin hotcold --by-thread "$D/hotcold.txt" > "$TMP/hct.svg"
is "$(grep -o '<title>app[^<]*</title><rect x="[^"]*" y="[^"]*" width="[^"]*"' "$TMP/hct.svg")" \
	'<title>app (136 ms, 81.24%)</title><rect x="10.0" y="69" width="959.4"' "hotcold --by-thread: one frame per thread holding both"
xml_ok "$TMP/hct.svg" "hotcold is well-formed XML"

# ---- hostile names and option values -----------------------------------------
"$FLAMEKIT" graph --title '<script>alert(9)</script> & "t"' --subtitle ']]> -- <x>' \
	--notes 'a -- b <c> --' --nametype '"; alert(10); "' --countname '<b>' \
	--nameattr "$D/hostile.nameattr" "$D/hostile-names.txt" > "$TMP/hostile.svg"
ok $? "hostile names and options: exit 0"
xml_ok "$TMP/hostile.svg" "hostile names and options: well-formed XML"
is "$(grep -c '<script' "$TMP/hostile.svg")" 1 "hostile: the only <script> element is ours"
is "$(grep -v '^<svg ' "$TMP/hostile.svg" | grep -ciE ' on[a-z]+="|href="javascript')" 0 \
	"hostile: no javascript: link, no event handler attribute from names or nameattr"
is "$(grep -o '<title>&lt;/title[^<]*</title>' "$TMP/hostile.svg")" \
	'<title>&lt;/title&gt;&lt;g onload=&quot;alert(3)&quot;&gt; (8 &lt;b&gt;, 17.78%)</title>' \
	"hostile: a frame name closing the title is escaped"
is "$(grep -o 'var FK_NAMETYPE = [^;]*;' "$TMP/hostile.svg")" \
	'var FK_NAMETYPE = "\u0022\u003b alert\u002810\u0029\u003b \u0022";' "hostile: --nametype is a JS string"
is "$(grep -o '<title>[^<]*ctl[^<]*</title>' "$TMP/hostile.svg")" \
	"<title>$(printf '\357\277\275')ctl$(printf '\357\277\275')chars$(printf '\357\277\275') (4 &lt;b&gt;, 8.89%)</title>" \
	"hostile: control characters become U+FFFD"
is "$(grep -o '<title>bidi[^<]*</title>' "$TMP/hostile.svg")" \
	"<title>bidi$(printf '\357\277\275')evil$(printf '\357\277\275')x (5 &lt;b&gt;, 11.11%)</title>" \
	"hostile: bidi controls become U+FFFD"
"$FLAMEKIT" graph "$FK_SRCDIR/tests/data/folded/hostile.txt" > "$TMP/hostile2.svg"
xml_ok "$TMP/hostile2.svg" "tests/data/folded/hostile.txt: well-formed XML"

# ---- --nameattr: only inert attributes, each once, safe links ----------------
# Every refusal names the file, the line and the attribute; nothing is written.
# The expected tags are flamegraph.pl's group_start with these keys.
printf 'main;compute 10\nmain;read 5\n' > "$TMP/na.folded"
na_refused() { # na_refused LINE MESSAGE NAME
	printf '%b\n' "$1" > "$TMP/na.txt"
	rm -f "$TMP/na.svg"
	run "$FLAMEKIT" graph --nameattr "$TMP/na.txt" -o "$TMP/na.svg" "$TMP/na.folded"
	is "$rc:$(test -e "$TMP/na.svg" && echo written):$err" \
		"1::flamekit: [output:svg] $TMP/na.txt:1: $2" "nameattr refused: $3"
}
na_refused 'main\thref=https://x/\ta_extra=href="javascript:fkpwn(62)"' \
	'a_extra: link "javascript:fkpwn(62)" refused: only http, https, mailto and relative links are written' \
	"a second href (javascript:) in a_extra"
na_refused 'main\thref=https://x/\ta_extra=xlink:href="https://y/"' \
	'a_extra: xlink:href refused: the href key gives a frame its link, once' "a second xlink:href in a_extra"
na_refused 'main\thref=https://x/\ta_extra=target="_blank"' \
	'a_extra: attribute target given twice: an SVG element carries each attribute once' \
	"a_extra repeating the target (_top by default)"
na_refused 'main\tid=a\tg_extra=id="b"' \
	'g_extra: attribute id given twice: an SVG element carries each attribute once' "g_extra repeating the id"
na_refused 'main\thref=https://x/\thref=https://y/' 'key href given twice' "a key given twice"
na_refused 'main\thref=javascript:alert(5)' \
	'href: link "javascript:alert(5)" refused: only http, https, mailto and relative links are written' "javascript: href"
na_refused 'main\thref= \0001JaVa\0015Sc\0013ript:alert(5)' \
	'href: link " ?JaVa?Sc?ript:alert(5)" refused: only http, https, mailto and relative links are written' \
	"javascript: href, mixed case, spaces and controls inside"
na_refused 'main\thref=jav&#x09;ascript:alert(5)' \
	'href: link "jav&#x09;ascript:alert(5)" refused: only http, https, mailto and relative links are written' \
	"javascript: href hidden by a character reference"
na_refused 'main\thref=&#106;&#X61;vascript&colon;alert(5)' \
	'href: link "&#106;&#X61;vascript&colon;alert(5)" refused: only http, https, mailto and relative links are written' \
	"javascript: href spelt in references"
na_refused 'main\thref=&amp;#x6a;avascript:alert(5)' \
	'href: link "&amp;#x6a;avascript:alert(5)" refused: only http, https, mailto and relative links are written' \
	"javascript: href behind a reference to a reference"
na_refused 'main\thref=data:text/html,<script>alert(5)</script>' \
	'href: link "data:text/html,<script>alert(5)</script>" refused: only http, https, mailto and relative links are written' \
	"data: href"
na_refused 'main\thref=file:///etc/passwd' \
	'href: link "file:///etc/passwd" refused: only http, https, mailto and relative links are written' "file: href"
na_refused 'main\tg_extra=data-x="1" onclick="alert(6)"' \
	'g_extra: onclick refused: flamekit writes no event handler' "an event handler in g_extra"
na_refused 'main\thref=https://x/\ta_extra=ONMOUSEOVER="alert(7)"' \
	'a_extra: ONMOUSEOVER refused: flamekit writes no event handler' "an upper-case event handler in a_extra"
na_refused 'main\tg_extra=style="fill:url(javascript:x)"' \
	'g_extra: style refused: a style can load URLs; use class' "a style in g_extra"
na_refused 'main\tg_extra=filter="url(#x)"' \
	'g_extra: attribute filter refused: only id, class, target, rel, title, lang, xml:lang, role, tabindex, xlink:title, xlink:show, data-* and aria-* are written' \
	"an attribute outside the list"
na_refused 'main\tg_extra=foo:bar="1"' \
	'g_extra: attribute foo:bar refused: only id, class, target, rel, title, lang, xml:lang, role, tabindex, xlink:title, xlink:show, data-* and aria-* are written' \
	"an undeclared namespace prefix (ill-formed)"
na_refused 'main\tg_extra=data-x=1' 'g_extra: expected name="value" pairs, found "data-x=1"' "an unquoted value"
na_refused 'main\tonclick=alert(1)' \
	'unknown key onclick: the keys are title, href, target, id, class, g_extra and a_extra' "an unknown key"
# Accepted: the tags flamegraph.pl writes for the same keys, every value escaped.
printf 'main\thref=https://e.com/?a=1&b=2\ttarget=_blank\ta_extra=rel="noopener" xlink:title='"'"'t "q"'"'"'\tid=m\tclass=c\tg_extra=data-k="v" aria-label="<x>"\ttitle=T<1>\ncompute\thref=#frag\nread\tclass=r\tg_extra=xlink:show="new"\n' > "$TMP/na.txt"
run "$FLAMEKIT" graph --nameattr "$TMP/na.txt" -o "$TMP/na.svg" "$TMP/na.folded"
is "$rc:$err" "0:" "nameattr: a file of inert attributes is drawn"
is "$(sed -n '/^<g id="frames">/,$p' "$TMP/na.svg" | sed 1d | grep -E '^<[ag] |^<title>' | sed 's/<\/title>.*//; s/^<title>/  /')" '<g >
  all (15 samples, 100%)
<a xlink:href="https://e.com/?a=1&amp;b=2" target="_blank" rel="noopener" xlink:title="t &quot;q&quot;" id="m" class="c" data-k="v" aria-label="&lt;x&gt;">
  T&lt;1&gt;
<a xlink:href="#frag" target="_top">
  compute (10 samples, 66.67%)
<g class="r" xlink:show="new">
  read (5 samples, 33.33%)' "nameattr: flamegraph.pl's tags, the link first, each attribute once, escaped"
xml_ok "$TMP/na.svg" "nameattr: well-formed XML"
printf 'main\thref=mailto:a@b.c\ncompute\thref=/x/y.html\nread\thref=HTTP://e.com/\n' > "$TMP/na.txt"
"$FLAMEKIT" graph --nameattr "$TMP/na.txt" "$TMP/na.folded" > "$TMP/na.svg"
is "$(grep -o 'xlink:href="[^"]*"' "$TMP/na.svg" | tr '\n' ' ')" \
	'xlink:href="mailto:a@b.c" xlink:href="/x/y.html" xlink:href="HTTP://e.com/" ' "nameattr: mailto, relative and upper-case http links kept"

# ---- determinism ---------------------------------------------------------------
for opts in "" "--random" "--hash --reverse" "--inverted --colors=java"; do
	# shellcheck disable=SC2086
	"$FLAMEKIT" graph $opts "$D/hostile-names.txt" "$D/small.txt" > "$TMP/r1.svg"
	# shellcheck disable=SC2086
	"$FLAMEKIT" graph --threads 2 $opts "$D/hostile-names.txt" "$D/small.txt" > "$TMP/r2.svg"
	same_file "$TMP/r1.svg" "$TMP/r2.svg" "two runs give the same bytes (${opts:-default})"
done
"$FLAMEKIT" graph --random --seed 7 "$D/small.txt" > "$TMP/s7.svg"
"$FLAMEKIT" graph --random --seed 7 "$D/small.txt" > "$TMP/s7b.svg"
same_file "$TMP/s7.svg" "$TMP/s7b.svg" "--random --seed 7 is reproducible"

# ---- folded files drawn without the whole tree (engine/prune.c) ----------------
# graph of regular folded files builds only the frames wide enough to draw;
# stdin takes the pipeline and its whole tree.  The bytes must be the same.
# A narrow "foo" with children sorts after its kept sibling "foo.cold" ('.'
# is below ';'); as a bare leaf it would sort first and move "foo.cold".
printf 'P;foo;x 1\nP;foo.cold 100\nP;zz 100\nP;zz;a 1\nP;zz 3\nQ 50\n' > "$TMP/cut.folded"
"$FLAMEKIT" graph --width 100 --minwidth 2 "$TMP/cut.folded" > "$TMP/cut1.svg"
"$FLAMEKIT" graph --width 100 --minwidth 2 < "$TMP/cut.folded" > "$TMP/cut2.svg"
same_file "$TMP/cut1.svg" "$TMP/cut2.svg" "a narrow frame with children keeps its place among wider siblings"
# Many distinct stacks, names that extend each other, empty frames, lines
# with an empty stack (the root's own weight), cut at several depths.
awk 'BEGIN { srand(5); for (i = 0; i < 20000; i++) { s = "root"; d = 1 + int(rand() * 12)
	for (j = 0; j < d; j++) s = s ";f" substr("abcdefgh", 1, 1 + int(rand() * 3)) (rand() < 0.3 ? ".c" : rand() < 0.1 ? " x" : "")
	if (rand() < 0.02) s = s ";;e"; printf "%s %d\n", s, int(rand() * 100); if (rand() < 0.01) print " 7" } }' > "$TMP/many.folded"
for opts in "" "--width 300" "--minwidth 0" "--minwidth 1%" "--inverted" "--total 5000000" \
	"--output-plugin icicle --width 200" "--colors=chain --hash"; do
	# shellcheck disable=SC2086
	"$FLAMEKIT" graph $opts "$TMP/many.folded" "$TMP/cut.folded" > "$TMP/m1.svg"
	# shellcheck disable=SC2086
	cat "$TMP/many.folded" "$TMP/cut.folded" | "$FLAMEKIT" graph $opts > "$TMP/m2.svg"
	same_file "$TMP/m1.svg" "$TMP/m2.svg" "files and stdin give the same graph (${opts:-default})"
done
# The flame chart keeps input order: sorted lines merge deep runs of frames.
LC_ALL=C sort "$TMP/many.folded" > "$TMP/sorted.folded"
for opts in "" "--width 300" "--minwidth 2%" "--inverted --minwidth 0.5"; do
	for f in many sorted; do
		# shellcheck disable=SC2086
		"$FLAMEKIT" graph --flamechart $opts "$TMP/$f.folded" > "$TMP/c1.svg"
		# shellcheck disable=SC2086
		"$FLAMEKIT" graph --flamechart $opts < "$TMP/$f.folded" > "$TMP/c2.svg"
		same_file "$TMP/c1.svg" "$TMP/c2.svg" "flame chart: file and stdin give the same bytes ($f ${opts:-default})"
	done
done

# Any output can take that path through min_weight() (ABI 1.3), and one
# without it gets the whole tree.  The test output "prune" returns --min and
# writes the tree it is handed: with --min 5 (cut below 2.5), "b" (2) keeps
# its total but not "c"; "foo" (1) keeps "x" because "foo.cold" sorts by it.
mkdir "$TMP/mods"
cp "$FK_BUILDDIR/tests/modules/.libs/prune.so" "$FK_BUILDDIR/tests/modules/.libs/dump.so" "$TMP/mods/"
printf 'P;foo;x 1\nP;foo.cold 100\nP;zz 100\nP;zz;a 1\nP;zz;b;c 2\nP;zz 3\nQ 50\n' > "$TMP/hook.folded"
is "$("$FLAMEKIT" graph --plugin-dir "$TMP/mods" --output-plugin prune --min 5 "$TMP/hook.folded" | LC_ALL=C sort)" \
"P 207
P;foo 1
P;foo.cold 100
P;foo;x 1
P;zz 106
P;zz;a 1
P;zz;b 2
Q 50" "an output's min_weight() cuts the tree a folded file builds for it"
whole="P 207
P;foo 1
P;foo.cold 100
P;foo;x 1
P;zz 106
P;zz;a 1
P;zz;b 2
P;zz;b;c 2
Q 50"
is "$("$FLAMEKIT" graph --plugin-dir "$TMP/mods" --output-plugin prune --min 5 < "$TMP/hook.folded" | LC_ALL=C sort)" \
	"$whole" "the same output from stdin gets the whole tree"
is "$("$FLAMEKIT" graph --plugin-dir "$TMP/mods" --output-plugin prune --min -1 "$TMP/hook.folded" | LC_ALL=C sort)" \
	"$whole" "min_weight() negative: the whole tree"
# "dump" has no min_weight (the loader reads it as NULL): every frame, even
# "c" and "x", which no graph of this file draws.
is "$("$FLAMEKIT" graph --plugin-dir "$TMP/mods" --output-plugin dump "$TMP/hook.folded")" "P module=- colour=-
Q module=- colour=-
a module=- colour=-
b module=- colour=-
c module=- colour=-
foo module=- colour=-
foo.cold module=- colour=-
x module=- colour=-
zz module=- colour=-" "an output without min_weight() gets the whole tree from a folded file"

# ---- errors ------------------------------------------------------------------------
run "$FLAMEKIT" graph --colors=nope "$D/small.txt"
is "$rc:$err" '2:flamekit: [output:svg] unknown palette "nope" (--colors: hot mem io wakeup chain java js perl red green blue aqua yellow purple orange rust python)' \
	"unknown palette: usage error, exit 2"
run "$FLAMEKIT" graph --bogus "$D/small.txt"
is "$rc" 2 "unknown option: usage error"
printf 'not a folded line\n' > "$TMP/empty.txt"
run "$FLAMEKIT" graph --format folded "$TMP/empty.txt"
is "$rc" 1 "no stacks: exit 1"
is "$(echo "$err" | tail -1)" 'flamekit: [output:svg] no stack counts found' "no stacks: the error says so"
"$FLAMEKIT" graph -o "$TMP/o.svg" "$D/small.txt"
same_file "$TMP/small.svg" "$TMP/o.svg" "-o FILE writes the same graph"

# --colors=chain: the frames above a "--" are the waker stack, which
# flamegraph.pl renames NAME_[w] and draws aqua, hashing the annotated name;
# the frames below are blue.  Fills from flamegraph.pl --colors=chain
# [--hash] on this input (its titles, sorted).
printf 'sleep;schedule;--;waker_main;wake_up 5\nsleep;schedule;--;other;try_to_wake_up 3\nio;wait;--;irq;--;dev 2\n' > "$TMP/chain.folded"
fills() {
	grep -o '<title>[^<]*</title><rect[^>]*fill="[^"]*"' | sed 's/<title>\([^ ]*\) .*fill="\(.*\)"/\1 \2/' | LC_ALL=C sort
}
is "$("$FLAMEKIT" graph --colors=chain "$TMP/chain.folded" | fills)" "-- rgb(160,160,160)
-- rgb(160,160,160)
-- rgb(160,160,160)
all rgb(90,90,213)
dev rgb(82,194,194)
io rgb(95,95,218)
irq rgb(101,212,212)
other rgb(62,176,176)
schedule rgb(139,139,254)
sleep rgb(127,127,244)
try_to_wake_up rgb(103,213,213)
wait rgb(122,122,240)
wake_up rgb(56,171,171)
waker_main rgb(84,196,196)" \
	"--colors=chain: waker frames aqua from their _[w] names, as flamegraph.pl"
is "$("$FLAMEKIT" graph --colors=chain --hash "$TMP/chain.folded" | fills)" "-- rgb(160,160,160)
-- rgb(160,160,160)
-- rgb(160,160,160)
all rgb(140,140,255)
dev rgb(98,209,209)
io rgb(126,126,243)
irq rgb(90,201,201)
other rgb(93,204,204)
schedule rgb(122,122,240)
sleep rgb(113,113,232)
try_to_wake_up rgb(91,202,202)
wait rgb(101,101,223)
wake_up rgb(70,183,183)
waker_main rgb(70,183,183)" \
	"--colors=chain --hash: the same fills as flamegraph.pl"

done_testing
