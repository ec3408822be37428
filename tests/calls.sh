#!/bin/sh
# One place calls plugins (issue 27): no file of the engine or the command
# but engine/calls.c calls a plugin's callback or reads its descriptor past
# the common header.  An offence is a use of a kind's members (`->d.in.`,
# `.d.out.`, `->d.filter.`: the callbacks and the fields appended to them),
# a use of a plugin's struct fk_chunk_ops or fk_part_ops (`ops->`), a call
# through a member named as a callback (`->parse(`, `.render(`, ...), or a
# call of a module's entry point (`init()`).  The scan runs on the source
# tree, on engine/calls.c (each kind of pattern must find the calls there,
# or it could not find them elsewhere either), and on a copy with each kind
# of offence planted, which it must find.
. "${FK_SRCDIR:?}/tests/lib.sh"

# The files still calling a plugin themselves: none (cli/graphsum.c was
# the last; as engine/prune.c it goes through engine/calls.h).  A file
# added here instead is a defect.
PENDING=""

CALLBACKS='probe|parse|sync|check|create|frame|sample|destroy|uses|render|min_weight|boundary|finish'

# offences FILE...: "FILE:LINE:text" of each offending line.
offences() {
	grep -nE \
		-e '(->|\.)d\.(in|filter|out)\.' \
		-e '\<ops(->|\.)' \
		-e "(->|\\.)($CALLBACKS)[[:space:]]*\\(" \
		-e '\<init[[:space:]]*\([[:space:]]*\)' \
		"$@" /dev/null || true
}

# scan DIR: the offences of engine/ and cli/ under DIR, but engine/calls.c's.
scan() {
	(
		cd "$1" || exit 1
		offences $(find engine cli -name '*.[ch]' ! -path engine/calls.c | LC_ALL=C sort)
	)
}

# files OFFENCES: the distinct files named.
files() { printf '%s\n' "$1" | sed -n 's/:.*//p' | LC_ALL=C sort -u; }

found=$(scan "$FK_SRCDIR")
outside=$(printf '%s\n' "$found" | while IFS= read -r l; do
	case "
$PENDING
" in *"
${l%%:*}
"*) ;; *) printf '%s\n' "$l" ;; esac
done)
is "$outside" "" "no file of engine/ or cli/ but engine/calls.c calls a plugin callback"
is "$(files "$found")" "$PENDING" \
	"the files issue 27 still moves into the engine call plugins themselves (remove one when it no longer does)"

# Each pattern finds the calls engine/calls.c makes.
c="$FK_SRCDIR/engine/calls.c"
n=$(grep -cE '(->|\.)d\.(in|filter|out)\.' "$c")
ok $([ "$n" -gt 0 ]; echo $?) "the descriptor pattern finds engine/calls.c's reads of the descriptors ($n)"
n=$(grep -cE '\<ops(->|\.)' "$c")
ok $([ "$n" -gt 0 ]; echo $?) "the ops pattern finds engine/calls.c's calls through the ops ($n)"
n=$(grep -cE "(->|\\.)($CALLBACKS)[[:space:]]*\\(" "$c")
ok $([ "$n" -gt 0 ]; echo $?) "the callback pattern finds engine/calls.c's calls ($n)"
n=$(grep -cE '\<init[[:space:]]*\([[:space:]]*\)' "$c")
ok $([ "$n" -gt 0 ]; echo $?) "the entry pattern finds engine/calls.c's call of a module's entry ($n)"

# The scan finds each kind of offence, in the engine and in the command.
mkdir -p "$TMP/tree"
cp -R "$FK_SRCDIR/engine" "$TMP/tree/engine"
cp -R "$FK_SRCDIR/cli" "$TMP/tree/cli"
find "$TMP/tree" -type f ! -name '*.[ch]' -exec rm -f {} +
for f in $PENDING; do rm -f "$TMP/tree/$f"; done
cat > "$TMP/tree/engine/planted.c" <<'EOF'
static int a(const struct fk_plugin *pl, struct fk_input *in) { return pl->d.in.parse(&fk_host, in, 0, 0); }
static bool b(const struct fk_plugin *pl) { return pl->d.filter.sample != NULL; }
static unsigned c(struct fk_plugin pl) { return pl.d.out.needs; }
static size_t d(const struct fk_chunk_ops *ops) { return ops->boundary(0, "", 0); }
static int e(const struct fk_part_ops *o) { return o->finish(0, 0); }
static int f(struct x *cb) { return cb->render (0); }
static const void *g(fk_plugin_init_fn init) { return init(); }
EOF
cat > "$TMP/tree/cli/planted.c" <<'EOF'
static double w(const struct fk_plugin *pl) { return pl->d.out.min_weight(&fk_host, 0, 1); }
EOF
found=$(scan "$TMP/tree")
is "$found" "cli/planted.c:1:static double w(const struct fk_plugin *pl) { return pl->d.out.min_weight(&fk_host, 0, 1); }
engine/planted.c:1:static int a(const struct fk_plugin *pl, struct fk_input *in) { return pl->d.in.parse(&fk_host, in, 0, 0); }
engine/planted.c:2:static bool b(const struct fk_plugin *pl) { return pl->d.filter.sample != NULL; }
engine/planted.c:3:static unsigned c(struct fk_plugin pl) { return pl.d.out.needs; }
engine/planted.c:4:static size_t d(const struct fk_chunk_ops *ops) { return ops->boundary(0, \"\", 0); }
engine/planted.c:5:static int e(const struct fk_part_ops *o) { return o->finish(0, 0); }
engine/planted.c:6:static int f(struct x *cb) { return cb->render (0); }
engine/planted.c:7:static const void *g(fk_plugin_init_fn init) { return init(); }" \
	"the scan finds a planted descriptor read, ops call, callback call and entry call"

done_testing
