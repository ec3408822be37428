# hotcold: on- and off-CPU time in one graph; draws through the svgdoc library.
pkglib_LTLIBRARIES += plugins/output-hotcold.la
plugins_output_hotcold_la_SOURCES = plugins/output/hotcold/hotcold.c
plugins_output_hotcold_la_CPPFLAGS = $(SVGDOC_CPPFLAGS)
plugins_output_hotcold_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_hotcold_la_LIBADD = $(SVGDOC_LIBS)
