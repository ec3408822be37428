#!/bin/sh
# The command holds no engine logic (issue 27): the files of cli/ include
# only the public engine header (engine/flamekit-engine.h), the plugin SDK,
# the system's headers and cli/'s own; they name no tree, node, sink,
# profile, interning or context code, and read or write no file themselves
# (struct fk_input, struct fk_writer: the pipeline does).  The public
# header includes nothing of the engine's.  The scan runs on the source
# tree, and on a copy with each kind of offence planted, which it must find.
. "${FK_SRCDIR:?}/tests/lib.sh"
not_sanitized "the layering of the sources" "a scan of the sources"

# The files still carrying engine code until it moves behind the pipeline
# (issue 27, part 1 step 3): remove a name when its move lands; a file
# added here instead is a defect.
PENDING=""

# scan DIR: "FILE:LINE:text" of every offence under DIR, none when clean.
scan() {
	(
		cd "$1" || exit 1
		for f in $(find cli -name '*.[ch]' | LC_ALL=C sort); do
			# an include is the public header, the SDK, config.h or a
			# header of cli/ itself (a bare name that exists there)
			grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
				while IFS= read -r l; do
					h=${l#*\"}
					h=${h%%\"*}
					case $h in
					../engine/flamekit-engine.h | flamekit/plugin.h | config.h) ;;
					*/*) echo "$f:$l" ;;
					*) [ -f "cli/$h" ] || echo "$f:$l" ;;
					esac
				done
			grep -nE \
				-e '\<fk_(tree|node|sink|intern|profile|frameref|samplelog|sample|ctx)(_[A-Za-z0-9_]*)?\>' \
				-e '\<FK_(NODE|CTX)_[A-Z_]+\>' \
				-e 'struct[[:space:]]+fk_(input|writer)\>' \
				"$f" | sed "s|^|$f:|"
		done
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' engine/flamekit-engine.h |
			grep -v '"flamekit/plugin.h"' | sed 's|^|engine/flamekit-engine.h:|'
	)
}

# files OFFENCES: the distinct files named.
files() { printf '%s\n' "$1" | sed -n 's/:.*//p' | LC_ALL=C sort -u; }

found=$(scan "$FK_SRCDIR")
is "$(files "$found")" "$PENDING" \
	"only the files issue 27 still moves into the engine include its internals or hold tree, sink or interning code"
for f in $(find "$FK_SRCDIR/cli" -name '*.[ch]' | LC_ALL=C sort); do
	f=${f#$FK_SRCDIR/}
	case "
$PENDING
" in *"
$f
"*) continue ;; esac
	is "$(printf '%s\n' "$found" | grep "^$f:")" "" "$f uses only the public engine header"
done

# The scan finds each kind of offence.
mkdir -p "$TMP/tree/engine"
cp -R "$FK_SRCDIR/cli" "$TMP/tree/cli"
cp "$FK_SRCDIR/engine/flamekit-engine.h" "$TMP/tree/engine/"
find "$TMP/tree" -type f ! -name '*.[ch]' -exec rm -f {} +
for f in $PENDING; do rm -f "$TMP/tree/$f"; done
cat > "$TMP/tree/cli/planted.c" <<'EOF'
#include "../engine/fk.h"
#include "folded/fkfolded.h"
#include "nosuch.h"
#include "cli.h"
static int grow(struct fk_tree *t) { return fk_tree_add(t, FK_NODE_ROOT, 0); }
static int push(struct fk_sink *s) { return fk_sink_push(s, 0, 0); }
static int name(struct fk_profile *p) { return fk_intern(&p->in, "x", 1); }
static void hush(void) { FK_CTX_SCOPE(q, .flags = FK_CTX_QUIET); }
static void io(struct fk_input *in, struct fk_writer *w) { (void)in; (void)w; }
EOF
n=$(($(wc -l < "$TMP/tree/engine/flamekit-engine.h") + 1))
echo '#include "context.h"' >> "$TMP/tree/engine/flamekit-engine.h"
found=$(scan "$TMP/tree")
expected=$(cat <<EOF
cli/planted.c:1:#include "../engine/fk.h"
cli/planted.c:2:#include "folded/fkfolded.h"
cli/planted.c:3:#include "nosuch.h"
cli/planted.c:5:static int grow(struct fk_tree *t) { return fk_tree_add(t, FK_NODE_ROOT, 0); }
cli/planted.c:6:static int push(struct fk_sink *s) { return fk_sink_push(s, 0, 0); }
cli/planted.c:7:static int name(struct fk_profile *p) { return fk_intern(&p->in, "x", 1); }
cli/planted.c:8:static void hush(void) { FK_CTX_SCOPE(q, .flags = FK_CTX_QUIET); }
cli/planted.c:9:static void io(struct fk_input *in, struct fk_writer *w) { (void)in; (void)w; }
engine/flamekit-engine.h:$n:#include "context.h"
EOF
)
is "$found" "$expected" "the scan finds a planted include, tree, sink, interning, context and file code"

done_testing
