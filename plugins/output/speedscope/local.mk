# speedscope: speedscope's JSON file format.
pkglib_LTLIBRARIES += plugins/output-speedscope.la
plugins_output_speedscope_la_SOURCES = plugins/output/speedscope/speedscope.c
plugins_output_speedscope_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_speedscope_la_LIBADD = $(LIBM)
