# flamechart: time on the x axis; shares the svg plugin's document code.
pkglib_LTLIBRARIES += plugins/output-flamechart.la
plugins_output_flamechart_la_SOURCES = plugins/output/flamechart/flamechart.c $(SVG_COMMON_SOURCES)
plugins_output_flamechart_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_flamechart_la_LIBADD = $(LIBM)
