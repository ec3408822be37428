# html: reads back the data a flamekit HTML report embeds (libfkreport's decoder).
pkglib_LTLIBRARIES += plugins/input-html.la
plugins_input_html_la_SOURCES = plugins/input/html/html.c
plugins_input_html_la_CPPFLAGS = $(AM_CPPFLAGS) $(FK_REPORT_CPPFLAGS)
plugins_input_html_la_LIBADD = $(FK_REPORT_LIBS)
plugins_input_html_la_LDFLAGS = $(PLUGIN_LDFLAGS)
