#!/bin/sh
# Build the libFuzzer harnesses (run by `make fuzz`).
#
#   build.sh SRCDIR BUILDDIR
#
# Environment (make fuzz passes what configure found):
#   FUZZ_CC      clang with libFuzzer (default: clang)
#   FUZZ_CFLAGS  extra flags (default: -g -O1)
#   FUZZ_LIBS    libraries the engine needs (-lltdl -lyaml-0.1 -lz -lm ...)
#   FUZZ_CPPFLAGS include flags of those libraries
#
# Harnesses, each built into BUILDDIR/fuzz/bin/fuzz-NAME:
#   - one per input plugin: for every plugins/input/NAME/ that has C
#     sources, fuzz/input.c + those sources + the folded output plugin;
#   - one per NAME=DIR word of $FUZZ_PLUGIN_DIRS (DIR relative to SRCDIR
#     or absolute): an input plugin kept elsewhere, such as an out-of-tree
#     one (make fuzz passes bpftrace=examples/plugin-bpftrace);
#   - one per standalone harness fuzz/NAME.c (not input.c): that file plus
#     the sources listed in fuzz/NAME.sources, if that file exists: one
#     path per line, relative to SRCDIR, optionally followed by extra
#     compiler flags for that file (-Dflamekit_plugin_init=... to rename a
#     plugin's entry point); "link: FLAGS" lines add link flags; # starts
#     a comment line.
# All of them link the engine sources (engine/*.c) compiled with the same
# sanitizers.  Only what changed since the last build is recompiled.
set -eu

src=${1:?usage: build.sh SRCDIR BUILDDIR}
bld=${2:?usage: build.sh SRCDIR BUILDDIR}
CC=${FUZZ_CC:-clang}
CFLAGS=${FUZZ_CFLAGS:--g -O1}
LIBS=${FUZZ_LIBS:-}
CPPFLAGS=${FUZZ_CPPFLAGS:-}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
COMMON="$CFLAGS $SAN -Wall -Wextra -Wno-unused-parameter -pthread -I$src/include -I$src/engine -I$src/lib -I$src/plugins/lib/svgdoc $CPPFLAGS"

if ! printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }\n' |
	"$CC" -x c -fsanitize=fuzzer -o /dev/null - > /dev/null 2>&1; then
	echo "fuzz: $CC cannot build libFuzzer programs (-fsanitize=fuzzer);" \
		"install the Debian package clang (libFuzzer comes with it)" >&2
	exit 1
fi

obj="$bld/fuzz/obj"
mkdir -p "$obj/engine" "$bld/fuzz/bin"
headers="$src/include/flamekit/plugin.h $src/engine/fk.h"

# compile SRC OBJ [FLAGS...]: only when SRC or a shared header is newer.
compile() {
	c=$1 o=$2
	shift 2
	if [ -f "$o" ]; then
		stale=no
		for f in "$c" $headers; do
			[ "$f" -nt "$o" ] && stale=yes
		done
		[ "$stale" = no ] && return 0
	fi
	echo "  CC       ${o#"$bld"/}"
	# shellcheck disable=SC2086
	"$CC" $COMMON -fsanitize=fuzzer-no-link "$@" -c "$c" -o "$o"
}

# the engine, with the folded grammar it links (lib/folded)
engine_objs=
for c in "$src"/engine/*.c "$src"/lib/folded/*.c; do
	o="$obj/engine/$(basename "$c" .c).o"
	compile "$c" "$o"
	engine_objs="$engine_objs $o"
done

outdir="$obj/output-folded"
mkdir -p "$outdir"
compile "$src/plugins/output/folded/folded.c" "$outdir/folded.o" \
	-Dflamekit_plugin_init=fk_fuzz_output_init
compile "$src/fuzz/input.c" "$obj/input.o"

link() { # link NAME OBJS...: only when an object is newer than the program
	name=$1
	shift
	exe="$bld/fuzz/bin/fuzz-$name"
	if [ -f "$exe" ]; then
		stale=no
		for f in "$@" $engine_objs; do
			[ "$f" -nt "$exe" ] && stale=yes
		done
		[ "$stale" = no ] && return 0
	fi
	echo "  CCLD     fuzz/bin/fuzz-$name"
	# shellcheck disable=SC2086
	"$CC" $CFLAGS $SAN -fsanitize=fuzzer -pthread -o "$bld/fuzz/bin/fuzz-$name" "$@" \
		$engine_objs $LIBS ${LINK_FLAGS:-}
}

# input_harness NAME DIR: fuzz/input.c + DIR/*.c
input_harness() {
	name=$1 dir=$2
	set -- "$dir"*.c
	[ -f "$1" ] || return 0
	mkdir -p "$obj/input-$name"
	objs=
	for c in "$@"; do
		o="$obj/input-$name/$(basename "$c" .c).o"
		compile "$c" "$o" -I"$dir" -Dflamekit_plugin_init=fk_fuzz_input_init
		objs="$objs $o"
	done
	# shellcheck disable=SC2086
	link "$name" "$obj/input.o" $objs "$outdir/folded.o"
	built="$built $name"
}

built=
for dir in "$src"/plugins/input/*/; do
	input_harness "$(basename "$dir")" "$dir"
done
for word in ${FUZZ_PLUGIN_DIRS:-}; do
	dir=${word#*=}
	case $dir in /*) ;; *) dir="$src/$dir" ;; esac
	input_harness "${word%%=*}" "${dir%/}/"
done

for c in "$src"/fuzz/*.c; do
	name=$(basename "$c" .c)
	[ "$name" = input ] && continue
	mkdir -p "$obj/$name"
	compile "$c" "$obj/$name/harness.o"
	objs="$obj/$name/harness.o"
	ldflags=
	if [ -f "$src/fuzz/$name.sources" ]; then
		# shellcheck disable=SC2086
		while read -r rel flags; do
			case $rel in
			'' | '#'*) continue ;;
			link:) ldflags="$ldflags $flags"; continue ;;
			esac
			o="$obj/$name/$(echo "$rel" | tr '/' '_' | sed 's/\.c$//').o"
			# a changed flag list must rebuild the object too
			[ "$src/fuzz/$name.sources" -nt "$o" ] && rm -f "$o"
			compile "$src/$rel" "$o" -I"$(dirname "$src/$rel")" $flags
			objs="$objs $o"
		done < "$src/fuzz/$name.sources"
	fi
	LINK_FLAGS=$ldflags
	# shellcheck disable=SC2086
	link "$name" $objs
	LINK_FLAGS=
	built="$built $name"
done

echo "fuzz: built$built in $bld/fuzz/bin"
