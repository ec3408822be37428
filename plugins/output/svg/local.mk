# svg: flamegraph.pl's flame graph; icicle: the same source, inverted by default.
pkglib_LTLIBRARIES += plugins/output-svg.la plugins/output-icicle.la
plugins_output_svg_la_SOURCES = plugins/output/svg/svg.c
plugins_output_svg_la_CPPFLAGS = $(SVGDOC_CPPFLAGS)
plugins_output_svg_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_svg_la_LIBADD = $(SVGDOC_LIBS)
plugins_output_icicle_la_SOURCES = plugins/output/svg/svg.c
plugins_output_icicle_la_CPPFLAGS = $(SVGDOC_CPPFLAGS) -DFK_SVG_ICICLE
plugins_output_icicle_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_icicle_la_LIBADD = $(SVGDOC_LIBS)
