pkglib_LTLIBRARIES += plugins/input-folded.la
plugins_input_folded_la_SOURCES = plugins/input/folded/folded.c
plugins_input_folded_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_folded_la_LIBADD = lib/folded/libfkfolded.la
