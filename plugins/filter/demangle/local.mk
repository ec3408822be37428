# demangle: the native demangling filter (libiberty's cplus_demangle, as
# c++filt).  libiberty is a static archive (Debian's is position-independent)
# linked into this module alone.
pkglib_LTLIBRARIES += plugins/filter-demangle.la
plugins_filter_demangle_la_SOURCES = plugins/filter/demangle/demangle.c
plugins_filter_demangle_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_filter_demangle_la_LIBADD = $(LIBIBERTY_LIBS)
