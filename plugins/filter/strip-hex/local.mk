# strip-hex: difffolded.pl -s as a per-frame filter (0x<hex> becomes 0x...);
# flamekit diff -s, collapse/graph --strip-hex and a job's filters use it.
pkglib_LTLIBRARIES += plugins/filter-strip-hex.la
plugins_filter_strip_hex_la_SOURCES = plugins/filter/strip-hex/strip-hex.c
plugins_filter_strip_hex_la_LDFLAGS = $(PLUGIN_LDFLAGS)
