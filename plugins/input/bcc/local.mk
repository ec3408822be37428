# bcc: the default output of bcc's profile, offcputime, offwaketime, stackcount.
pkglib_LTLIBRARIES += plugins/input-bcc.la
plugins_input_bcc_la_SOURCES = plugins/input/bcc/bcc.c plugins/input/common/probe.h plugins/input/common/count_sync.h plugins/input/common/stack.h
plugins_input_bcc_la_LDFLAGS = $(PLUGIN_LDFLAGS)
