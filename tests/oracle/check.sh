# Shared by the tests of the input plugins read against a python oracle
# (tests/bpftrace.sh, tests/bcc.sh, ...): source it after tests/lib.sh, with
# ORACLE naming the oracle script; it skips everything without python3.  The oracle prints the folded stacks on
# stdout and the numbers of the lines it skips on stderr.

if ! command -v python3 > /dev/null 2>&1; then
	skip_all "$(basename "$ORACLE" .py)" "no python3 for the oracle"
fi

# expect_warn FILE LINES: the warning flamekit gives for skipped LINES
expect_warn() {
	set -- "$1" $2
	f=$1
	shift
	[ $# -eq 0 ] && return
	n=$# list= k=0
	for l in "$@"; do
		k=$((k + 1))
		[ $k -le 5 ] && list="$list${list:+, }$l"
	done
	[ $n -gt 5 ] && list="$list, ..."
	if [ $n -eq 1 ]; then
		echo "flamekit: warning: $f: skipped 1 unreadable line (line $list)"
	else
		echo "flamekit: warning: $f: skipped $n unreadable lines (lines $list)"
	fi
}

# check FILE NAME [ORACLE OPTIONS] -- [FLAMEKIT OPTIONS]
check() {
	f=$1 name=$2
	shift 2
	oargs= fargs=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do oargs="$oargs $1"; shift; done
	[ "$1" = -- ] && shift
	fargs="$*"
	# shellcheck disable=SC2086
	python3 "$ORACLE" $oargs "$f" > "$TMP/exp" 2> "$TMP/skip"
	# shellcheck disable=SC2086
	run "$FLAMEKIT" collapse $fargs "$f"
	printf '%s\n' "$out" | sed '/^$/d' > "$TMP/got"
	same_file "$TMP/exp" "$TMP/got" "$name: the oracle's stacks and counts"
	is "$rc:$err" "0:$(expect_warn "$f" "$(cat "$TMP/skip")")" "$name: exit 0, the oracle's skipped lines"
}

# fixtures FORMAT DIR: each DIR/*.txt collapses (detected) to the oracle's
# stacks, with its skipped lines, and is detected as FORMAT
fixtures() {
	for f in "$2"/*.txt; do
		check "$f" "$1 $(basename "$f") (detected)"
		is "$("$FLAMEKIT" collapse -v "$f" 2>&1 > /dev/null | sed -n 's/.*: detected format //p')" "$1" \
			"$1 $(basename "$f") is detected as $1"
	done
}

# other_forms FORMAT FILE: with CRLF line endings, gzip-compressed, and cut
# into 2, 3 and 5 shards merged, FILE gives the same stacks as whole
other_forms() {
	fmt=$1 f=$2
	crlf_gzip "$fmt" "$f"
	: > "$TMP/shard.err"
	for n in 2 3 5; do
		parts=
		k=0
		while [ $k -lt $n ]; do
			"$FLAMEKIT" collapse --format "$fmt" --shard $k/$n "$f" > "$TMP/s$k" 2>> "$TMP/shard.err"
			parts="$parts $TMP/s$k"
			k=$((k + 1))
		done
		# shellcheck disable=SC2086
		"$FLAMEKIT" merge -q -o "$TMP/merged" $parts 2>> "$TMP/shard.err"
		same_file "$TMP/whole" "$TMP/merged" "$fmt: $n shards merged equal the whole file"
	done
	is "$(cat "$TMP/shard.err")" "" "$fmt: the shards said nothing"
}

# crlf_gzip FORMAT FILE: with CRLF line endings and gzip-compressed, FILE
# gives the same stacks as whole (other_forms without the shards, for a
# format that cannot be cut)
crlf_gzip() {
	"$FLAMEKIT" collapse "$2" > "$TMP/whole"
	sed 's/$/\r/' "$2" > "$TMP/crlf.txt"
	gzip -c "$2" > "$TMP/in.gz"
	"$FLAMEKIT" collapse "$TMP/crlf.txt" > "$TMP/crlf.out" 2>&1
	same_file "$TMP/whole" "$TMP/crlf.out" "$1: CRLF line endings: the same stacks"
	"$FLAMEKIT" collapse "$TMP/in.gz" > "$TMP/gz.out" 2>&1
	same_file "$TMP/whole" "$TMP/gz.out" "$1: gzip-compressed: detected, the same stacks"
}
