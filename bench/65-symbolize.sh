#!/bin/sh
# libfksym (plugins/lib/symbolize): the time to load libc's symbols and
# lookups per second, plain and with --inline --srcline (libc has no DWARF
# here unless libc6-dbg is installed: then that figure includes the DWARF
# walk of the first sight of each address).  Figures only.
set -e
: "${FK_BUILDDIR:?run through make bench}"
LIBC=${FK_SYMBOLIZE_LIB:-$(ldd /bin/sh | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')}
make -s -C "$FK_BUILDDIR" tests/symbolize-bench > /dev/null
"$FK_BUILDDIR/tests/symbolize-bench" "$LIBC" 2000000
"$FK_BUILDDIR/tests/symbolize-bench" "$FK_BUILDDIR/flamekit" 2000000
