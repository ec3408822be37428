#!/bin/sh
# No hidden log state outside the context module (engine/context.c, issue
# 27): no file but it names fk_verbosity, sets a log prefix (the old
# fk_log_set_prefix), keeps a prefix in a file-scope or thread-local
# variable, holds thread-local state, or counts errors to guess whether a
# failure was reported (fk_log_errors, fk_log_unreported).  The scan runs
# on the source tree, and on a copy with each kind of offence planted, which
# it must find.
. "${FK_SRCDIR:?}/tests/lib.sh"

# scan DIR: the offending lines of the engine, the command and lib/ under
# DIR ("FILE:LINE:text"), none when clean.
scan() {
	(
		cd "$1" && find engine cli lib -name '*.[ch]' ! -path engine/context.c \
			! -path engine/context.h | LC_ALL=C sort | xargs grep -nE \
			-e '\<fk_verbosity\>' \
			-e '\<fk_log_(set_)?prefix\>' \
			-e '\<fk_log_(errors|unreported)\>' \
			-e '\<(_Thread_local|__thread)\>' \
			-e '^(static[[:space:]]+)?(const[[:space:]]+)?char[[:space:]]*(\*[[:space:]]*(const[[:space:]]+)?)?[A-Za-z_]*prefix[A-Za-z_]*[[:space:]]*(=|;|\[)'
	) || true
}

found=$(scan "$FK_SRCDIR")
is "$found" "" "the engine and the command keep no log state outside engine/context.c"

# The scan finds each kind of offence.
mkdir -p "$TMP/tree"
for d in engine cli lib; do
	cp -R "$FK_SRCDIR/$d" "$TMP/tree/$d"
done
find "$TMP/tree" -type f ! -name '*.[ch]' -exec rm -f {} +
cat > "$TMP/tree/engine/planted.c" <<'EOF'
static const char *prefix;
static _Thread_local int depth;
void quiet(void) { fk_verbosity = -1; }
void put(void) { fk_log_set_prefix("[input:x] "); }
int guess(void) { return fk_log_errors() == 0; }
EOF
cat > "$TMP/tree/cli/planted.c" <<'EOF'
char log_prefix[64];
EOF
found=$(scan "$TMP/tree")
is "$found" "cli/planted.c:1:char log_prefix[64];
engine/planted.c:1:static const char *prefix;
engine/planted.c:2:static _Thread_local int depth;
engine/planted.c:3:void quiet(void) { fk_verbosity = -1; }
engine/planted.c:4:void put(void) { fk_log_set_prefix(\"[input:x] \"); }
engine/planted.c:5:int guess(void) { return fk_log_errors() == 0; }" "the scan finds a planted prefix, verbosity, counter and thread-local"

done_testing
