# flamechart: time on the x axis; draws through the svgdoc library.
pkglib_LTLIBRARIES += plugins/output-flamechart.la
plugins_output_flamechart_la_SOURCES = plugins/output/flamechart/flamechart.c
plugins_output_flamechart_la_CPPFLAGS = $(SVGDOC_CPPFLAGS)
plugins_output_flamechart_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_flamechart_la_LIBADD = $(SVGDOC_LIBS)
