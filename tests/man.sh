#!/bin/sh
# The manual pages: each is lint-clean (mandoc -T lint, groff -ww), each is
# installed (listed in man/local.mk), and every option that the command and
# its plugins print in --help is documented in one of them.
. "$FK_SRCDIR/tests/lib.sh"
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

# documented OPTION: the option appears as a flag (.Fl -NAME) or a job key
# (.Cm NAME) in some page.
documented() {
	cat $pages | grep -qE "(Fl -$1|Cm $1)( |\$)"
}

# Every command's options, as its --help prints them.
for c in collapse graph diff merge run plugins; do
	missing=
	for o in $("$FLAMEKIT" "$c" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		documented "${o#--}" || missing="$missing $o"
	done
	is "$missing" "" "flamekit $c: every option of --help is in a man page"
done

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
