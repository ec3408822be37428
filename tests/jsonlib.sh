# Helpers of the JSON input plugins' tests (tests/speedscope.sh,
# tests/chrome.sh, tests/gecko.sh).  Source it after tests/lib.sh.
PY=${PYTHON:-python3}

# need_python: end the script with a skip when there is no python3 (the
# oracles are Python).
need_python() {
	if ! command -v "$PY" > /dev/null 2>&1; then
		skip_all "$1" "no python3"
	fi
}

# per_thread FILE [FORMAT [OPTIONS]]: run FILE through lua/per-thread.lua
# in a job (run's $rc, $out, $err).
per_thread() {
	{
		printf 'inputs:\n  - path: %s\n' "$1"
		[ -n "${2:-}" ] && printf '    format: %s\n' "$2"
		[ -n "${3:-}" ] && printf '    options: %s\n' "$3"
		printf 'filters:\n  - plugin: lua\n    script: %s/lua/per-thread.lua\n' "$FK_SRCDIR"
		printf 'outputs:\n  - plugin: folded\n    path: "-"\n'
	} > "$TMP/per-thread.yaml"
	run "$FLAMEKIT" run "$TMP/per-thread.yaml"
}

# bad FORMAT JSON EXPECTED-ERROR-AFTER-FILE NAME [ARGS]: JSON (with a
# newline) read with --format FORMAT fails with exactly that message.
bad() {
	printf '%s\n' "$2" > "$TMP/bad.json"
	run "$FLAMEKIT" collapse --format "$1" $5 "$TMP/bad.json"
	is "$rc:$out:$err" "1::flamekit: $TMP/bad.json$3" "error: $4"
}
