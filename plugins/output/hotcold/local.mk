# hotcold: on- and off-CPU time in one graph; shares the svg plugin's document code.
pkglib_LTLIBRARIES += plugins/output-hotcold.la
plugins_output_hotcold_la_SOURCES = plugins/output/hotcold/hotcold.c $(SVG_COMMON_SOURCES)
plugins_output_hotcold_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_hotcold_la_LIBADD = $(LIBM)
