# svg: flamegraph.pl's flame graph; icicle: the same sources, inverted by default.
SVG_COMMON_SOURCES = \
	plugins/output/svg/layout.c plugins/output/svg/layout.h \
	plugins/output/svg/palette.c plugins/output/svg/palette.h \
	plugins/output/svg/script.c \
	plugins/output/svg/svgdoc.c plugins/output/svg/svgdoc.h

pkglib_LTLIBRARIES += plugins/output-svg.la plugins/output-icicle.la
plugins_output_svg_la_SOURCES = plugins/output/svg/svg.c $(SVG_COMMON_SOURCES)
plugins_output_svg_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_svg_la_LIBADD = $(LIBM)
plugins_output_icicle_la_SOURCES = plugins/output/svg/svg.c $(SVG_COMMON_SOURCES)
plugins_output_icicle_la_CPPFLAGS = $(AM_CPPFLAGS) -DFK_SVG_ICICLE
plugins_output_icicle_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_icicle_la_LIBADD = $(LIBM)
