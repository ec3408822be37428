#!/bin/sh
# The embedded script in a real browser: headless Chromium loads a graph with
# a probe script injected (probe.js), which searches, zooms, hovers and
# unzooms, and writes what it saw into the DOM; --dump-dom prints it.
# Skipped when chromium is not installed (Debian: chromium).
. "$FK_SRCDIR/tests/lib.sh"
not_sanitized "browser test" "Chromium"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	skip_all "browser test" "chromium not installed"
fi

# with_probe SVG PROBE OUT: a copy of SVG with tests/browser/PROBE inserted
# just before </svg>, inside a CDATA script element.
with_probe() {
	{
		sed '$d' "$1"
		printf '<script type="text/ecmascript"><![CDATA[\n'
		cat "$FK_SRCDIR/tests/browser/$2"
		printf ']]></script>\n</svg>\n'
	} > "$3"
}
# dump SECONDS URL [OPTION...]: chromium --dump-dom of URL into $TMP/dom.txt,
# killed after SECONDS; its status in $rc.
dump() {
	secs=$1 url=$2
	shift 2
	PROFILE=$(mktemp -d "${TMPDIR:-/tmp}/fk-chromium.XXXXXX")
	timeout "$secs" "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync "$@" \
		--user-data-dir="$PROFILE" --dump-dom "$url" > "$TMP/dom.txt" 2> "$TMP/chromium.err"
	rc=$?
	rm -rf "$PROFILE"
}

"$FLAMEKIT" graph "$FK_SRCDIR/tests/data/svg/small.txt" > "$TMP/g.svg"
ok $? "graph drawn"
with_probe "$TMP/g.svg" probe.js "$TMP/probe.svg"
tail -1 "$TMP/g.svg" | grep -q '^</svg>$'
ok $? "graph ends with </svg>"

dump 60 "file://$TMP/probe.svg"
ok $rc "chromium ran"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/chromium.err" | tail -5

result=$(sed -n 's/.*<text id="fk-test-result">\(.*\)<\/text>.*/\1/p' "$TMP/dom.txt" | sed 's/&quot;/"/g; s/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g')
field() { # field NAME: one value of the probe's JSON
	printf '%s' "$result" | "$PYTHON3" -c 'import json,sys; d=json.load(sys.stdin); print(d.get(sys.argv[1], "<missing>"))' "$1" 2>/dev/null
}
is "$(field error)" "<missing>" "the probe ran without a script error"
is "$(field frames)" 7 "7 frames"
is "$(field tooltip)" "b (3 samples, 15.00%)" "tooltip text"
is "$(field search1)" "b,c" "Ctrl-F ^(b|c)\$ highlights b and c"
is "$(field matched1)" "Matched: 20.0%" "Matched: 20.0% (3 + 1 of 20)"
is "$(field searchbtn)" "Reset Search" "the search button becomes Reset Search"
is "$(field reset)" "|Search" "a second Ctrl-F resets the search"
is "$(field search2)" "b" "case-sensitive search ^(A|b)\$ matches b only"
is "$(field search2i)" "a,b" "Ctrl-I: ignoring case, a and b match"
is "$(field matched2i)" "Matched: 30.0%" "nested matches count once: a (6) contains b (3): 30.0%"
is "$(field zoom_a)" "1180 590 other-hidden main-parent unzoom-shown" \
	"click a: a spans the graph, b scales, other hides, main becomes a parent, Reset Zoom shows"
is "$(field details_zoomed)" "Function: b (3 samples, 15.00%) [50.00% of a]" \
	"details while zoomed: share of the zoomed frame"
is "$(field details_out)" "[ ]" "mouseout clears the details line"
is "$(field unzoom)" "354.0 177.0 other-shown" "Reset Zoom restores widths"
is "$(field details)" "Function: d (4 samples, 20.00%)" "details line after unzoom"
is "$(field label_a)" "a" "label text kept"

# ---- a search the URL gives is literal text --------------------------------
# ?s=^(a+)+$ against a name of 40 a's and a b backtracks for ever as a regular
# expression (chromium would be killed by the timeout and the page never
# answer); as literal text it matches only the frame that contains it.
{
	printf 'main;%s 3\n' "$(printf 'a%.0s' $(seq 40))b"
	printf 'main;x^(a+)+$y 1\n'
	printf 'main;aaa 1\n'
} > "$TMP/redos.folded"
"$FLAMEKIT" graph "$TMP/redos.folded" > "$TMP/redos.svg"
with_probe "$TMP/redos.svg" probe-search.js "$TMP/search.svg"
dump 30 "file://$TMP/search.svg?s=%5E(a%2B)%2B%24" --virtual-time-budget=5000
is "$rc:$(sed -n 's/.*<text id="fk-search">\(.*\)<\/text>.*/\1/p' "$TMP/dom.txt" | sed 's/&quot;/"/g; s/&amp;/\&/g')" \
	'0:{"highlighted":"x^(a+)+$y","matched":"Matched: 20.0%"}' \
	"?s=^(a+)+\$ is literal text: the page answers, one frame (1 of 5) matched"

# ---- --nameattr: nothing a nameattr file says runs ------------------------
# links SVG NAME: load SVG with probe-links.js; its JSON in $links.
links() {
	with_probe "$1" probe-links.js "$TMP/links.svg"
	dump 60 "file://$TMP/links.svg" --virtual-time-budget=5000
	ok $rc "chromium ran ($2)"
	links=$(sed -n 's/.*<text id="fk-links">\(.*\)<\/text>.*/\1/p' "$TMP/dom.txt" | sed 's/&quot;/"/g; s/&amp;/\&/g')
}
# The attacks of issue 23: a second href, a second xlink:href.  Refused
# (exit 1); were one drawn, the frame's click must not run fkpwn.
tab=$(printf '\t')
for extra in 'href="javascript:fkpwn(62)"' 'xlink:href="javascript:fkpwn(63)"' \
	'href="jav&#x09;ascript:fkpwn(64)"'; do
	printf 'b%shref=https://example.com/%sa_extra=%s\n' "$tab" "$tab" "$extra" > "$TMP/attack.txt"
	"$FLAMEKIT" graph --nameattr "$TMP/attack.txt" "$FK_SRCDIR/tests/data/svg/small.txt" > "$TMP/attack.svg" 2> /dev/null
	rc=$? pwned=
	if [ $rc -eq 0 ]; then
		links "$TMP/attack.svg" "$extra"
		pwned=$(printf '%s' "$links" | "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["pwned"])' 2>&1)
	fi
	is "$rc:$pwned" "1:" "a_extra=$extra is refused, and nothing runs"
done
# Hostile but inert attributes are drawn; in Chromium the links resolve to
# https, file (relative) and mailto, no element has an on* attribute, and
# clicking and hovering every frame runs nothing.
printf 'a%stitle=<script>fkpwn(1)</script>%sclass=x" onload="fkpwn(2)%sg_extra=data-x="1" aria-label="&quot; onclick=&quot;fkpwn(3)"\nb%shref=https://example.com/?a=1&b="2"%sa_extra=rel="noopener"\nc%shref=rel/x.html#f"onclick="fkpwn(4)\nd%shref=mailto:x@example.com\n' \
	"$tab" "$tab" "$tab" "$tab" "$tab" "$tab" "$tab" > "$TMP/inert.txt"
"$FLAMEKIT" graph --nameattr "$TMP/inert.txt" "$FK_SRCDIR/tests/data/svg/small.txt" > "$TMP/inert.svg"
ok $? "a nameattr file of inert attributes is drawn"
links "$TMP/inert.svg" "inert attributes"
is "$links" '{"links":["https:","file:","mailto:"],"handlers":0,"pwned":"none"}' \
	"Chromium: three links (https, relative, mailto), no on* attribute, clicks and hovers run nothing"
done_testing
