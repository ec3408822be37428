# html: reads back the data a flamekit HTML report embeds.
pkglib_LTLIBRARIES += plugins/input-html.la
plugins_input_html_la_SOURCES = plugins/input/html/html.c plugins/lib/report/report.h plugins/lib/report/b64.h
plugins_input_html_la_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)
plugins_input_html_la_LIBADD = $(ZLIB_LIBS)
plugins_input_html_la_LDFLAGS = $(PLUGIN_LDFLAGS)
