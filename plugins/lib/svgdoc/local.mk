# svgdoc: the flame graph document shared by the svg, icicle, flamechart and
# hotcold outputs (options, layout, palette, the SVG writer).  A convenience
# library each of them links, so no plugin compiles another plugin's files.
noinst_LTLIBRARIES += plugins/lib/svgdoc/libsvgdoc.la
plugins_lib_svgdoc_libsvgdoc_la_SOURCES = \
	plugins/lib/svgdoc/attrs.c plugins/lib/svgdoc/attrs.h \
	plugins/lib/svgdoc/layout.c plugins/lib/svgdoc/layout.h \
	plugins/lib/svgdoc/palette.c plugins/lib/svgdoc/palette.h \
	plugins/lib/svgdoc/script.c \
	plugins/lib/svgdoc/svgdoc.c plugins/lib/svgdoc/svgdoc.h \
	plugins/lib/svgdoc/svgopts.c \
	plugins/lib/svgdoc/xmlout.c plugins/lib/svgdoc/xmlout.h
SVGDOC_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/lib/svgdoc
SVGDOC_LIBS = plugins/lib/svgdoc/libsvgdoc.la $(LIBM)
