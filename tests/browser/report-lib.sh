# Sourced by the report's browser tests (html-browser.sh, report-browser.sh)
# after lib.sh: skip without chromium, drive a page through cdp.py and
# compute what it should show with awk.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] || [ -z "$PYTHON3" ]; then
	skip_all "the report in a browser" "chromium or python3 not installed"
fi
CDP="$FK_SRCDIR/tests/browser/cdp.py"
DET='document.getElementById("details")'
MAT='document.getElementById("matched")'

page() { # page REPORT STEP...: run cdp.py, answers in $TMP/ans
	timeout 120 "$PYTHON3" "$CDP" "$CHROMIUM" "$@" > "$TMP/ans" 2> "$TMP/cdp.err"
	ok $? "chromium drove $(basename "$1")"
	sed 's/^/# /' "$TMP/cdp.err" | grep -v dbus | tail -5
}
ans() { sed -n "s/^$1	//p" "$TMP/ans"; }
clean() { # clean: the last page run had no error and made no request
	is "$(ans errors)/$(ans requests)" "0/0" "$1: no page error, no network request"
}
# awk: the total weight of the folded lines in which some frame matches ERE $1
matched() {
	awk -v re="$1" '{ n = split($1, f, ";"); for (i = 1; i <= n; i++) if (f[i] ~ re) { s += $NF; break } }
		END { printf "%.0f\n", s }' "$2"
}
total() { awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"; }
pct1() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f\n", 100 * a / b }'; }
pct2() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", 100 * a / b }'; }

# the page's figures, computed with awk: grp N: digits in threes; hns NS: a
# duration in ns as the page writes it ("23.1 ms = 23,069,207 ns")
grp() { awk -v v="$1" 'BEGIN { n = sprintf("%.0f", v); o = ""; while (length(n) > 3) { o = "," substr(n, length(n) - 2) o; n = substr(n, 1, length(n) - 3) } print n o }'; }
hns() {
	awk -v v="$1" -v g="$(grp "$1")" 'BEGIN { x = v; u = "ns"
		if (v >= 1e9) { x = v / 1e9; u = "s" } else if (v >= 1e6) { x = v / 1e6; u = "ms" } else if (v >= 1e3) { x = v / 1e3; u = "\302\265s" }
		if (u == "ns") { print g " ns"; exit }
		d = x >= 100 ? 0 : x >= 10 ? 1 : 2; printf "%." d "f %s = %s ns\n", x, u, g }'
}
# TYPE: a search typed into the box (a regex), as a person does
TYPE='(function (re, ic) { var t = document.getElementById("term"), c = document.getElementById("icase");
	t.value = re; t.dispatchEvent(new Event("input")); c.checked = !!ic; c.dispatchEvent(new Event("change"));
	return document.getElementById("matched").dataset.samples; })'
