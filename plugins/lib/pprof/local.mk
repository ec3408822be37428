# libfkpprof: pprof's profile.proto as C, generated at build time by protoc-c
# from the .proto configure found (PPROF_PROTO), with the helpers the pprof
# input and output plugins share.  A convenience library linked into both
# modules, so neither compiles the other's files.
noinst_LTLIBRARIES += plugins/lib/libfkpprof.la
nodist_plugins_lib_libfkpprof_la_SOURCES = \
	plugins/lib/pprof/profile.pb-c.c plugins/lib/pprof/profile.pb-c.h
plugins_lib_libfkpprof_la_SOURCES = plugins/lib/pprof/fk_pprof.c plugins/lib/pprof/fk_pprof.h \
	plugins/lib/pprof/stream.c plugins/input/common/limit.h
plugins_lib_libfkpprof_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_builddir)/plugins/lib/pprof
plugins_lib_libfkpprof_la_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
plugins_lib_libfkpprof_la_LIBADD = $(PROTOBUF_C_LIBS)
# The flags a module using the library compiles with.
FK_PPROF_CPPFLAGS = -I$(top_srcdir)/plugins/lib/pprof -I$(top_builddir)/plugins/lib/pprof
BUILT_SOURCES += plugins/lib/pprof/profile.pb-c.h plugins/lib/pprof/profile.pb-c.c
CLEANFILES += plugins/lib/pprof/profile.pb-c.h plugins/lib/pprof/profile.pb-c.c

# protoc-c writes both files at once; the .c is made with the .h.
plugins/lib/pprof/profile.pb-c.h: $(PPROF_PROTO)
	$(AM_V_GEN)$(MKDIR_P) plugins/lib/pprof && \
	$(PROTOC_C) --proto_path='$(dir $(PPROF_PROTO))' --c_out=plugins/lib/pprof \
		'$(PPROF_PROTO)'
plugins/lib/pprof/profile.pb-c.c: plugins/lib/pprof/profile.pb-c.h
	@test -f $@ || { rm -f plugins/lib/pprof/profile.pb-c.h; $(MAKE) $(AM_MAKEFLAGS) plugins/lib/pprof/profile.pb-c.h; }
