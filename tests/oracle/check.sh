# Shared by the tests of the input plugins read against a python oracle
# (tests/bpftrace.sh, tests/bcc.sh): source it after tests/lib.sh, with
# ORACLE naming the oracle script.  The oracle prints the folded stacks on
# stdout and the numbers of the lines it skips on stderr.

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

