pkglib_LTLIBRARIES += plugins/output-folded.la
plugins_output_folded_la_SOURCES = plugins/output/folded/folded.c
plugins_output_folded_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_folded_la_LIBADD = lib/folded/libfkfolded.la $(LIBM)
