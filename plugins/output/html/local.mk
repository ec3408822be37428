# html: a self-contained HTML report (libfkreport's encoder).  page.html (the
# page, its style and its script) becomes page.h, two C strings split at the
# line @@DATA@@.
pkglib_LTLIBRARIES += plugins/output-html.la
plugins_output_html_la_SOURCES = plugins/output/html/html.c plugins/output/html/timeline.c \
	plugins/output/html/timeline.h
nodist_plugins_output_html_la_SOURCES = plugins/output/html/page.h
plugins_output_html_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_builddir)/plugins/output/html $(FK_REPORT_CPPFLAGS)
plugins_output_html_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_html_la_LIBADD = $(FK_REPORT_LIBS) $(LIBM)
BUILT_SOURCES += plugins/output/html/page.h
CLEANFILES += plugins/output/html/page.h
EXTRA_DIST += plugins/output/html/page.html plugins/output/html/page2c.awk
plugins/output/html/page.h: plugins/output/html/page.html plugins/output/html/page2c.awk
	$(MKDIR_P) plugins/output/html
	$(AWK) -f $(srcdir)/plugins/output/html/page2c.awk $(srcdir)/plugins/output/html/page.html > $@.tmp
	mv $@.tmp $@
# also when the plugin is built alone (make plugins/output-html.la)
$(plugins_output_html_la_OBJECTS): plugins/output/html/page.h
