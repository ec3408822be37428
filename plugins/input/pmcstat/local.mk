pkglib_LTLIBRARIES += plugins/input-pmcstat.la
plugins_input_pmcstat_la_SOURCES = plugins/input/pmcstat/pmcstat.c plugins/input/common/probe.h plugins/input/common/stack.h
plugins_input_pmcstat_la_LDFLAGS = $(PLUGIN_LDFLAGS)
