# html: reads back the data a flamekit HTML report embeds.
pkglib_LTLIBRARIES += plugins/input-html.la
plugins_input_html_la_SOURCES = plugins/input/html/html.c plugins/lib/report/report.h
plugins_input_html_la_LDFLAGS = $(PLUGIN_LDFLAGS)
